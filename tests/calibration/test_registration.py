"""Board registration on synthetic frames.

The frames are made here with numpy and OpenCV only (not with the package's own sheet
renderer, so that a mistake there cannot hide one in registration): the board plane is
drawn at a few px per mm (a checker grid of the sheet's size, the markers with their
white quiet zones at their mm positions, a table around it), then seen through a seeded
random pinhole camera tilted up to 45 degrees into a 1280x720 frame, with blur and noise.
The true homography is known, so every answer is checked in millimetres.
"""

from __future__ import annotations

import math
import random
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

from calibration.board_plane import (
    board_to_rectified,
    cell_boxes,
    cell_centres,
    draw_grid,
    grid_points,
    rectified_size,
    rectify,
)
from calibration.registration import (
    HOMOGRAPHY_BY_PARTS_FROM,
    BoardNotVisible,
    DetectorSettings,
    FrameError,
    Marker,
    apply_homography,
    camera_model,
    detect_markers,
    markers_from_opencv,
    register,
    register_markers,
)
from calibration.sheet import Sheet, load_sheet

FRAME = (1280, 720)
PLANE_PX_PER_MM = 3  # whole px per mm, so 5 mm marker modules are whole pixels
TABLE_MM = 60  # table drawn around the cut-out squares
BOARD_GREY = 150
TOLERANCE_MM = 1.5


@pytest.fixture(scope="module")
def sheet() -> Sheet:
    return load_sheet("gimmel")


# --- the synthetic camera --------------------------------------------------------------


def plane_origin(sheet: Sheet) -> tuple[int, int]:
    left, top, _, _ = sheet.bounds_mm()
    return math.floor(left) - TABLE_MM, math.floor(top) - TABLE_MM


def render_plane(sheet: Sheet, extra: dict[int, tuple[float, float]] | None = None) -> np.ndarray:
    """The board plane at PLANE_PX_PER_MM: table, board, checker grid, markers (and
    ``extra`` markers by id at centre mm, to show ids the sheet does not list)."""
    s = PLANE_PX_PER_MM
    left, top, right, bottom = sheet.bounds_mm()
    ox, oy = plane_origin(sheet)
    width = (math.ceil(right) + TABLE_MM - ox) * s
    height = (math.ceil(bottom) + TABLE_MM - oy) * s

    def px(x: float, y: float) -> tuple[int, int]:
        return round((x - ox) * s), round((y - oy) * s)

    plane = np.full((height, width), 70, np.uint8)  # the table
    x0, y0 = px(left - 5, top - 5)
    x1, y1 = px(right + 5, bottom + 5)
    plane[y0:y1, x0:x1] = BOARD_GREY  # the board, with a border the markers sit on
    g = sheet.grid
    for r in range(g.rows):
        for c in range(g.columns):
            a = px(c * g.cell_width_mm, r * g.cell_height_mm)
            b = px((c + 1) * g.cell_width_mm, (r + 1) * g.cell_height_mm)
            plane[a[1] : b[1], a[0] : b[0]] = 110 if (r + c) % 2 else 185
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    places = {m.id: m.centre for m in sheet.markers} | (extra or {})
    for marker_id, (cx, cy) in places.items():
        cut = sheet.marker_mm + 2 * sheet.quiet_zone_mm
        a = px(cx - cut / 2, cy - cut / 2)
        b = px(cx + cut / 2, cy + cut / 2)
        plane[a[1] : b[1], a[0] : b[0]] = 255
        side = round(sheet.marker_mm * s)
        m = px(cx - sheet.marker_mm / 2, cy - sheet.marker_mm / 2)
        plane[m[1] : m[1] + side, m[0] : m[0] + side] = cv2.aruco.generateImageMarker(
            dictionary, marker_id, side
        )
    return plane


