"""Where Horus tiles lie: positions in half edges, contact, and enclosure by water.

Horus has no board: tiles are laid edge to edge, fully or offset by half an edge
("LEGEREGELN FÜR GEBIETSPLÄTTCHEN"). Measured in half edges (NOTES.md §3, Geometry), a
tile is a 2 x 2 block whose south-west corner lies on whole coordinates ``(x, y)``, so
full-edge and half-edge contact are exactly the representable placements and any other
offset or a skewed tile cannot be written down at all.

Two tiles at offset ``(dx, dy)``:

- overlap when ``|dx| < 2`` and ``|dy| < 2``;
- are adjacent (share a boundary of at least half an edge) when one of ``|dx|``,
  ``|dy|`` is 2 and the other at most 1;
- touch only at a corner when both are 2 (no adjacency);
- are apart otherwise.

The unit squares of this lattice ("cells", half an edge on a side) are what the island
test floods: a tile covers four of them.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import NamedTuple

#: A tile's side in half edges.
SIDE = 2


class Pos(NamedTuple):
    """A tile's south-west corner, in half edges."""

    x: int
    y: int

    def __str__(self) -> str:
        return f"{self.x},{self.y}"


Cell = tuple[int, int]

#: The offsets of the twelve positions adjacent to a tile: three along each side
#: (half an edge left, flush, half an edge right).
ADJACENT_OFFSETS: tuple[tuple[int, int], ...] = tuple(
    [(dx, 2) for dx in (-1, 0, 1)]
    + [(2, dy) for dy in (1, 0, -1)]
    + [(dx, -2) for dx in (1, 0, -1)]
    + [(-2, dy) for dy in (-1, 0, 1)]
)

#: The offsets of the four positions sharing a whole edge with a tile.
FULL_EDGE_OFFSETS: tuple[tuple[int, int], ...] = ((0, 2), (2, 0), (0, -2), (-2, 0))

#: The offsets of the positions that overlap a tile (itself included).
OVERLAP_OFFSETS: tuple[tuple[int, int], ...] = tuple(
    (dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1)
)

#: The offsets of the positions that touch a tile at a corner only.
CORNER_OFFSETS: tuple[tuple[int, int], ...] = ((2, 2), (2, -2), (-2, -2), (-2, 2))


def contact(a: Pos, b: Pos) -> str:
    """How two tiles at ``a`` and ``b`` meet: ``"overlap"``, ``"full"`` (a whole edge),
    ``"half"`` (half an edge), ``"corner"`` (a corner only) or ``"apart"``."""
    dx, dy = abs(a.x - b.x), abs(a.y - b.y)
    if dx < SIDE and dy < SIDE:
        return "overlap"
    if (dx == SIDE and dy == 0) or (dy == SIDE and dx == 0):
        return "full"
    if (dx == SIDE and dy == 1) or (dy == SIDE and dx == 1):
        return "half"
    if dx == SIDE and dy == SIDE:
        return "corner"
    return "apart"


def adjacent(a: Pos, b: Pos) -> bool:
    """Whether two tiles share a boundary of at least half an edge."""
    return contact(a, b) in ("full", "half")


def shared_boundary(a: Pos, b: Pos) -> int:
    """The length, in half edges, of the boundary two tiles share (0, 1 or 2)."""
    kind = contact(a, b)
    return {"full": 2, "half": 1}.get(kind, 0)


def neighbours(at: Pos) -> tuple[Pos, ...]:
    """The twelve positions adjacent to a tile at ``at``."""
    return tuple(Pos(at.x + dx, at.y + dy) for dx, dy in ADJACENT_OFFSETS)


def overlapping(at: Pos) -> tuple[Pos, ...]:
    """The nine positions whose tiles would overlap one at ``at``."""
    return tuple(Pos(at.x + dx, at.y + dy) for dx, dy in OVERLAP_OFFSETS)


def corners(at: Pos) -> tuple[Pos, ...]:
    """The four positions that touch a tile at ``at`` only at a corner."""
    return tuple(Pos(at.x + dx, at.y + dy) for dx, dy in CORNER_OFFSETS)


def cells(at: Pos) -> tuple[Cell, Cell, Cell, Cell]:
    """The four unit cells a tile covers."""
    x, y = at
    return ((x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1))


def boundary(tiles: Iterable[Pos]) -> list[tuple[Cell, Cell]]:
    """The unit boundary segments of a group of tiles: each as the pair (a cell of the
    group, the cell across the segment outside it)."""
    inside = {cell for at in tiles for cell in cells(at)}
    found = []
    for x, y in sorted(inside):
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            across = (x + dx, y + dy)
            if across not in inside:
                found.append(((x, y), across))
    return found


def unreached(walls: set[Cell], tiles: Iterable[Pos]) -> set[Pos]:
    """The tiles among ``tiles`` that a flood from outside the layout cannot reach.

    The flood moves between unit cells sharing a side (4-connectivity) and never enters
    a wall cell, so walls meeting only at a corner still close a ring (NOTES.md §3,
    Island). Empty cells inside a ring stay unreached too: a gap does not open it.
    """
    tiles = list(tiles)
    every = list(walls) + [cell for at in tiles for cell in cells(at)]
    if not every:
        return set()
    low_x = min(x for x, _ in every) - 1
    high_x = max(x for x, _ in every) + 1
    low_y = min(y for _, y in every) - 1
    high_y = max(y for _, y in every) + 1
    start = (low_x, low_y)
    seen = {start}
    queue = deque([start])
    while queue:
        x, y = queue.popleft()
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if low_x <= nx <= high_x and low_y <= ny <= high_y:
                cell = (nx, ny)
                if cell not in seen and cell not in walls:
                    seen.add(cell)
                    queue.append(cell)
    return {at for at in tiles if not any(cell in seen for cell in cells(at))}
