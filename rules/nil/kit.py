"""The Nil kit: the board's fields and the tile kinds of one copy, read from a kit file.

The rulebook's pictures of the tile kinds (Abb. 1, 2) and of the board are missing, so
all of it is kit data: the board's size and start point, the green, red and blue fields
with their numbers (a red field may span several cells, as the U-shaped ones do), and
each tile kind's line, printed value and count. The shipped kit is a documented
reconstruction (``rules/kits/nil.toml``); a user replaces it with their own copy's facts.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any

from rules.grid import MAX_COLUMNS, MAX_ROWS, Square
from rules.kitfields import KitFields
from rules.nil.geometry import (
    PORT_NAMES,
    Line,
    border_sides,
    is_corner,
    point,
    turn_line,
)

KIT_VERSION = 1
COLOURS = ("green", "red", "blue")
#: The universal tile's lines: side to side and corner to corner ("WIE SETZT MAN DIE
#: STEINE?": "deren Linien von Seite zu Seite und von Ecke zu Ecke gehen").
UNIVERSAL_LINES: tuple[Line, ...] = ((0, 4), (1, 5), (2, 6), (3, 7))
OPPOSITE_SIDE = {"S": "N", "N": "S", "W": "E", "E": "W"}


@dataclass(frozen=True)
class TileKind:
    """A kind of tile: its line(s) unturned, its printed value and how many there are."""

    name: str
    german: str
    lines: tuple[Line, ...]
    value: int
    count: int

    @property
    def universal(self) -> bool:
        return len(self.lines) > 1

    @cached_property
    def shapes(self) -> tuple[tuple[int, Line], ...]:
        """The distinct lines this kind shows in its four quarter turns, each with the
        fewest quarter turns that give it (a straight looks the same turned twice)."""
        seen: dict[Line, int] = {}
        for quarter in range(4):
            seen.setdefault(turn_line(self.lines[0], quarter), quarter)
        return tuple((quarter, line) for line, quarter in seen.items())

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "german": self.german,
            "lines": [[PORT_NAMES[a], PORT_NAMES[b]] for a, b in self.lines],
            "value": self.value,
            "count": self.count,
        }


@dataclass(frozen=True)
class Field:
    """A coloured field of the board: green adds its number, red subtracts it, blue is
    the goal zone (the number where the line ends counts). One field may cover several
    cells (the U-shaped red fields); it is charged once per turn."""

    colour: str
    value: int
    cells: tuple[Square, ...]

    def to_json(self) -> dict[str, Any]:
        return {"colour": self.colour, "value": self.value, "cells": [str(c) for c in self.cells]}


@dataclass(frozen=True)
class NilKit:
    name: str
    description: str
    columns: int
    rows: int
    start: Square  # the start field
    start_port: int  # the start point: a port of the start field on the board's edge
    kinds: tuple[TileKind, ...]
    fields: tuple[Field, ...]
    blanks: int  # blank spare tiles: in the box, never played

    def __deepcopy__(self, memo: dict) -> NilKit:
        return self  # immutable: its caches (below) are worked out from its facts

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without the caches worked out from the facts."""
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @cached_property
    def search_tables(self) -> dict:
        """Tables the room rule's search works out from this kit's geometry on first use
        (``placement._successors``), kept with the kit; not part of its facts."""
        return {}

    @cached_property
    def field_at(self) -> dict[Square, int]:
        """The index of the field covering each coloured cell."""
        return {cell: i for i, f in enumerate(self.fields) for cell in f.cells}

    @cached_property
    def goal_side(self) -> str:
        (side,) = border_sides(point(self.start, self.start_port), self.columns, self.rows)
        return OPPOSITE_SIDE[side]

    @cached_property
    def kind(self) -> dict[str, TileKind]:
        return {k.name: k for k in self.kinds}

    @cached_property
    def universal_kinds(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.kinds if k.universal)

    @cached_property
    def plain_kinds(self) -> tuple[str, ...]:
        return tuple(k.name for k in self.kinds if not k.universal)

    @cached_property
    def shapes(self) -> dict[int, tuple[int, ...]]:
        """For every entry port, the exit ports some plain kind's line leads to (a kind
        of which the kit has no tile gives none)."""
        exits: dict[int, set[int]] = {p: set() for p in range(8)}
        for kind in self.kinds:
            if kind.universal or not kind.count:
                continue
            for _, (a, b) in kind.shapes:
                exits[a].add(b)
                exits[b].add(a)
        return {p: tuple(sorted(e)) for p, e in exits.items()}

    def colour_of(self, cell: Square) -> str | None:
        index = self.field_at.get(cell)
        return None if index is None else self.fields[index].colour

    @property
    def printed(self) -> int:
        return sum(k.count for k in self.kinds)

    def to_json(self) -> dict[str, Any]:
        return {
            "kit": KIT_VERSION,
            "game": "nil",
            "name": self.name,
            "description": self.description,
            "blanks": self.blanks,
            "board": {
                "columns": self.columns,
                "rows": self.rows,
                "start": str(self.start),
                "start_port": PORT_NAMES[self.start_port],
            },
            "tiles": [k.to_json() for k in self.kinds],
            "fields": [f.to_json() for f in self.fields],
        }


