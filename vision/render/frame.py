"""One frame: a scene composed on the pinhole canvas, put through the lens, lit, blurred,
given the sensor's noise and compressed, with its ground truth.

The order is the camera's: the table, then the board over it; the pieces' shadows on
the board, then the pieces, far to near; the hand's shadow, then the hand; then the lens
(one remap, ``vision.render.camera``), the optics' blur, the light field with the
exposure (``vision.render.light``), the sensor's noise and JPEG
(``vision.render.degrade``). Every random choice of a frame comes from the generator
passed in, split into independent streams (the camera's bump, the pieces' placing, the
hand, the camera's effects), so that the same frame with the hand left out differs only
where the hand and its shadow were.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.render import hands, paint, truth
from vision.render.camera import Pose, homography, lens, nudge, plane_homography
from vision.render.degrade import (
    EffectRanges,
    Effects,
    blur,
    expose_and_noise,
    jpeg,
    random_effects,
)
from vision.render.light import light_field
from vision.render.scene import PlacedPiece, Plane, place_pieces, square_centre
from vision.render.table import Table, random_pose

#: Vignetting: the light's fall-off toward the frame's corners as cos^n of the ray's angle.
VIGNETTING = 2.0


@dataclass(frozen=True)
class FrameOptions:
    """How frames vary. ``hand_chance``: the share of frames with a hand over the board.
    ``marker_reach``: the share of hands that reach for a board corner (and may cover a
    marker) rather than a square. ``camera``: ``"table"`` keeps the set-up's camera,
    bumped by about ``bump_deg`` and ``bump_mm`` (a camera on a stand); ``"fixed"``
    keeps it exactly (the calibration photos); ``"free"`` puts it somewhere new for
    every frame, as a new set-up would. ``effects``: the camera's effects' ranges."""

    hand_chance: float = 0.35
    marker_reach: float = 0.3
    camera: str = "table"
    bump_deg: float = 0.15
    bump_mm: float = 1.0
    effects: EffectRanges = field(default_factory=EffectRanges)


@dataclass(frozen=True, eq=False)
class Rendered:
    """A rendered frame: ``image`` is what a reader gets (the JPEG decoded, BGR),
    ``jpeg`` the file's bytes, ``truth`` the JSON-ready ground truth."""

    image: np.ndarray
    jpeg: bytes
    truth: dict[str, Any]


@dataclass(frozen=True, eq=False)
class Composed:
    """A scene drawn on the pinhole canvas, before the lens and the camera's effects,
    with what the truth needs: the pieces' outlines and the hand's silhouette."""

    canvas: np.ndarray
    outlines: list[tuple[PlacedPiece, np.ndarray]]
    hand_mask: np.ndarray | None


def canvas_scale(pose: Pose, matrix: np.ndarray, point: np.ndarray) -> float:
    """Canvas px per board mm at a board point."""
    h = homography(pose, matrix)
    a, bx, by = truth.apply(
        h, np.array([point[:2], point[:2] + np.array([1, 0]), point[:2] + np.array([0, 1])])
    )
    (ux, uy), (vx, vy) = bx - a, by - a
    return math.sqrt(abs(float(ux * vy - uy * vx)))


def warp_plane(
    canvas: np.ndarray | None, plane: Plane, pose: Pose, matrix: np.ndarray, size: tuple[int, int]
) -> np.ndarray:
    """Draw a textured plane onto the canvas (a new canvas when None)."""
    to_canvas = plane_homography(pose, matrix, plane.origin, plane.x_axis, plane.y_axis)
    m = to_canvas @ np.linalg.inv(plane.texture.mm_to_px())
    if canvas is None:
        return cv2.warpPerspective(
            plane.texture.image, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
        )
    cv2.warpPerspective(
        plane.texture.image,
        m,
        size,
        dst=canvas,
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_TRANSPARENT,
    )
    return canvas


def compose(
    table: Table,
    pose: Pose,
    planes: list[Plane],
    pieces: list[PlacedPiece],
    hand: hands.Hand | None,
) -> Composed:
    """The scene on the pinhole canvas (see the module's words)."""
    lens_ = lens(table.intrinsics)
    matrix = lens_.canvas_matrix()
    size = lens_.canvas_size
    canvas = None
    for plane in planes:
        canvas = warp_plane(canvas, plane, pose, matrix, size)
    assert canvas is not None
    scale = canvas_scale(pose, matrix, table.centre())
    lamp = table.lamp
    strength = 0.92 * (1 - lamp.ambient)
    if pieces:
        shadows = paint.shadow_mask(size, pieces, pose, matrix, lamp, scale)
        paint.darken(canvas, shadows, strength)
    outlines = paint.draw_pieces(canvas, pieces, pose, matrix, lamp)
    mask = None if hand is None else add_hand(canvas, table, pose, hand)
    return Composed(canvas, outlines, mask)


