"""A frame's motion blur, measured on its markers and undone (``calibration.sharpness``):
the blur's kernel, its measurement on rendered frames whose blur the renderer states,
and the Wiener filter that undoes it."""

from __future__ import annotations

import math
from dataclasses import replace

import cv2
import numpy as np
import pytest

from calibration import sharpness
from calibration.registration import register
from calibration.sheet import load_sheet
from vision.render.degrade import EffectRanges
from vision.render.frame import FrameOptions
from vision.render.series import play_frame, series_table

SETTINGS = sharpness.BlurSettings()


def _moments(kernel: np.ndarray) -> tuple[float, float, float]:
    """The kernel's spread along its main axis and across it (px^2), and the axis (deg)."""
    r = kernel.shape[0] // 2
    y, x = np.mgrid[-r : r + 1, -r : r + 1]
    mx, my = (kernel * x).sum(), (kernel * y).sum()
    cxx = (kernel * (x - mx) ** 2).sum()
    cyy = (kernel * (y - my) ** 2).sum()
    cxy = (kernel * (x - mx) * (y - my)).sum()
    values, vectors = np.linalg.eigh(np.array([[cxx, cxy], [cxy, cyy]]))
    axis = math.degrees(math.atan2(vectors[1, 1], vectors[0, 1])) % 180.0
    return float(values[1]), float(values[0]), axis


@pytest.mark.parametrize("angle", [0.0, 30.0, 90.0, 135.0, 172.0])
@pytest.mark.parametrize("length", [2.0, 4.5])
def test_a_line_kernel_lies_along_its_angle_and_is_as_long_as_asked(length, angle):
    kernel = sharpness.line_kernel(length, angle)
    assert kernel.shape[0] == kernel.shape[1] and kernel.shape[0] % 2 == 1
    assert kernel.sum() == pytest.approx(1.0, abs=1e-5)
    along, across, axis = _moments(kernel)
    # A line's spread is length^2 / 12; the bilinear splats add up to 1/4 px^2.
    assert length**2 / 12 - 0.05 < along < length**2 / 12 + 0.25
    assert across < 0.2
    # A short line's splats lean a little towards the pixel grid.
    assert min(abs(axis - angle), 180 - abs(axis - angle)) < 3.0


def test_a_line_kernel_changes_smoothly_with_its_angle():
    # A kernel drawn with whole pixels jumps from one shape to the next as the angle
    # turns, which leaves a search on a plateau; the splatted line turns with it.
    a, b = sharpness.line_kernel(4.0, 40.0), sharpness.line_kernel(4.0, 42.0)
    assert 0 < np.abs(a - b).sum() < 0.2


@pytest.mark.parametrize("kind", [np.float32, np.float64, np.uint8])
def test_a_markers_black_and_white_levels_are_found_in_any_pixel_type(kind):
    # The misfit compares a drawing with the frame at the frame's own levels: seen =
    # gain * drawn + offset, by least squares, whatever the pixels' type.
    drawn = np.tile(np.array([0, 1, 1, 0, 1], kind), 40)
    seen = (40 + 150 * drawn.astype(np.float64)).astype(np.float32)
    gain, offset = sharpness._levels(seen, drawn)
    assert gain == pytest.approx(150.0) and offset == pytest.approx(40.0)


def test_a_line_kernel_of_no_length_is_refused_naming_it():
    with pytest.raises(ValueError, match=r"got 0\.0"):
        sharpness.line_kernel(0.0, 10.0)


