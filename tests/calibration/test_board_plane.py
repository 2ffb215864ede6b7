"""The board seen square-on through a lens: ``rectify``'s one remap over the picture's
pixels against the two steps it replaced (undistort the whole frame, then one
perspective warp), on a rendered frame whose camera has a lens, and the lens model and
map it is made of against OpenCV's own."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration.board_plane import (
    frame_positions,
    rectified_size,
    rectified_to_board,
    rectify,
    rectify_maps,
)
from calibration.profiles import white_patches
from calibration.registration import LENS_IN_NUMPY_FROM, camera_model, lens, register
from vision.render.series import play_frame, series_table

SEED = 3


@pytest.fixture(scope="module")
def rendered():
    """A rendered play frame (no hand) with its camera's lens, and its registration."""
    table = series_table("gimmel", SEED)
    frame = play_frame(table, SEED, 0, hand=False)
    camera = frame.truth["camera"]
    assert any(camera["distortion"])  # the renderer's webcam has a lens
    return frame.image, register(frame.image, table.sheet, camera=camera)


def two_steps(image: np.ndarray, registration, px_per_mm: float, margin_mm: float) -> np.ndarray:
    """What ``rectify`` did before: the whole frame undistorted, then warped."""
    camera = registration.camera
    size = (image.shape[1], image.shape[0])
    first, second = cv2.initUndistortRectifyMap(
        camera.matrix, camera.distortion, None, camera.matrix, size, cv2.CV_16SC2
    )
    straight = cv2.remap(image, first, second, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    return cv2.warpPerspective(
        straight,
        registration.homography @ rectified_to_board(px_per_mm, margin_mm),
        rectified_size(registration.sheet, px_per_mm, margin_mm),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_CONSTANT,
    )


@pytest.mark.parametrize(("px_per_mm", "margin_mm"), [(1.0, 2.0), (2.0, 5.0)])
def test_one_remap_gives_the_picture_undistort_and_warp_gave(
    rendered, px_per_mm: float, margin_mm: float
) -> None:
    image, registration = rendered
    new = rectify(image, registration, px_per_mm, margin_mm).astype(np.float32)
    old = two_steps(image, registration, px_per_mm, margin_mm).astype(np.float32)
    width, height = rectified_size(registration.sheet, px_per_mm, margin_mm)
    assert new.shape == old.shape == (height, width, 3)
    # One interpolation instead of two: a little sharper, otherwise the same picture.
    assert np.abs(new - old).mean() < 1.5
    blurred = np.abs(cv2.GaussianBlur(new, (0, 0), 1.5) - cv2.GaussianBlur(old, (0, 0), 1.5))
    assert blurred.mean() < 0.5 and np.percentile(blurred, 99) < 4
    # Read again, the same registration's maps are reused: the same picture.
    np.testing.assert_array_equal(rectify(image, registration, px_per_mm, margin_mm), new)
    assert (
        rectify_maps(registration, px_per_mm, margin_mm)[0]
        is rectify_maps(registration, px_per_mm, margin_mm)[0]
    )


@pytest.mark.parametrize("count", [4, 5, 8, 12, 14])
def test_the_lens_model_is_opencvs(count: int) -> None:
    rng = np.random.default_rng(count)
    distortion = rng.normal(0, 0.05, count)
    camera = camera_model(
        {"camera_matrix": [[950.0, 0, 630], [0, 940.0, 370], [0, 0, 1]], "distortion": distortion}
    )
    points = rng.uniform([0, 0], [1280, 720], (300, 2))
    rays = np.column_stack([(points - [630, 370]) / [950.0, 940.0], np.ones(len(points))])
    zero = np.zeros(3)
    opencv, _ = cv2.projectPoints(rays.reshape(-1, 1, 3), zero, zero, camera.matrix, distortion)
    np.testing.assert_allclose(
        lens(points, camera.matrix, camera.distortion), opencv.reshape(-1, 2), atol=1e-9
    )
    # ``CameraModel.distort`` takes OpenCV's own on a few points and ``lens`` on many.
    assert len(points) >= LENS_IN_NUMPY_FROM > 10
    np.testing.assert_allclose(camera.distort(points), opencv.reshape(-1, 2), atol=1e-9)
    np.testing.assert_allclose(camera.distort(points[:10]), opencv.reshape(-1, 2)[:10], atol=1e-9)
    # And a real lens undoes the registration's undistortion.
    wide = camera_model({"camera_matrix": camera.matrix, "distortion": [-0.28, 0.09, 1e-3, 0, 0]})
    np.testing.assert_allclose(
        lens(wide.undistort(points), wide.matrix, wide.distortion), points, atol=1e-6
    )


@pytest.mark.parametrize(
    ("px_per_mm", "distortion"),
    [(0.5, None), (1.0, None), (2.0, [-0.28, 0.09, 0, 0, 0]), (3.0, None)],
)
def test_the_interpolated_map_is_within_a_hundredth_of_a_pixel(
    rendered, px_per_mm: float, distortion
) -> None:
    _, registration = rendered
    camera = registration.camera
    if distortion is not None:  # a wide lens
        camera = camera_model({"camera_matrix": camera.matrix, "distortion": distortion})
    size = rectified_size(registration.sheet, px_per_mm, 3.0)
    to_undistorted = registration.homography @ rectified_to_board(px_per_mm, 3.0)
    found = frame_positions(to_undistorted, camera, size)
    assert found.shape == (size[1], size[0], 2) and found.dtype == np.float32
    u, v = np.meshgrid(np.arange(size[0], dtype=np.float64), np.arange(size[1], dtype=np.float64))
    homog = np.column_stack([u.ravel(), v.ravel(), np.ones(u.size)]) @ to_undistorted.T
    exact = lens(homog[:, :2] / homog[:, 2:3], camera.matrix, camera.distortion)
    exact = exact.reshape(size[1], size[0], 2)
    assert np.abs(found - exact).max() < 0.01


def test_rectify_maps_need_a_camera(rendered) -> None:
    image, registration = rendered
    plain = replace(registration, camera=None)
    with pytest.raises(ValueError, match="no camera model"):
        rectify_maps(plain, 1.0, 0.0)
    assert rectify(image, plain, 1.0, 0.0).shape == (540, 240, 3)


def shifted(registration, dx: float, dy: float):
    """The registration with its board moved by (dx, dy) undistorted px in the frame."""
    move = np.array([[1.0, 0, dx], [0, 1.0, dy], [0, 0, 1]])
    return replace(registration, homography=move @ registration.homography)


def test_a_still_cameras_next_registration_reuses_the_maps(rendered) -> None:
    image, registration = rendered
    first = rectify_maps(registration, 1.0, 2.0)
    # The next frame's registration differs by the markers' noise (a hundredth of a px):
    # the same maps, one remap.
    assert rectify_maps(shifted(registration, 0.005, -0.004), 1.0, 2.0)[0] is first[0]
    # Moved by half a pixel: maps of its own, the picture moved with it.
    moved = shifted(registration, 0.5, 0.0)
    assert rectify_maps(moved, 1.0, 2.0)[0] is not first[0]
    a = rectify(image, registration, 1.0, 2.0).astype(np.float32)
    b = rectify(image, moved, 1.0, 2.0).astype(np.float32)
    assert np.abs(a - b).mean() > 0.5
    # Another scale is another picture.
    assert rectify_maps(registration, 2.0, 2.0)[0].shape != first[0].shape


def test_nodes_a_pixel_apart_are_the_map_itself(rendered) -> None:
    _, registration = rendered
    camera = registration.camera
    size = rectified_size(registration.sheet, 0.5, 0.0)
    to_undistorted = registration.homography @ rectified_to_board(0.5, 0.0)
    found = frame_positions(to_undistorted, camera, size, node_frame_px=0.5)
    u, v = np.meshgrid(np.arange(size[0], dtype=np.float64), np.arange(size[1], dtype=np.float64))
    homog = np.column_stack([u.ravel(), v.ravel(), np.ones(u.size)]) @ to_undistorted.T
    exact = lens(homog[:, :2] / homog[:, 2:3], camera.matrix, camera.distortion)
    np.testing.assert_allclose(found.reshape(-1, 2), exact, atol=1e-3)


def test_the_white_patches_are_the_used_markers_quiet_zones_in_the_frame(rendered) -> None:
    """``white_patches`` puts every used marker's ring through the lens at once: each
    ring is where the registration puts that marker's quiet zone, marker by marker."""
    _, registration = rendered
    rings = white_patches(registration)
    used = [m for m in registration.sheet.markers if m.id in registration.used]
    assert len(rings) == len(used) >= 3
    for (outer, inner), marker in zip(rings, used, strict=True):
        zone_outer, zone_inner = marker.quiet_zone()
        assert outer.shape == zone_outer.shape and inner.shape == zone_inner.shape
        np.testing.assert_array_equal(outer, registration.to_image(zone_outer))
        np.testing.assert_array_equal(inner, registration.to_image(zone_inner))
        # The hole lies inside the ring's outline.
        polygon = outer.astype(np.float32).reshape(-1, 1, 2)
        assert all(cv2.pointPolygonTest(polygon, (float(x), float(y)), False) > 0
                   for x, y in inner)  # fmt: skip
    # A marker the registration did not use is no white reference.
    fewer = replace(registration, used=tuple(registration.used[1:]))
    assert len(white_patches(fewer)) == len(rings) - 1
