"""How chips fall through the six levels: the mechanics of the frame, no rules of play.

NOTES.md §4: "A chip falls until a solid cell stops it, ending in the box or on the
table." Whether a move was allowed, who skips a turn and what a chip scores are the
engine's business; these functions only say where every chip ends up.

A state of the frame is

- ``levels``: six positions, level 1 (top) first, each in clicks right of the centred
  start (``-travel .. travel``);
- ``windows``: six tuples, one entry per bar cell of that level (not per frame column),
  ``None`` for an empty window or a solid cell, else the seat (0 or 1) of the chip
  sitting in that window. Chips are stored per cell so that a sliding level carries its
  chips with it.

A chip in a window of level k rests on level k + 1 when the cell under it (the same frame
column) is solid or is a window holding a chip; when that window is empty it falls into
it. A chip in level 6 has nothing under it but the box: it falls into the compartment of
its frame column in the row under the frame. A chip whose window lies outside the frame
(carried out by a slide) falls onto the table on that side.
"""

from __future__ import annotations

from typing import NamedTuple

from rules.regie.kit import BOX_POSITIONS, LEVELS, RegieKit

Levels = tuple[int, ...]
Windows = tuple[tuple[int | None, ...], ...]
SEATS = (0, 1)


class Exit(NamedTuple):
    """A chip that left the levels: into the box, or onto the table beside the frame."""

    owner: int
    kind: str  # "box" or "table"
    column: int  # the frame column of the compartment; -1 or columns for the table
    side: str | None  # "left" or "right" for the table, None for the box
    row: int | None  # the box row (0-based) under the frame, None for the table
    value: int  # the compartment's value; 0 for the table
    fell_from_level: int  # 1-based: the level it sat in before this move
    levels_fallen: int  # levels dropped in this move, the box counting as level 7; 0 for the table


class Fall(NamedTuple):
    """A chip that dropped from one level to a lower one and stayed in the levels."""

    owner: int
    from_level: int  # 1-based
    to_level: int  # 1-based; to_level - from_level >= 2 is a cascade
    column: int  # frame column


class Settled(NamedTuple):
    windows: Windows
    exits: tuple[Exit, ...]
    falls: tuple[Fall, ...]


class Inserted(NamedTuple):
    windows: Windows
    exits: tuple[Exit, ...]
    falls: tuple[Fall, ...]
    stopped_in_level_1: bool  # False: it fell on to level 2 or further


class Slid(NamedTuple):
    levels: Levels
    windows: Windows
    exits: tuple[Exit, ...]
    falls: tuple[Fall, ...]


def start_levels(kit: RegieKit) -> Levels:
    """All six levels centred (rulebook "Start-Position")."""
    return (0,) * len(kit.levels)


def empty_windows(kit: RegieKit) -> Windows:
    return tuple((None,) * len(level.cells) for level in kit.levels)


def settle(kit: RegieKit, levels: Levels, windows: Windows, box_position: int) -> Settled:
    """Let every unsupported chip fall as far as it goes.

    Levels are taken from the bottom up, each chip dropped until it rests: when level k
    is taken, every chip below it already rests on something that stays, so a chip that
    lands cannot be undermined later, and a window that a chip leaves is seen when the
    level above is taken. One pass therefore leaves the frame stable. Exits are listed
    in that order (lower levels first, then left to right).
    """
    _check(kit, levels, windows, box_position)
    columns = kit.columns
    # offsets[k] + column is the cell of level k at a frame column.
    offsets = [kit.margin(k) - levels[k] for k in range(LEVELS)]
    cells = [level.cells for level in kit.levels]
    bars = [list(bar) for bar in windows]
    row = kit.box_row(box_position)
    exits: list[Exit] = []
    falls: list[Fall] = []
    for k in range(LEVELS - 1, -1, -1):
        bar = bars[k]
        for cell, owner in enumerate(bar):
            if owner is None:
                continue
            column = cell - offsets[k]
            if not 0 <= column < columns:
                bar[cell] = None
                left = column < 0
                exits.append(
                    Exit(
                        owner=owner,
                        kind="table",
                        column=-1 if left else columns,
                        side="left" if left else "right",
                        row=None,
                        value=0,
                        fell_from_level=k + 1,
                        levels_fallen=0,
                    )
                )
                continue
            to = k  # the lowest level it reaches through empty windows
            while to + 1 < LEVELS:
                below = offsets[to + 1] + column
                if not cells[to + 1][below] or bars[to + 1][below] is not None:
                    break
                to += 1
            if to == LEVELS - 1:
                bar[cell] = None
                exits.append(
                    Exit(
                        owner=owner,
                        kind="box",
                        column=column,
                        side=None,
                        row=row,
                        value=kit.box_rows[row][column],
                        fell_from_level=k + 1,
                        levels_fallen=LEVELS - k,
                    )
                )
            elif to > k:
                bar[cell] = None
                bars[to][offsets[to] + column] = owner
                falls.append(Fall(owner, k + 1, to + 1, column))
    return Settled(tuple(tuple(bar) for bar in bars), tuple(exits), tuple(falls))


