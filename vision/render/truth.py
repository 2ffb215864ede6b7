"""Ground truth beside every frame: what was rendered, in the words a reader answers in.

- ``position``: the occupied squares, ``{"a1": "white falcon", ...}``; the colour is the
  one the seat plays (``state.white`` names the seat playing White).
- ``unknown``: the squares a hand hides, which a reader must call unknown. The rule: a
  square is hidden when the hand or arm covers, as the camera sees it, at least half
  of any pixel of the square's *central area* (the middle two-thirds of the square
  each way: 20 x 20 mm of a 30 mm square) or of the piece standing on it (its whole
  outline, which a tall piece leans beyond its square).
- ``markers``: which of the sheet's markers are ``visible`` (the whole cut-out square,
  marker and white quiet zone, inside the frame and not covered), ``covered`` (the
  hand over any pixel of the cut-out square) and ``outside`` (partly out of frame).
- ``camera``: intrinsics as ``companion calibrate camera`` writes them
  (``image_size``, ``camera_matrix``, ``distortion``), so ``calibration.registration``
  reads it as a camera model, and the pose (``rotation``, ``rvec``, ``tvec_mm``: world
  to camera; the camera's centre, height and tilt).
- ``homography``: board mm -> *undistorted* frame px (``K [r1 r2 t]``), as
  ``calibration.registration.register`` fits it with a camera model; ``grid_corners_px``
  and ``marker_corners_px`` give the points in the frame as delivered (through the lens).
- ``render``: the settings drawn for the frame (table, light, camera effects, hand).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from calibration.sheet import Sheet
from rules.grid import Square
from vision.render.camera import Intrinsics, Pose, homography, lens, to_frame_px
from vision.render.scene import square_centre

if TYPE_CHECKING:
    from vision.render.degrade import Effects
    from vision.render.frame import Composed
    from vision.render.hands import Hand
    from vision.render.table import Table

#: The truth file's format version.
VERSION = 1
#: The central share of a square (each way) whose hiding makes the square unknown.
CENTRAL_SHARE = 2 / 3
#: A canvas pixel counts as hidden when the hand covers at least this share of it.
HIDDEN_PIXEL = 0.5


def apply(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    p = np.column_stack([np.asarray(points, np.float64).reshape(-1, 2), np.ones(len(points))])
    q = p @ h.T
    return q[:, :2] / q[:, 2:3]


def position_of(state: Any) -> dict[str, str]:
    """A Gimmel state's occupied squares as ``{"a1": "white falcon", ...}``."""
    words = {}
    for square, piece in zip(state.grid.squares, state.board, strict=True):
        if piece is None:
            continue
        colour = "white" if piece.owner == state.white else "black"
        words[str(square)] = f"{colour} {piece.kind.value}"
    return dict(sorted(words.items(), key=lambda item: _order(item[0])))


def _order(name: str) -> tuple[int, int]:
    square = Square.parse(name)
    return square.row, square.col


def square_names(sheet: Sheet) -> list[str]:
    """Every square, in the grid picture's row-major order (top-left first)."""
    grid = sheet.grid
    return [
        str(Square(c, grid.rows - 1 - i)) for i in range(grid.rows) for c in range(grid.columns)
    ]


