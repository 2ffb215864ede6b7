"""Horus's layout as the companion understands it, and taps on it turned into moves.

Place ids (``data-place``):

- a position ``"x,y"`` in half edges (``rules.horus.Pos`` as written, ``"-2,0"``): a
  tile of the layout, or a free place beside it (drawn while a tile is to be laid);
- ``"tile:<kind>"``: a tile kind to lay, ``tile:desert`` .. ``tile:swamp`` (the kit's
  terrains), ``tile:river``, ``tile:necropolis``, ``tile:temple``.

Taps: a tile is laid with ``(place, "tile:<kind>")``: where, then what (the bag tile
is unseen until laid, so the tap says what it was). A river end moves with
``(end, place)``: the end's tile, then the free place where it is laid again (its old
place becomes river). A stone is set with one tap on its tile; the Nile card's stone
moves with ``(from, to)``. Cards, the Nile card, a tile set aside and a skipped stone
are buttons.

``compose`` builds the move the taps describe even when it is illegal (a tile that
blocks a river end, a temple touching land, a stone on a region of the wrong size), so
that the engine names the rule it breaks. Taps that describe no move at all are a
:class:`TapError`: a malformed or unknown id, a tile tapped before its place, a place
where a tile is expected, taps while a card is due or no seat is to act.

The picture, north up: a status line (whose turn and what is due; a held flag leads it
in red); the layout framed to fit a box of fixed size (``board.py``): tiles shaded by
terrain, each region outlined with its worth, islands ringed in blue dashes, the temple
and its doubling, the river with its two ends ringed, kingdom stones in their players'
colours with the seat's number, the places a legal move begins outlined in orange, a
refused move in red dashes. Under it: the running count per player and region (the
engine's final-count breakdown of the layout as it lies); a band of words, the held
flag's rule in words or the rule the position turns on; the stacks, the bag and the
stones; the tiles to tap.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from companion.panels.common import (
    Say,
    TapError,
    check_taps,
    circle,
    document,
    el,
    ended,
    outlined,
    place,
    rect,
    rule_words,
    seat_to_act,
    text,
    title,
    words,
    wrap,
)
from companion.panels.horus.board import (
    BOARD_H,
    FLAG,
    WIDTH,
    Frame,
    frame_positions,
    free_places,
    ghost,
    region_outlines,
    river_marks,
    seat_colour,
    stones,
    terrain_name,
    tiles,
)
from companion.panels.horus.board import _fill as tile_fill
from rules import CHANCE
from rules.errors import RulesError
from rules.horus import (
    HORUS,
    HorusState,
    Lay,
    MoveStone,
    Pos,
    ReplaceEnd,
    SetStone,
)
from rules.horus.scoring import count, totals

LEFT = 14
BOARD_Y = 40
TILE = 38  # a tile to tap, under the board
ROW_LINE = 20  # a further line of regions in a player's row of the count
#: The phases in which a tile is laid: the free places are drawn and tapped.
TILE_PHASES = ("bag-tile", "river-stack", "stack-tile", "nile-tiles")
#: The rule each phase turns on, said in the band when no flag is held.
PHASE_RULE = {
    "bag-tile": "horus.river-end-blocked",
    "river-stack": "horus.river-stack",
    "card": "horus.card-tile",
    "stack-tile": "horus.card-tile",
    "nile-tiles": "horus.river-stack",
    "stone": "horus.stone-size",
    "nile-stone": "horus.nile-stone",
}
_POSITION = re.compile(r"(0|-?[1-9][0-9]{0,2}),(0|-?[1-9][0-9]{0,2})")
#: A flagged move further than this (half edges) from the layout is not drawn: the
#: frame would shrink the layout to show it.
FLAG_REACH = 8

WORDS = {
    "title": {"en": "Horus layout", "de": "Horus-Auslage"},
    "phase_bag-tile": {"en": "{who}: lay the tile from the bag",
                       "de": "{who}: Plättchen aus dem Beutel anlegen"},
    "phase_river-stack": {"en": "{who}: lay a river/necropolis tile",
                          "de": "{who}: Fluss-/Nekropolenplättchen anlegen"},
    "phase_card": {"en": "{who}: play a card", "de": "{who}: Karte ausspielen"},
    "phase_stack-tile": {"en": "{who}: lay the tile the card names",
                         "de": "{who}: Plättchen der Karte anlegen"},
    "phase_nile-tiles": {"en": "{who}: lay the Nile card's river/necropolis tiles",
                         "de": "{who}: Fluss-/Nekropolenplättchen der Nilkarte anlegen"},
    "phase_stone": {"en": "{who}: set a kingdom stone", "de": "{who}: Königreich-Stein setzen"},
    "phase_nile-stone": {"en": "{who}: move a kingdom stone (Nile card)",
                         "de": "{who}: Königreich-Stein versetzen (Nilkarte)"},
    "drawing": {"en": "Drawing {what}", "de": "Es wird gezogen: {what}"},
    "flag": {"en": "Flagged", "de": "Beanstandet"},
    "flag_at": {"en": "Flagged at {at}", "de": "Beanstandet bei {at}"},
    "rule": {"en": "Rule", "de": "Regel"},
    "tile_at": {"en": "{kind} at {at}", "de": "{kind} bei {at}"},
    "free_at": {"en": "free place {at}", "de": "freier Platz {at}"},
    "hint_here": {"en": "a legal move starts here", "de": "hier beginnt ein erlaubter Zug"},
    "region_words": {"en": "a region of {n}, worth {value}",
                     "de": "Region aus {n}, wert {value}"},
    "region_title": {"en": "{terrain}: {n} tiles, worth {value}",
                     "de": "{terrain}: {n} Plättchen, wert {value}"},
    "temple_doubles": {"en": "doubled at the temple", "de": "verdoppelt am Tempel"},
    "island_doubles": {"en": "doubled on an island", "de": "verdoppelt auf einer Insel"},
    "capped": {"en": "capped at 10", "de": "höchstens 10"},
    "end_at": {"en": "river end at {at}: never to be blocked",
               "de": "Flussende bei {at}: darf nie blockiert werden"},
    "stone_at": {"en": "Seat {seat}'s stone at {at}", "de": "Stein von Platz {seat} bei {at}"},
    "count_head": {"en": "Count as the layout lies (final: {final})",
                   "de": "Wertung der Auslage, wie sie liegt (Endwertung: {final})"},
    "yes": {"en": "yes", "de": "ja"},
    "no": {"en": "not yet", "de": "noch nicht"},
    "controls_none": {"en": "controls no region", "de": "beherrscht keine Region"},
    "shared": {"en": "shared", "de": "geteilt"},
    "stock": {"en": "Bag: {bag} · stacks: {stacks}", "de": "Beutel: {bag} · Stapel: {stacks}"},
    "stones_left": {"en": "stones left: {stones}", "de": "Steine übrig: {stones}"},
    "nile_held": {"en": "Nile card: {seats}", "de": "Nilkarte: {seats}"},
    "nobody": {"en": "played by all", "de": "von allen gespielt"},
    "tap_head": {"en": "Lay a tile: tap its place, then the tile. Move a river end: tap the "
                       "end, then its new place. Set a stone: tap its tile.",
                 "de": "Plättchen anlegen: erst den Platz, dann das Plättchen antippen. "
                       "Flussende versetzen: erst das Ende, dann den neuen Platz. Stein "
                       "setzen: sein Plättchen antippen."},
    "lay_kind": {"en": "lay {kind}", "de": "{kind} anlegen"},
    "legend": {"en": "◎ island (×2) · ☥ at the temple (×2) · ringed: river end · "
                     "numbers: a region's worth",
               "de": "◎ Insel (×2) · ☥ am Tempel (×2) · Ring: Flussende · "
                     "Zahlen: Wert der Region"},
    "unchecked": {"en": "not checked by the table: {n}",
                  "de": "vom Tisch nicht geprüft: {n}"},
}  # fmt: skip


# -- taps ------------------------------------------------------------------------------


def palette_kinds(state: HorusState) -> tuple[str, ...]:
    """The tile kinds a player taps: the kit's terrains, river, necropolis, temple."""
    return (*state.kit.terrain_names, "river", "necropolis", "temple")


