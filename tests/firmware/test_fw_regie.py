"""The Regie firmware on noisy, seeded sensor signals (beam_signals.py): every chip counts
once, through bounce, wobble and chips close together; levels and the box are reported
once settled; the frames are the companion's."""

from __future__ import annotations

import itertools
import random

import pytest
from beam_signals import Scene, blip, chip, sample, sample_times, wobble

from firmware.common.wire import crc16
from firmware.regie.beams import Beam, Clicks
from firmware.regie.mcp23017 import bits
from firmware.regie.regie import Layout, Regie, check_wiring
from hardware.counters import Counters
from hardware.messages import (
    BoxMoved,
    ChipEntered,
    ChipInserted,
    ChipOffTable,
    Hello,
    LevelMoved,
    RegieSnapshot,
    decode,
)
from hardware.protocol import Parser

SEEDS = range(6)


def counts(intervals, seed: int, end: float, beam: Beam | None = None) -> list[int]:
    """The times a beam counted, over a signal read as the board's loop reads it."""
    rng = random.Random(seed)
    beam = beam or Beam()
    times = sample_times(rng, 0, end)
    readings = zip(times, sample(intervals, times, rng), strict=True)
    return [t for t, b in readings if beam.update(t, b)]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_chip_with_contact_bounce_counts_once(seed):
    rng = random.Random(seed)
    signal = chip(rng, 100)
    assert len(signal) > 1 or seed  # some seeds do bounce
    (at,) = counts(signal, seed, 400)
    assert 100 <= at <= signal[-1][1] + 2


def test_the_chatter_is_real_in_these_signals():
    # Without the debouncing (a count for every blocked edge) the same signals over-count.
    rng = random.Random(3)
    edges = 0
    for seed in SEEDS:
        signal = chip(random.Random(seed), 100)
        times = sample_times(rng, 0, 400)
        seen = sample(signal, times, rng)
        edges += sum(1 for a, b in itertools.pairwise(seen) if b and not a)
    assert edges > len(SEEDS)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_chip_wobbling_in_the_beam_counts_once(seed):
    # It falls into the beam and stops there: the wobble goes on from its fall.
    rng = random.Random(seed)
    signal = chip(rng, 100, stops=True)
    signal += wobble(rng, signal[-1][1], 1500)
    assert len(counts(signal, seed, 2000)) == 1


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("gap", [10, 15, 25, 40])
def test_two_chips_falling_close_behind_each_other_count_twice(seed, gap):
    # A level sliding drops two stacked chips down one chute 15 to 30 ms apart.
    rng = random.Random(seed)
    first = chip(rng, 100)
    signal = first + chip(rng, first[-1][1] + gap)
    assert len(counts(signal, seed, 500)) == 2


@pytest.mark.parametrize("seed", SEEDS)
def test_a_chip_close_behind_one_at_rest_waits_until_that_one_has_gone(seed):
    # A chip resting in the beam and then a second one: while the first rocks, nothing
    # more counts; once the beam has been clear a while, the next chip does.
    rng = random.Random(seed)
    signal = chip(rng, 100, stops=True)
    signal += wobble(rng, signal[-1][1], 600)
    signal += chip(rng, signal[-1][1] + 100)
    assert len(counts(signal, seed, 1200)) == 2


@pytest.mark.parametrize("seed", SEEDS)
def test_blips_shorter_than_a_chip_count_nothing(seed):
    rng = random.Random(seed)
    signal = [iv for k in range(20) for iv in blip(rng, 100 + 97 * k)]
    assert counts(signal, seed, 2200) == []


@pytest.mark.parametrize("seed", SEEDS)
def test_two_chips_one_after_the_other_in_one_compartment_count_twice(seed):
    rng = random.Random(seed)
    signal = chip(rng, 100) + chip(rng, 450)
    assert len(counts(signal, seed, 800)) == 2


def test_a_beam_blocked_at_power_on_counts_nothing_until_clear():
    assert counts([(0, 500)], 1, 700) == []
    assert len(counts([(0, 500), (700, 720)], 1, 900)) == 1


# -- the whole frame ----------------------------------------------------------------------


def frames_of(raws: list[bytes]) -> list:
    parser = Parser()
    events = [decode(f) for raw in raws for f in parser.feed(raw)]
    assert len(events) == len(raws) and not parser.dropped
    return events


