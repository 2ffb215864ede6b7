"""The Gimmel reader takes a piece's lightness as its square is lit now: a white piece
in a shadow the empty photo did not have (an arm's, a lamp moved) is still white."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from rendered_tables import rendered_table

from calibration.profiles import square_cell
from vision.readers import gimmel

#: Rendered tables with a white piece in a shadow, read as black unless the reader
#: follows the light: (seed, square, piece).
SHADED = ((124, "e13", "white cat"), (136, "c15", "white falcon"))


@pytest.mark.parametrize(("seed", "square", "piece"), SHADED)
def test_a_white_piece_in_a_shadow_is_read_white(seed, square, piece):
    table = rendered_table(seed)
    sheet, profile, frame, camera = table.sheet, table.profile, table.frame, table.camera
    assert table.truth["position"][square] == piece and square not in table.truth["unknown"]
    followed = gimmel.read(frame, sheet, profile, camera=camera)
    # Following the light in none of its ways (the blob's, the fit's, the frame's).
    unfollowed = gimmel.read(frame, sheet, profile, camera=camera,
                             settings=gimmel.ReaderSettings(follow_light=False,
                                                            fit_follows_light=False,
                                                            frame_light=False))  # fmt: skip
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
LIT_MIDDLES = ((354, {"g18", "h15", "h9", "h7", "h3", "h1"}), (277, {"d9"}))


def one_level(profile):
    """The profile reading each square's light as one level (no shadow's edge across it:
    ``blobs.shaded_picture``)."""
    return replace(profile, settings=replace(profile.settings, shadow_carried=None))


@pytest.mark.parametrize(("seed", "squares"), LIT_MIDDLES)
def test_a_square_lit_more_than_its_edge_says_is_empty_not_a_hand(seed, squares):
    table = rendered_table(seed)
    sheet, profile, frame, camera = table.sheet, table.profile, table.frame, table.camera
    truth = table.truth
    assert not squares & set(truth["position"]) and not squares & set(truth["unknown"])
    as_is = gimmel.ReaderSettings(blur=None)  # 354's frame is smeared a little: see below
    no_lit_rule = gimmel.ReaderSettings(board_like_ab=0.0, blur=None)

    def read(profile, settings):
        seen = gimmel.read(frame, sheet, profile, camera=camera, settings=settings)
        return seen, {seen.squares[name] for name in squares}

    assert read(profile, gimmel.ReaderSettings())[1] == {gimmel.EMPTY}
    # Each square's light one level: the board lit (``board_like_ab``) says empty ...
    with_rule = read(one_level(profile), as_is)
    assert with_rule[1] == {gimmel.EMPTY}
    # ... where, without it, the squares would be hands.
    taken_for_hands = read(one_level(profile), no_lit_rule)
    assert taken_for_hands[1] == {gimmel.UNKNOWN}
    # Under the hand, next to it: read as they were (a hand is still a hand).
    under = truth["unknown"]
    assert {n: with_rule[0].squares[n] for n in under} == {
        n: taken_for_hands[0].squares[n] for n in under}  # fmt: skip
    # The light changing across a square where a shadow's edge crosses it says so too.
    assert read(profile, no_lit_rule)[1] == {gimmel.EMPTY}


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
    # Much lighter, and so more colourful: a* and b* grow as L* + 16 does (111 / 76).
    assert seen_as((95.0, 4.4, 32.1))
    assert seen_as((95.0, 3.0, 22.0))  # much lighter, no more colourful: a gloss's white
    assert not seen_as((95.0, 6.0, 40.0))  # more colourful than more light makes it
    assert not seen_as((45.0, 3.0, 22.0))  # darker: a shadow is no reason to doubt a hand
    assert not seen_as((80.0, 14.0, 15.0))  # a hand's pink, lighter


def kinds_from(examples: dict[str, list[float]]) -> gimmel.Kinds:
    """A reader's classes with examples of these lightnesses (and nothing else)."""
    names = tuple(sorted(examples))
    kind_of = np.array([k for k, n in enumerate(names) for _ in examples[n]])
    colours = np.array([[value, 0.0, 0.0] for n in names for value in examples[n]], np.float32)
    features = np.zeros((len(kind_of), 5), np.float32)
    return gimmel.Kinds(names, kind_of, colours, features, 0.1, 5.0, gimmel.ReaderSettings())


