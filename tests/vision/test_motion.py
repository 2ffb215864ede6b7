"""The motion gate and the vote (vision/motion.py) on synthetic sequences drawn here: a
checker board seen square-on (600x1100, 8x14 cells, lit unevenly) with discs as pieces,
a skin-coloured arm and hand (with its shadow) reaching in from the edge over 5 frames
and leaving over 3, sensor noise and a JPEG round-trip on every frame (seeded).

A hand means moving and nothing settles; the scene settles ``settle_frames`` frames after
the hand leaves, changed exactly where a disc came or went; noise and JPEG alone never
move over 200 frames; a 10 % light ramp over 20 frames is neither motion nor change; a
piece teleported with no hand is a change; ``accept`` makes the reference; the vote's
majority and ties. ``test_cost_per_picture`` prints the cost of one 600x1100 picture
(``pytest -s``), as does ``python tests/vision/test_motion.py``."""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from functools import cache

import cv2
import numpy as np
import pytest

from vision.motion import (
    UNKNOWN,
    Gate,
    Majority,
    MotionError,
    MotionGate,
    MotionSettings,
    NotSettled,
    Vote,
)

HEIGHT, WIDTH = 600, 1100
ROWS, COLS, CELL = 8, 14, 70
LEFT, TOP = (WIDTH - COLS * CELL) // 2, (HEIGHT - ROWS * CELL) // 2
FPS = 10.0  # frames a second: three frames (0.3 s) outlast settle_seconds (0.2 s)
SKIN = (140, 172, 224)  # BGR
Pieces = Mapping[tuple[int, int], str]  # cell -> "white" or "black"

START: dict[tuple[int, int], str] = {
    (0, 0): "black",
    (1, 3): "white",
    (2, 9): "black",
    (4, 6): "white",
    (5, 1): "white",
    (6, 12): "black",
    (7, 7): "white",
}


def cell_boxes() -> np.ndarray:
    boxes = np.zeros((ROWS, COLS, 4), np.int64)
    for r in range(ROWS):
        for c in range(COLS):
            boxes[r, c] = (
                LEFT + c * CELL,
                TOP + r * CELL,
                LEFT + (c + 1) * CELL,
                TOP + (r + 1) * CELL,
            )
    return boxes


def centre(cell: tuple[int, int]) -> tuple[int, int]:
    r, c = cell
    return LEFT + c * CELL + CELL // 2, TOP + r * CELL + CELL // 2


def board() -> np.ndarray:
    """The empty board, lit more from the top left than the bottom right."""
    picture = np.full((HEIGHT, WIDTH, 3), (60, 80, 95), np.uint8)  # the table around it
    for r in range(ROWS):
        for c in range(COLS):
            colour = (180, 210, 225) if (r + c) % 2 == 0 else (90, 120, 150)
            x0, y0 = LEFT + c * CELL, TOP + r * CELL
            picture[y0 : y0 + CELL, x0 : x0 + CELL] = colour
    yy, xx = np.mgrid[0:HEIGHT, 0:WIDTH].astype(np.float32)
    light = 1.05 - 0.15 * (xx / WIDTH + yy / HEIGHT) / 2
    return np.clip(picture * light[..., None], 0, 255).astype(np.uint8)


EMPTY = board()


@dataclass(frozen=True)
class Hand:
    """An arm from the bottom edge to a palm at ``reach`` (0: outside, 1: at ``target``)."""

    target: tuple[int, int]
    reach: float

    def draw(self, picture: np.ndarray) -> None:
        tx, ty = centre(self.target)
        bottom = HEIGHT + 120  # the palm starts below the picture
        py = int(bottom + (ty - bottom) * self.reach)
        px = tx
        arm = np.array(
            [
                [px - 55, py + 20],
                [px + 55, py + 20],
                [px + 80, HEIGHT + 400],
                [px - 30, HEIGHT + 400],
            ],
            np.int32,
        )
        shadow = picture.copy()
        cv2.fillPoly(shadow, [arm + np.array([25, 15], np.int32)], (0, 0, 0))
        cv2.ellipse(shadow, (px + 25, py + 15), (95, 75), 0, 0, 360, (0, 0, 0), -1)
        cv2.addWeighted(picture, 0.75, shadow, 0.25, 0, dst=picture)
        cv2.fillPoly(picture, [arm], SKIN)
        cv2.ellipse(picture, (px, py), (95, 75), 0, 0, 360, SKIN, -1)
        for k in range(4):  # fingers
            cv2.ellipse(
                picture, (px - 60 + 40 * k, py - 80), (16, 40), 0, 0, 360, (130, 160, 212), -1
            )


