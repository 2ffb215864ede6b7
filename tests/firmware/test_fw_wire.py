"""The firmware's framing against the companion's: the same CRC, frames the companion's
parser takes whole, and the companion's frames read back by the firmware."""

from __future__ import annotations

import random

import pytest

from firmware.common import wire
from hardware import protocol
from hardware.messages import DieRolled, RegieSnapshot, decode


def test_the_crc_check_value_is_29B1():
    assert wire.crc16(b"123456789") == 0x29B1
    assert wire.hex4(wire.crc16(b"123456789")) == "29B1"
    assert wire.crc16(b"") == 0xFFFF


def test_the_bitwise_crc_equals_the_companions_table_crc():
    rng = random.Random(12)
    for _ in range(300):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(0, 80)))
        assert wire.crc16(data) == protocol.crc16(data)


def test_a_frame_is_byte_for_byte_the_companions():
    raw = wire.encode(3, "ROLL", (("face", 4), ("rolls", 9)))
    assert raw == b"@3 ROLL face=4 rolls=9 *62AD\n"  # as tests/hardware has it
    assert raw == protocol.frame(3, "ROLL", face=4, rolls=9).encode()
    (parsed,) = protocol.Parser().feed(raw)
    assert decode(parsed) == DieRolled(seq=3, face=4, rolls=9)


def test_lists_are_comma_separated_and_decode():
    fields = (("levels", [0, 0, -1, 0, 0, 0]), ("box", 3), ("comp", (0, 0, 1, 0, 0, 0, 0)),
              ("table", [1, 0]), ("inserts", 5))  # fmt: skip
    raw = wire.encode(12, "REGIESNAP", fields)
    documented = (
        b"@12 REGIESNAP levels=0,0,-1,0,0,0 box=3 comp=0,0,1,0,0,0,0 table=1,0 inserts=5 *12D8\n"
    )
    assert raw == documented  # docs/serial-protocol.md's example
    (parsed,) = protocol.Parser().feed(raw)
    snapshot = RegieSnapshot(12, (0, 0, -1, 0, 0, 0), 3, (0, 0, 1, 0, 0, 0, 0), (1, 0), 5)
    assert decode(parsed) == snapshot


def test_the_sequence_number_is_taken_modulo_65536():
    assert wire.encode(65536 + 7, "HB", (("up", 1),)).startswith(b"@7 HB ")


@pytest.mark.parametrize(
    ("type_", "fields", "why"),
    [
        ("roll", (), "bad type"),  # a type is in capitals
        ("ROLL", (("Face", 1),), "bad key"),  # a key in small letters
        ("ROLL", (("face", "a b"),), "without space"),
        ("ROLL", (("face", "4*"),), "without space"),
        ("ROLL", (("face", "@"),), "without space"),
        ("ROLL", (("face", ""),), "1 to 64"),
        ("ROLL", (("face", "x" * 65),), "1 to 64"),
        ("HELLO", tuple((f"k{i}", "x" * 60) for i in range(4)), "at most 200 bytes"),
    ],
)
def test_what_the_protocol_does_not_allow_is_refused_before_the_wire(type_, fields, why):
    with pytest.raises(ValueError, match=why):
        wire.encode(1, type_, fields)


def test_the_reader_takes_the_companions_frames_through_garbage_and_any_split():
    rng = random.Random(5)
    sent = [protocol.frame(i, "REPLAY", **{"from": 1000 + i}) for i in range(20)]
    stream = b""
    for f in sent:
        stream += bytes(rng.choice(b"xyz \r\n*#") for _ in range(rng.randrange(5)))
        stream += f.encode()
    reader = wire.Reader()
    got = []
    i = 0
    while i < len(stream):
        step = rng.randrange(1, 9)
        got += reader.feed(stream[i : i + step])
        i += step
    assert got == [(f.seq, "REPLAY", {"from": str(1000 + f.seq)}) for f in sent]
    assert reader.dropped == 0  # noise between frames is no frame


def test_the_reader_drops_bad_crc_truncated_and_overlong_frames_and_recovers():
    good = protocol.frame(1, "GET", what="snapshot").encode()
    bad_crc = good.replace(b"*F621", b"*F622")
    assert good.endswith(b"*F621\n") and bad_crc != good
    truncated = good[:10]
    overlong = b"@1 GET what=" + b"x" * 250 + b"\n"
    lower_hex = protocol.frame(2, "GET", what="snapshot").encode().lower().replace(b"get", b"GET")
    reader = wire.Reader()
    frames = reader.feed(bad_crc + truncated + overlong + lower_hex + good + b"@2 REPLAY\r\n")
    assert frames == [(1, "GET", {"what": "snapshot"})]
    assert reader.dropped == 5
    assert reader.feed(good.replace(b"\n", b"\r\n")) == [(1, "GET", {"what": "snapshot"})]