def test_a_move_with_all_its_sightings_is_reported_once_each():
    scene = Scene(1)
    scene.chip("insert 2", 100)  # put in at column 2
    scene.move("level 3", 300, [0, None, (0, -1), -1])  # slid left a click: chips fall
    scene.chip("comp 2", 900, wobble_ms=400)  # one rocks in the chute
    scene.chip("comp 0", 950)  # two at once in other compartments
    scene.chip("comp 1", 970)
    scene.chip("table left", 1000)
    scene.move("box", 1800, [2, None, 3])
    scene.move("level 1", 2100, [0, 1, 0])  # nudged and back: never settled at 1
    regie = Regie("R1-TEST", "00C0FFEE")
    events = frames_of(scene.run(regie, 2800))
    assert events[0].TYPE == "HELLO"
    assert [(e.TYPE, e) for e in events[1:]] == [
        ("INSERT", ChipInserted(1, col=2, colour="unknown", inserts=1)),
        ("LEVEL", LevelMoved(2, level=3, pos=-1)),
        ("COMP", ChipEntered(3, col=2, count=1)),
        ("COMP", ChipEntered(4, col=0, count=1)),
        ("COMP", ChipEntered(5, col=1, count=1)),
        ("TABLE", ChipOffTable(6, side="left", count=1)),
        ("BOX", BoxMoved(7, pos=3)),
    ]
    counters = Counters()
    assert {counters.check(e).kind for e in events} == {"ok", "uncounted"}
    (snap,) = frames_of([regie.device.send_snapshot(3000)])
    assert snap == RegieSnapshot(8, (0, 0, -1, 0, 0, 0), 3, (1, 1, 1, 0, 0, 0, 0), (1, 0), 1)


@pytest.mark.parametrize("seed", SEEDS)
def test_many_chips_in_quick_succession_each_count_once(seed):
    scene = Scene(seed)
    rng = random.Random(seed)
    expected = dict.fromkeys(scene.layout.beams(), 0)
    t = 100.0
    free = dict.fromkeys(expected, 0.0)  # when the next chip may cross each beam
    for _ in range(60):
        name = rng.choice(list(expected))
        # chips in one beam 10 to 40 ms after the last has gone (a stacked pair
        # falling), or 100 ms after one that rested there; other beams at any moment
        t = max(t + rng.uniform(0, 30), free[name])
        rests = rng.random() < 0.2
        scene.chip(name, t, wobble_ms=300 if rests else 0)
        last = scene.beams[name][-1][1]
        free[name] = last + (100 if rests else rng.uniform(10, 40))
        expected[name] += 1
        # the next may come in another beam before this one ends (after the power-on)
        t = max(100.0, t - rng.uniform(0, 200))
    regie = Regie("R1-TEST", "00C0FFEE")
    events = frames_of(scene.run(regie, t + 2000))[1:]
    got = dict.fromkeys(expected, 0)
    for e in events:
        if isinstance(e, ChipInserted):
            got[f"insert {e.col}"] += 1
        elif isinstance(e, ChipEntered):
            got[f"comp {e.col}"] += 1
        elif isinstance(e, ChipOffTable):
            got[f"table {e.side}"] += 1
    assert got == expected
    counters = Counters()
    assert {counters.check(e).kind for e in events} == {"ok"}


def test_where_the_frame_stands_at_power_on_is_no_move():
    scene = Scene(2)
    scene.move("level 5", 0, [-2])
    scene.move("box", 0, [1])
    scene.move("level 5", 900, [-2, None, -1])
    regie = Regie("R1-TEST", "00C0FFEE")
    events = frames_of(scene.run(regie, 1500, boot_at=400))
    assert [e.TYPE for e in events] == ["HELLO", "LEVEL"]
    assert events[1] == LevelMoved(1, level=5, pos=-1)
    snap = frames_of([regie.device.send_snapshot(2000)])[0]
    assert (snap.levels, snap.box) == ((0, 0, 0, 0, -1, 0), 1)


def test_clicks_settle_before_they_are_reported():
    clicks = Clicks((-1, 0, 1), settle_ms=150)
    assert clicks.update(0, [0, 1, 0]) is None
    assert clicks.update(149, [0, 1, 0]) is None
    assert clicks.update(150, [0, 1, 0]) == 0
    assert clicks.update(160, [0, 1, 1]) is None  # two at once: between clicks
    assert clicks.update(200, [0, 0, 1]) is None
    assert clicks.update(340, [0, 0, 1]) is None
    assert clicks.update(350, [0, 0, 1]) == 1
    assert clicks.update(900, [0, 0, 1]) is None  # said once


def test_colours_where_a_sensor_tells_them():
    regie = Regie("R1-TEST", "00C0FFEE", Layout(columns=5, insert_columns=(1, 3)))
    regie.boot(0)
    clear = [False] * len(regie.layout.beams())
    for t in range(0, 100, 2):
        regie.beams(t, clear)
    one = [True] + [False] * (len(clear) - 1)
    raws = regie.beams(100, one, ["red", "blue"]) + regie.beams(110, one, ["red", "blue"])
    (insert,) = frames_of(raws)
    assert insert == ChipInserted(1, col=1, colour="red", inserts=1)