def kit_from_json(data: Any) -> NilKit:
    """Validate a kit document (parsed TOML or JSON) and build the kit; an impossible
    kit raises ``KitError`` naming the field (``tiles[2].lines``, ``fields[5].cells``)."""
    read = KitFields("nil", KIT_VERSION)
    fail, table, whole = read.fail, read.table, read.whole
    name, description = read.header(data, ("board", "tiles", "fields", "blanks"))
    blanks = whole(data.get("blanks", 0), "blanks", 0, 99)

    board = table(data.get("board"), "board", ("columns", "rows", "start", "start_port"))
    columns = whole(board["columns"], "board.columns", 3, MAX_COLUMNS)
    rows = whole(board["rows"], "board.rows", 3, MAX_ROWS)
    start = _cell(read, board["start"], "board.start", columns, rows)
    start_port = _port(read, board["start_port"], "board.start_port")
    sides = border_sides(point(start, start_port), columns, rows)
    if len(sides) != 1:
        raise fail(
            "board.start_port",
            f"the start point must lie on exactly one edge of the board; port "
            f"{PORT_NAMES[start_port]} of {start} lies on {len(sides)}",
            board["start_port"],
        )

    raw_tiles = data.get("tiles")
    if not isinstance(raw_tiles, list) or not raw_tiles:
        raise fail("tiles", "expected a list of tile kinds", raw_tiles)
    kinds: list[TileKind] = []
    shapes_seen: dict[frozenset[Line], str] = {}
    for i, raw in enumerate(raw_tiles):
        where = f"tiles[{i}]"
        entry = table(raw, where, ("name", "german", "lines", "value", "count"))
        kind_name = entry["name"]
        if not isinstance(kind_name, str) or not kind_name.strip():
            raise fail(f"{where}.name", "expected a non-empty name", kind_name)
        if any(k.name == kind_name for k in kinds):
            raise fail(f"{where}.name", "two tile kinds have this name", kind_name)
        german = entry["german"]
        if not isinstance(german, str) or not german.strip():
            raise fail(f"{where}.german", "expected the kind's German name", german)
        lines = _lines(read, entry["lines"], f"{where}.lines")
        kind = TileKind(
            name=kind_name,
            german=german,
            lines=lines,
            value=whole(entry["value"], f"{where}.value", 0, 999),
            count=whole(entry["count"], f"{where}.count", 0, 999),
        )
        if not kind.universal:
            turned = frozenset(line for _, line in kind.shapes)
            if turned in shapes_seen:
                raise fail(
                    f"{where}.lines",
                    f"the same line, turned, as tile kind {shapes_seen[turned]!r}: tiles "
                    "turn but never flip, so the two could not be told apart",
                )
            shapes_seen[turned] = kind_name
        kinds.append(kind)
    if not any(k.universal for k in kinds) or sum(k.count for k in kinds if k.universal) == 0:
        raise fail("tiles", "expected a universal tile kind (lines N-S, E-W, NE-SW, NW-SE)")
    if sum(k.count for k in kinds) < 10:
        raise fail("tiles", "expected at least 10 printed tiles: 5 for a rack and more to draw")

    raw_fields = data.get("fields")
    if not isinstance(raw_fields, list):
        raise fail("fields", "expected a list of coloured fields", raw_fields)
    fields: list[Field] = []
    taken: dict[Square, int] = {}
    for i, raw in enumerate(raw_fields):
        where = f"fields[{i}]"
        entry = table(raw, where, ("colour", "value", "cells"))
        colour = entry["colour"]
        if colour not in COLOURS:
            raise fail(f"{where}.colour", f"expected one of {', '.join(COLOURS)}", colour)
        cells_raw = entry["cells"]
        if not isinstance(cells_raw, list) or not cells_raw:
            raise fail(f"{where}.cells", "expected a list of cell names", cells_raw)
        cells = []
        for j, name_ in enumerate(cells_raw):
            cell = _cell(read, name_, f"{where}.cells[{j}]", columns, rows)
            if cell in taken:
                raise fail(
                    f"{where}.cells[{j}]", f"{cell} already belongs to fields[{taken[cell]}]"
                )
            if cell == start:
                raise fail(f"{where}.cells[{j}]", f"{cell} is the start field")
            taken[cell] = i
            cells.append(cell)
        fields.append(Field(colour, whole(entry["value"], f"{where}.value", 0, 999), tuple(cells)))

    kit = NilKit(
        name=name,
        description=description,
        columns=columns,
        rows=rows,
        start=start,
        start_port=start_port,
        kinds=tuple(kinds),
        fields=tuple(fields),
        blanks=blanks,
    )
    goal = kit.goal_side
    reachable = [
        c
        for f in fields
        if f.colour == "blue"
        for c in f.cells
        if any(
            goal in border_sides(point(c, p), columns, rows) and not is_corner(p) for p in range(8)
        )
    ]
    if not reachable:
        raise fail(
            "fields",
            f"no blue field touches the goal edge ({goal}), opposite the start point: "
            "the line could never end",
        )
    if not kit.shapes[start_port]:
        raise fail(
            "tiles", f"no tile kind has a line from the start point's port {PORT_NAMES[start_port]}"
        )
    if not _opens(kit):
        raise fail(
            "board",
            f"no tile laid on the start field {start} from its port {PORT_NAMES[start_port]} "
            f"could lead the line to a blue field on the goal edge ({goal}): the game could "
            "never be won",
        )
    return kit


