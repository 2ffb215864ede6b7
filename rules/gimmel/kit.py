"""The Gimmel kit: the physical facts of one copy, read from a kit file.

The rulebook gives no board size; two independent sources give 8 x 18 squares
(``rulebooks/NOTES.md`` §2, S3 and S4), so that is the default kit. A user whose board
differs writes their own kit file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.grid import MAX_COLUMNS, MAX_ROWS
from rules.kitfields import KitFields

KIT_VERSION = 1


@dataclass(frozen=True)
class GimmelKit:
    name: str
    description: str
    columns: int
    rows: int

    def to_json(self) -> dict[str, Any]:
        return {
            "kit": KIT_VERSION,
            "game": "gimmel",
            "name": self.name,
            "description": self.description,
            "board": {"columns": self.columns, "rows": self.rows},
        }


def kit_from_json(data: Any) -> GimmelKit:
    """Validate a kit document (parsed TOML or JSON) and build the kit."""
    read = KitFields("gimmel", KIT_VERSION)
    name, description = read.header(data, ("board",))
    board = data.get("board")
    if not isinstance(board, dict):
        raise read.fail("board", "expected a table with columns and rows", board)
    for key in board:
        if key not in ("columns", "rows"):
            raise read.fail(f"board.{key}", "unknown field; a board has columns and rows")
    for key in ("columns", "rows"):
        if not isinstance(board.get(key), int) or isinstance(board.get(key), bool):
            raise read.fail(f"board.{key}", "expected a whole number", board.get(key))
    columns = read.whole(board["columns"], "board.columns", 1, MAX_COLUMNS)
    rows = read.whole(board["rows"], "board.rows", 1, MAX_ROWS)
    if columns * rows < 2:
        raise read.fail("board", "a board needs at least 2 squares", f"{columns} x {rows}")
    return GimmelKit(name=name, description=description, columns=columns, rows=rows)