def plane_matrix(sheet: Sheet) -> np.ndarray:
    """Board mm -> plane px (pixel centres)."""
    s = PLANE_PX_PER_MM
    ox, oy = plane_origin(sheet)
    return np.array([[s, 0, -ox * s - 0.5], [0, s, -oy * s - 0.5], [0, 0, 1]], np.float64)


def random_camera(sheet: Sheet, rng: random.Random, tilt_deg: float) -> np.ndarray:
    """A homography board mm -> frame px: a pinhole camera (f = 1000 px) tilted by
    ``tilt_deg`` about a random axis, the board turned at random in its plane, scaled to
    fill most of the frame and shifted at random within it."""
    f = 1000.0
    k = np.array([[f, 0, FRAME[0] / 2], [0, f, FRAME[1] / 2], [0, 0, 1]])
    left, top, right, bottom = sheet.bounds_mm()
    centre = np.array([(left + right) / 2, (top + bottom) / 2])
    yaw = rng.uniform(0, 2 * math.pi)
    axis_angle = rng.uniform(0, 2 * math.pi)
    tilt = math.radians(tilt_deg)
    r_yaw, _ = cv2.Rodrigues(np.array([0.0, 0.0, yaw]))
    r_tilt, _ = cv2.Rodrigues(np.array([math.cos(axis_angle), math.sin(axis_angle), 0.0]) * tilt)
    rotation = r_tilt @ r_yaw
    outline = np.array([[left, top], [right, top], [right, bottom], [left, bottom]]) - centre

    def homography(distance: float) -> np.ndarray:
        to_centre = np.array([[1, 0, -centre[0]], [0, 1, -centre[1]], [0, 0, 1]])
        extrinsic = np.column_stack([rotation[:, 0], rotation[:, 1], [0, 0, distance]])
        return k @ extrinsic @ to_centre

    distance = 800.0
    for _ in range(60):  # move the camera until the board fills 85 % of the frame
        h = homography(distance)
        pts = cv2.perspectiveTransform((outline + centre).reshape(-1, 1, 2), h).reshape(-1, 2)
        span = pts.max(axis=0) - pts.min(axis=0)
        fill = max(span[0] / FRAME[0], span[1] / FRAME[1])
        distance *= fill / 0.85
    h = homography(distance)
    pts = cv2.perspectiveTransform((outline + centre).reshape(-1, 1, 2), h).reshape(-1, 2)
    low, high = pts.min(axis=0), pts.max(axis=0)
    dx = rng.uniform(-low[0], FRAME[0] - high[0])
    dy = rng.uniform(-low[1], FRAME[1] - high[1])
    return np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]]) @ h


def render_frame(
    sheet: Sheet,
    truth: np.ndarray,
    rng: random.Random,
    plane: np.ndarray | None = None,
    *,
    noise: float = 3.0,
    blur: float = 0.7,
    colour: bool = True,
) -> np.ndarray:
    plane = render_plane(sheet) if plane is None else plane
    smooth = cv2.GaussianBlur(plane, (0, 0), 1.0)  # against aliasing: ~3 plane px per frame px
    frame = cv2.warpPerspective(
        smooth,
        truth @ np.linalg.inv(plane_matrix(sheet)),
        FRAME,
        flags=cv2.INTER_LINEAR,
        borderValue=40,
    )
    frame = cv2.GaussianBlur(frame, (0, 0), blur)
    noisy = frame.astype(np.float32) + np.random.default_rng(rng.randrange(2**32)).normal(
        0, noise, frame.shape
    ).astype(np.float32)
    frame = np.clip(noisy, 0, 255).astype(np.uint8)
    if colour:
        frame = cv2.merge([frame, (frame * 0.95).astype(np.uint8), frame])
    return frame


def cover(frame: np.ndarray, sheet: Sheet, truth: np.ndarray, marker_id: int) -> np.ndarray:
    """Paint over a marker and its quiet zone, as a hand or a piece would."""
    outline = sheet.marker(marker_id).outline()
    grown = (outline - sheet.marker(marker_id).centre) * 1.15 + sheet.marker(marker_id).centre
    quad = cv2.perspectiveTransform(grown.reshape(-1, 1, 2), truth).reshape(-1, 2)
    out = frame.copy()
    cv2.fillConvexPoly(out, np.rint(quad).astype(np.int32), (90, 80, 90))
    return out


