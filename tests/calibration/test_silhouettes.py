"""Fitting each kind's shape to a square (calibration/silhouettes.py): where the camera
and the lamp are, what a piece covers and shadows, and on rendered frames that the fit
tells the kinds apart where the blob's outline does not."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from calibration.profiles import learn, load_setup
from calibration.registration import register
from calibration.shapes import load_shapes
from calibration.sheet import load_sheet
from calibration.silhouettes import (
    board_eye,
    cover_masks,
    edge_gain,
    hypotheses,
    kmeans,
    lean,
    outline_masks,
    palette_costs,
)


@pytest.fixture(scope="module")
def shapes():
    return load_shapes("gimmel")


def test_palette_costs_are_each_pixels_delta_e_from_its_nearest_colour_capped():
    rng = np.random.default_rng(5)
    lab = rng.uniform([0, -40, -40], [100, 40, 40], (7, 9, 3)).astype(np.float32)
    # Palettes of different lengths (the shorter is padded inside), one colour a pixel's own.
    palettes = [np.array([[50, 0, 0], [90, 2, 5], [20, 1, -3]], np.float32),
                np.array([lab[3, 4]], np.float32)]  # fmt: skip
    cap = 30.0
    found = palette_costs(lab, palettes, cap)
    assert [c.shape for c in found] == [(7, 9), (7, 9)]
    for costs, palette in zip(found, palettes, strict=True):
        apart = np.linalg.norm(lab[:, :, None, :] - palette[None, None], axis=-1)
        # Within a twentieth of a Delta E: float32 sums of squares, as the fit can afford.
        assert costs == pytest.approx(np.minimum(apart.min(axis=2), cap), abs=0.05)
    assert found[1][3, 4] == pytest.approx(0.0, abs=0.05)
    assert found[0].max() <= cap and (found[0] == cap).any()  # far pixels cost the cap


def test_each_shifted_patch_is_the_window_that_far_from_the_squares_middle():
    from calibration.silhouettes import FitSettings, _shifted_many, offsets

    reach, side = 2, 5
    box = side + 2 * reach
    # Each pixel says where it is: 1000 a square, 100 a row, 1 a column.
    n, y, x = np.mgrid[0:3, 0:box, 0:box]
    values = (1000 * n + 100 * y + x).astype(np.float32)
    shifts = offsets(FitSettings(), 1.0)
    assert (-2, 0) in shifts and (0, 2) in shifts  # a piece searched left and down too
    patches = _shifted_many(values, shifts, side, reach)
    assert patches.shape == (3, len(shifts), side * side)
    middle = box // 2
    for square in range(3):
        for k, (dx, dy) in enumerate(shifts):
            patch = patches[square, k].reshape(side, side)
            # Its middle is (dx, dy) px from the window's, its corner side // 2 px before.
            assert patch[side // 2, side // 2] == 1000 * square + 100 * (middle + dy) + middle + dx
            assert patch[0, 0] == patch[side // 2, side // 2] - 101 * (side // 2)


def test_a_point_leans_away_from_the_camera_by_its_height():
    eye = np.array([0.0, 0.0, 600.0])
    points = np.array([[100.0, 0.0, 0.0], [100.0, 0.0, 12.0], [0.0, 0.0, 12.0]])
    seen = lean(points, eye)
    assert seen[0] == pytest.approx([100.0, 0.0])  # on the board: where it is
    assert seen[1] == pytest.approx([100.0 + 100.0 * 12 / 588, 0.0])  # away from the eye
    assert seen[2] == pytest.approx([0.0, 0.0])  # right under the eye: straight down


def test_the_turns_tried_cover_each_kinds_symmetry_once(shapes):
    found = hypotheses(shapes)
    kinds = [kind for kind, _ in found]
    assert kinds.count("falcon") == 1 and kinds.count("cat") == 12 and kinds.count("beetle") == 18
    cat_turns = sorted(math.degrees(a) for k, a in found if k == "cat")
    assert cat_turns[0] == 0 and cat_turns[-1] == pytest.approx(110)


def test_a_falcon_covers_a_disc_from_above_and_leans_away_from_a_camera_aside(shapes):
    hyps = (("falcon", 0.0),)
    centre = np.array([100.0, 100.0])
    above, _ = cover_masks(shapes, hyps, centre, np.array([100.0, 100.0, 800.0]), None, 1.0, 26)
    # Seen from straight above, its top (nearer the camera) looks a little larger than
    # its foot: a disc of 9 mm radius, a little more (1.5 %, and the half pixel round
    # its edge that filling a polygon takes in).
    assert math.pi * 9.0**2 < above[0].sum() < math.pi * 9.7**2
    aside, shade = cover_masks(shapes, hyps, centre, np.array([-400.0, 100.0, 500.0]),
                               np.array([100.0, 600.0, 800.0]), 1.0, 26)  # fmt: skip
    patch = aside[0].reshape(53, 53)
    ys, xs = np.nonzero(patch)
    # Its top lands 12 / (500 - 12) of the 500 mm to the camera further away: +x.
    assert xs.max() - xs.min() + 1 == pytest.approx(18 + 12 * 500 / 488, abs=2)
    assert ys.max() - ys.min() + 1 == pytest.approx(18, abs=2)
    assert xs.mean() > 26 + 4
    # Its shadow falls away from the lamp (+y is towards the lamp here: the shadow -y),
    # outside what it covers.
    shadow = shade[0].reshape(53, 53)
    assert shadow.sum() > 0 and not (shadow * patch).any()
    assert np.nonzero(shadow)[0].mean() < 26


def test_a_squares_masks_are_kept_read_only_and_asked_again_are_the_same(shapes):
    # The fit asks for the same squares' masks frame after frame: kept as floats, not
    # made again, and read-only, so that no caller can change what the next one gets.
    hyps = hypotheses(shapes)
    centre, eye, lamp = np.array([100.0, 100.0]), np.array([-400.0, 100.0, 500.0]), None
    cover, _, top = cover_masks(shapes, hyps, centre, eye, lamp, 1.0, 26, top=True)
    again, _, top_again = cover_masks(shapes, hyps, centre, eye, lamp, 1.0, 26, top=True)
    assert again is cover and top_again is top
    assert cover.dtype == np.float32 and not cover.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        cover[0, 0] = 2.0
    outline = outline_masks(shapes, hyps, centre, eye, lamp, 1.0, 26)
    assert outline is outline_masks(shapes, hyps, centre, eye, lamp, 1.0, 26)
    # Elsewhere, other masks: the key is the square's place.
    aside = cover_masks(shapes, hyps, centre + 30.0, eye, lamp, 1.0, 26)[0]
    assert aside is not cover and not np.array_equal(aside, cover)


def test_a_falcons_top_is_its_cover_at_full_height_and_its_side_faces_the_camera(shapes):
    hyps = (("falcon", 0.0),)
    centre, eye = np.array([100.0, 100.0]), np.array([-400.0, 100.0, 500.0])
    cover, _, top = cover_masks(shapes, hyps, centre, eye, None, 1.0, 26, top=True)
    assert cover_masks(shapes, hyps, centre, eye, None, 1.0, 26)[0] == pytest.approx(cover)
    # The top: a disc of 9 mm radius (a little larger, nearer the camera), within the
    # cover; the side, what is left, lies between the foot and the camera (-x).
    assert not (top > cover).any()
    assert math.pi * 9.0**2 < top[0].sum() < math.pi * 9.9**2
    side = (cover - top)[0].reshape(53, 53)
    assert side.sum() > 0.2 * top.sum()
    assert np.nonzero(side)[1].mean() < np.nonzero(top[0].reshape(53, 53))[1].mean() - 5


def test_a_top_mirrors_the_lamp_where_the_half_way_direction_is_upright():
    from calibration.silhouettes import glint_tilt_deg

    top = np.array([100.0, 100.0, 12.0])
    eye = np.array([-300.0, 100.0, 600.0])
    # The lamp where the top mirrors the camera: as far the other way, as high.
    mirrored = np.array([500.0, 100.0, 600.0])
    assert glint_tilt_deg(eye, mirrored, top) == pytest.approx(0.0, abs=1e-6)
    # Beside the camera, the half-way direction points at them both: as far from
    # upright as the camera is seen from the top.
    beside = eye + np.array([0.0, 1.0, 0.0])
    assert glint_tilt_deg(eye, beside, top) == pytest.approx(
        math.degrees(math.atan2(400.0, 588.0)), abs=0.1)  # fmt: skip
    # Moving the lamp off the mirror's line tilts it half as far (the half-way
    # direction turns by half the angle).
    turned = top + np.array([400.0 * math.cos(0.2), 400.0 * math.sin(0.2), 588.0])
    tilt = glint_tilt_deg(eye, turned, top)
    assert 0 < tilt < math.degrees(0.2 * 400 / math.hypot(400, 588))


def test_where_a_top_mirrors_the_lamp_its_side_says_its_colour(shapes):
    """A black falcon whose top mirrors the lamp looks grey on top, as a white piece's
    shaded side does; its side stays black. Scored as usual, its top's grey makes it
    white; scored as a glint (its top as dear for either colour), its side makes it
    black, as the sides' palettes say it better than the whole ones (which hold the
    black pieces' greyer tops). A white falcon there stays white."""
    from calibration.silhouettes import FitSettings, fit_scores

    hyps = (("falcon", 0.0),)
    half, size = 26, 53
    eye = np.array([-200.0, 100.0, 600.0])
    cover, _, top = cover_masks(shapes, hyps, np.array([100.0, 100.0]), eye, None, 1.0, half,
                                top=True)  # fmt: skip
    board = np.zeros((size + 10, size + 10, 3), np.float32)
    board[:] = (70.0, 2.0, 20.0)
    palettes = {"white": np.array([[92.0, 0.0, 2.0], [58.0, 0.0, 2.0]], np.float32),
                "black": np.array([[18.0, 0.0, 1.0], [34.0, 0.0, 1.0]], np.float32)}  # fmt: skip
    sides = {"white": np.array([[58.0, 0.0, 2.0]], np.float32),
             "black": np.array([[18.0, 0.0, 1.0]], np.float32)}  # fmt: skip
    settings = FitSettings(search_mm=0.0)

    def scores(top_lab, side_lab, glint, side_palettes=None):
        frame = board.copy()
        inner = frame[5 : 5 + size, 5 : 5 + size]
        inner[cover[0].reshape(size, size) > 0] = side_lab
        inner[top[0].reshape(size, size) > 0] = top_lab
        difference = np.linalg.norm(frame - board, axis=2)
        masks = [(cover, None, top) if glint else (cover, None)]
        (found,) = fit_scores(frame, board, difference, [(31.0, 31.0)], masks, hyps, palettes,
                              1.0, settings, side_palettes=side_palettes)  # fmt: skip
        return found

    glossy_black = ((62.0, 0.0, 1.0), (18.0, 0.0, 1.0))
    plain = scores(*glossy_black, glint=False)
    assert plain["white falcon"] < plain["black falcon"]
    glinting = scores(*glossy_black, glint=True, side_palettes=sides)
    assert glinting["black falcon"] < glinting["white falcon"]
    white = ((92.0, 0.0, 2.0), (58.0, 0.0, 2.0))
    by_sides = scores(*white, glint=True, side_palettes=sides)
    by_palettes = scores(*white, glint=True)
    for found in (by_sides, by_palettes):
        assert found["white falcon"] < found["black falcon"]
    # The glint changes only the colours' costs on the top: the top's own cost is the
    # nearest palette's, the same for both.
    as_white = scores(*white, glint=False)
    assert as_white["white falcon"] == pytest.approx(by_palettes["white falcon"])


