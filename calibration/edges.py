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

from collections.abc import Sequence
from typing import Protocol

import cv2
import numpy as np

from calibration.medians import median

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
    return refine_all_edges(frame, [corners], bits, settings)[0]


def refine_all_edges(
    frame: np.ndarray, markers: Sequence[np.ndarray], bits: int, settings: EdgeSettings
) -> list[np.ndarray]:
    """``refine_edges`` for several markers' corners at once, in a fraction of the time
    (one array operation for all of them, not one each). Each marker's profiles are as
    many and as finely sampled as the largest marker's need, so a marker's refined
    corners may differ from ``refine_edges``' alone by a hundredth of a pixel."""
    found = try_refine_edges(frame, markers, bits, settings)
    quads = np.asarray(markers, np.float64).reshape(-1, 4, 2)
    return [
        quad if corners is None else corners for quad, corners in zip(quads, found, strict=True)
    ]


def try_refine_edges(
    frame: np.ndarray, markers: Sequence[np.ndarray], bits: int, settings: EdgeSettings
) -> list[np.ndarray | None]:
    """``refine_all_edges``, with None for a marker whose edges could not be read or
    whose refinement strayed (where ``refine_edges`` keeps the corners it was given)."""
    quads = np.asarray(markers, np.float64).reshape(-1, 4, 2)
    if not len(quads):
        return []
    refined, module, ok = _fit_edges(frame, quads, bits, settings)
    out: list[np.ndarray | None] = [None] * len(quads)
    limit = settings.edge_max_shift_modules * module
    shift = _largest_move(refined, quads)
    for k in np.flatnonzero(ok & (shift <= limit)):
        out[k] = refined[k]
    retry = ok & (shift > limit) & (shift <= 2 * limit)
    if retry.any():
        again, _, still = _fit_edges(frame, refined[retry], bits, settings)
        same = still & (_largest_move(again, refined[retry]) <= limit[retry] / 2)
        for k, corners in zip(np.flatnonzero(retry)[same], again[same], strict=True):
            out[k] = corners
    return out


