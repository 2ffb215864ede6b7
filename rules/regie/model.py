"""Regie's moves and state (their notation is in ``rules/regie/notation.py``).

Two seats, red (0) and blue (1). Who begins is agreed at the table ("Es wird
festgelegt, wer das Spiel beginnt"); the engine takes it as its one chance move. A move
is one physical action: a chip put in (A), a level slid one click (B), the box moved one
position (C). A move may carry what the sensors or the players saw happen (``Seen``):
then reality wins over the kit's prediction, and the disagreement is kept as a doubt
about the kit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from rules.core import Move, Options, PlayerMove, View
from rules.regie.kit import RegieKit

COLOURS = ("red", "blue")
LEFT, RIGHT = -1, 1
DIRECTIONS = {"left": LEFT, "right": RIGHT}


class SeenExit(NamedTuple):
    """A chip seen leaving the levels: into the box compartment under frame ``column``,
    or onto the table on ``side`` ("left" or "right")."""

    kind: str  # "box" or "table"
    column: int | None = None
    side: str | None = None


class Seen(NamedTuple):
    """What happened, as sensors or players saw it. ``through``: whether a chip put in
    fell on past level 1 (``None``: not seen). ``exits``: every chip that left the
    levels in this move (``None``: not seen)."""

    through: bool | None = None
    exits: tuple[SeenExit, ...] | None = None


@dataclass(frozen=True)
class Start(Move):
    """Chance (or the players' agreement): ``first`` begins."""

    chance = True
    first: int


@dataclass(frozen=True)
class Insert(PlayerMove):
    """Zug A: put a chip into level 1's window at frame ``column``."""

    column: int
    seen: Seen | None = None


@dataclass(frozen=True)
class Slide(PlayerMove):
    """Zug B: slide ``level`` (1 top to 6 bottom) one click ``direction`` (-1 left,
    +1 right), announcing its number."""

    level: int
    direction: int
    seen: Seen | None = None


@dataclass(frozen=True)
class MoveBox(PlayerMove):
    """Zug C: move the scoring box one position, to position ``to`` (1 to 3)."""

    to: int


RegieMove = Start | Insert | Slide | MoveBox


class Landed(NamedTuple):
    """A chip through the levels: in a box compartment (scoring ``value``) or on the
    table (scoring 0)."""

    owner: int
    kind: str  # "box" or "table"
    column: int | None  # the compartment's frame column; None on the table
    row: int | None  # the box row (0-based); None on the table
    side: str | None  # "left" or "right" on the table; None in the box
    value: int  # the points it scores


class LastMove(NamedTuple):
    """What a seat did in its last turn, for the rules that look back one turn."""

    kind: str  # "insert", "slide" or "box"
    level: int | None = None  # the level slid
    came_from: int | None = None  # the box position it was moved from


class Doubt(NamedTuple):
    """A disagreement between what happened and the kit: the kit cell whose correction
    explains it (``level`` counted from 0 as in the kit file's list, ``cell`` along the
    bar), what it must really be, and the turn it was seen in."""

    ply: int
    level: int
    cell: int
    seen: str  # "window" or "solid": what the cell must be, against the kit

    @property
    def field(self) -> str:
        return f"levels[{self.level}].cells[{self.cell}]"


@dataclass(frozen=True)
class RegieState:
    """A Regie position.

    ``levels`` are the six levels' positions (clicks right of centre), ``windows`` the
    chips in each level's windows per bar cell (``None`` or the owner), ``box`` the box
    position (1 to 3). ``reserve[s]`` counts seat ``s``'s chips not yet put in, ``landed``
    every chip through the levels in order. ``turn`` is the seat to move, ``skips[s]``
    the turns seat ``s`` still misses, ``last[s]`` seat ``s``'s last move. ``doubts`` keeps
    every disagreement between what happened and the kit.
    """

    kit: RegieKit
    options: Options
    view: View
    first: int | None
    turn: int
    levels: tuple[int, ...]
    windows: tuple[tuple[int | None, ...], ...]
    box: int
    reserve: tuple[int, int]
    landed: tuple[Landed, ...] = ()
    skips: tuple[int, int] = (0, 0)
    last: tuple[LastMove | None, LastMove | None] = (None, None)
    ply: int = 0
    doubts: tuple[Doubt, ...] = ()

    def through(self, seat: int) -> int:
        """Chips of ``seat`` through the levels, into the box or onto the table."""
        return sum(1 for chip in self.landed if chip.owner == seat)

    def score(self, seat: int) -> int:
        return sum(chip.value for chip in self.landed if chip.owner == seat)

    def __repr__(self) -> str:
        from rules import notation as n
        from rules.regie.notation import state_to_json

        return f"parse_state({n.dumps(state_to_json(self))!r})"