def board_error_mm(registration, sheet: Sheet, truth: np.ndarray) -> float:
    """The worst error over the grid's crossings: where the registration puts the true
    image point of each crossing on the board, against the crossing itself."""
    crossings = grid_points(sheet).reshape(-1, 2)
    seen = cv2.perspectiveTransform(crossings.reshape(-1, 1, 2), truth).reshape(-1, 2)
    return float(np.linalg.norm(registration.to_board(seen) - crossings, axis=1).max())


# --- registration ----------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_registers_the_grid_within_tolerance_up_to_45_degrees(sheet: Sheet, seed: int) -> None:
    rng = random.Random(seed)
    tilt = [0, 15, 30, 45][seed % 4]
    truth = random_camera(sheet, rng, tilt)
    registration = register(render_frame(sheet, truth, rng), sheet)
    assert registration.used == (0, 1, 2, 3)
    assert registration.missing == () and registration.rejected == ()
    assert registration.rms_mm < 1.0
    assert board_error_mm(registration, sheet, truth) < TOLERANCE_MM, f"tilt {tilt}"


@pytest.mark.parametrize("tilt", [15, 30, 45])
@pytest.mark.parametrize("covered", [0, 1, 2, 3])
def test_one_marker_covered_registers_from_the_other_three(
    sheet: Sheet, tilt: int, covered: int
) -> None:
    rng = random.Random(200 + tilt + covered)
    truth = random_camera(sheet, rng, tilt)
    frame = cover(render_frame(sheet, truth, rng), sheet, truth, covered)
    registration = register(frame, sheet)
    assert registration.missing == (covered,)
    assert set(registration.used) == set(sheet.ids) - {covered}
    assert board_error_mm(registration, sheet, truth) < TOLERANCE_MM


def test_two_markers_covered_is_board_not_visible_naming_them(sheet: Sheet) -> None:
    rng = random.Random(7)
    truth = random_camera(sheet, rng, 20)
    frame = cover(cover(render_frame(sheet, truth, rng), sheet, truth, 1), sheet, truth, 2)
    with pytest.raises(
        BoardNotVisible, match=r"saw 2 of the sheet's 4 markers \(ids 0, 3\); missing 1, 2"
    ) as caught:
        register(frame, sheet)
    assert caught.value.missing == (1, 2) and caught.value.seen == (0, 3)
    assert isinstance(caught.value, ValueError)


def test_each_frame_registers_on_its_own_when_the_board_moves(sheet: Sheet) -> None:
    rng = random.Random(21)
    first = random_camera(sheet, rng, 25)
    # The board bumped: shifted by 40 px and turned by 8 degrees in the frame.
    turn = cv2.getRotationMatrix2D((640, 360), 8, 1.0)
    bumped = np.vstack([turn, [0, 0, 1]]) @ np.array([[1, 0, 40], [0, 1, -25], [0, 0, 1]]) @ first
    frames = [render_frame(sheet, t, rng) for t in (first, bumped)]
    a = register(frames[0], sheet)
    b = register(frames[1], sheet)
    again = register(frames[0], sheet)
    assert board_error_mm(a, sheet, first) < TOLERANCE_MM
    assert board_error_mm(b, sheet, bumped) < TOLERANCE_MM
    np.testing.assert_allclose(again.homography, a.homography)
    moved = np.linalg.norm(a.to_image([[120, 270]]) - b.to_image([[120, 270]]))
    assert moved > 20  # the grid's centre moved in the frame and was found there