def _largest_move(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Per marker (..., 4, 2), the largest distance a corner moved."""
    return np.sqrt(((a - b) ** 2).sum(axis=-1)).max(axis=-1)


def _fit_edges(
    frame: np.ndarray, quads: np.ndarray, bits: int, settings: EdgeSettings
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``refine_all_edges``' one pass from ``quads`` (M, 4, 2): the corners where each
    marker's four edge lines meet, its module (px), and whether its edges could be read
    (where not, its corners are meaningless)."""
    count_markers = len(quads)
    sides = quads[:, _NEXT] - quads  # side k runs from corner k to corner k + 1
    lengths = np.sqrt((sides**2).sum(axis=2))  # (M, 4)
    ok = lengths.min(axis=1) >= EDGE_POINTS_MIN
    module = lengths.mean(axis=1) / (bits + 2)
    # Across side k the black border is a module of the neighbouring sides' length.
    depth = settings.edge_depth_modules * (lengths[:, _PREVIOUS] + lengths[:, _NEXT]) / 2
    depth /= bits + 2
    # Each marker's patch as floats (sampling a uint8 image rounds to integers), the
    # patches side by side in one picture; a sample beyond its patch takes the patch's
    # edge (coordinates clamped: the frame's border replicated).
    reach = depth.max(axis=1) + 2
    height, width = frame.shape[:2]
    low = np.clip(np.floor(quads.min(axis=1) - reach[:, None]), 0, None).astype(int)
    high = np.minimum(np.ceil(quads.max(axis=1) + reach[:, None]) + 1, (width, height))
    size = np.maximum(high.astype(int) - low, 1)
    ok &= size.min(axis=1) >= 2
    left = np.concatenate([[0], np.cumsum(size[:, 0])[:-1]])
    patches = np.zeros((int(size[:, 1].max()), int(size[:, 0].sum())), np.float32)
    for k in np.flatnonzero(ok):
        (x0, y0), (w, h) = low[k], size[k]
        patches[:h, left[k] : left[k] + w] = frame[y0 : y0 + h, x0 : x0 + w]

    along = sides / np.where(lengths > 0, lengths, 1.0)[..., None]
    normal = np.stack([along[..., 1], -along[..., 0]], axis=-1)
    outward = ((quads + sides / 2 - quads.mean(axis=1, keepdims=True)) * normal).sum(axis=2)
    normal[outward < 0] *= -1  # outward, whichever way round the corners run
    span = settings.edge_span
    shortest = float(lengths.min(axis=1)[ok].max()) if ok.any() else 0.0
    count = int(min(max(shortest * span / EDGE_POINT_SPACING_PX, EDGE_POINTS_MIN), EDGE_POINTS_MAX))
    deepest = float(depth.max(axis=1)[ok].max()) if ok.any() else 1.0
    steps = max(5, int(np.ceil(2 * deepest / EDGE_PROFILE_STEP_PX)) | 1)
    u = np.linspace(-1.0, 1.0, steps)  # across the edge, in shares of each side's depth
    t = np.linspace((1 - span) / 2, (1 + span) / 2, count)[None, None, :] * lengths[..., None]
    base = quads[:, :, None, :] + t[..., None] * along[:, :, None, :]  # (M, 4, count, 2)
    across = (u * depth[..., None])[:, :, None, :, None] * normal[:, :, None, None, :]
    where = base[:, :, :, None, :] + across  # (M, 4, count, steps, 2)
    # Within each marker's patch (x and y at once), then across to its place in the
    # picture; one two-channel map for the remap.
    at = np.clip(where - low.reshape(count_markers, 1, 1, 1, 2), 0,
                 (size - 1).reshape(count_markers, 1, 1, 1, 2))  # fmt: skip
    at[..., 0] += left.reshape(count_markers, 1, 1, 1)
    rows = count_markers * 4 * count
    profiles = cv2.remap(patches, at.astype(np.float32).reshape(rows, steps, 2), None,
                         cv2.INTER_LINEAR).reshape(count_markers, 4, count, steps)  # fmt: skip
    # u runs from -1 to 1: the black border's samples (u < -0.5) lead, the quiet zone's
    # (u > 0.5) trail.
    inner, outer = int(np.count_nonzero(u < -0.5)), steps - int(np.count_nonzero(u > 0.5))
    black = median(profiles[..., :inner].reshape(count_markers * 4, -1))
    white = median(profiles[..., outer:].reshape(count_markers * 4, -1))
    black, white = black.reshape(-1, 4), white.reshape(-1, 4)
    ok &= (white - black).min(axis=1) >= settings.edge_min_contrast
    level = (black + white) / 2
    above = profiles >= level[..., None, None]
    rising = ~above[..., :-1] & above[..., 1:]
    # On each profile, the rising crossing nearest the expected edge (u = 0).
    distance = np.where(rising, np.abs(u[:-1] + u[1:]) / 2, np.inf)
    j = distance.argmin(axis=3)[..., None]  # (M, 4, count, 1)
    crossed = rising.any(axis=3)  # where the nearest crossing's distance is finite
    weight = crossed.astype(np.float64)
    total = weight.sum(axis=2)  # (M, 4)
    ok &= total.min(axis=1) >= EDGE_POINTS_MIN
    # The samples either side of that crossing, picked from the profiles a row each.
    flat, first = profiles.reshape(-1, steps), j.ravel()
    row = np.arange(len(first))
    a, b = (flat[row, first].reshape(crossed.shape), flat[row, first + 1].reshape(crossed.shape))
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(crossed, (level[..., None] - a) / (b - a), 0.0)
        offset = (u[j[..., 0]] + share * (u[1] - u[0])) * depth[..., None]
        points = base + offset[..., None] * normal[:, :, None, :]  # (M, 4, count, 2)
        # A least-squares line through each side's points: centroid and main direction
        # (of the 2x2 scatter matrix, in closed form).
        centroid = (points * weight[..., None]).sum(axis=2) / total[..., None]
        spread = (points - centroid[:, :, None, :]) * weight[..., None]
        dx, dy = spread[..., 0], spread[..., 1]
        sxx, syy, sxy = (dx * dx).sum(axis=2), (dy * dy).sum(axis=2), (dx * dy).sum(axis=2)
        angle = 0.5 * np.arctan2(2 * sxy, sxx - syy)
        direction = np.stack([np.cos(angle), np.sin(angle)], axis=-1)  # (M, 4, 2)
        # Corner k where side k - 1 meets side k: centroid[k - 1] + s * direction[k - 1]
        # on both lines (Cramer's rule).
        first, second = direction[:, _PREVIOUS], direction
        det = second[..., 0] * first[..., 1] - first[..., 0] * second[..., 1]
        ok &= np.abs(det).min(axis=1) >= 1e-6
        gap = centroid - centroid[:, _PREVIOUS]
        s = (second[..., 0] * gap[..., 1] - gap[..., 0] * second[..., 1]) / det
        refined = centroid[:, _PREVIOUS] + s[..., None] * first
    ok &= np.isfinite(refined).all(axis=(1, 2))
    return np.where(ok[:, None, None], refined, quads), module, ok


#: Corner (and side) k's neighbours: k + 1 and k - 1, round the quadrilateral.
_NEXT = np.array([1, 2, 3, 0])
_PREVIOUS = np.array([3, 0, 1, 2])
