"""The board as printed: its squares, its frame, and the markers stuck on it.

A table set-up picks one copy of the board: light and dark squares in plausible printed
colours, varied a little per copy (printing, the card's stock), a frame round the grid
wide enough for the marker sheet's markers, sometimes printed lines between the squares
and a folding board's hinge across the middle, and some wear. The markers are where the
sheet puts them (``calibration.sheet``), each the dictionary's ArUco image on paper with
its white quiet zone, drawn by exact area sampling so their edges are where the
registration expects them. Square a1 (bottom left as the sheet shows the board) is dark.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.sheet import Sheet
from vision.render.textures import (
    INK,
    PAPER,
    Texture,
    area_sample,
    bgr,
    blend,
    coverage,
    encode,
    fractal_noise,
)

#: Board colours as linear reflectances (R, G, B): plausible printed board stock. A table
#: set-up picks one of each and varies it a little (printing, wear).
LIGHT_SQUARES = ((0.62, 0.50, 0.30), (0.70, 0.60, 0.42), (0.66, 0.52, 0.34), (0.60, 0.55, 0.45))
DARK_SQUARES = (
    (0.30, 0.12, 0.06),  # terracotta
    (0.19, 0.10, 0.05),  # brown
    (0.33, 0.21, 0.07),  # dark ochre
    (0.07, 0.15, 0.10),  # deep green
    (0.06, 0.09, 0.22),  # lapis
)
FRAMES = ((0.09, 0.05, 0.03), (0.035, 0.035, 0.04), (0.04, 0.05, 0.12), (0.18, 0.04, 0.03))


@dataclass(frozen=True)
class BoardLook:
    """A copy of the board as printed: its colours (linear RGB reflectances) and finish.
    ``border_mm`` is the frame around the sheet's markers; ``fold`` a folding board's
    hinge across the middle; ``lines`` printed lines between the squares; ``wear`` how
    scuffed it is (0-1)."""

    light: tuple[float, float, float]
    dark: tuple[float, float, float]
    frame: tuple[float, float, float]
    paper: float
    border_mm: float
    fold: bool
    lines: bool
    wear: float

    def to_json(self) -> dict:
        return {
            "light": [round(v, 4) for v in self.light],
            "dark": [round(v, 4) for v in self.dark],
            "frame": [round(v, 4) for v in self.frame],
            "paper": round(self.paper, 4),
            "border_mm": round(self.border_mm, 2),
            "fold": self.fold,
            "lines": self.lines,
            "wear": round(self.wear, 3),
        }


def random_board_look(rng: np.random.Generator) -> BoardLook:
    def vary(rgb: tuple[float, float, float], spread: float) -> tuple[float, float, float]:
        level = rng.uniform(1 - spread, 1 + spread)
        return tuple(float(np.clip(v * level * rng.uniform(0.94, 1.06), 0, 1)) for v in rgb)

    return BoardLook(
        light=vary(LIGHT_SQUARES[rng.integers(len(LIGHT_SQUARES))], 0.08),
        dark=vary(DARK_SQUARES[rng.integers(len(DARK_SQUARES))], 0.12),
        frame=vary(FRAMES[rng.integers(len(FRAMES))], 0.15),
        paper=float(rng.uniform(*PAPER)),
        border_mm=float(rng.uniform(4.0, 14.0)),
        fold=bool(rng.random() < 0.7),
        lines=bool(rng.random() < 0.5),
        wear=float(rng.uniform(0.0, 1.0)),
    )


def board_outline_mm(sheet: Sheet, look: BoardLook) -> tuple[float, float, float, float]:
    """The physical board's (left, top, right, bottom) in board mm: the sheet's grid and
    markers with the frame's extra border around them."""
    left, top, right, bottom = sheet.bounds_mm()
    b = look.border_mm
    return left - b, top - b, right + b, bottom + b


