"""Where ``detect_markers`` looks: the first search on the shrunk frame, the regions
around the markers at full resolution, the whole frame only when too few are found, and
video's tracking from the last frame's registration (``register(..., previous=...)``).

The frames are ``test_registration``'s: the synthetic board seen by a seeded camera, so
every answer is checked against the true homography. Which searches run is checked by
standing in for the costly ones, never by the clock.
"""

from __future__ import annotations

import random

import cv2
import numpy as np
import pytest
from test_registration import (
    FRAME,
    TOLERANCE_MM,
    board_error_mm,
    cover,
    random_camera,
    render_frame,
)

import calibration.registration as registration_module
from calibration.registration import (
    DetectorSettings,
    detect_markers,
    register,
)
from calibration.sheet import Sheet, load_sheet


@pytest.fixture(scope="module")
def sheet() -> Sheet:
    return load_sheet("gimmel")


@pytest.fixture
def no_whole_frame(monkeypatch):
    """The whole-frame search at full resolution made an error: a test that passes did
    without it."""

    def refuse(*_args):
        raise AssertionError("the whole frame was searched at full resolution")

    monkeypatch.setattr(registration_module, "_full_frame", refuse)


def moved(truth: np.ndarray, dx: float, dy: float, degrees: float) -> np.ndarray:
    """The board moved in the frame: turned about the frame's middle and shifted."""
    turn = np.vstack(
        [cv2.getRotationMatrix2D((FRAME[0] / 2, FRAME[1] / 2), degrees, 1.0), [0, 0, 1]]
    )
    return np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]]) @ turn @ truth


@pytest.mark.parametrize("seed", range(8))
def test_the_shrunk_search_finds_what_the_whole_frame_does(
    sheet: Sheet, seed: int, no_whole_frame
) -> None:
    rng = random.Random(300 + seed)
    truth = random_camera(sheet, rng, [0, 20, 35, 45][seed % 4])
    frame = render_frame(sheet, truth, rng)
    found = detect_markers(frame, sheet)
    assert sorted(m.id for m in found) == [0, 1, 2, 3]
    registration = register(frame, sheet)
    assert board_error_mm(registration, sheet, truth) < TOLERANCE_MM


def test_a_covered_marker_does_not_send_the_search_over_the_whole_frame(
    sheet: Sheet, no_whole_frame
) -> None:
    rng = random.Random(310)
    truth = random_camera(sheet, rng, 30)
    frame = cover(render_frame(sheet, truth, rng), sheet, truth, 1)
    registration = register(frame, sheet)
    assert registration.missing == (1,) and registration.used == (0, 2, 3)
    assert board_error_mm(registration, sheet, truth) < TOLERANCE_MM


def test_markers_too_small_for_the_shrunk_frame_are_found_at_full_resolution(
    sheet: Sheet,
) -> None:
    rng = random.Random(311)
    truth = random_camera(sheet, rng, 20)
    frame = render_frame(sheet, truth, rng)
    # The same view at 640x360: the markers about 13 px across, 6 px once shrunk.
    small = cv2.resize(frame, (640, 360), interpolation=cv2.INTER_AREA)
    # Small px i covers frame px 2i and 2i + 1: x_small = (x - 0.5) / 2.
    truth_small = np.array([[0.5, 0, -0.25], [0, 0.5, -0.25], [0, 0, 1]]) @ truth
    registration = register(small, sheet)
    assert registration.used == (0, 1, 2, 3)
    assert board_error_mm(registration, sheet, truth_small) < 2 * TOLERANCE_MM


def test_full_resolution_only_is_a_setting(sheet: Sheet, monkeypatch) -> None:
    rng = random.Random(312)
    truth = random_camera(sheet, rng, 25)
    frame = render_frame(sheet, truth, rng)

    def refuse(*_args):
        raise AssertionError("the shrunk frame was searched")

    monkeypatch.setattr(registration_module, "_locate", refuse)
    registration = register(frame, sheet, settings=DetectorSettings(downscale=1))
    assert registration.used == (0, 1, 2, 3)
    assert board_error_mm(registration, sheet, truth) < TOLERANCE_MM


