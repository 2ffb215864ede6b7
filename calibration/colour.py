"""Colour correction from reference patches that should be neutral white.

Why: a reader that tells a red tile from an orange one, or a black stone from a dark
field, must see the same colours at noon by the window and at night under a warm lamp.
The board carries its own white reference: the white quiet zone around each ArUco marker
(or a printed white or grey patch on the marker sheet). Whatever colour those patches
show in a frame is the colour of the light, and dividing it out makes the rest of the
frame look as it did when the board was calibrated.

The steps, each with its own error (:class:`ColourError`, a ``ValueError``):

1. :func:`measure` reads the patches: polygons in image pixels (the caller maps them
   from board millimetres through the registration). Per patch, the median of each
   channel over the pixels inside, ignoring clipped (saturated) and very dark pixels; a
   patch that is mostly unusable, or whose colour is far from the others' (a hand or a
   coloured piece lying on it), is left out and said so. Too few usable pixels in all
   (a black frame, a blown-out frame) is refused with the reason.
2. :func:`correction` turns the reference into per-channel :class:`Gains` that map the
   patches' white onto a target (a grey level, or the reference recorded at calibration
   time, so that colours learnt then stay valid). :func:`correction_field` fits a smooth
   :class:`GainField` instead, for light that is uneven across the board (a lamp on one
   side): a bilinear model of the light over the image through the patches' centres.
3. :func:`apply` corrects an image with either. :func:`correct` does 2 and 3, choosing
   the field when the patches differ by more than a threshold.

The model (von Kries / white patch in linear light): a camera's 8-bit values are sRGB
encoded (gamma), while light multiplies in linear units, so the reference is converted
to linear light with the sRGB curve, the gains are ratios of linear values, and
:func:`apply` decodes, multiplies and re-encodes (through lookup tables, so a uniform
correction costs one table look-up per pixel). A diagonal (per-channel) model is exact
for a camera whose channels are narrow and a light whose spectrum is smooth, and close
for real webcams under household light; what it cannot undo is light that has no red
in it at all, and pixels that were clipped. For the same reason camera auto white
balance and auto exposure should be locked when possible: they change the gains behind
the companion's back, which ``calibration.light`` then reports as a change of light.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from calibration.medians import median

#: The default target: the 8-bit (sRGB-encoded) grey a white patch is corrected to.
#: Below 255, so that paper whiter than the reference still has room; about the level
#: that white printer paper shows in a well exposed frame.
WHITE_LEVEL = 230.0

#: Relative luminance of linear B, G, R (Rec. 709 / sRGB primaries).
LUMA_BGR = np.array([0.0722, 0.7152, 0.2126])


class ColourError(ValueError):
    """The reference patches cannot give a correction; the message says why."""


@dataclass(frozen=True)
class ColourSettings:
    """Thresholds for reading reference patches and correcting colour.

    - ``dark`` (24): a pixel whose every channel is at or below this (8-bit) is too dark
      to tell a colour (about 1 % of full light; noise and quantisation dominate).
    - ``saturated`` (250): a pixel with any channel at or above this is clipped: its
      channels' ratio no longer tells the light's colour.
    - ``min_patch_pixels`` (20): a patch with fewer usable pixels is left out.
    - ``min_pixels`` (60): fewer usable pixels than this in all patches together is
      refused.
    - ``outlier_chroma`` (0.06): with three patches or more, a patch whose light colour
      (linear chromaticity, b+g+r = 1) lies further than this from the patches' median
      is left out: something lies on it. Mixed daylight and lamp light move the corners
      by a few hundredths; a hand or a coloured piece by a tenth or more.
    - ``max_gain`` (8.0): a correction needing a larger gain in any channel is refused
      (the white is too dark, or one channel almost absent: correcting would only
      amplify noise).
    - ``uneven`` (0.15): :func:`correct` fits a gain field when the patches' brightness
      differs by more than this fraction (brightest over darkest minus one), or their
      chromaticity by more than ``uneven_chroma`` (0.02).
    """

    dark: int = 24
    saturated: int = 250
    min_patch_pixels: int = 20
    min_pixels: int = 60
    outlier_chroma: float = 0.06
    max_gain: float = 8.0
    uneven: float = 0.15
    uneven_chroma: float = 0.02


DEFAULT_SETTINGS = ColourSettings()


# --- the sRGB curve --------------------------------------------------------------------


def to_linear(encoded: np.ndarray | float) -> np.ndarray:
    """sRGB-encoded values in 0..255 to linear light in 0..1."""
    v = np.asarray(encoded, dtype=np.float64) / 255.0
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def to_encoded(linear: np.ndarray | float) -> np.ndarray:
    """Linear light in 0..1 to sRGB-encoded values in 0..255 (not rounded)."""
    v = np.clip(np.asarray(linear, dtype=np.float64), 0.0, 1.0)
    return 255.0 * np.where(v <= 0.0031308, v * 12.92, 1.055 * v ** (1 / 2.4) - 0.055)


_DECODE = to_linear(np.arange(256)).astype(np.float32)  # 8-bit -> linear
_DECODE_BGR = np.repeat(_DECODE[:, None], 3, axis=1).reshape(256, 1, 3)  # for cv2.LUT
_ENCODE_STEPS = 16384
_ENCODE = np.round(to_encoded(np.linspace(0.0, 1.0, _ENCODE_STEPS))).astype(np.uint8)


# --- measuring --------------------------------------------------------------------------

#: A patch: a polygon (N, 2) of image pixels (x, y), or a tuple whose first polygon is the
#: outline and the rest holes (a marker's quiet zone: the outer square minus the marker).
Patch = np.ndarray | tuple[np.ndarray, ...]


class _Light:
    """What a white's 8-bit (B, G, R) ``bgr`` says of the light, for a patch and for the
    frame's reference alike."""

    bgr: tuple[float, float, float]

    @property
    def linear(self) -> np.ndarray:
        """The white in linear light (B, G, R), 0..1."""
        return to_linear(np.array(self.bgr))

    @property
    def brightness(self) -> float:
        """The white's relative luminance in linear light, 0..1."""
        return float(LUMA_BGR @ self.linear)

    @property
    def chromaticity(self) -> np.ndarray:
        """The light's colour: linear (b, g, r) scaled to sum 1; (1/3, 1/3, 1/3) neutral."""
        lin = self.linear
        return lin / max(float(lin.sum()), 1e-9)