def _checkers(size: int = 160, square: int = 12) -> np.ndarray:
    y, x = np.mgrid[:size, :size]
    light = np.where(((x // square) + (y // square)) % 2 == 0, 200.0, 60.0)
    return np.dstack([light, light * 0.9, light * 0.8]).astype(np.uint8)


def test_sharpening_undoes_much_of_a_known_line_blur():
    sharp = _checkers()
    blur = sharpness.Blur(5.0, 30.0, 0.7, 0.2, 0.6)
    kernel = sharpness.line_kernel(blur.length_px, blur.angle_deg)
    smeared = cv2.filter2D(sharp, -1, kernel, borderType=cv2.BORDER_REFLECT)
    restored = sharpness.sharpen(smeared, blur, SETTINGS)
    inner = (slice(20, -20), slice(20, -20))

    def rms(image):
        return float(np.sqrt(((image[inner].astype(float) - sharp[inner]) ** 2).mean()))

    # The filter's noise allowance (``wiener_nsr``) keeps it from undoing all of it.
    assert rms(restored) < 0.85 * rms(smeared)
    # Undone along the wrong way, it makes things worse.
    wrong = sharpness.sharpen(smeared, sharpness.Blur(5.0, 120.0, 0.7, 0.2, 0.6), SETTINGS)
    assert rms(wrong) > rms(smeared)


def test_sharpening_keeps_a_flat_area_and_what_lies_outside_its_region():
    flat = np.full((120, 160, 3), (90, 140, 200), np.uint8)
    flat[:, 100:] = (30, 40, 50)
    blur = sharpness.Blur(4.0, 60.0, 0.7, 0.2, 0.6)
    out = sharpness.sharpen(flat, blur, SETTINGS, region=(0, 0, 80, 120))
    assert np.array_equal(out[:, 80:], flat[:, 80:])  # outside the region: as it was
    assert np.abs(out[:, :80].astype(int) - flat[:, :80]).max() <= 1  # flat: as it was
    assert out is not flat


def _blurred_frame(seed: int, motion_px: float | None):
    """Play frame 0 of series ``seed`` with a motion blur of ``motion_px`` (None: none),
    at the angle the frame's own stream draws; (image, its camera effects, camera)."""
    still = motion_px is None
    ranges = EffectRanges(motion_chance=0.0 if still else 1.0,
                          motion_px=(1.5, 5.0) if still else (motion_px, motion_px))  # fmt: skip
    rendered = play_frame(series_table("gimmel", seed), seed, 0,
                          options=FrameOptions(effects=ranges, hand_chance=0.0))  # fmt: skip
    return rendered.image, rendered.truth["render"]["camera_effects"], rendered.truth["camera"]


def _registered(seed: int, motion_px: float | None):
    """``_blurred_frame``'s image and its registration on the Gimmel sheet."""
    image, _, camera = _blurred_frame(seed, motion_px)
    return image, register(image, load_sheet("gimmel"), camera=camera)


@pytest.mark.parametrize("seed", [3, 8, 21])
def test_the_markers_measure_a_rendered_frames_motion_blur(seed):
    sheet = load_sheet("gimmel")
    image, effects, camera = _blurred_frame(seed, 4.0)
    registration = register(image, sheet, camera=camera)
    views = sharpness.marker_views(image, registration, sheet, SETTINGS)
    assert len(views) >= 3
    blur = sharpness.measure(views, SETTINGS)
    assert blur is not None
    off = abs(blur.angle_deg - effects["motion_deg"]) % 180.0
    assert min(off, 180.0 - off) < 15.0, (blur, effects)
    # The renderer draws its line anti-aliased, a pixel wider and longer than its length.
    assert 3.0 <= blur.length_px <= 6.5, (blur, effects)
    assert blur.gain < SETTINGS.motion_gain_below


@pytest.mark.parametrize("seed", [3, 8, 21])
def test_a_still_frame_is_left_as_it_is(seed):
    sheet = load_sheet("gimmel")
    image, effects, camera = _blurred_frame(seed, None)
    assert effects["motion_px"] == 0.0
    registration = register(image, sheet, camera=camera)
    ratio, _ = sharpness.anisotropy(sharpness.marker_views(image, registration, sheet, SETTINGS))
    assert ratio > SETTINGS.anisotropy_below
    out, blur = sharpness.sharpened(image, registration, sheet, SETTINGS)
    assert blur is None and out is image


def test_the_board_region_holds_the_grid_and_every_marker():
    sheet = load_sheet("gimmel")
    image, _, camera = _blurred_frame(3, None)
    registration = register(image, sheet, camera=camera)
    h, w = image.shape[:2]
    x0, y0, x1, y1 = sharpness.board_region(registration, sheet, 10.0, (w, h))
    assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h
    for marker in registration.markers:
        corners = np.asarray(marker.corners).reshape(-1, 2)
        assert (corners >= [x0, y0]).all() and (corners <= [x1, y1]).all(), marker.id
    grid = registration.to_image(sheet.grid.corners())
    assert (grid >= [x0, y0]).all() and (grid <= [x1, y1]).all()
    # Not the whole frame: the board does not fill it.
    assert (x1 - x0) * (y1 - y0) < 0.9 * w * h


def test_given_a_margin_the_board_region_is_worked_out_only_for_a_blur(monkeypatch):
    sheet = load_sheet("gimmel")
    blurred, registration = _registered(3, 4.0)
    h, w = blurred.shape[:2]
    region = sharpness.board_region(registration, sheet, 10.0, (w, h))
    out, blur = sharpness.sharpened(blurred, registration, sheet, SETTINGS, margin_mm=10.0)
    expected, same_blur = sharpness.sharpened(blurred, registration, sheet, SETTINGS, region)
    assert blur is not None and blur == same_blur
    assert np.array_equal(out, expected)  # sharpened within the board's region, as given it
    outside = np.ones((h, w), bool)
    outside[region[1] : region[3], region[0] : region[2]] = False
    assert outside.any() and np.array_equal(out[outside], blurred[outside])
    whole, _ = sharpness.sharpened(blurred, registration, sheet, SETTINGS)
    assert not np.array_equal(whole[outside], blurred[outside])  # the region mattered
    still, registration = _registered(3, None)

    def never(*_args, **_kwargs):
        raise AssertionError("the region of a frame with no blur was worked out")

    monkeypatch.setattr(sharpness, "board_region", never)
    out, blur = sharpness.sharpened(still, registration, sheet, SETTINGS, margin_mm=10.0)
    assert blur is None and out is still


@pytest.mark.parametrize("seed", [3, 8, 21])
def test_a_blurred_frame_fails_the_first_markers_quick_look(seed):
    # Each of the first two markers alone says the frame is blurred, so the quick look
    # passes it on to every marker, and the blur is found and undone.
    sheet = load_sheet("gimmel")
    image, registration = _registered(seed, 4.0)
    views = sharpness.marker_views(image, registration, sheet, SETTINGS)
    first = [sharpness.anisotropy([view])[0] for view in views[: SETTINGS.quick_markers]]
    assert min(first) < SETTINGS.quick_above, first
    out, blur = sharpness.sharpened(image, registration, sheet, SETTINGS)
    assert blur == sharpness.measure(views, SETTINGS) and blur is not None
    assert out is not image


@pytest.mark.parametrize("seed", [3, 8, 21])
def test_a_still_frame_is_passed_by_its_first_markers_alone(seed, monkeypatch):
    sheet = load_sheet("gimmel")
    image, registration = _registered(seed, None)
    assert len(registration.used) > SETTINGS.quick_markers  # more markers it could look at
    drawn = []
    made = sharpness.MarkerView

    def counted(*args):
        drawn.append(made(*args))
        return drawn[-1]

    monkeypatch.setattr(sharpness, "MarkerView", counted)
    out, blur = sharpness.sharpened(image, registration, sheet, SETTINGS)
    assert blur is None and out is image
    assert len(drawn) == SETTINGS.quick_markers
    # Without the quick look, every marker is looked at, to the same end.
    every = len(sharpness.marker_views(image, registration, sheet, SETTINGS))
    assert every > SETTINGS.quick_markers
    drawn.clear()
    out, blur = sharpness.sharpened(image, registration, sheet, replace(SETTINGS, quick_above=None))
    assert blur is None and out is image
    assert len(drawn) == every


def test_no_quick_look_with_no_markers_to_take_it():
    sheet = load_sheet("gimmel")
    image, registration = _registered(8, 4.0)
    views = sharpness.marker_views(image, registration, sheet, SETTINGS)
    found = sharpness.measure(views, SETTINGS)
    out, blur = sharpness.sharpened(image, registration, sheet, replace(SETTINGS, quick_markers=0))
    assert blur == found and blur is not None and out is not image
