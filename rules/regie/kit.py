"""The Regie kit: the frame, the six sliding levels and the scoring box of one copy.

The rulebook's pictures (Abb. 1-4) show where each level has its windows and which value
stands in each compartment of the box; they are missing (``rulebooks/NOTES.md`` §4), so
all of it is kit data. The shipped default kit is a reconstruction, not a measurement:
a user writes the kit file of their own copy.

A level is a bar of ``n`` cells, wider than the frame of ``C`` columns, between two ridged
ends that never enter the frame. Its ``position`` counts clicks right of the centred
start; frame column ``c`` then shows cell ``(n - C) // 2 + c - position``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rules.kitfields import KitFields

KIT_VERSION = 1
LEVELS = 6
BOX_POSITIONS = 3
MIN_COLUMNS, MAX_COLUMNS = 2, 20
MAX_CHIPS = 20
WINDOW, SOLID = "o", "."


@dataclass(frozen=True)
class Level:
    cells: tuple[bool, ...]  # left to right, ridged ends excluded; True is a window
    travel: int  # clicks each way from the centred start


@dataclass(frozen=True)
class RegieKit:
    name: str
    description: str
    columns: int  # chip columns of the frame
    levels: tuple[Level, ...]  # level 1 (top) to level 6 (bottom)
    box_rows: tuple[tuple[int, ...], ...]  # compartment values, one per frame column
    under_frame: tuple[int, int, int]  # the row (1-based) under the frame in positions 1-3
    box_start: int  # the box position at the start; its row is the zero row
    chips_per_player: int

    def margin(self, level_index: int) -> int:
        """Cells of the level outside the frame on each side when it is centred."""
        return (len(self.levels[level_index].cells) - self.columns) // 2

    def column_cell(self, level_index: int, position: int, column: int) -> int:
        """The bar cell at frame ``column`` when the level stands ``position`` clicks right
        of centre (moving the bar right brings cells from its left into the frame)."""
        return self.margin(level_index) + column - position

    def frame_window_columns(self, level_index: int, position: int) -> tuple[int, ...]:
        """The frame columns where the level shows a window at ``position``."""
        cells = self.levels[level_index].cells
        offset = self.margin(level_index) - position
        return tuple(c for c in range(self.columns) if cells[offset + c])

    def box_row(self, box_position: int) -> int:
        """The box row (0-based) under the frame in ``box_position`` (1 to 3)."""
        return self.under_frame[box_position - 1] - 1

    def to_json(self) -> dict[str, Any]:
        return {
            "kit": KIT_VERSION,
            "game": "regie",
            "name": self.name,
            "description": self.description,
            "chips_per_player": self.chips_per_player,
            "frame": {"columns": self.columns},
            "levels": [
                {
                    "cells": "".join(WINDOW if w else SOLID for w in level.cells),
                    "travel": level.travel,
                }
                for level in self.levels
            ],
            "box": {
                "rows": [list(row) for row in self.box_rows],
                "under_frame": list(self.under_frame),
                "start": self.box_start,
            },
        }


def kit_from_json(data: Any) -> RegieKit:
    """Validate a kit document (parsed TOML or JSON) and build the kit."""
    read = KitFields("regie", KIT_VERSION)
    fail, table, whole = read.fail, read.table, read.whole
    name, description = read.header(data, ("chips_per_player", "frame", "levels", "box"))
    if "chips_per_player" not in data:
        raise fail("chips_per_player", "missing")
    chips = whole(data["chips_per_player"], "chips_per_player", 1, MAX_CHIPS)

    frame = table(data.get("frame"), "frame", ("columns",))
    columns = whole(frame["columns"], "frame.columns", MIN_COLUMNS, MAX_COLUMNS)

    raw_levels = data.get("levels")
    if not isinstance(raw_levels, list) or len(raw_levels) != LEVELS:
        raise fail("levels", f"expected {LEVELS} levels, top to bottom", raw_levels)
    levels = tuple(_level(raw, i, columns, table, fail) for i, raw in enumerate(raw_levels))
    if sum(1 for level in levels if level.travel >= 1) < 2:
        # Zug B forbids sliding the level the opponent slid last: with one sliding level
        # a slide could never answer a slide.
        raise fail("levels", "at least two levels must be able to slide (travel of 1 or more)")

    box = table(data.get("box"), "box", ("rows", "under_frame", "start"))
    rows = box["rows"]
    if not isinstance(rows, list) or len(rows) < BOX_POSITIONS:
        raise fail("box.rows", f"expected at least {BOX_POSITIONS} rows of values", rows)
    box_rows = tuple(_box_row(row, i, columns, fail) for i, row in enumerate(rows))
    under = box["under_frame"]
    if not isinstance(under, list) or len(under) != BOX_POSITIONS:
        raise fail("box.under_frame", "expected 3 row numbers, for box positions 1, 2, 3", under)
    for i, number in enumerate(under):
        whole(number, f"box.under_frame[{i}]", 1, len(box_rows))
    if len(set(under)) != BOX_POSITIONS:
        raise fail("box.under_frame", "each box position puts a different row under the frame")
    start = whole(box["start"], "box.start", 1, BOX_POSITIONS)
    if any(box_rows[under[start - 1] - 1]):
        # Rulebook "Start-Position": the box starts with the zero box under the frame.
        raise fail(
            "box.start",
            f"the row under the frame in the start position (row {under[start - 1]}) "
            "must be the zero row",
            list(box_rows[under[start - 1] - 1]),
        )
    return RegieKit(
        name=name,
        description=description,
        columns=columns,
        levels=levels,
        box_rows=box_rows,
        under_frame=(under[0], under[1], under[2]),
        box_start=start,
        chips_per_player=chips,
    )


def _level(raw: Any, index: int, columns: int, table, fail) -> Level:
    field = f"levels[{index}]"
    table(raw, field, ("cells", "travel"))
    text = raw["cells"]
    if not isinstance(text, str) or not text or set(text) - {WINDOW, SOLID}:
        raise fail(
            f"{field}.cells", f"expected cells written {WINDOW!r} (window) or {SOLID!r}", text
        )
    spare = len(text) - columns
    if spare < 0 or spare % 2:
        raise fail(
            f"{field}.cells",
            f"a bar of {len(text)} cells cannot stand centred in a frame of {columns} columns "
            "(it needs at least as many cells, and an even number more)",
            text,
        )
    margin = spare // 2
    travel = raw["travel"]
    if isinstance(travel, bool) or not isinstance(travel, int) or travel < 0:
        problem = f"expected a whole number of clicks from 0 to {margin}"
        raise fail(f"{field}.travel", problem, travel)
    if travel > margin:
        raise fail(
            f"{field}.travel",
            f"a travel that lets a ridged end into the frame (at most {margin} here)",
            travel,
        )
    cells = tuple(c == WINDOW for c in text)
    # Cell i lies in the frame at some position p in -travel..travel when
    # margin - travel <= i < margin + columns + travel.
    if not any(cells[max(0, margin - travel) : margin + columns + travel]):
        problem = (
            "no window reachable from the top"
            if index == 0
            else f"no window of level {index + 1} ever lies inside the frame"
        )
        raise fail(f"{field}.cells", problem, text)
    return Level(cells=cells, travel=travel)


def _box_row(raw: Any, index: int, columns: int, fail) -> tuple[int, ...]:
    field = f"box.rows[{index}]"
    if not isinstance(raw, list):
        raise fail(field, f"expected a list of {columns} values, one per frame column", raw)
    if len(raw) != columns:
        problem = "a value missing" if len(raw) < columns else "more values than columns"
        raise fail(field, f"{problem}: expected {columns}, one per frame column", raw)
    for j, value in enumerate(raw):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise fail(f"{field}[{j}]", "expected a whole number of 0 or more", value)
    return tuple(raw)
