"""A hand and arm over the board: the occluder every reader must survive.

A player reaches in from their side of the table (mostly the board's short ends, where
Gimmel's players sit; sometimes from a long side) toward a square or a board corner,
the hand hovering a few centimetres above the pieces and the arm rising toward the
shoulder, out of the frame. The outline is built in three dimensions (a tapering arm,
a rounded hand with a thumb, often a sleeve), projected through the same camera as
the board, shaded darker toward its edges like a rounded limb, and it casts a soft
shadow from the lamp, wide because it is high above the board.

The hand's silhouette in the canvas is kept: ``vision.render.truth`` turns it into the
squares and markers it hides.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.render.camera import Pose, project
from vision.render.light import Lamp, onto_board, penumbra_mm
from vision.render.textures import encode

#: Skin reflectances (linear RGB), light to dark, and sleeve colours.
SKINS = (
    (0.62, 0.42, 0.33),
    (0.52, 0.33, 0.24),
    (0.40, 0.24, 0.16),
    (0.24, 0.13, 0.08),
    (0.13, 0.07, 0.045),
)
SLEEVES = (
    (0.05, 0.05, 0.06),
    (0.45, 0.45, 0.47),
    (0.06, 0.10, 0.30),
    (0.35, 0.05, 0.05),
    (0.60, 0.58, 0.52),
    (0.10, 0.25, 0.12),
)
#: The arm's width (mm) along its centre line, from the fingertips (0 mm) back.
#: How far the rounded fingertips reach ahead of the hand's sides (mm).
CAP_MM = 28.0
PROFILE = ((0, 80), (40, 88), (85, 86), (110, 64), (135, 60), (300, 78), (420, 95), (1400, 110))


@dataclass(frozen=True, eq=False)
class Hand:
    """An arm reaching to ``tip`` (world mm, above the board) from ``direction`` (unit,
    horizontal, from the tip toward the shoulder), rising by ``slope`` mm per mm; skin
    and sleeve colours (linear BGR; sleeve None for a bare arm) and where the sleeve
    starts (mm from the fingertips)."""

    tip: np.ndarray
    direction: np.ndarray
    slope: float
    length: float
    skin: np.ndarray
    sleeve: np.ndarray | None
    sleeve_from: float
    thumb_side: int
    width_scale: float

    def centre_line(self, s: np.ndarray) -> np.ndarray:
        """Points on the centre line at ``s`` mm from the fingertips (N, 3)."""
        horizontal = self.tip[None, :] + s[:, None] * self.direction[None, :]
        horizontal[:, 2] = self.tip[2] - s * self.slope
        return horizontal

    def outline(self, start: float = 0.0) -> np.ndarray:
        """The arm's outline from ``start`` mm back to its end, the fingertips rounded
        when ``start`` is 0 (N, 3)."""
        s = np.r_[np.linspace(start, 140, 15), np.linspace(150, self.length, 25)]
        s = s[s >= start]
        widths = np.interp(s, *zip(*PROFILE, strict=True)) * self.width_scale / 2
        line = self.centre_line(s)
        side = np.array([-self.direction[1], self.direction[0], 0.0])
        left = line + widths[:, None] * side
        right = line - widths[:, None] * side
        if start > 0:
            return np.vstack([left, right[::-1]])
        # Rounded fingertips: a half ellipse ahead of s = 0.
        r = widths[0]
        angles = np.linspace(math.pi, 0, 12)[1:-1]
        ahead = -self.direction
        cap = self.tip[None, :] + (
            np.cos(angles)[:, None] * r * side + np.sin(angles)[:, None] * CAP_MM * ahead
        )
        return np.vstack([left, right[::-1], cap])

    def finger_gaps(self) -> list[np.ndarray]:
        """The three lines between the four fingers, from just inside the rounded tips
        back to the knuckles, (2, 3) each."""
        side = np.array([-self.direction[1], self.direction[0], 0.0])
        r = np.interp(0, *zip(*PROFILE, strict=True)) * self.width_scale / 2
        lines = []
        for share in (-0.5, 0.0, 0.5):
            y = share * r
            start = -CAP_MM * math.sqrt(1 - share**2) + 4
            ends = self.centre_line(np.array([start, 70.0]))
            lines.append(ends + y * side)
        return lines

    def thumb(self) -> np.ndarray:
        """The thumb: a narrow lobe from the palm's side, pointing forward and out."""
        side = np.array([-self.direction[1], self.direction[0], 0.0]) * self.thumb_side
        base = self.centre_line(np.array([95.0]))[0] + side * 38 * self.width_scale
        point = base - self.direction * 45 + side * 22
        axis = point - base
        length = np.linalg.norm(axis)
        axis /= length
        normal = np.array([-axis[1], axis[0], 0.0])
        t = np.linspace(0, 2 * math.pi, 16, endpoint=False)
        centre = (base + point) / 2
        return centre + np.outer(np.cos(t) * length / 2, axis) + np.outer(np.sin(t) * 11, normal)

    def to_json(self) -> dict:
        return {
            "tip_mm": [round(float(v), 2) for v in self.tip[:2]],
            "height_mm": round(float(-self.tip[2]), 2),
            "direction": [round(float(v), 4) for v in self.direction[:2]],
            "sleeve": self.sleeve is not None,
        }


