"""Horus positions for the scenario tests, built from a list of tiles.

A layout is written as ``(x, y, kind)`` triples in half edges (a tile is 2 x 2, the
position its south-west corner), on top of the shipped kit's start tiles: the pyramid
at 0,0 with the river ends at -2,0 and 2,0. Terrain, river and necropolis tiles laid
are taken from their stacks first, then from the bag, so that every count adds up; the
position is checked to read back from its notation.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

import pytest

from rules import IllegalMove, View, get_game, parse_state
from rules.catalogue import catalogue
from rules.horus import Pos, Stone, Tile
from rules.kits import load_kit
from rules.notation import dumps

HORUS = get_game("horus")
KIT = load_kit("horus")
RULEBOOK = "horus.de.txt"


def position(
    tiles=(),
    stones=(),
    *,
    players: int = 2,
    phase: str = "stone",
    seat: int = 0,
    card: str | None = None,
    turns: int | None = None,
    view: View = View.FULL,
    hands=None,
    options=None,
    in_hand: str | None = None,
    nile=None,
    stacks=None,
    laid: str | None = None,
    nile_tiles: int = 0,
):
    """A position with ``tiles`` laid beside the start tiles and ``stones`` (``(x, y,
    seat)``) on them; past the first round unless ``turns`` says otherwise. In the
    phases after a card was played, ``card`` defaults to ``?/?`` (``?`` unseen in the
    table view), or the Nile card in its phases, with its two tiles due."""
    if card is None and phase in ("stack-tile", "stone"):
        card = "?/?" if view is View.FULL else "?"
    if card is None and phase in ("nile-tiles", "nile-stone"):
        card = "nile"
    if phase == "nile-tiles" and not nile_tiles:
        nile_tiles = 2
    state = HORUS.new(players, options, KIT, view)
    start = {t.at: t for t in state.tiles}
    laid_tiles = [Tile(Pos(x, y), kind) for x, y, kind in tiles]
    every = sorted([*start.values(), *laid_tiles], key=lambda t: (t.at.y, t.at.x))
    on_table = Counter(t.kind for t in laid_tiles)
    stacks = dict(stacks or {})
    bag_counts, stack_counts = [], []
    for terrain in KIT.terrains:
        used = on_table[terrain.name] + (in_hand == terrain.name)
        stack = stacks.get(terrain.name, max(0, terrain.stack - on_table[terrain.name]))
        bag = terrain.count - stack - used
        assert 0 <= bag <= terrain.bag, (terrain.name, bag)
        bag_counts.append(bag)
        stack_counts.append(stack)
    rivers = on_table["river"] + on_table["necropolis"]
    river_stack = stacks.get("river", max(0, KIT.river_stack - rivers))
    river_bag = KIT.river_bag - (rivers - (KIT.river_stack - river_stack)) - (in_hand == "river")
    assert 0 <= river_bag <= KIT.river_bag
    temple = KIT.temple - on_table["temple"] - (in_hand == "temple")
    bag_counts += [river_bag, temple]
    stack_counts.append(river_stack)
    hands = tuple(tuple(h) for h in (hands or [() for _ in range(players)]))
    pile = discards = None
    if view is View.FULL:
        held = Counter(c for hand in hands for c in hand)
        pile = tuple(count - held[card_.name] for card_, count in KIT.cards)
        discards = (0,) * len(KIT.cards)
    state = replace(
        state,
        tiles=tuple(every),
        stones=tuple(
            sorted((Stone(Pos(x, y), s) for x, y, s in stones), key=lambda s: (s.at.y, s.at.x))
        ),
        bag=tuple(bag_counts),
        stacks=tuple(stack_counts),
        hands=hands,
        pile=pile,
        discards=discards,
        nile=tuple(nile) if nile is not None else (True,) * players,
        seat=seat,
        phase=phase,
        in_hand=in_hand,
        card=card,
        laid=laid,
        nile_tiles=nile_tiles,
        pending=(),
        turns=players if turns is None else turns,
    )
    assert parse_state(dumps(HORUS.state_to_json(state))) == state  # a readable position
    return state


def refused(state, move, rule: str, *fragments: str) -> IllegalMove:
    """``move`` is refused with ``rule``, and the message quotes it and ``fragments``."""
    with pytest.raises(IllegalMove) as error:
        HORUS.play(state, move)
    assert error.value.rule == rule, str(error.value)
    assert rule in catalogue()
    message = str(error.value)
    assert HORUS.move_text(move) in message
    for fragment in fragments:
        assert fragment in message, message
    return error.value


def play(state, *moves):
    for move in moves:
        state = HORUS.play(state, move)
    return state
