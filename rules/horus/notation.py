"""Horus states and moves in the JSON notation (``docs/notation.md``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rules import notation as n
from rules.core import Options, View
from rules.errors import NotationError
from rules.horus.board import Layout
from rules.horus.geometry import Pos, contact
from rules.horus.kit import HorusKit, kit_from_json
from rules.horus.model import (
    NILE,
    NOT_LAND,
    PHASES,
    UNKNOWN,
    WATER,
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
from rules.horus.options import OPTION_SPECS

FIELDS = ("notation", "game", "view", "players", "options", "kit", "tiles", "stones", "bag",
          "stacks", "hands", "pile", "discards", "nile", "seat", "phase", "in_hand", "card",
          "nile_tiles", "laid", "pending", "aside", "turns", "finished", "unchecked")  # fmt: skip
MOVE_FIELDS = {
    "draw-tile": ("type", "tile"),
    "draw-card": ("type", "card"),
    "lay": ("type", "player", "tile", "at"),
    "replace-end": ("type", "player", "end", "to"),
    "set-aside": ("type", "player"),
    "play-card": ("type", "player", "card"),
    "play-nile": ("type", "player"),
    "set-stone": ("type", "player", "at"),
    "move-stone": ("type", "player", "from", "to"),
    "skip-stone": ("type", "player"),
}
TILE_KINDS = ("river", "pyramid", "end", "necropolis", "temple")


def read_pos(value: Any, where: str) -> Pos:
    """A position: ``[x, y]`` in whole half edges. Anything between (a quarter offset, a
    skewed tile) is no position a tile may take."""
    raw = n.array(value, where, 2)
    for i, v in enumerate(raw):
        if isinstance(v, float) and not v.is_integer():
            raise NotationError(
                n.join(where, i),
                "positions are whole half edges: tiles lie edge to edge or offset by half "
                "an edge, nothing between",
                v,
            )
    return Pos(*(n.integer(v, n.join(where, i)) for i, v in enumerate(raw)))


def move_to_json(move: HorusMove) -> dict[str, Any]:
    if isinstance(move, DrawTile):
        return {"type": "draw-tile", "tile": move.kind}
    if isinstance(move, DrawCard):
        return {"type": "draw-card", "card": move.card}
    data: dict[str, Any] = {"player": move.player}
    if isinstance(move, Lay):
        data |= {"type": "lay", "tile": move.tile, "at": list(move.at)}
    elif isinstance(move, ReplaceEnd):
        data |= {"type": "replace-end", "end": list(move.end), "to": list(move.to)}
    elif isinstance(move, SetAside):
        data |= {"type": "set-aside"}
    elif isinstance(move, PlayCard):
        data |= {"type": "play-card", "card": move.card}
    elif isinstance(move, PlayNile):
        data |= {"type": "play-nile"}
    elif isinstance(move, SetStone):
        data |= {"type": "set-stone", "at": list(move.at)}
    elif isinstance(move, MoveStone):
        data |= {"type": "move-stone", "from": list(move.source), "to": list(move.to)}
    elif isinstance(move, SkipStone):
        data |= {"type": "skip-stone"}
    else:
        raise TypeError(f"not a Horus move: {move!r}")
    return data


def move_from_json(data: Any, where: str = "move") -> HorusMove:
    """Read a move. Tile kinds and card names are read as any text: whether the kit has
    them is the rules' question, as is whether the seat is at the table."""
    data = n.obj(data, where)
    kind = n.text(data.get("type"), n.join(where, "type"), tuple(MOVE_FIELDS))
    n.keys(data, where, MOVE_FIELDS[kind])
    if kind == "draw-tile":
        tile = data["tile"]
        return DrawTile(None if tile is None else n.text(tile, n.join(where, "tile")))
    if kind == "draw-card":
        return DrawCard(n.text(data["card"], n.join(where, "card")))
    player = n.integer(data["player"], n.join(where, "player"), 0)
    if kind == "lay":
        tile = n.text(data["tile"], n.join(where, "tile"))
        return Lay(player, tile, read_pos(data["at"], n.join(where, "at")))
    if kind == "replace-end":
        end = read_pos(data["end"], n.join(where, "end"))
        return ReplaceEnd(player, end, read_pos(data["to"], n.join(where, "to")))
    if kind == "set-aside":
        return SetAside(player)
    if kind == "play-card":
        card = data["card"]
        return PlayCard(player, None if card is None else n.text(card, n.join(where, "card")))
    if kind == "play-nile":
        return PlayNile(player)
    if kind == "set-stone":
        return SetStone(player, read_pos(data["at"], n.join(where, "at")))
    if kind == "move-stone":
        source = read_pos(data["from"], n.join(where, "from"))
        return MoveStone(player, source, read_pos(data["to"], n.join(where, "to")))
    return SkipStone(player)


