"""Light on the table: one lamp, the room's ambient light, their colour, and shadows.

A lamp above and beside the board lights it unevenly: the irradiance of a small source
falls off with the square of the distance and the cosine of the angle of incidence, so
one side of the board is brighter than the other. Ambient room light fills in evenly.
The light's colour runs from a warm bulb (2700 K) to cold daylight (6500 K) and the
camera's white balance corrects only part of it, so frames keep a cast (the colour
correction from the markers' white is what removes it, as at a real table).

The renderer draws albedos, then multiplies the whole frame by one smooth *light field*
(lamp fall-off, ambient, colour, exposure and the lens's vignetting); pieces are shaded
relative to the board under them (their tops brighter or darker by the angle of their
faces to the lamp), so the field lights them too. Shadows are the lamp's: every point
is projected from the lamp onto the board plane, and the result is blurred by the
penumbra of a lamp of the lamp's size, wider the higher the caster.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from vision.render.camera import Lens, Pose


@dataclass(frozen=True)
class Lamp:
    """A lamp at ``position`` (world mm, z negative: above the board) of ``size_mm``
    across (softness of shadows); ``ambient`` is the share of the light on the board's
    centre that is not the lamp's; ``kelvin`` its colour temperature and
    ``white_balance`` how much of the cast the camera removes (0-1)."""

    position: tuple[float, float, float]
    size_mm: float
    ambient: float
    kelvin: float
    white_balance: float

    def to_json(self) -> dict:
        x, y, z = self.position
        return {
            "position_mm": [round(x, 2), round(y, 2), round(z, 2)],
            "height_mm": round(-z, 2),
            "size_mm": round(self.size_mm, 2),
            "ambient": round(self.ambient, 4),
            "kelvin": round(self.kelvin, 1),
            "white_balance": round(self.white_balance, 3),
            "gains_bgr": [round(float(g), 4) for g in self.gains()],
        }

    def vector(self) -> np.ndarray:
        return np.asarray(self.position, np.float64)

    def gains(self) -> np.ndarray:
        """The light's colour as BGR gains after the camera's partial white balance."""
        raw = kelvin_rgb(self.kelvin)
        raw = raw / raw[1]
        balanced = raw ** (1.0 - self.white_balance)
        return balanced[::-1].astype(np.float32)


def random_lamp(rng: np.random.Generator, centre: np.ndarray, size: tuple[float, float]) -> Lamp:
    """A lamp over or beside a board of ``size`` (width, height mm) centred at ``centre``."""
    reach = 0.5 * max(size) + 350
    angle = rng.uniform(0, 2 * math.pi)
    distance = rng.uniform(0, reach)
    x = centre[0] + distance * math.cos(angle)
    y = centre[1] + distance * math.sin(angle)
    height = rng.uniform(550, 1300)
    return Lamp(
        (float(x), float(y), float(-height)),
        float(rng.uniform(60, 250)),
        float(rng.uniform(0.25, 0.55)),
        float(rng.uniform(2700, 6500)),
        float(rng.uniform(0.5, 0.9)),
    )


def kelvin_rgb(kelvin: float) -> np.ndarray:
    """A black body's colour at ``kelvin`` as linear RGB (Tanner Helland's fit of the
    CIE data, taken to linear light), roughly 1 at its largest channel."""
    t = kelvin / 100.0
    if t <= 66:
        r = 255.0
        g = 99.4708025861 * math.log(t) - 161.1195681661
        b = 0.0 if t <= 19 else 138.5177312231 * math.log(t - 10) - 305.0447927307
    else:
        r = 329.698727446 * (t - 60) ** -0.1332047592
        g = 288.1221695283 * (t - 60) ** -0.0755148492
        b = 255.0
    srgb = np.clip(np.array([r, g, b]) / 255.0, 0.05, 1.0)
    return srgb**2.2


def irradiance(points: np.ndarray, lamp: Lamp) -> np.ndarray:
    """The lamp's irradiance at board-plane points (N, 3), up to a constant: cosine of
    incidence over distance squared."""
    d = lamp.vector()[None, :] - points
    dist = np.linalg.norm(d, axis=1)
    return np.clip(-d[:, 2] / dist, 0, None) / dist**2


def lamp_share(points: np.ndarray, lamp: Lamp, reference: np.ndarray) -> np.ndarray:
    """The light at board points as a share of the light at ``reference`` (the board's
    centre): ambient plus the lamp's fall-off."""
    e = irradiance(points, lamp) / irradiance(reference[None, :], lamp)[0]
    return lamp.ambient + (1 - lamp.ambient) * e


