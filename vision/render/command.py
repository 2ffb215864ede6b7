"""``companion render GAME --seed S --count N --out DIR [--kind play|board|calibration]``:
rendered frames and their ground truth as files, for tests, benchmarks and the demo.

Each frame is ``DIR/frame-0001.jpg`` (the JPEG the camera delivered) and
``DIR/frame-0001.json`` (its truth, ``vision.render.truth``); one line a frame is
printed. The same arguments give byte-identical files.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any, TextIO

from vision.render.series import check, render_series


def frame_name(index: int) -> str:
    return f"frame-{index:04d}"


def describe(truth: dict[str, Any]) -> str:
    """One line about a frame's truth."""
    kind = truth.get("kind")
    if kind == "calibration":
        card = truth["card"]
        pattern = truth["pattern"]
        return (
            f"chessboard {pattern['columns']}x{pattern['rows']}, tilted {card['tilt_deg']:.0f} deg"
        )
    words = []
    if kind == "play":
        words.append(f"ply {truth['state']['ply']}")
    elif kind == "board":
        words.append(f"{truth['photo']} board" + (", the set-up turned" if truth.get("turned")
                                                  else ""))  # fmt: skip
    count = len(truth["position"])
    words.append(f"{count} piece" if count == 1 else f"{count} pieces")
    markers = truth["markers"]
    words.append("markers " + (" ".join(str(i) for i in markers["visible"]) or "none") + " visible")
    if truth["render"]["hand"] is not None:
        hidden = [f"{len(truth['unknown'])} squares"]
        if markers["covered"]:
            hidden.append("marker " + " ".join(str(i) for i in markers["covered"]))
        words.append("a hand over " + " and ".join(hidden))
    return ", ".join(words)


def render_command(
    game: str,
    *,
    seed: int,
    count: int,
    out: str,
    stream: TextIO,
    kind: str = "play",
    turned: int = 0,
) -> int:
    """Render ``count`` frames of ``kind`` (``board``: the empty board's photo, then
    ``count - 1`` of the set-up, at least one, the last ``turned`` of the set-up turned)
    of the series ``seed`` into ``out``; returns the exit status. An unknown game or
    kind, or photos turned that are not the set-up's, raise
    ``vision.render.series.RenderError`` (a ``ValueError``)."""
    check(game, kind)
    folder = Path(out)
    frames = render_series(game, seed, count, kind, turned=turned)
    first = next(frames, None)  # a bad request is refused before the folder is made
    if first is not None:
        frames = itertools.chain([first], frames)
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    for index, rendered in enumerate(frames, start=1):
        name = frame_name(index)
        image = folder / f"{name}.jpg"
        truth = {**rendered.truth, "image": image.name}
        image.write_bytes(rendered.jpeg)
        text = json.dumps(truth, indent=1, ensure_ascii=False) + "\n"
        (folder / f"{name}.json").write_text(text, encoding="utf-8")
        print(f"{image.name}: {describe(truth)}", file=stream, flush=True)
        written += 1
    print(f"rendered {written} {kind} frames of {game} (seed {seed}) into {folder}", file=stream)
    return 0