@pytest.mark.parametrize(("name", "value"), [("black", 0), ("overexposed", 255)])
def test_black_and_overexposed_frames_are_board_not_visible(
    sheet: Sheet, name: str, value: int
) -> None:
    frame = np.full((720, 1280, 3), value, np.uint8)
    with pytest.raises(
        BoardNotVisible, match=r"saw 0 of the sheet's 4 markers; missing 0, 1, 2, 3"
    ):
        register(frame, sheet)


def test_nearly_black_frame_with_noise_is_board_not_visible(sheet: Sheet) -> None:
    rng = np.random.default_rng(3)
    frame = rng.integers(0, 12, (720, 1280), dtype=np.uint8)
    with pytest.raises(BoardNotVisible):
        register(frame, sheet)


def test_unknown_marker_ids_are_ignored(sheet: Sheet) -> None:
    rng = random.Random(5)
    truth = random_camera(sheet, rng, 10)
    g = sheet.grid
    plane = render_plane(
        sheet, extra={7: (g.width_mm / 2, -21.0), 12: (g.width_mm + 21, g.height_mm / 2)}
    )
    frame = render_frame(sheet, truth, rng, plane)
    everything = markers_from_opencv(
        *cv2.aruco.ArucoDetector(sheet.aruco_dictionary()).detectMarkers(frame)[:2]
    )
    assert {7, 12} <= {m.id for m in everything}  # they are in the frame ...
    assert sorted(m.id for m in detect_markers(frame, sheet)) == [0, 1, 2, 3]  # ... and ignored
    registration = register(frame, sheet)
    assert registration.used == (0, 1, 2, 3)
    assert board_error_mm(registration, sheet, truth) < TOLERANCE_MM


def test_a_marker_seen_twice_is_left_out_and_named(sheet: Sheet) -> None:
    rng = random.Random(8)
    truth = random_camera(sheet, rng, 10)
    # A spare copy of marker 2 lies on the table beside the board.
    plane = render_plane(sheet, extra={2: (-21.0, sheet.grid.height_mm / 2)})
    registration = register(render_frame(sheet, truth, rng, plane), sheet)
    assert registration.used == (0, 1, 3) and registration.rejected == (2,)
    assert board_error_mm(registration, sheet, truth) < TOLERANCE_MM


def test_a_marker_stuck_turned_is_left_out_when_the_others_agree(sheet: Sheet) -> None:
    truth = random_camera(sheet, random.Random(9), 20)
    markers = exact_markers(sheet, truth)
    turned = Marker(3, np.roll(markers[3].corners, 1, axis=0))  # stuck a quarter turn off
    registration = register_markers([*markers[:3], turned], sheet)
    assert registration.used == (0, 1, 2) and registration.rejected == (3,)
    assert registration.missing == () and registration.rms_mm < 0.01
    assert board_error_mm(registration, sheet, truth) < 0.01


def test_markers_that_disagree_are_board_not_visible(sheet: Sheet) -> None:
    truth = random_camera(sheet, random.Random(10), 0)
    markers = exact_markers(sheet, truth)
    turned = Marker(1, np.roll(markers[1].corners, 2, axis=0))
    with pytest.raises(
        BoardNotVisible, match=r"disagree by .* mm RMS .*marker 1 fits worst"
    ) as caught:
        register_markers([markers[0], turned, markers[2]], sheet)
    assert caught.value.rms_mm > 2.0
    assert "stuck turned" in str(caught.value)
    # A stricter bound refuses what the default accepts.
    nudge = np.array([[0.8, 0], [0, 0], [0, 0.8], [0, 0]])
    slightly = Marker(2, markers[2].corners + nudge)
    assert register_markers([markers[0], markers[1], slightly], sheet).rms_mm > 0.05
    with pytest.raises(BoardNotVisible, match=r"at most 0\.05 mm"):
        register_markers([markers[0], markers[1], slightly], sheet, max_rms_mm=0.05)