def board_texture(
    sheet: Sheet, look: BoardLook, rng: np.random.Generator, px_per_mm: float = 3.0
) -> Texture:
    """The board as printed, its markers stuck on where the sheet places them."""
    left, top, right, bottom = board_outline_mm(sheet, look)
    s = px_per_mm
    w, h = math.ceil((right - left) * s), math.ceil((bottom - top) * s)
    image = np.empty((h, w, 3), np.float32)
    image[:] = encode(bgr(look.frame))

    grid = sheet.grid
    cw, ch = grid.cell_width_mm, grid.cell_height_mm
    light, dark = encode(bgr(look.light)), encode(bgr(look.dark))
    # Squares: a1 (bottom-left as the sheet shows it) is dark, as on a chessboard; each
    # square printed a little differently.
    row = grid.rows - 1 - np.arange(grid.rows)[:, None]  # the picture's top row is the last
    parity = (np.arange(grid.columns)[None, :] + row) % 2  # 1: a light square
    tint = 1.0 + rng.normal(0, 0.025, (grid.rows, grid.columns)).astype(np.float32)
    window = (left, top, s, w, h)
    for value, colour in ((1, light), (0, dark)):
        tinted, _ = area_sample((parity == value) * tint, 0.0, 0.0, (cw, ch), window)
        share, _ = area_sample((parity == value) * 1.0, 0.0, 0.0, (cw, ch), window)
        image *= 1.0 - share[..., None]
        image += tinted[..., None] * colour
    mottle = 1.0 + 0.03 * fractal_noise(rng, (h, w), 40 * s)
    grain = 1.0 + 0.02 * rng.standard_normal((h, w)).astype(np.float32)
    image *= (mottle * grain)[..., None]
    if look.lines:
        line = encode(bgr(tuple(0.5 * np.asarray(look.dark))))
        _grid_lines(image, grid, left, top, s, line)
    if look.fold:
        y = (grid.rows // 2) * ch
        fold = coverage(y - 0.4, 0.8, 1, top, s, h)[:, 0]
        image *= (1.0 - 0.45 * fold)[:, None, None]
    _wear(image, rng, look.wear, s)
    # The board's cut edge, a little darker.
    edge = np.ones((h, w), np.float32)
    rim = max(1, round(1.2 * s))
    edge[:rim, :] = edge[-rim:, :] = edge[:, :rim] = edge[:, -rim:] = 0.6
    image *= edge[..., None]
    for marker in sheet.markers:
        _marker(image, sheet, marker, look, rng, (left, top, s))
    return Texture(np.clip(image, 0, 255).astype(np.uint8), (left, top), s)


def _grid_lines(image, grid, left, top, s, colour) -> None:
    h, w = image.shape[:2]
    thick = 0.5
    share_x = np.zeros(w, np.float32)
    share_y = np.zeros(h, np.float32)
    for j in range(grid.columns + 1):
        share_x += coverage(j * grid.cell_width_mm - thick / 2, thick, 1, left, s, w)[:, 0]
    for i in range(grid.rows + 1):
        share_y += coverage(i * grid.cell_height_mm - thick / 2, thick, 1, top, s, h)[:, 0]
    inside_x = coverage(-thick / 2, grid.width_mm + thick, 1, left, s, w)[:, 0]
    inside_y = coverage(-thick / 2, grid.height_mm + thick, 1, top, s, h)[:, 0]
    share = np.maximum(np.outer(inside_y, share_x), np.outer(share_y, inside_x))
    blend(image, colour, np.clip(share, 0, 1) * 0.8)


def _wear(image: np.ndarray, rng: np.random.Generator, wear: float, s: float) -> None:
    """Scuffs: a few soft lighter, greyer blotches, more of them on a worn board."""
    h, w = image.shape[:2]
    for _ in range(int(rng.poisson(2 + 10 * wear))):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        ax, ay = rng.uniform(3, 25) * s, rng.uniform(1, 6) * s
        x0, x1 = int(max(0, cx - ax - 2)), int(min(w, cx + ax + 2))
        y0, y1 = int(max(0, cy - ax - 2)), int(min(h, cy + ax + 2))
        if x1 <= x0 or y1 <= y0:
            continue
        mask = np.zeros((y1 - y0, x1 - x0), np.float32)
        cv2.ellipse(
            mask,
            (round(cx - x0), round(cy - y0)),
            (round(ax), round(ay)),
            float(rng.uniform(0, 180)),
            0,
            360,
            1.0,
            -1,
            cv2.LINE_AA,
        )
        mask = cv2.GaussianBlur(mask, (0, 0), max(1.0, ay / 2)) * rng.uniform(0.05, 0.25) * wear
        region = image[y0:y1, x0:x1]
        grey = region.mean(axis=2, keepdims=True)
        target = 0.6 * region + 0.4 * grey + 20.0
        region += mask[..., None] * (target - region)


def _marker(image, sheet: Sheet, marker, look: BoardLook, rng, window) -> None:
    """A printed marker: the cut-out square of paper, its black square of modules."""
    left, top, s = window
    h, w = image.shape[:2]
    cut0x, cut0y = marker.centre[0] - marker.cut_mm / 2, marker.centre[1] - marker.cut_mm / 2
    px0 = max(0, math.floor((cut0x - left) * s) - 2)
    py0 = max(0, math.floor((cut0y - top) * s) - 2)
    px1 = min(w, math.ceil((cut0x + marker.cut_mm - left) * s) + 2)
    py1 = min(h, math.ceil((cut0y + marker.cut_mm - top) * s) + 2)
    region = image[py0:py1, px0:px1]
    rw, rh = px1 - px0, py1 - py0
    box = (left + px0 / s, top + py0 / s, s, rw, rh)
    cut = (marker.cut_mm, marker.cut_mm)
    _, paper_share = area_sample(np.ones((1, 1)), cut0x, cut0y, cut, box)
    tint = np.array([rng.uniform(0.97, 1.0), 1.0, rng.uniform(0.98, 1.0)], np.float32)
    paper = encode(look.paper * tint)
    blend(region, paper, paper_share)
    region *= (1.0 + 0.01 * rng.standard_normal((rh, rw)).astype(np.float32))[..., None]
    bits = sheet.aruco_dictionary().markerSize
    code = cv2.aruco.generateImageMarker(
        sheet.aruco_dictionary(), marker.id, bits + 2, borderBits=1
    )
    black = (code < 128).astype(np.float32)
    module = marker.size_mm / (bits + 2)
    x0, y0 = marker.centre[0] - marker.size_mm / 2, marker.centre[1] - marker.size_mm / 2
    ink_share, _ = area_sample(black, x0, y0, (module, module), box)
    blend(region, encode(np.full(3, INK, np.float32)), ink_share)
