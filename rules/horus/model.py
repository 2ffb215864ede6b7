"""Horus's moves and state.

One move is one physical action (DESIGN.md): a tile drawn from the bag or a card from
the draw pile (chance), a tile laid, a river end replaced and laid again, a card played,
a kingdom stone set or moved, a stone action skipped. The state is immutable plain
data; what follows from it (the layout's regions, the river's ends, the count) is
computed on demand.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

from rules import notation as n
from rules.core import Move, Options, PlayerMove, View
from rules.horus.geometry import Pos
from rules.horus.kit import HorusKit

#: What the table does not see: the tile in a player's hand before it is laid, the card
#: played (table view).
UNKNOWN = "?"
#: The Nile card, where ``HorusState.card`` names the card played this turn.
NILE = "nile"

#: Tiles that are water: the river, and the start tiles (the pyramid and the two barge
#: tiles are river tiles, "Diese drei Plättchen bilden den Beginn des Flusses").
WATER = ("river", "pyramid", "end")
#: Tiles that are never part of a region ("Der Fluss (E) ist nie Teil einer Region,
#: ebenso wenig wie der Horustempel (F) und eine Nekropole (G)").
NOT_LAND = (*WATER, "temple", "necropolis")

#: The phases of a turn, in order ("SPIELABLAUF"): the bag tile is drawn and laid (and
#: after a river tile the compulsory river/necropolis tile), a card is played, the tile
#: it names is laid (with the Nile card: two river/necropolis tiles), a stone is set
#: (with the Nile card: moved). The refill is the chance draws of ``pending``.
PHASES = ("draw", "bag-tile", "river-stack", "card", "stack-tile", "nile-tiles", "stone",
          "nile-stone")  # fmt: skip


# -- moves ---------------------------------------------------------------------------


@dataclass(frozen=True)
class DrawTile(Move):
    """Chance: a tile drawn from the bag (action 1). ``kind`` is a terrain, ``river`` or
    ``temple``; ``None`` in the table view, where the tile is seen only when laid."""

    chance = True
    kind: str | None


@dataclass(frozen=True)
class DrawCard(Move):
    """Chance: a Horus card drawn from the draw pile for the seat first in
    ``pending`` (the deal, action 5, the refill after a stack runs out). Full view
    only: the table does not see cards."""

    chance = True
    card: str


@dataclass(frozen=True)
class Lay(PlayerMove):
    """Lay a tile of ``tile`` at ``at``: the bag tile, the tile the card names, or a
    river/necropolis tile laid as ``river`` (anywhere at the river) or ``necropolis``."""

    tile: str
    at: Pos


@dataclass(frozen=True)
class ReplaceEnd(PlayerMove):
    """A river tile takes the place of the river end at ``end``, and the end is laid
    again at ``to`` ("Den Fluss verlängern")."""

    end: Pos
    to: Pos


@dataclass(frozen=True)
class SetAside(PlayerMove):
    """The tile drawn from the bag cannot be laid by its rules: it leaves the game (the
    temple, "wird er aus dem Spiel genommen"; by the same token a river tile for which
    no place would leave both river ends free)."""


@dataclass(frozen=True)
class PlayCard(PlayerMove):
    """Play a Horus card (action 2). ``card`` names it (``desert/3``, ``?/?``); ``None``
    in the table view when nobody says which card it was."""

    card: str | None


@dataclass(frozen=True)
class PlayNile(PlayerMove):
    """Play the Nile card instead of a Horus card, once a game."""


@dataclass(frozen=True)
class SetStone(PlayerMove):
    """Set a kingdom stone on the terrain tile at ``at`` (action 4)."""

    at: Pos


@dataclass(frozen=True)
class MoveStone(PlayerMove):
    """With the Nile card: move one's stone from ``source`` to ``to``, both in regions
    bordering the river."""

    source: Pos
    to: Pos


@dataclass(frozen=True)
class SkipStone(PlayerMove):
    """The stone action is skipped: no stone can be set (or moved), or none is left."""


HorusMove = (
    DrawTile
    | DrawCard
    | Lay
    | ReplaceEnd
    | SetAside
    | PlayCard
    | PlayNile
    | SetStone
    | MoveStone
    | SkipStone
)


class Tile(NamedTuple):
    at: Pos
    kind: str  # a terrain, river, pyramid, end, necropolis or temple


class Stone(NamedTuple):
    at: Pos
    player: int


# -- state ---------------------------------------------------------------------------


@dataclass(frozen=True)
class HorusState:
    """A Horus position.

    ``tiles`` is the layout, sorted by position; ``stones`` the kingdom stones on it.
    ``bag`` counts the bag's tiles by ``kit.bag_kinds`` and ``stacks`` the five face-up
    stacks by ``kit.stack_names`` (both seen, or known, at the table). ``hands`` hold
    card names in kit order, ``pile`` and ``discards`` count cards by ``kit.card_names``;
    in the table view hands are empty and both counts ``None``: cards are not seen.
    ``nile`` says who still holds a Nile card.

    ``seat`` is the player whose turn it is, ``phase`` the action due (``PHASES``),
    ``in_hand`` the bag tile drawn and not yet laid (``"?"`` in the table view), ``card``
    the card played this turn (a name, ``"nile"``, ``"?"`` unknown), ``nile_tiles`` the
    river/necropolis tiles the Nile card still lays, ``laid`` what the turn's card tile
    was (for the table view's notes). ``aside`` lists bag tiles that could not be laid
    and left the game. ``pending`` lists seats owed a card, front first;
    ``turns`` counts finished turns. ``unchecked`` records what the table view could not
    check.
    """

    kit: HorusKit
    options: Options
    view: View
    players: int
    tiles: tuple[Tile, ...]
    stones: tuple[Stone, ...]
    bag: tuple[int, ...]
    stacks: tuple[int, ...]
    hands: tuple[tuple[str, ...], ...]
    pile: tuple[int, ...] | None
    discards: tuple[int, ...] | None
    nile: tuple[bool, ...]
    seat: int
    phase: str
    in_hand: str | None = None
    card: str | None = None
    nile_tiles: int = 0
    laid: str | None = None
    pending: tuple[int, ...] = ()
    aside: tuple[str, ...] = ()
    turns: int = 0
    finished: bool = False
    unchecked: tuple[str, ...] = ()

    @cached_property
    def layout(self):
        """The layout's geometry and regions (``board.Layout``)."""
        from rules.horus.board import Layout

        return Layout(self.tiles)

    @cached_property
    def move_cache(self) -> dict:
        """The legal moves and the placements refused, worked out on first use."""
        return {}

    @property
    def first_round(self) -> bool:
        """Whether every player has not yet had a first turn ("Ausnahme in der ersten
        Runde")."""
        return self.turns < self.players

    def stones_left(self, seat: int) -> int:
        return self.kit.stones - sum(1 for s in self.stones if s.player == seat)

    def stack(self, name: str) -> int:
        return self.stacks[self.kit.stack_names.index(name)]

    @property
    def empty_stacks(self) -> tuple[str, ...]:
        return tuple(
            name for name, count in zip(self.kit.stack_names, self.stacks, strict=True) if not count
        )

    @property
    def exhausted(self) -> tuple[str, ...]:
        """The terrains whose stacks are empty: their cards leave every hand."""
        return tuple(name for name in self.empty_stacks if name in self.kit.terrain)

    def __repr__(self) -> str:
        from rules.horus.notation import state_to_json

        return f"parse_state({n.dumps(state_to_json(self))!r})"
