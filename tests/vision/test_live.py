"""The live table (``vision.render.live``): the demo's simulated camera. A still board's
frames differ by the sensor's noise alone; a move is a hand that comes, changes the
pieces while it is over the board, and goes, and the pieces it did not touch stay where
they stood; the camera is paced by the clock it is given and is read through the same
live frame source as a USB camera."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.render.live import LiveOptions, LiveTable, SimulatedCamera, open_live
from vision.render.series import series_table

SEED = 56
START = {"c3": "white beetle", "f9": "black cat", "d14": "black falcon"}
#: Never a passing hand unless a test asks for one.
QUIET = LiveOptions(passing_chance=0.0)


@pytest.fixture(scope="module")
def table():
    return series_table("gimmel", SEED)


def changed_px(a: np.ndarray, b: np.ndarray) -> int:
    """Pixels of two frames that differ by more than noise (blurred, 25 grey levels)."""
    diff = cv2.absdiff(cv2.GaussianBlur(a, (0, 0), 2), cv2.GaussianBlur(b, (0, 0), 2))
    return int((cv2.cvtColor(diff, cv2.COLOR_BGR2GRAY) > 25).sum())


def test_a_still_board_differs_from_frame_to_frame_by_noise_alone(table):
    live = LiveTable(table, START, np.random.default_rng(1), QUIET)
    first, second = live.frame(), live.frame()
    assert first.image.shape == (720, 1280, 3)
    assert not np.array_equal(first.image, second.image)  # the sensor's noise
    assert changed_px(first.image, second.image) == 0
    assert first.truth["position"] == START and first.truth["hand"] is None
    assert not live.busy


def test_a_move_is_a_hand_that_changes_the_pieces_while_over_the_board(table):
    live = LiveTable(table, START, np.random.default_rng(2), QUIET)
    before = live.frame()
    after_move = {**START, "e5": "white cat"}
    live.move_to(after_move)
    assert live.busy
    frames = []
    while live.busy:
        frames.append(live.frame())
    options = live.options
    assert len(frames) == len(options.approach) + options.hold + len(options.retreat)
    with_hand = [f.truth["hand"] is not None for f in frames]
    assert with_hand[len(options.approach)] and with_hand[len(options.approach) + 1]
    # The pieces change while the hand is at its goal, not before.
    positions = [f.truth["position"] for f in frames]
    change = positions.index(after_move)
    assert change == len(options.approach) + 1 and positions[change - 1] == START
    still = live.frame()
    assert still.truth["hand"] is None and live.position == after_move
    # One piece set down: the rest stood still (a few squares' worth of pixels changed,
    # far fewer than when every piece is set down anew).
    moved_one = changed_px(before.image, still.image)
    assert 0 < moved_one < 3000
    again = LiveTable(table, START, np.random.default_rng(3), QUIET)
    again.reseat(sorted(START))
    while again.busy:
        again.frame()
    assert changed_px(before.image, again.frame().image) > moved_one


def test_the_same_generator_films_the_same_frames(table):
    def film(seed: int) -> list[bytes]:
        live = LiveTable(table, START, np.random.default_rng(seed), LiveOptions())
        live.move_to({"c3": "white beetle"})
        return [live.frame().jpeg for _ in range(6)]

    assert film(7) == film(7)
    assert film(7) != film(8)


def test_hands_pass_over_without_changing_anything(table):
    live = LiveTable(table, START, np.random.default_rng(4), LiveOptions(passing_chance=1.0))
    frames = [live.frame() for _ in range(6)]
    assert any(f.truth["hand"] is not None for f in frames)
    assert all(f.truth["position"] == START for f in frames)


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 6))
        self.now += seconds


def test_the_camera_keeps_its_frame_rate_by_the_clock_it_is_given(table):
    live = LiveTable(table, {}, np.random.default_rng(5), QUIET)
    clock = FakeClock()
    camera = SimulatedCamera(live, 4.0, clock=clock, sleep=clock.sleep)
    assert camera.isOpened()
    ok, image = camera.read()
    assert ok and image.shape == (720, 1280, 3)
    camera.read()
    clock.now += 0.1  # a reader that took a while: the next frame comes sooner
    camera.read()
    assert clock.slept == [0.25, 0.15]
    clock.now += 2.0  # far behind: no burst of frames to catch up
    camera.read()
    camera.read()
    assert clock.slept[-1] == 0.25
    camera.release()
    assert not camera.isOpened() and camera.read() == (False, None)
    with pytest.raises(ValueError, match="fps"):
        SimulatedCamera(live, 0.0)


def test_it_is_read_as_a_live_camera_is(table):
    live = LiveTable(table, START, np.random.default_rng(6), QUIET)
    with open_live(live, fps=20.0, spec="simulated:test") as source:
        first = source.latest(timeout=10.0)
        second = source.latest(timeout=10.0)
        health = source.health()
    assert second.seq > first.seq and first.size == (1280, 720)
    assert not first.image.flags.writeable
    assert health["kind"] == "simulated" and health["source"] == "simulated:test"
    assert health["up"] and health["frames"] >= 2
