"""The protocol's messages as typed device events, and back.

``decode`` turns a frame into an event, or into a ``Refusal`` that names what was wrong
(an unknown type, a missing field, a value out of range): garbage is never an event.
``encode`` is the reverse, for the emulators and the tests. Every event keeps the frame's
sequence number; the link adds the time it arrived.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar

from hardware.protocol import Frame

PROTOCOL_VERSION = 1
DEVICE_KINDS = ("die", "regie")
BAD_ROLLS = ("crooked", "tilted", "handled")
COLOURS = ("red", "blue", "unknown")
SIDES = ("left", "right")


@dataclass(frozen=True)
class Event:
    """A device event: ``seq`` is the device's frame sequence number."""

    TYPE: ClassVar[str] = ""
    seq: int


@dataclass(frozen=True)
class Hello(Event):
    """Sent first after every boot: who the device is. A new ``boot`` id means the
    device restarted, and its counters and sequence numbers with it."""

    TYPE = "HELLO"
    proto: int
    kind: str
    serial: str
    boot: str
    fw: str


@dataclass(frozen=True)
class Heartbeat(Event):
    TYPE = "HB"
    up: int  # milliseconds since boot


@dataclass(frozen=True)
class Gap(Event):
    """The device cannot replay frames ``first`` to ``last`` (they left its ring): they
    are lost, and a snapshot follows."""

    TYPE = "GAP"
    first: int
    last: int


@dataclass(frozen=True)
class DieRolling(Event):
    """The die was picked up and thrown: a roll is on its way."""

    TYPE = "ROLLING"


@dataclass(frozen=True)
class DieRolled(Event):
    """The die came to rest flat: ``face`` is up. ``rolls`` counts valid rolls since boot."""

    TYPE = "ROLL"
    face: int
    rolls: int


@dataclass(frozen=True)
class DieInvalid(Event):
    """A roll that does not count: the die rests crooked, tilted, or was handled but not
    thrown. ``bad`` counts such rolls since boot."""

    TYPE = "BADROLL"
    why: str
    bad: int


@dataclass(frozen=True)
class Battery(Event):
    TYPE = "BATT"
    mv: int
    pct: int


@dataclass(frozen=True)
class DieSnapshot(Event):
    """The die's whole state: its counters and the last valid face (0 before any)."""

    TYPE = "DIESNAP"
    rolls: int
    bad: int
    last: int


@dataclass(frozen=True)
class LevelMoved(Event):
    """Regie: level ``level`` (1 top to 6) settled at ``pos`` clicks right of centre."""

    TYPE = "LEVEL"
    level: int
    pos: int


@dataclass(frozen=True)
class BoxMoved(Event):
    TYPE = "BOX"
    pos: int


@dataclass(frozen=True)
class ChipInserted(Event):
    """A chip went in at the top slot over frame column ``col``; ``colour`` where the
    sensor tells it, else ``unknown``. ``inserts`` counts insertions since boot."""

    TYPE = "INSERT"
    col: int
    colour: str
    inserts: int


@dataclass(frozen=True)
class ChipEntered(Event):
    """A chip entered the compartment under frame column ``col`` (first entry only);
    ``count`` is that compartment's running count since boot."""

    TYPE = "COMP"
    col: int
    count: int


@dataclass(frozen=True)
class ChipOffTable(Event):
    """A chip fell off the frame onto the table on ``side``; ``count`` is that side's
    running count since boot."""

    TYPE = "TABLE"
    side: str
    count: int


@dataclass(frozen=True)
class RegieSnapshot(Event):
    """The sensors' whole state: level positions, box position, running counts per
    compartment and per table side, insertions."""

    TYPE = "REGIESNAP"
    levels: tuple[int, ...]
    box: int
    comp: tuple[int, ...]
    table: tuple[int, int]
    inserts: int


EVENTS: dict[str, type[Event]] = {
    cls.TYPE: cls
    for cls in (
        Hello,
        Heartbeat,
        Gap,
        DieRolling,
        DieRolled,
        DieInvalid,
        Battery,
        DieSnapshot,
        LevelMoved,
        BoxMoved,
        ChipInserted,
        ChipEntered,
        ChipOffTable,
        RegieSnapshot,
    )
}

