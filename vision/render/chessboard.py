"""The photos a user takes to calibrate the camera: a printed chessboard on a card, held
at varied places and angles in front of the table's camera.

As ``docs/calibration.md`` asks of a user: the whole pattern in every photo, moved
around the frame (centre, edges, corners, where the lens bends most) and tilted up to
about 45 degrees in different directions, at the distances the camera works at. The card
is drawn by the same pinhole canvas, lens, light and camera effects as the play frames,
so the intrinsics ``calibration.camera.calibrate`` recovers from these photos are the
ones the frames were drawn with (the truth gives them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.render.camera import Pose, to_frame_px
from vision.render.degrade import random_effects
from vision.render.frame import FrameOptions, Rendered, compose, develop
from vision.render.scene import Plane
from vision.render.surfaces import chessboard_texture
from vision.render.table import Table
from vision.render.textures import Texture
from vision.render.truth import camera_truth

#: The pattern of ``companion calibrate camera --pattern 9x6 --square-mm 25``.
COLUMNS, ROWS, SQUARE_MM = 9, 6, 25.0
#: The card's white margin round the squares (mm), the card's distance from the camera
#: (mm), its greatest tilt (degrees), and the least margin (px) to the frame's edge.
CARD_MARGIN_MM = (10.0, 20.0)
DISTANCE_MM = (330.0, 750.0)
MAX_TILT_DEG = 45.0
EDGE_PX = 12


@dataclass(frozen=True, eq=False)
class Card:
    """A calibration card: its texture and its pose, card mm -> camera
    (``X_c = rotation @ (u, v, 0) + translation``), with (0, 0) the first inner corner."""

    texture: Texture
    rotation: np.ndarray
    translation: np.ndarray

    def corners_mm(self) -> np.ndarray:
        ys, xs = np.mgrid[0:ROWS, 0:COLUMNS]
        return np.column_stack(
            [xs.ravel() * SQUARE_MM, ys.ravel() * SQUARE_MM, np.zeros(ROWS * COLUMNS)]
        )

    def outline_mm(self) -> np.ndarray:
        """The squares' outer corners (the pattern's extent), (4, 3)."""
        x0, y0 = -SQUARE_MM, -SQUARE_MM
        x1, y1 = COLUMNS * SQUARE_MM, ROWS * SQUARE_MM
        return np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], np.float64)

    def to_world(self, points: np.ndarray, pose: Pose) -> np.ndarray:
        camera = points @ self.rotation.T + self.translation
        return (camera - pose.translation) @ pose.rotation


def random_card(rng: np.random.Generator, table: Table, pose: Pose, texture: Texture) -> Card:
    """A card pose with the whole pattern in the frame (a few tries), tilted up to 45
    degrees about a random axis, turned any way, anywhere in the frame."""
    intr = table.intrinsics
    k_inv = np.linalg.inv(intr.matrix())
    for _ in range(200):
        spin = rng.uniform(-math.pi, math.pi)
        tilt = math.radians(MAX_TILT_DEG) * math.sqrt(rng.uniform(0, 1))
        axis_angle = rng.uniform(0, 2 * math.pi)
        axis = np.array([math.cos(axis_angle), math.sin(axis_angle), 0.0])
        turn, _ = cv2.Rodrigues(axis * tilt)
        spin_m, _ = cv2.Rodrigues(np.array([0.0, 0.0, spin]))
        rotation = turn @ spin_m
        depth = rng.uniform(*DISTANCE_MM)
        u, v = rng.uniform(0, intr.width), rng.uniform(0, intr.height)
        centre = depth * (k_inv @ np.array([u, v, 1.0]))
        middle = np.array([(COLUMNS - 1) * SQUARE_MM / 2, (ROWS - 1) * SQUARE_MM / 2, 0.0])
        translation = centre - rotation @ middle
        card = Card(texture, rotation, translation)
        outline = card.to_world(card.outline_mm(), pose)
        if (pose.to_camera(outline)[:, 2] < 100).any():
            continue
        px = to_frame_px(outline, pose, intr)
        inside = (px[:, 0] > EDGE_PX).all() and (px[:, 0] < intr.width - EDGE_PX).all()
        if inside and (px[:, 1] > EDGE_PX).all() and (px[:, 1] < intr.height - EDGE_PX).all():
            return card
    raise ValueError("no card pose with the whole pattern in the frame")


def render_card_photo(
    table: Table, rng: np.random.Generator, *, options: FrameOptions | None = None
) -> Rendered:
    """One calibration photo of the table's camera (its set-up pose: the table behind
    the card)."""
    card_rng, effect_rng, noise_rng = rng.spawn(3)
    paper = float(card_rng.uniform(0.8, 0.9))
    margin = float(card_rng.uniform(*CARD_MARGIN_MM))
    texture = chessboard_texture(COLUMNS, ROWS, SQUARE_MM, margin, paper, card_rng)
    pose = table.pose
    card = random_card(card_rng, table, pose, texture)
    origin, ex, ey = card.to_world(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0.0]]), pose)
    planes = [
        Plane.on_table(
            table.table, angle=table.table_angle, centre=table.centre()[:2], opaque=True
        ),
        Plane(texture, origin, ex - origin, ey - origin),
    ]
    effects = random_effects(effect_rng, (options or FrameOptions()).effects)
    composed = compose(table, pose, planes, [], None)
    data, image = develop(table, pose, composed.canvas, effects, noise_rng)
    corners = to_frame_px(card.to_world(card.corners_mm(), pose), pose, table.intrinsics)
    rvec, _ = cv2.Rodrigues(card.rotation)
    truth = {
        "truth": 1,
        "kind": "calibration",
        "image_size": [table.intrinsics.width, table.intrinsics.height],
        "pattern": {"kind": "chessboard", "columns": COLUMNS, "rows": ROWS, "square_mm": SQUARE_MM},
        "corners_px": np.round(corners, 3).tolist(),
        "card": {
            "rvec": np.round(rvec.ravel(), 9).tolist(),
            "tvec_mm": np.round(card.translation, 4).tolist(),
            "tilt_deg": round(
                math.degrees(math.acos(float(np.clip(card.rotation[2, 2], -1, 1)))), 2
            ),
            "margin_mm": round(margin, 2),
        },
        "camera": camera_truth(table.intrinsics, pose),
        "render": {"table": table.to_json(), "camera_effects": effects.to_json()},
    }
    return Rendered(image, data, truth)
