"""What a frame source hands out and the interface every kind of source offers.

A :class:`Frame` is one picture with its sequence number, capture time and origin;
frames are read-only numpy arrays (BGR, uint8), because one frame may go to several
readers: copy one before drawing on it. A :class:`FrameSource` gives the newest frame
(``latest``), its health and ``close``; the errors it raises are :class:`SourceError`
and its kinds. ``frames`` iterates a source; ``as_bgr`` brings a capture's image to the
frames' format.

Separate from ``vision.sources`` (the specs, the live cameras, ``open_source``) and
``vision.replay`` (video files and image folders) because both kinds build on it and
the readers need only it: it is the one thing every side of a frame source shares.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np


class SourceError(ValueError):
    """A frame source cannot be opened or read; the message names the spec."""


class NoFrame(SourceError):
    """No new frame arrived within the time asked for (the camera may be down)."""


class EndOfSource(SourceError):
    """A file or folder without ``loop`` has no more frames."""


class SourceClosed(SourceError):
    """The source was closed."""


@dataclass(frozen=True)
class Frame:
    """One picture: ``image`` (BGR, uint8, read-only), its sequence number in its source
    (1, 2, ...; a gap means frames were dropped), its capture time on the source's
    clock, and where it came from (the device, or the file's name)."""

    image: np.ndarray
    seq: int
    captured: float
    origin: str

    def age(self, now: float) -> float:
        """Seconds since capture, ``now`` being a reading of the same clock."""
        return now - self.captured

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return int(self.image.shape[1]), int(self.image.shape[0])


class FrameSource:
    """Where frames come from. Use as a context manager, or call :meth:`close`."""

    spec: str
    clock: Callable[[], float]

    def latest(self, timeout: float = 1.0, *, allow_repeat: bool = False) -> Frame:
        """The newest frame. Waits up to ``timeout`` seconds for one that was not handed
        out before (``NoFrame`` after that); with ``allow_repeat`` the newest is returned
        at once even if it was. Replay sources read their next frame instead of waiting
        (``EndOfSource`` at the end)."""
        raise NotImplementedError

    def health(self) -> dict[str, Any]:
        """JSON-ready state: ``up``, ``frames`` (captured), ``delivered``, ``drops``,
        ``reopens``, ``problem`` (the last one, or None), ``age`` of the newest frame in
        seconds, ``size`` [width, height], and the kind's own fields."""
        raise NotImplementedError

    def close(self) -> None:
        """Stop reading and release the device or file. Safe to call twice."""
        raise NotImplementedError

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def as_bgr(image: object) -> np.ndarray | None:
    """A capture's image as BGR uint8 (grey and BGRA converted), or None if it is not an
    8-bit image at all."""
    if not isinstance(image, np.ndarray) or image.dtype != np.uint8 or image.size == 0:
        return None
    if image.ndim == 2 or (image.ndim == 3 and image.shape[2] == 1):
        return cv2.cvtColor(image.reshape(image.shape[:2]), cv2.COLOR_GRAY2BGR)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    if image.ndim == 3 and image.shape[2] == 3:
        return np.ascontiguousarray(image)
    return None


def frames(source: FrameSource, timeout: float = 1.0) -> Iterator[Frame]:
    """Every frame of a replay source in order (ends at its end); for a live source, new
    frames until ``NoFrame``."""
    while True:
        try:
            yield source.latest(timeout)
        except (EndOfSource, NoFrame, SourceClosed):
            return
