from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def shared_dir() -> Path:
    """The shared folder: $COMPANION_SHARED, or ../shared beside the repo."""
    return Path(os.environ.get("COMPANION_SHARED", REPO.parent / "shared"))


@pytest.fixture(scope="session")
def opencv_calib_left() -> Path:
    """OpenCV's sample chessboard photos and its published calibration of them."""
    path = shared_dir() / "data" / "opencv_calib_left"
    if not (path / "published_ground_truth.json").is_file():
        pytest.fail(
            f"OpenCV's calibration photos are not at {path}: "
            "set COMPANION_SHARED to the shared folder"
        )
    return path
