"""Uräus's track as the companion understands it, and taps on it turned into moves.

Place ids (``data-place``):

- ``"field:<n>"``: field ``n`` of the track, from the head field ``field:0`` (the start)
  to the tail field ``field:<tail>`` (the goal; 63 in the shipped kit);
- ``"border:<seat>"``: the seat's border field, where its pieces wait to enter.

Taps: an advance is ``(from, to)``: the piece's field (or ``border:<seat>`` for a new
piece), then the field where it ends (the tail field when it comes home; its own border
when the option ``past_head = "leave"`` drives it off the track). The turn step is not
tapped: the roll, the piece's facing and where it ends fix it. The die roll, a pass and
a captured piece's owner deciding whether it engages (``Return``) are buttons.

Ambiguity: the paths of one piece end on different fields, except paths that stop at
the head field or reach the tail field, and those leave the same position, so the engine
lists only one of them as legal. ``compose`` therefore returns the legal move with those
taps when there is one (the first the engine lists), else the path with the fewest turns
(no turn, then the earliest turn step) whose end the taps name, whether or not pieces
block it: the engine then names the rule it breaks. Taps that no path of the roll fits
(too far, the wrong way) are a :class:`TapError`, as are an empty field or another
seat's border as a first tap, and taps while no piece is to move.

The picture: the fields as a snake (boustrophedon) of numbered cells from the head at the
top left; scale fields (S, scalloped) and goose fields (G, dotted) with a legend; pieces
as discs in the seat's kit colour with the seat number, a triangle on the rim pointing
the way the piece faces along the track; a double as two discs, the upper one on top; the
head field's pieces counted per seat; each seat's border and home counts; the die.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

from companion.panels.common import (
    Say,
    TapError,
    card,
    check_taps,
    circle,
    colour,
    die,
    document,
    el,
    ended,
    place,
    polygon,
    rect,
    seat_to_act,
    text,
    title,
    token,
    whole,
    words,
)
from rules.uraeus import URAEUS
from rules.uraeus.model import TAIL, Advance, Stone, UraeusMove, UraeusState

#: A field's centre in the picture.
Centre = Callable[[int], tuple[float, float]]

CELL = 72
GAP = 6
LEFT, TOP = 20, 44
SEAT_W, SEAT_H = 170, 112

WORDS = {
    "title": {"en": "Uräus track", "de": "Uräus-Spielbahn"},
    "field": {"en": "Field {n}", "de": "Feld {n}"},
    "head": {"en": "Head · start", "de": "Kopf · Start"},
    "tail": {"en": "Tail · goal", "de": "Schwanz · Ziel"},
    "scale": {"en": "scale field", "de": "Schuppenfeld"},
    "goose": {"en": "goose field", "de": "Gänsefeld"},
    "border": {"en": "Border", "de": "Rand"},
    "home": {"en": "Home", "de": "Ziel"},
    "place": {"en": "finished {n}.", "de": "fertig als {n}."},
    "die": {"en": "Die", "de": "Würfel"},
    "rolls": {"en": "{who} rolls the die", "de": "{who} würfelt"},
    "rolloff": {"en": "Roll-off: {who} rolls", "de": "Auswürfeln: {who} würfelt"},
    "moves": {"en": "{who} moves {n}", "de": "{who} zieht {n}"},
    "decides": {
        "en": "{who} decides on the captured piece on field {n}",
        "de": "{who} entscheidet über den geschlagenen Stein auf Feld {n}",
    },
    "facing_tail": {"en": "facing the tail", "de": "zum Schwanz gewandt"},
    "facing_head": {"en": "facing the head", "de": "zum Kopf gewandt"},
    "upper": {"en": "upper piece of a double", "de": "oberer Stein eines Doppels"},
    "waiting": {"en": "captured, waiting", "de": "geschlagen, wartet"},
    "legend_scale": {
        "en": "S scale field: a captured piece goes back to the one below it",
        "de": "S Schuppenfeld: ein geschlagener Stein kommt auf das nächste darunter zurück",
    },
    "legend_goose": {
        "en": "G goose field: its piece must move on at once",
        "de": "G Gänsefeld: sein Stein muss sofort weiterziehen",
    },
    "legend_facing": {
        "en": "▲ on a piece: the way it faces along the track; a ring: the upper piece of a double",
        "de": "▲ am Stein: seine Richtung auf der Bahn; ein Ring: der obere Stein eines Doppels",
    },
}
# The kit names colours in English; German players read them in German.
COLOUR_NAMES = {"red": "rot", "blue": "blau", "green": "grün", "yellow": "gelb"}


# -- taps ---------------------------------------------------------------------------


def taps(state: UraeusState, move: UraeusMove) -> tuple[str, ...]:
    """The place ids a player taps for ``move``; ``()`` for moves made with buttons and
    for moves whose places the picture does not have (a seat not at the table)."""
    if not isinstance(move, Advance) or state.roll is None:
        return ()
    if type(move.player) is not int or not 0 <= move.player < state.players:
        return ()
    end = _end_of(state, move)
    return () if end is None else (_source_id(move), end)


def compose(state: UraeusState, taps: tuple[str, ...]) -> Advance | None:
    """The move the taps describe (legal or not), ``None`` for a valid beginning."""
    taps = check_taps(taps)
    if not taps:
        return None
    seat = seat_to_act(URAEUS, state, taps)
    if state.pending is not None:
        raise TapError(taps, "a captured piece waits for its owner's decision: use the buttons")
    if len(taps) > 2:
        raise TapError(taps, "a move is two taps: the piece, then the field where it ends")
    src = _source(state, taps, seat)
    if len(taps) == 1:
        return None
    dst = taps[1]
    if dst != f"border:{seat}":
        _field(state, taps, dst)
    for move in URAEUS.legal_moves(state):
        if isinstance(move, Advance) and move.src == src and _end_of(state, move) == dst:
            return move
    start, facing = _mover(state, seat, src)
    for turn in (None, *range(1, state.roll + 1)):
        if _end(state, seat, start, facing, turn) == dst:
            return Advance(seat, src, turn)
    raise TapError(taps, f"no path of {state.roll} steps leads from {taps[0]} to {dst}")


def _source_id(move: Advance) -> str:
    return f"border:{move.player}" if move.src is None else f"field:{move.src}"


def _end_of(state: UraeusState, move: Advance) -> str | None:
    start, facing = _mover(state, move.player, move.src)
    return None if facing is None else _end(state, move.player, start, facing, move.turn)


def _source(state: UraeusState, taps: tuple[str, ...], seat: int) -> int | None:
    tap = taps[0]
    if tap.startswith("border:"):
        owner = whole(tap[len("border:") :], 0, state.players - 1)
        if owner is None:
            raise TapError(taps, f"{tap} is no place of this table")
        if owner != seat:
            raise TapError(taps, f"{tap} is seat {owner}'s border, and seat {seat} is to move")
        return None
    field = _field(state, taps, tap)
    if not state.track[field]:
        raise TapError(taps, f"{tap} is empty: a move begins at a piece or at the border")
    return field


def _field(state: UraeusState, taps: tuple[str, ...], tap: str) -> int:
    field = whole(tap[len("field:") :], 0, state.kit.tail) if tap.startswith("field:") else None
    if field is None:
        places = f"field:0 to field:{state.kit.tail}, border:<seat>"
        raise TapError(taps, f"{tap} is no place of this track ({places})")
    return field


def _mover(state: UraeusState, seat: int, src: int | None) -> tuple[int, int | None]:
    """Where the moving piece starts and which way it faces (None: no piece there)."""
    if src is None:
        return 0, TAIL
    if not isinstance(src, int) or not 0 <= src < len(state.track) or not state.track[src]:
        return 0, None
    stones = state.track[src]
    # The seat's own piece when it has one there; the engine judges a lower or foreign one.
    mine = [stone for stone in stones if stone.owner == seat]
    return src, (mine or stones)[-1].facing


def _end(state: UraeusState, seat: int, start: int, facing: int, turn: int | None) -> str | None:
    """Where a path ends, as a place id, with the pieces on the way ignored: they change
    whether it is legal, never where it ends. None for a path that cannot be walked."""
    tail, roll = state.kit.tail, state.roll
    pos, direction = start, TAIL if start == 0 else facing
    for step in range(1, roll + 1):
        if step == turn:
            if pos == 0:
                return None
            direction = -direction
            continue
        ahead = pos + direction
        if ahead == tail:
            return f"field:{tail}"
        if ahead == 0:
            if step == roll or state.options["past_head"] == "stop":
                return "field:0"
            return f"border:{seat}"
        pos = ahead
    return f"field:{pos}"


# -- the picture --------------------------------------------------------------------


def svg(state: UraeusState, *, lang: str = "en", flag: Mapping[str, Any] | None = None) -> str:
    # A flag is left to the page, which shows its words: no move of this game has a
    # place on the board that would say more.
    say = words(WORDS, lang)
    count = state.kit.tail + 1
    per_row = max(6, round(math.sqrt(count * 1.6)))  # a little wider than high
    rows = -(-count // per_row)

    def centre(field: int) -> tuple[float, float]:
        row, i = divmod(field, per_row)
        col = i if row % 2 == 0 else per_row - 1 - i
        return LEFT + col * CELL + CELL / 2, TOP + row * CELL + CELL / 2

    width = max(per_row * CELL, state.players * SEAT_W + 100) + 2 * LEFT
    panel_y = TOP + rows * CELL + 16
    height = panel_y + SEAT_H + 104
    status = _status(state, say, lang)
    body = [_defs(), text(width / 2, 28, status, 18, font_weight="bold")]
    spine = " ".join(f"{x:g},{y:g}" for x, y in map(centre, range(count)))
    snake = {"stroke_linejoin": "round", "stroke_linecap": "round", "class_": "snake"}
    body.append(
        el("polyline", points=spine, fill="none", stroke="#b59b5c", stroke_width=26, **snake)
    )
    body.extend(_field_cell(state, field, centre, say) for field in range(count))
    if state.pending is not None:
        cx, cy = centre(state.pending.field)
        seat = state.pending.owner
        label = title(f"{_seat_name(state, seat, say, lang)}: {say('waiting')}")
        disc = _disc(state, seat, cx + 18, cy - 16, 11, dashed=True)
        body.append(el("g", [label, disc], class_="piece pending", data_owner=seat, data_count=1))
    for seat in range(state.players):
        body.append(_seat_panel(state, seat, LEFT + seat * SEAT_W, panel_y, say, lang))
    die_x = LEFT + state.players * SEAT_W + 16
    body.append(text(die_x + 34, panel_y + 16, say("die"), 14))
    body.append(die(die_x, panel_y + 26, 68, state.roll, f"{say('die')}: {state.roll or '–'}"))
    body.append(_legend(LEFT, panel_y + SEAT_H + 12, say))
    return document("uraeus", width, height, f"{say('title')}: {status}", body)


def _defs() -> str:
    tile = {"patternUnits": "userSpaceOnUse"}
    arcs = "M0,8 A5,5 0 0 1 10,8 M-5,3 A5,5 0 0 1 5,3 M5,3 A5,5 0 0 1 15,3"
    scallops = el("path", d=arcs, fill="none", stroke="#7a8f3c", stroke_width=1.2)
    scale = el("pattern", [scallops], id="uraeus-scale", width=10, height=10, **tile)
    dot = circle(4, 4, 1.6, fill="#4a78b0")
    goose = el("pattern", [dot], id="uraeus-goose", width=8, height=8, **tile)
    return el("defs", [scale, goose])


def _legend(x: float, y: float, say: Say) -> str:
    keys = (
        ("legend_scale", "url(#uraeus-scale)"),
        ("legend_goose", "url(#uraeus-goose)"),
        ("legend_facing", "#ffffff"),
    )
    parts = []
    for k, (key, fill) in enumerate(keys):
        top = y + k * 28
        parts.append(rect(x, top, 22, 22, rx=4, fill=fill, stroke="#5b4a2a"))
        parts.append(text(x + 30, top + 16, say(key), 13, text_anchor="start"))
    return el("g", parts, class_="legend")


def _status(state: UraeusState, say: Say, lang: str) -> str:
    actor = URAEUS.to_act(state)
    if actor is None:
        return ended(URAEUS, state, say, lambda seat: _seat_name(state, seat, say, lang))
    if state.contenders:
        who = _seat_name(state, state.contenders[len(state.rolloff)], say, lang)
        return say("rolloff", who=who)
    if state.pending is not None:
        return say("decides", who=_seat_name(state, actor, say, lang), n=state.pending.field)
    if state.roll is None:
        return say("rolls", who=_seat_name(state, state.turn, say, lang))
    return say("moves", who=_seat_name(state, actor, say, lang), n=state.roll)


def _seat_name(state: UraeusState, seat: int, say: Say, lang: str) -> str:
    name = state.colour(seat)
    shown = COLOUR_NAMES.get(name, name) if lang == "de" else name
    return f"{say('seat', seat=seat)} ({shown})"


def _field_cell(state: UraeusState, field: int, centre: Centre, say: Say) -> str:
    kit = state.kit
    cx, cy = centre(field)
    half = (CELL - GAP) / 2
    x, y = cx - half, cy - half
    fill, mark, kind = "#f6efd9", None, None
    if field in kit.scale:
        fill, mark, kind = "url(#uraeus-scale)", "S", "scale"
    elif field in kit.goose:
        fill, mark, kind = "url(#uraeus-goose)", "G", "goose"
    end = {0: say("head"), kit.tail: say("tail")}.get(field)  # "Head · start"
    label = say("field", n=field) + (f" · {end}" if end else "")
    number = f"{field} {end.split(' · ')[-1]}" if end else str(field)
    outline = {"stroke": "#5b4a2a", "stroke_width": 1.5, "class_": "cell"}
    bold = {"text_anchor": "start", "font_weight": "bold"}
    parts = [
        rect(x, y, 2 * half, 2 * half, rx=8, fill="#ffffff"),  # under a pattern's gaps
        rect(x, y, 2 * half, 2 * half, rx=8, fill=fill, data_mark=kind, **outline),
        text(x + 4, y + 13, number, 13, **bold),
    ]
    if mark:
        parts.append(circle(x + 2 * half - 10, y + 10, 8, fill="#ffffff", stroke="#000000"))
        middle = {"font_weight": "bold", "dominant_baseline": "central"}
        parts.append(text(x + 2 * half - 10, y + 10, mark, 11, **middle))
        label += f", {say(kind)}"
    stones = state.track[field]
    if field == 0:
        parts.extend(_head_pieces(state, stones, cx, cy, say))
    for k, stone in enumerate(stones if field else ()):
        double = len(stones) == 2
        dx, dy = ((-10, 12), (9, -2))[k] if double else (0, 6)
        r = 15 if double else 18
        upper = double and k == 1
        parts.append(_piece(state, field, stone, (cx + dx, cy + dy, r), upper, centre, say))
    return place(f"field:{field}", parts, label)


def _head_pieces(
    state: UraeusState, stones: tuple[Stone, ...], cx: float, cy: float, say: Say
) -> list[str]:
    """The head field holds any number of pieces: one disc per seat with its count."""
    owners = sorted({stone.owner for stone in stones})
    parts = []
    for k, owner in enumerate(owners):
        n = sum(1 for stone in stones if stone.owner == owner)
        x = cx - 15 + 30 * (k % 2)
        y = cy - 3 + 24 * (k // 2) + (0 if len(owners) > 2 else 10)
        badge = [
            rect(x + 2, y + 2, 20, 13, rx=4, fill="#ffffff", stroke="#000000"),
            text(x + 12, y + 9, f"×{n}", 10, font_weight="bold", dominant_baseline="central"),
        ]
        label = title(f"{say('seat', seat=owner)}: {n}")
        disc = _disc(state, owner, x, y, 10)
        parts.append(el("g", [label, disc, *badge], class_="piece", data_owner=owner, data_count=n))
    return parts


def _disc(
    state: UraeusState, seat: int, cx: float, cy: float, r: float, dashed: bool = False
) -> str:
    return token(cx, cy, r, colour(state.colour(seat)), str(seat), dashed)


def _piece(
    state: UraeusState,
    field: int,
    stone: Stone,
    disc: tuple[float, float, float],
    upper: bool,
    centre: Centre,
    say: Say,
) -> str:
    cx, cy, r = disc
    # The arrow points along the drawn snake, which changes direction row by row.
    ahead = field + stone.facing
    if 0 <= ahead <= state.kit.tail:
        (x0, y0), (x1, y1) = centre(field), centre(ahead)
    else:
        (x1, y1), (x0, y0) = centre(field), centre(field - stone.facing)
    length = math.hypot(x1 - x0, y1 - y0) or 1.0
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    tip = (cx + ux * (r + 8), cy + uy * (r + 8))
    bx, by = cx + ux * (r - 1), cy + uy * (r - 1)
    arrow = polygon([tip, (bx - uy * 6, by + ux * 6), (bx + uy * 6, by - ux * 6)], fill="#000000")
    facing = "tail" if stone.facing == TAIL else "head"
    label = f"{say('seat', seat=stone.owner)}, {say('facing_' + facing)}"
    parts = [
        title(label + (f", {say('upper')}" if upper else "")),
        arrow,
        _disc(state, stone.owner, cx, cy, r),
    ]
    if upper:
        parts.append(circle(cx, cy, r + 3, fill="none", stroke="#000000", stroke_width=2))
    return el("g", parts, class_="piece", data_owner=stone.owner, data_count=1, data_facing=facing)


def _seat_panel(state: UraeusState, seat: int, x: float, y: float, say: Say, lang: str) -> str:
    me = URAEUS.to_act(state) == seat
    w = SEAT_W - 10
    name = _seat_name(state, seat, say, lang)
    bold = {"text_anchor": "start", "font_weight": "bold"}
    parts = [
        card(x, y, w, SEAT_H, me),
        _disc(state, seat, x + 20, y + 20, 12),
        text(x + 38, y + 25, ("▶ " if me else "") + name, 14, **bold),
    ]
    border = state.border[seat]
    tap = [
        rect(x + 8, y + 40, w - 16, 34, rx=6, fill="#ffffff", stroke="#666666", class_="cell"),
        text(x + 16, y + 62, f"{say('border')}: {border}", 15, data_count=border, **bold),
    ]
    parts.append(place(f"border:{seat}", tap, f"{name}: {say('border')} {border}"))
    home = f"{say('home')}: {state.home[seat]} / {state.kit.per_player}"
    if seat in state.finished:
        home += f" · {say('place', n=state.finished.index(seat) + 1)}"
    parts.append(text(x + 16, y + 98, home, 15, text_anchor="start", class_="home"))
    return el("g", parts, class_="seat", data_seat=seat)
