"""Horus's turns: draws, tiles laid, cards played, stones, the refill, a stack running
out, and the end ("SPIELABLAUF", "SPIELENDE").

Each function applies a move already known to be legal and returns the new state.
"""

from __future__ import annotations

from dataclasses import replace

from rules.core import View
from rules.horus.geometry import Pos
from rules.horus.kit import ANY
from rules.horus.legality import bag_kinds_possible, bag_moves, card_of, stack_choices
from rules.horus.model import (
    NILE,
    UNKNOWN,
    DrawCard,
    DrawTile,
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
    Stone,
    Tile,
)

#: The Nile card lays two river/necropolis tiles ("zuerst zwei Fluss-/Nekropolenplättchen").
NILE_TILES = 2
#: The game ends when this many of the five stacks are empty ("SPIELENDE").
EMPTY_STACKS_TO_END = 2


def _by_position(items):
    return tuple(sorted(items, key=lambda item: (item.at.y, item.at.x)))


def _minus(counts: tuple[int, ...], index: int, amount: int = 1) -> tuple[int, ...]:
    return tuple(c - amount * (i == index) for i, c in enumerate(counts))


def deal(state: HorusState) -> HorusState:
    """The deal before the first turn: five cards each, one at a time (full view)."""
    if state.view is View.TABLE:
        return state
    order = tuple(seat for _ in range(state.kit.hand) for seat in range(state.players))
    return settle(replace(state, pending=order))


# -- chance ---------------------------------------------------------------------------


def drawable(state: HorusState) -> tuple[int, ...]:
    """The cards a draw takes from: the pile, or when it is empty the discards
    reshuffled, less the cards of terrains whose stacks are empty ("Natürlich mit
    Ausnahme der ... nicht mehr vorhandenen Geländeart")."""
    if sum(state.pile):
        return state.pile
    gone = state.exhausted
    kit = state.kit
    return tuple(
        0 if kit.card[name].terrain in gone else count
        for name, count in zip(kit.card_names, state.discards, strict=True)
    )


def draw_card(state: HorusState, move: DrawCard) -> HorusState:
    kit = state.kit
    pile, discards = state.pile, state.discards
    if not sum(pile):  # reshuffle the discards into a new pile
        pile = drawable(state)
        discards = tuple(d - p for d, p in zip(discards, pile, strict=True))
    index = kit.card_names.index(move.card)
    pile = _minus(pile, index)
    if kit.card[move.card].terrain in state.exhausted:
        # "Im weiteren Spielverlauf gezogene Horuskarten dieser Gebietsart werden sofort
        # abgelegt und ersetzt": discarded, and the seat draws again.
        discards = _minus(discards, index, -1)
        return settle(replace(state, pile=pile, discards=discards))
    seat = state.pending[0]
    hands = list(state.hands)
    hands[seat] = _in_kit_order(state, (*hands[seat], move.card))
    return settle(
        replace(state, pile=pile, discards=discards, hands=tuple(hands), pending=state.pending[1:])
    )


def _in_kit_order(state: HorusState, cards) -> tuple[str, ...]:
    order = state.kit.card_names
    return tuple(sorted(cards, key=order.index))


def draw_tile(state: HorusState, move: DrawTile) -> HorusState:
    if move.kind is None:
        return replace(state, phase="bag-tile", in_hand=UNKNOWN)
    index = state.kit.bag_kinds.index(move.kind)
    return replace(state, bag=_minus(state.bag, index), phase="bag-tile", in_hand=move.kind)


# -- tiles ----------------------------------------------------------------------------


def _take_from_bag(state: HorusState, kind: str) -> HorusState:
    """The bag tile leaves the hand; in the table view the bag gives it up only now."""
    bag = state.bag
    if state.in_hand == UNKNOWN:
        bag = _minus(bag, state.kit.bag_kinds.index(kind))
    return replace(state, bag=bag, in_hand=None)


def _take_from_stack(state: HorusState, name: str) -> HorusState:
    index = state.kit.stack_names.index(name)
    stacks = _minus(state.stacks, index)
    state = replace(state, stacks=stacks)
    if stacks[index] == 0 and name in state.kit.terrain:
        state = _exhaust(state, name)
    return state


