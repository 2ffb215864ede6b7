"""Replay sources: frames from a video file or a folder of images, read in order on demand.

``file:game.mp4`` and ``folder:/path/to/frames`` (``vision.sources`` parses the spec and
opens them through ``open_source``) replay recorded frames for tests, benchmarks and the
demo. Unlike a live camera there is no reading thread and no newest-frame race: each
``latest()`` reads the next frame (``EndOfSource`` at the end, or from the start again
with ``loop``). A folder's images go in natural name order (``frame2`` before
``frame10``); a file that is not a readable image is skipped and reported, never a crash.

Separate from the live cameras in ``vision.sources``: the other kind behind the same
interface (``vision.frame``), with nothing of threads, devices or reopening.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.frame import EndOfSource, Frame, FrameSource, SourceClosed, SourceError, as_bgr

log = logging.getLogger(__name__)

#: The file name endings a folder source reads (lower case); other files are ignored.
IMAGE_SUFFIXES = frozenset(
    {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp", ".ppm", ".pgm", ".pnm"}
)


class _ReplaySource(FrameSource):
    """Frames read on demand, in order; shared by the file and folder sources."""

    kind = "replay"

    def __init__(self, spec: str, *, loop: bool, clock: Callable[[], float]) -> None:
        self.spec, self.loop, self.clock = spec, loop, clock
        self._lock = threading.Lock()
        self._seq = 0
        self._last: Frame | None = None
        self._loops = 0
        self._ended = False
        self._closed = False
        self._problem: str | None = None

    def _next_image(self) -> tuple[np.ndarray, str] | None:
        """The next image and its origin, or None at the end of a pass."""
        raise NotImplementedError

    def _rewind(self) -> None:
        raise NotImplementedError

    def latest(self, timeout: float = 1.0, *, allow_repeat: bool = False) -> Frame:
        with self._lock:
            if self._closed:
                raise SourceClosed(f"frame source {self.spec!r}: closed")
            if allow_repeat and self._last is not None:
                return self._last
            if self._ended:
                raise EndOfSource(f"frame source {self.spec!r}: no more frames after {self._seq}")
            got = self._next_image()
            if got is None and self.loop and self._last is not None:
                self._rewind()
                self._loops += 1
                got = self._next_image()
            if got is None:
                self._ended = True
                raise EndOfSource(
                    f"frame source {self.spec!r}: no more frames after {self._seq}"
                    + (f" ({self._problem})" if self._problem else "")
                )
            image, origin = got
            image.flags.writeable = False
            self._seq += 1
            self._last = Frame(image, self._seq, self.clock(), origin)
            return self._last

    def health(self) -> dict[str, Any]:
        with self._lock:
            last = self._last
            return {
                "source": self.spec,
                "kind": self.kind,
                "up": not (self._ended or self._closed),
                "frames": self._seq,
                "delivered": self._seq,
                "drops": 0,
                "reopens": 0,
                "loops": self._loops,
                "problem": self._problem,
                "age": last.age(self.clock()) if last is not None else None,
                "size": list(last.size) if last is not None else None,
            }


class VideoFileSource(_ReplaySource):
    """A video file through OpenCV, frame by frame."""

    kind = "file"

    def __init__(
        self, spec: str, path: Path, *, loop: bool, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__(spec, loop=loop, clock=clock)
        if not path.is_file():
            raise SourceError(f"frame source {spec!r}: no video file at {str(path)!r}")
        self.path = path
        self._capture = self._open()

    def _open(self) -> cv2.VideoCapture:
        capture = cv2.VideoCapture(str(self.path))
        if not capture.isOpened():
            capture.release()
            raise SourceError(
                f"frame source {self.spec!r}: {str(self.path)!r} cannot be read as a video"
            )
        return capture

    def _next_image(self) -> tuple[np.ndarray, str] | None:
        ok, raw = self._capture.read()
        image = as_bgr(raw) if ok else None
        if ok and image is None:
            self._problem = f"frame {self._seq + 1} of {self.path.name} is not an 8-bit image"
        return None if image is None else (image, f"{self.path.name}#{self._seq + 1}")

    def _rewind(self) -> None:
        self._capture.release()
        self._capture = self._open()

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                self._capture.release()


def _natural_key(path: Path) -> tuple[Any, ...]:
    """Name order with numbers compared as numbers: frame2 before frame10."""
    parts = re.split(r"(\d+)", path.name.lower())
    return tuple((0, int(part), part) if part.isdigit() else (1, 0, part) for part in parts)


class ImageFolderSource(_ReplaySource):
    """The images of a folder in name order. A file that does not decode is skipped,
    logged and listed under ``skipped`` in ``health()``."""

    kind = "folder"

    def __init__(
        self, spec: str, folder: Path, *, loop: bool, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__(spec, loop=loop, clock=clock)
        if not folder.is_dir():
            raise SourceError(f"frame source {spec!r}: no folder at {str(folder)!r}")
        self.folder = folder
        self.files = sorted(
            (p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES),
            key=_natural_key,
        )
        if not self.files:
            kinds = ", ".join(sorted(IMAGE_SUFFIXES))
            raise SourceError(f"frame source {spec!r}: no images ({kinds}) in {str(folder)!r}")
        self._index = 0
        self.skipped: list[str] = []

    def _next_image(self) -> tuple[np.ndarray, str] | None:
        while self._index < len(self.files):
            path = self.files[self._index]
            self._index += 1
            image = cv2.imread(str(path), cv2.IMREAD_COLOR)
            if image is not None:
                return image, path.name
            self._problem = f"{path.name} is not a readable image; skipped"
            if path.name not in self.skipped:
                self.skipped.append(path.name)
                log.warning("%s: %s", self.spec, self._problem)
        return None

    def _rewind(self) -> None:
        self._index = 0

    def health(self) -> dict[str, Any]:
        report = super().health()
        with self._lock:
            report["skipped"] = list(self.skipped)
            report["files"] = len(self.files)
        return report

    def close(self) -> None:
        with self._lock:
            self._closed = True
