"""Camera intrinsics on real photos: OpenCV's own sample chessboard photos reproduce
OpenCV's published calibration; bad photos are reported and skipped; calibration files
refuse another kind, version or camera; ChArUco on synthetic pinhole views."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.camera import (
    CalibrationError,
    CalibrationFileError,
    CameraCalibration,
    CharucoPattern,
    ChessboardPattern,
    ImageSizeMismatch,
    MixedImageSizes,
    PatternError,
    PatternNotFound,
    calibrate,
    find_pattern,
    make_pattern,
    parse_grid,
    undistort,
    undistort_points,
)

NINE_BY_SIX = ChessboardPattern(9, 6, 25.0)


@pytest.fixture(scope="module")
def published(opencv_calib_left: Path) -> dict:
    return json.loads((opencv_calib_left / "published_ground_truth.json").read_text())


@pytest.fixture(scope="module")
def sample(opencv_calib_left: Path, published: dict) -> tuple[CameraCalibration, list]:
    """The 13 photos calibrated once, as OpenCV's sample did (-w=9 -h=6 -a=1)."""
    heard: list[tuple[str, str]] = []
    photos = [(name, opencv_calib_left / name) for name in published["image_list"]]
    calibration = calibrate(
        photos,
        NINE_BY_SIX,
        fix_aspect=True,
        progress=lambda name, word: heard.append((name, word)),
    )
    return calibration, heard


# --- OpenCV's published figures ------------------------------------------------------


def test_reproduces_opencv_published_camera_matrix_and_rms(sample, published) -> None:
    calibration, _ = sample
    truth = published["left_intrinsics"]
    matrix = truth["camera_matrix"]
    assert calibration.fx == pytest.approx(matrix[0][0], abs=1.0)
    assert calibration.fy == pytest.approx(matrix[1][1], abs=1.0)
    assert calibration.cx == pytest.approx(matrix[0][2], abs=1.0)
    assert calibration.cy == pytest.approx(matrix[1][2], abs=1.0)
    assert calibration.fx == calibration.fy  # CALIB_FIX_ASPECT_RATIO with aspect 1
    assert calibration.rms == pytest.approx(truth["avg_reprojection_error"], abs=0.02)
    assert calibration.image_size == (int(truth["image_width"]), int(truth["image_height"]))


def test_per_view_errors_match_opencv_sample(sample, published) -> None:
    calibration, _ = sample
    truth = [row[0] for row in published["left_intrinsics"]["per_view_reprojection_errors"]]
    assert [name for name, _ in calibration.per_view] == published["image_list"]
    for (name, error), expected in zip(calibration.per_view, truth, strict=True):
        assert error == pytest.approx(expected, abs=0.01), name
    # The overall RMS is the per-view errors pooled over the 54 corners of every view.
    pooled = np.sqrt(np.mean([error**2 for _, error in calibration.per_view]))
    assert pooled == pytest.approx(calibration.rms, abs=1e-6)


def test_distortion_matches_opencv_sample(sample, published) -> None:
    calibration, _ = sample
    truth = [row[0] for row in published["left_intrinsics"]["distortion_coefficients"]]
    assert calibration.distortion == pytest.approx(truth, abs=0.01)


def test_progress_and_settings(sample, published) -> None:
    calibration, heard = sample
    assert heard == [(name, "found 54 corners") for name in published["image_list"]]
    settings = calibration.to_json()["settings"]
    assert settings["pattern"] == {"kind": "chessboard", "columns": 9, "rows": 6, "square_mm": 25}
    assert settings["flags"] == ["CALIB_FIX_ASPECT_RATIO"]
    assert settings["subpix_window"] == 11
    assert settings["opencv"] == cv2.__version__
    assert "fx 535.9" in calibration.summary()


def test_find_pattern_shapes(opencv_calib_left: Path) -> None:
    detection = find_pattern(opencv_calib_left / "left01.jpg", NINE_BY_SIX)
    assert detection.image_points.shape == (54, 2)
    assert detection.image_points.dtype == np.float32
    assert detection.object_points.shape == (54, 3)
    assert detection.object_points[1].tolist() == [25.0, 0.0, 0.0]
    assert detection.object_points[9].tolist() == [0.0, 25.0, 0.0]
    assert detection.image_size == (640, 480)
    colour = cv2.imread(str(opencv_calib_left / "left01.jpg"))
    assert np.allclose(find_pattern(colour, NINE_BY_SIX).image_points, detection.image_points)


def test_find_pattern_not_found_names_the_photo() -> None:
    with pytest.raises(PatternNotFound, match=r"blank\.png: pattern not found") as caught:
        find_pattern(np.full((480, 640), 200, np.uint8), NINE_BY_SIX, name="blank.png")
    assert isinstance(caught.value, ValueError)


