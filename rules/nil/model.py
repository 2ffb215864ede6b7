"""Nil's moves and state.

One move is one physical action (DESIGN.md): a tile drawn from the bag (chance), a tile
laid, a turn ended, a rack shown because no tile fits. The state is immutable plain
data; what follows from it (the board, the line's end, the points the line passes) is
computed on demand.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

from rules import notation as n
from rules.core import Move, Options, PlayerMove, View
from rules.grid import Square
from rules.nil.geometry import Point, point
from rules.nil.kit import NilKit

#: A tile on a rack that the table cannot see (table view).
UNKNOWN = "?"


# -- moves ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Draw(Move):
    """Chance: one tile drawn from the bag, for the first-player lot or a rack.
    ``kind`` is ``None`` for a tile the table does not see (a rack in the table view)."""

    chance = True
    kind: str | None


@dataclass(frozen=True)
class Lay(PlayerMove):
    """Lay a tile of ``kind`` on ``to``, turned ``rotation`` quarter turns clockwise.

    A universal tile laid on an empty cell stands in for the ``declared`` kind and takes
    its line. A universal laid on a cell of the line with ``declared = None`` is a
    crossing: it replaces the tile there, which goes back to the bag."""

    to: Square
    kind: str
    rotation: int = 0
    declared: str | None = None


@dataclass(frozen=True)
class EndTurn(PlayerMove):
    """Close a turn of one to five tiles: it is scored and the rack refilled."""


@dataclass(frozen=True)
class NoPlay(PlayerMove):
    """No tile of the rack fits: the rack is shown, its values are lost, it goes back to
    the bag and five new tiles are drawn (at the opening: the next player opens).

    ``shown`` is the rack as shown at the table, when it is recorded: in the table view
    it lets the rules check that no tile of it fits and deduct its values; in the full
    view it must be the rack."""

    shown: tuple[str, ...] | None = None


NilMove = Draw | Lay | EndTurn | NoPlay


class Step(NamedTuple):
    """One cell of the river: the port where the line enters it and where it leaves."""

    cell: Square
    entry: int
    exit: int


class Tile(NamedTuple):
    """A tile on the board: its kind and, for a universal standing in, the declared kind."""

    cell: Square
    kind: str
    declared: str | None = None


# -- state ---------------------------------------------------------------------------


@dataclass(frozen=True)
class NilState:
    """A Nil position.

    Set-up: ``contenders`` draw three tiles each for the first player (``lots`` holds
    what they drew so far); then ``starter`` is known and ``pending`` lists the seats owed
    a tile from the bag, one entry per tile, front first. ``racks`` hold kind names (in
    the table view ``"?"`` for each unseen tile); ``bag`` counts the tiles of each kind
    in the bag (``None`` in the table view, where only ``bag_size`` is known).

    ``tiles`` lists the tiles on the board by cell; ``path`` is the river from the start
    point, one step per cell it passes (a crossed cell appears twice). ``laid``,
    ``greens`` and ``reds`` are the running turn of ``seat``; ``scores`` hold the closed
    turns. ``unchecked`` records what the table view could not check (a rack's penalty).
    """

    kit: NilKit
    options: Options
    view: View
    players: int
    contenders: tuple[int, ...]
    lots: tuple[tuple[str, ...], ...]
    starter: int | None
    pending: tuple[int, ...]
    racks: tuple[tuple[str, ...], ...]
    bag: tuple[int, ...] | None
    bag_size: int
    tiles: tuple[Tile, ...]
    path: tuple[Step, ...]
    seat: int
    laid: tuple[str, ...]
    greens: tuple[int, ...]
    reds: tuple[int, ...]
    scores: tuple[int, ...]
    turns: int = 0
    no_play_run: int = 0
    finished: str | None = None
    unchecked: tuple[str, ...] = ()

    @cached_property
    def board(self) -> dict[Square, Tile]:
        return {tile.cell: tile for tile in self.tiles}

    @cached_property
    def line_points(self) -> frozenset[Point]:
        """Every point the river passes: the ports where it enters and leaves cells."""
        found = set()
        for step in self.path:
            found.add(point(step.cell, step.entry))
            found.add(point(step.cell, step.exit))
        return frozenset(found)

    @property
    def end(self) -> Step | None:
        return self.path[-1] if self.path else None

    @cached_property
    def room_cache(self) -> dict:
        """The room rule's answers for steps at this state's end (``placement.room``)."""
        return {}

    @cached_property
    def in_blue(self) -> bool:
        """Whether a tile of the line stands on a blue field (NOTES.md §1 rule 12)."""
        return any(self.kit.colour_of(step.cell) == "blue" for step in self.path)

    def __repr__(self) -> str:
        from rules.nil.notation import state_to_json

        return f"parse_state({n.dumps(state_to_json(self))!r})"
