"""Marker-edge refinement: a detected marker's corners made precise from its outer edges.

ArUco's corner refinement puts a blurred corner some 0.3 px inside the marker. The
middles of a marker's four outer edges are not rounded by blur, and a straight line
through dozens of sub-pixel points along each edge is about ten times more precise; the
corners are taken where the lines meet. That matters most when one marker is covered:
three markers in three corners of a 60 cm board fix the fourth corner only through their
own shape.

Separate from ``calibration.registration`` because it is image geometry on one
quadrilateral and knows nothing of ArUco, sheets or homographies: a grey frame, four
corners and the marker's size in modules in, four corners out. ``detect_markers`` calls
it on every marker found when ``DetectorSettings.edge_refinement`` is on, with those
settings (their ``edge_*`` fields, ``EdgeSettings``).
"""

from __future__ import annotations

from typing import Protocol

import cv2
import numpy as np

#: Edge refinement's sampling: points along a side at most this far apart (px) and at
#: most this many; profile samples across the edge this far apart (px).
EDGE_POINT_SPACING_PX = 1.5
EDGE_POINTS_MAX = 40
EDGE_POINTS_MIN = 6
EDGE_PROFILE_STEP_PX = 0.5


class EdgeSettings(Protocol):
    """What ``refine_edges`` reads of its settings: the ``edge_*`` fields of
    ``calibration.registration.DetectorSettings``, which documents them and their defaults.
    """

    @property
    def edge_span(self) -> float: ...

    @property
    def edge_depth_modules(self) -> float: ...

    @property
    def edge_min_contrast(self) -> float: ...

    @property
    def edge_max_shift_modules(self) -> float: ...


def refine_edges(
    frame: np.ndarray, corners: np.ndarray, bits: int, settings: EdgeSettings
) -> np.ndarray:
    """A marker's corners (4, 2) refined from its four outer edges: along the middle of
    each side, where the profile across the edge crosses halfway between the black
    border and the white quiet zone, a line fitted through those points, and the corners
    where the lines meet. Returns ``corners`` unchanged when the edges are too faint,
    too short, or the result strays (see ``EdgeSettings``). All four sides at once.

    A result further than ``edge_max_shift_modules`` from ``corners`` (a detector's
    corner a module out, on a small marker seen steeply) is taken only when it is at most
    twice that far and a second refinement from it finds the same edges again, within
    half that distance.

    ``frame`` is one grey uint8 channel; ``bits`` the marker's data bits a side (a
    marker is ``bits + 2`` modules across, its black border one module wide).
    """
    quad = np.asarray(corners, np.float64).reshape(4, 2)
    found = _fit_edges(frame, quad, bits, settings)
    if found is None:
        return quad
    refined, module = found
    limit = settings.edge_max_shift_modules * module
    shift = _largest_move(refined, quad)
    if shift <= limit:
        return refined
    if shift > 2 * limit:
        return quad
    again = _fit_edges(frame, refined, bits, settings)
    if again is None or _largest_move(again[0], refined) > limit / 2:
        return quad
    return again[0]


def _largest_move(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.sqrt(((a - b) ** 2).sum(axis=1)).max())


