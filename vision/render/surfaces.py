"""The other surfaces in the camera's view: the table top under the board, and the
calibration card with its printed chessboard.

The table is wood (planks, flat-sawn grain swaying along them, the gaps between) or
cloth (a fine weave, soft folds), a square of it wider than the camera can see at any
tilt. The card is white paper with a chessboard of 25 mm squares, drawn by exact area
sampling so that its corners are where the calibration expects them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vision.render.textures import (
    INK,
    Texture,
    area_sample,
    bgr,
    blend,
    encode,
    fractal_noise,
    stretched_noise,
)

#: Table tops (linear RGB reflectances): woods and cloths.
WOODS = ((0.42, 0.25, 0.12), (0.30, 0.17, 0.08), (0.55, 0.38, 0.22), (0.22, 0.13, 0.07))
CLOTHS = ((0.05, 0.20, 0.09), (0.16, 0.16, 0.17), (0.05, 0.09, 0.22), (0.30, 0.06, 0.05))


@dataclass(frozen=True)
class TableLook:
    """The table top under the board: ``wood`` (planks with grain) or ``cloth``, and
    its colour (linear RGB)."""

    surface: str
    colour: tuple[float, float, float]

    def to_json(self) -> dict:
        return {"surface": self.surface, "colour": [round(v, 4) for v in self.colour]}


def random_table_look(rng: np.random.Generator) -> TableLook:
    wood = bool(rng.random() < 0.65)
    palette = WOODS if wood else CLOTHS
    base = np.asarray(palette[rng.integers(len(palette))]) * rng.uniform(0.8, 1.2)
    return TableLook("wood" if wood else "cloth", tuple(float(v) for v in np.clip(base, 0, 1)))


def table_texture(
    look: TableLook, rng: np.random.Generator, extent_mm: float = 2400.0, px_per_mm: float = 0.75
) -> Texture:
    """A square of table top ``extent_mm`` wide, centred on its own origin; wood runs
    along the texture's x (the plane turns it)."""
    n = math.ceil(extent_mm * px_per_mm)
    s = px_per_mm
    base = encode(bgr(look.colour))
    if look.surface == "wood":
        plank_mm = rng.uniform(90, 180)
        y = (np.arange(n, dtype=np.float32) / s)[:, None]
        plank = np.floor(y / plank_mm).astype(np.int32)
        count = int(plank.max()) + 2
        shade = (1.0 + rng.normal(0, 0.07, count)).astype(np.float32)[plank]
        offset = rng.uniform(0, 200, count).astype(np.float32)[plank]
        # Flat-sawn grain: fine lines along the plank, swaying slowly along it.
        period = rng.uniform(2.5, 5.0)
        sway = 5.0 * stretched_noise(rng, (n, n), 250 * s, 40 * s)
        sway += 1.5 * stretched_noise(rng, (n, n), 60 * s, 8 * s)
        phase = (y + offset + sway) * (2 * math.pi / period)
        grain = np.sin(phase) * (0.5 + 0.5 * stretched_noise(rng, (n, n), 120 * s, 12 * s))
        fibres = stretched_noise(rng, (n, n), 40 * s, 1.2 * s)
        value = shade * (
            1.0
            + 0.07 * grain
            + 0.05 * fibres
            + 0.05 * stretched_noise(rng, (n, n), 400 * s, 60 * s)
        )
        gap = np.abs(((y + 0.75) % plank_mm) - 0.75) < 0.9
        value = np.where(gap, value * 0.5, value)
    else:
        # A fine weave (threads both ways), and soft folds.
        weave = stretched_noise(rng, (n, n), 6 * s, 0.8 * s) + stretched_noise(
            rng, (n, n), 0.8 * s, 6 * s
        )
        value = 1.0 + 0.04 * weave + 0.035 * fractal_noise(rng, (n, n), 200 * s, 2)
    image = value[..., None] * base
    half = n / (2 * s)
    return Texture(np.clip(image, 0, 255).astype(np.uint8), (-half, -half), s)


def chessboard_texture(
    columns: int,
    rows: int,
    square_mm: float,
    margin_mm: float,
    paper: float,
    rng: np.random.Generator,
    px_per_mm: float = 4.0,
) -> Texture:
    """A printed chessboard of ``columns`` x ``rows`` *inner corners* (one more square
    each way) on a white card with ``margin_mm`` around it; the card's origin (0, 0) mm
    is the first inner corner, as ``ChessboardPattern.object_points`` counts."""
    sq_x, sq_y = columns + 1, rows + 1
    left, top = -square_mm - margin_mm, -square_mm - margin_mm
    width = sq_x * square_mm + 2 * margin_mm
    height = sq_y * square_mm + 2 * margin_mm
    s = px_per_mm
    w, h = math.ceil(width * s), math.ceil(height * s)
    image = np.empty((h, w, 3), np.float32)
    image[:] = encode(np.full(3, paper, np.float32))
    image *= (1.0 + 0.01 * rng.standard_normal((h, w)).astype(np.float32))[..., None]
    black = ((np.arange(sq_y)[:, None] + np.arange(sq_x)[None, :]) % 2 == 0) * 1.0
    cell = (square_mm, square_mm)
    ink, _ = area_sample(black, -square_mm, -square_mm, cell, (left, top, s, w, h))
    blend(image, encode(np.full(3, INK, np.float32)), ink)
    return Texture(np.clip(image, 0, 255).astype(np.uint8), (left, top), s)