def exact_markers(sheet: Sheet, truth: np.ndarray) -> list[Marker]:
    return [
        Marker(m.id, cv2.perspectiveTransform(m.corners().reshape(-1, 1, 2), truth).reshape(4, 2))
        for m in sheet.markers
    ]


def test_register_markers_with_exact_corners_is_exact(sheet: Sheet) -> None:
    truth = random_camera(sheet, random.Random(11), 45)
    registration = register_markers(exact_markers(sheet, truth), sheet)
    assert registration.rms_mm < 1e-4
    points = np.array([[0, 0], [240, 540], [17.5, 300.25]])
    np.testing.assert_allclose(
        registration.to_board(registration.to_image(points)), points, atol=1e-6
    )
    np.testing.assert_allclose(
        registration.to_image(points),
        cv2.perspectiveTransform(points.reshape(-1, 1, 2), truth).reshape(-1, 2),
        atol=1e-6,
    )
    summary = registration.summary()
    assert summary["markers_used"] == [0, 1, 2, 3] and summary["rms_mm"] == 0.0
    assert summary["px_per_mm"] > 0.5


def test_min_markers_is_a_parameter(sheet: Sheet) -> None:
    truth = random_camera(sheet, random.Random(12), 0)
    markers = exact_markers(sheet, truth)
    with pytest.raises(BoardNotVisible, match="need at least 4"):
        register_markers(markers[:3], sheet, min_markers=4)
    assert register_markers(markers[:2], sheet, min_markers=2).used == (0, 1)


# --- OpenCV's shapes -------------------------------------------------------------------


def test_markers_from_opencv_takes_5_and_4_shapes() -> None:
    quad = np.array([[10, 10], [50, 10], [50, 50], [10, 50]], np.float32)
    five = markers_from_opencv((quad.reshape(1, 4, 2), quad), np.array([3, 4], np.int32))
    four = markers_from_opencv(
        (quad.reshape(1, 4, 2), quad.reshape(1, 4, 2)), np.array([[3], [4]], np.int32)
    )
    for found in (five, four):
        assert [m.id for m in found] == [3, 4]
        for m in found:
            assert m.corners.shape == (4, 2) and m.corners.dtype == np.float64
            np.testing.assert_array_equal(m.corners, quad)
    assert markers_from_opencv((), None) == []
    assert markers_from_opencv([], np.zeros((0,), np.int32)) == []


