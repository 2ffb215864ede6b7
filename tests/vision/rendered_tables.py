"""A rendered Gimmel table for the reader's tests: its board photos (the empty board and
the set-up, as a user takes them), one frame of play and its truth, and the profile
learnt from the photos the way ``companion calibrate board`` learns it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from calibration.profiles import Profile, learn, load_setup
from calibration.sheet import Sheet, load_sheet


def decode(rendered) -> np.ndarray:
    return cv2.imdecode(np.frombuffer(rendered.jpeg, np.uint8), cv2.IMREAD_COLOR)


@dataclass(frozen=True)
class Table:
    sheet: Sheet
    profile: Profile
    frame: np.ndarray
    truth: dict[str, Any]

    @property
    def camera(self) -> dict[str, Any]:
        return self.truth["camera"]


def rendered_table(seed: int) -> Table:
    """The renderer's table ``seed`` (``vision.render.series``)."""
    from vision.render.series import render_series, series_table

    sheet, setup = load_sheet("gimmel"), load_setup("gimmel")
    table = series_table("gimmel", seed)
    empty, laid = (decode(r) for r in render_series("gimmel", seed, 2, "board", table=table))
    (play,) = render_series("gimmel", seed, 1, "play", table=table)
    profile = learn(("empty", empty), ("setup", laid), sheet, setup, camera=play.truth["camera"])
    return Table(sheet, profile, decode(play), play.truth)
