"""Nil ("Das Spiel der Pharaonen", Spear Nr. 22060): one river of tiles from the start
point to the blue goal, across green and red fields."""

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
