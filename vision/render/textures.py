"""The renderer's flat pictures and how they are drawn: textures in millimetres,
gamma-encoded albedo, smooth noise, and exact area sampling.

A texture is drawn once per table set-up (``vision.render.table``) in a plane's own
millimetres at a fixed resolution, then warped into every frame by its plane's
homography. Colours are albedos, gamma-encoded as 8-bit BGR (what the surface would look
like under an even, neutral light of unit strength); the lamp, the colour temperature and
the exposure multiply them later (``vision.render.light``), which is exact in gamma
space because a power law commutes with multiplication.

Where a straight edge matters to the registration or the camera's calibration (a
marker's black square, its white quiet zone, the chessboard's squares), it is drawn by
exact area sampling: a pixel takes the share of its area each module covers, computed
separably, so the edge lands at its true sub-pixel place in the texture and in every
frame warped from it.

A texture pixel ``i`` covers ``[origin + i / s, origin + (i + 1) / s)`` millimetres
(``s`` px per mm); ``Texture.mm_to_px`` is that as a 3x3 matrix with OpenCV's pixel
centres at whole numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

GAMMA = 2.2
#: Paper white (a printed marker sheet, a calibration card) and printer black, as
#: reflectances: a camera exposes paper below clipping, so the quiet zone is never 255.
PAPER = (0.80, 0.90)
INK = 0.035


def encode(linear: np.ndarray | float) -> np.ndarray:
    """Linear reflectance (0-1) -> gamma-encoded 0-255 (float)."""
    return 255.0 * np.clip(np.asarray(linear, np.float32), 0.0, 1.0) ** (1.0 / GAMMA)


def bgr(rgb: tuple[float, float, float] | np.ndarray) -> np.ndarray:
    """An (R, G, B) reflectance as a BGR float32 array."""
    return np.asarray(rgb, np.float32)[::-1].copy()


@dataclass(frozen=True, eq=False)
class Texture:
    """A picture of a plane: ``image`` (uint8 BGR, gamma-encoded albedo) at ``px_per_mm``,
    its pixel 0 starting at ``origin_mm`` (x, y) of the plane's own millimetres."""

    image: np.ndarray
    origin_mm: tuple[float, float]
    px_per_mm: float

    def mm_to_px(self) -> np.ndarray:
        """Plane mm -> texture px (OpenCV's pixel centres at whole numbers), 3x3."""
        s = self.px_per_mm
        x0, y0 = self.origin_mm
        return np.array([[s, 0, -s * x0 - 0.5], [0, s, -s * y0 - 0.5], [0, 0, 1]], np.float64)


# -- noise --------------------------------------------------------------------------------


def smooth_noise(rng: np.random.Generator, shape: tuple[int, int], cell_px: float) -> np.ndarray:
    """Smooth random values (about zero mean, unit spread) varying over ``cell_px``
    pixels: a coarse random grid enlarged with cubic interpolation."""
    h, w = shape
    gh, gw = max(2, math.ceil(h / cell_px) + 2), max(2, math.ceil(w / cell_px) + 2)
    coarse = rng.standard_normal((gh, gw)).astype(np.float32)
    big = cv2.resize(
        coarse, (round(gw * cell_px), round(gh * cell_px)), interpolation=cv2.INTER_CUBIC
    )
    return np.ascontiguousarray(big[:h, :w])


def fractal_noise(
    rng: np.random.Generator, shape: tuple[int, int], cell_px: float, octaves: int = 3
) -> np.ndarray:
    """Noise over several scales from ``cell_px`` down, each half the last's strength."""
    total = np.zeros(shape, np.float32)
    weight, norm = 1.0, 0.0
    for _ in range(octaves):
        total += weight * smooth_noise(rng, shape, max(1.0, cell_px))
        norm += weight * weight
        weight *= 0.5
        cell_px /= 2.5
    return total / math.sqrt(norm)


# -- exact area sampling ------------------------------------------------------------------


def coverage(start_mm: float, step_mm: float, count: int, origin: float, s: float, n: int):
    """How much of each of ``n`` pixels (pixel i covering ``origin + i/s`` to ``+ 1/s``
    mm) each of ``count`` intervals ``start + k*step`` to ``+ step`` covers: (n, count)."""
    pixel = origin + np.arange(n + 1, dtype=np.float64) / s
    edges = start_mm + np.arange(count + 1, dtype=np.float64) * step_mm
    lo = np.maximum(pixel[:-1, None], edges[None, :-1])
    hi = np.minimum(pixel[1:, None], edges[None, 1:])
    return (np.clip(hi - lo, 0.0, None) * s).astype(np.float32)


def area_sample(
    values: np.ndarray, x0_mm: float, y0_mm: float, cell_mm: tuple[float, float], window: tuple
) -> tuple[np.ndarray, np.ndarray]:
    """A grid of ``values`` (rows, columns; 0-1 for bits) whose top-left is at (x0, y0) mm
    with cells of ``cell_mm`` (width, height), area-sampled onto a texture window
    ``(origin_x_mm, origin_y_mm, s, width_px, height_px)``: (the area-weighted value, the
    share each pixel the grid covers), each (height, width) float32."""
    ox, oy, s, w, h = window
    cx = coverage(x0_mm, cell_mm[0], values.shape[1], ox, s, w)
    cy = coverage(y0_mm, cell_mm[1], values.shape[0], oy, s, h)
    on = cy @ values.astype(np.float32) @ cx.T
    covered = np.outer(cy.sum(1), cx.sum(1))
    return on, covered


def blend(region: np.ndarray, colour: np.ndarray, share: np.ndarray) -> None:
    """Blend ``colour`` (BGR 0-255) into ``region`` (float32) by ``share`` (0-1)."""
    region *= 1.0 - share[..., None]
    region += share[..., None] * colour


def stretched_noise(
    rng: np.random.Generator, shape: tuple[int, int], cell_x: float, cell_y: float
) -> np.ndarray:
    """Smooth noise varying over ``cell_x`` px across and ``cell_y`` px down (grain)."""
    h, w = shape
    gh, gw = max(2, math.ceil(h / cell_y) + 2), max(2, math.ceil(w / cell_x) + 2)
    coarse = rng.standard_normal((gh, gw)).astype(np.float32)
    big = cv2.resize(
        coarse, (round(gw * cell_x), round(gh * cell_y)), interpolation=cv2.INTER_CUBIC
    )
    return np.ascontiguousarray(big[:h, :w])