def test_kmeans_is_the_same_every_time_and_finds_well_apart_groups():
    rng = np.random.default_rng(4)
    points = np.vstack([rng.normal((20, 0, 0), 1, (50, 3)), rng.normal((80, 5, 5), 1, (50, 3))])
    first, again = kmeans(points, 2), kmeans(points[::-1], 2)
    assert sorted(first[:, 0].round()) == [20, 80]
    assert sorted(first[:, 0].round()) == sorted(again[:, 0].round())


@pytest.fixture(scope="module")
def table_frames():
    """Three rendered tables: their two board photos, one play frame, and the truth."""
    from vision.render.series import render_series, series_table

    found = []
    for seed in (4, 9, 11):
        table = series_table("gimmel", seed)
        empty, laid = render_series("gimmel", seed, 2, "board", table=table)
        (play,) = render_series("gimmel", seed, 1, "play", table=table)
        found.append((seed, *(decode(r) for r in (empty, laid, play)), play.truth))
    return found


def decode(rendered):
    return cv2.imdecode(np.frombuffer(rendered.jpeg, np.uint8), cv2.IMREAD_COLOR)


def test_the_camera_is_placed_from_the_board_with_or_without_its_calibration(table_frames):
    sheet = load_sheet("gimmel")
    for _seed, empty, _laid, _play, truth in table_frames:
        pose = truth["camera"]["pose"]
        where = np.array(pose["centre_mm"]) * (1, 1, -1)  # the renderer's heights are -z
        registration = register(empty, sheet, camera=truth["camera"])
        calibrated = board_eye(registration)
        assert calibrated == pytest.approx(where, abs=3.0)
        # Worked out once a registration (a frame's reading asks several times), and
        # read-only, so that no caller changes the next one's.
        assert board_eye(registration) is calibrated and not calibrated.flags.writeable
        # Without a calibration the focal length is worked out from the board's view:
        # the camera is placed less well, but on the right side and at about its height.
        guessed = board_eye(register(empty, sheet))
        assert np.linalg.norm(guessed - where) < 0.25 * where[2]