# --- bad photos --------------------------------------------------------------------


def _bad_photos(folder: Path, tmp_path: Path) -> dict[str, Path]:
    original = (folder / "left01.jpg").read_bytes()
    truncated = tmp_path / "truncated.jpg"
    truncated.write_bytes(original[: len(original) // 2])
    text = tmp_path / "notes.txt"
    text.write_text("not a photo\n")
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((480, 640, 3), 200, np.uint8))
    covered = cv2.imread(str(folder / "left02.jpg"))
    covered[:, 320:] = 128  # half the board hidden: a chessboard must be whole
    half = tmp_path / "covered.png"
    cv2.imwrite(str(half), covered)
    return {
        "truncated": truncated,
        "text": text,
        "missing": tmp_path / "missing.jpg",
        "blank": blank,
        "covered": half,
    }


def test_bad_photos_are_reported_and_skipped(opencv_calib_left: Path, tmp_path: Path) -> None:
    bad = _bad_photos(opencv_calib_left, tmp_path)
    good = ["left03.jpg", "left04.jpg", "left05.jpg", "left06.jpg"]
    photos: list = [(name, opencv_calib_left / name) for name in good[:2]]
    photos += [(key, path) for key, path in bad.items()]
    photos.append(("left05.jpg", cv2.imread(str(opencv_calib_left / "left05.jpg"))))  # array
    photos.append(str(opencv_calib_left / "left06.jpg"))  # a bare path names itself
    heard: dict[str, str] = {}
    calibration = calibrate(photos, NINE_BY_SIX, progress=heard.__setitem__)

    for key in ("truncated", "text", "missing"):
        assert heard[key].startswith("unreadable: "), (key, heard[key])
    assert heard["blank"] == "pattern not found"
    assert heard["covered"] == "pattern not found"
    names = [name for name, _ in calibration.per_view]
    assert names == [*good[:3], str(opencv_calib_left / "left06.jpg")]
    assert all(heard[name] == "found 54 corners" for name in names)
    assert calibration.fx != calibration.fy  # no fixed aspect asked for
    assert calibration.settings.flags == ()


def test_too_few_usable_photos(opencv_calib_left: Path, tmp_path: Path) -> None:
    bad = _bad_photos(opencv_calib_left, tmp_path)
    photos = [
        ("left03.jpg", opencv_calib_left / "left03.jpg"),
        ("left04.jpg", opencv_calib_left / "left04.jpg"),
        ("notes.txt", bad["text"]),
        ("blank.png", bad["blank"]),
    ]
    with pytest.raises(CalibrationError) as caught:
        calibrate(photos, NINE_BY_SIX, fix_aspect=True)
    message = str(caught.value)
    assert "2 usable photos" in message and "at least 3" in message
    assert "notes.txt: unreadable" in message
    assert "blank.png: pattern not found" in message
    with pytest.raises(CalibrationError, match="0 usable photos"):
        calibrate([], NINE_BY_SIX)


def test_mixed_sizes_name_the_odd_photo(opencv_calib_left: Path, tmp_path: Path) -> None:
    small = tmp_path / "small.png"
    cv2.imwrite(
        str(small), cv2.resize(cv2.imread(str(opencv_calib_left / "left02.jpg")), (320, 240))
    )
    photos = [
        ("left01.jpg", opencv_calib_left / "left01.jpg"),
        ("small.png", small),
        ("left03.jpg", opencv_calib_left / "left03.jpg"),
    ]
    with pytest.raises(MixedImageSizes, match=r"small\.png is 320x240 but left01\.jpg is 640x480"):
        calibrate(photos, NINE_BY_SIX)


# --- calibration files ---------------------------------------------------------------


def test_json_round_trip(sample, tmp_path: Path) -> None:
    calibration, _ = sample
    data = calibration.to_json()
    assert data["calibration"] == "camera" and data["version"] == 1
    assert set(data) == {
        "calibration",
        "version",
        "image_size",
        "camera_matrix",
        "distortion",
        "rms",
        "per_view",
        "settings",
    }
    assert data["per_view"][0] == {"image": "left01.jpg", "rms": calibration.per_view[0][1]}
    again = CameraCalibration.from_json(json.loads(json.dumps(data)), "memory")
    assert again == calibration
    path = calibration.save(tmp_path / "camera.json")
    assert CameraCalibration.load(path, expect_size=(640, 480)) == calibration
    assert not list(tmp_path.glob("*.tmp"))


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"calibration": "board"}, "a 'board' calibration, not a camera calibration"),
        ({"calibration": None}, "no 'calibration' field"),
        ({"version": 2}, "version 2 is not supported"),
        ({"camera_matrix": [[1, 0, 0], [0, 1, 0]]}, "field 'camera_matrix'"),
        ({"camera_matrix": [[-5, 0, 320], [0, 5, 240], [0, 0, 1]]}, "field 'camera_matrix'"),
        ({"distortion": [0.1, "x", 0, 0, 0]}, "field 'distortion'"),
        ({"distortion": None}, "field 'distortion'"),
        ({"image_size": [640]}, "field 'image_size'"),
        ({"rms": -1}, "field 'rms'"),
        ({"per_view": [{"image": 3, "rms": 0.1}]}, "field 'per_view'"),
        ({"settings": {"pattern": {"kind": "dots"}}}, "field 'settings.pattern'"),
    ],
)
def test_refuses_other_kinds_versions_and_malformed_fields(sample, change, words) -> None:
    data = sample[0].to_json()
    for key, value in change.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    with pytest.raises(CalibrationFileError, match=r"^cam\.json: ") as caught:
        CameraCalibration.from_json(data, "cam.json")
    assert words in str(caught.value)