#: Allowed values: (low, high) for numbers, a tuple of words for words.
_RANGES: dict[tuple[str, str], object] = {
    ("HELLO", "proto"): (1, 99),
    ("HELLO", "kind"): DEVICE_KINDS,
    ("HB", "up"): (0, 2**32 - 1),
    ("ROLL", "face"): (1, 6),
    ("BADROLL", "why"): BAD_ROLLS,
    ("BATT", "mv"): (0, 10000),
    ("BATT", "pct"): (0, 100),
    ("DIESNAP", "last"): (0, 6),
    ("LEVEL", "level"): (1, 6),
    ("LEVEL", "pos"): (-9, 9),
    ("BOX", "pos"): (1, 3),
    ("INSERT", "col"): (0, 19),
    ("INSERT", "colour"): COLOURS,
    ("COMP", "col"): (0, 19),
    ("TABLE", "side"): SIDES,
    ("REGIESNAP", "box"): (1, 3),
}
_COUNTER = (0, 2**31 - 1)


@dataclass(frozen=True)
class Refusal:
    """A frame that is not a valid event, and why."""

    frame: Frame
    reason: str


class _BadValue(Exception):
    """A field's value that is not allowed; ``str`` says why."""


def decode(frame: Frame) -> Event | Refusal:
    cls = EVENTS.get(frame.type)
    if cls is None:
        return Refusal(frame, f"unknown message type {frame.type!r}")
    given = dict(frame.fields)
    values: dict[str, object] = {"seq": frame.seq}
    for spec in fields(cls):
        if spec.name == "seq":
            continue
        raw = given.get(spec.name)
        if raw is None:
            return Refusal(frame, f"{frame.type}: field {spec.name!r} is missing")
        try:
            values[spec.name] = _value(frame.type, spec.name, str(spec.type), raw)
        except _BadValue as problem:
            return Refusal(frame, f"{frame.type}: field {spec.name}={raw}: {problem}")
    # Fields this reader does not know are passed over: a newer device may say more.
    return cls(**values)


def _value(kind: str, name: str, annotation: str, raw: str) -> object:
    allowed = _RANGES.get((kind, name))
    if annotation == "str":
        words = allowed if isinstance(allowed, tuple) and isinstance(allowed[0], str) else None
        if words is not None and raw not in words:
            raise _BadValue(f"expected one of {', '.join(words)}")
        return raw
    if annotation.startswith("tuple"):
        bounds = (-9, 9) if name == "levels" else _COUNTER
        numbers = tuple(_number(part, bounds) for part in raw.split(","))
        expected = {"levels": 6, "table": 2}.get(name)
        if expected is not None and len(numbers) != expected:
            raise _BadValue(f"expected {expected} numbers separated by commas")
        return numbers
    bounds = allowed if isinstance(allowed, tuple) and isinstance(allowed[0], int) else _COUNTER
    return _number(raw, bounds)  # type: ignore[arg-type]


def _number(raw: str, bounds: tuple[int, int]) -> int:
    digits = raw[1:] if raw.startswith("-") else raw
    if not digits.isdigit():
        raise _BadValue("expected a whole number")
    value = int(raw)
    if not bounds[0] <= value <= bounds[1]:
        raise _BadValue(f"expected {bounds[0]} to {bounds[1]}")
    return value


def encode(event: Event) -> Frame:
    values = []
    for spec in fields(event):
        if spec.name == "seq":
            continue
        value = getattr(event, spec.name)
        if isinstance(value, tuple):
            value = ",".join(str(v) for v in value)
        values.append((spec.name, str(value)))
    return Frame(event.seq, event.TYPE, tuple(values))


# -- messages from the companion to a device ---------------------------------------------

#: ``GET what=snapshot`` asks for the whole state; ``REPLAY from=<seq>`` asks the device to
#: send its frames again from ``seq`` (it keeps its last 64; older means a snapshot).
HOST_TYPES = ("GET", "REPLAY")
