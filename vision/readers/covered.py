"""Which squares of a grid board something opaque covers: the grid's steps gone.

A board's neighbouring squares differ (a light square beside a dark one), and that step
in lightness runs along every edge between them. A shadow darkens both sides, so the
step stays, scaled; a piece covers a little of an edge at most. A hand or a sleeve
over the board is one smooth colour across the edges it covers, so the steps there are
gone. The reader relights each square's empty colour by its edge band
(``calibration.blobs.shaded``), and under a hand the edge band is the hand: a square
wholly under a smooth hand then looks like an empty square in shade, which is why this
looks at the edges between squares rather than at a square's own pixels.

Measured on the reader benchmark's frames of seeds 1-150 (throwaway scripts; 737 cells
the truth says a hand hides): among the squares the reader read empty, a share of 0.65
or more of a square's edge steps gone marked 138 of those cells, and no visible square.
"""

from __future__ import annotations

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
    empty_lightness: np.ndarray,
    sheet: Sheet,
    px_per_mm: float,
    margin_mm: float,
    settings: CoverSettings = CoverSettings(),
) -> np.ndarray:
    """Per cell of ``sheet``'s grid, (rows, columns), the share of the steps along its
    edges with its neighbours that are gone in ``lightness`` (the square-on picture's
    L*, at ``px_per_mm`` with ``margin_mm``) against ``empty_lightness`` (the empty
    board's, the same size); 0 where no edge of it has a step to compare."""
    g = sheet.grid
    gone = np.zeros((g.rows, g.columns))
    counted = np.zeros((g.rows, g.columns))
    near = round(settings.gap_mm * px_per_mm)
    far = near + max(1, round(settings.beside_mm * px_per_mm))
    end = round(settings.end_mm * px_per_mm)
    frame = np.asarray(lightness, np.float32)
    board = np.asarray(empty_lightness, np.float32)

    def at(mm: float) -> int:
        return round((mm + margin_mm) * px_per_mm)

    def tally(step: np.ndarray, step_empty: np.ndarray) -> tuple[int, int]:
        real = np.abs(step_empty) > settings.least_step
        lost = real & (step * np.sign(step_empty) < settings.kept * np.abs(step_empty))
        return int(lost.sum()), int(real.sum())

    for row in range(g.rows):
        top, bottom = at(row * g.cell_height_mm) + end, at((row + 1) * g.cell_height_mm) - end
        for col in range(g.columns - 1):  # the edge between (row, col) and (row, col + 1)
            x = at((col + 1) * g.cell_width_mm)
            step, step_empty = (p[top:bottom, x - far : x - near].mean(1)
                                - p[top:bottom, x + near : x + far].mean(1)
                                for p in (frame, board))  # fmt: skip
            lost, real = tally(step, step_empty)
            gone[row, col : col + 2] += lost
            counted[row, col : col + 2] += real
    for col in range(g.columns):
        left, right = at(col * g.cell_width_mm) + end, at((col + 1) * g.cell_width_mm) - end
        for row in range(g.rows - 1):  # the edge between (row, col) and (row + 1, col)
            y = at((row + 1) * g.cell_height_mm)
            step, step_empty = (p[y - far : y - near, left:right].mean(0)
                                - p[y + near : y + far, left:right].mean(0)
                                for p in (frame, board))  # fmt: skip
            lost, real = tally(step, step_empty)
            gone[row : row + 2, col] += lost
            counted[row : row + 2, col] += real
    return np.divide(gone, counted, out=np.zeros_like(gone), where=counted > 0)
