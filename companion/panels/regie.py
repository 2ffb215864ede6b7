"""Regie's frame, levels and box as the companion understands them, and taps as moves.

Place ids (``data-place``):

- ``"insert:<column>"``: the slot above frame column ``column`` (0 to columns - 1) where a
  chip is put into level 1 (Zug A);
- ``"level:<n>:left"`` and ``"level:<n>:right"``: the buttons that slide level ``n`` (1
  top to 6 bottom) one click that way (Zug B);
- ``"box:<position>"``: box position 1, 2 or 3, where the box is moved to (Zug C).

Every move is one tap: ``("insert:3",)``, ``("level:2:left",)``, ``("box:1",)``. Who
begins is a button, and so is any move that carries what the sensors saw (``seen``):
those are reports, not taps. Taps never share a move, so ``compose`` is never ambiguous.
``compose`` builds the move the tap names even where it is illegal (a column without a
free window, a level at the end of its travel, the box two positions away or where it
stands), so that the engine names the rule; an unknown id or a second tap is a
:class:`TapError`.

The picture is drawn from the kit as the game believes it (the kit corrected by what was
seen, ``effective_kit``): each level's bar at its position with its windows (round holes),
solid cells and ridged ends, chips in windows as discs with a letter (R red, B blue),
cells the game has doubts about outlined in dashes; the frame; under it the box's rows of
compartments with their values, the row under the frame marked, chips that landed there;
chips that fell onto the table at each side; chips left per player.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.panels.common import (
    Say,
    TapError,
    card,
    check_taps,
    circle,
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
from rules.regie import REGIE
from rules.regie.engine import effective_kit
from rules.regie.kit import BOX_POSITIONS, LEVELS, RegieKit
from rules.regie.model import COLOURS, Insert, MoveBox, RegieMove, RegieState, Slide

CELL = 48
BAR = 40  # the height of a level's bar
ROW_H = 52  # a level and the gap under it
BOX_H = 52  # a row of compartments
RIDGE = 16
SIDE = 150  # room left and right of the bars' reach: level names, buttons, the table
FILL = {0: "#d42020", 1: "#2050d0"}
DIRECTIONS = {"left": -1, "right": 1}

WORDS = {
    "title": {"en": "Regie frame and box", "de": "Regie: Rahmen und Wertungsbox"},
    "who_begins": {"en": "Who begins?", "de": "Wer beginnt?"},
    "red": {"en": "Red", "de": "Rot"},
    "blue": {"en": "Blue", "de": "Blau"},
    "letter_red": {"en": "R", "de": "R"},
    "letter_blue": {"en": "B", "de": "B"},
    "level": {"en": "Level {n}", "de": "Ebene {n}"},
    "slide": {"en": "Slide level {n} {way}", "de": "Ebene {n} nach {way} schieben"},
    "left": {"en": "left", "de": "links"},
    "right": {"en": "right", "de": "rechts"},
    "insert": {"en": "Put a chip in at column {n}", "de": "Chip in Spalte {n} einsetzen"},
    "box": {"en": "Box", "de": "Wertungsbox"},
    "position": {"en": "Position {n}", "de": "Position {n}"},
    "move_box": {"en": "Move the box to position {n}", "de": "Box auf Position {n} schieben"},
    "under": {"en": "under the frame ▶", "de": "unter dem Rahmen ▶"},
    "table": {"en": "Table", "de": "Tisch"},
    "chips": {
        "en": "{left} to play · {through} through · {points} points",
        "de": "{left} übrig · {through} durch · {points} Punkte",
    },
    "skips": {"en": "misses {n} turn(s)", "de": "setzt {n}× aus"},
    "doubt": {
        "en": "doubted: the kit may be wrong about this cell",
        "de": "zweifelhaft: die Kit-Datei irrt hier vielleicht",
    },
    "chip": {"en": "{who}'s chip", "de": "Chip von {who}"},
}


# -- taps ---------------------------------------------------------------------------


def taps(state: RegieState, move: RegieMove) -> tuple[str, ...]:
    """The place id a player taps for ``move``; ``()`` for buttons, for sensor reports and
    for moves whose place the picture does not have (a column beyond the frame)."""
    if getattr(move, "seen", None) is not None:
        return ()
    if isinstance(move, Insert) and _within(move.column, 0, state.kit.columns - 1):
        return (f"insert:{move.column}",)
    if isinstance(move, Slide) and _within(move.level, 1, LEVELS) and move.direction in (-1, 1):
        return (f"level:{move.level}:{'left' if move.direction < 0 else 'right'}",)
    if isinstance(move, MoveBox) and _within(move.to, 1, BOX_POSITIONS):
        return (f"box:{move.to}",)
    return ()


def _within(value: object, low: int, high: int) -> bool:
    return type(value) is int and low <= value <= high


def compose(state: RegieState, taps: tuple[str, ...]) -> Insert | Slide | MoveBox | None:
    """The move the tap names (legal or not), ``None`` before the tap."""
    taps = check_taps(taps)
    if not taps:
        return None
    seat = seat_to_act(REGIE, state, taps)
    if len(taps) > 1:
        raise TapError(taps, "every Regie move is one tap")
    tap = taps[0]
    kind, _, rest = tap.partition(":")
    if kind == "insert":
        column = whole(rest, 0, state.kit.columns - 1)
        if column is not None:
            return Insert(seat, column)
    elif kind == "level":
        number, _, way = rest.partition(":")
        level = whole(number, 1, LEVELS)
        if level is not None and way in DIRECTIONS:
            return Slide(seat, level, DIRECTIONS[way])
    elif kind == "box":
        to = whole(rest, 1, BOX_POSITIONS)
        if to is not None:
            return MoveBox(seat, to)
    raise TapError(
        taps,
        f"{tap} is no place of this frame (insert:0 to insert:{state.kit.columns - 1}, "
        f"level:<1-{LEVELS}>:left|right, box:<1-{BOX_POSITIONS}>)",
    )


# -- the picture --------------------------------------------------------------------


def svg(state: RegieState, *, lang: str = "en", flag: Mapping[str, Any] | None = None) -> str:
    # A flag is left to the page, which shows its words: no move of this game has a
    # place on the board that would say more.
    say = words(WORDS, lang)
    kit = effective_kit(state)
    reach = max(kit.margin(k) + level.travel for k, level in enumerate(kit.levels))
    frame_x = SIDE + reach * CELL + RIDGE
    width = 2 * frame_x + kit.columns * CELL
    levels_y = 104
    box_y = levels_y + LEVELS * ROW_H + 24
    seats_y = box_y + len(kit.box_rows) * BOX_H + 20
    status = _status(state, say)
    body = [text(width / 2, 28, status, 18, font_weight="bold")]
    body.extend(_slots(state, kit, frame_x, say))
    doubted = {(d.level, d.cell) for d in state.doubts}
    for k in range(LEVELS):
        body.append(_level(state, kit, k, frame_x, levels_y + k * ROW_H, width, doubted, say))
    frame = {"fill": "none", "stroke": "#404040", "stroke_width": 6, "class_": "frame"}
    body.append(rect(frame_x - 3, 46, kit.columns * CELL + 6, box_y - 58, **frame))
    body.append(_box(state, kit, frame_x, box_y, say))
    body.extend(_table(state, width, box_y, say))
    for seat in (0, 1):
        body.append(_seat_panel(state, seat, 10 + seat * width / 2, seats_y, width / 2 - 20, say))
    return document("regie", width, seats_y + 90, f"{say('title')}: {status}", body)


def _status(state: RegieState, say: Say) -> str:
    actor = REGIE.to_act(state)
    if actor is None:
        return ended(REGIE, state, say, lambda seat: say(COLOURS[seat]))
    if state.first is None:
        return say("who_begins")
    return say("to_move", who=say(COLOURS[actor]))


def _chip(
    seat: int, cx: float, cy: float, r: float, say: Say, count: int = 1, cls: str = "chip"
) -> str:
    who = say(COLOURS[seat])
    parts = [
        title(say("chip", who=who) + (f" ×{count}" if count > 1 else "")),
        token(cx, cy, r, FILL[seat], say(f"letter_{COLOURS[seat]}")),
    ]
    if count > 1:
        more = {"font_weight": "bold", "text_anchor": "start"}
        parts.append(text(cx + r + 2, cy + r, f"×{count}", 11, **more))
    return el("g", parts, class_=cls, data_owner=seat, data_count=count)


def _slots(state: RegieState, kit: RegieKit, frame_x: float, say: Say) -> list[str]:
    """The insertion slots above level 1; a free window of level 1 shows a solid arrow."""
    offset = kit.margin(0) - state.levels[0]
    free = {
        column
        for column in kit.frame_window_columns(0, state.levels[0])
        if state.windows[0][offset + column] is None
    }
    slots = []
    for column in range(kit.columns):
        x = frame_x + column * CELL
        arrow = ((x + 14, 74), (x + CELL - 14, 74), (x + CELL / 2, 90))
        parts = [
            rect(x + 3, 50, CELL - 6, 44, rx=6, fill="#ffffff", stroke="#666666", class_="cell"),
            text(x + CELL / 2, 66, str(column), 13),
            polygon(arrow, fill="#000000" if column in free else "none", stroke="#000000"),
        ]
        slots.append(place(f"insert:{column}", parts, say("insert", n=column)))
    return slots


def _level(
    state: RegieState,
    kit: RegieKit,
    k: int,
    frame_x: float,
    y: float,
    width: float,
    doubted: set[tuple[int, int]],
    say: Say,
) -> str:
    level = kit.levels[k]
    position = state.levels[k]
    start = frame_x + (position - kit.margin(k)) * CELL  # where the bar's cell 0 stands
    middle = y + BAR / 2
    parts = [
        text(16, middle, say("level", n=k + 1), 15, text_anchor="start", font_weight="bold"),
        text(16, middle + 17, f"{position:+d}", 12, text_anchor="start"),
    ]
    ridge = {"fill": "#b0b0b0", "stroke": "#404040", "stroke_dasharray": "2 2", "class_": "ridge"}
    for x in (start - RIDGE, start + len(level.cells) * CELL):
        parts.append(rect(x, y, RIDGE, BAR, **ridge))
    for cell, window in enumerate(level.cells):
        x = start + cell * CELL
        column = cell - kit.margin(k) + position
        outside = None if 0 <= column < kit.columns else 0.55
        paint = "#f2f2f2" if window else "#8c8c8c"
        parts.append(rect(x, y, CELL, BAR, fill=paint, stroke="#404040", opacity=outside))
        if window:
            hole = {"fill": "#ffffff", "stroke": "#202020", "stroke_width": 2}
            parts.append(circle(x + CELL / 2, middle, 15, class_="window", **hole))
        if (k, cell) in doubted:
            dashes = {"stroke": "#e07000", "stroke_width": 3, "stroke_dasharray": "5 3"}
            marker = rect(x + 2, y + 2, CELL - 4, BAR - 4, fill="none", **dashes)
            parts.append(el("g", [title(say("doubt")), marker], class_="doubt"))
        owner = state.windows[k][cell]
        if owner is not None:
            parts.append(_chip(owner, x + CELL / 2, middle, 13, say))
    for way, x in (("left", SIDE - 62), ("right", width - SIDE + 12)):
        tip, back = (x + 8, x + 42) if way == "left" else (x + 42, x + 8)
        button = [
            rect(x, y, 50, BAR, rx=6, fill="#ffffff", stroke="#666666", class_="cell"),
            polygon(((tip, middle), (back, y + 8), (back, y + BAR - 8)), fill="#000000"),
        ]
        label = say("slide", n=k + 1, way=say(way))
        parts.append(place(f"level:{k + 1}:{way}", button, label))
    return el("g", parts, class_="level", data_level=k + 1, data_position=position)


def _box(state: RegieState, kit: RegieKit, frame_x: float, y: float, say: Say) -> str:
    under = kit.box_row(state.box)
    end = frame_x + kit.columns * CELL
    parts = [text(end + 70, y - 6, say("box"), 15, font_weight="bold")]
    landed: dict[tuple[int, int, int], int] = {}
    for chip in state.landed:
        if chip.kind == "box":
            key = (chip.row, chip.column, chip.owner)
            landed[key] = landed.get(key, 0) + 1
    for row, values in enumerate(kit.box_rows):
        top = y + row * BOX_H
        paint = "#fff8e0" if row == under else "#eeeeee"
        for column, value in enumerate(values):
            x = frame_x + column * CELL
            cell = {"stroke": "#404040", "class_": "compartment", "data_value": value}
            parts.append(rect(x, top, CELL, BOX_H - 4, fill=paint, **cell))
            parts.append(text(x + CELL / 2, top + 15, str(value), 14, font_weight="bold"))
            owners = [o for o in (0, 1) if landed.get((row, column, o))]
            for i, owner in enumerate(owners):
                cx = x + CELL / 2 - 4 + (0 if len(owners) == 1 else (i - 0.5) * 22)
                count = landed[(row, column, owner)]
                parts.append(_chip(owner, cx, top + 33, 9, say, count, "chip landed"))
        if row == under:
            outline = {"fill": "none", "stroke": "#000000", "stroke_width": 4}
            width = kit.columns * CELL + 6
            parts.append(rect(frame_x - 3, top - 3, width, BOX_H + 2, class_="under", **outline))
            side = {"text_anchor": "end", "dominant_baseline": "central"}
            parts.append(text(frame_x - 10, top + BOX_H / 2, say("under"), 13, **side))
    # Each position's button stands beside the row it puts under the frame.
    for position in range(1, BOX_POSITIONS + 1):
        top = y + kit.box_row(position) * BOX_H
        here = position == state.box
        paint = "#ffe9a0" if here else "#ffffff"
        button = [
            rect(end + 14, top + 4, 112, BOX_H - 12, rx=6, fill=paint, stroke="#666666",
                 class_="cell"),
            text(end + 70, top + 29, say("position", n=position), 14,
                 font_weight="bold" if here else None),
        ]  # fmt: skip
        parts.append(place(f"box:{position}", button, say("move_box", n=position)))
    return el("g", parts, class_="box", data_position=state.box)


def _table(state: RegieState, width: float, y: float, say: Say) -> list[str]:
    """Chips that fell onto the table beside the frame, per side and owner."""
    parts = []
    for side, x in (("left", 24.0), ("right", width - 130)):
        count = dict.fromkeys((0, 1), 0)
        for chip in state.landed:
            if chip.kind == "table" and chip.side == side:
                count[chip.owner] += 1
        group = [text(x + 50, y + 14, f"{say('table')} ({say(side)})", 13)]
        for i, owner in enumerate(o for o in (0, 1) if count[o]):
            group.append(
                _chip(owner, x + 12 + i * 44, y + 36, 10, say, count[owner], "chip landed")
            )
        parts.append(el("g", group, class_="table", data_side=side))
    return parts


def _seat_panel(state: RegieState, seat: int, x: float, y: float, w: float, say: Say) -> str:
    me = REGIE.to_act(state) == seat
    left, through, points = state.reserve[seat], state.through(seat), state.score(seat)
    line = say("chips", left=left, through=through, points=points)
    if state.skips[seat]:
        line += f" · {say('skips', n=state.skips[seat])}"
    name = ("▶ " if me else "") + say(COLOURS[seat])
    parts = [
        card(x, y, w, 74, me),
        _chip(seat, x + 24, y + 24, 13, say, cls="reserve-chip"),
        text(x + 46, y + 29, name, 16, text_anchor="start", font_weight="bold"),
        text(x + 14, y + 60, line, 14, text_anchor="start", data_reserve=left),
    ]
    return el("g", parts, class_="seat", data_seat=seat)
