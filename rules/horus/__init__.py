"""Horus (H. Jean Vanaise, Amigo 2008): a kingdom of tiles laid edge to edge along the
Nile, regions controlled by kingdom stones, islands and the temple doubling their worth.

The rulebook (``rulebooks/horus.de.txt``) lacks its pictures; where its words leave a
rule open this engine follows NOTES.md §3's proposed readings, the alternatives being
options (``options.py``), and states its own readings here:

- Geometry: positions in half edges, a tile a 2 x 2 block (``geometry.py``); adjacency,
  "borders the river" and "touches the temple" mean a shared boundary of at least half
  an edge; corner contact is none.
- A river end is blocked when no free position touches it (option ``end_room``:
  along a whole edge); every placement is checked, the end laid again included.
- A river tile from the bag replaces an end; when no end can be replaced and laid
  again without blocking, it is laid at the river like a river/necropolis tile (option
  ``bag_river``: it leaves the game instead).
- The temple is removed only when no legal place exists. The rulebook says nothing of
  other bag tiles with no place; they leave the game as the temple does. For a terrain
  tile this does not arise in play: the layout's outside always has room away from the
  ends (``test_a_terrain_tile_from_the_bag_always_has_a_place`` checks it in playouts).
- Islands: a flood from outside through everything but water (option ``island``:
  a land group with water across every half edge of its boundary).
- The Nile card: action 1 still happens; its stone may enter a region of six or more
  with a free tile (option ``nile_stone``); no card is drawn after it (the hand is
  still full).
- An empty bag or stack skips its action; a card draw with no card left (the pile
  and the reshuffled discards empty) is skipped too; a player with no stone left
  skips action 4.
- The first round is every player's first turn; seat 0 begins ("Der jüngste Spieler").
- The table view sees tiles and stones, not hands or the draw pile: it has no card
  draws, a card played may be unnamed (``PlayCard(None)``), and what that card must
  have been (from the tile laid and the stone's region) is noted in ``unchecked``.
"""

from rules.horus.engine import HORUS, Horus
from rules.horus.geometry import Pos, adjacent, contact
from rules.horus.kit import Card, HorusKit, Terrain
from rules.horus.model import (
    NILE,
    UNKNOWN,
    DrawCard,
    DrawTile,
    HorusState,
    Lay,
    MoveStone,
    PlayCard,
    PlayNile,
    ReplaceEnd,
    SetAside,
    SetStone,
    SkipStone,
    Stone,
    Tile,
)
from rules.horus.scoring import RegionCount, breakdown, count

__all__ = [
    "HORUS",
    "NILE",
    "UNKNOWN",
    "Card",
    "DrawCard",
    "DrawTile",
    "Horus",
    "HorusKit",
    "HorusState",
    "Lay",
    "MoveStone",
    "PlayCard",
    "PlayNile",
    "Pos",
    "RegionCount",
    "ReplaceEnd",
    "SetAside",
    "SetStone",
    "SkipStone",
    "Stone",
    "Terrain",
    "Tile",
    "adjacent",
    "breakdown",
    "contact",
    "count",
]