def random_hand(rng: np.random.Generator, targets: np.ndarray, camera_side: float) -> Hand:
    """A hand reaching to one of ``targets`` (board mm points, (N, 2)) from a short end
    of the board (White's or Black's) or from the long side away from the camera
    (``camera_side``: the direction, radians from +x, the camera stands in)."""
    goal = targets[rng.integers(len(targets))] + rng.normal(0, 15, 2)
    roll = rng.random()
    if roll < 0.4:
        base = math.pi / 2  # from White's end (y grows toward it)
    elif roll < 0.8:
        base = -math.pi / 2
    else:
        away = math.cos(camera_side) < 0
        base = 0.0 if away else math.pi
    angle = base + math.radians(rng.uniform(-35, 35))
    direction = np.array([math.cos(angle), math.sin(angle), 0.0])
    height = rng.uniform(30, 140)
    skin = np.asarray(SKINS[rng.integers(len(SKINS))], np.float64) * rng.uniform(0.9, 1.1)
    sleeve = None
    if rng.random() < 0.6:
        sleeve = np.asarray(SLEEVES[rng.integers(len(SLEEVES))], np.float64) * rng.uniform(0.8, 1.1)
    return Hand(
        tip=np.array([goal[0], goal[1], -height]),
        direction=direction,
        slope=rng.uniform(0.12, 0.45),
        length=1400.0,
        skin=skin[::-1].copy(),
        sleeve=None if sleeve is None else sleeve[::-1].copy(),
        sleeve_from=rng.uniform(140, 420),
        thumb_side=1 if rng.random() < 0.5 else -1,
        width_scale=rng.uniform(0.85, 1.15),
    )


def _polygon(points: np.ndarray, pose: Pose, matrix: np.ndarray) -> np.ndarray | None:
    """World points -> canvas px, the part in front of the camera (None if none)."""
    cam = pose.to_camera(points)
    keep = cam[:, 2] > 60
    if keep.sum() < 3:
        return None
    px, _ = project(points[keep], pose, matrix)
    return px


