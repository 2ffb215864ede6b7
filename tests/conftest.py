from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def rulebooks_dir() -> Path:
    """The shared rulebooks: $COMPANION_SHARED/rulebooks, or ../shared beside the repo."""
    shared = Path(os.environ.get("COMPANION_SHARED", REPO.parent / "shared"))
    return shared / "rulebooks"


@pytest.fixture(scope="session")
def rulebooks() -> Path:
    path = rulebooks_dir()
    if not (path / "NOTES.md").is_file():
        pytest.fail(f"the rulebooks are not at {path}: set COMPANION_SHARED to the shared folder")
    return path