def test_the_shrunk_search_has_its_own_threshold_constant(sheet: Sheet) -> None:
    """``DetectorSettings.coarse_constant`` is the shrunk frame's threshold constant, not
    the detector's: set so high that no pixel is that much darker than its
    surroundings, the shrunk search finds nothing and the full-resolution search finds
    the markers all the same."""
    rng = random.Random(313)
    truth = random_camera(sheet, rng, 20)
    frame = registration_module.grey(render_frame(sheet, truth, rng))

    def located(settings: DetectorSettings) -> list[int]:
        return sorted(i for i, _ in registration_module._locate(frame, sheet, settings))

    assert located(DetectorSettings()) == [0, 1, 2, 3]
    assert located(DetectorSettings(adaptive_thresh_constant=255.0)) == [0, 1, 2, 3]
    blind = DetectorSettings(coarse_constant=255.0)
    assert located(blind) == []
    assert sorted(m.id for m in detect_markers(frame, sheet, blind)) == [0, 1, 2, 3]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"downscale": 3}, r"downscale: expected 1, 2 or 4 \(got 3\)"),
        ({"track_margin": -1.0}, r"track_margin: expected marker sides >= 0 \(got -1.0\)"),
        ({"enough_markers": 0}, r"enough_markers: expected at least 1 \(got 0\)"),
    ],
)
def test_search_settings_that_cannot_be_used_are_named(
    sheet: Sheet, changes: dict, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        detect_markers(np.zeros((720, 1280), np.uint8), sheet, DetectorSettings(**changes))


# --- video: the last frame's registration ------------------------------------------------


def test_a_still_board_is_found_where_it_was(sheet: Sheet, monkeypatch) -> None:
    rng = random.Random(320)
    truth = random_camera(sheet, rng, 25)
    first = register(render_frame(sheet, truth, rng), sheet)

    def refuse(*_args):
        raise AssertionError("searched beyond where the markers were")

    monkeypatch.setattr(registration_module, "_locate", refuse)
    monkeypatch.setattr(registration_module, "_full_frame", refuse)
    # The next frame: the same view, its own noise; the board nudged by a few pixels.
    for step, truth_now in enumerate([truth, moved(truth, 6, -4, 1.0)]):
        frame = render_frame(sheet, truth_now, random.Random(321 + step))
        again = register(frame, sheet, previous=first)
        assert again.used == (0, 1, 2, 3)
        assert board_error_mm(again, sheet, truth_now) < TOLERANCE_MM


def test_tracking_gives_the_registration_a_fresh_search_gives(sheet: Sheet) -> None:
    rng = random.Random(322)
    truth = random_camera(sheet, rng, 35)
    frames = [render_frame(sheet, moved(truth, 3 * k, 2 * k, 0.5 * k), rng) for k in range(3)]
    previous = None
    for frame in frames:
        tracked = register(frame, sheet, previous=previous)
        fresh = register(frame, sheet)
        np.testing.assert_allclose(
            tracked.to_image(sheet.grid.corners()), fresh.to_image(sheet.grid.corners()), atol=0.05
        )
        previous = tracked


def test_a_bumped_board_is_found_again_by_the_full_search(sheet: Sheet) -> None:
    rng = random.Random(323)
    truth = random_camera(sheet, rng, 20)
    first = register(render_frame(sheet, truth, rng), sheet)
    # Bumped: turned 8 degrees and shifted 67 px; the markers moved 1 to 3 of their
    # sides, all still in the frame.
    bumped = moved(truth, 60, 30, -8)
    corners = np.vstack([m.corners() for m in sheet.markers])
    seen = registration_module.apply_homography(bumped, corners)
    assert np.all((seen > 0) & (seen < FRAME))
    registration = register(render_frame(sheet, bumped, rng), sheet, previous=first)
    assert registration.used == (0, 1, 2, 3)
    assert board_error_mm(registration, sheet, bumped) < TOLERANCE_MM


def test_a_hand_over_a_marker_while_tracking_registers_from_the_other_three(
    sheet: Sheet, no_whole_frame
) -> None:
    rng = random.Random(324)
    truth = random_camera(sheet, rng, 30)
    first = register(render_frame(sheet, truth, rng), sheet)
    frame = cover(render_frame(sheet, truth, rng), sheet, truth, 2)
    registration = register(frame, sheet, previous=first)
    assert registration.missing == (2,) and registration.used == (0, 1, 3)
    assert board_error_mm(registration, sheet, truth) < TOLERANCE_MM


def test_a_board_gone_while_tracking_is_board_not_visible(sheet: Sheet) -> None:
    rng = random.Random(325)
    truth = random_camera(sheet, rng, 15)
    first = register(render_frame(sheet, truth, rng), sheet)
    with pytest.raises(registration_module.BoardNotVisible, match="saw 0 of the sheet's 4"):
        register(np.full((720, 1280, 3), 90, np.uint8), sheet, previous=first)


def test_tracking_through_a_lens(sheet: Sheet, monkeypatch) -> None:
    from vision.render.series import play_frame, series_table

    table = series_table("gimmel", 3)
    rendered = play_frame(table, 3, 0, hand=False)
    camera = rendered.truth["camera"]
    fresh = register(rendered.image, table.sheet, camera=camera)

    def refuse(*_args):
        raise AssertionError("searched beyond where the markers were")

    monkeypatch.setattr(registration_module, "_locate", refuse)
    monkeypatch.setattr(registration_module, "_full_frame", refuse)
    monkeypatch.setattr(registration_module, "_look_around", refuse)
    tracked = register(rendered.image, table.sheet, camera=camera, previous=fresh)
    corners = table.sheet.grid.corners()
    np.testing.assert_allclose(tracked.to_image(corners), fresh.to_image(corners), atol=0.05)


def test_a_marker_whose_edges_cannot_be_read_still_counts_to_a_fraction_of_a_pixel(
    sheet: Sheet, monkeypatch
) -> None:
    """Rendered play frame of series seed 215: a hand covers one marker, and the far one
    (about 20 px across, blurred) has edges too soft to read; its corners from the
    detector are whole pixels out. Made good with ``cv2.cornerSubPix``, the board's far
    corner lands within a few pixels of the truth, not 9 px out."""
    from vision.render.series import play_frame, series_table

    rendered = play_frame(series_table("gimmel", 215), 215, 0)
    frame = cv2.imdecode(np.frombuffer(rendered.jpeg, np.uint8), cv2.IMREAD_COLOR)
    truth = rendered.truth

    def worst_corner_px() -> float:
        found = register(frame, sheet, camera=truth["camera"])
        seen = found.to_image(sheet.grid.corners())
        return max(float(np.min(np.linalg.norm(seen - np.asarray(c), axis=1)))
                   for c in truth["grid_corners_px"])  # fmt: skip

    assert worst_corner_px() < 4.0
    # Without the sub-pixel step the detector's whole-pixel corners stay.
    monkeypatch.setattr(registration_module, "_sub_pixel", lambda frame, quads, bits: list(quads))
    assert worst_corner_px() > 6.0
