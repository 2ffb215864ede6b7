"""Reality wins: explaining what was seen when it differs from what the kit predicts.

A kit is a user's description of their copy, and it can be wrong: a window recorded as
solid, or the other way round. When the sensors or the players report what a move did
(a chip fell through on insertion, chips entered these compartments, one fell off that
side) and the kit predicts otherwise, the engine looks for the kit cells whose
correction explains the report: one cell, else two. It applies the move as it happened
and keeps each correction as a doubt about the kit, which later moves believe and which
the companion offers the user to write into their kit file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from itertools import combinations
from typing import NamedTuple

from rules.regie.kit import LEVELS, RegieKit
from rules.regie.model import Seen
from rules.regie.physics import Exit, Inserted, Slid, settle

Cell = tuple[int, int]  # (level index from 0, bar cell)
Action = Callable[[RegieKit], Inserted | Slid]


def flipped(kit: RegieKit, cells: Iterable[Cell]) -> RegieKit:
    """The kit with each of ``cells`` turned from window to solid or back."""
    levels = list(kit.levels)
    for level_index, cell in cells:
        bar = list(levels[level_index].cells)
        bar[cell] = not bar[cell]
        levels[level_index] = replace(levels[level_index], cells=tuple(bar))
    return replace(kit, levels=tuple(levels))


def exit_key(exit: Exit) -> tuple[str, int | str | None]:
    return ("box", exit.column) if exit.kind == "box" else ("table", exit.side)


def matches(result: Inserted | Slid, seen: Seen) -> bool:
    inserted = isinstance(result, Inserted)
    if seen.through is not None and inserted and seen.through == result.stopped_in_level_1:
        return False
    if seen.exits is not None:
        predicted = sorted(map(exit_key, result.exits), key=repr)
        observed = sorted(
            (("box", e.column) if e.kind == "box" else ("table", e.side) for e in seen.exits),
            key=repr,
        )
        if predicted != observed:
            return False
    return True


class Ambiguous(NamedTuple):
    """Several corrections of the kit explain what was seen, and they disagree on the
    outcome (where chips are, what scored, whether the chip fell through)."""

    count: int


def explain(
    kit: RegieKit,
    before: tuple[int, ...],
    after: tuple[int, ...],
    windows: tuple[tuple[int | None, ...], ...],
    box: int,
    action: Action,
    seen: Seen | None,
    top: bool = False,
) -> tuple[Inserted | Slid, tuple[Cell, ...]] | Ambiguous | None:
    """The move's result and the kit cells whose correction it needed (none when the kit
    predicted what was seen); ``None`` when no correction of one or two cells explains
    it; ``Ambiguous`` when the fewest corrections that explain it disagree on the
    outcome. ``before`` and ``after`` are the level positions around the move; ``top``
    lets level 1's cells be corrected too (an insertion seen where the kit has no
    window). A correction must leave the frame as it stood before the move at rest:
    a chip cannot have rested on a cell that was open all along."""
    try:
        result = action(kit)
        if seen is None or matches(result, seen):
            return result, ()
    except ValueError:  # the kit says the action cannot happen; what was seen says it did
        if seen is None:
            raise
    candidates = sorted(
        {
            (k, kit.column_cell(k, positions[k], column))
            for positions in (before, after)
            for k in range(0 if top else 1, LEVELS)
            for column in range(kit.columns)
            # An occupied window cannot have been solid: a chip sits in it.
            if windows[k][kit.column_cell(k, positions[k], column)] is None
        }
    )
    for size in (1, 2):
        found: dict[tuple, tuple[Inserted | Slid, tuple[Cell, ...]]] = {}
        for cells in combinations(candidates, size):
            corrected = flipped(kit, cells)
            try:
                if settle(corrected, before, windows, box).windows != windows:
                    continue  # the frame before the move would not have stood so
                result = action(corrected)
            except ValueError:  # the correction contradicts a chip's place
                continue
            if matches(result, seen):
                found.setdefault(_outcome(result), (result, cells))
        if len(found) == 1:
            return next(iter(found.values()))
        if found:
            return Ambiguous(len(found))
    return None


def _outcome(result: Inserted | Slid) -> tuple:
    stopped = result.stopped_in_level_1 if isinstance(result, Inserted) else None
    return (result.windows, tuple(map(exit_key, result.exits)), stopped)
