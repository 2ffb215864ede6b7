"""The board plane seen square-on: a registered frame warped flat, and the grid's geometry.

``rectify`` warps a frame, through its ``Registration``, to the board seen square-on: the
grid and a margin around it at a fixed scale in px per mm, board point (x, y) mm at
``board_to_rectified``'s px. The readers cut cells out of that picture (``cell_boxes``);
the camera check draws the sheet's grid over it (``draw_grid``). ``grid_points`` and
``cell_centres`` give the grid's crossings and the cells' centres in board mm.

Separate from ``calibration.registration``, which finds where the board is in a frame:
this module only uses a registration it is given, and the grid's geometry is the sheet's
arithmetic alone.
"""

from __future__ import annotations

import math
import threading
from typing import Any

import cv2
import numpy as np

from calibration.registration import (
    FrameError,
    Registration,
    apply_homography,
    as_points,
    lens,
)
from calibration.sheet import Sheet

#: ``rectify``'s defaults: 2 px per mm is 60 px across a 30 mm cell, more than a
#: 1280x720 camera resolves; a 5 mm margin keeps the grid's edge lines in the picture.
RECTIFIED_PX_PER_MM = 2.0
RECTIFIED_MARGIN_MM = 5.0


def rectified_size(sheet: Sheet, px_per_mm: float, margin_mm: float) -> tuple[int, int]:
    """(width, height) in px of ``rectify``'s picture."""
    grid = sheet.grid
    return (
        math.ceil((grid.width_mm + 2 * margin_mm) * px_per_mm),
        math.ceil((grid.height_mm + 2 * margin_mm) * px_per_mm),
    )


def board_to_rectified(points_mm: Any, px_per_mm: float, margin_mm: float) -> np.ndarray:
    """Board mm (N, 2) -> px in ``rectify``'s picture: ((x + margin) * px_per_mm, ...),
    px at pixel centres as OpenCV counts them."""
    return (as_points(points_mm, "points_mm") + margin_mm) * px_per_mm


def rectify(
    image: np.ndarray,
    registration: Registration,
    px_per_mm: float = RECTIFIED_PX_PER_MM,
    margin_mm: float = RECTIFIED_MARGIN_MM,
    *,
    interpolation: int = cv2.INTER_LINEAR,
) -> np.ndarray:
    """The board plane seen square-on: the grid and ``margin_mm`` around it at
    ``px_per_mm``, so board point (x, y) mm lands at ``board_to_rectified``. One
    perspective warp, or with a camera's lens one remap over the square-on picture's
    pixels only (``rectify_maps``): each looks up its board point's place in the frame as
    the camera gave it, so the frame is sampled once and never undistorted whole."""
    if not px_per_mm > 0 or not margin_mm >= 0:
        raise ValueError(
            f"rectify: px_per_mm > 0 and margin_mm >= 0 (got {px_per_mm}, {margin_mm})"
        )
    if not isinstance(image, np.ndarray) or image.size == 0:
        raise FrameError(f"expected an image as a numpy array (got {type(image).__name__})")
    size = rectified_size(registration.sheet, px_per_mm, margin_mm)
    if registration.camera is None:
        return cv2.warpPerspective(
            image,
            registration.homography @ rectified_to_board(px_per_mm, margin_mm),
            size,
            flags=interpolation | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_CONSTANT,
        )
    first, second = rectify_maps(registration, px_per_mm, margin_mm)
    return cv2.remap(image, first, second, interpolation, borderMode=cv2.BORDER_CONSTANT)


def rectified_to_board(px_per_mm: float, margin_mm: float) -> np.ndarray:
    """The 3x3 matrix from ``rectify``'s px to board mm (``board_to_rectified``'s inverse)."""
    return np.array(
        [[1 / px_per_mm, 0, -margin_mm], [0, 1 / px_per_mm, -margin_mm], [0, 0, 1]], np.float64
    )


#: ``rectify_maps`` works out the lens exactly on nodes at most this many frame px apart
#: and interpolates between them: the map is smooth (a homography and a lens), and
#: bilinear interpolation over 8 px is good to a hundredth of a pixel, less than the
#: remap's own 1/32 px steps (``tests/calibration/test_board_plane.py``).
MAP_NODE_FRAME_PX = 8.0
#: Cameras and scales whose maps are kept (a table has one camera, read at a scale or two).
MAPS_KEPT = 8
#: A kept map serves a registration whose homography puts every px of the picture within
#: this many frame px of where the kept one does: a still camera's registrations differ
#: by about a hundredth of a pixel from frame to frame (the markers' noise), less than
#: the remap's own steps of 1/32 px, so its board costs one remap a frame.
MAP_REUSE_PX = 0.02
_RECTIFY_MAPS: dict[tuple[Any, ...], list[tuple[np.ndarray, tuple[np.ndarray, np.ndarray]]]] = {}
_MAPS_LOCK = threading.Lock()  # a camera's thread and a web request may rectify at once


