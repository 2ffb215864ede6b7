"""Nil ("Das Spiel der Pharaonen", Spear Nr. 22060): one river of tiles from the start
point to the blue goal, across green and red fields.

The rulebook (``rulebooks/nil.de.txt``) lacks its pictures; where its words leave a rule
open this engine follows NOTES.md §1's proposed readings, the alternatives being options
(``options.py``), and states its own readings here:

- Ports and corners: a line ending at a corner continues into any of the three other
  cells sharing it (option ``corner = "diagonal"``: only diagonally); the angle at a
  corner junction is sharp below 90 degrees (option ``sharp_angle = "right"``: at 90 too).
- Room for another tile: the line could go on from its end to the goal whatever the
  racks hold (``placement.room``): by tiles on empty cells, one tile a cell, the line
  never meeting itself, and crossing it only with universal tiles. Then a tile that
  leaves room always has a next tile that does too, and the line never ends where no
  tile of any kind is legal. A way that needs crossings counts only while its placer
  keeps a universal tile for each (NOTES.md: "only if the placer still holds a
  universal"; in the table view, while as many tiles are left on the rack and
  universals off the board, noted as unchecked). A tile that leaves the line facing a
  crossing and nothing else is followed by the crossing in the same turn.
- Crossing: a universal replaces a tile whose line runs straight (side to side or corner
  to corner), keeps that line and carries the river straight across it; it needs a tile
  laid before it in the same turn (the lead; a universal that has just crossed leads on
  to the next crossing). The replaced tile goes back to the bag. The line crosses as
  often as universals allow, each cell once.
- A universal scores its own printed value; the declared kind gives only its line.
- The blue zone: once a tile stands on a blue field the line stays in the zone; whoever
  plays next goes on (option ``blue_zone = "same-turn"``: the player who entered it may
  not end the turn while a tile still fits). The line ends where a blue field's line
  reaches the goal edge; that field's number counts.
- A tie in the first-player lot: the tied players draw again.
- At the opening, a player with no tile that opens passes without penalty and keeps the
  rack ("muß der Spieler zur Linken anfangen").
- No play: the engine knows every legal placement, so a no-play is legal only when none
  exists (a tile "pointed out" is the current player's to lay). Two rounds without a
  placement are 2 x N turns in a row (option ``no_play_end = "two-turns"``: 2 turns).
- "All tiles placed": the bag and every rack empty.
- Green and red fields count once per field per turn.
- The table view does not see racks or the bag: placements are checked from the board
  alone; a no-play's rack is checked and charged when it is recorded as shown, and
  otherwise, like the tiles left at the end and the universal a lead needs, listed in
  the state's ``unchecked``.
"""

from rules.nil.engine import NIL, Nil
from rules.nil.kit import Field, NilKit, TileKind
from rules.nil.model import UNKNOWN, Draw, EndTurn, Lay, NilState, NoPlay, Step, Tile
from rules.nil.turns import turn_parts

__all__ = [
    "NIL",
    "UNKNOWN",
    "Draw",
    "EndTurn",
    "Field",
    "Lay",
    "Nil",
    "NilKit",
    "NilState",
    "NoPlay",
    "Step",
    "Tile",
    "TileKind",
    "turn_parts",
]