def add_hand(canvas: np.ndarray, table: Table, pose: Pose, hand: hands.Hand) -> np.ndarray:
    """Draw ``hand`` and its shadow over a scene on the pinhole canvas (the last thing
    ``compose`` draws); returns the hand's silhouette on the canvas."""
    lens_ = lens(table.intrinsics)
    matrix = lens_.canvas_matrix()
    scale = canvas_scale(pose, matrix, table.centre())
    strength = 0.92 * (1 - table.lamp.ambient)
    mask = hands.silhouette(hand, pose, matrix, lens_.canvas_size)
    hands.cast_shadow(canvas, hand, pose, matrix, table.lamp, scale, strength * 0.9)
    hands.draw(canvas, hand, mask, pose, matrix)
    return mask


def develop(
    table: Table, pose: Pose, canvas: np.ndarray, effects: Effects, rng: np.random.Generator
) -> tuple[bytes, np.ndarray]:
    """The canvas through the lens and the camera: JPEG bytes and the decoded frame."""
    lens_ = lens(table.intrinsics)
    frame = lens_.to_frame(canvas)
    frame = blur(frame, effects)
    light = light_field(lens_, pose, table.lamp, table.centre(), effects.exposure, VIGNETTING)
    frame = expose_and_noise(frame, light, effects, rng)
    return jpeg(frame, effects.jpeg_quality)


def board_planes(table: Table) -> list[Plane]:
    return [
        Plane.on_table(
            table.table, angle=table.table_angle, centre=table.centre()[:2], opaque=True
        ),
        Plane.on_table(table.board),
    ]


def frame_pose(table: Table, rng: np.random.Generator, options: FrameOptions) -> Pose:
    if options.camera == "free":
        left, top, right, bottom = table.board_outline
        return random_pose(
            rng,
            table.intrinsics,
            table.outline_points(),
            table.centre(),
            (right - left, bottom - top),
        )
    if options.camera == "fixed":
        return table.pose
    if options.camera != "table":
        raise ValueError(f"camera: expected 'table', 'fixed' or 'free' (got {options.camera!r})")
    return nudge(table.pose, rng, options.bump_deg, options.bump_mm)


def choose_hand(
    table: Table, pose: Pose, rng: np.random.Generator, options: FrameOptions
) -> hands.Hand | None:
    """A hand that enters from the frame's edge (a few tries), or None."""
    sheet = table.sheet
    lens_ = lens(table.intrinsics)
    matrix = lens_.canvas_matrix()
    grid = sheet.grid
    names = [f"{chr(97 + c)}{r + 1}" for r in range(grid.rows) for c in range(grid.columns)]
    for _ in range(6):
        if rng.random() < options.marker_reach:
            marker = sheet.markers[rng.integers(len(sheet.markers))]
            targets = np.array([marker.centre])
        else:
            targets = np.array([square_centre(sheet, names[rng.integers(len(names))])])
        centre = pose.centre
        camera_side = math.atan2(centre[1] - table.centre()[1], centre[0] - table.centre()[0])
        hand = hands.random_hand(rng, targets, camera_side)
        mask = hands.silhouette(hand, pose, matrix, lens_.canvas_size)
        if hands.reaches_edge(mask, lens_.border):
            return hand
    return None


def render_frame(
    table: Table,
    position: Mapping[str, str],
    rng: np.random.Generator,
    *,
    options: FrameOptions | None = None,
    hand: bool | None = None,
    extra: Mapping[str, Any] | None = None,
) -> Rendered:
    """A frame of ``table`` showing ``position`` (``{"c8": "white falcon", ...}``).

    ``hand``: None draws whether a hand is in the frame (``options.hand_chance``); True
    or False forces it, every other choice staying the same. ``extra`` is merged into
    the truth (the game's state, the series' seed)."""
    options = options or FrameOptions()
    pose_rng, piece_rng, hand_rng, effect_rng, noise_rng = rng.spawn(5)
    pose = frame_pose(table, pose_rng, options)
    pieces = place_pieces(position, table.sheet, piece_rng, table.materials)
    wants_hand = bool(hand_rng.random() < options.hand_chance)
    if hand is not None:
        wants_hand = hand
    the_hand = choose_hand(table, pose, hand_rng, options) if wants_hand else None
    effects = random_effects(effect_rng, options.effects)
    composed = compose(table, pose, board_planes(table), pieces, the_hand)
    data, image = develop(table, pose, composed.canvas, effects, noise_rng)
    settings = {
        "hand_chance": options.hand_chance,
        "marker_reach": options.marker_reach,
        "camera": options.camera,
        "bump_deg": options.bump_deg,
        "bump_mm": options.bump_mm,
    }
    facts = truth.frame_truth(table, pose, position, composed, the_hand, effects, settings)
    if extra:
        facts = {"truth": facts["truth"], **extra, **facts}
    return Rendered(image, data, facts)