def test_the_set_up_photo_teaches_the_lamps_place_and_the_pieces_colours(table_frames):
    sheet, setup = load_sheet("gimmel"), load_setup("gimmel")
    middle = np.array([sheet.grid.width_mm / 2, sheet.grid.height_mm / 2])
    for seed, empty, laid, _play, truth in table_frames:
        profile = learn(("empty", empty), ("setup", laid), sheet, setup, camera=truth["camera"])
        lamp = truth["render"]["table"]["lamp"]["position_mm"]
        true_way = math.atan2(lamp[1] - middle[1], lamp[0] - middle[0])
        assert profile.lamp is not None, seed
        learnt_way = math.atan2(profile.lamp[1] - middle[1], profile.lamp[0] - middle[0])
        apart = abs((learnt_way - true_way + math.pi) % (2 * math.pi) - math.pi)
        assert math.degrees(apart) < 40, (seed, profile.lamp, lamp)
        # The pieces' own colours, not the board's nor their shadows': the white
        # pieces' palette holds near-white, the black pieces' near-black, and neither
        # takes the board's coloured squares (chroma well under the board's).
        white, black = np.array(profile.palettes["white"]), np.array(profile.palettes["black"])
        assert white[:, 0].max() > 80 and black[:, 0].min() < 30
        assert np.hypot(white[:, 1], white[:, 2]).max() < 20
        # The black pieces' sides alone are darker than all of them, tops and all.
        sides = np.array(profile.side_palettes["black"])
        assert sides[:, 0].max() < black[:, 0].max(), (seed, sides[:, 0], black[:, 0])