def _counts(names: tuple[str, ...], counts: tuple[int, ...] | None) -> dict[str, int] | None:
    return None if counts is None else dict(zip(names, counts, strict=True))


def state_to_json(state: HorusState) -> dict[str, Any]:
    kit = state.kit
    return {
        "notation": n.VERSION,
        "game": "horus",
        "view": state.view.value,
        "players": state.players,
        "options": state.options.to_json(),
        "kit": kit.to_json(),
        "tiles": [[t.at.x, t.at.y, t.kind] for t in state.tiles],
        "stones": [[s.at.x, s.at.y, s.player] for s in state.stones],
        "bag": _counts(kit.bag_kinds, state.bag),
        "stacks": _counts(kit.stack_names, state.stacks),
        "hands": [list(hand) for hand in state.hands],
        "pile": _counts(kit.card_names, state.pile),
        "discards": _counts(kit.card_names, state.discards),
        "nile": list(state.nile),
        "seat": state.seat,
        "phase": state.phase,
        "in_hand": state.in_hand,
        "card": state.card,
        "nile_tiles": state.nile_tiles,
        "laid": state.laid,
        "pending": list(state.pending),
        "aside": list(state.aside),
        "turns": state.turns,
        "finished": state.finished,
        "unchecked": list(state.unchecked),
    }


def state_from_json(data: Any) -> HorusState:
    data, view, players, options, kit = n.common(
        data, "horus", FIELDS, OPTION_SPECS, kit_from_json, players=(2, 4)
    )
    full = view is View.FULL
    seat_range = (0, players - 1)
    tiles = _tiles(data["tiles"], kit)
    layout = _check_layout(tiles, options)
    stones = _stones(data["stones"], tiles, players)
    bag = _count_table(data["bag"], "bag", kit.bag_kinds)
    stacks = _count_table(data["stacks"], "stacks", kit.stack_names)
    hands_raw = n.array(data["hands"], "hands", players)
    hands = []
    for i, raw in enumerate(hands_raw):
        where = f"hands[{i}]"
        hand = tuple(
            n.text(v, n.join(where, j), kit.card_names) for j, v in enumerate(n.array(raw, where))
        )
        if len(hand) > kit.hand:
            raise NotationError(where, f"a hand holds at most {kit.hand} cards", len(hand))
        if not full and hand:
            raise NotationError(where, "the table view does not see hands: []")
        if list(hand) != sorted(hand, key=kit.card_names.index):
            raise NotationError(where, "expected the cards in kit order")
        hands.append(hand)
    pile = discards = None
    if full:
        if data["pile"] is None or data["discards"] is None:
            raise NotationError("pile", "the full view counts the draw pile and the discards")
        pile = _count_table(data["pile"], "pile", kit.card_names)
        discards = _count_table(data["discards"], "discards", kit.card_names)
    elif data["pile"] is not None or data["discards"] is not None:
        raise NotationError("pile", "the table view does not see the cards: null")
    nile = tuple(
        n.boolean(v, f"nile[{i}]") for i, v in enumerate(n.array(data["nile"], "nile", players))
    )
    phase = n.text(data["phase"], "phase", PHASES)
    in_hand = data["in_hand"]
    if in_hand is not None:
        in_hand = n.text(in_hand, "in_hand", (*kit.bag_kinds, UNKNOWN))
    if (in_hand is not None) != (phase == "bag-tile"):
        raise NotationError("in_hand", "a bag tile is in hand exactly while it waits to be laid")
    if in_hand == UNKNOWN and full:
        raise NotationError("in_hand", "the full view knows the tile drawn", in_hand)
    if in_hand == UNKNOWN and not sum(bag):
        raise NotationError("in_hand", "the bag is empty: no tile was drawn from it", in_hand)
    card = data["card"]
    if card is not None:
        card = n.text(card, "card", (*kit.card_names, NILE, UNKNOWN))
    laid = data["laid"]
    if laid is not None:
        laid = n.text(laid, "laid", (*kit.terrain_names, "river", "necropolis"))
    nile_tiles = n.integer(data["nile_tiles"], "nile_tiles", 0, 2)
    finished = n.boolean(data["finished"], "finished")
    _check_turn(phase, card, nile_tiles, laid, finished, full)
    pending = tuple(
        n.integer(v, f"pending[{i}]", *seat_range)
        for i, v in enumerate(n.array(data["pending"], "pending"))
    )
    if pending and not full:
        raise NotationError("pending", "the table view does not follow card draws: []")
    state = HorusState(
        kit=kit,
        options=options,
        view=view,
        players=players,
        tiles=tiles,
        stones=stones,
        bag=bag,
        stacks=stacks,
        hands=tuple(hands),
        pile=pile,
        discards=discards,
        nile=nile,
        seat=n.integer(data["seat"], "seat", *seat_range),
        phase=phase,
        in_hand=in_hand,
        card=card,
        nile_tiles=nile_tiles,
        laid=laid,
        pending=pending,
        aside=tuple(
            n.text(v, f"aside[{i}]", kit.bag_kinds)
            for i, v in enumerate(n.array(data["aside"], "aside"))
        ),
        turns=n.integer(data["turns"], "turns", 0),
        finished=finished,
        unchecked=tuple(
            n.text(v, f"unchecked[{i}]")
            for i, v in enumerate(n.array(data["unchecked"], "unchecked"))
        ),
    )
    _check_counts(state)
    state.__dict__["layout"] = layout  # worked out for the check: the state's own
    return state