def test_the_layout_names_every_sensor_in_order():
    layout = Layout()
    assert layout.beams()[:5] == ["insert 0", "insert 2", "insert 4", "insert 6", "comp 0"]
    assert layout.beams()[-2:] == ["table left", "table right"]
    assert len(layout.beams()) == 4 + 7 + 2
    sensors = layout.sensors()
    assert sensors[:4] == ["level 1 -1", "level 1 0", "level 1 1", "level 2 -2"]
    assert len(sensors) == 3 + 5 + 5 + 3 + 5 + 5 + 3
    with pytest.raises(ValueError, match="within the frame"):
        Layout(columns=3, insert_columns=(4,))


def test_expander_bytes_become_inputs_in_order():
    assert bits(bytes([0b00000101, 0b01000000])) == [1, 0, 1] + [0] * 10 + [1]
    assert bits(bytes([0b10000000, 0b10000000])) == [0] * 14  # GPA7, GPB7 are not inputs


def test_the_wiring_is_checked_against_the_layout_before_anything_is_read():
    pins = tuple(range(6, 19))
    check_wiring(Layout(), pins, (0x20, 0x21), (19, 20, 21))  # the shipped kit
    long_levels = Layout(travels=(3, 3, 3, 3, 3, 3))  # 6 levels of 7 clicks: 42 sensors
    with pytest.raises(ValueError, match=r"need 42 Hall sensors.*give 28 inputs"):
        check_wiring(long_levels, pins, (0x20, 0x21), (19, 20, 21))
    check_wiring(long_levels, pins, (0x20, 0x21, 0x22), (19, 20, 21))
    with pytest.raises(ValueError, match="12 pins for 13 beams"):
        check_wiring(Layout(), pins[:-1], (0x20, 0x21), (19, 20, 21))
    with pytest.raises(ValueError, match="given twice"):
        check_wiring(Layout(), pins, (0x20, 0x21), (18, 20, 21))


def test_counts_too_long_for_one_value_start_again_as_after_a_boot():
    # 20 columns: 64 characters hold 20 counts of 2 digits and 5 of 3, not one more.
    # Rather than a snapshot the protocol forbids (and a crash at the next GET), the
    # counts start again from 0 with a new boot id and a hello, as a restart would.
    layout = Layout(columns=20, insert_columns=(0,))
    regie = Regie("R1-TEST", "00C0FFEE", layout, boot_ids=lambda: "0BADCAFE")
    regie.boot(0)
    regie.comp = [100] * 5 + [99] * 15
    clear = [False] * len(layout.beams())
    for t in range(0, 100, 2):
        regie.beams(t, clear)
    col_9 = list(clear)
    col_9[1 + 9] = True  # insert 0, then comp 0..19
    raws = []
    for t in range(100, 120, 2):
        raws += regie.beams(t, col_9)
    hello, entered = frames_of(raws)
    assert isinstance(hello, Hello) and (hello.seq, hello.boot) == (0, "0BADCAFE")
    assert entered == ChipEntered(1, col=9, count=1)
    (snap,) = frames_of([regie.device.send_snapshot(200)])
    assert snap.comp == (0,) * 9 + (1,) + (0,) * 10
    counters = Counters()
    assert [counters.check(e).kind for e in (hello, entered)] == ["uncounted", "ok"]


def test_a_long_evening_of_chips_keeps_every_frame_within_the_protocol():
    # 20 columns, 3000 chips into random compartments: the counts pass 100 in most
    # columns, so they start again now and then; every frame, snapshots included, is one
    # the companion reads, and its counters never see a count skipped or doubled.
    layout = Layout(columns=20, insert_columns=(0,))
    regie = Regie("R1-TEST", "00C0FFEE", layout)
    raws = regie.boot(0)
    clear = [False] * len(layout.beams())
    for t in range(0, 100, 2):
        regie.beams(t, clear)
    rng = random.Random(5)
    t = 100
    for n in range(3000):  # a chip every 14 ms
        blocked = list(clear)
        blocked[1 + rng.randrange(20)] = True
        for signal in (blocked, blocked, blocked, clear, clear, clear, clear):
            raws += regie.beams(t, signal)
            t += 2
        if n % 100 == 0:
            raws += regie.receive(
                b"@1 GET what=snapshot *" + b"%04X" % crc16(b"@1 GET what=snapshot ") + b"\n", t
            )
    events = frames_of(raws)
    hellos = [e for e in events if isinstance(e, Hello)]
    assert len({h.boot for h in hellos}) >= 2  # started again at least once
    assert sum(isinstance(e, ChipEntered) for e in events) == 3000
    counters = Counters()
    assert {counters.check(e).kind for e in events} == {"ok", "uncounted"}
