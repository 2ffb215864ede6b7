"""Nil's board drawn: the kit's fields with their numbers, the tiles, the river through
them from the start point to its ringed end, the cells where the next tile may go, and a
refused tile in red dashes. The panel (``companion.panels.nil``) lays out the rest.

Every cell is a tappable place; what sits on it (its tile, the hint's outline) is drawn
inside its place, and what runs across cells (the river, the outlines of fields of
several cells) ignores the pointer, so that a tap anywhere on a cell names that cell.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from companion.panels.common import Say, circle, el, place, rect, text, title
from rules.grid import LETTERS, Square
from rules.nil import Lay, NilState
from rules.nil.geometry import OFFSET, turn_line

CELL = 30
WIDTH = 680
EDGE = 20  # room for the coordinates around the board

FIELD_FILL = {"green": "#74c374", "red": "#e47a72", "blue": "#78b4ea", None: "#f8f5ec"}
FIELD_EDGE = {"green": "#2f7d32", "red": "#a02820", "blue": "#1f5fa8"}
TILE_FILL, TILE_NOW, TILE_EDGE = "#d9bd82", "#ffe46b", "#6b4f1d"
RIVER, RIVER_CASING = "#0b4fb3", "#ffffff"
HINT = "#e07000"
FLAG = "#c01c28"


class Frame:
    """Where the board lies in the picture: cells and ports to coordinates, north up."""

    def __init__(self, columns: int, rows: int, top: float) -> None:
        self.columns, self.rows = columns, rows
        self.cell = min(CELL, (WIDTH - 2 * EDGE - 10) / columns)
        self.left = (WIDTH - columns * self.cell) / 2
        self.top = top

    def corner(self, cell: Square) -> tuple[float, float]:
        """The top left corner of a cell."""
        return self.left + cell.col * self.cell, self.top + (self.rows - 1 - cell.row) * self.cell

    def centre(self, cell: Square) -> tuple[float, float]:
        x, y = self.corner(cell)
        return x + self.cell / 2, y + self.cell / 2

    def port(self, cell: Square, port: int) -> tuple[float, float]:
        """A port of a cell: its edge midpoints and corners (``geometry.OFFSET``, in half
        cells from the south-west corner, north up)."""
        dx, dy = OFFSET[port]
        x, y = self.corner(cell)
        return x + dx * self.cell / 2, y + self.cell - dy * self.cell / 2

    @property
    def bottom(self) -> float:
        return self.top + self.rows * self.cell


def cells(
    state: NilState, frame: Frame, fits: dict[Square, list[Lay]], say: Say, lang: str
) -> list[str]:
    """Every cell as a tappable place: its field colour, the field's number, its tile,
    and the orange outline where the next tile may go."""
    kit = state.kit
    size = frame.cell
    this_turn = {step.cell for step in state.path[len(state.path) - len(state.laid) :]}
    crossed = Counter(step.cell for step in state.path)
    numbered = _numbercells(state)
    found = []
    for row in range(kit.rows):
        for col in range(kit.columns):
            cell = Square(col, row)
            x, y = frame.corner(cell)
            index = kit.field_at.get(cell)
            field = kit.fields[index] if index is not None else None
            colour = field.colour if field else None
            label = [say("cell", name=str(cell))]
            parts = [rect(x, y, size, size, fill=FIELD_FILL[colour], stroke="#b9ab86",
                          stroke_width=0.8, class_="cell", data_field=colour)]  # fmt: skip
            if field is not None:
                label.append(say(colour, n=field.value))
            if cell == kit.start:
                label.append(say("start_field"))
            tile = state.board.get(cell)
            if tile is not None:
                parts.append(_tile_on_board(state, frame, tile, cell in this_turn, crossed[cell]))
                label.append(_tile_words(state, tile, crossed[cell] > 1, say, lang))
                if cell in this_turn:
                    label.append(say("this_turn"))
            elif field is not None and cell in numbered:
                ink = "#ffffff" if colour != "green" else "#0f3d12"
                parts.append(text(x + size / 2, y + size / 2, str(field.value), size * 0.45,
                                  fill=ink, font_weight="bold", dominant_baseline="central",
                                  stroke="#00000055", stroke_width=0.6,
                                  class_="number"))  # fmt: skip
            if cell in fits:
                label.append(say("fits_here"))
                parts.append(rect(x + 2, y + 2, size - 4, size - 4, fill=HINT, fill_opacity=0.3,
                                  stroke=HINT, stroke_width=3, stroke_dasharray="6 3",
                                  class_="next", pointer_events="none"))  # fmt: skip
            found.append(place(str(cell), parts, " · ".join(label)))
    return found


def _numbercells(state: NilState) -> set[Square]:
    """The cell of each field that shows its number: the one nearest its middle, so that
    a U-shaped field shows one number, as it charges once."""
    chosen = set()
    for field in state.kit.fields:
        mid_col = sum(c.col for c in field.cells) / len(field.cells)
        mid_row = sum(c.row for c in field.cells) / len(field.cells)
        chosen.add(min(field.cells, key=lambda c: (c.col - mid_col) ** 2 + (c.row - mid_row) ** 2))
    return chosen


def field_outlines(state: NilState, frame: Frame) -> list[str]:
    """A field of several cells outlined as one shape: the sides of its cells that no
    other cell of the field shares."""
    found = []
    size = frame.cell
    for field in state.kit.fields:
        if len(field.cells) < 2:
            continue
        cells = set(field.cells)
        segments = []
        for cell in field.cells:
            x, y = frame.corner(cell)
            for (dc, dr), (x0, y0, x1, y1) in (
                ((0, 1), (x, y, x + size, y)),
                ((0, -1), (x, y + size, x + size, y + size)),
                ((-1, 0), (x, y, x, y + size)),
                ((1, 0), (x + size, y, x + size, y + size)),
            ):
                if Square(cell.col + dc, cell.row + dr) not in cells:
                    segments.append(f"M{x0:g},{y0:g}L{x1:g},{y1:g}")
        found.append(el("path", d="".join(segments), fill="none", stroke=FIELD_EDGE[field.colour],
                        stroke_width=3, stroke_linecap="square", pointer_events="none",
                        class_="field-outline", data_value=field.value))  # fmt: skip
    return found


def _tile_on_board(state: NilState, frame: Frame, tile: Any, now: bool, steps: int) -> str:
    """A laid tile, inset so that its field's colour shows around it; a universal tile
    with its four faint lines (the river drawn over it shows which it carries)."""
    x, y = frame.corner(tile.cell)
    size = frame.cell
    kind = state.kit.kind.get(tile.kind)
    parts = [rect(x + 3, y + 3, size - 6, size - 6, rx=2, fill=TILE_NOW if now else TILE_FILL,
                  stroke=TILE_EDGE, stroke_width=1)]  # fmt: skip
    universal = kind is not None and kind.universal
    if universal:
        parts.extend(lines_of(frame, tile.cell, kind.lines, stroke="#9c8a62", stroke_width=1))
    return el("g", parts, class_="tile", data_kind=tile.kind, data_declared=tile.declared,
              data_crossing="1" if steps > 1 else None, pointer_events="none")  # fmt: skip


def _tile_words(state: NilState, tile: Any, crossing: bool, say: Say, lang: str) -> str:
    kit = state.kit
    kind = kit.kind.get(tile.kind)
    if kind is None:
        return tile.kind
    name = kind.german if lang == "de" else kind.name
    shown = say("tile", kind=name, n=kind.value)
    if crossing:
        return f"{shown}, {say('crossed')}"
    if tile.declared and tile.declared in kit.kind:
        declared = kit.kind[tile.declared]
        named = declared.german if lang == "de" else declared.name
        return f"{shown}, {say('stands_for', kind=named)}"
    return shown


def lines_of(
    frame: Frame, cell: Square, lines: tuple[tuple[int, int], ...], **paint: Any
) -> list[str]:
    return [el("path", d=_segment(frame, cell, a, b, True), fill="none", **paint) for a, b in lines]


def _segment(frame: Frame, cell: Square, a: int, b: int, move: bool) -> str:
    """A line from port ``a`` to port ``b`` of ``cell``, curved through the cell's middle
    as a printed tile's line runs (straight where the ports face each other)."""
    (ax, ay), (bx, by) = frame.port(cell, a), frame.port(cell, b)
    cx, cy = frame.centre(cell)
    start = f"M{ax:g},{ay:g}" if move else ""
    return f"{start}Q{cx:g},{cy:g} {bx:g},{by:g}"


