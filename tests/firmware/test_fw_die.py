"""The die's firmware on synthesised accelerometer traces (accel_traces.py, seeded):
real rolls land on the face they show, slides and handling are not rolls, a die left
leaning is not flat, knocks and noise say nothing; the frames are the companion's."""

from __future__ import annotations

import pytest
from accel_traces import FACE_UP, Trace, neighbours

from firmware.die.accel import MPU6050, find_accelerometer, lis3dh_g, mpu6050_g
from firmware.die.die import Die, raw_line
from firmware.die.roll import RollDetector, _Still, face_up
from hardware.counters import Counters
from hardware.messages import Battery, DieInvalid, DieRolled, DieRolling, DieSnapshot, decode
from hardware.protocol import Parser

SEEDS = range(4)


def outcomes(trace: Trace, faces=None) -> list[tuple]:
    detector = RollDetector(faces) if faces else RollDetector()
    out = []
    for t, x, y, z in trace.samples:
        out += detector.update(t, x, y, z)
    return out


def rolled(face: int) -> list[tuple]:
    return [("ROLLING",), ("ROLL", face)]


def bad(why: str) -> list[tuple]:
    return [("ROLLING",), ("BADROLL", why)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("face", range(1, 7))
def test_a_thrown_die_shows_the_face_it_lands_on(face, seed):
    trace = Trace(seed * 10 + face)
    start = trace.rng.randint(1, 6)
    trace.rest(start)
    trace.throw(start, face)
    assert outcomes(trace) == rolled(face)


@pytest.mark.parametrize("seed", SEEDS)
def test_a_die_rolled_out_of_the_hand_along_the_table_counts_by_its_tumbles(seed):
    trace = Trace(100 + seed)
    trace.rest(6)
    trace.throw(6, 1 + seed, fly=False)
    assert outcomes(trace) == rolled(1 + seed)


def test_one_roll_after_another_each_once():
    trace = Trace(7)
    trace.rest(1)
    faces = [trace.rng.randint(1, 6) for _ in range(8)]
    previous = 1
    for face in faces:
        trace.throw(previous, face)
        previous = face
    expected = [o for face in faces for o in rolled(face)]
    assert outcomes(trace) == expected


@pytest.mark.parametrize("seed", SEEDS)
def test_a_slide_is_handled_not_rolled(seed):
    trace = Trace(200 + seed)
    trace.rest(3)
    trace.slide(3)
    assert outcomes(trace) == bad("handled")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("turn", [False, True], ids=["same-face", "turned-by-hand"])
def test_picked_up_and_set_down_is_handled_not_rolled(seed, turn):
    trace = Trace(300 + seed)
    trace.rest(2)
    after = trace.handle(2, turn=turn)
    assert (after != 2) == turn
    assert outcomes(trace) == bad("handled")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize(
    ("lean", "why"), [(20, "tilted"), (25, "tilted"), (38, "crooked"), (44, "crooked")]
)
def test_a_throw_that_ends_leaning_does_not_count(seed, lean, why):
    trace = Trace(400 + seed)
    trace.rest(4)
    trace.throw(4, 5, lean=lean)
    assert outcomes(trace) == bad(why)


@pytest.mark.parametrize("seed", SEEDS)
def test_turned_one_face_by_hand_and_set_down_hard_is_handled(seed):
    # The shock of setting it down and the one turn by hand are no throw: before it,
    # the turn came before the shock; a tumble counts only after a landing.
    trace = Trace(700 + seed)
    trace.rest(2)
    target = trace.rng.choice(neighbours(2))
    trace.turn_and_set_down_firmly(2, target, shock=trace.rng.uniform(2.6, 4.0))
    assert outcomes(trace) == bad("handled")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("cm", [3, 4, 8])
def test_dropped_from_the_hand_with_the_chosen_face_up_is_handled(seed, cm):
    # 4 cm is 90 ms in the air: free fall without tumbling is no throw.
    trace = Trace(800 + seed)
    trace.rest(2)
    trace.drop(2, cm)
    assert outcomes(trace) == bad("handled")


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("face", range(1, 7))
def test_an_off_centre_sensor_reading_the_spin_in_the_air_still_sees_rolls(face, seed):
    # A sensor 17 mm off the centre reads ~1.7 g at 5 turns a second in the air: no free
    # fall, and a "face" (toward the centre) that is not one; the tumbles still tell.
    trace = Trace(900 + seed * 10 + face)
    start = trace.rng.randint(1, 6)
    trace.rest(start)
    trace.throw(start, face, spin_g=trace.rng.choice([0.9, 1.2, 1.7]))
    assert outcomes(trace) == rolled(face)


def test_a_die_left_crooked_by_hand_is_handled_first():
    trace = Trace(9)
    trace.rest(5)
    trace.handle(5, lean=40)
    assert outcomes(trace) == bad("handled")


@pytest.mark.parametrize("seed", SEEDS)
def test_a_knock_on_the_table_and_sensor_noise_say_nothing(seed):
    trace = Trace(500 + seed, noise_g=0.01)
    trace.rest(1, 3000)
    for _ in range(5):
        trace.knock(1)
        trace.rest(1, 500)
    assert outcomes(trace) == []


@pytest.mark.parametrize("seed", SEEDS)
def test_a_noisy_sensor_with_a_large_offset_still_reads_right(seed):
    trace = Trace(600 + seed, offset_g=0.08, noise_g=0.01)
    trace.rest(2)
    trace.throw(2, 6)
    trace.slide(6)
    trace.throw(6, 3, lean=40)
    assert outcomes(trace) == rolled(6) + bad("handled") + bad("crooked")


def test_a_movement_from_boot_until_the_first_rest_is_no_roll():
    trace = Trace(11)
    trace.throw(1, 4)  # the board was switched on in the hand
    trace.throw(4, 2)
    assert outcomes(trace) == rolled(2)


def test_the_face_follows_the_mounting():
    # The board mounted turned over: +z looks out of the 6, -z out of the 1, ...
    flipped = (5, 2, 4, 3, 6, 1)
    trace = Trace(12)
    trace.rest(1)  # FACE_UP[1] is +z
    trace.throw(1, 1)
    assert outcomes(trace, flipped) == rolled(6)
    with pytest.raises(ValueError, match="opposite sides adding to 7"):
        RollDetector((1, 2, 3, 4, 5, 6))  # 1 and 2 are not opposite


def test_the_rest_window_follows_a_slow_drift_and_keeps_no_growing_sums():
    # A die left lying for long: its sensor drifts slowly (warming up), 0.06 g over a
    # minute after half a minute still. The window's mean is of its recent samples, so
    # it stays a rest; a mean of every sample since the rest began would lag behind the
    # drift (and on a board, MicroPython's 32-bit floats lose a sum of hours of samples).
    still = _Still()
    steady = [still.update(t * 10, 0.0, 0.0, 1.0) for t in range(3000)]
    drifting = [still.update(30000 + t * 10, 0.0, 0.0, 1.0 + 0.06 * t / 6000) for t in range(6000)]
    assert all(steady[1:]) and all(drifting)
    assert still.held(90000) and still.start == 0
    assert still.mean()[2] == pytest.approx(1.06, abs=0.005)


def test_face_up_and_its_flatness():
    assert face_up(0.0, 0.0, 1.0) == (1, 1.0)
    assert face_up(-0.98, 0.05, 0.02)[0] == 5
    assert face_up(0.7, 0.0, 0.7)[1] == pytest.approx(0.7071, abs=1e-3)
    for face, up in FACE_UP.items():
        assert face_up(*up)[0] == face
        assert all(face_up(*FACE_UP[n])[0] == n for n in neighbours(face))


# -- the die's frames ---------------------------------------------------------------------


def die_frames(trace: Trace, die: Die) -> list:
    raws = die.boot(trace.samples[0][0])
    for t, x, y, z in trace.samples:
        raws += die.sample(t, x, y, z)
    parser = Parser()
    events = [decode(f) for raw in raws for f in parser.feed(raw)]
    assert len(events) == len(raws) and not parser.dropped
    return events


def test_the_frames_carry_counters_the_companion_accepts():
    trace = Trace(21)
    trace.rest(1)
    trace.throw(1, 3)
    trace.slide(3)
    trace.throw(3, 6)
    trace.throw(6, 2, lean=40)
    trace.throw(2, 2)
    die = Die("D1-TEST", "0000BEEF")
    events = die_frames(trace, die)[1:]  # after the hello
    assert events == [
        DieRolling(1), DieRolled(2, face=3, rolls=1),
        DieRolling(3), DieInvalid(4, why="handled", bad=1),
        DieRolling(5), DieRolled(6, face=6, rolls=2),
        DieRolling(7), DieInvalid(8, why="crooked", bad=2),
        DieRolling(9), DieRolled(10, face=2, rolls=3),
    ]  # fmt: skip
    counters = Counters()
    assert {counters.check(e).kind for e in events} == {"ok", "uncounted"}
    (snap,) = [decode(f) for f in Parser().feed(die.device.send_snapshot(99999))]
    assert snap == DieSnapshot(11, rolls=3, bad=2, last=2)


def test_the_battery_is_reported_at_first_then_now_and_then():
    die = Die("D1-TEST", "0000BEEF")
    die.boot(0)
    (first,) = [decode(f) for f in Parser().feed(die.battery(2000, 4012)[0])]
    assert first == Battery(seq=1, mv=4012, pct=79)
    assert die.battery(12000, 4000) == []  # a minute later, hardly changed
    (fallen,) = [decode(f) for f in Parser().feed(die.battery(22000, 3840)[0])]
    assert (fallen.mv, fallen.pct) == (3840, 54)  # down 5 points or more: said at once
    assert die.battery(40000, 3839) == []
    assert len(die.battery(22000 + 300000, 3839)) == 1  # and every five minutes
    assert decode(Parser().feed(die.battery(10**6, 3000)[0])[0]).pct == 0


def test_accelerometer_bytes_become_g():
    # LIS3DH, +-8 g, 12 bits left-justified (x16): 250 steps of 4 mg = 1 g, -200 = -0.8 g.
    assert lis3dh_g(bytes([0, 0, 0x80, 0xF3, 0xA0, 0x0F])) == pytest.approx((0.0, -0.8, 1.0))
    # MPU-6050, +-8 g, big-endian: 4096 a g.
    assert mpu6050_g(bytes([0x10, 0x00, 0xF0, 0x00, 0x00, 0x00])) == (1.0, -1.0, 0.0)


class FakeI2C:
    """A bus with chips that answer WHO_AM_I: ``{address: (register, value)}``."""

    def __init__(self, chips: dict[int, tuple[int, int]]) -> None:
        self.chips = chips
        self.written: list[tuple[int, int, bytes]] = []

    def scan(self) -> list[int]:
        return sorted(self.chips)

    def readfrom_mem(self, address: int, register: int, n: int) -> bytes:
        who_register, who = self.chips[address]
        return bytes([who if register == who_register else 0] * n)

    def writeto_mem(self, address: int, register: int, data: bytes) -> None:
        self.written.append((address, register, bytes(data)))


@pytest.mark.parametrize("who", [0x68, 0x70, 0x71, 0x72, 0x73, 0x98])
def test_gy521_boards_with_an_mpu6500_or_a_clone_are_taken(who):
    i2c = FakeI2C({0x68: (0x75, who)})
    accel = find_accelerometer(i2c)
    assert isinstance(accel, MPU6050) and accel.address == 0x68
    assert (0x68, 0x1C, b"\x10") in i2c.written  # +-8 g


def test_a_chip_that_is_no_accelerometer_is_refused_by_its_who_am_i():
    with pytest.raises(OSError, match=r"found 0x68\): at 0x68 WHO_AM_I 0x12"):
        find_accelerometer(FakeI2C({0x68: (0x75, 0x12)}))
    with pytest.raises(OSError, match=r"found 0x3c\): no chip at 0x18"):
        find_accelerometer(FakeI2C({0x3C: (0, 0)}))


def test_raw_samples_for_recording_throws_are_lines_the_companion_passes_over():
    line = raw_line(1234, 0.01234, -0.98, 1.5)
    assert line == b"RAW,1234,0.0123,-0.9800,1.5000\n"
    parser = Parser()
    die = Die("D1-TEST", "0000BEEF")
    (hello,) = [decode(f) for raw in [line, *die.boot(0), line] for f in parser.feed(raw)]
    assert hello.TYPE == "HELLO"