def central_areas(sheet: Sheet) -> np.ndarray:
    """Each square's central area in board mm, (rows * columns, 4, 2) in
    ``square_names`` order."""
    grid = sheet.grid
    cw, ch = grid.cell_width_mm, grid.cell_height_mm
    mx, my = cw * (1 - CENTRAL_SHARE) / 2, ch * (1 - CENTRAL_SHARE) / 2
    boxes = []
    for i in range(grid.rows):
        for j in range(grid.columns):
            x0, y0, x1, y1 = j * cw + mx, i * ch + my, (j + 1) * cw - mx, (i + 1) * ch - my
            boxes.append([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    return np.asarray(boxes, np.float64)


def hidden_squares(
    sheet: Sheet, to_canvas: np.ndarray, hand_mask: np.ndarray, outlines: list
) -> list[str]:
    """The squares the hand hides (the module's rule), on the pinhole canvas."""
    hidden = hand_mask >= round(255 * HIDDEN_PIXEL)
    if not hidden.any():
        return []
    names = square_names(sheet)
    index = {name: k + 1 for k, name in enumerate(names)}
    labels = np.zeros(hand_mask.shape, np.uint16)
    boxes = central_areas(sheet)
    corners = np.rint(apply(to_canvas, boxes.reshape(-1, 2)) * 16).astype(np.int32)
    for k, px in enumerate(corners.reshape(len(boxes), 4, 2)):
        cv2.fillConvexPoly(labels, px, k + 1, cv2.LINE_8, 4)
    found = set(np.unique(labels[hidden]).tolist())
    pieces = np.zeros(hand_mask.shape, np.uint16)
    for piece, outline in outlines:
        px = np.rint(outline * 16).astype(np.int32)
        cv2.fillConvexPoly(pieces, px, index[piece.square], cv2.LINE_8, 4)
    found |= set(np.unique(pieces[hidden]).tolist())
    found.discard(0)
    return sorted((names[k - 1] for k in found), key=_order)


def marker_states(
    sheet: Sheet,
    pose: Pose,
    intrinsics: Intrinsics,
    to_canvas: np.ndarray,
    hand_mask: np.ndarray | None,
) -> dict[str, list[int]]:
    """The sheet's markers: ``visible``, ``covered`` (by the hand) and ``outside``."""
    w, h = intrinsics.width, intrinsics.height
    states: dict[str, list[int]] = {"visible": [], "covered": [], "outside": []}
    hidden = None if hand_mask is None else hand_mask >= round(255 * HIDDEN_PIXEL)
    for marker in sheet.markers:
        cut = marker.outline()
        px = to_frame_px(np.column_stack([cut, np.zeros(4)]), pose, intrinsics)
        inside = (px[:, 0] >= 0).all() and (px[:, 0] <= w - 1).all()
        inside = inside and (px[:, 1] >= 0).all() and (px[:, 1] <= h - 1).all()
        covered = False
        if hidden is not None:
            canvas_px = apply(to_canvas, cut)
            x0, y0 = np.floor(canvas_px.min(0)).astype(int) - 1
            x1, y1 = np.ceil(canvas_px.max(0)).astype(int) + 2
            x0, y0 = max(x0, 0), max(y0, 0)
            x1, y1 = min(x1, hidden.shape[1]), min(y1, hidden.shape[0])
            if x1 > x0 and y1 > y0:
                roi = np.zeros((y1 - y0, x1 - x0), np.uint8)
                shifted = np.rint((canvas_px - [x0, y0]) * 16).astype(np.int32)
                cv2.fillConvexPoly(roi, shifted, 1, cv2.LINE_8, 4)
                covered = bool((roi.astype(bool) & hidden[y0:y1, x0:x1]).any())
        if covered:
            states["covered"].append(marker.id)
        if not inside:
            states["outside"].append(marker.id)
        if inside and not covered:
            states["visible"].append(marker.id)
    return states


def _rounded(array: np.ndarray, digits: int = 4) -> list:
    return np.round(np.asarray(array, np.float64), digits).tolist()


def camera_truth(intrinsics: Intrinsics, pose: Pose) -> dict[str, Any]:
    return {**intrinsics.to_json(), "pose": pose.to_json()}


def frame_truth(
    table: Table,
    pose: Pose,
    position: Mapping[str, str],
    composed: Composed,
    hand: Hand | None,
    effects: Effects,
    options: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The truth of a board frame (see the module's words); ``options`` are the frame
    options it was drawn with."""
    sheet = table.sheet
    intrinsics = table.intrinsics
    lens_ = lens(intrinsics)
    to_canvas = homography(pose, lens_.canvas_matrix())
    to_frame = homography(pose, intrinsics.matrix())
    unknown = []
    if composed.hand_mask is not None:
        unknown = hidden_squares(sheet, to_canvas, composed.hand_mask, composed.outlines)
    corners = sheet.grid.corners()
    flat = np.column_stack([corners, np.zeros(4)])
    markers_px = {
        str(m.id): _rounded(
            to_frame_px(np.column_stack([m.corners(), np.zeros(4)]), pose, intrinsics), 3
        )
        for m in sheet.markers
    }
    return {
        "truth": VERSION,
        "game": table.game,
        "sheet": sheet.name,
        "image_size": [intrinsics.width, intrinsics.height],
        "position": dict(sorted(position.items(), key=lambda item: _order(item[0]))),
        "unknown": unknown,
        "markers": marker_states(sheet, pose, intrinsics, to_canvas, composed.hand_mask),
        "camera": camera_truth(intrinsics, pose),
        "homography": _rounded(to_frame / to_frame[2, 2], 9),
        "grid_corners_px": _rounded(to_frame_px(flat, pose, intrinsics), 3),
        "marker_corners_px": markers_px,
        "render": {
            "options": dict(options or {}),
            "table": table.to_json(),
            "camera_effects": effects.to_json(),
            "hand": None if hand is None else hand.to_json(),
            "pieces": [
                {
                    "square": p.square,
                    "offset_mm": _rounded(p.centre[:2] - square_centre(sheet, p.square), 3),
                    "angle_deg": round(float(np.degrees(p.angle)) % 360, 2),
                }
                for p, _ in sorted(composed.outlines, key=lambda item: _order(item[0].square))
            ],
        },
    }