def insertion_columns(kit: RegieKit, levels: Levels, windows: Windows) -> tuple[int, ...]:
    """The frame columns where level 1 shows an empty window (rulebook Zug A: "in einen
    freien Schlitz der obersten Ebene", "innerhalb des Rahmens")."""
    offset = kit.margin(0) - levels[0]
    top = windows[0]
    return tuple(c for c in kit.frame_window_columns(0, levels[0]) if top[offset + c] is None)


def stops_in_level_1(kit: RegieKit, levels: Levels, windows: Windows, column: int) -> bool:
    """Whether a chip put in at ``column`` would stay in level 1: the cell of level 2 under
    it is solid or holds a chip. False also where no chip can go in. Assumes a settled
    frame (a chip in level 2 then rests, so one put on it does too)."""
    if column not in insertion_columns(kit, levels, windows):
        return False
    below = kit.column_cell(1, levels[1], column)
    return not kit.levels[1].cells[below] or windows[1][below] is not None


def insert(
    kit: RegieKit,
    levels: Levels,
    windows: Windows,
    column: int,
    owner: int,
    box_position: int,
) -> Inserted:
    """Put ``owner``'s chip into level 1's window at frame ``column`` and let it fall.

    Whether the chip may be put there, and what a chip that falls through costs, is for
    the engine to decide from ``stopped_in_level_1``. A column without an empty window
    of level 1 cannot take a chip at all: that raises ``ValueError``.
    """
    if owner not in SEATS:
        raise ValueError(f"owner must be a seat 0 or 1, got {owner!r}")
    if column not in insertion_columns(kit, levels, windows):
        raise ValueError(
            f"no empty window of level 1 at frame column {column!r}; "
            f"chips go in at {list(insertion_columns(kit, levels, windows))}"
        )
    cell = kit.column_cell(0, levels[0], column)
    top = windows[0]
    placed = ((*top[:cell], owner, *top[cell + 1 :]), *windows[1:])
    after = settle(kit, levels, placed, box_position)
    # Chips never rise nor move sideways in a level, so whatever sits in that cell now
    # is the chip just put in.
    return Inserted(after.windows, after.exits, after.falls, after.windows[0][cell] is not None)


def can_slide(kit: RegieKit, levels: Levels, level_index: int, direction: int) -> bool:
    """Whether the level can move one click that way without a ridged end entering the
    frame (rulebook Zug B)."""
    return abs(levels[level_index] + direction) <= kit.levels[level_index].travel


def slide(
    kit: RegieKit,
    levels: Levels,
    windows: Windows,
    level_index: int,
    direction: int,
    box_position: int,
) -> Slid:
    """Move level ``level_index`` (0-based) one click, ``+1`` right or ``-1`` left, with the
    chips in its windows, and let everything settle: chips carried out of the frame fall
    onto the table, chips above it or in it may fall. A click past the level's travel is
    physically impossible and raises ``ValueError``."""
    if not 0 <= level_index < LEVELS:
        raise ValueError(f"level_index must be 0 to {LEVELS - 1}, got {level_index!r}")
    if direction not in (1, -1):
        raise ValueError(f"direction must be +1 (right) or -1 (left), got {direction!r}")
    if not can_slide(kit, levels, level_index, direction):
        raise ValueError(
            f"level {level_index + 1} cannot move {'right' if direction > 0 else 'left'}: "
            f"a ridged end would enter the frame (travel {kit.levels[level_index].travel})"
        )
    moved = (*levels[:level_index], levels[level_index] + direction, *levels[level_index + 1 :])
    after = settle(kit, moved, windows, box_position)
    return Slid(moved, after.windows, after.exits, after.falls)


def _check(kit: RegieKit, levels: Levels, windows: Windows, box_position: int) -> None:
    """Refuse a frame that cannot exist, so that a caller's slip is not silently settled."""
    if isinstance(box_position, bool) or box_position not in range(1, BOX_POSITIONS + 1):
        raise ValueError(f"box_position must be 1, 2 or 3, got {box_position!r}")
    if len(levels) != LEVELS or len(windows) != LEVELS:
        raise ValueError(f"expected {LEVELS} level positions and {LEVELS} window tuples")
    for k, (level, position, bar) in enumerate(zip(kit.levels, levels, windows, strict=True)):
        if not isinstance(position, int) or abs(position) > level.travel:
            raise ValueError(f"level {k + 1}: position {position!r} is beyond its travel")
        if len(bar) != len(level.cells):
            raise ValueError(f"level {k + 1}: expected {len(level.cells)} cells, got {len(bar)}")
        for cell, owner in enumerate(bar):
            if owner is None:
                continue
            if owner not in SEATS:
                raise ValueError(f"level {k + 1}, cell {cell}: owner {owner!r} is not a seat")
            if not level.cells[cell]:
                raise ValueError(f"level {k + 1}, cell {cell}: a chip in a solid cell")
