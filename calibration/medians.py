"""Medians of many short rows, as ``np.median`` gives them, at a fraction of its cost.

Why: ``np.median`` spends most of its time on bookkeeping (its NaN check, its axis
handling) when the rows are short, and a frame's reading takes the median of hundreds of
rows of a few dozen to a few hundred pixels (each square's edge band, each half-side).
A sort along the axis does the same work in a quarter of the time or less (rows of 36
to 324 values: throwaway timing on this project's machine).
"""

from __future__ import annotations

import numpy as np


def median(values: np.ndarray, axis: int = -1) -> np.ndarray:
    """The median along ``axis`` (of an array without NaN), equal to ``np.median``'s:
    the middle value, or the mean of the two middle values in the array's own float type
    (integers as float64, as ``np.median`` gives them). ``ValueError`` for an empty axis."""
    values = np.asarray(values)
    if not np.issubdtype(values.dtype, np.floating):
        values = values.astype(np.float64)
    n = values.shape[axis]
    if n == 0:
        raise ValueError(f"the median of no values (an array shaped {values.shape}, axis {axis})")
    ordered = np.sort(values, axis=axis)
    low = np.take(ordered, (n - 1) // 2, axis=axis)
    high = np.take(ordered, n // 2, axis=axis)
    return (low + high) / values.dtype.type(2)