def free_shown(state: HorusState) -> tuple[Pos, ...]:
    """The free places the picture draws: beside the layout, while a tile is due."""
    if HORUS.to_act(state) in (None, CHANCE) or state.phase not in TILE_PHASES:
        return ()
    return state.layout.candidates


def taps(state: HorusState, move: Any) -> tuple[str, ...]:
    """The places tapped to make ``move``; ``()`` for a button or a move the picture
    cannot show."""
    layout = state.layout
    free = set(free_shown(state))
    if isinstance(move, Lay):
        if move.at in free and move.tile in palette_kinds(state):
            return (str(move.at), f"tile:{move.tile}")
    elif isinstance(move, ReplaceEnd):
        if layout.kind.get(move.end) == "end" and move.to in free:
            return (str(move.end), str(move.to))
    elif isinstance(move, SetStone):
        if move.at in layout.kind:
            return (str(move.at),)
    elif isinstance(move, MoveStone) and move.source in layout.kind and move.to in layout.kind:
        return (str(move.source), str(move.to))
    return ()


def compose(state: HorusState, taps: tuple[str, ...]) -> Any:
    """The move ``taps`` describe (legal or not), ``None`` while more taps are needed."""
    taps = check_taps(taps)
    seat = seat_to_act(HORUS, state, taps)
    if not taps:
        return None
    if len(taps) > 2:
        raise TapError(taps, "a move is at most two taps")
    phase = state.phase
    if phase == "card":
        raise TapError(taps, "a card is due: play it with a button, then tap the tile")
    first = _position(state, taps, taps[0])
    if phase in TILE_PHASES:
        if state.layout.kind.get(first) == "end":
            # An end's place is taken: a tap on it can only move it.
            if len(taps) == 1:
                return None
            return ReplaceEnd(seat, first, _position(state, taps, taps[1]))
        if len(taps) == 1:
            return None
        return Lay(seat, _kind(state, taps, taps[1]), first)
    if phase == "stone":
        if len(taps) > 1:
            raise TapError(taps, "a stone is set with one tap on its tile")
        return SetStone(seat, first)
    if len(taps) == 1:
        return None  # the Nile card's stone: where it goes comes next
    return MoveStone(seat, first, _position(state, taps, taps[1]))