#: The phases after a Horus card was played, and after the Nile card ("SPIELABLAUF",
#: "Die Nilkarte").
CARD_PHASES = ("stack-tile", "stone")
NILE_PHASES = ("nile-tiles", "nile-stone")


def _check_turn(
    phase: str, card: str | None, nile_tiles: int, laid: str | None, finished: bool, full: bool
) -> None:
    """The turn's fields agree with its phase: a card is named from action 2 to the end
    of the turn (the Nile card in the Nile card's phases), the Nile card's tiles are
    still due only while they are laid, the card's tile is known only at the stone."""
    if finished or phase not in (*CARD_PHASES, *NILE_PHASES):
        if card is not None:
            when = "the game is over" if finished else f"phase {phase} comes before action 2"
            raise NotationError("card", f"no card is played this turn yet: {when}", card)
    elif phase in NILE_PHASES and card != NILE:
        raise NotationError("card", f'phase {phase} follows the Nile card: "nile"', card)
    elif phase in CARD_PHASES and card in (None, NILE):
        played = "a card name" + ("" if full else ' or "?"')
        raise NotationError("card", f"phase {phase} follows a Horus card played: {played}", card)
    if phase == "nile-tiles" and not finished:
        if nile_tiles == 0:
            raise NotationError(
                "nile_tiles",
                "phase nile-tiles lays the Nile card's tiles: 1 or 2 are still due",
                nile_tiles,
            )
    elif nile_tiles:
        raise NotationError(
            "nile_tiles", f"only phase nile-tiles has Nile-card tiles due, not {phase}", nile_tiles
        )
    if laid is not None and (finished or phase != "stone"):
        raise NotationError("laid", "the card's tile is recorded only in phase stone", laid)


def _count_table(value: Any, where: str, names: tuple[str, ...]) -> tuple[int, ...]:
    value = n.obj(value, where)
    n.keys(value, where, names)
    return tuple(n.integer(value[name], n.join(where, name), 0) for name in names)


