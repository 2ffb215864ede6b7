"""Uräus's pieces, moves and state (their notation is in ``rules/uraeus/notation.py``).

The track runs from the head field 0 (start) to the tail field (goal, 63 in the shipped
kit). A piece faces the tail (``TAIL = +1``) or the head (``HEAD = -1``); it moves the way
it faces. Every field holds nothing, a single piece, or a double (two pieces, the upper
one on top). The head field is the exception: it holds any number of pieces, which
cannot be attacked and whose facing is ignored there (NOTES.md §5 Ambiguities: Field 0);
they are kept as pieces facing the tail, in a canonical order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from rules import notation as n
from rules.core import Move, Options, PlayerMove, View
from rules.uraeus.kit import UraeusKit

TAIL = 1  # facing toward the tail (goal)
HEAD = -1  # facing toward the head (start)
FACING_NAMES = {TAIL: "tail", HEAD: "head"}
DIE_FACES = (1, 2, 3, 4, 5, 6)
BORDER = "border"


class Stone(NamedTuple):
    """One piece on the track. ``renewed`` marks the upper piece of a double that was
    kept by staying or re-occupying (used by the option ``renewal = "once"``)."""

    owner: int
    facing: int
    renewed: bool = False


# -- moves ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Roll(Move):
    """Chance: the die shows ``face``. A real die reports it over the serial port."""

    chance = True
    face: int


@dataclass(frozen=True)
class Advance(PlayerMove):
    """Move one piece by exactly the roll: from field ``src``, or a new piece from the
    border when ``src`` is ``None``. ``turn`` is the step (1 to the roll) at which the piece
    turns round, or ``None`` when it does not turn."""

    src: int | None
    turn: int | None = None


@dataclass(frozen=True)
class Pass(PlayerMove):
    """No piece can move and none can enter: the player sits out this roll."""


@dataclass(frozen=True)
class Return(PlayerMove):
    """The owner of a captured piece, set back on its scale field where a piece stands
    that it could occupy or capture, decides whether it does (option ``chain =
    "choose"``)."""

    engage: bool


UraeusMove = Roll | Advance | Pass | Return


# -- state ---------------------------------------------------------------------------


class Pending(NamedTuple):
    """A captured piece of ``owner`` waiting on ``field`` for its owner's decision."""

    owner: int
    field: int


@dataclass(frozen=True)
class UraeusState:
    """An Uräus position.

    ``contenders`` and ``rolloff`` hold the opening roll-off while it lasts: the seats
    still rolling for the start, and the faces they rolled this round. ``turn`` is the
    seat to move, ``roll`` its die (``None`` until rolled). ``track[f]`` lists the pieces
    on field ``f``, lower first. ``border[s]`` counts seat ``s``'s pieces not yet entered,
    ``home[s]`` those that reached the tail; ``finished`` lists the seats that brought
    all pieces home, first first. ``pending`` is a captured piece awaiting its owner's
    decision.
    """

    kit: UraeusKit
    options: Options
    view: View
    players: int
    contenders: tuple[int, ...]
    rolloff: tuple[int, ...]
    turn: int
    roll: int | None
    track: tuple[tuple[Stone, ...], ...]
    border: tuple[int, ...]
    home: tuple[int, ...]
    finished: tuple[int, ...] = ()
    pending: Pending | None = None

    def colour(self, seat: int) -> str:
        return self.kit.colours[seat]

    def __repr__(self) -> str:
        from rules.uraeus.notation import state_to_json

        return f"parse_state({n.dumps(state_to_json(self))!r})"
