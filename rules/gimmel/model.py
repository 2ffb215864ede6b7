"""Gimmel's pieces, moves and state.

Seats 0 and 1 play; which of them plays White is decided by the colour lot, the game's
one chance move (rulebook "1. Spielvorbereitung": "Die Farben werden ausgelost").
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

from rules import notation as n
from rules.core import Move, Options, PlayerMove, View
from rules.gimmel.kit import GimmelKit
from rules.gimmel.options import Terms, terms
from rules.grid import Grid, Square, grid


class Kind(enum.StrEnum):
    """The three kinds of piece (rulebook "1. Spielvorbereitung")."""

    BEETLE = "beetle"  # Käfer (Scarabaeus), 1 point
    CAT = "cat"  # Katzengöttin (Bastet), the triangle, 3 points
    FALCON = "falcon"  # Falke (Horus), the cylinder, 6 points

    def __repr__(self) -> str:
        return f"Kind.{self.name}"


KINDS: tuple[Kind, ...] = (Kind.BEETLE, Kind.CAT, Kind.FALCON)
VALUE = {Kind.BEETLE: 1, Kind.CAT: 3, Kind.FALCON: 6}
COLOURS = ("white", "black")
LETTER = {Kind.BEETLE: "b", Kind.CAT: "c", Kind.FALCON: "f"}


def _ring(distance: int) -> tuple[tuple[int, int], ...]:
    return tuple(
        (dc, dr)
        for dr in range(-distance, distance + 1)
        for dc in range(-distance, distance + 1)
        if max(abs(dc), abs(dr)) == distance
    )


#: Offsets as NOTES.md §2 rule 3 reads the rulebook's "3.2 Bewegen eines Steines":
#: beetle one step in any of 8 directions; cat goddess two straight or a knight's move
#: (12 targets, not (2,2)); falcon every square at Chebyshev distance 3 (24 targets).
OFFSETS: dict[Kind, tuple[tuple[int, int], ...]] = {
    Kind.BEETLE: _ring(1),
    Kind.CAT: tuple(
        sorted(
            {(2, 0), (-2, 0), (0, 2), (0, -2)}
            | {(sc * x, sr * y) for x, y in ((1, 2), (2, 1)) for sc in (1, -1) for sr in (1, -1)}
        )
    ),
    Kind.FALCON: _ring(3),
}


#: How far each kind leaps: the Chebyshev distance of every one of its offsets.
DISTANCE = {kind: max(max(abs(dc), abs(dr)) for dc, dr in OFFSETS[kind]) for kind in KINDS}


class Piece(NamedTuple):
    owner: int  # the seat
    kind: Kind


# -- moves ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DrawLots(Move):
    """Chance: the colour lot decides which seat plays White."""

    chance = True
    white: int


@dataclass(frozen=True)
class Place(PlayerMove):
    """Set a piece from the player's reserve onto an empty square."""

    kind: Kind
    to: Square


@dataclass(frozen=True)
class Leap(PlayerMove):
    """Move a piece on the board; onto an enemy piece, it captures."""

    src: Square
    dst: Square


@dataclass(frozen=True)
class ClaimDraw(PlayerMove):
    """Claim the draw (option ``draw = "claim"``). Either seat may claim, out of turn
    too, while the draw situation holds."""

    out_of_turn = True


@dataclass(frozen=True)
class Pass(PlayerMove):
    """Pass, allowed only when the player can neither place nor leap."""


GimmelMove = DrawLots | Place | Leap | ClaimDraw | Pass


# -- state ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GimmelState:
    """A Gimmel position. Scores are not stored: they follow from the pieces missing.

    ``board`` lists the squares row by row from ``a1``; ``reserve[seat]`` counts the
    pieces beside the board by kind (beetle, cat, falcon); ``ply`` counts the turns
    played (placements, leaps and passes); ``white`` is ``None`` until the colour lot.
    """

    kit: GimmelKit
    options: Options
    view: View
    white: int | None
    board: tuple[Piece | None, ...]
    reserve: tuple[tuple[int, int, int], tuple[int, int, int]]
    ply: int = 0
    draw_claimed_by: int | None = None
    #: Passes in a row: two mean neither player can ever act again (a stalemate).
    passes: int = 0

    @cached_property
    def grid(self) -> Grid:
        return grid(self.kit.columns, self.kit.rows)

    @cached_property
    def terms(self) -> Terms:
        """The numbers the variant changes: pieces per kind, target, draw clause."""
        return terms(self.options)

    @cached_property
    def captured(self) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
        """Pieces of each seat taken off the board, by kind."""
        on_board = [[0, 0, 0], [0, 0, 0]]
        for piece in self.board:
            if piece is not None:
                on_board[piece.owner][KINDS.index(piece.kind)] += 1
        return tuple(  # type: ignore[return-value]
            tuple(self.terms.per_kind - self.reserve[seat][k] - on_board[seat][k] for k in range(3))
            for seat in (0, 1)
        )

    @cached_property
    def scores(self) -> tuple[int, int]:
        """Each seat scores the values of the opponent's captured pieces."""
        lost = [
            sum(c * VALUE[k] for c, k in zip(self.captured[s], KINDS, strict=True)) for s in (0, 1)
        ]
        return (lost[1], lost[0])

    def colour(self, seat: int) -> str | None:
        if self.white is None:
            return None
        return "white" if seat == self.white else "black"

    def __repr__(self) -> str:
        from rules.gimmel.notation import state_to_json

        return f"parse_state({n.dumps(state_to_json(self))!r})"
