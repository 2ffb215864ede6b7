"""A piece seen straight on (``calibration.views``): where a view looks, its gradients,
its turns, and how a profile keeps it."""

from __future__ import annotations

import numpy as np
import pytest

from calibration import views
from calibration.silhouettes import lean

SETTINGS = views.ViewSettings()
SIZE = SETTINGS.size_px
MIDDLE = (SIZE - 1) / 2


def nearest_pixel(grid: np.ndarray, point_mm: np.ndarray) -> tuple[int, int]:
    """The (row, column) of the view pixel that looks nearest to a board point."""
    apart = np.linalg.norm(grid - point_mm, axis=-1)
    row, col = np.unravel_index(np.argmin(apart), apart.shape)
    return int(row), int(col)


def test_a_view_from_straight_above_is_the_board_around_the_piece_scaled():
    eye = np.array([100.0, 200.0, 600.0])
    (grid,) = views.view_grid(eye, np.array([[100.0, 200.0]]))
    assert grid.shape == (SIZE, SIZE, 2)
    middle = (grid[15, 15] + grid[16, 16]) / 2
    assert np.allclose(middle, [100.0, 200.0], atol=1e-6)
    # The plane looked at is middle_height_mm up: the board behind it is seen wider.
    wide = grid[0, -1, 0] - grid[0, 0, 0]
    expected = 2 * SETTINGS.half_mm * eye[2] / (eye[2] - SETTINGS.middle_height_mm)
    assert wide == pytest.approx(expected)


@pytest.mark.parametrize("eye", [(-300.0, 250.0, 500.0), (120.0, -400.0, 450.0)])
def test_up_in_a_view_is_up_on_the_piece_wherever_the_camera_is(eye):
    """A point on the piece's upright axis: at the middle height it is the view's middle;
    higher up it is higher in the view, straight above the middle, whichever side the
    camera looks from (the camera sees a point where its line of sight meets the board:
    ``silhouettes.lean``)."""
    eye = np.asarray(eye)
    base = np.array([90.0, 300.0])
    (grid,) = views.view_grid(eye, base[None])
    for height, above in ((SETTINGS.middle_height_mm, False), (12.0, True)):
        seen = lean(np.array([[base[0], base[1], height]]), eye)[0]
        row, col = nearest_pixel(grid, seen)
        assert abs(col - MIDDLE) <= 1.0
        assert (row < MIDDLE - 2) if above else abs(row - MIDDLE) <= 1.0


def test_pieces_seen_near_and_far_have_views_of_one_size():
    """The view's scale is the piece's, not the picture's: two pieces as far apart as a
    board's corners each span the same share of their views (in mm on their planes)."""
    eye = np.array([120.0, -200.0, 500.0])
    near, far = views.view_grid(eye, np.array([[120.0, 20.0], [230.0, 520.0]]))
    for grid, base in ((near, (120.0, 20.0)), (far, (230.0, 520.0))):
        # The piece's foot, 8 mm either side across the line of sight, lands 8 mm from
        # the view's middle column at the view's scale, near or far.
        across = np.cross(np.r_[np.array(base) - eye[:2], 0.0], [0.0, 0.0, 1.0])[:2]
        across /= np.linalg.norm(across)
        for side in (-1, 1):
            foot = np.array([*(np.array(base) + side * 8.0 * across), 0.0])
            _, col = nearest_pixel(grid, lean(foot[None], eye)[0])
            step = 2 * SETTINGS.half_mm / (SIZE - 1)
            assert abs((col - MIDDLE) * step - side * 8.0) < 2.5 * step