def test_the_fit_reads_pieces_the_examples_alone_misread_or_miss(table_frames):
    """The reader with the fit misreads fewer pieces of these frames than without it
    (a profile without shapes), and finds the white falcon and beetle of seed 11 that
    stand on light squares too like them for a blob."""
    from dataclasses import replace

    from vision.readers.gimmel import read

    sheet, setup = load_sheet("gimmel"), load_setup("gimmel")
    wrong = {"fit": 0, "alone": 0}
    pieces = 0
    for seed, empty, laid, play, truth in table_frames:
        profile = learn(("empty", empty), ("setup", laid), sheet, setup, camera=truth["camera"])
        for way, used in (("fit", profile), ("alone", replace(profile, shapes=None))):
            seen = read(play, sheet, used, camera=truth["camera"])
            for name in set(seen.squares) - set(truth["unknown"]):
                wrong[way] += seen.squares[name] != truth["position"].get(name, "empty")
            if seed == 11:
                found = {name: seen.squares[name] for name in ("a2", "b1")}
                expected = {"a2": "white falcon", "b1": "white beetle"}
                assert (found == expected) == (way == "fit"), (way, found)
        pieces += len(set(truth["position"]) - set(truth["unknown"]))
    assert pieces > 40
    assert wrong["fit"] < wrong["alone"], wrong