def light_field(
    lens: Lens,
    pose: Pose,
    lamp: Lamp,
    reference: np.ndarray,
    exposure: float,
    vignetting: float,
) -> np.ndarray:
    """The frame's multiplier (H, W, 3) float32, in gamma-encoded units: each px's ray
    met with the table plane, lit by the lamp and the room, in the light's colour, times
    the exposure and the lens's fall-off toward the corners (``vignetting``: cos^n)."""
    rays = lens.rays
    gh, gw = rays.shape[:2]
    cam = np.concatenate([rays.reshape(-1, 2), np.ones((gh * gw, 1))], axis=1)
    world = cam @ pose.rotation  # rotation.T @ ray, for each ray
    centre = pose.centre
    with np.errstate(divide="ignore", invalid="ignore"):
        t = -centre[2] / world[:, 2]
    t = np.where(t > 0, t, 1e6)
    points = centre[None, :] + t[:, None] * world
    points[:, 2] = 0.0
    light = lamp_share(points, lamp, reference)
    cos = 1.0 / np.sqrt(1.0 + (cam[:, :2] ** 2).sum(1))
    light = light * cos**vignetting * exposure
    encoded = light.astype(np.float32) ** (1 / 2.2)
    gains = lamp.gains() ** (1 / 2.2)
    coarse = encoded.reshape(gh, gw, 1) * gains.reshape(1, 1, 3)
    w, h = lens.intrinsics.width, lens.intrinsics.height
    step = lens.step
    # The coarse grid's last row and column sit on the frame's last px; resize over the
    # regular part and let the edge replicate (the field is smooth).
    full = cv2.resize(coarse, ((gw - 1) * step, (gh - 1) * step), interpolation=cv2.INTER_LINEAR)
    out = np.empty((h, w, 3), np.float32)
    fh, fw = min(h, full.shape[0]), min(w, full.shape[1])
    out[:fh, :fw] = full[:fh, :fw]
    out[fh:, :fw] = full[fh - 1 : fh, :fw]
    out[:, fw:] = out[:, fw - 1 : fw]
    return out


def face_shade(normals: np.ndarray, to_lamp: np.ndarray, lamp: Lamp) -> np.ndarray:
    """Faces' brightness relative to the board plane beside them (``normals`` (F, 3),
    unit): the lamp's share by the cosine of incidence on each face, plus ambient (less
    of it for faces turned sideways or down, which see less of the room)."""
    up = np.array([0.0, 0.0, -1.0])
    a = lamp.ambient
    direct = np.clip(normals @ to_lamp, 0, None)
    sky = 0.5 + 0.5 * (normals @ up)
    board = max(1e-3, float(up @ to_lamp))
    return (a * (0.35 + 0.65 * sky) + (1 - a) * direct) / (a + (1 - a) * board)


def specular(normals: np.ndarray, to_lamp: np.ndarray, to_eye: np.ndarray, power: float):
    """Blinn-Phong: how strongly each face (``normals`` (F, 3), ``to_eye`` (F, 3), unit)
    mirrors the lamp toward the camera (0-1)."""
    half = to_eye + to_lamp[None, :]
    half /= np.linalg.norm(half, axis=1, keepdims=True)
    return np.clip((normals * half).sum(1), 0, None) ** power


def onto_board(points: np.ndarray, lamp: Lamp) -> np.ndarray:
    """World points (N, 3) above the board projected from the lamp onto the board plane
    (their shadows' places), (N, 3) with z = 0."""
    lamp_v = lamp.vector()
    d = points - lamp_v[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = -lamp_v[2] / d[:, 2]
    t = np.where(np.isfinite(t) & (t > 0), t, 1e4)
    out = lamp_v[None, :] + t[:, None] * d
    out[:, 2] = 0.0
    return out


def penumbra_mm(height_mm: float, lamp: Lamp) -> float:
    """The width of the soft edge of the shadow of something ``height_mm`` above the
    board: the lamp's size seen from the board, scaled by the height."""
    lamp_height = -lamp.position[2]
    return lamp.size_mm * height_mm / max(1.0, lamp_height - height_mm)
