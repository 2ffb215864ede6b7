"""Noticing a change of light: each frame's white reference against the light the
corrections are based on.

:class:`LightMonitor` is fed each frame's :class:`~calibration.colour.Reference` (what
``calibration.colour.measure`` reads from the markers' white quiet zones) and reports
``light changed`` (how much brighter or darker in percent, how far the colour of the
light moved) against its baseline, so the service can say so and re-read the board.

Separate from ``calibration.colour``, which measures and corrects one frame: this module
keeps state across frames (the baseline, the frames in a row that showed a change) and
decides when a difference counts; it only reads references, it corrects nothing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

import numpy as np

from calibration.colour import Reference

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LightThresholds:
    """When the light counts as changed (against the light the corrections use).

    - ``brightness_percent`` (8.0): the white's luminance changed by more than this
      percentage. Sensor noise moves the patches' median by a fraction of a percent; a
      lamp switched on or a cloud before the window by tens of percent.
    - ``chromaticity`` (0.015): the light's chromaticity (linear b, g, r scaled to sum 1)
      moved further than this. Warm lamp light against daylight is about 0.1-0.25; noise
      well under 0.005.
    - ``confirm`` (2): frames in a row that must show the change before it is reported,
      so that one odd frame (a shadow passing, the camera's exposure settling) is not
      reported as a new light.
    """

    brightness_percent: float = 8.0
    chromaticity: float = 0.015
    confirm: int = 2


@dataclass(frozen=True)
class LightChange:
    """A change of light: brightness in percent (negative: darker), how far the light's
    colour moved, and the words to show."""

    brightness_percent: float
    chromaticity: float
    before: Reference
    after: Reference

    @property
    def warmth(self) -> float:
        """How much redder (positive) or bluer (negative) the light became: the change
        of its chromaticity's r minus b."""
        (b0, _, r0), (b1, _, r1) = self.before.chromaticity, self.after.chromaticity
        return float((r1 - b1) - (r0 - b0))

    @property
    def message(self) -> str:
        """E.g. "light changed: 70 % darker" or "light changed: 6 % darker, colour
        moved by 0.225 (bluer)"."""
        word = "brighter" if self.brightness_percent > 0 else "darker"
        parts = [f"{abs(self.brightness_percent):.0f} % {word}"]
        if self.chromaticity >= 0.005:
            tone = "redder" if self.warmth > 0 else "bluer"
            parts.append(f"colour moved by {self.chromaticity:.3f} ({tone})")
        return "light changed: " + ", ".join(parts)


class LightMonitor:
    """Fed each frame's reference; :meth:`update` returns a :class:`LightChange` when
    the light differs from the baseline (the first reference, then the light after each
    reported change) for ``confirm`` frames in a row, else None. Comparing against the
    baseline rather than the previous frame catches a slow drift too."""

    def __init__(self, thresholds: LightThresholds | None = None) -> None:
        self.thresholds = thresholds or LightThresholds()
        self.baseline: Reference | None = None
        self._pending = 0

    def difference(self, reference: Reference) -> tuple[float, float]:
        """(brightness change in percent, chromaticity distance) against the baseline."""
        if self.baseline is None:
            return 0.0, 0.0
        before = max(self.baseline.brightness, 1e-9)
        percent = 100.0 * (reference.brightness - before) / before
        moved = float(np.linalg.norm(reference.chromaticity - self.baseline.chromaticity))
        return percent, moved

    def update(self, reference: Reference) -> LightChange | None:
        if self.baseline is None:
            self.baseline = reference
            return None
        percent, moved = self.difference(reference)
        limits = self.thresholds
        if abs(percent) <= limits.brightness_percent and moved <= limits.chromaticity:
            self._pending = 0
            return None
        self._pending += 1
        if self._pending < limits.confirm:
            return None
        change = LightChange(percent, moved, self.baseline, reference)
        self.baseline, self._pending = reference, 0
        log.info("%s", change.message)
        return change

    def reset(self, reference: Reference | None = None) -> None:
        """Start again from ``reference`` (e.g. after a new calibration)."""
        self.baseline, self._pending = reference, 0