def _exhaust(state: HorusState, terrain: str) -> HorusState:
    """A terrain stack ran out: every hand discards that terrain's cards and is filled
    up to five again at once ("Achtung: Sobald ein Auswahlstapel ...")."""
    kit = state.kit
    if state.view is View.TABLE:
        note = (f"turn {state.turns + 1}: the {terrain} stack ran out; that every hand gave up "
                f"its {terrain} cards and drew again is not seen")  # fmt: skip
        return replace(state, unchecked=(*state.unchecked, note))
    hands = []
    discards = list(state.discards)
    for hand in state.hands:
        kept = []
        for name in hand:
            if kit.card[name].terrain == terrain:
                discards[kit.card_names.index(name)] += 1
            else:
                kept.append(name)
        hands.append(tuple(kept))
    order = [(state.seat + i) % state.players for i in range(state.players)]
    owed = tuple(seat for seat in order for _ in range(kit.hand - len(hands[seat])))
    return replace(
        state, hands=tuple(hands), discards=tuple(discards), pending=(*state.pending, *owed)
    )


def _add_tiles(state: HorusState, *tiles: Tile, river_at: Pos | None = None) -> HorusState:
    kept = [t for t in state.tiles if t.at != river_at]
    if river_at is not None:
        kept.append(Tile(river_at, "river"))
    return replace(state, tiles=_by_position([*kept, *tiles]))


def lay(state: HorusState, move: Lay) -> HorusState:
    after = _add_tiles(state, Tile(move.at, move.tile))
    return _after_tile(after, state.phase, move.tile)


def replace_end(state: HorusState, move: ReplaceEnd) -> HorusState:
    after = _add_tiles(state, Tile(move.to, "end"), river_at=move.end)
    return _after_tile(after, state.phase, "river")


def set_aside(state: HorusState, move: SetAside) -> HorusState:
    """The bag tile leaves the game. The full view knows it; the table view sees a tile
    put away unseen: it is one of the kinds still in the bag that have no legal place
    (the legality check refused the set-aside if there was none), and whether it was
    such a tile is not seen. With one such kind it is taken to be that kind; with
    several it is recorded as unknown and still counted in the bag, as a tile drawn
    unseen is until it is laid."""
    kinds = [k for k in bag_kinds_possible(state) if bag_moves(state, k, []) == [move]]
    if state.in_hand != UNKNOWN:
        state = _take_from_bag(state, kinds[0])
        return settle(replace(state, phase="card", aside=(*state.aside, kinds[0])))
    seen = f"turn {state.turns + 1}: seat {move.player} set the bag tile aside unseen"
    if len(kinds) == 1:
        note = (f"{seen}; only a {kinds[0]} would have had no legal place, so it is taken to "
                f"be the {kinds[0]} (whether it was is not seen)")  # fmt: skip
        state = replace(_take_from_bag(state, kinds[0]), aside=(*state.aside, kinds[0]))
    else:
        note = (f"{seen}; a {' or a '.join(kinds)} would have had no legal place, which it "
                "was is not seen: it is still counted in the bag")  # fmt: skip
        state = replace(state, in_hand=None)
    return settle(replace(state, phase="card", unchecked=(*state.unchecked, note)))


def _after_tile(state: HorusState, phase: str, tile: str) -> HorusState:
    """Take the tile from where the phase says it came from; go on to the next action."""
    if phase == "bag-tile":
        state = _take_from_bag(state, tile)
        # A river tile from the bag is followed by the compulsory river/necropolis tile.
        return settle(replace(state, phase="river-stack" if tile == "river" else "card"))
    stack = "river" if tile in ("river", "necropolis") else tile
    state = _take_from_stack(state, stack)
    if phase == "river-stack":
        return settle(replace(state, phase="card"))
    if phase == "stack-tile":
        return settle(replace(state, phase="stone", laid=tile))
    left = state.nile_tiles - 1
    return settle(replace(state, nile_tiles=left, phase="nile-tiles" if left else "nile-stone"))


# -- cards and stones -------------------------------------------------------------------


def play_card(state: HorusState, move: PlayCard) -> HorusState:
    notes = state.unchecked
    if state.view is View.FULL:
        kit = state.kit
        hands = list(state.hands)
        hand = list(hands[move.player])
        hand.remove(move.card)
        hands[move.player] = tuple(hand)
        discards = _minus(state.discards, kit.card_names.index(move.card), -1)
        state = replace(state, hands=tuple(hands), discards=discards)
    elif move.card is not None:
        notes += (f"turn {state.turns + 1}: whether seat {move.player} held the card "
                  f"{move.card} is not seen",)  # fmt: skip
    card = UNKNOWN if move.card is None else move.card
    return settle(replace(state, card=card, phase="stack-tile", unchecked=notes))


def play_nile(state: HorusState, move: PlayNile) -> HorusState:
    nile = tuple(held and seat != move.player for seat, held in enumerate(state.nile))
    return settle(replace(state, nile=nile, card=NILE, nile_tiles=NILE_TILES, phase="nile-tiles"))