def test_the_fit_following_the_light_scores_a_shadowed_white_piece_white_beside_the_plain_scores():
    """A white piece in a shadow its square's edge shows (lit at 0.6 of the photos' light)
    is as dark as a black piece's palette says: as the pixels are, black fits it better;
    with their lightness over 0.6, white does. The scores as the pixels are come back
    beside them, the same as ``fit_scores`` gives (the reader judges from them whether a
    piece stands there at all)."""
    from calibration.silhouettes import FitSettings, fit_scores, fit_scores_lit

    half = 10
    size = 2 * half + 1
    board = np.zeros((size + 10, size + 10, 3), np.float32)
    board[:] = (70.0, 2.0, 20.0)  # a cream square, in the shadow already (the empty picture)
    frame = board.copy()
    yy, xx = np.mgrid[0 : size + 10, 0 : size + 10]
    disc = (yy - 15) ** 2 + (xx - 15) ** 2 <= 6**2
    frame[disc] = (50.0, 0.0, 2.0)  # white (85) at 0.6 of its light: 51
    difference = np.linalg.norm(frame - board, axis=2)
    cover = ((np.mgrid[0:size, 0:size][0] - half) ** 2
             + (np.mgrid[0:size, 0:size][1] - half) ** 2 <= 6**2)  # fmt: skip
    masks = [(cover.reshape(1, -1).astype(np.float32), None)]
    palettes = {"white": np.array([[85.0, 0.0, 2.0]], np.float32),
                "black": np.array([[28.0, 0.0, 1.0]], np.float32)}  # fmt: skip
    settings = FitSettings(search_mm=0.0)
    args = (frame, board, difference, [(15.0, 15.0)], masks, (("falcon", 0.0),), palettes, 1.0)
    (plain,) = fit_scores(*args, settings)
    ((as_is, followed),) = fit_scores_lit(*args, [0.6], settings)
    assert as_is == plain  # the scores as the pixels are, unchanged
    assert plain["black falcon"] < plain["white falcon"]
    assert followed["white falcon"] < followed["black falcon"]
    # As lit as the photos (1.0), following the light changes nothing.
    ((same, also),) = fit_scores_lit(*args, [1.0], settings)
    assert same == also == plain
    with pytest.raises(ValueError, match="a lit share for each of the 1 squares"):
        fit_scores_lit(*args, [0.6, 0.7], settings)


def test_an_outline_is_the_edge_of_the_cover_inside_and_out(shapes):
    hyps = hypotheses(shapes)
    centre, eye = np.array([100.0, 100.0]), np.array([100.0, 100.0, 800.0])
    covers, _ = cover_masks(shapes, hyps, centre, eye, None, 1.0, 26)
    outlines = outline_masks(shapes, hyps, centre, eye, None, 1.0, 26)
    assert outlines.shape == covers.shape and set(np.unique(outlines)) == {0.0, 1.0}
    for cover, outline in zip(covers, outlines, strict=True):
        inside = cv2.erode(cover.reshape(53, 53), np.ones((3, 3), np.uint8)).reshape(-1)
        around = cv2.dilate(cover.reshape(53, 53), np.ones((3, 3), np.uint8)).reshape(-1)
        # Exactly the pixels of the cover's edge and those just outside it.
        assert np.array_equal(outline, around - inside)
        assert (outline * cover).sum() > 0 and (outline * (1 - cover)).sum() > 0


