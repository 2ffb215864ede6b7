"""The Gimmel kit: the physical facts of one copy, read from a kit file.

The rulebook gives no board size; two independent sources give 8 x 18 squares
(``rulebooks/NOTES.md`` §2, S3 and S4), so that is the default kit. A user whose board
differs writes their own kit file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.errors import KitError
from rules.grid import MAX_COLUMNS, MAX_ROWS

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

    def fail(field: str, problem: str, value: Any = None) -> KitError:
        return KitError("gimmel", field, problem, value)

    if not isinstance(data, dict):
        raise fail("(top)", "expected a table of fields", data)
    allowed = {"kit", "game", "name", "description", "board"}
    for key in data:
        if key not in allowed:
            raise fail(key, f"unknown field; a Gimmel kit has {', '.join(sorted(allowed))}")
    if data.get("kit") != KIT_VERSION:
        raise fail("kit", f"expected kit format version {KIT_VERSION}", data.get("kit"))
    if data.get("game") != "gimmel":
        raise fail("game", "expected 'gimmel'", data.get("game"))
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise fail("name", "expected a non-empty name", name)
    description = data.get("description", "")
    if not isinstance(description, str):
        raise fail("description", "expected text", description)
    board = data.get("board")
    if not isinstance(board, dict):
        raise fail("board", "expected a table with columns and rows", board)
    for key in board:
        if key not in ("columns", "rows"):
            raise fail(f"board.{key}", "unknown field; a board has columns and rows")
    columns = _count(board.get("columns"), "board.columns", MAX_COLUMNS, fail)
    rows = _count(board.get("rows"), "board.rows", MAX_ROWS, fail)
    if columns * rows < 2:
        raise fail("board", "a board needs at least 2 squares", f"{columns} x {rows}")
    return GimmelKit(name=name, description=description, columns=columns, rows=rows)


def _count(value: Any, field: str, most: int, fail) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise fail(field, "expected a whole number", value)
    if not 1 <= value <= most:
        raise fail(field, f"expected a whole number from 1 to {most}", value)
    return value
