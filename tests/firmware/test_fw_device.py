"""What every device must do (docs/serial-protocol.md), as the firmware does it: the hello
first, numbers in turn and wrapping at 65535, GET and REPLAY answered, the ring, the
heartbeat. Every frame is read back with the companion's parser and decoder."""

from __future__ import annotations

import pytest

from firmware.common.device import RING, Device
from hardware.messages import Gap, Heartbeat, Hello, Refusal, decode
from hardware.protocol import Frame, Parser, frame


def snapshot():
    return "DIESNAP", (("rolls", 2), ("bad", 1), ("last", 5))


def parse(raws: list[bytes]) -> list[Frame]:
    parser = Parser()
    frames = [f for raw in raws for f in parser.feed(raw)]
    assert len(frames) == len(raws) and not parser.dropped
    return frames


def events(raws: list[bytes]) -> list:
    out = [decode(f) for f in parse(raws)]
    assert not [e for e in out if isinstance(e, Refusal)]
    return out


def ask(type_: str, seq: int = 1, **fields: object) -> bytes:
    return frame(seq, type_, **fields).encode()


@pytest.fixture
def device() -> Device:
    return Device("die", "D1-0001", "3F2A91C4", snapshot)


def test_the_hello_comes_first_with_number_0(device):
    (hello,) = events(device.boot(0))
    assert hello == Hello(seq=0, proto=1, kind="die", serial="D1-0001", boot="3F2A91C4", fw="1.0")
    documented = b"@0 HELLO proto=1 kind=die serial=D1-0001 boot=3F2A91C4 fw=1.0 *5999\n"
    assert device.boot(5) == [documented]  # docs/serial-protocol.md's example, exactly


def test_nothing_before_the_hello_and_a_boot_id_is_8_hex_digits(device):
    with pytest.raises(RuntimeError):
        device.send("HB", (("up", 0),), 0)
    for bad in ("3f2a91c4", "3F2A91C", "3F2A91C4F", "3F2A91CG"):
        with pytest.raises(ValueError, match="8 capital hexadecimal digits"):
            Device("die", "D1", bad, snapshot)


def test_get_snapshot_is_answered_with_hello_and_snapshot_numbered_in_turn(device):
    device.boot(0)
    device.send("ROLLING", (), 10)
    answer = events(device.receive(ask("GET", what="snapshot"), 20))
    assert [(e.seq, type(e).__name__) for e in answer] == [(2, "Hello"), (3, "DieSnapshot")]
    assert (answer[1].rolls, answer[1].bad, answer[1].last) == (2, 1, 5)
    assert answer[0].boot == "3F2A91C4"  # the same boot: not a restart


def test_other_gets_bad_crcs_and_unknown_requests_are_ignored(device):
    device.boot(0)
    damaged = ask("GET", what="snapshot").replace(b"snapshot", b"snapshoT")
    ignored = ask("GET", what="everything") + damaged + ask("RESET") + ask("REPLAY", frm=0)
    assert device.receive(ignored, 5) == []
    assert device.seq == 1


def test_a_request_split_across_reads_is_answered_once(device):
    device.boot(0)
    raw = ask("GET", what="snapshot")
    answers = [device.receive(raw[i : i + 1], i) for i in range(len(raw))]
    assert [len(a) for a in answers] == [0] * (len(raw) - 1) + [2]


def test_replay_sends_the_kept_frames_again_unchanged_with_their_numbers(device):
    sent = device.boot(0)
    for i in range(10):
        sent.append(device.send("ROLL", (("face", 1 + i % 6), ("rolls", i + 1)), 100 * i))
    replayed = device.receive(ask("REPLAY", **{"from": 4}), 2000)
    assert replayed == sent[4:]  # byte for byte: the same numbers, the same CRCs
    assert [f.seq for f in parse(replayed)] == list(range(4, 11))
    assert device.seq == 11  # a replay uses no new numbers


def test_numbers_wrap_from_65535_to_0_and_replay_follows_the_wrap(device):
    device.boot(0)
    device.seq = 65533  # as after a long evening
    sent = [device.send("ROLLING", (), t) for t in range(5)]
    assert [f.seq for f in parse(sent)] == [65533, 65534, 65535, 0, 1]
    assert device.receive(ask("REPLAY", **{"from": 65535}), 10) == sent[2:]
    assert [f.seq for f in parse(device.receive(ask("REPLAY", **{"from": 0}), 10))] == [0, 1]


def test_a_replay_of_what_is_not_kept_is_a_gap_and_the_snapshot(device):
    device.boot(0)
    for i in range(RING + 10):  # the hello and the first frames leave the ring
        device.send("ROLLING", (), i)
    last = device.seq - 1
    oldest_kept = device.seq - RING
    kept = device.receive(ask("REPLAY", **{"from": oldest_kept}), 100)
    assert len(kept) == RING
    gap, snap = events(device.receive(ask("REPLAY", **{"from": oldest_kept - 1}), 100))
    assert gap == Gap(seq=last + 1, first=oldest_kept - 1, last=last)
    assert snap.seq == last + 2 and type(snap).__name__ == "DieSnapshot"
    never = events(device.receive(ask("REPLAY", **{"from": 60000}), 100))
    assert never[0] == Gap(seq=last + 3, first=60000, last=last + 2)


def test_a_heartbeat_after_a_second_without_a_frame(device):
    device.boot(1000)
    assert device.tick(1999) == []
    (hb,) = events(device.tick(2000))
    assert hb == Heartbeat(seq=1, up=1000)
    assert device.tick(2500) == []
    device.send("ROLLING", (), 2900)
    assert device.tick(3800) == []  # any frame counts
    assert events(device.tick(3900)) == [Heartbeat(seq=3, up=2900)]
    device.receive(ask("REPLAY", **{"from": 1}), 4800)
    assert device.tick(5700) == []  # a replayed frame counts as sent
    assert events(device.tick(5800))[0].up == 4800


def test_up_wraps_at_2_to_the_32(device):
    device.boot(0)
    (hb,) = events(device.tick(2**32 + 1500))
    assert hb.up == 1500
