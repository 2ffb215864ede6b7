"""``calibration.medians.median`` gives what ``np.median`` gives, row by row."""

import numpy as np
import pytest

from calibration.medians import median


@pytest.mark.parametrize("length", [1, 2, 35, 36, 45, 324])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_equals_numpy_along_the_last_axis(length, dtype):
    values = np.random.default_rng(length).normal(50.0, 20.0, (144, length)).astype(dtype)
    found = median(values, axis=1)
    assert found.dtype == np.median(values, axis=1).dtype
    assert np.array_equal(found, np.median(values, axis=1))


def test_equals_numpy_along_an_inner_axis_and_on_one_row():
    values = np.random.default_rng(3).uniform(0.0, 100.0, (6, 8, 4, 36)).astype(np.float32)
    assert np.array_equal(median(values, axis=2), np.median(values, axis=2))
    row = values[0, 0, 0]
    assert float(median(row)) == float(np.median(row))


def test_integers_as_numpy_gives_them_without_overflow():
    values = np.array([[250, 254], [1, 2]], np.uint8)  # 250 + 254 overflows a byte
    assert np.array_equal(median(values, axis=1), [252.0, 1.5])
    assert median(values, axis=1).dtype == np.float64


def test_no_values_is_an_error_naming_the_shape():
    with pytest.raises(ValueError, match=r"\(3, 0\)"):
        median(np.zeros((3, 0)), axis=1)