@lru_cache(maxsize=8)
def _opens(kit: NilKit) -> bool:
    """Whether some first tile leaves the line a way on to the goal (the room rule,
    under the default readings): otherwise the board is impossible. Kept for a few kits
    (every state read from its notation brings its kit again)."""
    from rules.nil.engine import NIL
    from rules.nil.placement import OPEN, room, step_problem

    state = NIL.new(NIL.min_players, None, kit)
    start, port = kit.start, kit.start_port
    return any(
        step_problem(state, start, port, exit, before=None, in_blue=False) is None
        and room(state, start, port, exit) == OPEN
        for exit in kit.shapes[port]
    )


def _cell(read: KitFields, value: Any, where: str, columns: int, rows: int) -> Square:
    from rules.errors import NotationError

    try:
        cell = Square.parse(value, where)
    except NotationError:
        raise read.fail(where, "expected a cell name such as 'k1'", value) from None
    if not (cell.col < columns and cell.row < rows):
        raise read.fail(where, f"{cell} is not a cell of the {columns} x {rows} board", value)
    return cell


def _port(read: KitFields, value: Any, where: str) -> int:
    if value not in PORT_NAMES:
        raise read.fail(where, f"expected a port: one of {', '.join(PORT_NAMES)}", value)
    return PORT_NAMES.index(value)


def _lines(read: KitFields, value: Any, where: str) -> tuple[Line, ...]:
    if not isinstance(value, list) or not value:
        raise read.fail(where, "expected a list of lines, each two ports such as ['S', 'N']", value)
    lines = []
    for i, raw in enumerate(value):
        if not isinstance(raw, list) or len(raw) != 2:
            raise read.fail(f"{where}[{i}]", "a line joins two ports", raw)
        a, b = (_port(read, p, f"{where}[{i}]") for p in raw)
        if a == b:
            raise read.fail(f"{where}[{i}]", "a line joins two different ports", raw)
        lines.append((min(a, b), max(a, b)))
    if len(lines) == 1:
        return (lines[0],)
    if sorted(lines) != sorted(UNIVERSAL_LINES):
        raise read.fail(
            where,
            "a tile has one line, or is a universal tile whose four lines run side to side "
            "and corner to corner (N-S, E-W, NE-SW, NW-SE)",
            value,
        )
    return UNIVERSAL_LINES