def _position(state: HorusState, taps: tuple[str, ...], tap: str) -> Pos:
    found = _POSITION.fullmatch(tap)
    if found is None:
        if tap.startswith("tile:"):
            raise TapError(taps, f"{tap} is a tile: tap the place first, then the tile")
        raise TapError(taps, f"{tap} is no place of this layout (positions x,y; tile:<kind>)")
    return Pos(int(found.group(1)), int(found.group(2)))


def _kind(state: HorusState, taps: tuple[str, ...], tap: str) -> str:
    name = tap[len("tile:") :] if tap.startswith("tile:") else None
    if name in palette_kinds(state):
        return name
    if _POSITION.fullmatch(tap):
        raise TapError(taps, f"{tap} is a place: after the place, tap the tile to lay")
    known = ", ".join(f"tile:{k}" for k in palette_kinds(state))
    raise TapError(taps, f"{tap} is no tile of this kit ({known})")


# -- the picture -----------------------------------------------------------------------


def svg(state: HorusState, *, lang: str = "en", flag: Mapping[str, Any] | None = None) -> str:
    """The layout; ``flag`` is the flag the table holds, drawn as the rule in words and
    the refused move in red dashes where it went."""
    say = words(WORDS, lang)
    status = _status(state, say, lang)
    free = free_shown(state)
    marked = {found[0] for m in HORUS.legal_moves(state) if (found := taps(state, m))}
    flagged = _flagged(state, flag)
    at = flagged[0] if flagged else None
    frame = Frame(frame_positions(state, free, at), BOARD_Y)
    regions = count(state)

    held = flag is not None and bool(flag.get("rule"))
    head = (say("flag_at", at=str(at)) if at else say("flag")) if held else None
    shown = f"{head} · {status}" if head else status
    size = min(17.0, 17 * 64 / len(shown))  # a long line shrinks rather than overflows
    body = [text(WIDTH / 2, 24, shown, size, font_weight="bold", fill=FLAG if held else None,
                 class_="status")]  # fmt: skip
    body.append(rect(LEFT - 4, BOARD_Y - 2, WIDTH - 2 * LEFT + 8, BOARD_H + 4, rx=6,
                     fill="#eef3f8", stroke="#c8d0da"))  # fmt: skip
    body.extend(tiles(state, frame, regions, marked, say, lang))
    body.extend(free_places(frame, free, marked, say))
    body.extend(region_outlines(state, frame, regions, say, lang))
    body.extend(river_marks(state, frame, say))
    body.extend(stones(state, frame, say))
    if flagged is not None:
        body.append(ghost(frame, flagged[0], flagged[1], say, lang, state))
    count_y = frame.bottom + 16
    counts, counts_height = _count(state, regions, count_y, say, lang)
    body.append(counts)
    notes_y = count_y + counts_height + 6
    body.append(_notes(state, notes_y, flag, at, say, lang))
    stock_y = notes_y + 64 + 20
    body.append(_stock(state, stock_y, say, lang))
    palette_y = stock_y + 46
    body.append(_palette(state, palette_y, say, lang))
    height = palette_y + 44 + TILE + 26
    return document("horus", WIDTH, height, f"{say('title')}: {status}", body)