@dataclass(frozen=True)
class PatchReading(_Light):
    """What one patch showed: its index among the patches given, its centre (x, y) in
    pixels, the median 8-bit (B, G, R) of its usable pixels, and the pixel counts."""

    index: int
    centre: tuple[float, float]
    bgr: tuple[float, float, float]
    usable: int
    total: int
    dark: int
    saturated: int


@dataclass(frozen=True)
class Reference(_Light):
    """The light as the reference patches show it in one frame.

    ``bgr``: the white's 8-bit (B, G, R), the per-channel median of the patches used;
    ``patches``: the patches used; ``rejected``: (index, reason) for those left out;
    ``size``: the image's (width, height).
    """

    bgr: tuple[float, float, float]
    patches: tuple[PatchReading, ...]
    rejected: tuple[tuple[int, str], ...]
    size: tuple[int, int]

    @property
    def spread(self) -> float:
        """How uneven the light is: the brightest patch over the darkest, minus one."""
        values = [p.brightness for p in self.patches]
        return max(values) / max(min(values), 1e-9) - 1.0 if len(values) > 1 else 0.0

    @property
    def chroma_spread(self) -> float:
        """The largest distance between two patches' chromaticities."""
        chromas = [p.chromaticity for p in self.patches]
        return max(
            (float(np.linalg.norm(a - b)) for i, a in enumerate(chromas) for b in chromas[i + 1 :]),
            default=0.0,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, for a calibration file (:meth:`from_dict` reads it back)."""
        return {
            "bgr": [round(v, 2) for v in self.bgr],
            "size": list(self.size),
            "patches": [
                {
                    "index": p.index,
                    "centre": [round(c, 2) for c in p.centre],
                    "bgr": [round(v, 2) for v in p.bgr],
                    "pixels": [p.usable, p.total, p.dark, p.saturated],
                }
                for p in self.patches
            ],
        }

    @classmethod
    def from_dict(cls, data: Any) -> Reference:
        """A reference from :meth:`to_dict`'s form; :class:`ColourError` naming what is
        wrong."""
        try:
            patches = tuple(
                PatchReading(
                    int(p["index"]),
                    (float(p["centre"][0]), float(p["centre"][1])),
                    _triple(p["bgr"]),
                    *(int(n) for n in p.get("pixels", [0, 0, 0, 0])[:4]),
                )
                for p in data["patches"]
            )
            width, height = (int(v) for v in data["size"])
            return cls(_triple(data["bgr"]), patches, (), (width, height))
        except (KeyError, TypeError, ValueError, IndexError) as exc:
            raise ColourError(f"not a colour reference: {data!r} ({exc})") from exc


def _triple(values: Any) -> tuple[float, float, float]:
    b, g, r = (float(v) for v in values)
    if not all(0.0 <= v <= 255.0 for v in (b, g, r)):
        raise ValueError(f"{values!r} is not three 8-bit levels")
    return b, g, r


def _polygons(patch: object, index: int) -> list[np.ndarray]:
    parts = list(patch) if isinstance(patch, tuple) else [patch]
    polygons = []
    for part in parts:
        try:
            poly = np.asarray(part, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ColourError(f"patch {index}: {part!r} is not a polygon of (x, y) points") from exc
        if poly.ndim == 3 and poly.shape[1] == 1:  # OpenCV's contour shape (N, 1, 2)
            poly = poly.reshape(-1, 2)
        if poly.ndim != 2 or poly.shape[1] != 2:
            raise ColourError(
                f"patch {index}: expected a polygon (N, 2), got shape {poly.shape} "
                "(an outline with holes is a tuple: (outline, hole, ...))"
            )
        if len(poly) < 3 or not np.isfinite(poly).all():
            raise ColourError(
                f"patch {index}: a polygon needs three or more finite (x, y) points, "
                f"got {poly.tolist()!r}"
            )
        polygons.append(poly)
    return polygons


def _patch_mask(image: np.ndarray, polygons: list[np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """The image's box around the outline and, over it, the patch's mask (255 inside the
    outline and outside its holes, else 0); both empty when the box is off the image."""
    height, width = image.shape[:2]
    outline = polygons[0]
    x0, y0 = np.floor(outline.min(axis=0)).astype(int)
    x1, y1 = np.ceil(outline.max(axis=0)).astype(int) + 1
    x0, y0 = max(x0, 0), max(y0, 0)
    x1, y1 = min(x1, width), min(y1, height)
    if x1 <= x0 or y1 <= y0:
        return image[:0, :0], np.zeros((0, 0), np.uint8)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    shift = np.array([x0, y0], np.float64)
    for k, poly in enumerate(polygons):
        points = np.round(poly - shift).astype(np.int32).reshape(-1, 1, 2)
        cv2.fillPoly(mask, [points], 255 if k == 0 else 0)
    return image[y0:y1, x0:x1], mask


def _patch_counts(
    image: np.ndarray, polygons: list[np.ndarray], settings: ColourSettings
) -> tuple[tuple[int, int, int], int, tuple[float, float, float] | None]:
    """A patch's pixel counts (all, too dark, clipped), how many are usable, and the
    usable pixels' per-channel median (BGR; None without any), counted in histograms over
    the patch's box rather than by gathering its pixels."""
    crop, mask = _patch_mask(image, polygons)
    if not mask.size:
        return (0, 0, 0), 0, None
    # The brightest channel is HSV's value (8-bit: V = max(B, G, R)): the one conversion
    # costs about a seventh of splitting the channels and taking their most.
    value = cv2.cvtColor(crop, cv2.COLOR_BGR2HSV)
    # Per level of the brightest channel, how many of the patch's pixels have it.
    levels = cv2.calcHist([value], [2], mask, [256], [0, 256]).ravel()
    total = int(levels.sum())
    dark = int(levels[: settings.dark + 1].sum())
    saturated = int(levels[settings.saturated :].sum())
    usable = total - dark - saturated
    if usable <= 0:
        return (total, dark, saturated), 0, None
    lit = cv2.inRange(value, (0, 0, settings.dark + 1), (255, 255, settings.saturated - 1))
    kept = cv2.bitwise_and(mask, lit)
    counts = np.stack([cv2.calcHist([crop], [c], kept, [256], [0, 256]).ravel() for c in range(3)])
    middles = tuple(_histogram_medians(counts, usable).tolist())
    return (total, dark, saturated), usable, middles


def _histogram_medians(counts: np.ndarray, n: int) -> np.ndarray:
    """The median of ``n`` 8-bit values given as a histogram, as ``np.median`` gives it
    (the mean of the two middle values for an even count), for each histogram (a row of
    ``counts``, each of ``n`` values)."""
    running = np.cumsum(counts, axis=-1)
    # The first level whose running count passes a middle value's index (what
    # ``searchsorted(..., side="right")`` finds): how many levels' counts do not.
    low = (running <= (n - 1) // 2).sum(axis=-1)
    high = (running <= n // 2).sum(axis=-1)
    return (low + high) / 2.0


def _check_image(image: object) -> np.ndarray:
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8:
        kind = getattr(image, "dtype", type(image).__name__)
        raise ColourError(f"colour correction needs a BGR uint8 image, got {kind}")
    if image.ndim != 3 or image.shape[2] != 3:
        raise ColourError(
            f"colour correction needs a BGR image (height, width, 3), got {image.shape}"
        )
    return image


def measure(
    image: np.ndarray, patches: Sequence[Patch], settings: ColourSettings = DEFAULT_SETTINGS
) -> Reference:
    """Read the white of the reference patches in a BGR uint8 image.

    Raises :class:`ColourError` when no patch is given, a polygon is malformed, or too
    few pixels are usable, saying whether they were too dark (a black frame, the light
    off, the lens covered), clipped (blown out), or outside the image.
    """
    image = _check_image(image)
    if len(patches) == 0:
        raise ColourError("no reference patches given")
    readings: list[PatchReading] = []
    rejected: list[tuple[int, str]] = []
    totals = {"total": 0, "dark": 0, "saturated": 0}
    for index, patch in enumerate(patches):
        polygons = _polygons(patch, index)
        counts, usable, bgr = _patch_counts(image, polygons, settings)
        for key, value in zip(("total", "dark", "saturated"), counts, strict=True):
            totals[key] += value
        if usable < settings.min_patch_pixels:
            rejected.append((index, _why_unusable(usable, *counts)))
            continue
        centre = polygons[0].mean(axis=0)
        readings.append(
            PatchReading(index, (float(centre[0]), float(centre[1])), bgr, usable, *counts)
        )
    readings = _drop_outliers(readings, rejected, settings)
    used = sum(p.usable for p in readings)
    if not readings or used < settings.min_pixels:
        raise ColourError(
            f"the reference patches are unusable: {used} of {totals['total']} pixels in "
            f"{len(patches)} patches usable (at least {settings.min_pixels} needed); "
            + _diagnosis(totals)
            + (
                "; " + "; ".join(f"patch {i}: {why}" for i, why in rejected)
                if rejected and len(rejected) <= 8
                else ""
            )
        )
    white = median(np.array([p.bgr for p in readings]), axis=0)
    height, width = image.shape[:2]
    return Reference(
        (float(white[0]), float(white[1]), float(white[2])),
        tuple(readings),
        tuple(sorted(rejected)),
        (width, height),
    )


def _why_unusable(usable: int, total: int, dark: int, saturated: int) -> str:
    if total == 0:
        return "outside the image"
    return f"{usable} of {total} pixels usable ({dark} too dark, {saturated} clipped)"


def _diagnosis(totals: dict[str, int]) -> str:
    total, dark, saturated = totals["total"], totals["dark"], totals["saturated"]
    if total == 0:
        return "the patches lie outside the image (is the board registered?)"
    if dark >= saturated and dark > total / 2:
        return (
            f"{dark} too dark: the frame is black or nearly (light off, lens covered, "
            "exposure far too short?)"
        )
    if saturated > total / 2:
        return (
            f"{saturated} clipped: the frame is blown out (overexposed; lower the "
            "exposure or the light)"
        )
    return f"{dark} too dark and {saturated} clipped; the patches are too small or covered"


def _drop_outliers(
    readings: list[PatchReading], rejected: list[tuple[int, str]], settings: ColourSettings
) -> list[PatchReading]:
    if len(readings) < 3:
        return readings
    chromas = np.array([p.chromaticity for p in readings])
    centre = median(chromas, axis=0)  # ``np.median``'s value at a fraction of its cost
    distance = np.linalg.norm(chromas - centre, axis=1)
    kept = []
    for reading, d in zip(readings, distance, strict=True):
        if d > settings.outlier_chroma:
            rejected.append(
                (reading.index, f"its colour is {d:.3f} away from the others': covered?")
            )
        else:
            kept.append(reading)
    return kept


# --- corrections -------------------------------------------------------------------------

Target = float | tuple[float, float, float] | Reference


def _target_linear(target: Target) -> np.ndarray:
    if isinstance(target, Reference):
        return target.linear
    values = np.broadcast_to(np.asarray(target, dtype=np.float64), (3,))
    if not np.isfinite(values).all() or (values <= 0).any() or (values > 255).any():
        raise ColourError(f"target white {target!r} is not an 8-bit level in 1..255")
    return to_linear(values)


@dataclass(frozen=True)
class Gains:
    """Per-channel multipliers in linear light: a uniform correction."""

    b: float
    g: float
    r: float

    def as_array(self) -> np.ndarray:
        return np.array([self.b, self.g, self.r])

    def to_dict(self) -> dict[str, float]:
        return {"b": round(self.b, 5), "g": round(self.g, 5), "r": round(self.r, 5)}


def _check_gains(gains: np.ndarray, what: str, settings: ColourSettings) -> None:
    worst = float(np.max(gains))
    if worst > settings.max_gain:
        raise ColourError(
            f"{what} is too dark to correct: a gain of {worst:.1f} would be needed "
            f"(at most {settings.max_gain:g})"
        )


def correction(
    reference: Reference, target: Target = WHITE_LEVEL, settings: ColourSettings = DEFAULT_SETTINGS
) -> Gains:
    """The uniform gains that map the reference's white onto ``target``: an 8-bit grey
    level, an 8-bit (B, G, R), or a :class:`Reference` (the light at calibration time).
    """
    gains = _target_linear(target) / np.maximum(reference.linear, 1e-6)
    _check_gains(
        gains, f"the reference white {tuple(round(v, 1) for v in reference.bgr)}", settings
    )
    return Gains(float(gains[0]), float(gains[1]), float(gains[2]))


@dataclass(frozen=True)
class GainField:
    """A smooth correction for uneven light.

    The light over the image is modelled per channel as ``a + b·x + c·y + d·x·y`` in
    linear light (x, y scaled to 0..1 over the image, so a field fits any resolution of
    the same view), and the gain at each pixel is the target divided by that light.
    Linear light, because light adds: the model is exact for light that rises steadily
    across the table (a window at one side), and close for a lamp above or beside the
    board (in the tests, with four corner patches: mean Delta E 0.1-1.7 where uniform
    gains leave 2.9-7.2). A log-light model was tried: better for one convex falloff,
    worse for a lamp's cos³/d² falloff and a window's ramp. With only four corner
    patches no smooth model can follow a sharp spotlight; more patches can. ``model``
    is ``bilinear`` (four patches or more) or ``planar`` (three: a + b·x + c·y). The
    modelled light is kept above ``floor`` and the gains at most ``max_gain``.
    """

    coefficients: np.ndarray = field(repr=False)  # (terms, 3) linear light
    target: tuple[float, float, float]  # linear light
    model: str
    floor: tuple[float, float, float]  # linear light
    max_gain: float

    def light_at(self, x: np.ndarray | float, y: np.ndarray | float) -> np.ndarray:
        """The modelled linear light (..., 3) at normalised positions."""
        x, y = np.broadcast_arrays(np.asarray(x, np.float64), np.asarray(y, np.float64))
        terms = [np.ones_like(x), x, y, x * y][: len(self.coefficients)]
        return np.maximum(np.stack(terms, axis=-1) @ self.coefficients, np.array(self.floor))

    def gains_at(self, x: float, y: float, size: tuple[int, int]) -> Gains:
        """The gains at pixel (x, y) of an image of ``size`` (width, height)."""
        light = self.light_at((x + 0.5) / size[0], (y + 0.5) / size[1])
        gains = np.minimum(np.array(self.target) / light, self.max_gain)
        return Gains(float(gains[0]), float(gains[1]), float(gains[2]))

    def gain_map(self, width: int, height: int) -> np.ndarray:
        """Per-pixel gains (height, width, 3), float32. The light is bilinear, so each
        row is a straight line in x: ``(a + c·y) + (b + d·y)·x``, computed row-wise."""
        xs = ((np.arange(width) + 0.5) / width).astype(np.float32)
        ys = ((np.arange(height) + 0.5) / height).astype(np.float32)
        a, b, c = (self.coefficients[k].astype(np.float32) for k in range(3))
        d = self.coefficients[3].astype(np.float32) if len(self.coefficients) > 3 else 0 * a
        planes = []
        for k in range(3):  # one channel at a time: contiguous planes are fast
            light = (a[k] + c[k] * ys)[:, None] + (b[k] + d[k] * ys)[:, None] * xs[None, :]
            np.maximum(light, np.float32(self.floor[k]), out=light)
            gains = np.divide(np.float32(self.target[k]), light, out=light)
            planes.append(np.minimum(gains, np.float32(self.max_gain), out=gains))
        return cv2.merge(planes)


def correction_field(
    reference: Reference, target: Target = WHITE_LEVEL, settings: ColourSettings = DEFAULT_SETTINGS
) -> GainField:
    """Fit the light over the image through the patches' centres (least squares in
    linear light; bilinear from four patches, a plane from three) and correct it to a
    uniform ``target``. Fewer than three patches, or patches in a line, cannot show how
    the light varies: :class:`ColourError`. So does a field that would need more than
    ``settings.max_gain`` in a corner of the image."""
    patches = reference.patches
    if len(patches) < 3:
        raise ColourError(
            f"a gain field needs three or more usable patches, got {len(patches)}; "
            "use the uniform correction"
        )
    width, height = reference.size
    xy = np.array([((p.centre[0] + 0.5) / width, (p.centre[1] + 0.5) / height) for p in patches])
    light = np.array([p.linear for p in patches])
    x, y = xy[:, 0], xy[:, 1]
    bilinear = [np.ones_like(x), x, y, x * y]
    fit: tuple[str, np.ndarray] | None = None
    for name, terms in (("bilinear", bilinear), ("planar", bilinear[:3])):
        if len(patches) < len(terms):
            continue
        solution, _, rank, _ = np.linalg.lstsq(np.stack(terms, axis=1), light, rcond=None)
        if rank == len(terms):
            fit = name, solution
            break
    if fit is None:
        raise ColourError(
            f"the {len(patches)} patches' centres "
            f"{[tuple(round(c) for c in p.centre) for p in patches]} lie in a line: "
            "they cannot show how the light varies"
        )
    model, coefficients = fit
    target_linear = _target_linear(target)
    floor = 0.25 * light.min(axis=0)  # extrapolation may not turn the light off
    result = GainField(
        coefficients,
        (float(target_linear[0]), float(target_linear[1]), float(target_linear[2])),
        model,
        (float(floor[0]), float(floor[1]), float(floor[2])),
        settings.max_gain,
    )
    corners = result.light_at(np.array([0.0, 1.0, 0.0, 1.0]), np.array([0.0, 0.0, 1.0, 1.0]))
    _check_gains(
        target_linear / corners.min(axis=0), "the light in a corner of the image", settings
    )
    return result


def _levels(gains: Gains) -> np.ndarray:
    """Per 8-bit level (256, 3: B, G, R), the level ``gains`` make of it (``apply``)."""
    levels = _DECODE[:, None].astype(np.float64) * gains.as_array()[None, :]
    return _ENCODE[np.round(np.clip(levels, 0, 1) * (_ENCODE_STEPS - 1)).astype(np.intp)]


def apply_unit(image: np.ndarray, gains: Gains | GainField) -> np.ndarray:
    """``apply``'s image as float32 from 0 to 1 (its levels over 255), what a conversion
    to CIE Lab takes: with uniform gains in one lookup, which saves a reader the copy
    and the division on every frame."""
    if isinstance(gains, Gains):
        table = _levels(gains).astype(np.float32) / 255.0  # as ``astype`` then ``/`` give
        return cv2.LUT(_check_image(image), table.reshape(256, 1, 3))
    return apply(image, gains).astype(np.float32) / 255.0


def apply(image: np.ndarray, gains: Gains | GainField) -> np.ndarray:
    """The image corrected: decoded to linear light, multiplied, re-encoded; uint8,
    clipped at white."""
    image = _check_image(image)
    if isinstance(gains, Gains):
        return cv2.LUT(image, _levels(gains).reshape(256, 1, 3))
    height, width = image.shape[:2]
    linear = cv2.LUT(image, _DECODE_BGR)  # float32
    np.multiply(linear, gains.gain_map(width, height), out=linear)
    np.clip(linear, 0.0, 1.0, out=linear)
    linear *= _ENCODE_STEPS - 1
    linear += 0.5  # rounds on truncation
    return _ENCODE[linear.astype(np.uint16)]


def correct(
    image: np.ndarray,
    reference: Reference,
    target: Target = WHITE_LEVEL,
    settings: ColourSettings = DEFAULT_SETTINGS,
) -> tuple[np.ndarray, Gains | GainField]:
    """Correct an image from its reference: a gain field when the light is uneven (the
    patches differ by more than ``settings.uneven`` in brightness or
    ``settings.uneven_chroma`` in colour, and three or more patches were read), uniform
    gains otherwise. Returns the corrected image and the correction used."""
    uneven = reference.spread > settings.uneven or reference.chroma_spread > settings.uneven_chroma
    chosen: Gains | GainField
    if uneven and len(reference.patches) >= 3:
        chosen = correction_field(reference, target, settings)
    else:
        chosen = correction(reference, target, settings)
    return apply(image, chosen), chosen
