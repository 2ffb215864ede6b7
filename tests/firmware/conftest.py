"""The firmware is no installed package (it runs on the boards): its tests find it at
the repository's root, wherever pytest was started from."""

from __future__ import annotations

import sys
from pathlib import Path

REPO = str(Path(__file__).resolve().parents[2])
if REPO not in sys.path:
    sys.path.insert(0, REPO)
