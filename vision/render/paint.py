"""Drawing pieces onto the pinhole canvas: shaded faces in painter's order, and their
shadows on the board.

Pieces are drawn from the farthest to the nearest, so a near piece covers the one behind
it, and a tall piece seen from an angle leans over the square behind it, as a camera
shows. Within a piece, faces turned away from the camera are dropped; what remains of a
convex body never overlaps. Each face's colour is its material lit by the lamp at the
face's angle (``vision.render.light.face_shade``) plus the lamp's highlight mirrored
toward the camera; side faces turned from the lamp come out darker than tops. The
piece's outline is drawn anti-aliased first, so its edge against the board is smooth.

Shadows are the pieces' outlines projected from the lamp onto the board, blurred by
their penumbra and darkening the board by the lamp's share of the light there, before
the pieces are drawn over them.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.render.camera import Pose, project
from vision.render.light import Lamp, face_shade, onto_board, penumbra_mm, specular
from vision.render.scene import PlacedPiece

SHIFT = 4  # sub-pixel bits for OpenCV's polygon drawing
ONE = 1 << SHIFT


def _fixed(px: np.ndarray) -> np.ndarray:
    return np.rint(px * ONE).astype(np.int32)


def _encode(linear: np.ndarray) -> np.ndarray:
    return 255.0 * np.clip(linear, 0.0, 1.0) ** (1.0 / 2.2)


def face_colours(piece: PlacedPiece, eye: np.ndarray, lamp: Lamp) -> tuple[np.ndarray, np.ndarray]:
    """The body's faces seen from ``eye``: which face the camera sees (F,) bool, and
    every face's colour (F, 3), gamma-encoded BGR: the material lit at the face's angle
    to the lamp (relative to the board beside it) plus the lamp's highlight."""
    turn = piece.turn()
    normals = piece.shape.normals @ turn.T
    centres = piece.transform(piece.shape.centres)
    to_eye = eye[None, :] - centres
    seen = (normals * to_eye).sum(1) > 0
    to_eye /= np.linalg.norm(to_eye, axis=1, keepdims=True)
    to_lamp = lamp.vector() - piece.centre
    to_lamp /= np.linalg.norm(to_lamp)
    shade = face_shade(normals, to_lamp, lamp)
    gloss = specular(normals, to_lamp, to_eye, piece.material.power)
    albedo = np.asarray(piece.material.albedo)
    linear = albedo[None, :] * shade[:, None] + (piece.material.specular * gloss)[:, None]
    return seen, _encode(linear)


def draw_pieces(
    canvas: np.ndarray,
    pieces: Sequence[PlacedPiece],
    pose: Pose,
    matrix: np.ndarray,
    lamp: Lamp,
) -> list[tuple[PlacedPiece, np.ndarray]]:
    """Draw ``pieces`` (far to near) on ``canvas`` through the pinhole ``matrix``;
    returns each piece with its outline in canvas px (a convex polygon), far to near."""
    eye = pose.centre
    order = sorted(pieces, key=lambda p: -float(np.linalg.norm(p.centre - eye)))
    outlines = []
    for piece in order:
        shape = piece.shape
        px, depth = project(piece.transform(shape.vertices), pose, matrix)
        if (depth <= 1).any():
            continue
        fixed = _fixed(px)
        bounds = np.cumsum((0, *shape.counts))
        n_body = len(shape.body)
        seen, colours = face_colours(piece, eye, lamp)
        albedo = np.asarray(piece.material.albedo)
        # Legs first (they stick out from under the body), then the body's outline
        # anti-aliased in its mean colour, then each face the camera sees.
        leg_colour = tuple(float(v) for v in _encode(albedo * 0.55))
        for k in range(n_body, len(shape.counts)):
            quad = fixed[bounds[k] : bounds[k + 1]]
            cv2.fillConvexPoly(canvas, quad, leg_colour, cv2.LINE_AA, SHIFT)
        body_px = px[: bounds[n_body]]
        body_hull = cv2.convexHull(body_px.astype(np.float32)).reshape(-1, 2)
        mean = tuple(float(v) for v in colours[seen].mean(0)) if seen.any() else leg_colour
        cv2.fillConvexPoly(canvas, _fixed(body_hull), mean, cv2.LINE_AA, SHIFT)
        listed = colours.tolist()
        for k in np.flatnonzero(seen).tolist():
            quad = fixed[bounds[k] : bounds[k + 1]]
            cv2.fillConvexPoly(canvas, quad, listed[k], cv2.LINE_8, SHIFT)
        line_colour = tuple(float(v) for v in _encode(albedo * 0.35))
        for line in shape.lines:
            line_px, _ = project(piece.transform(line), pose, matrix)
            cv2.polylines(canvas, [_fixed(line_px)], False, line_colour, 1, cv2.LINE_AA, SHIFT)
        hull = cv2.convexHull(px.astype(np.float32)).reshape(-1, 2)
        outlines.append((piece, hull))
    return outlines


def shadow_mask(
    size: tuple[int, int],
    pieces: Sequence[PlacedPiece],
    pose: Pose,
    matrix: np.ndarray,
    lamp: Lamp,
    px_per_mm: float,
) -> np.ndarray:
    """The pieces' shadows on the board plane as a mask (H, W) float32 in 0-1, blurred
    by their penumbra (``px_per_mm``: the canvas's scale on the board)."""
    w, h = size
    mask = np.zeros((h, w), np.uint8)
    tallest = 0.0
    for piece in pieces:
        points = piece.transform(piece.shape.vertices)
        on_board = onto_board(points, lamp)
        px, depth = project(on_board, pose, matrix)
        if (depth <= 1).any():
            continue
        hull = cv2.convexHull(px.astype(np.float32)).reshape(-1, 2)
        cv2.fillConvexPoly(mask, _fixed(hull), 255, cv2.LINE_AA, SHIFT)
        tallest = max(tallest, piece.height_mm())
    sigma = max(0.6, 0.5 * penumbra_mm(tallest * 0.6, lamp) * px_per_mm)
    soft = cv2.GaussianBlur(mask, (0, 0), sigma)
    return soft.astype(np.float32) * (1.0 / 255.0)


def darken(canvas: np.ndarray, mask: np.ndarray, strength: float) -> None:
    """Multiply ``canvas`` (uint8 BGR) in place by ``1 - strength * mask``, where the
    mask is not zero."""
    x, y, w, h = cv2.boundingRect((mask > 0).astype(np.uint8))
    if w == 0 or h == 0:
        return
    factor = 1.0 - strength * mask[y : y + h, x : x + w]
    region = canvas[y : y + h, x : x + w]
    np.multiply(region, factor[..., None], out=region, casting="unsafe")
