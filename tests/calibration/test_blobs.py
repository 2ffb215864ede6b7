"""A piece as the square-on board shows it (calibration/blobs.py): the empty board's
picture, each square's shade, a piece's blob over a window wider than its square, and
the blob's shape described whatever way the piece is turned."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.blobs import (
    _cell_index,
    blob_parts,
    difference,
    empty_picture,
    find_blob,
    shaded,
    shaded_picture,
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


def test_the_difference_is_cie76_and_leaves_both_pictures_as_they_were():
    """Delta E (CIE76) pixel by pixel; worked in place on its own copy, never on the
    frame's picture or the empty board's."""
    rng = np.random.default_rng(4)
    lab = rng.uniform(0, 100, (7, 9, 3)).astype(np.float32)
    empty = rng.uniform(0, 100, (7, 9, 3)).astype(np.float32)
    kept = lab.copy(), empty.copy()
    found = difference(lab, empty)
    expected = np.sqrt(((lab.astype(np.float64) - empty) ** 2).sum(axis=2))
    assert found.shape == (7, 9) and np.allclose(found, expected, rtol=1e-5)
    assert np.array_equal(lab, kept[0]) and np.array_equal(empty, kept[1])


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


def _shadowed(lab: np.ndarray, edge: np.ndarray, soft_px: float = 4.0) -> np.ndarray:
    """``lab`` with the part of the picture where ``edge`` (a (H, W) signed distance in
    px, positive in the shadow) is in an arm's shadow: a third darker, a soft edge."""
    share = np.clip(0.5 + edge / (2 * soft_px), 0.0, 1.0)
    shadowed = lab.copy()
    shadowed[..., 0] *= 1.0 - share / 3.0
    return shadowed


def test_where_a_shadows_edge_crosses_a_square_its_light_changes_across_it():
    _, cells, whole, shape, colours = board()
    frame = np.zeros(3, np.float32)
    lab = empty_picture(shape, whole, cells, colours, frame)
    # An arm's shadow: a band across the board, its two long edges slanting through squares.
    ys, xs = np.mgrid[0 : shape[0], 0 : shape[1]].astype(np.float32)
    edge = (50.0 - np.abs(0.8 * xs + 0.6 * ys - 250.0)).astype(np.float32)
    lab = _shadowed(lab, edge)
    args = (lab, whole, cells, colours, 3.0, (0.4, 1.3), frame)
    level = shaded_picture(*args, None)
    planes = shaded_picture(*args, 0.0)
    assert np.array_equal(level, empty_picture(shape, whole, cells, shaded(*args[:6]), frame))
    # The squares the edge runs through near their middle: both parts are large.
    halved = [(row, col) for row, col in cells if _halved(whole[row, col], edge)]
    assert len(halved) >= 8
    off_level, off_plane = [], []
    for row, col in halved:
        x0, y0, x1, y1 = (int(v) for v in whole[row, col])
        inner = (slice(y0 + 4, y1 - 4), slice(x0 + 4, x1 - 4))
        off_level.append(np.abs(level[inner][..., 0] - lab[inner][..., 0]).mean())
        off_plane.append(np.abs(planes[inner][..., 0] - lab[inner][..., 0]).mean())
    # A plane is a ramp, not the edge itself: it comes nearer, not all the way.
    assert np.mean(off_plane) < 0.75 * np.mean(off_level)
    assert sum(p < q for p, q in zip(off_plane, off_level, strict=True)) >= 0.75 * len(halved)
    # Squares wholly in the shadow or out of it keep one level.
    for row, col in cells:
        if not _touched(whole[row, col], edge, 4.0):
            x0, y0, x1, y1 = (int(v) for v in whole[row, col])
            assert np.array_equal(planes[y0:y1, x0:x1], level[y0:y1, x0:x1]), (row, col)


def _halved(box: np.ndarray, edge: np.ndarray) -> bool:
    x0, y0, x1, y1 = (int(v) for v in box)
    return abs(edge[(y0 + y1) // 2, (x0 + x1) // 2]) < 6.0


def _touched(box: np.ndarray, edge: np.ndarray, soft: float) -> bool:
    """Whether the edge's soft band (``soft`` px either side of it) reaches the square."""
    x0, y0, x1, y1 = (int(v) for v in box)
    part = edge[y0:y1, x0:x1]
    return part.min() < soft and part.max() > -soft


def test_a_shadow_on_one_squares_edge_alone_leaves_it_one_level():
    # A piece's own shadow darkens a side of its square's edge band, and goes no further.
    _, cells, whole, shape, colours = board()
    frame = np.zeros(3, np.float32)
    lab = empty_picture(shape, whole, cells, colours, frame)
    row, col = 5, 3
    x0, y0, x1, y1 = (int(v) for v in whole[row, col])
    lab[y0:y1, x1 - 6 : x1, 0] *= 0.6  # its right side, a piece's shadow
    args = (lab, whole, cells, colours, 3.0, (0.4, 1.3), frame)
    assert np.array_equal(shaded_picture(*args, 0.0), shaded_picture(*args, None))
    # Carried on by the squares either side, the same change would have counted.
    lab[:, x1 - 6 :, 0] *= 0.6
    assert not np.array_equal(shaded_picture(*args, 0.0)[y0:y1, x0:x1],
                              shaded_picture(*args, None)[y0:y1, x0:x1])  # fmt: skip


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