def test_refuses_a_calibration_from_another_camera(sample, tmp_path: Path) -> None:
    path = sample[0].save(tmp_path / "camera.json")
    with pytest.raises(ImageSizeMismatch, match=r"640x480 images, but the camera gives 1280x720"):
        CameraCalibration.load(path, expect_size=(1280, 720))


def test_load_names_a_file_that_is_not_a_calibration(tmp_path: Path) -> None:
    path = tmp_path / "photo.jpg"
    path.write_bytes(b"\xff\xd8\xff\xe0garbage")
    with pytest.raises(CalibrationFileError, match=r"photo\.jpg: not a calibration file"):
        CameraCalibration.load(path)
    with pytest.raises(CalibrationFileError, match=r"nothing\.json: cannot read"):
        CameraCalibration.load(tmp_path / "nothing.json")


# --- using a calibration -------------------------------------------------------------


def _homography_residual(image_points: np.ndarray, object_points: np.ndarray) -> float:
    """How far a view's corners are from a perfect plane-to-image homography (px)."""
    plane = object_points[:, :2].astype(np.float64)
    homography, _ = cv2.findHomography(plane, image_points.astype(np.float64))
    mapped = cv2.perspectiveTransform(plane.reshape(-1, 1, 2), homography).reshape(-1, 2)
    return float(np.sqrt(np.mean(np.sum((mapped - image_points) ** 2, axis=1))))


def test_undistorted_corners_lie_on_a_plane(sample, opencv_calib_left: Path) -> None:
    calibration, _ = sample
    detection = find_pattern(opencv_calib_left / "left12.jpg", NINE_BY_SIX)
    raw = _homography_residual(detection.image_points, detection.object_points)
    straight = undistort_points(detection.image_points, calibration)
    assert straight.shape == (54, 2)
    fixed = _homography_residual(straight, detection.object_points)
    assert fixed < 0.5 < raw
    assert undistort_points(detection.image_points.reshape(-1, 1, 2), calibration).shape == (54, 2)

    photo = cv2.imread(str(opencv_calib_left / "left12.jpg"))
    flat = undistort(photo, calibration)
    assert flat.shape == photo.shape
    again = find_pattern(flat, NINE_BY_SIX)
    assert _homography_residual(again.image_points, again.object_points) < raw
    with pytest.raises(ImageSizeMismatch, match="the image gives 320x240"):
        undistort(cv2.resize(photo, (320, 240)), calibration)


# --- patterns ------------------------------------------------------------------------


def test_pattern_strings() -> None:
    assert parse_grid("9x6") == (9, 6)
    assert parse_grid(" 7 X 5 ") == (7, 5)
    assert parse_grid("9×6") == (9, 6)
    assert make_pattern("9x6", 25) == NINE_BY_SIX
    assert make_pattern("7x5", 30, charuco=True, marker_mm=22) == CharucoPattern(7, 5, 30, 22)
    for text in ("9by6", "9x", "", "-9x6"):
        with pytest.raises(PatternError, match=repr(text).replace("(", r"\(")):
            parse_grid(text)


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: make_pattern("2x6", 25), "columns (inner corners) 2"),
        (lambda: make_pattern("9x6", 0), "square size 0"),
        (lambda: make_pattern("7x5", 30, charuco=True), "needs its marker size"),
        (lambda: make_pattern("9x6", 25, marker_mm=18), "only a ChArUco board has markers"),
        (lambda: CharucoPattern(7, 5, 30, 30), "must be smaller than the square"),
        (lambda: CharucoPattern(7, 5, 30, 22, "DICT_9X9_7"), "'DICT_9X9_7'"),
        (lambda: CharucoPattern(16, 16, 30, 22), "needs 128 markers"),
    ],
)
def test_bad_patterns_are_refused(make, words) -> None:
    with pytest.raises(PatternError) as caught:
        make()
    assert words in str(caught.value)


