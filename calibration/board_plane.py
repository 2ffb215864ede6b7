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
from typing import Any

import cv2
import numpy as np

from calibration.registration import FrameError, Registration, as_points
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
    perspective warp (one remap when the camera has distortion)."""
    if not px_per_mm > 0 or not margin_mm >= 0:
        raise ValueError(
            f"rectify: px_per_mm > 0 and margin_mm >= 0 (got {px_per_mm}, {margin_mm})"
        )
    if not isinstance(image, np.ndarray) or image.size == 0:
        raise FrameError(f"expected an image as a numpy array (got {type(image).__name__})")
    size = rectified_size(registration.sheet, px_per_mm, margin_mm)
    to_board = np.array(
        [[1 / px_per_mm, 0, -margin_mm], [0, 1 / px_per_mm, -margin_mm], [0, 0, 1]], np.float64
    )
    out_to_image = registration.homography @ to_board
    if registration.camera is None:
        return cv2.warpPerspective(
            image,
            out_to_image,
            size,
            flags=interpolation | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_CONSTANT,
        )
    # The lens first, with maps made once per camera (a frame's remap is milliseconds),
    # then the one perspective warp in undistorted pixels.
    first, second = undistortion_maps(registration.camera, (image.shape[1], image.shape[0]))
    straight = cv2.remap(image, first, second, interpolation, borderMode=cv2.BORDER_CONSTANT)
    return cv2.warpPerspective(
        straight,
        out_to_image,
        size,
        flags=interpolation | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_CONSTANT,
    )


_MAPS: dict[tuple[bytes, bytes, tuple[int, int]], tuple[np.ndarray, np.ndarray]] = {}
#: Cameras whose maps are kept (a table has one; tests and benchmarks a few).
MAPS_KEPT = 4


def undistortion_maps(camera: Any, size: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """``cv2.remap``'s maps that take a frame of ``size`` (width, height) from ``camera``
    to undistorted pixels in the same camera matrix; made once per camera and size."""
    key = (camera.matrix.tobytes(), camera.distortion.tobytes(), size)
    if key not in _MAPS:
        if len(_MAPS) >= MAPS_KEPT:
            _MAPS.pop(next(iter(_MAPS)))
        _MAPS[key] = cv2.initUndistortRectifyMap(
            camera.matrix, camera.distortion, None, camera.matrix, size, cv2.CV_16SC2
        )
    return _MAPS[key]


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
