"""Seeded, synthesised signals of light beams and Hall sensors, as the Regie board's loop
reads them (about once a millisecond, with jitter).

A beam's signal is a list of blocked intervals in milliseconds: a chip falling through
blocks it for some 10 to 25 ms, with chatter at its edges (a comparator without enough
hysteresis, or a chip's rim grazing the beam); a chip wobbling in the beam blocks and
clears it for a while; a blip is noise shorter than any chip.
"""

from __future__ import annotations

import random

Interval = tuple[float, float]


def chip(rng: random.Random, at: float) -> list[Interval]:
    """A chip falling through, with 0 to 4 bounces of the signal at each edge."""
    out = []
    t = at
    for _ in range(rng.randint(0, 4)):  # the leading edge chatters
        width = rng.uniform(0.2, 1.5)
        out.append((t, t + width))
        t += width + rng.uniform(0.2, 1.5)
    body = rng.uniform(10, 25)
    out.append((t, t + body))
    t += body
    for _ in range(rng.randint(0, 4)):  # and the trailing one
        t += rng.uniform(0.2, 1.5)
        width = rng.uniform(0.2, 1.5)
        out.append((t, t + width))
        t += width
    return out


def wobble(rng: random.Random, at: float, ms: float) -> list[Interval]:
    """A chip that came to rest across the beam and rocks: blocked most of the time,
    clear for 2 to 40 ms now and then, for ``ms``."""
    out = []
    t = at
    while t < at + ms:
        blocked = rng.uniform(5, 80)
        out.append((t, min(t + blocked, at + ms)))
        t += blocked + rng.uniform(2, 40)
    return out


def blip(rng: random.Random, at: float) -> list[Interval]:
    """Electrical noise: shorter than a chip could ever block the beam."""
    return [(at, at + rng.uniform(0.1, 1.5))]


def blocked(intervals: list[Interval], t: float) -> bool:
    return any(a <= t < b for a, b in intervals)


def sample_times(rng: random.Random, start: float, end: float) -> list[int]:
    """The loop's reading times: whole milliseconds (``ticks_ms``), 1 to 2 ms apart."""
    times = []
    t = start
    while t < end:
        times.append(int(t))
        t += rng.uniform(0.8, 2.0)
    return sorted(set(times))


def sample(intervals: list[Interval], times: list[int], rng: random.Random) -> list[bool]:
    """Each reading sees the beam at some moment within its millisecond."""
    return [blocked(intervals, t + rng.random()) for t in times]
