"""The final count ("ENDABRECHNUNG"): every region, who controls it, what it is worth.

A region is worth one point a tile; doubled when a tile of it borders the temple,
doubled when it lies on an island, quadrupled for both; never more than 10 ("Keine
Region kann mehr als 10 Punkte wert sein"), the cap applied after the multipliers
(NOTES.md §3). The most stones control it; tied players each score it in full.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.horus.board import Layout
from rules.horus.geometry import Pos, boundary, cells
from rules.horus.model import WATER, HorusState, Stone

#: "Eine Region kann allerdings niemals mehr als 10 Punkte bringen."
CAP = 10


@dataclass(frozen=True)
class RegionCount:
    terrain: str
    tiles: tuple[Pos, ...]
    stones: tuple[int, ...]  # per seat
    controllers: tuple[int, ...]
    temple: bool
    island: bool
    value: int  # after multipliers and the cap

    @property
    def size(self) -> int:
        return len(self.tiles)

    @property
    def multiplier(self) -> int:
        return (2 if self.temple else 1) * (2 if self.island else 1)

    @property
    def capped(self) -> bool:
        return self.size * self.multiplier > CAP

    def to_json(self) -> dict[str, Any]:
        return {
            "terrain": self.terrain,
            "tiles": [list(at) for at in self.tiles],
            "size": self.size,
            "stones": list(self.stones),
            "controllers": list(self.controllers),
            "temple": self.temple,
            "island": self.island,
            "multiplier": self.multiplier,
            "capped": self.capped,
            "value": self.value,
        }


def islands(layout: Layout, reading: str) -> frozenset[Pos]:
    """The terrain tiles on an island: land fully enclosed by river (NOTES.md §3).

    ``enclosed``: a flood from outside the layout through everything but water never
    reaches them (gaps inside the ring do not open it). ``strict``: the group of land
    tiles (terrain, necropolis, temple) they belong to has water across every half-edge
    of its boundary.
    """
    water_cells = {cell for at in layout.water for cell in cells(at)}
    terrain = [at for region in layout.regions for at in region.tiles]
    if reading == "enclosed":
        from rules.horus.geometry import unreached

        return frozenset(unreached(water_cells, terrain))
    land = {at for at, kind in layout.kind.items() if kind not in WATER}
    found: set[Pos] = set()
    seen: set[Pos] = set()
    for start in sorted(land, key=lambda p: (p.y, p.x)):
        if start in seen:
            continue
        group, stack = [], [start]
        seen.add(start)
        while stack:
            here = stack.pop()
            group.append(here)
            for p in layout.touching(here):
                if p in land and p not in seen:
                    seen.add(p)
                    stack.append(p)
        if all(across in water_cells for _, across in boundary(group)):
            found.update(at for at in group if at in layout.region_of)
    return frozenset(found)


def count(state: HorusState) -> tuple[RegionCount, ...]:
    """Every region with its stones, controllers and value, in the layout's order."""
    return count_layout(state.layout, state.stones, state.players, state.options["island"])


def count_layout(
    layout: Layout, stones: tuple[Stone, ...], players: int, reading: str
) -> tuple[RegionCount, ...]:
    on_island = islands(layout, reading)
    temples = [at for at, kind in layout.kind.items() if kind == "temple"]
    near_temple = {p for t in temples for p in layout.touching(t)}
    stone_at = {s.at: s.player for s in stones}
    found = []
    for region in layout.regions:
        per_seat = [0] * players
        for at in region.tiles:
            if at in stone_at:
                per_seat[stone_at[at]] += 1
        most = max(per_seat)
        controllers = tuple(s for s in range(players) if most and per_seat[s] == most)
        temple = any(at in near_temple for at in region.tiles)
        island = all(at in on_island for at in region.tiles)
        multiplier = (2 if temple else 1) * (2 if island else 1)
        found.append(
            RegionCount(
                terrain=region.terrain,
                tiles=region.tiles,
                stones=tuple(per_seat),
                controllers=controllers,
                temple=temple,
                island=island,
                value=min(CAP, region.size * multiplier),
            )
        )
    return tuple(found)


def totals(regions: tuple[RegionCount, ...], players: int) -> tuple[int, ...]:
    """Each seat's points: the value of every region it controls, alone or tied."""
    return tuple(sum(r.value for r in regions if seat in r.controllers) for seat in range(players))


def breakdown(state: HorusState) -> dict[str, Any]:
    """The count per player and region, as plain data (``companion score``)."""
    regions = count(state)
    scores = totals(regions, state.players)
    return {
        "game": "horus",
        "final": state.finished,
        "island_reading": state.options["island"],
        "scores": list(scores),
        "players": [
            {
                "seat": seat,
                "score": scores[seat],
                "regions": [
                    {
                        "region": i,
                        "terrain": r.terrain,
                        "size": r.size,
                        "value": r.value,
                        "shared": len(r.controllers) > 1,
                    }
                    for i, r in enumerate(regions)
                    if seat in r.controllers
                ],
            }
            for seat in range(state.players)
        ],
        "regions": [r.to_json() for r in regions],
    }
