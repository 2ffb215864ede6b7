"""What a reading says of a Gimmel position (vision/readers/gimmel.py ``shows`` and
``mismatch``), the tracker's evidence for a move: a square misread the same way before
and after a move is no evidence either way, so a piece the reader keeps getting wrong
does not block every move made elsewhere on the board."""

from __future__ import annotations

from rules import get_game, new_game
from rules.gimmel.model import DrawLots, Kind, Place
from rules.grid import Square
from vision.readers.gimmel import EMPTY, UNKNOWN, Observation, mismatch, position, shows

GAME = get_game("gimmel")


def start():
    state = GAME.play(new_game("gimmel"), DrawLots(white=0))
    state = GAME.play(state, Place(player=0, kind=Kind("falcon"), to=Square.parse("e5")))
    return GAME.play(state, Place(player=1, kind=Kind("cat"), to=Square.parse("d12")))


def reading(state, *, wrong=None, sure=0.9):
    """A reading of ``state`` on every square, with ``wrong`` squares read otherwise."""
    squares = {str(square): EMPTY for square in state.grid.squares} | position(state)
    squares |= wrong or {}
    return Observation("gimmel", squares, dict.fromkeys(squares, sure))


def test_a_square_misread_before_and_after_is_no_evidence_against_the_move():
    before = start()
    placed = Place(player=0, kind=Kind("beetle"), to=Square.parse("c3"))
    after = GAME.play(before, placed)
    # The reader takes the white falcon on e5 for a beetle, every time.
    misread = {"e5": "white beetle"}
    then = reading(before, wrong=misread)
    now = reading(after, wrong=misread)
    # Judged square by square against the whole board, no state shows what was read.
    assert not shows(now, after) and mismatch(now, after) == 0.9
    # Judged on what changed since the table last agreed with the camera, the move does.
    since = (then.squares, before)
    assert shows(now, after, since)
    assert mismatch(now, after, since) == 0.0
    # The table as it was does not: c3 changed in the reading.
    assert not shows(now, before, since) and mismatch(now, before, since) == 0.9
    # Nor does another placement: c3 reads a beetle, not a cat, and d4 did not change.
    other = GAME.play(before, Place(player=0, kind=Kind("cat"), to=Square.parse("c3")))
    assert mismatch(now, other, since) == 0.9


def test_a_square_whose_reading_changed_counts_and_unknown_never_does():
    before = start()
    then = reading(before)
    # Nothing moved, but a square flickered: the reading changed on a8, so it counts.
    now = reading(before, wrong={"a8": "black cat"}, sure=0.4)
    since = (then.squares, before)
    assert not shows(now, before, since) and mismatch(now, before, since) == 0.4
    # A hand over a square: unknown says nothing, whatever stood there.
    hidden = reading(before, wrong={"e5": UNKNOWN, "h1": UNKNOWN})
    assert shows(hidden, before, since) and shows(hidden, before)
    # A piece that really moved is seen where the state changed, not where it stayed.
    taken = dict(hidden.squares) | {"e5": EMPTY}
    gone = Observation("gimmel", taken, hidden.confidence)
    assert mismatch(gone, before, since) == 0.9
