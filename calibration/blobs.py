"""A piece as the square-on board shows it: the blob of pixels unlike the empty board
around its square, and that blob's shape described so that turning does not matter.

One path for both uses: a profile learns each kind's look from the reference set-up
through these functions (``calibration.profiles.learn``), and a reader compares what it
sees through the same ones (``vision.readers``), so the two cannot drift apart.

A tall piece seen from the side leans out of its square (its top lands beyond its base,
away from the camera), so its blob is looked for over a window two squares wide, and
only the part joined to the square's middle counts: a neighbour's blob stays the
neighbour's, and a leaning falcon is not cut off at its square's edge.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.medians import median

#: ``blob_features``' names, and the spread of each that counts as one unit of difference
#: (set from the features' spread within a kind over rendered pieces, so that each
#: weighs about alike; other weightings measured no better).
#: ``area`` is in hundreds of square millimetres, so it does not depend on the scale.
SHAPE_FEATURES = ("area", "circle_fill", "triangle_fill", "elongation", "solidity")
SHAPE_SCALES = (0.3, 0.05, 0.05, 0.15, 0.05)


@dataclass(frozen=True)
class BlobSettings:
    """``window_cells``: the window's side, in squares, centred on the square.
    ``core_mm``: how near the square's middle a blob must come to be its piece's."""

    window_cells: float = 2.0
    core_mm: float = 5.0


@dataclass(frozen=True)
class Blob:
    """A piece's pixels: ``mask`` (bool) in the window whose top-left picture px is
    ``origin``; ``colour`` their Lab mean; ``features`` their shape (``SHAPE_FEATURES``)."""

    mask: np.ndarray
    origin: tuple[int, int]
    colour: np.ndarray
    features: np.ndarray

    def coloured(self, colour: np.ndarray) -> Blob:
        """The blob with its Lab mean ``colour`` (as another light shows it): what
        ``dataclasses.replace`` gives, at a fraction of its cost (a reader relights
        every piece's blob once or twice a frame)."""
        return Blob(self.mask, self.origin, colour, self.features)


def empty_picture(
    shape: tuple[int, int], whole: np.ndarray, cells, empty: np.ndarray, outside: np.ndarray
) -> np.ndarray:
    """The square-on picture (``shape`` rows, columns) as the empty board would look:
    each square's box (``whole``, from ``cell_boxes`` without inset) filled with its
    expected Lab colour (``empty``, one row per cell of ``cells``); ``outside`` (the
    board's frame) elsewhere."""
    colours = np.asarray(empty, np.float32)
    grid = _regular_grid(whole, tuple(cells))
    rows, columns = shape
    if grid is not None:  # squares of one size side by side: one resize, no lookup
        (x0, y0, width, height), order = grid
        if min(x0, y0) >= 0 and x0 + width <= columns and y0 + height <= rows:
            squares = colours[order].reshape(*whole.shape[:2], 3)
            picture = np.empty((rows, columns, 3), np.float32)
            frame = np.asarray(outside, np.float32)
            picture[:y0] = picture[y0 + height :] = frame
            picture[y0 : y0 + height, :x0] = picture[y0 : y0 + height, x0 + width :] = frame
            # Resized straight into the picture: a resized copy put in a border cost over
            # ten times as much, timed alone (two new pictures, each written whole).
            inside = picture[y0 : y0 + height, x0 : x0 + width]
            done = cv2.resize(squares, (width, height), dst=inside,
                              interpolation=cv2.INTER_NEAREST)  # fmt: skip
            if not np.shares_memory(done, inside):  # OpenCV made its own: copied in
                inside[...] = done
            return picture
    index = _cell_index(shape, whole.tobytes(), whole.shape, tuple(cells))
    return np.vstack([colours, np.asarray(outside, np.float32)[None]])[index]


def _regular_grid(whole: np.ndarray, cells: tuple) -> tuple | None:
    """The grid's box (x0, y0, width, height) in px and, per grid position row-major,
    the index in ``cells`` of its square, when every square is as wide and as high as
    every other and they tile the box; else None. The same for every frame of a board."""
    return _regular_grid_of(whole.tobytes(), whole.shape, str(whole.dtype), cells)


@functools.lru_cache(maxsize=16)
def _regular_grid_of(data: bytes, shape: tuple, dtype: str, cells: tuple) -> tuple | None:
    whole = np.frombuffer(data, dtype).reshape(shape)
    rows, cols = whole.shape[:2]
    if len(cells) != rows * cols:
        return None
    widths = whole[..., 2] - whole[..., 0]
    heights = whole[..., 3] - whole[..., 1]
    w, h = int(widths.flat[0]), int(heights.flat[0])
    x0, y0 = int(whole[0, 0, 0]), int(whole[0, 0, 1])
    if (
        np.any(widths != w)
        or np.any(heights != h)
        or np.any(whole[..., 0] != x0 + w * np.arange(cols)[None, :])
        or np.any(whole[..., 1] != y0 + h * np.arange(rows)[:, None])
    ):
        return None
    order = np.empty(rows * cols, np.int64)
    for k, (row, col) in enumerate(cells):
        order[row * cols + col] = k
    order.setflags(write=False)
    return (x0, y0, w * cols, h * rows), order


@functools.lru_cache(maxsize=8)
def _cell_index(shape, whole_bytes: bytes, whole_shape, cells) -> np.ndarray:
    """Per pixel of the picture, the index in ``cells`` of the square it shows (one past
    the last outside every square): the same for every frame of a board."""
    whole = np.frombuffer(whole_bytes, np.int64).reshape(whole_shape)
    index = np.full(shape, len(cells), np.int32)
    for k, (row, col) in enumerate(cells):
        x0, y0, x1, y1 = (int(v) for v in whole[row, col])
        index[y0:y1, x0:x1] = k
    index.setflags(write=False)
    return index


def difference(lab: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """CIE76 Delta E of every pixel from the empty board's (``empty_picture``)."""
    apart = cv2.subtract(lab, empty)
    cv2.multiply(apart, apart, dst=apart)  # in place: a new picture a step cost a third more
    squared = cv2.transform(apart, _SUM_OF_CHANNELS)
    return cv2.sqrt(squared, dst=squared)


#: ``cv2.transform``'s matrix that adds a picture's three channels.
_SUM_OF_CHANNELS = np.ones((1, 3), np.float32)
_SUM_OF_CHANNELS.setflags(write=False)


def shaded(
    lab: np.ndarray,
    whole: np.ndarray,
    cells,
    empty: np.ndarray,
    inset_px: float,
    shade_range: tuple[float, float],
) -> np.ndarray:
    """The empty colours with each square's lightness scaled as its edge band (the part
    of the square outside the inset, which pieces seldom cover) is lit now: a shadow (an
    arm's, the lamp's) darkens a whole square, its edge included; a piece only its
    middle. The ratio is kept within ``shade_range``. A square lit more weakly is also
    less colourful: CIE L* + 16, a* and b* all grow as the cube root of the light, so a*
    and b* are scaled as L* + 16 is. (Kept as they were, a golden square in an arm's
    shadow, half as light and half as colourful, differed from its empty self by more
    than a piece does. On rendered frames of seeds 601-1000, throwaway script: 35 empty
    squares read as pieces before, 12 after, and 78 squares misread in all before, 56
    after; on seeds 101-600, 55 before and 57 after. Scaling a* and b* as L* itself is
    scaled did worse on 601-1000: 67.)"""
    band = max(1, int(inset_px))
    adjusted = empty.copy()
    low, high = shade_range
    grid = _regular_grid(whole, tuple(cells))
    if grid is not None:  # every square's edge band at once
        (x0, y0, width, height), order = grid
        rows, cols = whole.shape[:2]
        h, w = height // rows, width // cols
        blocks = lab[y0 : y0 + height, x0 : x0 + width, 0].reshape(rows, h, cols, w)
        ring = np.ones((h, w), bool)
        ring[band:-band, band:-band] = False
        per_square = blocks.transpose(0, 2, 1, 3)[:, :, ring].reshape(rows * cols, -1)
        medians = np.empty(len(cells))
        medians[order] = median(per_square, axis=1)
    else:
        medians = np.array([
            median(_ring(lab[y0:y1, x0:x1, 0], band))
            for x0, y0, x1, y1 in (whole[row, col].astype(int) for row, col in cells)
        ])  # fmt: skip
    ratios = medians / np.maximum(empty[:, 0], 1.0)
    adjusted[:, 0] = empty[:, 0] * np.clip(ratios, low, high)
    adjusted[:, 1:] *= ((adjusted[:, 0] + 16.0) / (empty[:, 0] + 16.0))[:, None]
    return adjusted


@functools.lru_cache(maxsize=8)
def _neighbours(n: int) -> tuple[np.ndarray, np.ndarray]:
    """For each of ``n`` places in a row, the next's index and the last's, each the
    place itself past the row's ends."""
    at = np.arange(n)
    after, before = np.minimum(at + 1, n - 1), np.maximum(at - 1, 0)
    after.setflags(write=False)
    before.setflags(write=False)
    return after, before


def shaded_picture(
    lab: np.ndarray,
    whole: np.ndarray,
    cells,
    empty: np.ndarray,
    inset_px: float,
    shade_range: tuple[float, float],
    outside: np.ndarray,
    carried: float | None,
    least: float = 0.05,
) -> np.ndarray:
    """The square-on picture of the empty board (``empty_picture``) as lit now: each
    square's lightness follows its edge band (``shaded``) and, where the edge of a
    shadow crosses a square (an arm's, a hand's), changes across it as a plane through
    the band's eight half-sides' lightness (each half-side's median). A lit half of a
    square then no longer looks like a white piece against the shadowed half's level,
    nor a shadowed half like a black one.

    A piece's own shadow, or a neighbour's, falls on its square's edge band too, but goes
    no further; a hand's runs on across the board. So a square's change of light along a
    row (or a file) is taken only where the squares either side of it differ the same way
    (their own edge bands' levels), by at least ``carried`` times as much; else its
    light is one level, as ``shaded`` has it; so too where it changes by less than
    ``least`` of its level (no shadow's edge, and drawing it costs time). None: one level
    every square. Only on a regular grid (``cell_boxes`` of a board); otherwise every
    square has one level. Set on rendered frames (a throwaway script, the benchmark's
    frames of seeds 1-1000 with a hand and a misread square, 22, and 80 others): 29
    squares misread before; a plane wherever the band changes, 21 (14 put right, 6 newly
    misread: a piece's shadow tilting its square); carried on by half the change, 20; a
    quarter, 18; any amount the same way, 15, and none newly misread. Asking the
    neighbours also to differ by at least ``least`` of the level (to keep chance
    differences out) put back 3 (18, with the sharpening in place): not asked."""
    levels = shaded(lab, whole, cells, empty, inset_px, shade_range)
    picture = empty_picture(lab.shape[:2], whole, cells, levels, outside)
    grid = _regular_grid(whole, tuple(cells))
    if grid is None or carried is None:
        return picture
    (x0, y0, width, height), order = grid
    rows, cols = whole.shape[:2]
    h, w = height // rows, width // cols
    band = max(1, int(inset_px))
    inside = min(x0, y0) >= 0 and y0 + height <= lab.shape[0] and x0 + width <= lab.shape[1]
    if not inside or min(h, w) < 2 * band + 4:
        return picture
    was = empty[order, 0].reshape(rows, cols).astype(np.float32)
    light = lab[y0 : y0 + height, x0 : x0 + width, 0].reshape(rows, h, cols, w)
    ys, xs, parts, at_x, at_y = _plane_axes(h, w, band)
    across, down = parts[:4], parts[4:]  # each four go through one median
    medians = np.concatenate([
        median(np.stack([light[:, py, :, px].transpose(0, 2, 1, 3).reshape(rows, cols, -1)
                            for py, px in group], axis=2), axis=3)
        for group in (across, down)], axis=2)  # fmt: skip
    medians /= np.maximum(was, 1.0)[:, :, None]
    # The least-squares plane's slopes (the half-sides lie symmetrically about the middle).
    slope_x = (medians * at_x).sum(axis=2) / (at_x * at_x).sum()
    slope_y = (medians * at_y).sum(axis=2) / (at_y * at_y).sum()
    level = (levels[order, 0] / np.maximum(empty[order, 0], 1.0)).reshape(rows, cols)
    # The next square's level less the last's; past the board's edge, the square itself
    # (the edge-padded grid's, without ``np.pad``'s cost: it was a tenth of this step).
    after_x, before_x = _neighbours(cols)
    after_y, before_y = _neighbours(rows)
    beside_x = level[:, after_x] - level[:, before_x]
    beside_y = level[after_y] - level[before_y]
    across_x, across_y = slope_x * (w - band), slope_y * (h - band)
    enough = least * level
    slope_x = np.where((np.sign(beside_x) == np.sign(across_x)) & (np.abs(across_x) >= enough)
                       & (np.abs(beside_x) >= carried * np.abs(across_x)),
                       slope_x, 0.0)  # fmt: skip
    slope_y = np.where((np.sign(beside_y) == np.sign(across_y)) & (np.abs(across_y) >= enough)
                       & (np.abs(beside_y) >= carried * np.abs(across_y)),
                       slope_y, 0.0)  # fmt: skip
    low, high = shade_range
    rising = np.nonzero((slope_x != 0) | (slope_y != 0))
    if not len(rising[0]):
        return picture
    # Every such square's plane at once (a loop a square cost about 1 ms a frame).
    rs, cs = rising
    field = np.clip(level[rs, cs, None, None] + slope_x[rs, cs, None, None] * xs
                    + slope_y[rs, cs, None, None] * ys, low, high)  # fmt: skip
    lightness = was[rs, cs, None, None] * field
    scale = (lightness + 16.0) / (was[rs, cs, None, None] + 16.0)
    colours = empty[order].reshape(rows, cols, 3)
    blocks = picture[y0 : y0 + height, x0 : x0 + width].reshape(rows, h, cols, w, 3)
    blocks = blocks.transpose(0, 2, 1, 3, 4)  # a view: (rows, cols, h, w, 3)
    blocks[rs, cs] = np.stack([lightness,
                               colours[rs, cs, 1, None, None] * scale,
                               colours[rs, cs, 2, None, None] * scale], axis=-1)  # fmt: skip
    return picture


@functools.lru_cache(maxsize=8)
def _plane_axes(h: int, w: int, band: int):
    """A square's pixels' offsets from its middle (rows, columns; (h, w) each), its edge
    band's eight half-sides (top, bottom, left, right; two halves each, the halves of a
    side as long as each other) and their middles: the same for every frame of a board."""
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    ys -= (h - 1) / 2
    xs -= (w - 1) / 2
    hw, hh = w // 2, (h - 2 * band) // 2
    parts = (
        (slice(0, band), slice(0, hw)),
        (slice(0, band), slice(w - hw, w)),
        (slice(h - band, h), slice(0, hw)),
        (slice(h - band, h), slice(w - hw, w)),
        (slice(band, band + hh), slice(0, band)),
        (slice(h - band - hh, h - band), slice(0, band)),
        (slice(band, band + hh), slice(w - band, w)),
        (slice(h - band - hh, h - band), slice(w - band, w)),
    )
    at_x = np.array([xs[py, px].mean() for py, px in parts], np.float32)
    at_y = np.array([ys[py, px].mean() for py, px in parts], np.float32)
    for array in (ys, xs, at_x, at_y):
        array.setflags(write=False)
    return ys, xs, parts, at_x, at_y


def _ring(square: np.ndarray, band: int) -> np.ndarray:
    """The pixels of a square's edge band, ``band`` px wide."""
    return np.concatenate([square[:band].ravel(), square[-band:].ravel(),
                           square[band:-band, :band].ravel(),
                           square[band:-band, -band:].ravel()])  # fmt: skip


def blob_parts(unlike: np.ndarray) -> np.ndarray:
    """The connected parts of ``unlike`` (bool, pixels unlike the empty board), labelled
    (0: none) once a picture, less a pixel or two of noise or a thread to a neighbour,
    which are no part of a piece."""
    opened = cv2.morphologyEx(unlike.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    return cv2.connectedComponents(opened)[1]


def find_blob(
    lab: np.ndarray,
    parts: np.ndarray,
    centre: tuple[float, float],
    cell_px: float,
    px_per_mm: float,
    settings: BlobSettings = BlobSettings(),
) -> Blob | None:
    """The blob of the piece on the square centred at ``centre`` (picture px): the
    parts (``blob_parts``) within the window that reach the square's middle; ``None``
    when none does."""
    half = settings.window_cells * cell_px / 2
    height, width = parts.shape
    x0, y0 = max(round(centre[0] - half), 0), max(round(centre[1] - half), 0)
    x1 = min(round(centre[0] + half), width)
    y1 = min(round(centre[1] + half), height)
    labels = parts[y0:y1, x0:x1]
    core = max(1, round(settings.core_mm * px_per_mm))
    cx, cy = round(centre[0]) - x0, round(centre[1]) - y0
    middle = labels[max(cy - core, 0) : cy + core + 1, max(cx - core, 0) : cx + core + 1]
    # The middle's labels as Python ints: a set of its hundred or so took 1.3 µs where
    # ``np.unique`` took 3.7 (timed alone), and an int compares faster than a numpy scalar.
    ids = sorted(i for i in set(middle.ravel().tolist()) if i > 0)
    if not ids:
        return None
    mask = labels == ids[0] if len(ids) == 1 else np.isin(labels, ids)
    # OpenCV's masked mean: a fraction of gathering the pixels first.
    colour = np.array(cv2.mean(lab[y0:y1, x0:x1], mask.view(np.uint8))[:3], np.float32)
    return Blob(mask, (x0, y0), colour, blob_features(mask, px_per_mm))


def blob_features(mask: np.ndarray, px_per_mm: float) -> np.ndarray:
    """A blob's outline described without regard to how it is turned: its area, how
    much of its smallest enclosing circle and triangle it fills (a disc fills the circle,
    a triangle the triangle), how elongated it is (an oval beetle), and how much of its
    convex hull it fills (a beetle's legs leave gaps)."""
    contours, _ = cv2.findContours(mask.view(np.uint8), cv2.RETR_EXTERNAL,
                                   cv2.CHAIN_APPROX_SIMPLE)  # fmt: skip
    if not contours:
        return np.zeros(len(SHAPE_FEATURES), np.float32)
    outline = max(contours, key=cv2.contourArea)
    area = max(cv2.contourArea(outline), 1.0)
    radius = cv2.minEnclosingCircle(outline)[1]
    triangle = cv2.minEnclosingTriangle(outline)[0]
    width, height = cv2.minAreaRect(outline)[1]
    hull = cv2.contourArea(cv2.convexHull(outline))
    return np.array([
        area / (px_per_mm * px_per_mm) / 100.0,
        area / max(math.pi * radius * radius, 1.0),
        area / max(triangle, 1.0),
        max(width, height) / max(min(width, height), 1.0),
        area / max(hull, 1.0),
    ], np.float32)  # fmt: skip


def shape_distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """How far shape features ``a`` are from ``b`` (either may be a stack of rows), in
    units of ``SHAPE_SCALES``."""
    return (np.abs(np.asarray(a) - np.asarray(b)) / np.asarray(SHAPE_SCALES)).sum(axis=-1)
