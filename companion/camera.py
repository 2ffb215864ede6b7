"""The camera commands of ``companion``: calibrating the camera, printing marker sheets,
checking the camera at the table, learning a board's appearance. Each runs a routine of
``calibration``/``vision`` and says what happened in words a user can act on; the JSON
files they write are the contracts (``docs/calibration.md``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO


def calibrate_camera(
    images: list[str],
    *,
    pattern: str,
    square_mm: float,
    fix_aspect: bool,
    charuco: bool,
    marker_mm: float | None,
    out: str,
    stream: TextIO,
    as_json: bool = False,
) -> int:
    """``companion calibrate camera``: a progress line a photo, then the figures."""
    from calibration.camera import calibrate, make_pattern

    chosen = make_pattern(pattern, square_mm, charuco=charuco, marker_mm=marker_mm)
    width = max((len(Path(name).name) for name in images), default=0)

    def progress(name: str, word: str) -> None:
        if not as_json:
            print(f"{Path(name).name:<{width}}  {word}", file=stream, flush=True)

    result = calibrate(
        [(str(path), path) for path in images], chosen, fix_aspect=fix_aspect, progress=progress
    )
    result.save(out)
    if as_json:
        print(json.dumps(result.to_json()), file=stream)
    else:
        print(result.summary(), file=stream)
        print(f"written to {out}", file=stream)
    return 0