def render(pieces: Pieces, hand: Hand | None = None, light: float = 1.0) -> np.ndarray:
    """The scene without noise: the board, its discs, the hand; ``light`` scales it all."""
    picture = EMPTY.copy()
    for cell, colour in pieces.items():
        x, y = centre(cell)
        cv2.circle(picture, (x + 3, y + 3), 26, (40, 50, 60), -1, cv2.LINE_AA)  # shadow
        if colour == "white":
            cv2.circle(picture, (x, y), 25, (238, 240, 242), -1, cv2.LINE_AA)
            cv2.circle(picture, (x, y), 25, (150, 150, 150), 2, cv2.LINE_AA)
        else:
            cv2.circle(picture, (x, y), 25, (35, 35, 40), -1, cv2.LINE_AA)
            cv2.circle(picture, (x - 7, y - 7), 7, (90, 90, 95), -1, cv2.LINE_AA)
    if hand is not None:
        hand.draw(picture)
    if light != 1.0:
        picture = np.clip(picture.astype(np.float32) * light, 0, 255).astype(np.uint8)
    return picture


@cache
def noise_fields() -> np.ndarray:
    """Eight fields of sensor noise (sigma 4), a little larger than a picture: a frame's
    noise is a window of one at a random offset (drawing 2 million normals a frame would
    make these tests slow)."""
    rng = np.random.default_rng(2024)
    fields = rng.standard_normal((8, HEIGHT + 64, WIDTH + 64, 3), dtype=np.float32) * 4
    return np.rint(fields).astype(np.int16)


def camera(picture: np.ndarray, rng: np.random.Generator, quality: int = 75) -> np.ndarray:
    """What a camera hands out: sensor noise (sigma 4), then a JPEG round-trip."""
    k, dy, dx = rng.integers(8), rng.integers(64), rng.integers(64)
    noise = noise_fields()[k, dy : dy + picture.shape[0], dx : dx + picture.shape[1]]
    noisy = np.clip(picture.astype(np.int16) + noise, 0, 255).astype(np.uint8)
    ok, data = cv2.imencode(".jpg", noisy, [cv2.IMWRITE_JPEG_QUALITY, quality])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


class Table:
    """A gate fed with frames FPS apart; remembers every gate."""

    def __init__(self, seed: int, settings: MotionSettings | None = None, fps: float = FPS):
        self.rng = np.random.default_rng(seed)
        self.gate = MotionGate(settings, cells=cell_boxes())
        self.fps = fps
        self.gates: list[Gate] = []

    def show(self, pieces: Pieces, hand: Hand | None = None, light: float = 1.0) -> Gate:
        at = 100.0 + len(self.gates) / self.fps
        gate = self.gate.feed(camera(render(pieces, hand, light), self.rng), at)
        self.gates.append(gate)
        return gate

    def settle(self, pieces: Pieces, light: float = 1.0) -> Gate:
        """Show a still scene until it settles (at most 30 frames)."""
        for _ in range(30):
            gate = self.show(pieces, light=light)
            if gate.settled:
                break
        return gate

    def start(self, pieces: Pieces = START) -> Gate:
        """The still scene, settled and accepted."""
        gate = self.settle(pieces)
        assert gate.settled and gate.changed
        self.gate.accept()
        return gate


def reach(target: tuple[int, int], before: Pieces, after: Pieces) -> Iterator[tuple[Pieces, Hand]]:
    """A hand in over 5 frames (the pieces change under it at the fifth), out over 3."""
    for k in range(1, 6):
        yield (after if k == 5 else before), Hand(target, k / 5)
    for k in (3, 2, 1):
        yield after, Hand(target, k / 4)


# -- the hand --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("what", "target", "change", "cells"),
    [
        ("add", (3, 5), {(3, 5): "black"}, {(3, 5)}),
        ("remove", (2, 9), {(2, 9): None}, {(2, 9)}),
        ("move", (4, 6), {(4, 6): None, (3, 6): "white"}, {(4, 6), (3, 6)}),
        ("swap colour", (5, 1), {(5, 1): "black"}, {(5, 1)}),
    ],
)
def test_a_hand_moves_then_settles_changed_where_the_piece_changed(what, target, change, cells):
    table = Table(seed=1)
    table.start()
    after = {**START, **change}
    after = {cell: colour for cell, colour in after.items() if colour}
    hand_gates = [table.show(pieces, hand) for pieces, hand in reach(target, START, after)]
    assert all(g.moving for g in hand_gates), [round(g.motion, 4) for g in hand_gates]
    assert not any(g.settled for g in hand_gates)
    assert any(target in g.moving_cells for g in hand_gates)
    leave = table.show(after)  # the first frame without the hand
    assert leave.moving and not leave.settled
    s = table.gate.settings
    for k in range(1, s.settle_frames):
        g = table.show(after)
        assert not g.moving and not g.settled and g.still_frames == k, (what, k)
    g = table.show(after)  # settle_frames frames after the hand left
    assert g.settled and g.just_settled and g.changed, what
    assert set(g.changed_cells) == cells, (what, g.changed_cells)
    assert g.still_for == pytest.approx(s.settle_frames / FPS)
    g2 = table.show(after)  # still settled, no longer just
    assert g2.settled and not g2.just_settled and set(g2.changed_cells) == cells