def rectify_maps(
    registration: Registration, px_per_mm: float, margin_mm: float
) -> tuple[np.ndarray, np.ndarray]:
    """``cv2.remap``'s maps (fixed point, ``CV_16SC2``) from ``rectify``'s picture to the
    frame as the camera gave it: rectified px -> board mm -> (the registration's
    homography) undistorted px -> (the camera's lens) distorted px.

    Kept for the last few pictures, per (camera, scale, margin): a registration whose
    homography is the kept one's, or within ``MAP_REUSE_PX`` of it everywhere on the
    picture (a still camera), costs one remap."""
    camera = registration.camera
    if camera is None:
        raise ValueError("rectify_maps: the registration has no camera model (no lens to map)")
    size = rectified_size(registration.sheet, px_per_mm, margin_mm)
    key = (
        camera.matrix.tobytes(),
        camera.distortion.tobytes(),
        float(px_per_mm),
        float(margin_mm),
        size,
    )
    to_undistorted = registration.homography @ rectified_to_board(px_per_mm, margin_mm)
    with _MAPS_LOCK:
        kept = list(_RECTIFY_MAPS.pop(key, []))
        _RECTIFY_MAPS[key] = kept  # the most recently used last
        while len(_RECTIFY_MAPS) > MAPS_KEPT:
            _RECTIFY_MAPS.pop(next(iter(_RECTIFY_MAPS)))
    # The picture's corners, edge middles and centre: a homography's difference from a
    # nearby one is nearly affine over the picture, largest at its edges.
    width, height = size
    probes = np.array([[x, y] for x in (0, width / 2, width) for y in (0, height / 2, height)])
    here = apply_homography(to_undistorted, probes)
    for matrix, maps in kept:
        if np.abs(apply_homography(matrix, probes) - here).max() <= MAP_REUSE_PX:
            return maps
    maps = cv2.convertMaps(frame_positions(to_undistorted, camera, size), None, cv2.CV_16SC2)
    with _MAPS_LOCK:
        # The last two boards seen at this scale.
        _RECTIFY_MAPS[key] = [(to_undistorted, maps), *_RECTIFY_MAPS.get(key, [])][:2]
    return maps