def _tiles(value: Any, kit: HorusKit) -> tuple[Tile, ...]:
    kinds = (*kit.terrain_names, *TILE_KINDS)
    tiles: list[Tile] = []
    for i, raw in enumerate(n.array(value, "tiles")):
        where = f"tiles[{i}]"
        raw = n.array(raw, where, 3)
        at = read_pos(raw[:2], where)
        kind = n.text(raw[2], n.join(where, 2), kinds)
        for other in tiles:
            if contact(at, other.at) == "overlap":
                raise NotationError(
                    where,
                    f"the tile at {at} overlaps the tile at {other.at}",
                    rule="horus.overlap",
                )
        tiles.append(Tile(at, kind))
    if list(tiles) != sorted(tiles, key=lambda t: (t.at.y, t.at.x)):
        raise NotationError("tiles", "expected the tiles in order of y, then x")
    found = Counter(t.kind for t in tiles)
    if found["end"] != 2 or found["pyramid"] != 1:
        raise NotationError(
            "tiles",
            f"the layout has {found['end']} river ends and {found['pyramid']} pyramid tiles: "
            "exactly two river ends and one pyramid tile",
        )
    return tuple(tiles)


def _check_layout(tiles: tuple[Tile, ...], options: Options) -> Layout:
    """The layout could have been built by the rules ("LEGEREGELN FÜR
    GEBIETSPLÄTTCHEN", "Der Fluss", "Der Horustempel"; NOTES.md §3 rules 3, 6, 8): every
    tile joined to the start tiles along at least half an edge, no river end blocked, the
    temple at the river. Tiles are never taken away (a river end replaced becomes a
    river tile where it lay), so what held when each tile was laid still holds."""
    layout = Layout(tiles)
    index = {t.at: i for i, t in enumerate(tiles)}
    pyramid = next(t.at for t in tiles if t.kind == "pyramid")
    joined = _reach(layout, pyramid, frozenset())
    for tile in tiles:
        if tile.at in joined:
            continue
        where = f"tiles[{index[tile.at]}]"
        corner = [p for p in layout.corner_touching(tile.at) if p in joined]
        if corner:
            raise NotationError(
                where,
                f"the {_name(tile.kind)} at {tile.at} touches the "
                f"{_name(layout.kind[corner[0]])} at {corner[0]} only at a corner: tiles "
                "touch along a whole or half an edge",
                rule="horus.corner-contact",
            )
        raise NotationError(
            where,
            f"the {_name(tile.kind)} at {tile.at} is not joined to the layout: every tile touches "
            "one laid before it",
            rule="horus.touch",
        )
    # River tiles and ends are laid touching the river, so the river is one piece.
    land = frozenset(p for p, k in layout.kind.items() if k not in WATER)
    river = _reach(layout, pyramid, land)
    for tile in tiles:
        if tile.kind in WATER and tile.at not in river:
            raise NotationError(
                f"tiles[{index[tile.at]}]",
                f"the {_name(tile.kind)}{' tile' * (tile.kind == 'river')} at {tile.at} is not "
                "joined to the river: river tiles "
                "and ends are laid touching the river",
                rule="horus.river-touch",
            )
    blocked = layout.blocked_ends(full_edge=options["end_room"] == "full-edge")
    if blocked:
        raise NotationError(
            f"tiles[{index[blocked[0]]}]",
            f"the river end at {blocked[0]} is blocked: no free place touches it",
            rule="horus.river-end-blocked",
        )
    for tile in tiles:
        if tile.kind == "temple":
            _check_temple(layout, tile.at, f"tiles[{index[tile.at]}]")
    return layout


def _check_temple(layout: Layout, at: Pos, where: str) -> None:
    """The temple was laid at the river touching no land ("Der Horustempel"). Tiles laid
    at it later may touch it (Beispiel 6, F), and the river is one piece (checked
    before), so any land beside it now could have come after it: only the river is
    checked."""
    if not any(layout.kind[p] in WATER for p in layout.touching(at)):
        raise NotationError(
            where, f"the temple at {at} does not touch the river", rule="horus.temple-river"
        )