def test_a_hand_creeping_in_is_caught_by_the_drift():
    """A hand creeping at 30 frames a second (under two pixels a frame) moves too little
    from one frame to the next to count, but its drift from the start of the still run
    gives it away before the scene can settle."""
    table = Table(seed=2, fps=30.0)
    table.start()
    table.show(START, Hand((3, 5), 0.3))
    gates = [table.show(START, Hand((3, 5), 0.3 + k / 250)) for k in range(1, 101)]
    share = table.gate.settings.motion_share
    assert not any(g.settled for g in gates)
    assert all(g.motion < share for g in gates), max(g.motion for g in gates)
    assert sum(g.moving for g in gates) >= 20


def test_the_drift_is_from_the_first_still_picture_not_the_last_moving_one():
    """A hand's shadow fading in two steps as it goes (two dark blocks, then one, then
    none): each step is too small to be motion, and so is the fade from the first still
    picture. Measured from the last picture with the hand's shadow in it, the two steps
    would add up to motion and put off settling by two frames."""
    gate = MotionGate()
    plain = np.full((200, 320), 120, np.uint8)
    plain[:, ::40] = 60

    def shadowed(*corners):
        picture = plain.copy()
        for y, x in corners:
            picture[y : y + 8, x : x + 8] = 40
        return picture

    hand = plain.copy()
    hand[100:200, 100:200] = 200
    pictures = [plain] * 4 + [hand, shadowed((20, 20), (20, 60)), shadowed((20, 20))]
    pictures += [plain] * 4
    gates = [gate.feed(picture, k / FPS) for k, picture in enumerate(pictures)]
    share = gate.settings.motion_share
    assert gates[4].moving and gates[5].moving  # the hand, then leaving
    assert gates[6].drift == gates[6].motion  # the first still picture: its own start
    assert gates[7].drift < share < 2 * gates[7].drift  # one step from it, not two
    assert not any(g.moving for g in gates[6:])
    assert [g.settled for g in gates[6:]] == [False, False, True, True, True]


def test_settling_needs_the_seconds_too():
    table = Table(seed=3, fps=60.0)  # three frames are only 0.05 s
    gates = [table.show(START) for _ in range(20)]
    first = next(i for i, g in enumerate(gates) if g.settled)
    assert gates[first].still_frames > table.gate.settings.settle_frames
    assert gates[first].still_for >= 0.2 > gates[first - 1].still_for


# -- what is not motion ----------------------------------------------------------------


def test_noise_and_jpeg_alone_never_move_over_200_frames():
    table = Table(seed=4)
    table.start()
    gates = [table.show(START) for _ in range(200)]
    assert not any(g.moving for g in gates), max(g.motion for g in gates)
    assert all(g.settled and not g.changed and not g.changed_cells for g in gates)
    worst = max(max(g.motion, g.drift, g.change or 0.0) for g in gates)
    assert worst < table.gate.settings.motion_share / 4, worst


def test_noise_is_far_below_the_pixel_threshold():
    """The margin behind ``pixel_threshold``: the largest difference noise and JPEG leave
    in the working picture, with two different noisy frames of one scene."""
    rng = np.random.default_rng(5)
    gate = MotionGate()
    a, b = gate._working(camera(render(START), rng)), gate._working(camera(render(START), rng))
    worst = float(np.abs(a - b).max())
    assert worst < gate.settings.pixel_threshold / 2, worst


@pytest.mark.parametrize("light", [0.90, 1.10])
def test_a_slow_light_ramp_is_neither_motion_nor_change(light):
    """10 % darker or brighter over 20 frames, then held, against the reference taken in
    the old light."""
    table = Table(seed=6)
    table.start()
    ramp = [1.0 + (light - 1.0) * k / 20 for k in range(1, 21)]
    gates = [table.show(START, light=level) for level in ramp]
    gates += [table.show(START, light=light) for _ in range(5)]
    assert not any(g.moving for g in gates), max(g.motion for g in gates)
    assert all(g.settled and not g.changed and not g.changed_cells for g in gates), max(
        g.change for g in gates
    )