def test_the_edge_gain_is_the_edges_the_empty_board_had_not_above_the_noise():
    rng = np.random.default_rng(5)
    board = np.full((1, 40, 40), 80.0, np.float32)
    board[0, :, 30:] = 40.0  # the square's own edge, at x 30
    seen = board + rng.normal(0.0, 0.5, board.shape).astype(np.float32)
    seen[0, 10:20, 10:20] = 95.0  # a light piece's top: edges the board had not
    gain = edge_gain(seen, board, floor=2.0, cap=30.0)
    assert gain.shape == board.shape and gain.min() >= 0.0
    # Along the piece's edge: about the 15 L* step (Sobel over three pixels), less the floor.
    assert gain[0, 14, 10] == pytest.approx(15 * 0.5 - 2.0, abs=1.5)
    assert gain[0, :, 28:32].max() == 0.0  # the board's own edge (x 29-30) is no gain
    assert gain[0, 30:, :25].max() == 0.0  # nor is the noise


def test_an_outlines_edges_say_a_piece_stands_there_not_which():
    """A white disc on a cream square nearly its colour: its colours explain it little
    better than the empty board, its outline's edges much better. They count for whether
    any piece stands there (``ANY_PIECE``), the same for either colour, and leave each
    class's score as it was; a straight edge across an empty square (a sleeve's) counts
    only where it runs along the outline."""
    from calibration.silhouettes import ANY_PIECE, FitSettings, fit_scores

    half = 10
    size = 2 * half + 1
    board = np.zeros((size + 10, size + 10, 3), np.float32)
    board[:] = (80.0, 2.0, 14.0)  # a cream square
    yy, xx = np.mgrid[0 : size + 10, 0 : size + 10]
    disc = (yy - 15) ** 2 + (xx - 15) ** 2 <= 6**2
    white = board.copy()
    white[disc] = (92.0, 0.0, 2.0)  # a white top, 12 L* lighter
    sleeve = board.copy()
    sleeve[:, 15:] = (50.0, 1.0, 6.0)  # a grey sleeve over half the square
    cover = ((np.mgrid[0:size, 0:size][0] - half) ** 2
             + (np.mgrid[0:size, 0:size][1] - half) ** 2 <= 6**2)  # fmt: skip
    covers = cover.reshape(1, -1).astype(np.float32)
    ring = np.ones((3, 3), np.uint8)
    outline = cv2.morphologyEx(cover.astype(np.uint8), cv2.MORPH_GRADIENT, ring)
    outlines = [outline.reshape(1, -1).astype(np.float32)]
    palettes = {"white": np.array([[92.0, 0.0, 2.0]], np.float32),
                "black": np.array([[28.0, 0.0, 1.0]], np.float32)}  # fmt: skip
    settings = FitSettings(search_mm=0.0, edge_weight=6.0, edge_floor=2.0, edge_cap=4.0)

    def scores(frame, with_outlines):
        difference = np.linalg.norm(frame - board, axis=2)
        (found,) = fit_scores(frame, board, difference, [(15.0, 15.0)], [(covers, None)],
                              (("falcon", 0.0),), palettes, 1.0, settings,
                              outlines=outlines if with_outlines else None)  # fmt: skip
        return found

    plain, edged = scores(white, False), scores(white, True)
    assert ANY_PIECE not in plain
    assert {k: v for k, v in edged.items() if k != ANY_PIECE} == plain  # colours as they were
    assert edged[ANY_PIECE] < min(plain.values())
    # Most outline pixels have an edge the empty board had not, most of them the cap.
    assert min(plain.values()) - edged[ANY_PIECE] > 0.5 * 6.0 * 4.0 * outline.sum()
    # The sleeve's straight edge runs across the outline, not along it: it counts for a
    # few of the outline's pixels only.
    across = scores(sleeve, True)
    gained = min(v for k, v in across.items() if k != ANY_PIECE) - across[ANY_PIECE]
    assert 0 < gained < 0.3 * 6.0 * 4.0 * outline.sum()
