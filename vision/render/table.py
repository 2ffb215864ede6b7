"""One table set-up: the board (as printed, with its markers), the table top, the lamp,
and the camera (a webcam's intrinsics and where it stands).

A table is drawn once per series seed and kept for every frame of the series, as at a
real table: one copy of the board, one lamp, one camera on its stand. So the calibration
photos of ``kind="calibration"`` and ``kind="board"`` share the camera and the light of
the play frames of the same seed, and a benchmark makes its calibration files the way a
user would. The camera stands by one of the board's long sides (the long board lies
across the 16:9 frame), looking down at it tilted by up to 40 degrees, turned a little;
in some set-ups it stands anywhere around the board. Its distance makes the board (frame
and markers included) fill much of the frame, all of it in view.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from calibration.sheet import Sheet
from vision.render.board import BoardLook, board_outline_mm, board_texture, random_board_look
from vision.render.camera import Intrinsics, Pose, fit_distance, random_webcam
from vision.render.light import Lamp, random_lamp
from vision.render.pieces import Material, material
from vision.render.surfaces import TableLook, random_table_look, table_texture
from vision.render.textures import Texture

#: The camera's tilt from straight down (degrees), how much of the frame the board fills
#: (its farthest point's share of the half-frame), and the share of set-ups where the
#: camera stands anywhere around the board rather than by a long side.
TILT_DEG = (0.0, 40.0)
FILL = (0.80, 0.96)
ANY_SIDE = 0.1
ROLL_DEG = 5.0
YAW_DEG = 15.0


@dataclass(frozen=True, eq=False)
class Table:
    """A table set-up (see the module's words). ``board_outline`` is the physical
    board's (left, top, right, bottom) in board mm."""

    game: str
    sheet: Sheet
    board_look: BoardLook
    board: Texture
    table_look: TableLook
    table: Texture
    table_angle: float
    intrinsics: Intrinsics
    pose: Pose
    lamp: Lamp
    materials: dict[str, Material]
    board_outline: tuple[float, float, float, float]

    def centre(self) -> np.ndarray:
        """The grid's centre on the board plane (world mm)."""
        grid = self.sheet.grid
        return np.array([grid.width_mm / 2, grid.height_mm / 2, 0.0])

    def outline_points(self) -> np.ndarray:
        """The board's corners and the tops of pieces there, (8, 3) world mm: all of it
        must be in view."""
        left, top, right, bottom = self.board_outline
        flat = np.array([[left, top, 0], [right, top, 0], [right, bottom, 0], [left, bottom, 0]])
        raised = flat.copy()
        raised[:, 2] = -15.0
        return np.vstack([flat, raised]).astype(np.float64)

    def to_json(self) -> dict:
        return {
            "board": self.board_look.to_json(),
            "board_outline_mm": [round(v, 3) for v in self.board_outline],
            "table": self.table_look.to_json(),
            "lamp": self.lamp.to_json(),
            "pieces": {
                colour: {
                    "albedo_bgr": [round(v, 4) for v in m.albedo],
                    "specular": round(m.specular, 3),
                }
                for colour, m in self.materials.items()
            },
        }


def random_pose(
    rng: np.random.Generator,
    intrinsics: Intrinsics,
    outline: np.ndarray,
    centre: np.ndarray,
    board_size: tuple[float, float],
) -> Pose:
    """A camera pose looking at the board (see the module's words)."""
    tilt = math.radians(rng.uniform(*TILT_DEG))
    if rng.random() < ANY_SIDE:
        azimuth = rng.uniform(0, 2 * math.pi)
    else:
        # The board's long axis across the frame: stand by a long side.
        long_is_y = board_size[1] >= board_size[0]
        side = 0.0 if long_is_y else math.pi / 2
        side += math.pi if rng.random() < 0.5 else 0.0
        azimuth = side + math.radians(rng.uniform(-YAW_DEG, YAW_DEG))
    roll = math.radians(rng.uniform(-ROLL_DEG, ROLL_DEG))
    target = centre + np.array([*(rng.normal(0, 0.03, 2) * board_size), 0.0])
    fill = rng.uniform(*FILL)
    return fit_distance(intrinsics, outline, target, azimuth, tilt, roll, fill)


def make_table(game: str, sheet: Sheet, rng: np.random.Generator) -> Table:
    """A table set-up for ``game`` with the board of ``sheet``, drawn from ``rng``."""
    look_rng, texture_rng, table_rng, camera_rng, lamp_rng, piece_rng = rng.spawn(6)
    board_look = random_board_look(look_rng)
    board = board_texture(sheet, board_look, texture_rng)
    table_look = random_table_look(table_rng)
    table = table_texture(table_look, table_rng)
    outline = board_outline_mm(sheet, board_look)
    size = (outline[2] - outline[0], outline[3] - outline[1])
    grid = sheet.grid
    centre = np.array([grid.width_mm / 2, grid.height_mm / 2, 0.0])
    intrinsics = random_webcam(camera_rng)
    lamp = random_lamp(lamp_rng, centre, size)
    materials = {"white": material("white", piece_rng), "black": material("black", piece_rng)}
    partial = Table(
        game,
        sheet,
        board_look,
        board,
        table_look,
        table,
        float(table_rng.uniform(0, 2 * math.pi)),
        intrinsics,
        Pose(np.eye(3), np.zeros(3)),
        lamp,
        materials,
        outline,
    )
    pose = random_pose(camera_rng, intrinsics, partial.outline_points(), centre, size)
    return Table(
        game,
        sheet,
        board_look,
        board,
        table_look,
        table,
        partial.table_angle,
        intrinsics,
        pose,
        lamp,
        materials,
        outline,
    )
