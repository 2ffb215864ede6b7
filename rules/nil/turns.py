"""Nil's turns: the lot, draws from the bag, laying tiles, closing and scoring a turn,
no play, and the end ("PUNKTWERTUNG", "KEINE SPIELMÖGLICHKEIT", "SPIEL-ENDE").

Each function applies a move already known to be legal and returns the new state.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from rules.core import View
from rules.nil.geometry import turn_line
from rules.nil.model import UNKNOWN, Draw, Lay, NilState, Step, Tile
from rules.nil.placement import candidates, finishes, room

RACK = 5
LOT = 3
FIVE_TILE_BONUS = 20  # "20 Sonderpunkte, wenn 5 Steine in einer Runde gesetzt wurden."


def lot_drawer(state: NilState) -> int | None:
    """The seat drawing its first-player lot, or ``None`` once the starter is known."""
    if state.starter is not None:
        return None
    lots = state.lots
    if lots and len(lots[-1]) < LOT:
        return state.contenders[len(lots) - 1]
    return state.contenders[len(lots)]


def lot_bag(state: NilState) -> tuple[int, ...]:
    """The bag during the lot: every printed tile but those drawn for this lot."""
    drawn = Counter(kind for lot in state.lots for kind in lot)
    return tuple(k.count - drawn[k.name] for k in state.kit.kinds)


def _sorted_rack(state: NilState, rack: list[str]) -> tuple[str, ...]:
    order = {k.name: i for i, k in enumerate(state.kit.kinds)}
    return tuple(sorted(rack, key=lambda name: order.get(name, len(order))))


def draw(state: NilState, move: Draw) -> NilState:
    kit = state.kit
    if state.starter is None:
        lots = list(state.lots)
        if lots and len(lots[-1]) < LOT:
            lots[-1] = (*lots[-1], move.kind)
        else:
            lots.append((move.kind,))
        if len(lots) < len(state.contenders) or len(lots[-1]) < LOT:
            return replace(state, lots=tuple(lots))
        # Every contender has drawn: the highest total begins; a tie draws again
        # (NOTES.md §1 rule 3). The tiles go back to the bag either way.
        totals = [sum(kit.kind[k].value for k in lot) for lot in lots]
        best = max(totals)
        tied = tuple(s for s, t in zip(state.contenders, totals, strict=True) if t == best)
        if len(tied) > 1:
            return replace(state, contenders=tied, lots=())
        starter = tied[0]
        order = [(starter + i) % state.players for i in range(state.players)]
        pending = tuple(seat for seat in order for _ in range(RACK))[: state.bag_size]
        return replace(state, lots=tuple(lots), starter=starter, seat=starter, pending=pending)
    seat = state.pending[0]
    racks = list(state.racks)
    racks[seat] = _sorted_rack(state, [*racks[seat], move.kind or UNKNOWN])
    bag = state.bag
    if bag is not None:
        index = [k.name for k in kit.kinds].index(move.kind)
        bag = tuple(c - (i == index) for i, c in enumerate(bag))
    return replace(
        state, racks=tuple(racks), bag=bag, bag_size=state.bag_size - 1, pending=state.pending[1:]
    )


def lay(state: NilState, move: Lay) -> NilState:
    kit = state.kit
    cell = move.to
    entry = next(e for c, e in candidates(state) if c == cell)
    bag, bag_size = state.bag, state.bag_size
    tiles = dict(state.board)
    if cell in tiles:  # a crossing: the tile there goes back to the bag
        exit = (entry + 4) % 8
        replaced = tiles[cell].kind
        if bag is not None:
            bag = tuple(c + (k.name == replaced) for k, c in zip(kit.kinds, bag, strict=True))
        bag_size += 1
    else:
        line = turn_line(kit.kind[move.declared or move.kind].lines[0], move.rotation)
        exit = line[1] if line[0] == entry else line[0]
    tiles[cell] = Tile(cell, move.kind, move.declared)
    racks = list(state.racks)
    rack = list(racks[move.player])
    rack.remove(move.kind if state.view is View.FULL else UNKNOWN)
    racks[move.player] = tuple(rack)
    greens, reds = set(state.greens), set(state.reds)
    index = kit.field_at.get(cell)
    if index is not None:
        colour = kit.fields[index].colour
        if colour == "green":
            greens.add(index)
        elif colour == "red":
            reds.add(index)
    after = replace(
        state,
        tiles=tuple(sorted(tiles.values(), key=lambda t: (t.cell.row, t.cell.col))),
        path=(*state.path, Step(cell, entry, exit)),
        racks=tuple(racks),
        bag=bag,
        bag_size=bag_size,
        laid=(*state.laid, move.kind),
        greens=tuple(sorted(greens)),
        reds=tuple(sorted(reds)),
    )
    if finishes(state, cell, exit):
        blue = kit.fields[kit.field_at[cell]].value
        return close_turn(after, blue=blue, finished="blue")
    # The room rule's answer for the new end is the one this lay was checked with.
    step = Step(cell, entry, exit)
    if step in state.room_cache:
        after.room_cache[step] = state.room_cache[step]
    needed = room(state, cell, entry, exit) if state.view is View.TABLE and state.path else 0
    if needed:
        tiles = "a universal tile" if needed == 1 else f"{needed} universal tiles"
        crossings = "the crossing" if needed == 1 else "the crossings"
        note = (f"turn {state.turns + 1}: whether seat {move.player} holds {tiles} for "
                f"{crossings} the line needs after {cell} (the rack is not seen)")  # fmt: skip
        return replace(after, unchecked=(*after.unchecked, note))
    return after


def turn_parts(state: NilState, blue: int = 0) -> dict[str, int]:
    """The running turn's score by its parts ("PUNKTWERTUNG"): the tiles' printed values,
    the green fields, the blue field where the line ends, 20 for all five tiles, and the
    red fields (each field once a turn, the U-shaped ones too)."""
    kit = state.kit
    parts = {
        "tiles": sum(kit.kind[name].value for name in state.laid),
        "green": sum(kit.fields[i].value for i in state.greens),
        "blue": blue,
        "bonus": FIVE_TILE_BONUS if len(state.laid) >= RACK else 0,
        "red": -sum(kit.fields[i].value for i in state.reds),
    }
    parts["total"] = sum(parts.values())
    return parts


def close_turn(state: NilState, blue: int = 0, finished: str | None = None) -> NilState:
    seat = state.seat
    scores = list(state.scores)
    scores[seat] += turn_parts(state, blue)["total"]
    state = replace(
        state,
        scores=tuple(scores),
        laid=(),
        greens=(),
        reds=(),
        turns=state.turns + 1,
        no_play_run=0,
        seat=(seat + 1) % state.players,
    )
    if finished is None and state.bag_size == 0 and not any(state.racks):
        finished = "all-placed"
    if finished is not None:
        return _finish(state, finished)
    need = min(RACK - len(state.racks[seat]), state.bag_size)
    return replace(state, pending=(seat,) * need)


def no_play(state: NilState, shown: tuple[str, ...] | None = None) -> NilState:
    seat = state.seat
    run = state.no_play_run + 1
    common = {"turns": state.turns + 1, "no_play_run": run, "seat": (seat + 1) % state.players}
    if not state.path:
        # At the opening the next player opens; nothing is lost ("SPIELBEGINN").
        notes = state.unchecked
        if state.view is View.TABLE and shown is None and state.racks[seat]:
            note = (
                f"turn {state.turns + 1}: seat {seat} passed the opening with the rack not "
                "shown: whether no tile fits the start field is not checked"
            )
            notes += (note,)
        state = replace(state, unchecked=notes, **common)
    else:
        rack = state.racks[seat]
        racks = list(state.racks)
        racks[seat] = ()
        scores = list(state.scores)
        notes = state.unchecked
        bag = state.bag
        if state.view is View.FULL:
            scores[seat] -= sum(state.kit.kind[name].value for name in rack)
            drawn = Counter(rack)
            bag = tuple(c + drawn[k.name] for k, c in zip(state.kit.kinds, bag, strict=True))
        elif shown is not None:  # shown at the table: checked, and its values count
            scores[seat] -= sum(state.kit.kind[name].value for name in shown)
        elif rack:
            note = (
                f"turn {state.turns + 1}: seat {seat} passed with {len(rack)} tiles not recorded: "
                "whether none fits (a universal must be used) is not checked and their values "
                "are not deducted"
            )
            notes += (note,)
        bag_size = state.bag_size + len(rack)
        state = replace(
            state,
            racks=tuple(racks),
            scores=tuple(scores),
            unchecked=notes,
            bag=bag,
            bag_size=bag_size,
            pending=(seat,) * min(RACK, bag_size),
            **common,
        )
    limit = 2 * state.players if state.options["no_play_end"] == "two-rounds" else 2
    if run >= limit:
        return _finish(replace(state, pending=()), "no-play")
    return state


def _finish(state: NilState, reason: str) -> NilState:
    """The end: tiles left on the racks count against their holders ("VERLUSTPUNKTE" 3)."""
    scores = list(state.scores)
    notes = state.unchecked
    for seat, rack in enumerate(state.racks):
        if state.view is View.FULL:
            scores[seat] -= sum(state.kit.kind[name].value for name in rack)
        elif rack:
            notes += (f"the end: seat {seat}'s {len(rack)} tiles left on the rack are not "
                      "deducted (the rack is not seen)",)  # fmt: skip
    return replace(state, scores=tuple(scores), unchecked=notes, finished=reason, pending=())
