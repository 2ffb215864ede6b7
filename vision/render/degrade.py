"""What a cheap camera does to a picture: exposure, blur, sensor noise, JPEG.

Per frame, drawn from the frame's generator: the exposure (auto-exposure wanders a
little, and now and then a frame comes out clearly brighter or darker), a slight defocus
and, in some frames, motion blur (the camera on its stand shaking, or the table), the
sensor's noise, and JPEG compression at quality 60 to 95, as a webcam streams MJPG.

Noise is shot noise (its variance growing with the signal) plus read noise, in the
gamma-encoded picture: ``sigma(v) = sqrt(read^2 + shot * v)`` grey levels, drawn as
luminance noise at every pixel plus coarser chroma noise (a demosaicked sensor's colour
noise is blotchy), all from the frame's seeded generator.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class Effects:
    """One frame's camera effects: ``exposure`` (a gain on the light), ``defocus_px``
    (Gaussian sigma), ``motion_px`` and ``motion_deg`` (a line blur; 0 for none), noise
    (``read_noise`` grey levels, ``shot_noise`` grey levels squared per grey level,
    ``chroma_noise`` share) and the ``jpeg_quality``."""

    exposure: float
    defocus_px: float
    motion_px: float
    motion_deg: float
    read_noise: float
    shot_noise: float
    chroma_noise: float
    jpeg_quality: int

    def to_json(self) -> dict:
        return {
            "exposure": round(self.exposure, 4),
            "defocus_px": round(self.defocus_px, 3),
            "motion_px": round(self.motion_px, 3),
            "motion_deg": round(self.motion_deg, 2),
            "read_noise": round(self.read_noise, 3),
            "shot_noise": round(self.shot_noise, 4),
            "chroma_noise": round(self.chroma_noise, 3),
            "jpeg_quality": self.jpeg_quality,
        }


@dataclass(frozen=True)
class EffectRanges:
    """The ranges ``random_effects`` draws from; ``exposure_jump`` is the chance that a
    frame's exposure differs clearly (by ``exposure_jumps``) rather than a little, and
    ``motion_chance`` that of motion blur."""

    exposure_drift: float = 0.04
    exposure_jump: float = 0.15
    exposure_jumps: tuple[float, float] = (0.7, 1.3)
    defocus_px: tuple[float, float] = (0.3, 1.1)
    motion_chance: float = 0.12
    motion_px: tuple[float, float] = (1.5, 5.0)
    read_noise: tuple[float, float] = (0.8, 2.5)
    shot_noise: tuple[float, float] = (0.01, 0.06)
    chroma_noise: tuple[float, float] = (0.2, 0.6)
    jpeg_quality: tuple[int, int] = (60, 95)


def random_effects(rng: np.random.Generator, ranges: EffectRanges | None = None) -> Effects:
    ranges = ranges or EffectRanges()
    if rng.random() < ranges.exposure_jump:
        exposure = rng.uniform(*ranges.exposure_jumps)
    else:
        exposure = 1.0 + rng.uniform(-ranges.exposure_drift, ranges.exposure_drift)
    motion = rng.random() < ranges.motion_chance
    return Effects(
        exposure=float(exposure),
        defocus_px=float(rng.uniform(*ranges.defocus_px)),
        motion_px=float(rng.uniform(*ranges.motion_px)) if motion else 0.0,
        motion_deg=float(rng.uniform(0, 180)) if motion else 0.0,
        read_noise=float(rng.uniform(*ranges.read_noise)),
        shot_noise=float(rng.uniform(*ranges.shot_noise)),
        chroma_noise=float(rng.uniform(*ranges.chroma_noise)),
        jpeg_quality=int(rng.integers(ranges.jpeg_quality[0], ranges.jpeg_quality[1] + 1)),
    )


def blur(image: np.ndarray, effects: Effects) -> np.ndarray:
    """Defocus, then motion blur along ``motion_deg`` if any."""
    out = image
    if effects.defocus_px > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), effects.defocus_px)
    if effects.motion_px >= 1.0:
        n = math.ceil(effects.motion_px) | 1
        kernel = np.zeros((n * 2 + 1, n * 2 + 1), np.float32)
        c = n
        a = math.radians(effects.motion_deg)
        dx, dy = math.cos(a) * effects.motion_px / 2, math.sin(a) * effects.motion_px / 2
        cv2.line(
            kernel,
            (round((c - dx) * 16), round((c - dy) * 16)),
            (round((c + dx) * 16), round((c + dy) * 16)),
            1.0,
            1,
            cv2.LINE_AA,
            4,
        )
        kernel /= kernel.sum()
        out = cv2.filter2D(out, -1, kernel, borderType=cv2.BORDER_REPLICATE)
    return out


def expose_and_noise(
    image: np.ndarray, light: np.ndarray, effects: Effects, rng: np.random.Generator
) -> np.ndarray:
    """The lit picture with the sensor's noise, as 8-bit BGR: ``image`` (uint8 albedo)
    times the ``light`` field (float32, (H, W, 3)), plus noise, rounded and clipped."""
    return add_noise(expose(image, light), effects, rng)


def expose(image: np.ndarray, light: np.ndarray) -> np.ndarray:
    """``image`` (uint8 albedo) times the ``light`` field: the lit picture, float32."""
    return cv2.multiply(image, light, dtype=cv2.CV_32F)


def add_noise(lit: np.ndarray, effects: Effects, rng: np.random.Generator) -> np.ndarray:
    """The sensor's noise on a lit picture (float32, from ``expose``), as 8-bit BGR,
    rounded and clipped. A still scene filmed frame after frame differs by this alone."""
    h, w = lit.shape[:2]
    luma = cv2.cvtColor(lit, cv2.COLOR_BGR2GRAY)
    sigma = cv2.sqrt(cv2.max(luma, 0.0) * effects.shot_noise + effects.read_noise**2)
    grain = rng.standard_normal((h, w), dtype=np.float32)
    hc, wc = (h + 3) // 4, (w + 3) // 4
    chroma = rng.standard_normal((hc, wc, 3), dtype=np.float32) * effects.chroma_noise
    chroma = cv2.resize(chroma, (w, h), interpolation=cv2.INTER_LINEAR)
    noise = cv2.merge([grain, grain, grain])
    noise = cv2.add(noise, chroma)
    noise = cv2.multiply(noise, cv2.merge([sigma, sigma, sigma]))
    return cv2.add(lit, noise, dtype=cv2.CV_8U)


def jpeg(image: np.ndarray, quality: int) -> tuple[bytes, np.ndarray]:
    """The picture as JPEG bytes at ``quality``, and the picture decoded back from them
    (what a reader gets)."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise ValueError(f"JPEG encoding failed at quality {quality}")
    encoded = data.tobytes()
    decoded = cv2.imdecode(np.frombuffer(encoded, np.uint8), cv2.IMREAD_COLOR)
    return encoded, decoded