def silhouette(hand: Hand, pose: Pose, matrix: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The hand and arm's mask on the canvas (H, W) uint8 (255 where they are)."""
    w, h = size
    mask = np.zeros((h, w), np.uint8)
    for shape in (hand.outline(), hand.thumb()):
        px = _polygon(shape, pose, matrix)
        if px is not None:
            cv2.fillPoly(mask, [np.rint(px * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    return mask


def reaches_edge(mask: np.ndarray, border: np.ndarray) -> bool:
    """Whether the arm (``mask`` on the canvas) enters from the frame's edge, given the
    frame's border px on the canvas (``Lens.border``); it does unless it is cut off."""
    x = np.clip(np.rint(border[:, 0]).astype(int), 0, mask.shape[1] - 1)
    y = np.clip(np.rint(border[:, 1]).astype(int), 0, mask.shape[0] - 1)
    return bool((mask[y, x] > 127).any())


def cast_shadow(
    canvas: np.ndarray,
    hand: Hand,
    pose: Pose,
    matrix: np.ndarray,
    lamp: Lamp,
    px_per_mm: float,
    strength: float,
) -> None:
    """Darken ``canvas`` under the hand's shadow, soft with the lamp's penumbra. Drawn
    at a quarter of the size: the shadow of something this high is all penumbra."""
    h, w = canvas.shape[:2]
    small = np.zeros((h // 4 + 1, w // 4 + 1), np.uint8)
    for shape in (hand.outline(), hand.thumb()):
        ground = onto_board(shape, lamp)
        px = _polygon(ground, pose, matrix)
        if px is not None:
            cv2.fillPoly(small, [np.rint(px / 4 * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    if not small.any():
        return
    sigma = max(1.0, 0.5 * penumbra_mm(-hand.tip[2] + 60, lamp) * px_per_mm / 4)
    small = cv2.GaussianBlur(small, (0, 0), sigma)
    x, y, bw, bh = cv2.boundingRect((small > 2).astype(np.uint8))
    if bw == 0 or bh == 0:
        return
    x0, y0 = x * 4, y * 4
    x1, y1 = min(w, (x + bw) * 4), min(h, (y + bh) * 4)
    big = cv2.resize(small[y : y + bh, x : x + bw], (bw * 4, bh * 4))[: y1 - y0, : x1 - x0]
    factor = 1.0 - (strength / 255.0) * big.astype(np.float32)
    region = canvas[y0:y1, x0:x1]
    np.multiply(region, factor[..., None], out=region, casting="unsafe")


def draw(canvas: np.ndarray, hand: Hand, mask: np.ndarray, pose: Pose, matrix: np.ndarray) -> None:
    """Paint the hand (``mask`` from ``silhouette``) on ``canvas``: skin and sleeve,
    darker toward the edges as a rounded limb is, the gaps between the fingers."""
    x0, y0, bw, bh = cv2.boundingRect(mask)
    if bw == 0 or bh == 0:
        return
    roi = mask[y0 : y0 + bh, x0 : x0 + bw]
    colour = np.empty((bh, bw, 3), np.uint8)
    colour[:] = np.rint(encode(hand.skin)).astype(np.uint8)
    if hand.sleeve is not None:
        px = _polygon(hand.outline(hand.sleeve_from), pose, matrix)
        if px is not None:
            shifted = np.rint((px - [x0, y0]) * 16).astype(np.int32)
            cv2.fillPoly(colour, [shifted], encode(hand.sleeve).tolist(), cv2.LINE_AA, 4)
    gap_colour = encode(hand.skin * 0.45).tolist()
    thickness = max(1, round(math.sqrt(bw * bh) / 250))
    for line in hand.finger_gaps():
        px = _polygon(line, pose, matrix)
        if px is not None and len(px) == len(line):
            shifted = np.rint((px - [x0, y0]) * 16).astype(np.int32)
            cv2.polylines(colour, [shifted], False, gap_colour, thickness, cv2.LINE_AA, 4)
    # Rounded: a blurred copy of the mask is low near the edge.
    sw, sh = max(1, bw // 4), max(1, bh // 4)
    small = cv2.resize(roi, (sw, sh), interpolation=cv2.INTER_AREA)
    width = max(2.0, math.sqrt(float((small > 127).sum()) / (sw + sh)))
    soft = cv2.GaussianBlur(small, (0, 0), width / 2).astype(np.float32) / 255.0
    shade = 0.5 + 0.62 * np.clip(soft * 1.6 - 0.45, 0, 0.8)
    shade = cv2.resize(shade, (bw, bh))
    alpha = roi.astype(np.float32) * (1.0 / 255.0)
    lit = cv2.multiply(colour, cv2.merge([shade, shade, shade]), dtype=cv2.CV_8U)
    region = canvas[y0 : y0 + bh, x0 : x0 + bw]
    region[:] = cv2.blendLinear(lit, region, alpha, 1.0 - alpha)