def _seat(seat: int, say: Say) -> str:
    return say("seat", seat=seat)


def _status(state: HorusState, say: Say, lang: str) -> str:
    actor = HORUS.to_act(state)
    if actor is None:
        return ended(HORUS, state, say, lambda seat: _seat(seat, say))
    if actor is CHANCE:
        return say("drawing", what=HORUS.chance_name(state, lang))
    return say(f"phase_{state.phase}", who=_seat(actor, say))


# -- the running count -----------------------------------------------------------------


def _count(state: HorusState, regions: tuple, y: float, say: Say, lang: str) -> tuple[str, float]:
    """Each player's points and the regions that make them: the engine's final count
    applied to the layout as it lies (``rules.horus.scoring``). A player's regions run
    on over as many lines as they need. Returns the drawing and its height."""
    scores = totals(regions, state.players)
    final = say("yes") if state.finished else say("no")
    parts = [text(LEFT, y + 12, say("count_head", final=final), 14, font_weight="bold",
                  text_anchor="start")]  # fmt: skip
    actor = HORUS.to_act(state)
    row_y = y + 24
    first_x, right = LEFT + 200, WIDTH - LEFT
    for seat in range(state.players):
        held = [(i, r) for i, r in enumerate(regions) if seat in r.controllers]
        chips: list[str] = []
        x, line = first_x, 0
        if not held:
            chips.append(text(x, row_y + 16, say("controls_none"), 12, fill="#666666",
                              text_anchor="start"))  # fmt: skip
        for index, region in held:
            chip = _chip(state, region, say, lang)
            width = 7 * len(chip) + 10
            if x + width > right and x > first_x:
                x, line = first_x, line + 1
            top = row_y + 3 + ROW_LINE * line
            chips.append(el("g", [rect(x, top, width, 17, rx=8,
                                       fill=tile_fill(state, region.terrain), stroke="#888888"),
                                  text(x + width / 2, top + 12.5, chip, 11.5)],
                            class_="held", data_region=index, data_value=region.value,
                            data_shared="1" if len(region.controllers) > 1 else None))  # fmt: skip
            x += width + 5
        height = 23 + ROW_LINE * line
        row = [rect(LEFT - 4, row_y, WIDTH - 2 * LEFT + 8, height, rx=5,
                    fill="#fff7e0" if seat == actor else "#f6f6f6", stroke="#d0d0d0"),
               circle(LEFT + 9, row_y + 11.5, 8, fill=seat_colour(state, seat), stroke="#000000",
                      stroke_width=1.5),
               outlined(LEFT + 9, row_y + 11.5, str(seat), 10),
               text(LEFT + 24, row_y + 16, _seat(seat, say), 13, text_anchor="start"),
               text(LEFT + 112, row_y + 16, say("points", n=scores[seat]), 14, font_weight="bold",
                    text_anchor="start", class_="points"), *chips]  # fmt: skip
        parts.append(el("g", row, class_="count", data_seat=seat, data_score=scores[seat]))
        row_y += height + 3
    return el("g", parts, class_="counts"), row_y - y


def _chip(state: HorusState, region: Any, say: Say, lang: str) -> str:
    """``farmland 4 ×2 = 8``: a region's terrain, size, multiplier, worth."""
    name = terrain_name(state, region.terrain, lang)
    times = f" ×{region.multiplier}" if region.multiplier > 1 else ""
    worth = f"{name} {region.size}{times} = {region.value}"
    if len(region.controllers) > 1:
        worth += f" ({say('shared')})"
    return worth


# -- flags and notes -------------------------------------------------------------------


def _flagged(state: HorusState, flag: Mapping[str, Any] | None) -> tuple[Pos, str | None] | None:
    """Where a held flag's move went, and the tile it laid (None for a stone), when the
    picture can show it."""
    if not flag or not isinstance(flag.get("move"), Mapping):
        return None
    try:
        move = HORUS.move_from_json(dict(flag["move"]))
    except (RulesError, ValueError, TypeError, KeyError):
        return None
    if isinstance(move, Lay):
        at, kind = move.at, move.tile if move.tile in palette_kinds(state) else None
    elif isinstance(move, ReplaceEnd):
        at, kind = move.to, "end"
    elif isinstance(move, SetStone | MoveStone):
        at, kind = (move.at if isinstance(move, SetStone) else move.to), None
    else:
        return None
    near = any(abs(at.x - p.x) <= FLAG_REACH and abs(at.y - p.y) <= FLAG_REACH
               for p in state.layout.kind)  # fmt: skip
    return (at, kind) if near else None