def river(state: NilState, frame: Frame, say: Say) -> list[str]:
    """The river through its tiles (a white casing under the blue line, so it reads on
    every field colour), the start point, and the river's end ringed."""
    kit = state.kit
    found = []
    if state.path:
        d = "".join(_segment(frame, s.cell, s.entry, s.exit, k == 0)
                    for k, s in enumerate(state.path))  # fmt: skip
        common = {"fill": "none", "stroke_linecap": "round", "stroke_linejoin": "round",
                  "pointer_events": "none"}  # fmt: skip
        found.append(el("path", d=d, stroke=RIVER_CASING, stroke_width=8, **common))
        found.append(el("path", d=d, stroke=RIVER, stroke_width=4, class_="river",
                        data_steps=len(state.path), **common))  # fmt: skip
    sx, sy = frame.port(kit.start, kit.start_port)
    start = [
        title(say("start")),
        circle(sx, sy, 6, fill="#1b7f3a", stroke="#ffffff", stroke_width=2),
        text(sx, frame.bottom + EDGE + 14, "▲ " + say("start"), 13, font_weight="bold",
             fill="#1b7f3a"),
    ]  # fmt: skip
    found.append(el("g", start, class_="start", pointer_events="none"))
    end = state.end
    if end is not None:
        ex, ey = frame.port(end.cell, end.exit)
        ring = [
            title(f"{say('end')}: {end.cell}"),
            circle(ex, ey, 7, fill="#ffffff", stroke=RIVER, stroke_width=3),
            circle(ex, ey, 2.5, fill=RIVER),
        ]
        found.append(el("g", ring, class_="end", data_cell=str(end.cell), pointer_events="none"))
    return found


