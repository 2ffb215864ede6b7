"""Seeded, synthesised signals of light beams and Hall sensors, as the Regie board's loop
reads them (about once a millisecond, with jitter).

A beam's signal is a list of blocked intervals in milliseconds: a chip falling through
blocks it for some 10 to 25 ms, with chatter at its edges (a comparator without enough
hysteresis, or a chip's rim grazing the beam); a chip that stops in the beam and wobbles
blocks it for longer than any falling chip, then blocks and clears it for a while; a
blip is noise shorter than any chip.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

from firmware.regie.regie import Layout, Regie

Interval = tuple[float, float]
Step = tuple[int, Callable[[int], list[bytes]]]


def chip(rng: random.Random, at: float, stops: bool = False) -> list[Interval]:
    """A chip falling through, with 0 to 4 bounces of the signal at each edge; or one
    that falls into the beam and ``stops`` there (its trailing edge never comes: a
    ``wobble`` goes on from the end of the last interval)."""
    out = []
    t = at
    for _ in range(rng.randint(0, 4)):  # the leading edge chatters
        width = rng.uniform(0.2, 1.5)
        out.append((t, t + width))
        t += width + rng.uniform(0.2, 1.5)
    body = rng.uniform(10, 25)
    out.append((t, t + body))
    t += body
    for _ in range(0 if stops else rng.randint(0, 4)):  # and the trailing one
        t += rng.uniform(0.2, 1.5)
        width = rng.uniform(0.2, 1.5)
        out.append((t, t + width))
        t += width
    return out


def wobble(rng: random.Random, at: float, ms: float) -> list[Interval]:
    """A chip that came to rest across the beam and rocks, for ``ms`` from ``at`` (as it
    stops there: right after its fall into the beam): blocked for 100 to 300 ms as it
    settles, then mostly blocked, clear for 2 to 40 ms now and then."""
    settling = rng.uniform(100, 300)
    out = [(at, at + min(settling, ms))]
    t = at + settling + rng.uniform(2, 40)
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


class Scene:
    """Beam signals and Hall sensor states over time, read into a ``Regie`` the way
    ``main.py`` reads them: the beams every millisecond or two, the sensors every 10 ms."""

    def __init__(self, seed: int, layout: Layout | None = None) -> None:
        self.rng = random.Random(seed)
        self.layout = layout or Layout()
        self.beams = {name: [] for name in self.layout.beams()}
        self.sensor_names = self.layout.sensors()
        self.clicks: list[tuple[float, str, object]] = []  # (from t, part, reading)

    def chip(self, beam: str, at: float, wobble_ms: float = 0) -> None:
        self.beams[beam] += chip(self.rng, at, stops=bool(wobble_ms))
        if wobble_ms:
            self.beams[beam] += wobble(self.rng, self.beams[beam][-1][1], wobble_ms)

    def move(self, part: str, at: float, path: list) -> None:
        """``part`` ("level 3", "box") passes through ``path``: positions, None between
        clicks, or a pair for two sensors seen at once; 40 to 90 ms each."""
        t = at
        for reading in path:
            self.clicks.append((t, part, reading))
            t += self.rng.uniform(40, 90)

    def active(self, t: float, start: dict[str, object]) -> list[bool]:
        now = dict(start)
        for at, part, reading in sorted(self.clicks, key=lambda c: c[0]):
            if at <= t:
                now[part] = reading
        out = []
        for name in self.sensor_names:
            part, position = name.rsplit(" ", 1)
            reading = now.get(part)
            seen = reading if isinstance(reading, tuple) else (reading,)
            out.append(int(position) in seen)
        return out

    def steps(self, regie: Regie, end: float, boot_at: float | None = 0) -> Iterator[Step]:
        """``(t, read)``: at ``t`` the loop reads the sensors; ``read(now)`` hands the
        readings to ``regie`` as read at ``now`` (``t``, or later on a board's clock) and
        returns the frames. Booted at ``boot_at`` (None: the caller boots it)."""
        start = {f"level {n}": 0 for n in range(1, 7)} | {"box": 2}
        names = self.layout.beams()
        next_clicks = 0
        for t in sample_times(self.rng, 0, end):
            beams = [blocked(self.beams[n], t + self.rng.random()) for n in names]
            clicks = self.active(t, start) if t >= next_clicks else None
            if clicks is not None:
                next_clicks = t + 10
            boot = boot_at is not None and t >= boot_at and not regie.started

            def read(now: int, beams=beams, clicks=clicks, boot=boot) -> list[bytes]:
                raws = regie.boot(now) if boot else []
                raws += regie.beams(now, beams)
                if clicks is not None:
                    raws += regie.clicks(now, clicks)
                return raws

            yield t, read

    def run(self, regie: Regie, end: float, boot_at: float = 0) -> list[bytes]:
        return [raw for t, read in self.steps(regie, end, boot_at) for raw in read(t)]
