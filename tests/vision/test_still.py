"""A still scene's frames averaged (``vision.still``): the mean of the latest ones, the
window sliding, afresh after ``clear`` or on a frame of another shape."""

from __future__ import annotations

import numpy as np
import pytest

from vision.still import StillMean


def frames(count: int, shape=(6, 8, 3), seed: int = 7) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(0, 256, shape, dtype=np.uint8) for _ in range(count)]


def test_the_mean_is_of_the_latest_frames_and_slides():
    seen = frames(6)
    mean = StillMean(3)
    assert mean.add(seen[0]) is seen[0] and len(mean) == 1
    for k in range(1, 6):
        got = mean.add(seen[k])
        window = np.array(seen[max(0, k - 2) : k + 1], np.float64).mean(axis=0)
        assert got.dtype == np.uint8 and got.shape == seen[k].shape
        assert np.abs(got - window).max() <= 0.5 + 1e-9, k  # rounded to the nearest
        assert len(mean) == min(k + 1, 3)


def test_the_mean_of_noisy_copies_is_nearer_the_scene_than_one_copy():
    rng = np.random.default_rng(11)
    scene = rng.integers(40, 216, (32, 32, 3)).astype(np.float64)
    noisy = [np.clip(scene + rng.normal(0, 8, scene.shape), 0, 255).round().astype(np.uint8)
             for _ in range(5)]  # fmt: skip
    mean = StillMean(5)
    for frame in noisy:
        got = mean.add(frame)
    one = np.abs(noisy[-1] - scene).mean()
    assert np.abs(got - scene).mean() < 0.6 * one


def test_clear_and_another_shape_start_afresh():
    seen = frames(3)
    mean = StillMean(4)
    mean.add(seen[0])
    mean.add(seen[1])
    mean.clear()
    assert mean.add(seen[2]) is seen[2] and len(mean) == 1
    other = frames(1, shape=(4, 4, 3))[0]
    assert mean.add(other) is other and len(mean) == 1


def test_one_frame_is_no_mean_and_the_count_is_checked():
    seen = frames(2)
    single = StillMean(1)
    assert single.add(seen[0]) is seen[0] and single.add(seen[1]) is seen[1]
    for bad in (0, -1, 258):
        with pytest.raises(ValueError, match="frames"):
            StillMean(bad)
