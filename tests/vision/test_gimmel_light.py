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


#: Rendered tables with empty squares lit more in the middle than at their edge (the
#: edge in a sleeve's shadow, a bright spot), each unlike its empty self by more than a
#: piece and coloured like no piece: (seed, squares).
LIT_MIDDLES = ((354, {"g18", "h15", "h9", "h7", "h5", "h1"}), (277, {"d9", "b3"}))


@pytest.mark.parametrize(("seed", "squares"), LIT_MIDDLES)
def test_a_square_lit_more_than_its_edge_says_is_empty_not_a_hand(seed, squares):
    from vision.render.series import render_series, series_table

    sheet, setup = load_sheet("gimmel"), load_setup("gimmel")
    table = series_table("gimmel", seed)
    empty, laid = (decode(r) for r in render_series("gimmel", seed, 2, "board", table=table))
    (play,) = render_series("gimmel", seed, 1, "play", table=table)
    camera = play.truth["camera"]
    assert not squares & set(play.truth["position"]) and not squares & set(play.truth["unknown"])
    profile = learn(("empty", empty), ("setup", laid), sheet, setup, camera=camera)
    frame = decode(play)
    seen = gimmel.read(frame, sheet, profile, camera=camera)
    taken_for_hands = gimmel.read(frame, sheet, profile, camera=camera,
                                  settings=gimmel.ReaderSettings(board_like_ab=0.0))  # fmt: skip
    assert {seen.squares[name] for name in squares} == {gimmel.EMPTY}
    assert {taken_for_hands.squares[name] for name in squares} == {gimmel.UNKNOWN}
    # Under the hand, next to it: read as they were (a hand is still a hand).
    under = play.truth["unknown"]
    assert {n: seen.squares[n] for n in under} == {n: taken_for_hands.squares[n] for n in under}


def test_a_blob_is_the_board_lit_only_if_as_coloured_as_the_board_and_lighter():
    from calibration.blobs import Blob

    board = np.zeros((20, 20, 3), np.float32)
    board[:] = (60.0, 3.0, 22.0)  # a cream square, as lit as its edge says
    mask = np.zeros((20, 20), bool)
    mask[5:15, 5:15] = True
    blob = Blob(mask, (0, 0), np.zeros(3, np.float32), np.zeros(5, np.float32))

    def seen_as(colour):
        frame = board.copy()
        frame[mask] = colour
        return gimmel.board_lit(frame, board, blob, 6.0)

    assert seen_as((80.0, 4.0, 24.0))  # lighter, as coloured: the board in more light
    assert not seen_as((45.0, 3.0, 22.0))  # darker: a shadow is no reason to doubt a hand
    assert not seen_as((80.0, 14.0, 15.0))  # a hand's pink, lighter
