"""Where a Nil tile's line runs: ports, points, quarter turns and continuations.

A tile covers one cell. Its line joins two **ports** (NOTES.md §1 "Tile model"): the four
edge midpoints and the four corners, numbered clockwise from the north edge midpoint.
North is away from the near edge (rows count up northwards). Tiles turn in quarter turns
clockwise and never flip, so a port ``p`` turned ``q`` times is ``(p + 2 q) % 8``.

Points are counted in half cells on the whole board: cell ``(col, row)`` spans
``2 col .. 2 col + 2`` across and ``2 row .. 2 row + 2`` up, so a port of one cell and the
same spot seen from a neighbouring cell are the same point. Two lines meet only at
points (a line never runs through another cell's interior), which is what the crossing
rule needs.
"""

from __future__ import annotations

from rules.grid import Square

PORT_NAMES = ("N", "NE", "E", "SE", "S", "SW", "W", "NW")
N, NE, E, SE, S, SW, W, NW = range(8)

#: Each port's offset from the cell's south-west corner, in half cells.
OFFSET = ((1, 2), (2, 2), (2, 1), (2, 0), (1, 0), (0, 0), (0, 1), (0, 2))
PORT_AT = {offset: port for port, offset in enumerate(OFFSET)}

Point = tuple[int, int]
Line = tuple[int, int]  # two ports, the lower number first


def is_corner(port: int) -> bool:
    return port % 2 == 1


def turn(port: int, quarter_turns: int) -> int:
    """The port where ``port`` lies after ``quarter_turns`` clockwise quarter turns."""
    return (port + 2 * quarter_turns) % 8


def turn_line(line: Line, quarter_turns: int) -> Line:
    a, b = turn(line[0], quarter_turns), turn(line[1], quarter_turns)
    return (a, b) if a < b else (b, a)


def opposite(port: int) -> int:
    return (port + 4) % 8


def point(square: Square, port: int) -> Point:
    dx, dy = OFFSET[port]
    return (2 * square.col + dx, 2 * square.row + dy)


def port_name(port: int) -> str:
    return PORT_NAMES[port]


def cells_at(pt: Point, columns: int, rows: int) -> tuple[tuple[Square, int], ...]:
    """Every cell on the board that has ``pt`` as a port, with that port."""
    x, y = pt
    cols = (x // 2 - 1, x // 2) if x % 2 == 0 else (x // 2,)
    rws = (y // 2 - 1, y // 2) if y % 2 == 0 else (y // 2,)
    found = []
    for col in cols:
        for row in rws:
            if 0 <= col < columns and 0 <= row < rows:
                found.append((Square(col, row), PORT_AT[(x - 2 * col, y - 2 * row)]))
    return tuple(found)


def on_border(pt: Point, columns: int, rows: int) -> bool:
    x, y = pt
    return x == 0 or y == 0 or x == 2 * columns or y == 2 * rows


def border_sides(pt: Point, columns: int, rows: int) -> frozenset[str]:
    """The sides of the board (``"S"``, ``"N"``, ``"W"``, ``"E"``) that ``pt`` lies on."""
    x, y = pt
    sides = set()
    if y == 0:
        sides.add("S")
    if y == 2 * rows:
        sides.add("N")
    if x == 0:
        sides.add("W")
    if x == 2 * columns:
        sides.add("E")
    return frozenset(sides)


def continuations(
    square: Square, port: int, columns: int, rows: int, diagonal_only: bool
) -> tuple[tuple[Square, int], ...]:
    """The cells a line leaving ``square`` at ``port`` may continue into, each with the
    port it enters by.

    Across an edge midpoint: the one cell across that edge. At a corner: the three other
    cells sharing that corner (NOTES.md §1, "Where a line continues at a corner"), the
    sharp-angle rule deciding which of them a tile may really use; with
    ``diagonal_only`` the one cell diagonally across (the option).
    """
    pt = point(square, port)
    found = [(cell, p) for cell, p in cells_at(pt, columns, rows) if cell != square]
    if diagonal_only and is_corner(port):
        found = [(cell, p) for cell, p in found if p == opposite(port)]
    return tuple(found)


def is_sharp(before: Point, junction: Point, after: Point, right_is_sharp: bool) -> bool:
    """Whether two lines meeting at the corner ``junction`` make a sharp angle.

    ``before`` is the far end of the incoming tile's line and ``after`` that of the
    outgoing one: the angle between them at the junction is sharp below 90 degrees
    (NOTES.md §1, "Sharp angle"); with ``right_is_sharp`` 90 degrees is sharp too. The
    dot product decides exactly, in whole numbers.
    """
    u = (before[0] - junction[0], before[1] - junction[1])
    v = (after[0] - junction[0], after[1] - junction[1])
    dot = u[0] * v[0] + u[1] * v[1]
    return dot >= 0 if right_is_sharp else dot > 0