# --- ChArUco on synthetic pinhole views ------------------------------------------------

FOCAL = 600.0
CAMERA = np.array([[FOCAL, 0.0, 320.0], [0.0, FOCAL, 240.0], [0.0, 0.0, 1.0]])
CHARUCO = CharucoPattern(7, 5, 30.0, 22.0)
PX_PER_MM = 2.0
MARGIN = 40


def _charuco_views(count: int, seed: int) -> list[tuple[str, np.ndarray]]:
    """The board seen by an ideal pinhole camera (f = 600 px, 640x480) from seeded poses
    tilted 15 to 40 degrees: each frame is the printed board warped by K [r1 r2 t]."""
    width_mm, height_mm = CHARUCO.columns * CHARUCO.square_mm, CHARUCO.rows * CHARUCO.square_mm
    size = (int(width_mm * PX_PER_MM) + 2 * MARGIN, int(height_mm * PX_PER_MM) + 2 * MARGIN)
    printed = CHARUCO.board().generateImage(size, marginSize=MARGIN, borderBits=1)
    # board millimetres -> pixels of the printed image (pixel centres at .0)
    to_print = np.array(
        [[PX_PER_MM, 0, MARGIN - 0.5], [0, PX_PER_MM, MARGIN - 0.5], [0, 0, 1]], np.float64
    )
    outline = np.array([[0, 0], [width_mm, 0], [width_mm, height_mm], [0, height_mm]])
    rng = np.random.default_rng(seed)
    views: list[tuple[str, np.ndarray]] = []
    while len(views) < count:
        tilt = np.radians([rng.uniform(-40, 40), rng.uniform(-40, 40), rng.uniform(-30, 30)])
        if max(abs(tilt[:2])) < np.radians(15):
            continue
        rotation, _ = cv2.Rodrigues(tilt)
        centre = np.array([width_mm / 2, height_mm / 2, 0.0])
        shift = np.array([rng.uniform(-60, 60), rng.uniform(-40, 40), rng.uniform(380, 480)])
        translation = shift - rotation @ centre
        homography = CAMERA @ np.column_stack([rotation[:, 0], rotation[:, 1], translation])
        corners = cv2.perspectiveTransform(outline.reshape(-1, 1, 2), homography).reshape(-1, 2)
        if corners.min() < 10 or corners[:, 0].max() > 630 or corners[:, 1].max() > 470:
            continue
        frame = cv2.warpPerspective(
            printed, homography @ np.linalg.inv(to_print), (640, 480), borderValue=170
        )
        noisy = frame + rng.normal(0.0, 2.0, frame.shape)
        views.append((f"view{len(views)}", np.clip(noisy, 0, 255).astype(np.uint8)))
    return views


def test_charuco_calibration_recovers_the_pinhole() -> None:
    views = _charuco_views(8, seed=7)
    covered = views[0][1].copy()
    covered[:, 330:] = 170  # half the board hidden: ChArUco still counts
    hidden = views[1][1].copy()
    hidden[:, 150:] = 170  # next to nothing left
    views += [("half", covered), ("hidden", hidden)]
    heard: dict[str, str] = {}
    calibration = calibrate(views, CHARUCO, progress=heard.__setitem__)

    assert heard["view0"] == "found 24 corners"
    found = int(heard["half"].split()[1])
    assert 6 <= found < 24
    assert heard["hidden"] == "pattern not found"
    assert len(calibration.per_view) == 9
    assert calibration.rms < 0.3
    assert calibration.fx == pytest.approx(FOCAL, rel=0.03)
    assert calibration.fy == pytest.approx(FOCAL, rel=0.03)
    assert calibration.cx == pytest.approx(320, abs=10)
    assert calibration.cy == pytest.approx(240, abs=10)
    assert calibration.settings.subpix_window is None
    round_trip = CameraCalibration.from_json(calibration.to_json(), "charuco.json")
    assert round_trip.settings.pattern == CHARUCO


def test_charuco_detection_shapes() -> None:
    ((_name, frame),) = _charuco_views(1, seed=3)
    detection = find_pattern(frame, CHARUCO)
    assert detection.image_points.shape == (24, 2)
    assert detection.object_points.shape == (24, 3)
    with pytest.raises(PatternNotFound, match=r"^empty: pattern not found: no 7x5 ChArUco"):
        find_pattern(np.full((480, 640), 170, np.uint8), CHARUCO, name="empty")