def _notes(state: HorusState, y: float, flag: Mapping[str, Any] | None, at: Pos | None,
           say: Say, lang: str) -> str:  # fmt: skip
    """A band under the count: the held flag with its rule in words, or the rule the
    position turns on. Its height never changes, so what lies under it stays put."""
    if flag and flag.get("rule"):
        rule = str(flag["rule"])
        head = say("flag_at", at=str(at)) if at else say("flag")
        main = f"{head}: {rule_words(rule, lang)}"
        detail = str(flag.get("detail") or "")
        small = f"{say('rule')} {rule}" + (f": {detail}" if detail else "")
        return _band(main, small, y, "flag", rule)
    actor = HORUS.to_act(state)
    if actor is None:
        rule = HORUS.outcome(state).reason
    elif actor is CHANCE:
        rule = HORUS.chance_rule
    elif state.phase == "stone" and state.first_round:
        rule = "horus.first-round"
    else:
        rule = PHASE_RULE.get(state.phase, HORUS.turn_rule)
    return _band(rule_words(rule, lang), f"{say('rule')} {rule}", y, "note", rule)


def _band(main: str, small: str, y: float, kind: str, rule: str | None) -> str:
    flagged = kind == "flag"
    paint = FLAG if flagged else "#303030"
    box = {"fill": "#fdeef0", "stroke": FLAG, "stroke_width": 2.5} if flagged else {
        "fill": "#f4f4f4", "stroke": "#c8c8c8"}  # fmt: skip
    parts = [title(f"{main} ({small})"),
             rect(LEFT - 4, y, WIDTH - 2 * LEFT + 8, 64, rx=6, **box)]  # fmt: skip
    start = {"text_anchor": "start", "fill": paint}
    for k, line in enumerate(wrap(main, 80, 2)):
        parts.append(text(LEFT + 2, y + 19 + k * 18, line, 14, font_weight="bold" if flagged
                          or not k else None, **start))  # fmt: skip
    parts.append(text(LEFT + 2, y + 56, wrap(small, 98, 1)[0], 11.5, class_="rule", **start))
    return el("g", parts, class_=kind, data_rule=rule)


# -- the stock and the tiles to tap ----------------------------------------------------


def _stock(state: HorusState, y: float, say: Say, lang: str) -> str:
    kit = state.kit
    stacks = ", ".join(f"{terrain_name(state, name, lang)} {n}"
                       for name, n in zip(kit.stack_names, state.stacks, strict=True))  # fmt: skip
    left = ", ".join(f"{seat}: {state.stones_left(seat)}" for seat in range(state.players))
    nile = [str(seat) for seat, held in enumerate(state.nile) if held]
    start = {"text_anchor": "start"}
    parts = [
        text(LEFT, y, say("stock", bag=sum(state.bag), stacks=stacks), 12.5, font_weight="bold",
             class_="stock", data_bag=sum(state.bag), **start),
        text(LEFT, y + 17, f"{say('stones_left', stones=left)} · "
             f"{say('nile_held', seats=', '.join(nile) or say('nobody'))}", 12, **start),
        text(LEFT, y + 33, say("legend"), 11.5, fill="#444444", **start),
    ]  # fmt: skip
    if state.unchecked:
        shown = text(WIDTH - LEFT, y + 17, say("unchecked", n=len(state.unchecked)), 11.5,
                     fill="#555555", text_anchor="end")  # fmt: skip
        parts.append(el("g", [title("\n".join(state.unchecked)), shown], class_="unchecked"))
    return el("g", parts, class_="legend")


def _palette(state: HorusState, y: float, say: Say, lang: str) -> str:
    parts = [text(LEFT, y + 12 + k * 15, line, 12, text_anchor="start")
             for k, line in enumerate(wrap(say("tap_head"), 100, 2))]  # fmt: skip
    kinds = palette_kinds(state)
    step = (WIDTH - 2 * LEFT) / len(kinds)
    for k, kind in enumerate(kinds):
        mid = LEFT + k * step + step / 2
        tx, ty = mid - TILE / 2, y + 40
        name = terrain_name(state, kind, lang)
        fits = min(12.0, 1.6 * step / max(6, len(name)))
        shown = [rect(tx, ty, TILE, TILE, rx=4, fill=tile_fill(state, kind), stroke="#555555",
                      stroke_width=1.5, class_="cell"),
                 text(mid, ty + TILE + 14, name, fits)]  # fmt: skip
        parts.append(place(f"tile:{kind}", shown, say("lay_kind", kind=name)))
    return el("g", parts, class_="palette")