def blob_of(lightness: float):
    from calibration.blobs import Blob

    return Blob(np.ones((2, 2), bool), (0, 0), np.array([lightness, 0.0, 0.0], np.float32),
                np.zeros(5, np.float32))  # fmt: skip


def test_the_frames_light_is_the_line_through_the_pieces_read_surely():
    """The set-up showed white falcons at 85 and black ones at 30; a frame whose flare
    lifts the blacks to 45 and dims the whites to 80 shows lightness L as 0.636 L +
    25.9 (the line through both). Doubtful readings do not count, and one colour alone,
    or too few pieces, gives no line."""
    kinds = kinds_from({"white falcon": [84.0, 85.0, 86.0], "black falcon": [29.0, 30.0, 31.0]})
    sure = [(("white falcon", 0.9), blob_of(80.0)), (("black falcon", 0.8), blob_of(45.0)),
            (("white falcon", 0.7), blob_of(80.0))]  # fmt: skip
    doubtful = [(("black falcon", 0.2), blob_of(70.0))]
    gain, offset = gimmel.frame_lightness(kinds, sure + doubtful, 0.6)
    assert gain == pytest.approx(35 / 55) and offset == pytest.approx(80 - 85 * 35 / 55)
    # Taken back through the line, a black falcon seen at 45 is as dark as the set-up's.
    assert (45.0 - offset) / gain == pytest.approx(30.0)
    assert gimmel.frame_lightness(kinds, [sure[0], sure[2], *doubtful], 0.6) is None  # white only
    assert gimmel.frame_lightness(kinds, sure[:2], 0.6) is None  # two pieces
    # A line steeper than the light makes (twice the set-up's contrast): misreads, not light.
    wild = [(("white falcon", 0.9), blob_of(150.0)), (("black falcon", 0.9), blob_of(30.0)),
            (("white falcon", 0.9), blob_of(150.0))]  # fmt: skip
    assert gimmel.frame_lightness(kinds, wild, 0.6) is None


#: Rendered tables with a black falcon whose flat top mirrors the lamp into the camera:
#: its top looks grey, as a white piece's shaded side does, and it reads as white unless
#: its side says its colour there (``FitSettings.glint_within_deg``): (seed, square).
GLINTS = ((104, "e12"), (691, "b5"))


@pytest.mark.parametrize(("seed", "square"), GLINTS)
def test_a_black_falcon_whose_top_mirrors_the_lamp_is_read_black(seed, square):
    from calibration.silhouettes import FitSettings, glint_tilt_deg

    table = rendered_table(seed)
    sheet, profile, frame, camera = table.sheet, table.profile, table.frame, table.camera
    assert table.truth["position"][square] == "black falcon"
    assert square not in table.truth["unknown"]
    # Where the renderer put the lamp and the camera, the top there mirrors the lamp.
    row, col = square_cell(sheet, square)
    grid = sheet.grid
    top = np.array([(col + 0.5) * grid.cell_width_mm, (row + 0.5) * grid.cell_height_mm, 12.0])
    eye = np.array(camera["pose"]["centre_mm"]) * (1, 1, -1)  # the renderer's heights are -z
    lamp = np.array(table.truth["render"]["table"]["lamp"]["position_mm"]) * (1, 1, -1)
    assert glint_tilt_deg(eye, lamp, top) < FitSettings().glint_within_deg
    seen = gimmel.read(frame, sheet, profile, camera=camera)
    unglinting = gimmel.ReaderSettings(fit=FitSettings(glint_within_deg=0.0))
    unglinted = gimmel.read(frame, sheet, profile, camera=camera, settings=unglinting)
    assert seen.squares[square] == "black falcon"
    assert unglinted.squares[square] == "white falcon"
