"""The Gimmel reader takes a piece's lightness as its square is lit now: a white piece
in a shadow the empty photo did not have (an arm's, a lamp moved) is still white."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from calibration.profiles import learn, load_setup
from calibration.sheet import load_sheet
from vision.readers import gimmel

#: Rendered tables with a white piece in a shadow, read as black unless the reader
#: follows the light: (seed, square, piece).
SHADED = ((124, "e13", "white cat"), (136, "c15", "white falcon"))


def decode(rendered):
    return cv2.imdecode(np.frombuffer(rendered.jpeg, np.uint8), cv2.IMREAD_COLOR)


@pytest.mark.parametrize(("seed", "square", "piece"), SHADED)
def test_a_white_piece_in_a_shadow_is_read_white(seed, square, piece):
    from vision.render.series import render_series, series_table

    sheet, setup = load_sheet("gimmel"), load_setup("gimmel")
    table = series_table("gimmel", seed)
    empty, laid = (decode(r) for r in render_series("gimmel", seed, 2, "board", table=table))
    (play,) = render_series("gimmel", seed, 1, "play", table=table)
    camera = play.truth["camera"]
    assert play.truth["position"][square] == piece and square not in play.truth["unknown"]
    profile = learn(("empty", empty), ("setup", laid), sheet, setup, camera=camera)
    frame = decode(play)
    followed = gimmel.read(frame, sheet, profile, camera=camera)
    unfollowed = gimmel.read(frame, sheet, profile, camera=camera,
                             settings=gimmel.ReaderSettings(follow_light=False))  # fmt: skip
    assert followed.squares[square] == piece
    assert unfollowed.squares[square] == piece.replace("white", "black")
    # What the table would teach from is the piece as lit like the set-up: white's
    # lightness, not the shadow's.
    lightness = followed.looks[square][0][0]
    whites = [e["lab"][0] for e in profile.pieces[piece]["instances"]]
    assert lightness > min(whites) - 10
