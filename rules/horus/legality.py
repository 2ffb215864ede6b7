"""What the rules allow in a Horus position: each move checked alone, and every legal
move listed.

The placement rules ("LEGEREGELN FÜR GEBIETSPLÄTTCHEN", "Der Fluss", "Der Horustempel")
and the stone rules ("4. Aktion") need nothing but the table, so the table view checks
them as the full view does; only the card played needs a hand.
"""

from __future__ import annotations

from typing import NamedTuple

from rules.core import View
from rules.horus.geometry import Pos, neighbours
from rules.horus.kit import ANY, NUMBERS, Card
from rules.horus.model import (
    NILE,
    NOT_LAND,
    UNKNOWN,
    WATER,
    HorusMove,
    HorusState,
    Lay,
    MoveStone,
    PlayCard,
    PlayNile,
    ReplaceEnd,
    SetAside,
    SetStone,
    SkipStone,
)

#: What each phase waits for, in words, for messages.
DUE = {
    "draw": "a tile drawn from the bag (action 1)",
    "bag-tile": "the bag tile laid (action 1)",
    "river-stack": "the compulsory river/necropolis tile laid (after a river tile from the bag)",
    "card": "a card played (action 2)",
    "stack-tile": "the tile the card names laid (action 3)",
    "nile-tiles": "the Nile card's river/necropolis tiles laid",
    "stone": "a kingdom stone set or the action skipped (action 4)",
    "nile-stone": "the Nile card's stone moved or the action skipped",
}
#: The phases in which each kind of move is made.
MOVE_PHASES: dict[type, tuple[str, ...]] = {
    Lay: ("bag-tile", "river-stack", "stack-tile", "nile-tiles"),
    ReplaceEnd: ("bag-tile", "river-stack", "stack-tile", "nile-tiles"),
    SetAside: ("bag-tile",),
    PlayCard: ("card",),
    PlayNile: ("card",),
    SetStone: ("stone",),
    MoveStone: ("nile-stone",),
    SkipStone: ("stone", "nile-stone"),
}
#: Ends further than this from a new tile (in half edges, either axis) cannot lose
#: their last free neighbour to it.
END_REACH = 3


class Problem(NamedTuple):
    rule: str
    detail: str


# -- the tiles a phase may lay --------------------------------------------------------


def bag_kinds_possible(state: HorusState) -> tuple[str, ...]:
    """The kinds the bag tile in hand can be: the one drawn, or in the table view
    (where the draw is seen only as the tile is laid) every kind the bag still holds."""
    if state.in_hand not in (None, UNKNOWN):
        return (state.in_hand,)
    return tuple(k for k, c in zip(state.kit.bag_kinds, state.bag, strict=True) if c)


def card_of(state: HorusState) -> Card | None:
    """The Horus card played this turn, when it is known."""
    if state.card in (None, UNKNOWN, NILE):
        return None
    return state.kit.card[state.card]


def stack_choices(state: HorusState) -> tuple[str, ...]:
    """The stacks the card lets the player take from (action 3): the card's terrain,
    or for a "?" centre (and an unseen card) every stack that is not empty."""
    card = card_of(state)
    if card is not None and card.terrain != ANY:
        return (card.terrain,) if state.stack(card.terrain) else ()
    return tuple(name for name in state.kit.stack_names if state.stack(name))


def stone_sizes(state: HorusState) -> tuple[int, ...]:
    """The region sizes the card lets a stone go on: 1 in the first round, the card's
    number, 1 to 5 for "?" (and for an unseen card)."""
    if state.first_round:
        return (1,)
    card = card_of(state)
    if card is None or card.number is None:
        return NUMBERS
    return (card.number,)


# -- placement ------------------------------------------------------------------------


def _near(a: Pos, b: Pos) -> bool:
    return abs(a.x - b.x) <= END_REACH and abs(a.y - b.y) <= END_REACH


def contact_problem(state: HorusState, at: Pos) -> Problem | None:
    """A new tile at ``at`` must lie free and touch a tile along at least half an edge."""
    layout = state.layout
    over = layout.overlaps(at)
    if over:
        return Problem(
            "horus.overlap",
            f"a tile at {at} would overlap the {layout.kind[over[0]]} at {over[0]}",
        )
    if not layout.touching(at):
        corner = layout.corner_touching(at)
        if corner:
            return Problem(
                "horus.corner-contact",
                f"a tile at {at} would touch the {layout.kind[corner[0]]} at {corner[0]} only "
                "at a corner: tiles touch along a whole or half an edge",
            )
        return Problem("horus.touch", f"a tile at {at} would touch no tile laid before")
    return None


