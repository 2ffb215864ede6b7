"""How clearly a flat round top stands where a piece is: its rim's edge at full resolution.

A falcon is a round column: from anywhere above, its top is a disc whose rim is a sharp
edge all round, against the board behind it and against its own side in front. A beetle
is a dome with legs and a cat goddess a three-sided block: neither has such a rim. The
square-on picture the reader weighs kinds on (a millimetre a pixel) blurs a rim into its
surroundings, and the straight-on view (``calibration.views``) compares a piece with the
set-up's examples, which stand on a few squares: a falcon seen lower than any of them,
its side showing more, can look more like a beetle than like those falcons. The rim's
place, though, follows from where the camera is wherever the piece stands, so the frame
itself is asked: along the rim's outline (the top's circle at its height, put through
the camera), which way the lightness changes.

Which way, not how strong the step across the rim is (against the strongest steps
around the square, white falcons and white beetles overlapped by a quarter of the
falcons): across the rim all round on a disc's rim, every way on a beetle's legs and
ridge or a cat's corners. On the reader benchmark's frames of seeds
1-80 (a throwaway script; every visible white piece, its truth's square, the top's
centre looked for within 5 mm of the square's middle), that share was 0.928 or more for
all 206 white falcons (a tenth under 0.965) and 0.96 at most for the 410 white beetles
and cats (three in a hundred over 0.936). A black top's rim hardly steps from its side:
two black falcons the reader took for beetles (seeds 238 and 428) scored 0.885 and 0.908.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from calibration import silhouettes


@dataclass(frozen=True)
class RimSettings:
    """``points``: places taken along the rim; ``reach_mm`` and ``step_mm``: how far from
    the square's middle the top's centre is looked for (a piece set down off its
    middle), and in what steps; ``normal_mm``: how far out the rim's normal is taken
    from."""

    points: int = 48
    reach_mm: float = 5.0
    step_mm: float = 1.0
    normal_mm: float = 0.7


def rim_scores(
    image: np.ndarray,
    registration,
    eye: np.ndarray,
    centres_mm: Sequence[Sequence[float]],
    radius_mm: float,
    height_mm: float,
    settings: RimSettings = RimSettings(),
) -> np.ndarray:
    """For pieces standing near ``centres_mm`` (board mm, (N, 2)) in ``image`` (BGR,
    registered as ``registration``, the camera at ``eye``): how strongly a round top of
    ``radius_mm`` at ``height_mm`` shows its rim there: at the place within
    ``settings.reach_mm`` of each centre where the lightness steps most across the rim,
    the share of its change along the rim's points that runs across the rim (its
    gradients' components along the rim's normals against their lengths): near 1 where
    a rim is, less where the edges met run every way. (N,)."""
    centres = np.asarray(centres_mm, np.float64).reshape(-1, 2)
    if not len(centres):
        return np.zeros(0)
    turns = np.linspace(0.0, 2.0 * np.pi, settings.points, endpoint=False)
    ring = np.column_stack([np.cos(turns), np.sin(turns)])
    steps = np.arange(-settings.reach_mm, settings.reach_mm + 1e-9, settings.step_mm)
    shifts = np.stack(np.meshgrid(steps, steps), axis=-1).reshape(-1, 2)
    # (N, shifts, points, 2): every rim point of every place tried, and a little outside
    # it, where the board shows them (``silhouettes.lean``: at one height, a lean is a
    # scale about the camera's foot, so the places' middles are leaned and the rings
    # scaled, not every point of them: tens of thousands for a few pieces).
    middles = centres[:, None, None, :] + shifts[None, :, None, :]
    scale = 1.0 + silhouettes.lean_reach(height_mm, eye)
    leaned = silhouettes.lean(np.column_stack([middles.reshape(-1, 2),
                                               np.full(middles[..., 0].size, height_mm)]),
                              eye).reshape(middles.shape)  # fmt: skip
    on = leaned + (radius_mm * scale) * ring[None, None]
    out = leaned + ((radius_mm + settings.normal_mm) * scale) * ring[None, None]
    px = registration.to_image(np.concatenate([on.reshape(-1, 2), out.reshape(-1, 2)]))
    on_px, out_px = px[: len(px) // 2], px[len(px) // 2 :]
    per = len(shifts) * settings.points
    scores = np.zeros(len(centres))
    for k in range(len(centres)):
        scores[k] = _alignment(image, on_px[k * per : (k + 1) * per],
                               out_px[k * per : (k + 1) * per], settings.points)  # fmt: skip
    return scores


def _alignment(image: np.ndarray, on_px: np.ndarray, out_px: np.ndarray, points: int) -> float:
    """One piece's places tried (``points`` rim points each, and a point just outside
    each): at the place whose rim steps most, the share of the lightness's change that
    runs across the rim. The frame is looked at only around them (a crop's gradients)."""
    both = np.concatenate([on_px, out_px])
    height, width = image.shape[:2]
    x0 = int(max(0, np.floor(both[:, 0].min()) - 2))
    y0 = int(max(0, np.floor(both[:, 1].min()) - 2))
    x1 = int(min(width, np.ceil(both[:, 0].max()) + 3))
    y1 = int(min(height, np.ceil(both[:, 1].max()) + 3))
    if x1 - x0 < 3 or y1 - y0 < 3:
        return 0.0  # out of the frame
    grey = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY).astype(np.float32)
    gx = cv2.Sobel(grey, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(grey, cv2.CV_32F, 0, 1, ksize=3)
    # A row of the maps a place (remap's maps are at most 32767 wide).
    at = (on_px - (x0, y0)).astype(np.float32).reshape(-1, points, 2)
    across = cv2.remap(gx, at[..., 0], at[..., 1], cv2.INTER_LINEAR,
                       borderMode=cv2.BORDER_REPLICATE)  # fmt: skip
    down = cv2.remap(gy, at[..., 0], at[..., 1], cv2.INTER_LINEAR,
                     borderMode=cv2.BORDER_REPLICATE)  # fmt: skip
    normal = (out_px - on_px).reshape(-1, points, 2)
    normal /= (np.hypot(normal[..., 0], normal[..., 1]) + 1e-9)[..., None]
    step = np.abs(across * normal[..., 0] + down * normal[..., 1])
    best = int(step.mean(axis=1).argmax())
    return float(step[best].sum() / (np.hypot(across[best], down[best]).sum() + 1e-6))
