"""A still scene's latest frames averaged pixel by pixel.

A camera over a still board sees the same picture in every frame but for the sensor's
noise, and a reader's confidence in what it reads wanders with that noise. The mean of
the last few frames has the noise of one divided by their number's square root. The
motion gate (``vision.motion``) says when the scene is still; whoever feeds frames here
``clear``s them when it no longer is.
"""

from __future__ import annotations

import cv2
import numpy as np


class StillMean:
    """The running mean of up to ``frames`` frames (uint8, all of one shape): ``add`` a
    frame, get the mean of it and those before it since the last ``clear``."""

    def __init__(self, frames: int) -> None:
        if frames < 1:
            raise ValueError(f"frames: expected at least 1 frame to average (got {frames})")
        # uint16 holds the sum of 257 frames of 255.
        if frames > 257:
            raise ValueError(f"frames: at most 257 frames can be averaged (got {frames})")
        self.frames = frames
        self._kept: list[np.ndarray] = []
        self._sum: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self._kept)

    def clear(self) -> None:
        self._kept.clear()
        self._sum = None

    def add(self, image: np.ndarray) -> np.ndarray:
        """The mean of ``image`` and the frames before it (``image`` itself when it is
        the first, or of another shape than those before it: then it starts afresh)."""
        if self.frames == 1:
            return image
        if self._sum is not None and self._sum.shape != image.shape:
            self.clear()
        if self._sum is None:
            self._sum = np.zeros(image.shape, np.uint16)
        self._kept.append(image)
        cv2.add(self._sum, image, dst=self._sum, dtype=cv2.CV_16U)
        if len(self._kept) > self.frames:
            cv2.subtract(self._sum, self._kept.pop(0), dst=self._sum, dtype=cv2.CV_16U)
        if len(self._kept) == 1:
            return image
        return cv2.convertScaleAbs(self._sum, alpha=1.0 / len(self._kept))