def set_stone(state: HorusState, move: SetStone) -> HorusState:
    stones = _by_position((*state.stones, Stone(move.at, move.player)))
    size = state.layout.regions[state.layout.region_of[move.at]].size
    return end_turn(replace(state, stones=stones), size)


def move_stone(state: HorusState, move: MoveStone) -> HorusState:
    kept = [s for s in state.stones if s.at != move.source]
    stones = _by_position((*kept, Stone(move.to, move.player)))
    return end_turn(replace(state, stones=stones))


def skip_stone(state: HorusState, move: SkipStone) -> HorusState:
    return end_turn(state, None)


# -- the flow of a turn ---------------------------------------------------------------


def settle(state: HorusState) -> HorusState:
    """Skip what cannot happen: a card draw with no card left, a bag draw from an empty
    bag, a tile from an empty stack (NOTES.md §3: "Empty bag or stack: skip the
    action"), a card action for a player with no card."""
    while True:
        if state.pending and not sum(drawable(state)):
            state = replace(state, pending=())
        if state.pending or state.finished:
            return state
        phase = state.phase
        empty_bag = phase == "draw" and not sum(state.bag)
        if empty_bag or (phase == "river-stack" and not state.stack("river")):
            state = replace(state, phase="card")
        elif (
            phase == "card"
            and state.view is View.FULL
            and not state.hands[state.seat]
            and not state.nile[state.seat]
        ):
            return end_turn(state, None)
        elif phase == "stack-tile" and not stack_choices(state):
            state = replace(state, phase="stone")
        elif phase == "nile-tiles" and not state.stack("river"):
            state = replace(state, phase="nile-stone", nile_tiles=0)
        else:
            return state


def end_turn(state: HorusState, stone_size: int | None = None) -> HorusState:
    """Close the turn: note what the table view could not check, then end the game if
    two stacks are empty, else refill the hand (action 5) and pass to the left."""
    notes = state.unchecked
    if state.card == UNKNOWN:
        notes += (_card_note(state, stone_size),)
    seat = state.seat
    state = replace(
        state,
        turns=state.turns + 1,
        card=None,
        laid=None,
        nile_tiles=0,
        unchecked=notes,
    )
    if len(state.empty_stacks) >= EMPTY_STACKS_TO_END:
        return replace(state, finished=True, pending=())
    pending = state.pending
    if state.view is View.FULL:
        pending += (seat,) * (state.kit.hand - len(state.hands[seat]))
    return settle(replace(state, seat=(seat + 1) % state.players, phase="draw", pending=pending))


def _card_note(state: HorusState, stone_size: int | None) -> str:
    """What the table shows of an unseen card: the tile laid gives its centre, the
    stone's region its number (not in the first round, when every card counts 1)."""
    kit = state.kit
    laid = state.laid
    fits = []
    for name in kit.card_names:
        card = kit.card[name]
        if laid in kit.terrain and card.terrain not in (laid, ANY):
            continue
        if laid in ("river", "necropolis") and card.terrain != ANY:
            continue
        told = stone_size is not None and not state.first_round
        if told and card.number not in (stone_size, None):
            continue
        fits.append(name)
    tile = f"the {laid} tile" if laid else "no tile"
    stone = "no stone" if stone_size is None else f"a stone on a region of {stone_size}"
    return (
        f"turn {state.turns + 1}: the card seat {state.seat} played was not seen; {tile} and "
        f"{stone} fit {', '.join(fits) or 'no card of the kit'} (whether seat {state.seat} "
        "held it, and whether a stone could be set, is not checked)"
    )


def apply(state: HorusState, move: HorusMove) -> HorusState:
    if isinstance(move, DrawTile):
        return draw_tile(state, move)
    if isinstance(move, DrawCard):
        return draw_card(state, move)
    if isinstance(move, Lay):
        return lay(state, move)
    if isinstance(move, ReplaceEnd):
        return replace_end(state, move)
    if isinstance(move, SetAside):
        return set_aside(state, move)
    if isinstance(move, PlayCard):
        return play_card(state, move)
    if isinstance(move, PlayNile):
        return play_nile(state, move)
    if isinstance(move, SetStone):
        return set_stone(state, move)
    if isinstance(move, MoveStone):
        return move_stone(state, move)
    if isinstance(move, SkipStone):
        return skip_stone(state, move)
    raise TypeError(f"not a Horus move: {move!r}")


__all__ = ["apply", "card_of", "deal", "drawable", "end_turn", "settle"]