def edge(vertical: bool) -> np.ndarray:
    picture = np.zeros((SIZE, SIZE), np.float32)
    if vertical:
        picture[:, SIZE // 2 :] = 80.0
    else:
        picture[SIZE // 2 :, :] = 80.0
    return picture


def test_gradient_histograms_name_an_edge_s_orientation():
    hist = views.gradient_histograms(np.stack([edge(True), edge(False)]), None, SETTINGS)
    by_bin = hist.reshape(2, -1, SETTINGS.bins).sum(axis=1)
    # A vertical edge: the lightness changes across, at 0 degrees; a horizontal one at 90.
    assert np.argmax(by_bin[0]) == 0
    assert np.argmax(by_bin[1]) == SETTINGS.bins // 2


def reference_histograms(picture: np.ndarray, weight: np.ndarray | None) -> np.ndarray:
    """Histograms of oriented gradients of one view, pixel by pixel as the docstring of
    ``gradient_histograms`` says them: central differences (0 at the view's edge),
    orientation 0-180 degrees split between the two nearest bins, cells of
    ``cell_px``, each 2 x 2 block of cells normalised."""
    size, cell, bins = SIZE, SETTINGS.cell_px, SETTINGS.bins
    cells = size // cell
    hist = np.zeros((cells, cells, bins))
    for y in range(size):
        for x in range(size):
            gx = 0.0 if x in (0, size - 1) else float(picture[y, x + 1]) - float(picture[y, x - 1])
            gy = 0.0 if y in (0, size - 1) else float(picture[y + 1, x]) - float(picture[y - 1, x])
            strength = np.hypot(gx, gy) * (1.0 if weight is None else float(weight[y, x]))
            at = (np.degrees(np.arctan2(gy, gx)) % 180.0) * bins / 180.0
            low = int(np.floor(at))
            share = at - low
            hist[y // cell, x // cell, low % bins] += strength * (1 - share)
            hist[y // cell, x // cell, (low + 1) % bins] += strength * share
    blocks = np.array([hist[i : i + 2, j : j + 2].ravel()
                       for i in range(cells - 1) for j in range(cells - 1)])  # fmt: skip
    blocks /= np.linalg.norm(blocks, axis=1, keepdims=True) + 1e-3
    return blocks.ravel()


def test_gradient_histograms_are_the_histograms_worked_out_pixel_by_pixel():
    """The stacked, vectorised histograms (the bins past the last folded onto the first
    after counting) against a plain per-pixel reading of what they are, for views with
    and without weights; an angle of exactly 180 degrees counts as 0. A bin left
    unfolded or a gradient reaching into the next view is off by a tenth or more."""
    rng = np.random.default_rng(11)
    light = rng.uniform(0, 100, (3, SIZE, SIZE)).astype(np.float32)
    light[2] = edge(False)  # angles of exactly 90 degrees
    light[2, :, ::2] += 5.0  # and of exactly 180 and 0: steps along the rows
    weight = rng.uniform(0, 1, (3, SIZE, SIZE)).astype(np.float32)
    for given in (None, weight):
        found = views.gradient_histograms(light, given, SETTINGS)
        for k in range(3):
            expected = reference_histograms(light[k], None if given is None else given[k])
            # OpenCV's angles are good to about 0.3 degrees (``cv2.cartToPolar``).
            assert np.abs(found[k] - expected).max() < 1e-3, k


def test_thinning_out_opens_each_view_alone_however_many_there_are():
    """The views are opened together (as one image's channels, in parts of at most
    OpenCV's channel count): each as if opened by itself, its edge repeated."""
    import cv2

    rng = np.random.default_rng(5)
    pictures = rng.uniform(0, 40, (130, SIZE, SIZE)).astype(np.float32)
    cross = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))
    expected = np.stack([cv2.morphologyEx(p, cv2.MORPH_OPEN, cross, borderType=cv2.BORDER_REPLICATE)
                         for p in pictures])  # fmt: skip
    assert np.array_equal(views.thin_out(pictures, 3), expected)
    # A one-pixel mark goes, a piece's wide outline stays.
    mark = np.zeros((1, SIZE, SIZE), np.float32)
    mark[0, 10, :] = 50.0
    mark[0, 14:24, 14:24] = 50.0
    opened = views.thin_out(mark, 3)[0]
    assert opened[10].max() == 0.0 and opened[18, 18] == 50.0


def test_views_read_together_are_described_as_each_alone():
    """One stacked pass for all pieces: no view's gradients reach into the next's."""
    rng = np.random.default_rng(3)
    light = rng.uniform(0, 100, (3, SIZE, SIZE)).astype(np.float32)
    light[1] = edge(False)  # strong rows at its top and bottom edges
    apart = rng.uniform(0, 40, (3, SIZE, SIZE)).astype(np.float32)
    together = views.features(light, apart, SETTINGS)
    alone = np.vstack([views.features(light[k : k + 1], apart[k : k + 1], SETTINGS)
                       for k in range(3)])  # fmt: skip
    assert together.shape == alone.shape
    # The difference's dilation may reach one row into a neighbour: nearly the same.
    assert np.abs(together - alone).max() < 0.05
    assert np.allclose(np.linalg.norm(together, axis=1), np.sqrt(2), atol=1e-4)


def piece(rng) -> tuple[np.ndarray, np.ndarray]:
    """A light triangle on a darker board, with the difference where it stands."""
    import cv2

    light = np.full((SIZE, SIZE), 30.0, np.float32)
    corners = np.array([[16, 5], [27, 24], [6, 25]], np.int32)
    cv2.fillConvexPoly(light, corners, 85.0)
    apart = np.where(light > 50, 55.0, 2.0).astype(np.float32)
    light += rng.normal(0, 1.0, light.shape).astype(np.float32)
    return light, apart


def disc_piece(rng) -> tuple[np.ndarray, np.ndarray]:
    """A light disc on a darker board (a round piece), with the difference."""
    import cv2

    light = np.full((SIZE, SIZE), 30.0, np.float32)
    cv2.circle(light, (16, 16), 10, 85.0, -1)
    apart = np.where(light > 50, 55.0, 2.0).astype(np.float32)
    light += rng.normal(0, 1.0, light.shape).astype(np.float32)
    return light, apart


def test_a_set_up_piece_stands_for_itself_turned_and_mirrored():
    import cv2

    rng = np.random.default_rng(5)
    light, apart = piece(rng)
    kept = views.example_features(light, apart, SETTINGS)
    assert kept.shape[0] == 2 * SETTINGS.turns
    disc = views.example_features(*disc_piece(rng), SETTINGS)
    # Two kinds learnt from one example each: the triangle (0) and the disc (1).
    model = views.KindModel.learn(np.stack([kept, disc]), np.array([0, 1]), 2, SETTINGS)
    # The same triangle turned by one of the turns (90 degrees) is seen as a triangle.
    matrix = cv2.getRotationMatrix2D((MIDDLE, MIDDLE), 90.0, 1.0)
    turned = [cv2.warpAffine(p, matrix, (SIZE, SIZE), borderMode=cv2.BORDER_REPLICATE)
              for p in (light, apart)]  # fmt: skip
    seen = views.features(turned[0][None], turned[1][None], SETTINGS)
    triangle, round_ = model.scores(seen)[0]
    assert triangle > 0.5 > round_
    # Learnt without their turns, the examples tell the turned triangle far less surely.
    unturned = views.KindModel.learn(np.stack([kept[:1], disc[:1]]), np.array([0, 1]), 2, SETTINGS)
    assert unturned.scores(seen)[0, 0] < triangle - 0.3
    # Another disc, with its own noise, is seen as round.
    other = disc_piece(np.random.default_rng(6))
    seen_disc = views.features(other[0][None], other[1][None], SETTINGS)
    triangle, round_ = model.scores(seen_disc)[0]
    assert round_ > 0.5 > triangle
    # A kind no example shows (a third, say a beetle never photographed) is one no view
    # looks like.
    three = views.KindModel.learn(np.stack([kept, disc]), np.array([0, 1]), 3, SETTINGS)
    scores = three.scores(seen)[0]
    assert scores.shape == (3,) and scores[2] < -0.5 and scores[0] > 0.5


def test_kinds_compared_on_the_examples_leading_directions():
    """``ViewSettings.kernel_dims``: two examples turned every way span 48 directions, so
    on 100 of them a view scores as on all 648 features; on two only nearly so. (The
    difference not thinned out: its speckle is what two directions miss.)"""
    from dataclasses import replace

    SETTINGS = replace(views.ViewSettings(), thin_out_px=1)
    rng = np.random.default_rng(11)
    examples = np.stack([views.example_features(*piece(rng), SETTINGS),
                         views.example_features(*disc_piece(rng), SETTINGS)])  # fmt: skip
    kinds = np.array([0, 1])
    whole = views.KindModel.learn(examples, kinds, 2, replace(SETTINGS, kernel_dims=None))
    spanned = views.KindModel.learn(examples, kinds, 2, replace(SETTINGS, kernel_dims=100))
    cut = views.KindModel.learn(examples, kinds, 2, replace(SETTINGS, kernel_dims=2))
    assert whole.projection is None and spanned.projection.shape == (examples.shape[2], 100)
    assert spanned.examples.shape == (examples.shape[0] * examples.shape[1], 100)
    other = piece(np.random.default_rng(12))
    seen = views.features(other[0][None], other[1][None], SETTINGS)
    assert np.allclose(spanned.scores(seen), whole.scores(seen), atol=1e-3)
    # On two directions the scores are only near (yet the triangle is still a triangle).
    assert np.abs(cut.scores(seen) - whole.scores(seen)).max() > 5e-3
    assert cut.scores(seen)[0, 0] > 0.5 > cut.scores(seen)[0, 1]


def test_thin_marks_go_from_the_difference_and_a_piece_stays():
    """``thin_out``: the board's lines a pixel out of register and single bright pixels
    (lines one and two pixels wide, a speckle) go; a piece's round outline stays, and
    nothing is made brighter than it was."""
    yy, xx = np.mgrid[:SIZE, :SIZE]
    disc = np.where((yy - 16) ** 2 + (xx - 14) ** 2 <= 7**2, 40.0, 0.0)
    marks = np.zeros((SIZE, SIZE))
    marks[3, :20] = 30.0  # a line one pixel wide (where two lines cross, a plus stays)
    marks[:, 27:29] = 25.0  # and one two wide
    marks[20, 4] = 50.0  # a speckle
    pictures = np.stack([disc, np.maximum(disc, marks)]).astype(np.float32)
    thinned = views.thin_out(pictures, 3)
    assert thinned.shape == pictures.shape and (thinned <= pictures + 1e-6).all()
    assert np.array_equal(thinned[0], disc)  # the disc alone is as it was
    assert np.array_equal(thinned[1], disc)  # and the marks beside it are gone
    assert views.thin_out(pictures, 1) is pictures  # 1: not thinned
    # A mark as wide as the cross (three pixels) is a piece's part, and stays, but for
    # its four corners, which no cross inside it covers.
    wide = np.zeros((1, SIZE, SIZE), np.float32)
    wide[0, 10:13, 5:25] = 30.0
    lost = np.argwhere(views.thin_out(wide, 3)[0] != wide[0])
    assert sorted(map(tuple, lost.tolist())) == [(10, 5), (10, 24), (12, 5), (12, 24)]


def test_a_kept_view_round_trips_and_a_bad_one_is_named():
    rng = np.random.default_rng(8)
    light, apart = piece(rng)
    apart[0, 0] = 500.0  # beyond what is kept: capped, not wrapped
    text = views.encode(light, apart)
    back_light, back_apart = views.decode(text)
    assert np.abs(back_light - np.clip(light, 0, 100)).max() <= views.LIGHTNESS_STEP
    assert back_apart[0, 0] == pytest.approx(255 * views.UNLIKE_STEP)
    assert np.abs(back_apart[1:] - apart[1:]).max() <= views.UNLIKE_STEP
    with pytest.raises(views.ViewError, match="not base64"):
        views.decode("this is no view!")
    with pytest.raises(views.ViewError, match="expected 2048 bytes"):
        views.decode(text[:400])
    with pytest.raises(views.ViewError, match="got list"):
        views.decode([1, 2])


def test_where_a_view_looks_is_worked_out_coarsely_and_spread_within_a_hair():
    """``piece_views`` maps a coarse grid exactly and spreads it bilinearly: the board
    points it looks at differ from the exact per-pixel ones by far less than a pixel."""
    eye = np.array([-250.0, 260.0, 480.0])
    bases = np.array([[15.0, 15.0], [225.0, 525.0], [120.0, 270.0]])
    exact = views.view_grid(eye, bases)
    coarse = views.view_grid(eye, bases, size=views.COARSE)
    spread = views._spread(views._spreading(views.COARSE, SIZE), coarse)
    assert spread.shape == exact.shape
    pixel_mm = 2 * SETTINGS.half_mm / (SIZE - 1)
    assert np.abs(spread - exact).max() < 0.02 * pixel_mm
    # The corners are the coarse grid's own points: exact.
    assert np.allclose(spread[:, [0, -1]][:, :, [0, -1]], exact[:, [0, -1]][:, :, [0, -1]])


def test_a_piece_s_side_is_how_light_it_is_just_below_its_middle():
    """``side_lightness``: the dark side of a black falcon whose top mirrors the lamp
    (light) reads dark; the part looked at is below the middle, near the middle line,
    and only where the piece differs from the empty board."""
    steps = np.linspace(-SETTINGS.half_mm, SETTINGS.half_mm, SIZE)  # a row's mm below
    light = np.full((SIZE, SIZE), 80.0)  # the light top and the board
    apart = np.zeros((SIZE, SIZE))
    piece = np.abs(steps)[None, :] <= 9.0  # the piece's columns
    side = (steps >= 1.0) & (steps <= 9.0)  # its side's rows, below the middle
    apart[np.ix_(steps <= 9.0, piece[0])] = 30.0
    light[np.ix_(side, piece[0])] = 15.0
    # A light board below the piece and beside it: differs from itself by nothing.
    light[steps > 9.0] = 90.0
    found = views.side_lightness(light[None], apart[None])
    assert found.shape == (1,) and found[0] == pytest.approx(15.0)
    # The same piece with a light side: light.
    lit = light.copy()
    lit[np.ix_(side, piece[0])] = 75.0
    assert views.side_lightness(lit[None], apart[None])[0] == pytest.approx(75.0)
    # Its top (above the middle) made dark too changes nothing: only the side counts.
    dark_top = light.copy()
    dark_top[np.ix_(steps < 0, piece[0])] = 5.0
    assert views.side_lightness(dark_top[None], apart[None])[0] == pytest.approx(15.0)
    # Nothing differs from the board (no piece's pixels to go by): the part as it is, of
    # which the 30th percentile is the side's dark, not the board's light.
    nothing = views.side_lightness(light[None], np.zeros((1, SIZE, SIZE)))[0]
    assert nothing == pytest.approx(15.0)
    # Several views at once, each its own.
    both = views.side_lightness(np.stack([light, lit]), np.stack([apart, apart]))
    assert both == pytest.approx([15.0, 75.0])


def test_the_view_grids_cross_product_is_numpys() -> None:
    """``view_grid`` crosses its lines of sight with its own few products (``_cross``);
    they must be ``np.cross``'s to the bit, a line straight down and a level one included."""
    rng = np.random.default_rng(7)
    rows = rng.normal(size=(50, 3))
    rows[0] = (0.0, 0.0, -1.0)  # straight down
    rows[1] = (0.3, -0.2, 0.0)  # level
    for other in (np.array([0.0, 0.0, 1.0]), rng.normal(size=(50, 3))):
        np.testing.assert_array_equal(views._cross(rows, other), np.cross(rows, other))
