"""Nil's board as the companion understands it, and taps on it turned into tiles laid.

Place ids (``data-place``):

- a cell by its notation name, ``"a1"`` .. ``"u21"`` (every cell of the kit's board);
- ``"tile:<kind>:<turn>"``: a plain tile kind as it lies after ``turn`` quarter turns
  clockwise, one place for each different look (a straight turned twice looks as it
  does unturned, so it has ``:0`` and ``:1`` only): ``"tile:curve:3"``;
- ``"tile:<kind>"``: a universal tile kind (``"tile:universal"``), whose lines fit any way.

Taps: a tile is laid with ``(cell, "tile:<kind>:<turn>")``: where, then the tile as it
lies, which gives its kind and its turn in one tap from a picture that looks like the
tile in the hand. A universal tile standing in for a plain kind takes a third tap, the
tile it stands for as it lies: ``(cell, "tile:universal", "tile:curve:1")``; a universal
tapped onto a cell that holds a tile is a crossing, complete after two taps. Ending the
turn and showing the rack (no tile fits) are buttons.

``compose`` builds the tile the taps describe even when it is illegal (a cell that does
not join the river's end, a sharp angle, a crossing without a lead), so that the engine
names the rule it breaks. Taps that describe no tile at all are a :class:`TapError`: an
unknown id, a tile tapped before its cell, a cell where a tile is expected, a universal
standing in for a universal, more than three taps, taps while no seat is to lay.

The picture, north (the goal) up, the board first so that a tablet shows all of it: a
status line (whose turn, its running score; a held flag leads it in red); the kit's
green, red and blue fields with their numbers (a field of several cells, the U-shaped red
ones, outlined once with its number once); the start point; the tiles, this turn's
yellow, universal tiles with their four faint lines; the river drawn through them, its
end ringed; the cells where the next tile may go (the engine's legal placements)
outlined in orange; a refused tile in red dashes on its cell. Under the board: the
running turn's score by its parts (the engine's ``turn_parts``); a band of words, the
held flag's rule in words or what the rules say about the position now (a crossing due,
the blue zone, no tile fits); the legend, the bag and the racks; the tiles to tap, with
how many of each kind are not on the board. The board itself is drawn in ``board.py``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from companion.panels.common import (
    Say,
    TapError,
    check_taps,
    document,
    el,
    ended,
    place,
    rect,
    rule_words,
    seat_to_act,
    text,
    title,
    whole,
    words,
    wrap,
)
from companion.panels.nil.board import (
    CELL,
    EDGE,
    FLAG,
    RIVER,
    TILE_EDGE,
    TILE_FILL,
    WIDTH,
    Frame,
    cells,
    coordinates,
    field_outlines,
    ghost,
    lines_of,
    river,
)
from rules import CHANCE
from rules.errors import RulesError
from rules.grid import Square
from rules.nil import NIL, EndTurn, Lay, NilState, turn_parts
from rules.nil.geometry import turn_line
from rules.nil.kit import TileKind
from rules.nil.placement import lead_only

LEFT = (WIDTH - 21 * CELL) / 2  # the words line up with the shipped 21 x 21 board
TILE = 40  # a tile to tap, under the board
KIND_W = 74  # a kind's column of tiles to tap
PALETTE_TOP = 84  # the words above the tiles to tap: how to tap, each kind's name

#: The board comes first, under one line of status, so that a tablet shows all of it at
#: a glance; under it the running turn, the band of words, the legend, the tiles to tap.
BOARD_Y = 52


WORDS = {
    "title": {"en": "Nil board", "de": "Nil-Spielplan"},
    "lays": {"en": "{who} lays tiles", "de": "{who} legt Steine"},
    "running": {
        "en": "{who} lays tiles: {n} of 5, {points} points so far",
        "de": "{who} legt Steine: {n} von 5, bisher {points} Punkte",
    },
    "cell": {"en": "Cell {name}", "de": "Feld {name}"},
    "green": {"en": "green field +{n}", "de": "grünes Feld +{n}"},
    "red": {"en": "red field −{n}", "de": "rotes Feld −{n}"},
    "blue": {"en": "blue goal field {n}", "de": "blaues Zielfeld {n}"},
    "start": {"en": "Start", "de": "Start"},
    "start_field": {"en": "the start field", "de": "das Startfeld"},
    "tile": {"en": "{kind} tile (+{n})", "de": "Stein „{kind}“ (+{n})"},
    "stands_for": {"en": "universal tile for a {kind}", "de": "Universalstein für „{kind}“"},
    "crossed": {"en": "universal tile crossing the river", "de": "Universalstein, Kreuzung"},
    "this_turn": {"en": "laid this turn", "de": "in diesem Zug gesetzt"},
    "fits_here": {"en": "the next tile may go here", "de": "hier darf der nächste Stein hin"},
    "end": {"en": "the river's end", "de": "das Ende des Flusses"},
    "turn_head": {
        "en": "{who}'s turn: {n} of 5 tiles laid",
        "de": "Zug von {who}: {n} von 5 Steinen gesetzt",
    },
    "no_turn": {"en": "No turn running", "de": "Kein Zug im Gang"},
    "part_tiles": {"en": "Tiles", "de": "Steine"},
    "part_green": {"en": "Green", "de": "Grün"},
    "part_blue": {"en": "Blue", "de": "Blau"},
    "part_bonus": {"en": "5 tiles", "de": "5 Steine"},
    "part_red": {"en": "Red", "de": "Rot"},
    "part_total": {"en": "This turn", "de": "Dieser Zug"},
    "flag": {"en": "⚠ Not allowed", "de": "⚠ Nicht erlaubt"},
    "flag_at": {"en": "⚠ Not allowed on {cell}", "de": "⚠ Nicht erlaubt auf {cell}"},
    "rule": {"en": "Rule", "de": "Regel"},
    "next": {
        "en": "The next tile joins the river's end (the ring) on an orange cell.",
        "de": "Der nächste Stein schließt am Ende des Flusses (Ring) auf einem orangen Feld an.",
    },
    "opening": {
        "en": "The first tile goes on the start field, its line from the start point.",
        "de": "Der erste Stein kommt auf das Startfeld, seine Linie vom Startpunkt aus.",
    },
    "no_tile_fits": {
        "en": "No tile fits at the river's end: the player shows the rack.",
        "de": "Kein Stein passt an das Ende des Flusses: der Spieler zeigt seine Steine.",
    },
    "drawing": {"en": "Waiting for {what}.", "de": "Jetzt: {what}."},
    "legend_fields": {
        "en": "green: + its number · red: − its number, once a turn · blue: the goal, its "
        "number where the river ends",
        "de": "grün: + Zahl · rot: − Zahl, einmal je Zug · blau: das Ziel, die Zahl, wo der "
        "Fluss endet",
    },
    "legend_marks": {
        "en": "orange: where the next tile may go · ring: the river's end · yellow tile: "
        "laid this turn",
        "de": "orange: hier darf der nächste Stein hin · Ring: Ende des Flusses · gelber "
        "Stein: in diesem Zug gesetzt",
    },
    "stock": {
        "en": "Bag: {bag} tiles · racks: {racks}",
        "de": "Beutel: {bag} Steine · Bänkchen: {racks}",
    },
    "unchecked": {
        "en": "Not checked, as the racks are not seen: {n}",
        "de": "Nicht geprüft, da die Bänkchen verdeckt sind: {n}",
    },
    "tap_head": {
        "en": "To lay a tile: tap its cell, then the tile as it lies (a universal tile: "
        "then the tile it stands for).",
        "de": "Stein setzen: sein Feld antippen, dann den Stein, wie er liegt (Universalstein: "
        "dann den Stein, für den er steht).",
    },
    "left": {"en": "{n} left", "de": "{n} übrig"},
    "turned": {"en": "{kind}, turned {q} (+{n})", "de": "{kind}, {q} Vierteldrehungen (+{n})"},
    "universal_tap": {
        "en": "{kind} (+{n}): crosses the river, or stands in for another tile",
        "de": "{kind} (+{n}): kreuzt den Fluss oder steht für einen anderen Stein",
    },
}
PART_KEYS = ("tiles", "green", "blue", "bonus", "red")


# -- taps ---------------------------------------------------------------------------


def taps(state: NilState, move: Any) -> tuple[str, ...]:
    """The place ids a player taps for ``move``; ``()`` for moves made with buttons and
    for tiles the picture cannot show (a cell off the board, a kind the kit lacks, a
    turn that is no quarter turn, a universal on an empty cell standing in for nothing)."""
    if not isinstance(move, Lay) or not _on_board(state, move.to):
        return ()
    kit = state.kit
    kind = kit.kind.get(move.kind) if isinstance(move.kind, str) else None
    if kind is None:
        return ()
    cell = str(move.to)
    if kind.universal:
        if move.declared is None:
            # A crossing on a laid tile; on an empty cell, a universal that stands in for
            # nothing, which no taps describe.
            return (cell, _tile_id(kind)) if move.to in state.board else ()
        declared = kit.kind.get(move.declared) if isinstance(move.declared, str) else None
        if declared is None or declared.universal or move.to in state.board:
            return ()
        look = _look(declared, move.rotation)
        return () if look is None else (cell, _tile_id(kind), _tile_id(declared, look))
    if move.declared is not None:
        return ()
    look = _look(kind, move.rotation)
    return () if look is None else (cell, _tile_id(kind, look))


def compose(state: NilState, taps: tuple[str, ...]) -> Lay | None:
    """The tile the taps describe (legal or not), ``None`` for a valid beginning."""
    taps = check_taps(taps)
    if not taps:
        return None
    seat = seat_to_act(NIL, state, taps)
    if len(taps) > 3:
        raise TapError(taps, "a tile is at most three taps: its cell, the tile, the tile it "
                             "stands for")  # fmt: skip
    cell = _cell(state, taps, taps[0])
    if len(taps) == 1:
        return None
    kind, turned = _tile(state, taps, taps[1])
    if not kind.universal:
        if len(taps) > 2:
            raise TapError(taps, f"{taps[1]} is a plain tile: only a universal tile stands in")
        return Lay(seat, cell, kind.name, turned)
    if cell in state.board:
        if len(taps) > 2:
            raise TapError(taps, f"a universal tile on {taps[0]}, which holds a tile, crosses "
                                 "the river there: it stands in for nothing")  # fmt: skip
        return Lay(seat, cell, kind.name)
    if len(taps) == 2:
        return None  # which tile the universal stands for comes next
    declared, look = _tile(state, taps, taps[2])
    if declared.universal:
        raise TapError(taps, f"a universal tile stands in for a plain tile, not {taps[2]}")
    return Lay(seat, cell, kind.name, look, declared.name)


def _on_board(state: NilState, cell: object) -> bool:
    kit = state.kit
    return (
        isinstance(cell, Square)
        and type(cell.col) is int
        and type(cell.row) is int
        and 0 <= cell.col < kit.columns
        and 0 <= cell.row < kit.rows
    )


def _look(kind: TileKind, rotation: object) -> int | None:
    """The fewest quarter turns that make ``kind`` look as it does turned ``rotation``
    (the place the picture has for it), or None for a turn that is no quarter turn."""
    if type(rotation) is not int or not 0 <= rotation < 4:
        return None
    line = turn_line(kind.lines[0], rotation)
    return next(quarter for quarter, shape in kind.shapes if shape == line)


def _tile_id(kind: TileKind, quarter: int | None = None) -> str:
    return f"tile:{kind.name}" if kind.universal else f"tile:{kind.name}:{quarter}"


def _cell(state: NilState, taps: tuple[str, ...], tap: str) -> Square:
    kit = state.kit
    try:
        cell = Square.parse(tap)
    except RulesError:
        cell = None
    if cell is None or str(cell) != tap or not _on_board(state, cell):
        if tap.startswith("tile:"):
            raise TapError(taps, f"{tap} is a tile: tap the cell first, then the tile")
        last = str(Square(kit.columns - 1, kit.rows - 1))
        raise TapError(taps, f"{tap} is no place of this board (cells a1 to {last}, tiles)")
    return cell


def _tile(state: NilState, taps: tuple[str, ...], tap: str) -> tuple[TileKind, int]:
    """The kind and quarter turns a palette id names; a TapError for anything else."""
    kit = state.kit
    name = tap[len("tile:") :] if tap.startswith("tile:") else None
    if name is not None and name in kit.universal_kinds:
        return kit.kind[name], 0
    if name is not None:
        base, _, quarter = name.rpartition(":")
        kind = kit.kind.get(base)
        turned = whole(quarter, 0, 3)
        looks = () if kind is None or kind.universal else (q for q, _ in kind.shapes)
        if turned is not None and turned in looks:
            return kind, turned
    if _is_cell(state, tap):
        raise TapError(taps, f"{tap} is a cell: after the cell, tap the tile as it lies")
    raise TapError(taps, f"{tap} is no tile of this kit (tile:<kind>:<turn>, tile:<universal>)")


def _is_cell(state: NilState, tap: str) -> bool:
    try:
        cell = Square.parse(tap)
    except RulesError:
        return False
    return str(cell) == tap and _on_board(state, cell)


# -- the picture --------------------------------------------------------------------


def svg(state: NilState, *, lang: str = "en", flag: Mapping[str, Any] | None = None) -> str:
    """The board; ``flag`` is the flag the table holds (its attention, with the rule id
    and the flagged move in the notation), drawn as the rule in words and the flagged
    tile in red on its cell."""
    say = words(WORDS, lang)
    kit = state.kit
    status = _status(state, say, lang)
    frame = Frame(kit.columns, kit.rows, BOARD_Y)
    lays = [m for m in NIL.legal_moves(state) if isinstance(m, Lay)]
    fits: dict[Square, list[Lay]] = {}
    for lay in lays:
        fits.setdefault(lay.to, []).append(lay)
    flagged = _flagged_lay(state, flag)

    # A held flag leads the status line, in red: the band under the board says more.
    held = flag is not None and bool(flag.get("rule"))
    head = (say("flag_at", cell=str(flagged.to)) if flagged else say("flag")) if held else None
    shown = f"{head} · {status}" if head else status
    size = min(17.0, 17 * 64 / len(shown))  # a long line shrinks rather than overflows
    body = [text(WIDTH / 2, 24, shown, size, font_weight="bold", fill=FLAG if held else None,
                 class_="status")]  # fmt: skip
    body.extend(cells(state, frame, fits, say, lang))
    body.extend(field_outlines(state, frame))
    body.append(coordinates(frame))
    body.extend(river(state, frame, say))
    if flagged is not None:
        body.append(ghost(state, frame, flagged, say))
    turn_y = frame.bottom + EDGE + 22
    body.append(_turn(state, turn_y, say))
    notes_y = turn_y + 78
    body.append(_notes(state, notes_y, flag, flagged, bool(fits), say, lang))
    legend_y = notes_y + 64 + 22
    body.append(_legend(state, legend_y, say))
    palette_y = legend_y + 66
    body.append(_palette(state, palette_y, say, lang))
    height = palette_y + PALETTE_TOP + 4 * (TILE + 8) + 4
    return document("nil", WIDTH, height, f"{say('title')}: {status}", body)


def _seat(seat: int, say: Say) -> str:
    return say("seat", seat=seat)


def _status(state: NilState, say: Say, lang: str) -> str:
    actor = NIL.to_act(state)
    if actor is None:
        return ended(NIL, state, say, lambda seat: _seat(seat, say))
    if actor is CHANCE:
        return say("drawing", what=NIL.chance_name(state, lang))
    if state.laid:
        points = turn_parts(state)["total"]
        return say("running", who=_seat(actor, say), n=len(state.laid), points=points)
    return say("lays", who=_seat(actor, say))


# -- the running turn ---------------------------------------------------------------


def _turn(state: NilState, y: float, say: Say) -> str:
    """The running turn's score by the engine's parts, and its total."""
    parts = turn_parts(state)
    running = NIL.to_act(state) is not None and state.starter is not None
    head = say("turn_head", who=_seat(state.seat, say), n=len(state.laid))
    if not running:
        head = say("no_turn")
    bold = {"text_anchor": "start", "font_weight": "bold"}
    shown = [text(LEFT, y + 14, head, 15, **bold)]
    keys = [*PART_KEYS, *(k for k in parts if k not in (*PART_KEYS, "total"))]
    box_w = (WIDTH - 2 * LEFT - 6 * (len(keys))) / (len(keys) + 1)
    for k, key in enumerate([*keys, "total"]):
        x = LEFT + k * (box_w + 6)
        value = parts.get(key, 0)
        total = key == "total"
        label = say(f"part_{key}") if f"part_{key}" in WORDS else key
        number = f"{value:+d}" if value and not total else str(value)
        frame = {"stroke": "#000000", "stroke_width": 3} if total else {"stroke": "#999999"}
        cell = [
            rect(x, y + 22, box_w, 46, rx=6, fill="#ffffff" if not total else "#eef4ff", **frame),
            text(x + box_w / 2, y + 37, label, 12),
            text(x + box_w / 2, y + 60, ("= " if total else "") + number, 19, font_weight="bold"),
        ]
        shown.append(el("g", cell, class_="part", data_part=key, data_value=value))
    return el("g", shown, class_="turn", data_seat=state.seat, data_laid=len(state.laid))


# -- flags and notes ----------------------------------------------------------------


def _flagged_lay(state: NilState, flag: Mapping[str, Any] | None) -> Lay | None:
    """The tile a held flag refused, when it is one the board can show."""
    if not flag or not isinstance(flag.get("move"), Mapping):
        return None
    try:
        move = NIL.move_from_json(dict(flag["move"]))
    except (RulesError, ValueError, TypeError, KeyError):
        return None
    return move if isinstance(move, Lay) and _on_board(state, move.to) else None


def _notes(
    state: NilState,
    y: float,
    flag: Mapping[str, Any] | None,
    flagged: Lay | None,
    fits: bool,
    say: Say,
    lang: str,
) -> str:
    """A band of three lines under the running turn: the held flag with its rule in
    words, or what the rules say about the position now. Its height never changes, so
    what lies under it stays put when a flag comes and goes."""
    if flag and flag.get("rule"):
        rule = str(flag["rule"])
        head = say("flag_at", cell=str(flagged.to)) if flagged else say("flag")
        main = f"{head}: {rule_words(rule, lang)}"
        detail = str(flag.get("detail") or "")
        small = f"{say('rule')} {rule}" + (f": {detail}" if detail else "")
        return _band(main, small, y, "flag", rule)
    rule, main = _position_note(state, fits, say, lang)
    return _band(main, "" if rule is None else f"{say('rule')} {rule}", y, "note", rule)


def _position_note(state: NilState, fits: bool, say: Say, lang: str) -> tuple[str | None, str]:
    """What the rules say about the position now, by rule id where a rule says it."""
    actor = NIL.to_act(state)
    if actor is None:
        reason = NIL.outcome(state).reason
        return reason, rule_words(reason, lang)
    if actor is CHANCE:
        return "nil.bag-draw", rule_words("nil.bag-draw", lang)
    end = state.end
    if end is not None and state.laid and lead_only(state, end.cell, end.entry, end.exit):
        return "nil.crossing-unfinished", rule_words("nil.crossing-unfinished", lang)
    if state.laid:
        refused = NIL.violation(state, EndTurn(actor))
        if refused is not None:  # the turn cannot end yet: say why
            return refused.rule, rule_words(refused.rule, lang)
    if not fits:
        return "nil.no-play", f"{say('no_tile_fits')} {rule_words('nil.no-play', lang)}"
    if end is None:
        return "nil.opening", say("opening")
    if state.in_blue:
        return "nil.blue-zone", rule_words("nil.blue-zone", lang)
    return None, say("next")


def _band(main: str, small: str, y: float, kind: str, rule: str | None) -> str:
    """Two lines of ``main`` words and one small line (the rule id, the flag's detail);
    what does not fit is cut, and the whole shows as the band's tooltip."""
    flagged = kind == "flag"
    paint = FLAG if flagged else "#303030"
    box = {"fill": "#fdeef0", "stroke": FLAG, "stroke_width": 2.5} if flagged else {
        "fill": "#f4f4f4", "stroke": "#c8c8c8"}  # fmt: skip
    parts = [title(f"{main} ({small})" if small else main),
             rect(LEFT - 6, y, WIDTH - 2 * LEFT + 12, 64, rx=6, **box)]  # fmt: skip
    start = {"text_anchor": "start", "fill": paint}
    for k, line in enumerate(wrap(main, 78, 2)):
        parts.append(text(LEFT, y + 19 + k * 18, line, 14, font_weight="bold" if flagged or
                          not k else None, **start))  # fmt: skip
    if small:
        parts.append(text(LEFT, y + 56, wrap(small, 96, 1)[0], 11.5, class_="rule", **start))
    return el("g", parts, class_=kind, data_rule=rule)


def _legend(state: NilState, y: float, say: Say) -> str:
    """What the colours and marks mean; the bag and the racks; what went unchecked."""
    racks = ", ".join(f"{_seat(seat, say)}: {len(rack)}" for seat, rack in enumerate(state.racks))
    start = {"text_anchor": "start"}
    parts = [
        text(LEFT, y, say("legend_fields"), 12, **start),
        text(LEFT, y + 18, say("legend_marks"), 12, **start),
        text(LEFT, y + 38, say("stock", bag=state.bag_size, racks=racks), 13, font_weight="bold",
             class_="stock", data_bag=state.bag_size, **start),
    ]  # fmt: skip
    if state.unchecked:
        # What the table could not check, listed where the count is (a tooltip).
        shown = text(LEFT, y + 56, say("unchecked", n=len(state.unchecked)), 12, fill="#555555",
                     **start)  # fmt: skip
        parts.append(el("g", [title("\n".join(state.unchecked)), shown], class_="unchecked"))
    return el("g", parts, class_="legend")


# -- the tiles to tap ---------------------------------------------------------------


def _palette(state: NilState, y: float, say: Say, lang: str) -> str:
    """Every kind in every look, as tiles to tap; how many of each are not on the board."""
    kit = state.kit
    on_board = Counter(tile.kind for tile in state.tiles)
    parts = [text(LEFT, y + 14 + k * 17, line, 13, text_anchor="start")
             for k, line in enumerate(wrap(say("tap_head"), 92, 2))]  # fmt: skip
    width = WIDTH - 2 * LEFT
    step = min(KIND_W, width / max(1, len(kit.kinds)))
    for k, kind in enumerate(kit.kinds):
        mid = LEFT + k * step + step / 2
        name = kind.german if lang == "de" else kind.name
        left = kind.count - on_board[kind.name]
        lines = wrap(name, 10, 2)
        size = min(11.0, (step - 6) / (0.62 * max(map(len, lines))))  # bold, to fit its column
        column = [text(mid, y + 48 + n * 12, line, size, font_weight="bold")
                  for n, line in enumerate(lines)]  # fmt: skip
        info = f"+{kind.value} · {say('left', n=left)}"
        column.append(text(mid, y + 76, info, 10, class_="left", data_left=left))
        looks = [(None, kind.lines)] if kind.universal else [
            (quarter, (line,)) for quarter, line in kind.shapes]  # fmt: skip
        for row, (quarter, lines) in enumerate(looks):
            tx, ty = mid - TILE / 2, y + PALETTE_TOP + row * (TILE + 8)
            column.append(_tap_tile(kind, quarter, lines, tx, ty, say, lang))
        parts.append(el("g", column, class_="kind", data_kind=kind.name))
    return el("g", parts, class_="palette")


def _tap_tile(
    kind: TileKind,
    quarter: int | None,
    lines: tuple[tuple[int, int], ...],
    x: float,
    y: float,
    say: Say,
    lang: str,
) -> str:
    frame = Frame(1, 1, y)
    frame.cell, frame.left = TILE, x
    name = kind.german if lang == "de" else kind.name
    paint = {"stroke": RIVER, "stroke_width": 4 if quarter is not None else 2,
             "stroke_linecap": "round"}  # fmt: skip
    shown = [rect(x, y, TILE, TILE, rx=4, fill=TILE_FILL, stroke=TILE_EDGE, stroke_width=1.5,
                  class_="cell"),
             *lines_of(frame, Square(0, 0), lines, **paint)]  # fmt: skip
    if quarter is None:
        label = say("universal_tap", kind=name, n=kind.value)
    else:
        label = say("turned", kind=name, q=quarter, n=kind.value)
    return place(_tile_id(kind, quarter), shown, label)
