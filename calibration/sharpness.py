"""How a frame is blurred by motion, measured on its markers, and that blur undone.

Why: a camera on a stand shakes when someone knocks the table, and a frame taken then is
smeared along one direction by a few pixels. A white piece on a light square then loses
the edges that tell it from the square, and a falcon's round top smears into a beetle's
oval. The set-up photos a profile is learnt from are taken still, so the reader compares
a smeared piece with sharp examples. On the benchmark's rendered frames (seeds 1-1000,
read without the rules' count), the 128 frames with motion blur held 36 misread squares,
the other 844 frames 58 (throwaway scripts: sharpened as this module does, by a first
version of its search, 19). The whole benchmark, read as it scores, went from 70
misread squares to 60.

The board carries a sharp reference: its ArUco markers, whose every cell is known (the
sheet's dictionary) and whose corners the registration has found. The steps:

1. :func:`marker_views`: each marker the registration used, as the frame shows it
   (grey) and as a sharp camera would have drawn it there (its cells warped onto the
   found corners, anti-aliased), with the pixels where the two can be compared: the
   marker and its white quiet zone, less a rim where what lies beyond it bleeds in.
2. :func:`anisotropy`: how much weaker the frame's edges are one way than the other,
   against the sharp drawing's (their gradients' second moments). Defocus weakens edges
   every way alike; motion weakens them along its direction. Cheap, so every frame is
   looked at (each of the first two markers alone first: a frame where both are well
   over the mark is still, its other markers not looked at, ``BlurSettings.quick_above``);
   only a frame under ``BlurSettings.anisotropy_below`` is measured further.
3. :func:`measure`: the line blur (length, direction) with a defocus that, applied to the
   sharp drawings, explains the frame's markers best (least squares, each marker with
   its own black and white levels), searched from the anisotropy's direction. It is
   taken only if it explains them clearly better than any defocus alone
   (``motion_gain_below``): a still frame's markers, or a marker partly hidden, should
   not be "deblurred".
4. :func:`sharpen`: a Wiener filter with that line blur (not the defocus: the set-up
   photos were as defocused, so the profile's examples are), on the frame's lightness
   only (``wiener_nsr`` keeps the noise down), its detail added to each channel alike,
   within the region the reader looks at. The filter is cut to a small kernel
   (``undoing_kernel``): one pass of ``cv2.filter2D``, a few milliseconds.

:func:`sharpened` does all four. Lengths and directions are in image pixels and degrees
(x to the right, y down), as the frame was taken.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from calibration.registration import Registration
from calibration.sheet import Sheet, dictionary_bits

#: Supersampling of a marker's sharp drawing before it is averaged down to the frame's
#: pixels (an anti-aliased edge, as a sharp camera's pixel integrates it).
SUPERSAMPLING = 2
#: A marker cell's side in the drawing that is warped (px).
CELL_PX = 8


@dataclass(frozen=True)
class BlurSettings:
    """``anisotropy_below``: a frame whose markers' edges are weaker one way than the
    other by this ratio (``anisotropy``) is measured for motion blur. On the test bed's
    rendered frames (throwaway script), 836 of 844 still frames were above 0.93 (the
    lowest 0.896), and every frame blurred by 2 px or more under it, most well under 0.9.
    ``motion_gain_below``: the line blur found must leave under this share of the
    squared misfit that the best defocus alone leaves (still frames' best lines left 0.7
    to 1.5 of it, blurred frames' 0.2 to 0.8). ``defocus_px``: the defocus (Gaussian
    sigma) tried; ``lengths_px``: the blur lengths tried first, then refined by
    ``length_step_px`` either way; ``turns_deg``: the turns tried about the
    anisotropy's direction, then ``fine_turn_deg`` either way. ``wiener_nsr``: the Wiener
    filter's noise-to-signal ratio (higher: less sharpening, less noise), and
    ``undo_reach`` how far its kernel reaches, in blur lengths. A blur shorter than
    ``least_length_px`` is left alone (the reader looks at about half the frame's
    resolution). ``rim_px``: how
    far inside a marker's quiet zone the comparison stops (what lies beyond bleeds in
    that far). ``quick_markers`` and ``quick_above``: before the anisotropy of every
    marker, that of each of the first ``quick_markers`` alone; a frame where each of
    them is at ``quick_above`` or more is still, and its other markers are not looked at
    (None: every marker always). A marker alone measures its edges both ways, as all of
    them do: on the reader benchmark's frames (seeds 1-1000, the 975 registered;
    workbench script), the 138 frames under ``anisotropy_below`` (the 128 with a blur
    found among them) had a first or second marker at 0.924 or under, and 547 frames
    had both at 0.95 or over: for those, two markers are drawn, not all of them (the
    test took 0.37 ms against 0.61, median of seeds 1-60). The two markers' anisotropy
    together is no such test: one of those 138 frames had it at 0.965."""

    anisotropy_below: float = 0.93
    motion_gain_below: float = 0.8
    defocus_px: tuple[float, ...] = (0.4, 0.7, 1.0)
    lengths_px: tuple[float, ...] = (1.5, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 5.5, 6.0, 6.5, 7.0)
    length_step_px: float = 0.25
    turns_deg: tuple[float, ...] = (-20.0, -10.0, 0.0, 10.0, 20.0)
    fine_turn_deg: float = 5.0
    wiener_nsr: float = 0.1
    undo_reach: float = 1.5
    least_length_px: float = 1.5
    rim_px: int = 3
    quick_markers: int = 2
    quick_above: float | None = 0.95


@dataclass(frozen=True)
class Blur:
    """A frame's motion blur: a line ``length_px`` long at ``angle_deg`` (image x to
    the right, y down; 0 to 180), with a defocus ``defocus_px`` (Gaussian sigma) on
    top; ``gain`` is the share of the best defocus alone's misfit that it leaves on the
    markers (lower: surer), ``anisotropy`` the ratio that led to it."""

    length_px: float
    angle_deg: float
    defocus_px: float
    gain: float
    anisotropy: float

    def __repr__(self) -> str:
        return (f"Blur(length_px={self.length_px:.2f}, angle_deg={self.angle_deg:.1f}, "
                f"defocus_px={self.defocus_px:.2f}, gain={self.gain:.3f}, "
                f"anisotropy={self.anisotropy:.3f})")  # fmt: skip


@dataclass(frozen=True)
class MarkerView:
    """One marker: ``seen`` (the frame's grey, float32), ``sharp`` (its drawing, 0 black
    to 1 white, float32), ``usable`` (bool: where they are compared), all the same
    shape, a box of the frame."""

    seen: np.ndarray
    sharp: np.ndarray
    usable: np.ndarray

    @functools.cached_property
    def moments(self) -> tuple[np.ndarray, np.ndarray]:
        """The second moments (2 x 2) of the frame's gradients here and of the drawing's
        at the frame's levels (``anisotropy``): worked out once, as the quick look and
        the whole test both ask for them."""
        gain, offset = _levels(self.seen[self.usable], self.sharp[self.usable])
        drawn = self.sharp * np.float32(gain) + np.float32(offset)
        found = []
        for picture in (self.seen, drawn):
            gx = cv2.Sobel(picture, cv2.CV_32F, 1, 0, ksize=3)[self.usable]
            gy = cv2.Sobel(picture, cv2.CV_32F, 0, 1, ksize=3)[self.usable]
            found.append(np.array([[gx @ gx, gx @ gy], [gx @ gy, gy @ gy]], np.float64))
        return found[0], found[1]


def line_kernel(length_px: float, angle_deg: float) -> np.ndarray:
    """A straight blur ``length_px`` long at ``angle_deg``: a kernel (odd square,
    float32, summing to 1) whose weight lies along the line, spread to the pixels by
    bilinear weights so that it changes smoothly with the length and the angle."""
    if not length_px > 0:
        raise ValueError(f"a line blur needs a length above 0 (got {length_px!r})")
    radius = math.ceil(length_px / 2) + 1
    kernel = np.zeros((2 * radius + 1, 2 * radius + 1), np.float32)
    a = math.radians(angle_deg)
    n = max(2, math.ceil(length_px * 4))
    steps = (np.arange(n) + 0.5) * (length_px / n) - length_px / 2  # the segments' middles
    x, y = radius + steps * math.cos(a), radius + steps * math.sin(a)
    x0, y0 = np.floor(x).astype(int), np.floor(y).astype(int)
    fx, fy = (x - x0).astype(np.float32), (y - y0).astype(np.float32)
    # The four neighbours' weights in one call, in the order four calls would add them.
    rows = np.concatenate([y0, y0, y0 + 1, y0 + 1])
    columns = np.concatenate([x0, x0 + 1, x0, x0 + 1])
    weights = np.concatenate([(1 - fx) * (1 - fy), fx * (1 - fy), (1 - fx) * fy, fx * fy])
    np.add.at(kernel, (rows, columns), weights)
    return kernel / kernel.sum()


@functools.lru_cache(maxsize=64)
def _drawing(sheet: Sheet, marker_id: int, quiet: int) -> np.ndarray:
    """The marker with ``quiet`` white cells around it, ``CELL_PX`` a cell (kept)."""
    bits = sheet.marker_cells(marker_id).astype(np.float32)
    drawing = np.pad(bits, quiet, constant_values=1.0)
    return cv2.resize(drawing, None, fx=CELL_PX, fy=CELL_PX, interpolation=cv2.INTER_NEAREST)


def marker_views(
    image: np.ndarray, registration: Registration, sheet: Sheet, settings: BlurSettings
) -> list[MarkerView]:
    """Each marker the registration used and found whole inside the frame: as the frame
    (BGR) shows it and as a sharp camera would have (``MarkerView``). The drawing is
    warped onto the corners found, with a quiet zone of whole cells around it."""
    return list(_marker_views(image, registration, sheet, settings))


def _marker_views(
    image: np.ndarray, registration: Registration, sheet: Sheet, settings: BlurSettings
) -> Iterator[MarkerView]:
    """``marker_views``, one at a time, in the sheet's order."""
    found = {m.id: np.asarray(m.corners, np.float64).reshape(4, 2) for m in registration.markers}
    cells = dictionary_bits(sheet.dictionary) + 2  # with the black border
    for marker in sheet.markers:
        if marker.id not in registration.used or marker.id not in found:
            continue
        quiet = max(1, int(marker.quiet_zone_mm / (marker.size_mm / cells)))
        drawing = _drawing(sheet, marker.id, quiet)
        # Pixel centres: the black square's corners are the outer edges of its cells.
        a, b = quiet * CELL_PX - 0.5, (quiet + cells) * CELL_PX - 0.5
        square = np.array([[a, a], [b, a], [b, b], [a, b]], np.float32)
        to_frame = cv2.getPerspectiveTransform(square, found[marker.id].astype(np.float32))
        side = drawing.shape[0] - 0.5
        outline = np.array([[[-0.5, -0.5], [side, -0.5], [side, side], [-0.5, side]]], np.float32)
        corners = cv2.perspectiveTransform(outline, to_frame)[0]
        x0, y0 = np.floor(corners.min(axis=0)).astype(int) - 1
        x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 2
        if x0 < 0 or y0 < 0 or x1 > image.shape[1] or y1 > image.shape[0]:
            continue
        w, h = x1 - x0, y1 - y0
        s = SUPERSAMPLING
        # Frame pixel (x, y) covers supersampled pixels s*x .. s*x + s - 1, centred at
        # s*x + (s - 1) / 2.
        to_big = np.array([[s, 0, (s - 1) / 2 - s * x0], [0, s, (s - 1) / 2 - s * y0], [0, 0, 1]])
        warp = to_big @ to_frame
        big = cv2.warpPerspective(drawing, warp, (w * s, h * s), flags=cv2.INTER_LINEAR,
                                  borderMode=cv2.BORDER_CONSTANT, borderValue=1.0)  # fmt: skip
        sharp = cv2.resize(big, (w, h), interpolation=cv2.INTER_AREA)
        # Inside the drawing's outline, less the rim (what lies beyond bleeds in).
        inside = np.zeros((h, w), np.uint8)
        cv2.fillPoly(inside, [np.round((corners - [x0, y0]) * 16).astype(np.int32)], 1,
                     cv2.LINE_8, 4)  # fmt: skip
        rim = 2 * settings.rim_px + 3
        usable = cv2.erode(inside, np.ones((rim, rim), np.uint8)) > 0
        if usable.sum() < 16:
            continue
        seen = cv2.cvtColor(image[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY).astype(np.float32)
        yield MarkerView(seen, sharp.astype(np.float32), usable)


def _levels(seen: np.ndarray, drawn: np.ndarray) -> tuple[float, float]:
    """The black and white levels (``seen`` ~ gain * ``drawn`` + offset) by least
    squares: (gain, offset)."""
    middle = seen.mean()
    return _levels_about(middle, seen - middle, drawn)


def _levels_about(
    middle: np.floating, centred: np.ndarray, drawn: np.ndarray
) -> tuple[float, float]:
    """``_levels`` given the seen pixels' mean and the pixels less it (the same for every
    blur tried on a marker)."""
    if drawn.dtype in (np.float32, np.float64):
        # ``drawn.mean()``'s value (the sum in the pixels' own type over their count),
        # without its call's overhead: this runs for every marker and every blur tried.
        drawn_middle = drawn.dtype.type(np.add.reduce(drawn) / np.intp(drawn.size))
    else:
        drawn_middle = drawn.mean()
    d = drawn - drawn_middle
    gain = float(d @ centred) / max(float(d @ d), 1e-9)
    return gain, float(middle - gain * drawn_middle)


def anisotropy(views: Sequence[MarkerView]) -> tuple[float, float]:
    """How much weaker the frame's edges are the weakest way than the strongest, against
    the sharp drawings' (1: alike every way; lower: a motion blur), and the weakest way
    (degrees, image x to the right, y down): (ratio, angle)."""
    seen_m, drawn_m = np.zeros((2, 2)), np.zeros((2, 2))
    for view in views:
        seen, drawn = view.moments
        seen_m += seen
        drawn_m += drawn
    values, vectors = np.linalg.eigh(drawn_m)
    if values[0] <= 0:
        return 1.0, 0.0
    # The frame's moments in the drawing's whitened frame: isotropic when the blur is.
    whiten = vectors @ np.diag(values**-0.5) @ vectors.T
    ratios, ways = np.linalg.eigh(whiten @ seen_m @ whiten)
    if ratios[1] <= 0:
        return 1.0, 0.0
    way = whiten @ ways[:, 0]
    return float(ratios[0] / ratios[1]), math.degrees(math.atan2(way[1], way[0])) % 180.0


class _Misfit:
    """The markers' squared misfit under a blur, kept per blur tried (each marker with
    its own levels, in units of its black-to-white step)."""

    def __init__(self, views: Sequence[MarkerView]) -> None:
        self.views = views
        self.defocused: dict[float, list[np.ndarray]] = {}
        self.tried: dict[tuple[float, float, float], float] = {}
        # What every blur tried is compared with, the same each time: each marker's
        # usable pixels (their places, values, mean and values less the mean).
        self.compared = []
        for view in views:
            where = np.flatnonzero(view.usable)
            seen = view.seen.ravel()[where]
            middle = seen.mean()
            self.compared.append((where, seen, middle, seen - middle))

    def __call__(self, defocus: float, length: float, angle: float) -> float:
        key = (defocus, round(length, 3), round(angle % 180.0, 2))
        if key not in self.tried:
            if defocus not in self.defocused:
                self.defocused[defocus] = [cv2.GaussianBlur(v.sharp, (0, 0), defocus)
                                           for v in self.views]  # fmt: skip
            kernel = line_kernel(length, angle) if length > 0 else None
            total = 0.0
            for (where, seen, middle, centred), drawn in zip(self.compared,
                                                             self.defocused[defocus],
                                                             strict=True):  # fmt: skip
                if kernel is not None:
                    drawn = cv2.filter2D(drawn, -1, kernel, borderType=cv2.BORDER_REPLICATE)
                drawn = drawn.ravel()[where]
                gain, offset = _levels_about(middle, centred, drawn)
                rest = seen - gain * drawn - offset
                total += float(rest @ rest) / max(gain * gain, 1e-6)
            self.tried[key] = total
        return self.tried[key]


def measure(views: Sequence[MarkerView], settings: BlurSettings) -> Blur | None:
    """The frame's motion blur from its markers' ``views``, or None: no marker, edges
    alike every way (``anisotropy_below``), or no line blur that explains the markers
    clearly better than a defocus alone (``motion_gain_below``), or one too short to
    matter (``least_length_px``)."""
    if not views:
        return None
    ratio, way = anisotropy(views)
    if ratio >= settings.anisotropy_below:
        return None
    misfit = _Misfit(views)
    still = min(misfit(d, 0.0, 0.0) for d in settings.defocus_px)
    # One setting at a time, from the anisotropy's direction and a middling defocus.
    defocus = settings.defocus_px[len(settings.defocus_px) // 2]
    length = min(settings.lengths_px, key=lambda n: misfit(defocus, n, way))
    angle = min((way + t for t in settings.turns_deg), key=lambda a: misfit(defocus, length, a))
    fine = settings.fine_turn_deg
    angle = min((angle - fine, angle, angle + fine), key=lambda a: misfit(defocus, length, a))
    defocus = min(settings.defocus_px, key=lambda d: misfit(d, length, angle))
    step = settings.length_step_px
    length = min((n for n in (length - 2 * step, length - step, length, length + step,
                              length + 2 * step) if n > 0),
                 key=lambda n: misfit(defocus, n, angle))  # fmt: skip
    gain = misfit(defocus, length, angle) / max(still, 1e-9)
    if gain >= settings.motion_gain_below or length < settings.least_length_px:
        return None
    return Blur(float(length), float(angle % 180.0), float(defocus), float(gain), ratio)


def undoing_kernel(blur: Blur, settings: BlurSettings) -> np.ndarray:
    """The Wiener filter that undoes ``blur``'s line (``wiener_nsr``), as a small kernel
    (float32, odd square): worked out on a grid four times its width, cut at
    ``undo_reach`` times the blur's length each way (what lies beyond weighs under 1 %
    of it) and scaled to keep a flat area's lightness."""
    line = line_kernel(blur.length_px, blur.angle_deg)
    reach = math.ceil(settings.undo_reach * blur.length_px) + 1
    size = 1 << math.ceil(math.log2(4 * (2 * reach + 1)))
    spread = np.zeros((size, size), np.float64)
    r = line.shape[0] // 2
    spread[: line.shape[0], : line.shape[1]] = line
    spread = np.roll(spread, (-r, -r), axis=(0, 1))  # centred on pixel (0, 0)
    k = np.fft.fft2(spread)
    undo = np.real(np.fft.ifft2(np.conj(k) / (np.abs(k) ** 2 + settings.wiener_nsr)))
    undo = np.roll(undo, (reach, reach), axis=(0, 1))[: 2 * reach + 1, : 2 * reach + 1]
    return (undo / undo.sum()).astype(np.float32)


def sharpen(
    image: np.ndarray, blur: Blur, settings: BlurSettings,
    region: tuple[int, int, int, int] | None = None,
) -> np.ndarray:  # fmt: skip
    """``image`` (BGR, uint8) with ``blur``'s line undone (``undoing_kernel``) within
    ``region`` (x0, y0, x1, y1; the whole frame by default); a new image. The filter
    works on the lightness (the channels' mean) and its detail is added to each channel
    alike: the colours' own noise is not raised, and on a board colour edges are
    lightness edges too."""
    h, w = image.shape[:2]
    x0, y0, x1, y1 = region if region is not None else (0, 0, w, h)
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    out = image.copy()
    if x1 <= x0 or y1 <= y0:
        return out
    part = image[y0:y1, x0:x1].astype(np.float32)
    light = cv2.transform(part, np.full((1, 3), 1.0 / 3.0, np.float32))
    detail = cv2.filter2D(light, -1, undoing_kernel(blur, settings),
                          borderType=cv2.BORDER_REFLECT) - light  # fmt: skip
    out[y0:y1, x0:x1] = cv2.add(part, cv2.merge([detail, detail, detail]), dtype=cv2.CV_8U)
    return out


def board_region(
    registration: Registration, sheet: Sheet, margin_mm: float, image_size: tuple[int, int]
) -> tuple[int, int, int, int]:
    """The frame's box (x0, y0, x1, y1) around the board's grid widened by ``margin_mm``
    and its markers (``Sheet.bounds_mm``), clipped to the frame (``image_size``: width,
    height)."""
    bounds = np.array(sheet.bounds_mm())
    x0, y0 = np.minimum(sheet.grid.corners()[0] - margin_mm, bounds[:2])
    x1, y1 = np.maximum(sheet.grid.corners()[2] + margin_mm, bounds[2:])
    square = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    # The sides between the corners bow with the lens: a few points along each.
    along = np.linspace(0.0, 1.0, 5)[:, None]
    edges = [a + along * (b - a) for a, b in zip(square, np.roll(square, -1, axis=0), strict=True)]
    seen = registration.to_image(np.concatenate(edges))
    w, h = image_size
    left, top = np.floor(seen.min(axis=0)).astype(int)
    right, bottom = np.ceil(seen.max(axis=0)).astype(int) + 1
    return max(0, int(left)), max(0, int(top)), min(w, int(right)), min(h, int(bottom))


def sharpened(
    image: np.ndarray, registration: Registration, sheet: Sheet, settings: BlurSettings,
    region: tuple[int, int, int, int] | None = None, *, margin_mm: float | None = None,
) -> tuple[np.ndarray, Blur | None]:  # fmt: skip
    """``image`` with its motion blur undone within ``region`` (``sharpen``), and the
    blur measured on its markers; the image itself and None when there is none. Given
    ``margin_mm`` instead of a ``region``, within the board's ``board_region`` with that
    margin, worked out only when there is a blur to undo (most frames have none, and it
    cost a reading about a tenth of a millisecond)."""
    found = _marker_views(image, registration, sheet, settings)
    first = list(itertools.islice(found, settings.quick_markers))
    if (settings.quick_above is not None and first and len(first) == settings.quick_markers
            and min(anisotropy([view])[0] for view in first) >= settings.quick_above):  # fmt: skip
        return image, None
    blur = measure([*first, *found], settings)
    if blur is None:
        return image, None
    if region is None and margin_mm is not None:
        region = board_region(registration, sheet, margin_mm, (image.shape[1], image.shape[0]))
    return sharpen(image, blur, settings, region), blur
