"""Colour correction (calibration/colour.py) on a synthetic scene: coloured tiles and four
white reference patches (the quiet zones around corner markers), rendered physically
(reflectance times light in linear units, then sRGB encoding, seeded sensor noise and
8-bit rounding) under neutral, warm, cold, dim and uneven light. After correction each
tile's colour is compared with the same tile under neutral light in CIE Lab (OpenCV's
conversion of float32 sRGB), Delta E 1976:

- uniform casts (warm, cold, dim, dim and warm): mean Delta E < 3, max < 6;
- uneven light with the fitted gain field, and less than half the uniform correction's
  mean error on the same frame: a lamp beside the board (cos³/d², five times brighter
  at the right edge than at the left) mean < 3, max < 8; a lamp above a corner and
  daylight rising steadily across the table mean < 2, max < 4.

The light monitor (calibration/light.py) flags warm to cold and bright to dim and stays
quiet for noise alone; a black and a blown-out frame are refused with the reason."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

import cv2
import numpy as np
import pytest

from calibration.colour import (
    WHITE_LEVEL,
    ColourError,
    ColourSettings,
    GainField,
    Gains,
    Reference,
    apply,
    apply_unit,
    correct,
    correction,
    correction_field,
    measure,
    to_encoded,
)
from calibration.light import LightMonitor, LightThresholds

WIDTH, HEIGHT = 640, 480
WHITE = 0.80  # linear reflectance of the white paper around the markers
TABLE = (0.16, 0.18, 0.20)  # linear B, G, R of the table cloth
#: The tiles: name -> linear reflectance (B, G, R).
TILES = {
    "red": (0.05, 0.06, 0.55),
    "green": (0.08, 0.40, 0.07),
    "blue": (0.45, 0.12, 0.05),
    "yellow": (0.05, 0.50, 0.60),
    "wood": (0.10, 0.20, 0.38),
    "orange": (0.03, 0.20, 0.65),
    "slate": (0.05, 0.05, 0.05),
    "grey": (0.30, 0.30, 0.30),
}
TILE, GAP = 64, 24  # tile side and gap, pixels
QUIET, MARKER, MARGIN = 72, 40, 12  # quiet-zone square, black marker inside, margin

Light = Callable[[np.ndarray, np.ndarray], np.ndarray]  # (x, y) in 0..1 -> (..., 3) BGR


def tile_boxes() -> dict[str, tuple[int, int, int, int]]:
    """Each tile's (x0, y0, x1, y1): two rows of four in the middle of the frame."""
    boxes = {}
    left = (WIDTH - (4 * TILE + 3 * GAP)) // 2
    top = (HEIGHT - (2 * TILE + GAP)) // 2
    for k, name in enumerate(TILES):
        x0 = left + (k % 4) * (TILE + GAP)
        y0 = top + (k // 4) * (TILE + GAP)
        boxes[name] = (x0, y0, x0 + TILE, y0 + TILE)
    return boxes


def marker_squares() -> list[tuple[np.ndarray, np.ndarray]]:
    """Each corner's quiet zone as (outline, hole): the white square minus the marker."""
    squares = []
    for cx in (MARGIN + QUIET / 2, WIDTH - MARGIN - QUIET / 2):
        for cy in (MARGIN + QUIET / 2, HEIGHT - MARGIN - QUIET / 2):

            def square(side: float, cx: float = cx, cy: float = cy) -> np.ndarray:
                h = side / 2
                return np.array(
                    [[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]]
                )

            squares.append((square(QUIET), square(MARKER)))
    return squares


def reflectance() -> np.ndarray:
    scene = np.empty((HEIGHT, WIDTH, 3), np.float64)
    scene[:] = TABLE
    for outline, hole in marker_squares():
        (x0, y0), (x1, y1) = outline.min(axis=0).astype(int), outline.max(axis=0).astype(int)
        scene[y0:y1, x0:x1] = WHITE
        (x0, y0), (x1, y1) = hole.min(axis=0).astype(int), hole.max(axis=0).astype(int)
        scene[y0:y1, x0:x1] = 0.03  # the marker's black
    for name, (x0, y0, x1, y1) in tile_boxes().items():
        scene[y0:y1, x0:x1] = TILES[name]
    return scene


def uniform(b: float, g: float, r: float) -> Light:
    return lambda x, y: np.broadcast_to(np.array([b, g, r]), (*np.broadcast(x, y).shape, 3))


NEUTRAL = uniform(1.0, 1.0, 1.0)
WARM = uniform(0.7, 1.0, 1.2)  # RGB (1.2, 1.0, 0.7): a tungsten-ish lamp
COLD = uniform(1.2, 1.0, 0.75)  # overcast daylight
DIM = uniform(0.3, 0.3, 0.3)
DIM_WARM = uniform(0.28, 0.4, 0.48)


def lamp(x0: float, y0: float, height: float, tint: tuple[float, float, float]) -> Light:
    """A small lamp at (x0, y0) in image widths (outside the image is beside the board),
    ``height`` image widths above the table: illuminance cos³θ/d², scaled so that the
    brightest pixel gets 1 (times the lamp's tint)."""

    def falloff(x: np.ndarray, y: np.ndarray) -> np.ndarray:
        dx, dy = np.asarray(x) - x0, (np.asarray(y) - y0) * HEIGHT / WIDTH
        return (height / np.sqrt(dx**2 + dy**2 + height**2)) ** 3

    ys, xs = np.mgrid[0:HEIGHT, 0:WIDTH]
    peak = falloff((xs + 0.5) / WIDTH, (ys + 0.5) / HEIGHT).max()
    return lambda x, y: (falloff(x, y) / peak)[..., None] * np.array(tint)


def window_at_right(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Daylight rising steadily from left to right, a little bluer."""
    intensity = 0.45 + 0.55 * np.asarray(x) + 0.0 * np.asarray(y)
    return intensity[..., None] * np.array([1.05, 1.0, 0.95])


LAMP_BESIDE = lamp(1.1, 0.5, 0.8, (0.85, 1.0, 1.1))  # 5x brighter at the right edge
LAMP_ABOVE_CORNER = lamp(-0.1, -0.1, 1.0, (0.85, 1.0, 1.1))


def render(light: Light, seed: int = 0, noise: float = 1.0) -> np.ndarray:
    ys, xs = np.mgrid[0:HEIGHT, 0:WIDTH]
    lit = reflectance() * light((xs + 0.5) / WIDTH, (ys + 0.5) / HEIGHT)
    encoded = to_encoded(lit) + np.random.default_rng(seed).normal(0.0, noise, lit.shape)
    return np.clip(np.rint(encoded), 0, 255).astype(np.uint8)


def tile_colours(image: np.ndarray) -> np.ndarray:
    """Each tile's mean colour (inner part, away from the edges) in CIE Lab, (N, 3)."""
    means = []
    for x0, y0, x1, y1 in tile_boxes().values():
        means.append(image[y0 + 8 : y1 - 8, x0 + 8 : x1 - 8].reshape(-1, 3).mean(axis=0))
    bgr = (np.array(means, np.float32) / 255.0).reshape(1, -1, 3)
    return cv2.cvtColor(bgr, cv2.COLOR_BGR2Lab).reshape(-1, 3)


def delta_e(image: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Delta E 1976 of each tile against the same tile in ``truth``."""
    return np.linalg.norm(tile_colours(image) - tile_colours(truth), axis=1)


@pytest.fixture(scope="module")
def neutral() -> np.ndarray:
    return render(NEUTRAL, seed=1)


@pytest.fixture(scope="module")
def calibrated(neutral: np.ndarray) -> Reference:
    """The light at calibration time: the white patches under neutral light."""
    return measure(neutral, marker_squares())


# --- uniform casts ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "light", "uncorrected_mean"),
    [("warm", WARM, 8.0), ("cold", COLD, 8.0), ("dim", DIM, 20.0), ("dim warm", DIM_WARM, 15.0)],
)
def test_a_uniform_cast_is_corrected_to_the_neutral_scene(
    name: str, light: Light, uncorrected_mean: float, neutral: np.ndarray, calibrated: Reference
) -> None:
    frame = render(light, seed=2)
    before = delta_e(frame, neutral)
    assert before.mean() > uncorrected_mean, f"{name}: the cast should be visible at all"

    gains = correction(measure(frame, marker_squares()), target=calibrated)
    after = delta_e(apply(frame, gains), neutral)
    print(f"{name}: Delta E before {before.mean():.1f} (max {before.max():.1f}), "
          f"after mean {after.mean():.2f} max {after.max():.2f}")  # fmt: skip
    assert after.mean() < 3.0 and after.max() < 6.0, (name, after.round(2).tolist())


def test_warm_light_gains_undo_the_lamp(neutral: np.ndarray, calibrated: Reference) -> None:
    gains = correction(measure(render(WARM, seed=3), marker_squares()), target=calibrated)
    assert gains.as_array() == pytest.approx([1 / 0.7, 1.0, 1 / 1.2], rel=0.02)


def test_the_default_target_is_a_neutral_white_level(calibrated: Reference) -> None:
    frame = render(WARM, seed=4)
    corrected = apply(frame, correction(measure(frame, marker_squares())))
    white = measure(corrected, marker_squares()).bgr
    assert white == pytest.approx((WHITE_LEVEL,) * 3, abs=1.5)


def test_unit_gains_change_nothing(neutral: np.ndarray) -> None:
    assert np.array_equal(apply(neutral, Gains(1.0, 1.0, 1.0)), neutral)


def test_apply_unit_is_apply_over_255_in_one_lookup(calibrated: Reference) -> None:
    """The reader converts every frame to Lab from ``apply_unit``: it must give exactly
    the values ``apply`` then a division gave, for uniform gains and for a gain field."""
    frame = render(LAMP_BESIDE, seed=5)
    reference = measure(frame, marker_squares())
    for gains in (Gains(1.3, 0.8, 1.05), correction_field(reference, target=calibrated)):
        unit = apply_unit(frame, gains)
        assert unit.dtype == np.float32 and unit.shape == frame.shape
        assert np.array_equal(unit, apply(frame, gains).astype(np.float32) / 255.0), gains
    with pytest.raises(ColourError, match="uint8"):
        apply_unit(frame.astype(np.float32), Gains(1.0, 1.0, 1.0))


# --- uneven light: the gain field --------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "light", "mean_bound", "max_bound"),
    [
        ("lamp beside the board", LAMP_BESIDE, 3.0, 8.0),
        ("lamp above a corner", LAMP_ABOVE_CORNER, 2.0, 4.0),
        ("window at the right", window_at_right, 2.0, 4.0),
    ],
)
def test_uneven_light_is_corrected_by_the_gain_field(
    name: str,
    light: Light,
    mean_bound: float,
    max_bound: float,
    neutral: np.ndarray,
    calibrated: Reference,
) -> None:
    frame = render(light, seed=5)
    reference = measure(frame, marker_squares())
    assert reference.spread > 0.9  # the brightest corner has twice the light of the darkest

    field = correction_field(reference, target=calibrated)
    assert field.model == "bilinear"
    with_field = delta_e(apply(frame, field), neutral)
    uniform_only = delta_e(apply(frame, correction(reference, target=calibrated)), neutral)
    print(f"{name}: spread {reference.spread:.2f}; uniform gains mean {uniform_only.mean():.2f} "
          f"max {uniform_only.max():.2f}; field mean {with_field.mean():.2f} "
          f"max {with_field.max():.2f}")  # fmt: skip
    assert with_field.mean() < mean_bound and with_field.max() < max_bound, with_field.round(2)
    assert with_field.mean() < uniform_only.mean() / 2

    corrected, chosen = correct(frame, reference, target=calibrated)
    assert isinstance(chosen, GainField) and np.array_equal(corrected, apply(frame, field))


def test_correct_chooses_uniform_gains_for_even_light(calibrated: Reference) -> None:
    frame = render(COLD, seed=6)
    _, chosen = correct(frame, measure(frame, marker_squares()), target=calibrated)
    assert isinstance(chosen, Gains)


def test_a_field_needs_patches_that_span_the_image() -> None:
    frame = render(NEUTRAL, seed=7)
    squares = [outline for outline, _ in marker_squares()]
    with pytest.raises(ColourError, match="three or more usable patches, got 2"):
        correction_field(measure(frame, squares[:2]))
    field = correction_field(measure(frame, squares[:3]))
    assert field.model == "planar"
    in_a_row = [squares[0] + np.array([dx, 0.0]) for dx in (0, 150, 300)]
    with pytest.raises(ColourError, match="lie in a line"):
        correction_field(measure(frame, in_a_row))


def test_a_reference_survives_json(calibrated: Reference) -> None:
    again = Reference.from_dict(json.loads(json.dumps(calibrated.to_dict())))
    assert again.bgr == calibrated.bgr and again.size == calibrated.size
    assert [p.centre for p in again.patches] == [p.centre for p in calibrated.patches]
    assert correction(again, target=calibrated) == correction(calibrated, target=calibrated)
    with pytest.raises(ColourError, match=re.escape("not a colour reference: {'bgr': 'white'}")):
        Reference.from_dict({"bgr": "white"})


# --- measuring: robust, and refusing what cannot be measured -----------------------------


def test_a_covered_patch_is_left_out_and_said_so(neutral: np.ndarray) -> None:
    frame = render(WARM, seed=8).copy()
    outline, _ = marker_squares()[2]
    (x0, y0), (x1, y1) = outline.min(axis=0).astype(int), outline.max(axis=0).astype(int)
    frame[y0:y1, x0:x1] = (90, 140, 210)  # a hand lies on it
    reference = measure(frame, marker_squares())
    assert [i for i, _ in reference.rejected] == [2] and "covered" in reference.rejected[0][1]
    assert len(reference.patches) == 3
    calibrated = measure(neutral, marker_squares())
    after = delta_e(apply(frame, correction(reference, target=calibrated)), neutral)
    assert after.mean() < 3.0


def test_clipped_pixels_do_not_count(neutral: np.ndarray) -> None:
    frame = render(NEUTRAL, seed=9).copy()
    outline, _ = marker_squares()[0]
    x0, y0 = outline.min(axis=0).astype(int)
    frame[y0 : y0 + 20, x0 : x0 + 40] = 255  # a reflection on part of a patch
    reference = measure(frame, marker_squares())
    assert reference.patches[0].saturated == 704  # the part of the ring it covers
    assert reference.bgr == pytest.approx(measure(neutral, marker_squares()).bgr, abs=1.0)


def test_a_black_frame_is_refused_as_too_dark() -> None:
    black = np.zeros((HEIGHT, WIDTH, 3), np.uint8)
    with pytest.raises(ColourError, match=r"0 of \d+ pixels .* too dark: the frame is black"):
        measure(black, marker_squares())


def test_a_blown_out_frame_is_refused_as_clipped() -> None:
    blown = np.full((HEIGHT, WIDTH, 3), 255, np.uint8)
    with pytest.raises(ColourError, match="clipped: the frame is blown out"):
        measure(blown, marker_squares())


def test_a_white_too_dark_to_correct_is_refused() -> None:
    frame = render(uniform(0.035, 0.035, 0.035), seed=10, noise=0.5)
    reference = measure(frame, marker_squares())  # readable, just
    with pytest.raises(ColourError, match=r"too dark to correct: a gain of \d+\.\d would"):
        correction(reference)


def test_patches_outside_the_image_and_bad_polygons_are_refused() -> None:
    frame = render(NEUTRAL, seed=11)
    away = np.array([[-100, -100], [-50, -100], [-50, -50]])
    with pytest.raises(ColourError, match="outside the image"):
        measure(frame, [away])
    with pytest.raises(ColourError, match=r"patch 0: .*three or more finite .* \[\[1\.0, 2\.0\]"):
        measure(frame, [np.array([[1.0, 2.0]])])
    with pytest.raises(ColourError, match=r"expected a polygon \(N, 2\), got shape \(2, 4, 2\)"):
        measure(frame, [list(marker_squares()[0])])  # outline and hole as a list
    with pytest.raises(ColourError, match="no reference patches"):
        measure(frame, [])
    with pytest.raises(ColourError, match=r"BGR image \(height, width, 3\), got \(480, 640\)"):
        measure(frame[:, :, 0], marker_squares())


def test_measure_reads_the_ring_and_not_the_marker(neutral: np.ndarray) -> None:
    reference = measure(neutral, marker_squares())
    ring = QUIET**2 - MARKER**2
    assert all(abs(p.total - ring) < 4 * QUIET for p in reference.patches)
    assert reference.bgr == pytest.approx((float(to_encoded(WHITE)),) * 3, abs=1.0)
    assert reference.to_dict()["size"] == [WIDTH, HEIGHT]


# --- noticing a change of light -----------------------------------------------------------


def reading(light: Light, seed: int, noise: float = 1.0) -> Reference:
    return measure(render(light, seed=seed, noise=noise), marker_squares())


def test_the_monitor_flags_warm_to_cold() -> None:
    monitor = LightMonitor()
    assert monitor.update(reading(WARM, 20)) is None
    assert monitor.update(reading(WARM, 21)) is None
    assert monitor.update(reading(COLD, 22)) is None  # one frame could be a passing shadow
    change = monitor.update(reading(COLD, 23))
    assert change is not None and change.chromaticity > 0.1
    assert change.warmth < -0.2 and "(bluer)" in change.message
    print(f"warm to cold: {change.message}")
    assert change.message.startswith("light changed")
    assert monitor.update(reading(COLD, 24)) is None  # the new light is the baseline


def test_the_monitor_flags_bright_to_dim() -> None:
    monitor = LightMonitor(LightThresholds(confirm=1))
    monitor.update(reading(NEUTRAL, 30))
    change = monitor.update(reading(DIM, 31))
    assert change is not None
    assert change.brightness_percent == pytest.approx(-70, abs=2)
    assert change.chromaticity < 0.01 and change.message == "light changed: 70 % darker"


@pytest.mark.parametrize(("name", "light"), [("warm", WARM), ("dim", DIM)])
def test_the_monitor_stays_quiet_for_sensor_noise(name: str, light: Light) -> None:
    monitor = LightMonitor(LightThresholds(confirm=1))
    worst_percent, worst_chroma = 0.0, 0.0
    for seed in range(40, 60):  # heavy noise: sigma 5 levels in every pixel and channel
        ref = reading(light, seed, noise=5.0)
        percent, moved = monitor.difference(ref)
        worst_percent, worst_chroma = max(worst_percent, abs(percent)), max(worst_chroma, moved)
        assert monitor.update(ref) is None, seed
    print(f"noise alone, {name}: brightness {worst_percent:.2f} %, colour {worst_chroma:.4f}")
    thresholds = LightThresholds()
    assert worst_percent < thresholds.brightness_percent / 4
    assert worst_chroma < thresholds.chromaticity / 4


def test_a_single_odd_frame_is_not_a_change_of_light() -> None:
    monitor = LightMonitor()
    monitor.update(reading(NEUTRAL, 50))
    assert monitor.update(reading(DIM, 51)) is None
    assert monitor.update(reading(NEUTRAL, 52)) is None
    assert monitor.update(reading(DIM, 53)) is None  # the count started again


def test_thresholds_are_settings() -> None:
    with pytest.raises(ColourError, match="0 of"):
        measure(render(NEUTRAL, seed=60), marker_squares(), ColourSettings(saturated=100))


def test_a_patch_s_white_is_the_median_of_its_usable_pixels() -> None:
    """Each channel's median comes from histograms (``measure`` never gathers a patch's
    pixels): it is ``np.median`` of the patch's pixels that are neither too dark nor
    clipped (judged by the brightest channel), odd and even counts alike."""
    rng = np.random.default_rng(8)
    for size in (9, 10, 23):
        image = rng.integers(0, 256, (size, size, 3), np.uint8)
        patch = [(-0.5, -0.5), (size - 0.5, -0.5), (size - 0.5, size - 0.5), (-0.5, size - 0.5)]
        reading = measure(image, [patch], ColourSettings(min_patch_pixels=1, min_pixels=1))
        brightest = image.max(axis=2).ravel()
        settings = ColourSettings()
        usable = (brightest > settings.dark) & (brightest < settings.saturated)
        expected = np.median(image.reshape(-1, 3)[usable], axis=0)
        assert reading.patches[0].usable == int(usable.sum())
        assert reading.bgr == tuple(float(v) for v in expected)
