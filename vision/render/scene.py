"""What stands in front of the camera, in world millimetres: textured planes (the table,
the board, a calibration card) and the pieces placed on their squares.

A square's place comes from the marker sheet (``calibration.board_plane.cell_centres``
names the geometry: board mm, the grid's top-left at the origin, White's edge at the
bottom), so the renderer and the readers agree on where every square is by
construction. Players do not set pieces down exactly: each piece stands a little off its
square's centre and turned a little from the way its owner would face it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from calibration.sheet import Sheet
from rules.grid import Square
from vision.render.pieces import Material, Mesh, material, mesh
from vision.render.textures import Texture

#: How far off centre a piece is set (mm, spread and limit) and how far it is turned
#: from facing straight ahead (degrees, spread).
OFFSET_MM = (1.4, 4.0)
TURN_DEG = 12.0
#: Pieces of one set differ in size by about this share.
SIZE_SPREAD = 0.015


@dataclass(frozen=True, eq=False)
class Plane:
    """A flat textured surface: texture mm (u, v) lie at ``origin + u * x_axis + v *
    y_axis`` in the world. An ``opaque`` plane fills everything it covers; a plane
    whose texture ends (the board, the card) only covers its texture."""

    texture: Texture
    origin: np.ndarray
    x_axis: np.ndarray
    y_axis: np.ndarray
    opaque: bool = False

    @classmethod
    def on_table(cls, texture: Texture, *, angle: float = 0.0, centre=(0.0, 0.0), opaque=False):
        """A plane lying on the board plane, turned by ``angle`` radians about
        ``centre`` (world mm)."""
        c, s = math.cos(angle), math.sin(angle)
        return cls(
            texture,
            np.array([centre[0], centre[1], 0.0]),
            np.array([c, s, 0.0]),
            np.array([-s, c, 0.0]),
            opaque,
        )

    def normal(self) -> np.ndarray:
        n = np.cross(self.x_axis, self.y_axis)
        return n / np.linalg.norm(n)


@dataclass(frozen=True, eq=False)
class PlacedPiece:
    """One piece on the board: which ``square`` (a name such as ``c8``), its colour and
    kind, where it stands (world mm), how it is turned (radians about the vertical) and
    its size against the set's (``scale``), its shape and its material."""

    square: str
    colour: str
    kind: str
    centre: np.ndarray
    angle: float
    scale: float
    shape: Mesh
    material: Material

    def turn(self) -> np.ndarray:
        c, s = math.cos(self.angle), math.sin(self.angle)
        return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])

    def transform(self, points: np.ndarray) -> np.ndarray:
        """Piece-frame points (N, 3) -> world."""
        return (points @ self.turn().T) * self.scale + self.centre

    def height_mm(self) -> float:
        return self.shape.height_mm * self.scale


def square_centre(sheet: Sheet, name: str) -> np.ndarray:
    """A square's centre in board mm (x, y), by the sheet's geometry."""
    square = Square.parse(name)
    grid = sheet.grid
    if not (0 <= square.col < grid.columns and 0 <= square.row < grid.rows):
        raise ValueError(f"{name!r} is not a square of the {grid.columns} x {grid.rows} board")
    return np.array(
        [
            (square.col + 0.5) * grid.cell_width_mm,
            (grid.rows - square.row - 0.5) * grid.cell_height_mm,
        ]
    )


def place_pieces(
    position: Mapping[str, str],
    sheet: Sheet,
    rng: np.random.Generator,
    materials: Mapping[str, Material] | None = None,
) -> list[PlacedPiece]:
    """The pieces of ``position`` (``{"c8": "white falcon", ...}``) set on their
    squares, each a little off centre and turned. ``materials`` by colour; by default a
    set's material is drawn from ``rng`` first."""
    if materials is None:
        materials = {"white": material("white", rng), "black": material("black", rng)}
    placed = []
    for name in sorted(position, key=_square_order):
        colour, kind = _piece_words(position[name], name)
        x, y = square_centre(sheet, name)
        spread, limit = OFFSET_MM
        dx, dy = np.clip(rng.normal(0, spread, 2), -limit, limit)
        # White sits at the bottom (y large) and faces up the board; Black faces down.
        ahead = -math.pi / 2 if colour == "white" else math.pi / 2
        angle = ahead + math.radians(rng.normal(0, TURN_DEG))
        if kind == "falcon":
            angle = rng.uniform(0, 2 * math.pi)  # round: its turn shows nowhere
        scale = 1.0 + rng.normal(0, SIZE_SPREAD)
        placed.append(
            PlacedPiece(
                name,
                colour,
                kind,
                np.array([x + dx, y + dy, 0.0]),
                angle,
                scale,
                mesh(kind),
                materials[colour],
            )
        )
    return placed


def _square_order(name: str) -> tuple[int, int]:
    square = Square.parse(name)
    return square.row, square.col


def _piece_words(text: str, square: str) -> tuple[str, str]:
    words = text.split()
    if len(words) != 2 or words[0] not in ("white", "black"):
        raise ValueError(f"{square}: expected a piece such as 'white falcon' (got {text!r})")
    return words[0], words[1]