@pytest.mark.parametrize("light", [0.75, 1.10])
def test_a_sudden_light_step_is_no_change(light):
    """A lamp switched off or on at once: the gain takes it, and no cell changes. (Not so
    when the brighter picture saturates: clipped whites are no longer a gain.)"""
    table = Table(seed=7)
    table.start()
    gates = [table.show(START, light=light) for _ in range(5)]
    assert not any(g.moving for g in gates)
    assert all(g.settled and not g.changed_cells for g in gates)


# -- change without a hand, and the reference --------------------------------------------


def test_a_teleported_piece_is_a_change_once_settled():
    table = Table(seed=8)
    table.start()
    after = {**{c: v for c, v in START.items() if c != (1, 3)}, (1, 4): "white"}
    jump = table.show(after)
    assert jump.moving and {(1, 3), (1, 4)} <= set(jump.moving_cells)
    g = table.settle(after)
    assert g.settled and g.changed and set(g.changed_cells) == {(1, 3), (1, 4)}


def test_a_single_piece_on_a_dense_board_is_moving():
    """One disc is under ``motion_share`` of the picture on a 19x19 board; its cell is
    over ``cell_share``, and that alone is motion."""
    step = 30
    boxes = np.array(
        [
            [[c * step, r * step, (c + 1) * step, (r + 1) * step] for c in range(19)]
            for r in range(19)
        ]
    )
    empty = np.full((19 * step, 19 * step, 3), (120, 170, 210), np.uint8)
    stone = empty.copy()
    cv2.circle(stone, (9 * step + 15, 9 * step + 15), 6, (20, 20, 20), -1)
    gate = MotionGate(cells=boxes)
    for k in range(4):
        gate.feed(empty, k * 0.1)
    g = gate.feed(stone, 0.4)
    assert g.motion < gate.settings.motion_share and g.moving and g.moving_cells == ((9, 9),)


def test_accept_makes_the_reference_and_only_a_settled_frame():
    table = Table(seed=9)
    gate = table.gate
    with pytest.raises(NotSettled, match="no frame"):
        gate.accept()
    first = table.show(START)
    assert not first.settled
    with pytest.raises(NotSettled, match="had not settled"):
        gate.accept()
    g = table.settle(START)
    assert g.settled and g.changed and not g.has_reference  # no reference: all cells
    assert len(g.changed_cells) == ROWS * COLS
    gate.accept(g)
    assert gate.has_reference
    assert not table.show(START).changed

    # A change not accepted stays a change on every settled frame, and the next one too.
    after = {**START, (0, 13): "white"}
    table.show(after)
    shown = [table.show(after) for _ in range(4)]
    assert shown[-1].changed_cells == ((0, 13),)
    later = {**after, (7, 0): "black"}
    table.show(later)
    g = table.settle(later)
    assert set(g.changed_cells) == {(0, 13), (7, 0)}

    # Accepting an older settled gate takes its picture, not the latest one.
    gate.accept(shown[-1])
    g = table.show(later)
    assert g.changed_cells == ((7, 0),)
    gate.accept()
    assert not table.show(later).changed

    moving = table.show(START)
    with pytest.raises(NotSettled, match="had not settled"):
        gate.accept(moving)
    gate.reset()
    assert not gate.has_reference


def test_without_a_grid_the_change_is_global():
    rng = np.random.default_rng(10)
    gate = MotionGate()
    for k in range(4):
        g = gate.feed(camera(render(START), rng), k / FPS)
    assert g.settled and g.changed and g.changed_cells == () and g.change is None
    gate.accept()
    after = {**START, (3, 3): "black"}
    for k in range(4, 9):
        g = gate.feed(camera(render(after), rng), k / FPS)
    assert g.settled and g.changed and g.change > gate.settings.change_share
    assert g.cell_change is None and g.moving_cells == ()


def test_grey_pictures_work_too():
    rng = np.random.default_rng(11)
    gate = MotionGate(cells=cell_boxes())
    grey = [cv2.cvtColor(camera(render(START), rng), cv2.COLOR_BGR2GRAY) for _ in range(4)]
    gates = [gate.feed(p, k / FPS) for k, p in enumerate(grey)]
    assert gates[-1].settled and not any(g.moving for g in gates)