def ghost(state: NilState, frame: Frame, lay: Lay, say: Say) -> str:
    """The tile a flag refused, in red dashes on its cell: where it went and its line."""
    kit = state.kit
    x, y = frame.corner(lay.to)
    size = frame.cell
    dashed = {"fill": "none", "stroke": FLAG, "stroke_width": 3, "stroke_dasharray": "4 3"}
    parts = [title(say("flag_at", cell=str(lay.to))), rect(x - 2, y - 2, size + 4, size + 4,
                                                           **dashed)]  # fmt: skip
    kind = kit.kind.get(lay.kind) if isinstance(lay.kind, str) else None
    shown = kit.kind.get(lay.declared) if isinstance(lay.declared, str) else kind
    paint = {"stroke": FLAG, "stroke_width": 3, "stroke_linecap": "round"}
    if shown is not None and not shown.universal and type(lay.rotation) is int:
        line = turn_line(shown.lines[0], lay.rotation % 4)
        parts.extend(lines_of(frame, lay.to, (line,), **paint))
    elif kind is not None and kind.universal:
        parts.extend(lines_of(frame, lay.to, kind.lines, **{**paint, "stroke_width": 1.5}))
    else:
        parts.append(text(x + size / 2, y + size / 2, "?", size * 0.6, fill=FLAG,
                          font_weight="bold", dominant_baseline="central"))  # fmt: skip
    return el("g", parts, class_="flagged", data_cell=str(lay.to), pointer_events="none")


def coordinates(frame: Frame) -> str:
    """Letters above and below the board, numbers on both sides: the tablet may lie
    either way round on the table."""
    size = frame.cell
    found = []
    for col in range(frame.columns):
        x = frame.left + col * size + size / 2
        for y in (frame.top - EDGE / 2, frame.bottom + EDGE / 2 - 2):
            found.append(text(x, y, LETTERS[col], 12, dominant_baseline="central"))
    for row in range(frame.rows):
        y = frame.top + (frame.rows - 1 - row) * size + size / 2
        for x in (frame.left - EDGE / 2 - 2, frame.left + frame.columns * size + EDGE / 2 + 2):
            found.append(text(x, y, str(row + 1), 11, dominant_baseline="central"))
    return el("g", found, class_="coordinates", fill="#444444")
