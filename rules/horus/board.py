"""The layout of a Horus game: which tile lies where, what touches what, the regions,
the river's ends, and whether a placement would block an end.

Everything here is the table alone: the camera's tiles decide it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property

from rules.horus.geometry import (
    ADJACENT_OFFSETS,
    CORNER_OFFSETS,
    FULL_EDGE_OFFSETS,
    Cell,
    Pos,
    cells,
    overlapping,
)
from rules.horus.model import NOT_LAND, WATER, Tile


@dataclass(frozen=True)
class Region:
    """A group of adjacent terrain tiles of one kind ("Die Regionen")."""

    terrain: str
    tiles: tuple[Pos, ...]

    @property
    def size(self) -> int:
        return len(self.tiles)


class Layout:
    """The tiles of one state, indexed."""

    def __init__(self, tiles: Iterable[Tile]) -> None:
        self.kind: dict[Pos, str] = {tile.at: tile.kind for tile in tiles}
        self.cell_owner: dict[Cell, Pos] = {cell: at for at in self.kind for cell in cells(at)}

    # -- contact ----------------------------------------------------------------------

    def overlaps(self, at: Pos) -> tuple[Pos, ...]:
        """The tiles a tile at ``at`` would overlap."""
        return tuple(p for p in overlapping(at) if p in self.kind)

    def is_free(self, at: Pos) -> bool:
        owner = self.cell_owner
        x, y = at
        return not (
            (x, y) in owner or (x + 1, y) in owner or (x, y + 1) in owner
            or (x + 1, y + 1) in owner
        )  # fmt: skip

    def touching(self, at: Pos) -> tuple[Pos, ...]:
        """The tiles adjacent to a tile at ``at`` (at least half an edge shared)."""
        kind = self.kind
        x, y = at
        # Plain tuples hash and compare as the Pos keys do.
        return tuple(Pos(*p) for dx, dy in ADJACENT_OFFSETS if (p := (x + dx, y + dy)) in kind)

    def corner_touching(self, at: Pos) -> tuple[Pos, ...]:
        return tuple(
            p for dx, dy in CORNER_OFFSETS if (p := Pos(at.x + dx, at.y + dy)) in self.kind
        )

    @cached_property
    def candidates(self) -> tuple[Pos, ...]:
        """Every free position adjacent to a tile, in a stable order."""
        found = set()
        for x, y in self.kind:
            for dx, dy in ADJACENT_OFFSETS:
                p = (x + dx, y + dy)
                if p not in found and self.is_free(p):
                    found.add(p)
        return tuple(Pos(*p) for p in sorted(found, key=lambda p: (p[1], p[0])))

    @cached_property
    def water(self) -> tuple[Pos, ...]:
        return tuple(sorted((at for at, k in self.kind.items() if k in WATER),
                            key=lambda p: (p.y, p.x)))  # fmt: skip

    @cached_property
    def ends(self) -> tuple[Pos, ...]:
        return tuple(sorted((at for at, k in self.kind.items() if k == "end"),
                            key=lambda p: (p.y, p.x)))  # fmt: skip

    @cached_property
    def at_river(self) -> tuple[Pos, ...]:
        """Free positions adjacent to a water tile."""
        near = {(x + dx, y + dy) for x, y in self.water for dx, dy in ADJACENT_OFFSETS}
        return tuple(p for p in self.candidates if p in near)

    @cached_property
    def land_at_water(self) -> frozenset[Pos]:
        """The tiles that are no water but touch it."""
        return frozenset(
            at for at, k in self.kind.items() if k not in WATER and self.touches_water(at)
        )

    def touches_water(self, at: Pos) -> bool:
        return any(self.kind[p] in WATER for p in self.touching(at))

    # -- the river's ends ---------------------------------------------------------------

    def room_around_ends(self, full_edge: bool) -> dict[Pos, tuple[Pos, ...]]:
        """For each end, the free positions that touch it (along a whole edge only, with
        ``full_edge``): the end is blocked once a new tile overlaps all of them."""
        key = "room_full" if full_edge else "room_half"
        found = self.__dict__.get(key)
        if found is None:
            offsets = FULL_EDGE_OFFSETS if full_edge else ADJACENT_OFFSETS
            found = {
                end: tuple(
                    p for dx, dy in offsets if self.is_free(p := Pos(end.x + dx, end.y + dy))
                )
                for end in self.ends
            }
            self.__dict__[key] = found
        return found

    def blocked_ends(
        self,
        added: Iterable[Pos] = (),
        removed: Iterable[Pos] = (),
        ends: Iterable[Pos] | None = None,
        full_edge: bool = False,
    ) -> tuple[Pos, ...]:
        """The river ends that would have no free adjacent position once tiles are laid
        at ``added`` and taken from ``removed`` (NOTES.md §3, Blocking a river end);
        ``ends`` are the ends' positions afterwards (default: as now). ``full_edge``:
        only a free position sharing a whole edge with the end keeps it open (option
        ``end_room``)."""
        added = tuple(added)
        removed = set(removed)
        taken = {cell for at in added for cell in cells(at)}
        gone = {cell for at in removed for cell in cells(at)}

        def occupied(cell: Cell) -> bool:
            return cell in taken or (cell in self.cell_owner and cell not in gone)

        offsets = FULL_EDGE_OFFSETS if full_edge else ADJACENT_OFFSETS
        blocked = []
        for end in self.ends if ends is None else ends:
            around = (Pos(end.x + dx, end.y + dy) for dx, dy in offsets)
            if all(any(occupied(c) for c in cells(p)) for p in around):
                blocked.append(end)
        return tuple(blocked)

    # -- regions ------------------------------------------------------------------------

    @cached_property
    def regions(self) -> tuple[Region, ...]:
        """Every region, in a stable order (by its first tile)."""
        land = {at: k for at, k in self.kind.items() if k not in NOT_LAND}
        seen: set[Pos] = set()
        found = []
        for at in sorted(land, key=lambda p: (p.y, p.x)):
            if at in seen:
                continue
            group, stack = [], [at]
            seen.add(at)
            while stack:
                here = stack.pop()
                group.append(here)
                for p in self.touching(here):
                    if p not in seen and land.get(p) == land[at]:
                        seen.add(p)
                        stack.append(p)
            found.append(Region(land[at], tuple(sorted(group, key=lambda p: (p.y, p.x)))))
        return tuple(found)

    @cached_property
    def region_of(self) -> dict[Pos, int]:
        return {at: i for i, region in enumerate(self.regions) for at in region.tiles}

    @cached_property
    def at_water(self) -> frozenset[int]:
        """The regions bordering the river (a tile of them adjacent to a water tile)."""
        return frozenset(
            i
            for i, region in enumerate(self.regions)
            if any(self.touches_water(at) for at in region.tiles)
        )
