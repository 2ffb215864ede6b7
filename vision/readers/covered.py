"""Which squares of a grid board something opaque covers: the grid's steps gone.

A board's neighbouring squares differ (a light square beside a dark one), and that step
in lightness runs along every edge between them. A shadow darkens both sides, so the
step stays, scaled; a piece covers a little of an edge at most. A hand or a sleeve
over the board is one smooth colour across the edges it covers, so the steps there are
gone. The reader relights each square's empty colour by its edge band
(``calibration.blobs.shaded``), and under a hand the edge band is the hand: a square
wholly under a smooth hand then looks like an empty square in shade, which is why this
looks at the edges between squares rather than at a square's own pixels. For the same
reason the steps it compares with are the board's as printed (its squares' colours in
the empty photo), not the board as lit now: relit by their edge bands, both squares of
an edge under a dark hand come out as dark as the hand, and their step is gone there
too.

Measured on the reader benchmark's frames of seeds 1-150 (throwaway scripts; 737 cells
the truth says a hand hides): among the squares the reader read empty, a share of 0.65
or more of a square's edge steps gone (against the board as lit) marked 138 of those
cells, and no visible square. Against the printed steps, on all 1000 frames
(``benchmarks/gimmel_reader.py``), 64.6 % of the 6,086 cells under a hand are reported
unknown (30.0 % against the board as lit), and still no visible cell.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from calibration.sheet import Sheet


@dataclass(frozen=True)
class CoverSettings:
    """``beside_mm``: how far to each side of an edge the lightness is taken (from
    ``gap_mm`` to ``gap_mm + beside_mm``: the edge's own line and blur left out);
    ``end_mm``: how much of each end of an edge is left out (the corners, where four
    squares meet); ``least_step``: an edge whose step on the empty board is smaller
    than this (CIE L*) says nothing; ``kept``: a step is gone where the frame keeps
    less than this share of the empty board's step (or turns it round)."""

    gap_mm: float = 2.0
    beside_mm: float = 3.0
    end_mm: float = 4.0
    least_step: float = 8.0
    kept: float = 0.15


def steps_gone(
    lightness: np.ndarray,
    printed: np.ndarray,
    sheet: Sheet,
    px_per_mm: float,
    margin_mm: float,
    settings: CoverSettings = CoverSettings(),
) -> np.ndarray:
    """Per cell of ``sheet``'s grid, (rows, columns), the share of the steps along its
    edges with its neighbours that are gone in ``lightness`` (the square-on picture's
    L*, at ``px_per_mm`` with ``margin_mm``) against the board as printed (``printed``:
    each cell's L* on the empty board, (rows, columns)); 0 where no edge of it has a
    step to compare."""
    g = sheet.grid
    frame = np.asarray(lightness, np.float32)
    levels = np.ascontiguousarray(printed, np.float64).reshape(g.rows, g.columns)
    key = (g.rows, g.columns, g.cell_width_mm, g.cell_height_mm, float(px_per_mm),
           float(margin_mm), settings, levels.tobytes())  # fmt: skip
    down, across, counted = _layout(*key)
    gone = np.zeros((g.rows, g.columns))
    # The edges between a cell and the next to its right, then to the one below it.
    lost = _lost(frame, *down)
    gone[:, :-1] += lost
    gone[:, 1:] += lost
    lost = _lost(frame.T, *across).T
    gone[:-1, :] += lost
    gone[1:, :] += lost
    return np.divide(gone, counted, out=np.zeros_like(gone), where=counted > 0)


def _lost(picture, left, right, sign, least, starts, stops, real) -> np.ndarray:
    """Per cell along one direction's edges and per edge across it, the steps lost
    (``_layout``'s places and printed steps for that direction; ``picture`` has the
    edges running down its first axis)."""
    picture = picture[: len(sign)]  # the rows the stretches reach
    step = picture[:, left].mean(-1) - picture[:, right].mean(-1)
    lost = step * sign < least
    # Sums over each stretch by running totals.
    total = np.vstack([np.zeros((1, lost.shape[1])), np.cumsum(lost, axis=0)])
    return (total[stops] - total[starts]) * real


@functools.lru_cache(maxsize=8)
def _layout(rows, columns, cell_width_mm, cell_height_mm, px_per_mm, margin_mm, settings,
            printed):  # fmt: skip
    """What ``steps_gone`` needs of the grid and the board as printed (``printed``: its
    levels' bytes, float64 rows x columns), the same every frame: for the edges between a
    cell and the next to its right, then to the one below it, each's places and printed
    steps (``_lost``'s arguments after the picture); and per cell the steps counted."""
    near = round(settings.gap_mm * px_per_mm)
    far = near + max(1, round(settings.beside_mm * px_per_mm))
    end = round(settings.end_mm * px_per_mm)
    levels = np.frombuffer(printed, np.float64).reshape(rows, columns)

    def at(mm: np.ndarray) -> np.ndarray:
        return np.round((mm + margin_mm) * px_per_mm).astype(int)

    def edges(along: int, across: int, size_along: float, size_across: float, cells):
        """One direction's places and printed steps: ``cells`` (along, across) are the
        printed levels with the edges running down their first axis."""
        lines = at(np.arange(1, across) * size_across)  # where each edge runs
        offsets = np.arange(near, far)
        # The pixel ``lines`` is the next cell's first: its side starts there, this
        # side at the pixel before.
        left, right = lines[:, None] - 1 - offsets, lines[:, None] + offsets
        printed_step = cells[:, :-1] - cells[:, 1:]  # (along, edges)
        real = np.abs(printed_step) > settings.least_step
        # Each cell's stretch of every edge, its ends left out, has one printed step:
        # each pixel row's, from the cell it lies in (clipped: rows outside a stretch
        # are not summed).
        starts = at(np.arange(along) * size_along) + end
        stops = np.maximum(at(np.arange(1, along + 1) * size_along) - end, starts)
        # The pixel rows of the picture the stretches may reach: as far as the last
        # stop (``_lost`` looks at every row the picture has up to it).
        owner = np.clip(np.searchsorted(starts, np.arange(stops[-1] + 1), side="right") - 1,
                        0, along - 1)  # fmt: skip
        sign, size = np.sign(printed_step)[owner], np.abs(printed_step)[owner]
        return (left, right, sign, settings.kept * size, starts, stops, real), real * (
            stops - starts
        )[:, None]

    down, down_counted = edges(rows, columns, cell_height_mm, cell_width_mm, levels)
    across, across_counted = edges(columns, rows, cell_width_mm, cell_height_mm, levels.T)
    counted = np.zeros((rows, columns))
    counted[:, :-1] += down_counted
    counted[:, 1:] += down_counted
    counted[:-1, :] += across_counted.T
    counted[1:, :] += across_counted.T
    for kept in (*down, *across, counted):  # kept for every frame: read-only
        kept.setflags(write=False)
    return down, across, counted