def _fit_edges(
    frame: np.ndarray, quad: np.ndarray, bits: int, settings: EdgeSettings
) -> tuple[np.ndarray, float] | None:
    """``refine_edges``' one pass from ``quad``: the corners where the four edge lines
    meet and the marker's module (px), or None when the edges cannot be read."""
    sides = quad[_NEXT] - quad  # side k runs from corner k to corner k + 1
    lengths = np.sqrt(sides[:, 0] ** 2 + sides[:, 1] ** 2)
    if lengths.min() < EDGE_POINTS_MIN:
        return None
    module = lengths.mean() / (bits + 2)
    # Across side k the black border is a module of the neighbouring sides' length.
    depth = settings.edge_depth_modules * (lengths[_PREVIOUS] + lengths[_NEXT]) / 2
    depth /= bits + 2
    # The patch around the marker as floats: sampling a uint8 image rounds to integers.
    reach = depth.max() + 2
    low = np.maximum(np.floor(quad.min(axis=0) - reach).astype(int), 0)
    high = np.minimum(np.ceil(quad.max(axis=0) + reach).astype(int) + 1, frame.shape[1::-1])
    if (high - low).min() < 2:
        return None
    patch = frame[low[1] : high[1], low[0] : high[0]].astype(np.float32)
    local = quad - low

    along = sides / lengths[:, None]
    normal = np.column_stack([along[:, 1], -along[:, 0]])
    outward = ((local + sides / 2 - local.mean(axis=0)) * normal).sum(axis=1)
    normal[outward < 0] *= -1  # outward, whichever way round the corners run
    span = settings.edge_span
    count = min(max(float(lengths.min()) * span / EDGE_POINT_SPACING_PX, EDGE_POINTS_MIN),
                EDGE_POINTS_MAX)  # fmt: skip
    count = int(count)
    steps = max(5, int(np.ceil(2 * depth.max() / EDGE_PROFILE_STEP_PX)) | 1)
    u = np.linspace(-1.0, 1.0, steps)  # across the edge, in shares of each side's depth
    t = np.linspace((1 - span) / 2, (1 + span) / 2, count)[None, :] * lengths[:, None]
    base = local[:, None, :] + t[..., None] * along[:, None, :]  # (4, count, 2)
    across = (u[None, :] * depth[:, None])[:, None, :, None] * normal[:, None, None, :]
    where = (base[:, :, None, :] + across).astype(np.float32)  # (4, count, steps, 2)
    profiles = cv2.remap(
        patch,
        where[..., 0].reshape(4 * count, steps),
        where[..., 1].reshape(4 * count, steps),
        cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
    ).reshape(4, count, steps)
    # u runs from -1 to 1: the black border's samples (u < -0.5) lead, the quiet zone's
    # (u > 0.5) trail.
    inner, outer = int(np.count_nonzero(u < -0.5)), steps - int(np.count_nonzero(u > 0.5))
    black = _median(profiles[:, :, :inner].reshape(4, -1))
    white = _median(profiles[:, :, outer:].reshape(4, -1))
    if (white - black).min() < settings.edge_min_contrast:
        return None
    level = ((black + white) / 2)[:, None, None]
    above = profiles >= level
    rising = ~above[..., :-1] & above[..., 1:]
    # On each profile, the rising crossing nearest the expected edge (u = 0).
    distance = np.where(rising, np.abs(u[:-1] + u[1:]) / 2, np.inf)
    j = distance.argmin(axis=2).reshape(-1)
    rows = np.arange(4 * count)
    ok = np.isfinite(distance.reshape(4 * count, -1)[rows, j]).reshape(4, count)
    weight = ok.astype(np.float64)
    total = weight.sum(axis=1)
    if total.min() < EDGE_POINTS_MIN:
        return None
    flat = profiles.reshape(4 * count, steps)
    a, b = flat[rows, j].reshape(4, count), flat[rows, j + 1].reshape(4, count)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(ok, (level[..., 0] - a) / (b - a), 0.0)
    offset = (u[j].reshape(4, count) + share * (u[1] - u[0])) * depth[:, None]
    points = base + offset[..., None] * normal[:, None, :]  # (4, count, 2)
    # A least-squares line through each side's points: centroid and main direction (of
    # the 2x2 scatter matrix, in closed form).
    centroid = (points * weight[..., None]).sum(axis=1) / total[:, None]
    dx, dy = (points - centroid[:, None, :]).transpose(2, 0, 1) * weight
    sxx, syy, sxy = (dx * dx).sum(axis=1), (dy * dy).sum(axis=1), (dx * dy).sum(axis=1)
    angle = 0.5 * np.arctan2(2 * sxy, sxx - syy)
    direction = np.column_stack([np.cos(angle), np.sin(angle)])
    # Corner k where side k - 1 meets side k: centroid[k - 1] + s * direction[k - 1] on
    # both lines (Cramer's rule).
    first, second = direction[_PREVIOUS], direction
    det = second[:, 0] * first[:, 1] - first[:, 0] * second[:, 1]
    if np.abs(det).min() < 1e-6:
        return None
    gap = centroid - centroid[_PREVIOUS]
    s = (second[:, 0] * gap[:, 1] - gap[:, 0] * second[:, 1]) / det
    refined = centroid[_PREVIOUS] + s[:, None] * first
    return refined + low, float(module)


#: Corner (and side) k's neighbours: k + 1 and k - 1, round the quadrilateral.
_NEXT = np.array([1, 2, 3, 0])
_PREVIOUS = np.array([3, 0, 1, 2])


def _median(values: np.ndarray) -> np.ndarray:
    """Each row's median (as ``np.median(values, axis=1)``, without its overhead)."""
    ordered = np.sort(values, axis=1)
    n = ordered.shape[1]
    return (ordered[:, (n - 1) // 2] + ordered[:, n // 2]) / 2
