"""A piece's lightness is taken back through the way its square is lit now
(``gimmel.square_tones``): the frame's tone, a line through the light and the dark
squares' lightness now against the empty photo, and the square's own light against that
line. A camera's lower contrast lifts dark squares and dims light ones at once, which a
square's own ratio cannot tell from more light: a white piece on a dark square divided
by that ratio is made darker than it is."""

from __future__ import annotations

import numpy as np
import pytest
from rendered_tables import benchmark_table

from calibration.profiles import board_squares, square_centre_px
from calibration.sheet import load_sheet
from vision.readers import gimmel

PX_PER_MM, MARGIN_MM = 1.0, 2.0
LIGHT, DARK = 80.0, 35.0


@pytest.fixture(scope="module")
def board():
    """The Gimmel board, its squares light and dark in turn as the empty photo showed
    them, and each square's middle in the square-on picture."""
    sheet = load_sheet("gimmel")
    _, cells = board_squares(sheet)
    then = np.array([LIGHT if (r + c) % 2 == 0 else DARK for r, c in cells])
    middles = [square_centre_px(sheet, cell, PX_PER_MM, MARGIN_MM) for cell in cells]
    return sheet, cells, then, middles


def tones_now(board, then, light, bare=None) -> np.ndarray:
    """``square_tones`` of the empty board as lit now: each square's middle its lightness
    ``then`` through ``light`` (then, cell -> now); ``bare``: the squares that look like
    the empty board."""
    sheet, cells, _, middles = board
    size = tuple(int(mm + 2 * MARGIN_MM) + 1 for mm in (sheet.grid.height_mm, sheet.grid.width_mm))
    empty = np.zeros((*size, 3), np.float32)
    for (x, y), was, cell in zip(middles, then, cells, strict=True):
        empty[int(y), int(x), 0] = light(was, cell)
    return gimmel.square_tones(empty, then, sheet, cells, PX_PER_MM, MARGIN_MM, bare)


def back(tone: np.ndarray, now: float) -> float:
    """A lightness seen now taken back to the empty photo's light through a tone."""
    gain, offset = tone
    return (now - offset) / gain


def test_a_change_of_contrast_is_found_as_a_line_through_the_light_and_dark_squares(board):
    _, cells, then, _ = board
    # Lower contrast: dark squares a tenth lighter, light ones a twentieth darker.
    gain = (0.95 * LIGHT - 1.1 * DARK) / (LIGHT - DARK)
    offset = 1.1 * DARK - gain * DARK
    tones = tones_now(board, then, lambda was, _: gain * was + offset)
    assert tones.shape == (len(cells), 2)
    np.testing.assert_allclose(tones, np.tile([gain, offset], (len(cells), 1)), atol=1e-3)
    # A white piece's top (L 90 in the set-up) on a dark square comes back as 90; the
    # dark square's own ratio (1.1) would make it 81, lighter than no white piece.
    dark = int(np.argmin(then))
    assert back(tones[dark], gain * 90.0 + offset) == pytest.approx(90.0, abs=0.01)
    assert (gain * 90.0 + offset) / 1.1 < 82.0


def test_a_lamp_brighter_on_one_side_is_each_squares_own_light(board):
    sheet, cells, then, _ = board
    columns = sheet.grid.columns

    def scale(cell):  # more light toward column h
        return 0.8 + 0.4 * cell[1] / (columns - 1)

    tones = tones_now(board, then, lambda was, cell: was * scale(cell))
    for tone, cell in zip(tones, cells, strict=True):
        # A white piece of L 90 and a black one of L 30 in this square's light.
        for piece in (90.0, 30.0):
            assert back(tone, piece * scale(cell)) == pytest.approx(piece, rel=0.01)


def test_the_frames_tone_is_drawn_from_the_squares_no_hand_or_piece_is_on(board):
    """A hand over half the board (its skin lighter than any dark square, as light as a
    light one): the squares it covers, and any piece's, are not bare and say nothing of
    the frame's tone; the rest still give the camera's lower contrast."""
    _, cells, then, _ = board
    gain = (0.95 * LIGHT - 1.1 * DARK) / (LIGHT - DARK)
    offset = 1.1 * DARK - gain * DARK
    rows = 1 + max(r for r, _ in cells)
    under = np.array([r < rows // 2 for r, _ in cells])

    def light(was, cell):
        return 78.0 if cell[0] < rows // 2 else gain * was + offset

    hand_read_too = tones_now(board, then, light)
    assert not np.allclose(hand_read_too[~under, 0], gain, atol=0.05)
    tones = tones_now(board, then, light, bare=~under)
    np.testing.assert_allclose(tones[~under], np.tile([gain, offset], ((~under).sum(), 1)),
                               atol=1e-3)  # fmt: skip
    # Too few bare squares of a lightness to draw a line: each square's own ratio.
    few = np.zeros(len(cells), bool)
    few[:10] = True
    alone = tones_now(board, then, light, bare=few)
    np.testing.assert_allclose(alone[:, 1], 0.0)


def test_a_board_of_one_lightness_falls_back_to_each_squares_own_ratio(board):
    _, cells, _, _ = board
    even = np.full(len(cells), 60.0)
    tones = tones_now(board, even, lambda was, _: was * 1.2)
    np.testing.assert_allclose(tones, np.tile([1.2, 0.0], (len(cells), 1)), atol=1e-5)


def test_a_white_falcon_on_a_dark_square_under_lower_contrast_is_read_white():
    # The reader benchmark's seed 337: a white falcon on c17, a dark square whose
    # neighbours (and itself) are lit 6 to 13 % more than in the empty photo, the light
    # squares around 5 % less: divided by its square's ratio, its top read as a black
    # falcon's by a margin of 0.57.
    table = benchmark_table(337)

    def read(settings):
        return gimmel.read(table.frame, table.sheet, table.profile, camera=table.camera,
                           most_of_each=4, settings=settings)  # fmt: skip

    assert table.truth["position"]["c17"] == "white falcon"
    assert read(gimmel.ReaderSettings(board_tone=False)).squares["c17"] == "black falcon"
    seen = read(gimmel.ReaderSettings())
    wrong = [n for n, label in seen.squares.items() if n not in table.truth["unknown"]
             and label != table.truth["position"].get(n, gimmel.EMPTY)]  # fmt: skip
    assert seen.squares["c17"] == "white falcon" and wrong == []


def test_a_relit_colour_is_the_broadcast_product_to_the_last_bit():
    """``relit_colour`` stands for ``colour * [scale, 1, 1] - [shift, 0, 0]`` in float32
    (a blob's lightness through its square's tone, ``read``): the same bits for every
    colour, gain and offset, its a* and b* untouched, and the blob's own colour left as
    it was."""
    rng = np.random.default_rng(8)
    for _ in range(2000):
        colour = (rng.random(3) * [100.0, 120.0, 120.0] - [0.0, 60.0, 60.0]).astype(np.float32)
        gain, offset = rng.uniform(0.3, 3.0), rng.uniform(-20.0, 20.0)
        before = colour.copy()
        relit = gimmel.relit_colour(colour, 1.0 / gain, offset / gain)
        wanted = (colour * np.array([1.0 / gain, 1.0, 1.0], np.float32)
                  - np.array([offset / gain, 0.0, 0.0], np.float32))  # fmt: skip
        assert relit.dtype == np.float32
        assert relit.view(np.uint32).tolist() == wanted.view(np.uint32).tolist()
        assert colour.view(np.uint32).tolist() == before.view(np.uint32).tolist()