def _reach(layout: Layout, start: Pos, avoid: frozenset[Pos]) -> set[Pos]:
    """The tiles joined to ``start`` along at least half an edge, not passing ``avoid``."""
    seen = {start}
    stack = [start]
    while stack:
        for p in layout.touching(stack.pop()):
            if p not in seen and p not in avoid:
                seen.add(p)
                stack.append(p)
    return seen


def _stones(value: Any, tiles: tuple[Tile, ...], players: int) -> tuple[Stone, ...]:
    kind = {t.at: t.kind for t in tiles}
    stones: list[Stone] = []
    for i, raw in enumerate(n.array(value, "stones")):
        where = f"stones[{i}]"
        raw = n.array(raw, where, 3)
        at = read_pos(raw[:2], where)
        seat = n.integer(raw[2], n.join(where, 2), 0, players - 1)
        if kind.get(at) is None:
            raise NotationError(
                where,
                f"no tile lies at {at}: stones go on terrain tiles",
                rule="horus.stone-terrain",
            )
        if kind[at] in NOT_LAND:
            raise NotationError(
                where,
                f"the tile at {at} is a {_name(kind[at])}: stones go on terrain tiles only",
                rule="horus.stone-terrain",
            )
        if any(s.at == at for s in stones):
            raise NotationError(
                where, f"two stones on the tile at {at}", rule="horus.stone-one-per-tile"
            )
        stones.append(Stone(at, seat))
    if list(stones) != sorted(stones, key=lambda s: (s.at.y, s.at.x)):
        raise NotationError("stones", "expected the stones in order of y, then x")
    return tuple(stones)


def _check_counts(state: HorusState) -> None:
    """Every printed tile is in the bag, in a stack, in hand or on the table (the temple
    may have left the game; in the table view a tile drawn unseen counts as in the bag
    until it is laid); every card in a hand, the pile or the discards; no seat
    has set more stones than it owns."""
    kit = state.kit
    on_table = Counter(t.kind for t in state.tiles)
    # A tile in hand or set aside is out of the bag and not on the table.
    in_hand = Counter([state.in_hand] if state.in_hand not in (None, UNKNOWN) else [])
    in_hand.update(state.aside)
    for i, terrain in enumerate(kit.terrains):
        bag, stack = state.bag[i], state.stacks[i]
        if bag > terrain.bag or stack > terrain.stack:
            raise NotationError(f"bag.{terrain.name}", "more tiles than the kit puts there")
        placed = on_table[terrain.name] + in_hand[terrain.name]
        if bag + stack + placed != terrain.count:
            raise NotationError(
                f"stacks.{terrain.name}",
                f"{bag} in the bag, {stack} in the stack and {placed} laid or in hand do not "
                f"make the kit's {terrain.count} {terrain.name} tiles",
            )
    river_bag, temple_bag = state.bag[-2], state.bag[-1]
    river_stack = state.stacks[-1]
    water = on_table["river"] + on_table["necropolis"] + in_hand["river"]
    drawn_rivers = kit.river_bag - river_bag
    if river_bag > kit.river_bag or river_stack > kit.river_stack:
        raise NotationError("bag.river", "more river tiles than the kit has")
    if water != drawn_rivers + kit.river_stack - river_stack:
        raise NotationError(
            "stacks.river",
            f"{water} river and necropolis tiles laid or in hand; the bag and the stack "
            f"gave {drawn_rivers + kit.river_stack - river_stack}",
        )
    if on_table["temple"] + in_hand["temple"] + temple_bag > kit.temple:
        raise NotationError("bag.temple", "more temples than the kit has")
    for seat in range(state.players):
        if state.stones_left(seat) < 0:
            raise NotationError(
                "stones",
                f"seat {seat} has set more than {kit.stones} stones",
                rule="horus.stone-supply",
            )
    if state.pile is not None:
        held = Counter(c for hand in state.hands for c in hand)
        for i, name in enumerate(kit.card_names):
            total = held[name] + state.pile[i] + state.discards[i]
            printed = {c.name: k for c, k in kit.cards}[name]
            if total != printed:
                raise NotationError(
                    f"pile.{name}",
                    f"{total} {name} cards in hands, the pile and the discards; the kit has "
                    f"{printed}",
                )


def _name(kind: str) -> str:
    return "river end" if kind == "end" else kind