def block_problem(
    state: HorusState, added: Pos, ends: tuple[Pos, ...] | None = None
) -> Problem | None:
    """No tile may leave a river end without a free position beside it."""
    layout = state.layout
    after = layout.ends if ends is None else ends
    if not any(_near(added, end) for end in after):
        return None
    full = state.options["end_room"] == "full-edge"
    if ends is None:
        # The ends stay where they are: blocked when the new tile overlaps every free
        # place beside one of them. An end with no free place already (no state read
        # or built by the rules has one) is not this tile's doing.
        x, y = added
        room = layout.room_around_ends(full)
        blocked = tuple(
            end
            for end in after
            if room[end] and all(abs(p.x - x) < 2 and abs(p.y - y) < 2 for p in room[end])
        )
    else:
        blocked = layout.blocked_ends(added=(added,), ends=after, full_edge=full)
    if blocked:
        return Problem(
            "horus.river-end-blocked",
            f"a tile at {added} would block the river end at {blocked[0]}: no free place "
            "would touch it",
        )
    return None


def lay_problem(state: HorusState, tile: str, at: Pos) -> Problem | None:
    """The board's rules for a tile of ``tile`` laid at ``at`` (the kind is allowed
    in this phase)."""
    problem = contact_problem(state, at)
    if problem is not None:
        return problem
    layout = state.layout
    if tile == "temple":
        touching = layout.touching(at)
        if not any(layout.kind[p] in WATER for p in touching):
            return Problem("horus.temple-river", f"the temple at {at} would not touch the river")
        land = [p for p in touching if layout.kind[p] not in (*WATER, "temple")]
        if land:
            return Problem(
                "horus.temple-land",
                f"the temple at {at} would touch the {layout.kind[land[0]]} at {land[0]}: it "
                "touches the river only",
            )
    if tile == "river" and not layout.touches_water(at):
        return Problem("horus.river-touch", f"a river tile at {at} would not touch the river")
    return block_problem(state, at)


def replace_problem(state: HorusState, end: Pos, to: Pos, from_bag: bool) -> Problem | None:
    """A river tile takes the end's place; the end is laid again at ``to``: beside the
    new river tile (a tile from the bag) or beside any river tile (from the stack)."""
    layout = state.layout
    if layout.kind.get(end) != "end":
        found = " and ".join(str(e) for e in layout.ends)
        return Problem(
            "horus.river-replace-end", f"no river end lies at {end}; the ends lie at {found}"
        )
    problem = contact_problem(state, to)
    if problem is not None:
        return problem
    if from_bag:
        if to not in neighbours(end):
            return Problem(
                "horus.end-attach",
                f"the river end goes beside the river tile just laid at {end}, not at {to}",
            )
    elif not layout.touches_water(to):
        return Problem("horus.end-attach", f"the river end at {to} would not touch the river")
    other = tuple(e for e in layout.ends if e != end)
    return block_problem(state, to, (*other, to))


def lay_moves(state: HorusState, tile: str, refused: list[Pos]) -> list[HorusMove]:
    """Every legal lay of ``tile``; positions refused for blocking an end go to
    ``refused``. The places listed are free and touch a tile already, so only the
    tile's own rules and the ends are checked here."""
    layout = state.layout
    seat = state.seat
    places = layout.at_river if tile in ("river", "temple") else layout.candidates
    moves: list[HorusMove] = []
    for at in places:
        problem = lay_problem(state, tile, at) if tile == "temple" else block_problem(state, at)
        if problem is None:
            moves.append(Lay(seat, tile, at))
        elif problem.rule == "horus.river-end-blocked":
            refused.append(at)
    return moves


def replace_moves(state: HorusState, from_bag: bool, refused: list[Pos]) -> list[HorusMove]:
    layout = state.layout
    moves: list[HorusMove] = []
    for end in layout.ends:
        places = [p for p in neighbours(end) if layout.is_free(p)] if from_bag else layout.at_river
        for to in places:
            problem = replace_problem(state, end, to, from_bag)
            if problem is None:
                moves.append(ReplaceEnd(state.seat, end, to))
            elif problem.rule == "horus.river-end-blocked":
                refused.append(to)
    return moves


def river_stack_moves(state: HorusState, refused: list[Pos]) -> list[HorusMove]:
    """A river/necropolis tile: as river at the river or in an end's place, or as a
    necropolis."""
    return (
        lay_moves(state, "river", refused)
        + replace_moves(state, False, refused)
        + lay_moves(state, "necropolis", refused)
    )


def bag_moves(state: HorusState, kind: str, refused: list[Pos]) -> list[HorusMove]:
    """The bag tile: a terrain anywhere, the temple at the river alone, a river tile in
    an end's place (when no end can move: option ``bag_river``); a tile with no legal
    place at all leaves the game, as the rulebook says of the temple."""
    if kind == "temple":
        moves = lay_moves(state, "temple", refused)
    elif kind == "river":
        moves = replace_moves(state, True, refused)
        if not moves and state.options["bag_river"] == "at-river":
            moves = lay_moves(state, "river", refused)
    else:
        moves = lay_moves(state, kind, refused)
    return moves or [SetAside(state.seat)]


