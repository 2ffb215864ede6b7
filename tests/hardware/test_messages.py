"""The messages of docs/serial-protocol.md: every documented frame is byte-exact, decodes
to its event and encodes back; bad values are refused with their reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hardware.messages import (
    EVENTS,
    HOST_TYPES,
    DieRolled,
    Hello,
    Refusal,
    RegieSnapshot,
    decode,
    encode,
)
from hardware.protocol import Parser, crc16, frame

DOC = Path(__file__).resolve().parents[2] / "docs" / "serial-protocol.md"


def documented_frames() -> list[bytes]:
    blocks = re.findall(r"```frame\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    return [block.encode("ascii") for block in blocks]


def test_the_documented_check_value():
    assert "`29B1`" in DOC.read_text(encoding="utf-8")
    assert crc16(b"123456789") == 0x29B1


@pytest.mark.parametrize("raw", documented_frames(), ids=lambda raw: raw.split()[1].decode())
def test_every_documented_frame_is_exact(raw):
    (parsed,) = Parser().feed(raw)
    assert parsed.encode() == raw  # the documented CRC is right, the bytes round-trip
    if parsed.type in HOST_TYPES:
        return
    event = decode(parsed)
    assert not isinstance(event, Refusal), event
    assert encode(event).encode() == raw


def test_every_device_message_type_is_documented():
    documented = {raw.split()[1].decode() for raw in documented_frames()}
    assert set(EVENTS) | set(HOST_TYPES) == documented


def test_events_carry_typed_fields():
    assert decode(frame(3, "ROLL", face=4, rolls=1)) == DieRolled(seq=3, face=4, rolls=1)
    snap = decode(frame(1, "REGIESNAP", levels="0,0,-1,0,0,0", box=3, comp="0,0,1", table="1,0",
                        inserts=5))  # fmt: skip
    assert isinstance(snap, RegieSnapshot) and snap.levels == (0, 0, -1, 0, 0, 0)
    hello = decode(frame(0, "HELLO", proto=1, kind="die", serial="D1", boot="AB", fw="2", new=1))
    assert isinstance(hello, Hello) and hello.kind == "die"  # an unknown field is passed over


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        (frame(1, "ROLL", face=7, rolls=1), "ROLL: field face=7: expected 1 to 6"),
        (frame(1, "ROLL", face="four", rolls=1), "face=four: expected a whole number"),
        (frame(1, "ROLL", face=4), "ROLL: field 'rolls' is missing"),
        (frame(1, "COMP", col=99, count=1), "COMP: field col=99: expected 0 to 19"),
        (frame(1, "BADROLL", why="dropped", bad=1), "expected one of crooked, tilted, handled"),
        (frame(1, "HELLO", proto=1, kind="lamp", serial="x", boot="1", fw="1"), "kind=lamp"),
        (frame(1, "DANCE"), "unknown message type 'DANCE'"),
        (frame(1, "REGIESNAP", levels="0,0", box=1, comp="0", table="0,0", inserts=0),
         "expected 6 numbers"),
        (frame(1, "LEVEL", level=3, pos="--1"), "expected a whole number"),
    ],
)  # fmt: skip
def test_bad_values_are_refused_with_the_reason(message, reason):
    refusal = decode(message)
    assert isinstance(refusal, Refusal)
    assert reason in refusal.reason
