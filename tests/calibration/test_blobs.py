"""A piece as the square-on board shows it (calibration/blobs.py): the empty board's
picture, each square's shade, a piece's blob over a window wider than its square, and
the blob's shape described whatever way the piece is turned."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.blobs import (
    _cell_index,
    blob_parts,
    empty_picture,
    find_blob,
    shaded,
)
from calibration.board_plane import cell_boxes
from calibration.profiles import board_squares
from calibration.sheet import load_sheet

PX, MARGIN = 1.0, 2.0


def board():
    sheet = load_sheet("gimmel")
    _, cells = board_squares(sheet)
    whole = cell_boxes(sheet, PX, MARGIN, 0.0)
    shape = (int(whole[-1, -1, 3] + MARGIN * PX), int(whole[-1, -1, 2] + MARGIN * PX))
    colours = np.random.default_rng(1).uniform(20, 80, (len(cells), 3)).astype(np.float32)
    return sheet, cells, whole, shape, colours


def test_the_empty_board_on_a_regular_grid_is_the_same_as_square_by_square():
    _, cells, whole, shape, colours = board()
    frame = np.array([20.0, 1.0, 2.0], np.float32)
    fast = empty_picture(shape, whole, cells, colours, frame)
    index = _cell_index(shape, whole.tobytes(), whole.shape, tuple(cells))
    slow = np.vstack([colours, frame[None]])[index]
    assert fast.shape == (*shape, 3) and np.array_equal(fast, slow)
    assert np.array_equal(fast[0, 0], frame)  # the margin is the frame's colour


def test_each_square_follows_the_light_on_its_own_edge():
    _, cells, whole, shape, colours = board()
    lab = empty_picture(shape, whole, cells, colours, np.zeros(3, np.float32))
    # Half the board in an arm's shadow: the edge bands there are darker by a third.
    lab[: shape[0] // 2, :, 0] *= 2 / 3
    adjusted = shaded(lab, whole, cells, colours, 3.0, (0.4, 1.3))
    top = [k for k, (row, _) in enumerate(cells) if whole[row, 0, 3] <= shape[0] // 2]
    bottom = [k for k, (row, _) in enumerate(cells) if whole[row, 0, 1] >= shape[0] // 2]
    assert np.allclose(adjusted[top, 0], colours[top, 0] * 2 / 3, rtol=1e-4)
    assert np.allclose(adjusted[bottom, 0], colours[bottom, 0])
    assert np.allclose(adjusted[bottom, 1:], colours[bottom, 1:])
    # In the shadow a square is less colourful too: a* and b* scale as L* + 16 does
    # (all three are cube roots of the light).
    scale = (colours[top, 0] * 2 / 3 + 16) / (colours[top, 0] + 16)
    assert np.allclose(adjusted[top, 1:], colours[top, 1:] * scale[:, None], rtol=1e-4)
    assert np.all(np.abs(adjusted[top, 1:]) < np.abs(colours[top, 1:]))


def test_a_square_as_dim_as_the_range_allows_is_as_colourful_as_that_dimness():
    _, cells, whole, shape, colours = board()
    lab = empty_picture(shape, whole, cells, colours, np.zeros(3, np.float32))
    lab[..., 0] *= 0.1  # darker than shade_range lets a shadow be
    adjusted = shaded(lab, whole, cells, colours, 3.0, (0.4, 1.3))
    assert np.allclose(adjusted[:, 0], colours[:, 0] * 0.4, rtol=1e-4)
    scale = (colours[:, 0] * 0.4 + 16) / (colours[:, 0] + 16)
    assert np.allclose(adjusted[:, 1:], colours[:, 1:] * scale[:, None], rtol=1e-4)


def test_a_blob_is_the_part_reaching_its_square_middle_over_a_window_two_squares_wide():
    unlike = np.zeros((200, 200), bool)
    # A falcon leaning out of its square (centre 45, 45; squares 30 px): a disc at its
    # base and its top 14 px further, beyond the square's edge at 60.
    cv2.circle(unlike.view(np.uint8), (45, 45), 9, 1, -1)
    cv2.circle(unlike.view(np.uint8), (45, 59), 9, 1, -1)
    cv2.rectangle(unlike.view(np.uint8), (36, 45), (54, 59), 1, -1)
    # A neighbour's piece in the window, not joined to it; a speck of noise.
    cv2.circle(unlike.view(np.uint8), (80, 20), 8, 1, -1)
    unlike[100, 100] = True
    parts = blob_parts(unlike)
    blob = find_blob(np.zeros((200, 200, 3), np.float32), parts, (45.0, 45.0), 30.0, PX)
    assert blob is not None
    x0, y0 = blob.origin
    ys, xs = np.nonzero(blob.mask)
    assert ys.max() + y0 >= 67  # the top beyond the square's edge is the piece's
    assert xs.max() + x0 < 60  # the neighbour is not
    assert find_blob(np.zeros((200, 200, 3), np.float32), parts, (100.0, 100.0), 30.0, PX) is None


def test_a_disc_fills_its_circle_and_a_triangle_its_triangle_however_turned():
    def features(shape: str, angle: float):
        mask = np.zeros((60, 60), np.uint8)
        if shape == "disc":
            cv2.circle(mask, (30, 30), 10, 1, -1)
        else:
            t = angle + np.arange(3) * 2 * np.pi / 3
            points = np.stack([30 + 12 * np.cos(t), 30 + 12 * np.sin(t)], 1)
            cv2.fillConvexPoly(mask, np.rint(points).astype(np.int32), 1)
        parts = blob_parts(mask.astype(bool))
        found = find_blob(np.zeros((60, 60, 3), np.float32), parts, (30.0, 30.0), 30.0, PX)
        return found.features

    disc = features("disc", 0.0)
    for angle in (0.0, 0.4, 1.1):
        triangle = features("triangle", angle)
        assert disc[1] > triangle[1] + 0.2  # circle fill
        assert triangle[2] > disc[2] + 0.1  # triangle fill
    assert abs(disc[0] - np.pi * 9.5**2 / 100) < 0.1  # hundreds of mm², to the outline