# -- stones ---------------------------------------------------------------------------


def stone_problem(state: HorusState, at: Pos) -> Problem | None:
    seat = state.seat
    if not state.stones_left(seat):
        return Problem("horus.stone-supply", f"seat {seat} has no kingdom stone left")
    problem = stone_target_problem(state, at)
    if problem is not None:
        return problem
    region = state.layout.regions[state.layout.region_of[at]]
    if region.size >= 6:
        return Problem(
            "horus.stone-six",
            f"the {region.terrain} region at {at} has {region.size} tiles: regions of six or "
            "more take no new stones",
        )
    sizes = stone_sizes(state)
    if region.size not in sizes:
        if state.first_round:
            return Problem(
                "horus.first-round",
                f"in the first round every card counts as 1; the {region.terrain} region at "
                f"{at} has {region.size} tiles",
            )
        return Problem(
            "horus.stone-size",
            f"the card says a region of {sizes[0]}; the {region.terrain} region at {at} has "
            f"{region.size} tiles",
        )
    return None


def stone_target_problem(state: HorusState, at: Pos) -> Problem | None:
    """A stone goes on a free terrain tile."""
    kind = state.layout.kind.get(at)
    if kind is None:
        return Problem("horus.stone-terrain", f"no tile lies at {at}")
    if kind in NOT_LAND:
        return Problem(
            "horus.stone-terrain",
            f"the tile at {at} is {'a ' if kind != 'end' else 'a river '}{kind}: stones go "
            "on terrain tiles only",
        )
    taken = [s for s in state.stones if s.at == at]
    if taken:
        return Problem(
            "horus.stone-one-per-tile",
            f"the tile at {at} holds a stone of seat {taken[0].player} already",
        )
    return None


def move_stone_problem(state: HorusState, source: Pos, to: Pos) -> Problem | None:
    """The Nile card: one's own stone from a region at the river to a free tile of
    another region at the river."""
    layout = state.layout
    seat = state.seat
    if not any(s.at == source and s.player == seat for s in state.stones):
        return Problem("horus.nile-stone", f"no stone of seat {seat} stands at {source}")
    start = layout.region_of[source]
    if start not in layout.at_water:
        return Problem(
            "horus.nile-stone", f"the region of the stone at {source} does not border the river"
        )
    problem = stone_target_problem(state, to)
    if problem is not None:
        return problem
    target = layout.region_of[to]
    if target == start:
        return Problem(
            "horus.nile-stone", f"{to} lies in the stone's own region: it moves to another"
        )
    if target not in layout.at_water:
        return Problem("horus.nile-stone", f"the region at {to} does not border the river")
    region = layout.regions[target]
    if state.options["nile_stone"] == "up-to-five" and region.size >= 6:
        return Problem(
            "horus.stone-six",
            f"the {region.terrain} region at {to} has {region.size} tiles: regions of six or "
            "more take no new stones",
        )
    return None


def stone_moves(state: HorusState) -> list[HorusMove]:
    seat = state.seat
    if not state.stones_left(seat):
        return []
    layout = state.layout
    taken = {s.at for s in state.stones}
    sizes = stone_sizes(state)
    return [
        SetStone(seat, at)
        for region in layout.regions
        if region.size in sizes
        for at in region.tiles
        if at not in taken
    ]


def move_stone_moves(state: HorusState) -> list[HorusMove]:
    layout = state.layout
    seat = state.seat
    taken = {s.at for s in state.stones}
    sources = [
        s.at for s in state.stones if s.player == seat and layout.region_of[s.at] in layout.at_water
    ]
    moves: list[HorusMove] = []
    for source in sorted(sources, key=lambda p: (p.y, p.x)):
        for i in sorted(layout.at_water):
            if i == layout.region_of[source]:
                continue
            region = layout.regions[i]
            if state.options["nile_stone"] == "up-to-five" and region.size >= 6:
                continue
            moves.extend(MoveStone(seat, source, at) for at in region.tiles if at not in taken)
    return moves


def skip_problem(state: HorusState) -> Problem | None:
    """The stone action is skipped only when no stone can be set (or moved)."""
    if state.phase == "nile-stone":
        moves = move_stone_moves(state)
    elif state.view is View.TABLE and card_of(state) is None and not state.first_round:
        return None  # the card is not seen: which sizes it allows is unknown
    else:
        moves = stone_moves(state)
    if moves:
        return Problem(
            "horus.stone-skip",
            f"a stone can still be {'moved' if state.phase == 'nile-stone' else 'set'}, "
            f"for one at {moves[0].to if isinstance(moves[0], MoveStone) else moves[0].at}",
        )
    return None