def test_bad_input_is_refused_and_named():
    gate = MotionGate()
    with pytest.raises(MotionError, match="uint8"):
        gate.feed(np.zeros((10, 10, 3), np.float32), 0.0)
    gate.feed(np.zeros((60, 110, 3), np.uint8), 1.0)
    with pytest.raises(MotionError, match="110x60"):
        gate.feed(np.zeros((60, 100, 3), np.uint8), 2.0)
    with pytest.raises(MotionError, match="capture order"):
        gate.feed(np.zeros((60, 110, 3), np.uint8), 0.5)
    with pytest.raises(MotionError, match="outside"):
        MotionGate(cells=np.array([[[0, 0, 200, 10]]])).feed(np.zeros((60, 110), np.uint8), 0)
    with pytest.raises(MotionError, match=r"\(rows, cols, 4\)"):
        MotionGate(cells=np.zeros((3, 4)))
    with pytest.raises(MotionError, match="blur"):
        MotionSettings(blur=4)
    with pytest.raises(MotionError, match="settle_frames"):
        replace(MotionSettings(), settle_frames=0)


# -- the vote ----------------------------------------------------------------------------


def test_vote_majority_outvotes_one_misread():
    vote: Vote[str] = Vote(k=3)
    vote.add({"a1": "white", "b1": "empty", "c1": UNKNOWN})
    vote.add({"a1": "black", "b1": "empty", "c1": UNKNOWN})
    vote.add({"a1": "white", "b1": "empty", "c1": "black"})
    result = vote.result()
    assert result["a1"] == Majority("white", 2 / 3, 2, 3)
    assert result["b1"] == Majority("empty", 1.0, 3, 3)
    assert result["c1"].label == UNKNOWN and result["c1"].share == pytest.approx(2 / 3)
    assert vote.full and len(vote) == 3


def test_vote_keeps_the_last_k_and_ties_decide_nothing():
    vote: Vote[str] = Vote(k=2)
    vote.add({"a1": "white"})
    assert vote.result()["a1"] == Majority("white", 1.0, 1, 1)
    vote.add({"a1": "black"})
    assert vote.result()["a1"] == Majority(UNKNOWN, 0.5, 1, 2, ("black", "white"))
    vote.add({"a1": "black"})  # the first reading goes
    assert vote.result()["a1"] == Majority("black", 1.0, 2, 2)
    vote.add({"a1": UNKNOWN})
    assert vote.result()["a1"].tied == ("black", UNKNOWN)
    vote.add({"b2": "empty"})  # a cell missing from a reading is not counted for it
    result = vote.result()
    assert result["a1"] == Majority(UNKNOWN, 1.0, 1, 1)
    assert result["b2"] == Majority("empty", 1.0, 1, 1)
    vote.clear()
    assert vote.result() == {} and len(vote) == 0
    with pytest.raises(MotionError, match="k expected"):
        Vote(k=0)


def test_vote_three_way_tie():
    vote: Vote[tuple[int, int]] = Vote(k=3)
    for label in ("white", "black", "empty"):
        vote.add({(0, 0): label})
    assert vote.result()[(0, 0)] == Majority(UNKNOWN, 1 / 3, 1, 3, ("black", "empty", "white"))


# -- cost --------------------------------------------------------------------------------


def cost_per_picture(repeats: int = 200) -> dict[str, float]:
    """Milliseconds per 600x1100 BGR picture, median over ``repeats`` settled frames (the
    dearest case: three comparisons) and moving frames (two)."""
    rng = np.random.default_rng(12)
    still = [camera(render(START), rng) for _ in range(4)]
    hands = [camera(render(START, Hand((3, 5), k / 5)), rng) for k in range(1, 6)]
    figures = {}
    for name, pictures in (("settled", still), ("moving", hands)):
        gate = MotionGate(cells=cell_boxes())
        for k in range(6):
            gate.feed(still[k % len(still)], k)
        gate.accept()
        times = []
        for k in range(repeats):
            picture = pictures[k % len(pictures)]
            begin = time.perf_counter()
            gate.feed(picture, 10 + k)
            times.append(time.perf_counter() - begin)
        figures[name] = 1000 * float(np.median(times))
    return figures


def test_cost_per_picture():
    figures = cost_per_picture()
    print(
        "\nmotion gate, 600x1100 BGR picture, 8x14 cells, median ms: "
        + ", ".join(f"{name} {ms:.2f}" for name, ms in figures.items())
    )
    assert max(figures.values()) < 20  # a few ms here; generous for a loaded machine


if __name__ == "__main__":
    cv2.setNumThreads(1)
    one = cost_per_picture(500)
    print(
        "motion gate, 600x1100 BGR picture, 8x14 cells, one thread, median ms: "
        + ", ".join(f"{name} {ms:.2f}" for name, ms in one.items())
    )