@pytest.mark.parametrize(
    ("corners", "ids", "message"),
    [
        ((np.zeros((1, 3, 2)),), np.array([1]), r"shape \(1, 3, 2\)"),
        ((np.zeros((4, 2)),), np.array([[1, 2]]), r"ids have shape \(1, 2\)"),
        ((np.zeros((4, 2)), np.zeros((4, 2))), np.array([1]), "2 corner sets for 1 ids"),
        ((np.zeros((4, 2)),), None, "no ids"),
    ],
)
def test_markers_from_opencv_refuses_other_shapes(corners, ids, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        markers_from_opencv(corners, ids)


def test_detector_output_in_this_opencv_is_normalised(sheet: Sheet) -> None:
    rng = random.Random(13)
    frame = render_frame(sheet, random_camera(sheet, rng, 0), rng, colour=False)
    corners, ids, _ = cv2.aruco.ArucoDetector(sheet.aruco_dictionary()).detectMarkers(frame)
    assert np.asarray(ids).reshape(-1).size == 4
    assert sorted(m.id for m in markers_from_opencv(corners, ids)) == [0, 1, 2, 3]


def test_frames_that_are_not_images_are_refused(sheet: Sheet) -> None:
    with pytest.raises(FrameError, match="8-bit"):
        register(np.zeros((720, 1280), np.float32), sheet)
    with pytest.raises(FrameError, match="numpy array"):
        register([[0, 0]], sheet)
    with pytest.raises(FrameError, match=r"shape \(720, 1280, 2\)"):
        register(np.zeros((720, 1280, 2), np.uint8), sheet)


def test_detector_settings_are_explicit(sheet: Sheet) -> None:
    with pytest.raises(ValueError, match="corner_refinement"):
        DetectorSettings(corner_refinement="best").parameters()
    rng = random.Random(14)
    frame = render_frame(sheet, random_camera(sheet, rng, 0), rng)
    assert len(detect_markers(frame, sheet, DetectorSettings(corner_refinement="none"))) == 4
    # Markers smaller than the minimum perimeter are not looked for.
    assert detect_markers(frame, sheet, DetectorSettings(min_marker_perimeter_rate=1.0)) == []


# --- the camera model ------------------------------------------------------------------


def test_camera_distortion_is_taken_into_account(sheet: Sheet) -> None:
    rng = random.Random(15)
    truth = random_camera(sheet, rng, 30)
    camera = {
        "camera_matrix": [[1000.0, 0, 640], [0, 1000.0, 360], [0, 0, 1]],
        "distortion": [-0.28, 0.09, 0.0, 0.0, 0.0],
        "image_size": [1280, 720],
    }
    model = camera_model(camera)
    straight = render_frame(sheet, truth, rng, noise=1.0)
    # Bend the straight frame as the lens would: each distorted pixel looks up its
    # undistorted position.
    u, v = np.meshgrid(np.arange(FRAME[0], dtype=np.float64), np.arange(FRAME[1], dtype=np.float64))
    source = model.undistort(np.column_stack([u.ravel(), v.ravel()])).astype(np.float32)
    bent = cv2.remap(straight, source.reshape(FRAME[1], FRAME[0], 2), None, cv2.INTER_LINEAR)

    registration = register(bent, sheet, camera=camera)
    crossings = grid_points(sheet).reshape(-1, 2)
    seen = model.distort(
        cv2.perspectiveTransform(crossings.reshape(-1, 1, 2), truth).reshape(-1, 2)
    )
    assert np.linalg.norm(registration.to_board(seen) - crossings, axis=1).max() < TOLERANCE_MM
    np.testing.assert_allclose(registration.to_image(crossings), seen, atol=1.5)
    assert registration.summary()["undistorted"] is True
    # Without the lens model the same frame is worse.
    try:
        plain = register(bent, sheet)
    except BoardNotVisible:
        pass
    else:
        assert plain.rms_mm > registration.rms_mm

    picture = rectify(bent, registration, 2.0, 5.0)
    reference = rectify(straight, register(straight, sheet), 2.0, 5.0)
    assert picture.shape == reference.shape
    assert np.mean(np.abs(picture.astype(int) - reference.astype(int))) < 12


def test_a_calibration_for_another_frame_size_is_refused(sheet: Sheet) -> None:
    camera = {
        "camera_matrix": np.eye(3) * [800, 800, 1],
        "distortion": [0, 0, 0, 0],
        "image_size": [640, 480],
    }
    with pytest.raises(FrameError, match="1280x720 px but the camera calibration is for 640x480"):
        register(np.zeros((720, 1280), np.uint8), sheet, camera=camera)


@pytest.mark.parametrize(
    ("camera", "message"),
    [
        ({"camera_matrix": [[1, 0], [0, 1]], "distortion": []}, "3x3"),
        ({"camera_matrix": np.eye(3), "distortion": [1, 2, 3]}, "4, 5, 8, 12 or 14"),
        ({"camera_matrix": "x", "distortion": []}, "numbers"),
    ],
)
def test_bad_camera_models_are_refused(camera, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        camera_model(camera)


# --- the rectified board ---------------------------------------------------------------


def test_rectify_shows_the_checker_grid_square_on(sheet: Sheet) -> None:
    rng = random.Random(16)
    truth = random_camera(sheet, rng, 40)
    frame = render_frame(sheet, truth, rng)
    registration = register(frame, sheet)
    px_per_mm, margin = 2.0, 5.0
    picture = rectify(frame, registration, px_per_mm, margin)
    assert picture.shape[:2][::-1] == rectified_size(sheet, px_per_mm, margin) == (500, 1100)
    grey_picture = cv2.cvtColor(picture, cv2.COLOR_BGR2GRAY)
    boxes = cell_boxes(sheet, px_per_mm, margin, inset_mm=4.0)
    assert boxes.shape == (18, 8, 4)
    for r in range(sheet.grid.rows):
        for c in range(sheet.grid.columns):
            x0, y0, x1, y1 = boxes[r, c]
            level = grey_picture[y0:y1, x0:x1].mean()
            expected = 110 if (r + c) % 2 else 185
            assert abs(level - expected) < 20, (r, c, level)
    overlay = draw_grid(grey_picture, sheet, px_per_mm, margin)
    assert overlay.shape == (*grey_picture.shape, 3)
    assert tuple(overlay[round(margin * px_per_mm), 100]) == (0, 255, 0)


def test_grid_helpers(sheet: Sheet) -> None:
    centres = cell_centres(sheet)
    assert centres.shape == (18, 8, 2)
    np.testing.assert_allclose(centres[0, 0], [15, 15])
    np.testing.assert_allclose(centres[17, 7], [225, 525])
    points = grid_points(sheet)
    assert points.shape == (19, 9, 2)
    np.testing.assert_allclose(points[-1, -1], [240, 540])
    np.testing.assert_allclose(
        board_to_rectified([[0, 0], [240, 540]], 2.0, 5.0), [[10, 10], [490, 1090]]
    )
    with pytest.raises(ValueError, match="inset_mm"):
        cell_boxes(sheet, inset_mm=15)


def test_a_camera_calibration_object_is_read_by_its_attributes() -> None:
    loaded = SimpleNamespace(
        camera_matrix=[[900.0, 0, 640], [0, 900.0, 360], [0, 0, 1]],
        distortion=[0.1, 0, 0, 0, 0],
        image_size=(1280, 720),
    )
    model = camera_model(loaded)
    assert model.image_size == (1280, 720)
    np.testing.assert_allclose(model.matrix[0, 0], 900.0)
    points = np.array([[100.0, 80.0], [640.0, 360.0], [1200.0, 700.0]])
    np.testing.assert_allclose(model.undistort(model.distort(points)), points, atol=1e-6)


def test_markers_that_make_no_pose_are_board_not_visible(sheet: Sheet) -> None:
    # Every marker seen at the same spot: no homography puts the board in front.
    same = np.array([[600, 300], [640, 300], [640, 340], [600, 340]], np.float64)
    with pytest.raises(
        BoardNotVisible,
        match=r"\(ids 0, 1, 2\) give no pose with the board in front of the camera; missing 3",
    ):
        register_markers([Marker(i, same) for i in (0, 1, 2)], sheet)


def test_a_homography_on_many_points_is_the_one_on_few():
    # From ``HOMOGRAPHY_BY_PARTS_FROM`` points it is worked out coordinate by coordinate
    # (a matrix product of (N, 3) by 3 x 3 is slow): the same points, to the last few
    # units in the last place, as through the matrix product a few at a time.
    rng = np.random.default_rng(5)
    matrix = np.array([[1.6, 0.12, 310.0], [0.04, 1.45, 95.0], [1.2e-4, 2.5e-4, 1.0]])
    points = rng.uniform(-50.0, 450.0, (HOMOGRAPHY_BY_PARTS_FROM + 37, 2))
    many = apply_homography(matrix, points)
    few = np.vstack([apply_homography(matrix, points[k : k + 100])
                     for k in range(0, len(points), 100)])  # fmt: skip
    assert many.shape == few.shape == (len(points), 2)
    np.testing.assert_allclose(many, few, rtol=1e-14, atol=0)
    homog = np.column_stack([points, np.ones(len(points))]) @ matrix.T
    np.testing.assert_allclose(many, homog[:, :2] / homog[:, 2:], rtol=1e-14, atol=0)