def frame_positions(
    to_undistorted: np.ndarray,
    camera: Any,
    size: tuple[int, int],
    node_frame_px: float = MAP_NODE_FRAME_PX,
) -> np.ndarray:
    """For each px of a picture of ``size`` (width, height), where it is in the distorted
    frame: ``to_undistorted`` takes picture px to undistorted frame px, then ``camera``'s
    lens. Float32 (height, width, 2), a view into a slightly larger array. Worked out
    exactly on a grid of nodes at most ``node_frame_px`` frame px apart (one node row and
    column beyond each edge) and interpolated bilinearly between them."""
    width, height = size
    m = to_undistorted

    def where(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Picture px (any matching shapes) -> distorted frame px, shape (..., 2)."""
        w = m[2, 0] * x + m[2, 1] * y + m[2, 2]
        u = (m[0, 0] * x + m[0, 1] * y + m[0, 2]) / w
        v = (m[1, 0] * x + m[1, 1] * y + m[1, 2]) / w
        shape = np.broadcast(u, v).shape
        flat = np.column_stack(
            [np.broadcast_to(u, shape).ravel(), np.broadcast_to(v, shape).ravel()]
        )
        return lens(flat, camera.matrix, camera.distortion).reshape(*shape, 2)

    # The node spacing in picture px: the picture's largest stretch into the frame, on
    # its corners and centre (a homography's stretch is largest at the extremes), one
    # px across and one px down.
    px = np.array([0, width, 0, width, width / 2], np.float64)
    py = np.array([0, 0, height, height, height / 2], np.float64)
    probes = where(np.concatenate([px, px + 1, px]), np.concatenate([py, py, py + 1]))
    at, across, down = probes[:5], probes[5:10], probes[10:]
    stretch = float(
        max(np.linalg.norm(across - at, axis=1).max(), np.linalg.norm(down - at, axis=1).max())
    )
    k = int(np.clip(node_frame_px / max(stretch, 1e-9), 1, 64))
    # cv2.resize's INTER_LINEAR puts source node j at destination px j * k + (k - 1) / 2;
    # one node before the picture's start keeps the clamped border out of the picture.
    nx = math.ceil((width + (k + 1) / 2) / k) + 1
    ny = math.ceil((height + (k + 1) / 2) / k) + 1
    xs = (np.arange(nx) - 1) * k + (k - 1) / 2
    ys = (np.arange(ny) - 1) * k + (k - 1) / 2
    grid = where(xs[None, :], ys[:, None]).astype(np.float32)  # (ny, nx, 2)
    if k == 1:
        return grid[1 : 1 + height, 1 : 1 + width]
    dense = cv2.resize(grid, (nx * k, ny * k), interpolation=cv2.INTER_LINEAR)
    return dense[k : k + height, k : k + width]


def grid_points(sheet: Sheet) -> np.ndarray:
    """The grid's line crossings in board mm, shape (rows + 1, columns + 1, 2)."""
    g = sheet.grid
    xs = np.arange(g.columns + 1) * g.cell_width_mm
    ys = np.arange(g.rows + 1) * g.cell_height_mm
    x, y = np.meshgrid(xs, ys)
    return np.stack([x, y], axis=-1)


def cell_centres(sheet: Sheet) -> np.ndarray:
    """Each cell's centre in board mm, shape (rows, columns, 2); [0, 0] is the top-left
    cell as the sheet shows the board (for Gimmel: column a, the last row)."""
    g = sheet.grid
    xs = (np.arange(g.columns) + 0.5) * g.cell_width_mm
    ys = (np.arange(g.rows) + 0.5) * g.cell_height_mm
    x, y = np.meshgrid(xs, ys)
    return np.stack([x, y], axis=-1)


def cell_boxes(
    sheet: Sheet,
    px_per_mm: float = RECTIFIED_PX_PER_MM,
    margin_mm: float = RECTIFIED_MARGIN_MM,
    inset_mm: float = 0.0,
) -> np.ndarray:
    """Each cell's box in ``rectify``'s picture as whole px (x0, y0, x1, y1), shape (rows,
    columns, 4), for ``picture[y0:y1, x0:x1]``; ``inset_mm`` trims each side (the grid's
    lines, a piece's shadow)."""
    g = sheet.grid
    if not 0 <= 2 * inset_mm < min(g.cell_width_mm, g.cell_height_mm):
        raise ValueError(f"inset_mm: expected less than half a cell (got {inset_mm})")
    x0 = np.arange(g.columns) * g.cell_width_mm + inset_mm
    y0 = np.arange(g.rows) * g.cell_height_mm + inset_mm
    x1 = x0 + g.cell_width_mm - 2 * inset_mm
    y1 = y0 + g.cell_height_mm - 2 * inset_mm

    def px(mm: np.ndarray) -> np.ndarray:
        return np.rint((mm + margin_mm) * px_per_mm).astype(np.int64)

    boxes = np.zeros((g.rows, g.columns, 4), np.int64)
    boxes[..., 0] = px(x0)[None, :]
    boxes[..., 2] = px(x1)[None, :]
    boxes[..., 1] = px(y0)[:, None]
    boxes[..., 3] = px(y1)[:, None]
    return boxes


def draw_grid(
    picture: np.ndarray,
    sheet: Sheet,
    px_per_mm: float = RECTIFIED_PX_PER_MM,
    margin_mm: float = RECTIFIED_MARGIN_MM,
    *,
    colour: tuple[int, int, int] = (0, 255, 0),
    thickness: int = 1,
) -> np.ndarray:
    """A BGR copy of ``rectify``'s picture with the sheet's grid drawn over it: where the
    grid lines should be. Lines that miss the board's own show a wrong sheet or camera."""
    out = cv2.cvtColor(picture, cv2.COLOR_GRAY2BGR) if picture.ndim == 2 else picture.copy()
    points = board_to_rectified(grid_points(sheet).reshape(-1, 2), px_per_mm, margin_mm)
    points = (
        np.rint(points).astype(np.int32).reshape(sheet.grid.rows + 1, sheet.grid.columns + 1, 2)
    )
    for row in points:
        cv2.line(
            out, tuple(int(v) for v in row[0]), tuple(int(v) for v in row[-1]), colour, thickness
        )
    for column in points.transpose(1, 0, 2):
        cv2.line(
            out,
            tuple(int(v) for v in column[0]),
            tuple(int(v) for v in column[-1]),
            colour,
            thickness,
        )
    return out
