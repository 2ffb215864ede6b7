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


def benchmark_table(seed: int, setups: int = 5, turned: int = 0) -> Table:
    """The reader benchmark's frame ``seed`` (``benchmarks/gimmel_reader.py``'s frozen set,
    rendered here rather than kept): the empty board, ``setups`` photos of the set-up,
    the last ``turned`` of them of the set-up turned (``--turned-photos``), and its play
    frame, with the profile learnt from all the board photos."""
    from vision.render.series import board_photo, play_frame, series_table

    sheet, setup = load_sheet("gimmel"), load_setup("gimmel")
    table = series_table("gimmel", seed)
    plain = setups - turned
    photos = [decode(board_photo(table, "gimmel", seed, k, turned=k > plain))
              for k in range(setups + 1)]  # fmt: skip
    play = play_frame(table, seed, 0)
    more = [(f"setup{k}", photos[k]) for k in range(2, plain + 1)]
    round_ = [(f"setup{k}", photos[k]) for k in range(plain + 1, setups + 1)]
    profile = learn(("empty", photos[0]), ("setup", photos[1]), sheet, setup,
                    camera=play.truth["camera"], more_setups=more,
                    turned_setups=round_)  # fmt: skip
    return Table(sheet, profile, decode(play), play.truth)
