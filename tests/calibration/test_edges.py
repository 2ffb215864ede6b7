"""Marker-edge refinement (``calibration.edges``) on a marker drawn here with a known
homography: the refined corners against the true ones, one marker at a time and many
at once, from corners a little or a module out."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.edges import refine_all_edges, refine_edges, try_refine_edges
from calibration.registration import DetectorSettings

BITS = 4
SETTINGS = DetectorSettings()


def marker_frame(
    corners: np.ndarray, marker_id: int = 3, size: tuple[int, int] = (320, 240)
) -> np.ndarray:
    """A 4x4 marker with a white quiet zone on grey, its black square's corners at
    ``corners`` (4, 2) px (pixel centres), drawn 8 times finer and shrunk, then blurred."""
    fine = 8
    side = 6 * 40  # the black square, 40 px a module at the fine scale
    quiet = 40
    tile = np.full((side + 2 * quiet, side + 2 * quiet), 255, np.uint8)
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    tile[quiet : quiet + side, quiet : quiet + side] = cv2.aruco.generateImageMarker(
        dictionary, marker_id, side
    )
    # Tile px (edges at 0 and side, offset by the quiet zone) -> fine frame px.
    source = np.array([[0, 0], [side, 0], [side, side], [0, side]], np.float32) + quiet - 0.5
    target = (corners.astype(np.float32) + 0.5) * fine - 0.5
    matrix = cv2.getPerspectiveTransform(source, target)
    canvas = np.full((size[1] * fine, size[0] * fine), 120, np.uint8)
    warped = cv2.warpPerspective(tile, matrix, (size[0] * fine, size[1] * fine), borderValue=0)
    mask = cv2.warpPerspective(np.ones_like(tile), matrix, (size[0] * fine, size[1] * fine))
    canvas[mask > 0] = warped[mask > 0]
    frame = cv2.resize(canvas, size, interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(frame, (0, 0), 0.7)


TRUE = np.array([[101.3, 62.8], [182.6, 70.2], [176.1, 151.7], [96.4, 143.9]])


def test_corners_a_pixel_out_are_refined_to_a_twentieth() -> None:
    frame = marker_frame(TRUE)
    rng = np.random.default_rng(1)
    for _ in range(5):
        start = TRUE + rng.normal(0, 0.7, (4, 2))
        refined = refine_edges(frame, start, BITS, SETTINGS)
        assert np.abs(refined - TRUE).max() < 0.05


def test_corners_a_module_out_are_refined_when_a_second_pass_agrees() -> None:
    frame = marker_frame(TRUE)
    module = np.linalg.norm(TRUE[1] - TRUE[0]) / 6
    # Every corner 0.7 of a module out (more than edge_max_shift_modules): one pass
    # lands near the edges, a second from there finds the same edges.
    start = TRUE + 0.7 * module * np.array([[-0.7, -0.7], [0.7, -0.7], [0.7, 0.7], [-0.7, 0.7]])
    refined = refine_edges(frame, start, BITS, SETTINGS)
    assert np.abs(refined - TRUE).max() < 0.05


def test_faint_edges_keep_the_corners_given() -> None:
    frame = (marker_frame(TRUE).astype(np.float32) * 0.05 + 100).astype(np.uint8)
    start = TRUE + 0.3
    np.testing.assert_array_equal(refine_edges(frame, start, BITS, SETTINGS), start)
    assert try_refine_edges(frame, [start], BITS, SETTINGS) == [None]


def test_many_markers_at_once_agree_with_one_at_a_time() -> None:
    frame = np.full((480, 640), 120, np.uint8)
    quads = [TRUE, TRUE * 0.6 + [330, 40], TRUE * 1.4 + [250, 200]]
    for k, quad in enumerate(quads):
        drawn = marker_frame(quad, marker_id=k, size=(640, 480))
        inside = np.zeros_like(frame)
        middle = quad.mean(axis=0)
        grown = np.rint(middle + 1.6 * (quad - middle)).astype(np.int32)
        cv2.fillConvexPoly(inside, grown, 1)  # the marker and its quiet zone
        frame[inside > 0] = drawn[inside > 0]
    rng = np.random.default_rng(2)
    starts = [quad + rng.normal(0, 0.5, (4, 2)) for quad in quads]
    together = refine_all_edges(frame, starts, BITS, SETTINGS)
    alone = [refine_edges(frame, start, BITS, SETTINGS) for start in starts]
    for quad, a, b in zip(quads, together, alone, strict=True):
        assert np.abs(a - quad).max() < 0.06
        assert np.abs(a - b).max() < 0.03
    assert refine_all_edges(frame, [], BITS, SETTINGS) == []


@pytest.mark.parametrize("where", [(-300.0, -300.0), (5000.0, 10.0)])
def test_a_marker_outside_the_frame_keeps_its_corners(where) -> None:
    frame = marker_frame(TRUE)
    start = TRUE + where
    np.testing.assert_array_equal(refine_edges(frame, start, BITS, SETTINGS), start)
