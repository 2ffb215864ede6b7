"""Where a tile may go: every placement rule that the board alone decides.

The layers: ``step_problem`` checks one line segment against the board (sharp angle,
blue zone, edge, the line meeting itself); ``has_room`` asks whether some tile kind
could follow it (the pseudo-legal look-ahead of the room rule); ``placement_problem``
adds the room rule and the lead to a crossing, which needs the rack. The engine
(``engine.py``) adds turn order, the rack and the declared kinds.
"""

from __future__ import annotations

from typing import NamedTuple

from rules.grid import Square
from rules.nil.geometry import (
    Point,
    border_sides,
    continuations,
    is_corner,
    is_sharp,
    opposite,
    point,
    port_name,
)
from rules.nil.model import NilState, Step


class Problem(NamedTuple):
    rule: str
    detail: str


def candidates(state: NilState) -> tuple[tuple[Square, int], ...]:
    """The cells the next tile may go on, each with the port its line must enter by:
    the start field at the start point before the first tile, else the cells across the
    end of the line."""
    kit = state.kit
    end = state.end
    if end is None:
        return ((kit.start, kit.start_port),)
    return continuations(
        end.cell, end.exit, kit.columns, kit.rows, state.options["corner"] == "diagonal"
    )


def finishes(state: NilState, cell: Square, exit: int) -> bool:
    """Whether a line leaving ``cell`` at ``exit`` ends in the blue goal: a blue field
    whose line reaches the goal edge ("SPIEL-ENDE": "Wenn der Nil auf einem blauen Feld
    endet")."""
    kit = state.kit
    sides = border_sides(point(cell, exit), kit.columns, kit.rows)
    return kit.goal_side in sides and kit.colour_of(cell) == "blue"


def step_problem(
    state: NilState,
    cell: Square,
    entry: int,
    exit: int,
    *,
    before: Point | None,
    in_blue: bool,
    extra_points: tuple[Point, ...] = (),
) -> Problem | None:
    """What is wrong with the line running from ``entry`` to ``exit`` in ``cell``, which
    the caller has checked to join the line's end; ``before`` is the far end of the
    incoming line (``None`` at the opening)."""
    kit = state.kit
    junction = point(cell, entry)
    after = point(cell, exit)
    if before is not None and is_corner(entry):
        right = state.options["sharp_angle"] == "right"
        if is_sharp(before, junction, after, right):
            return Problem(
                "nil.sharp-angle",
                f"the line on {cell} from {port_name(entry)} to {port_name(exit)} meets the "
                f"line before it at a sharp angle (below {'or at ' if right else ''}90 degrees)",
            )
    if in_blue and kit.colour_of(cell) != "blue":
        return Problem(
            "nil.blue-zone", f"{cell} is outside the blue zone, and the line has entered it"
        )
    sides = border_sides(after, kit.columns, kit.rows)
    if sides and not (kit.goal_side in sides and kit.colour_of(cell) == "blue"):
        return Problem(
            "nil.edge",
            f"the line on {cell} would touch the board's edge at {port_name(exit)}: only the "
            "start point and the blue goal fields may touch it",
        )
    if after in state.line_points or after in extra_points:
        return Problem(
            "nil.no-crossing",
            f"the line on {cell} would meet the line again at {port_name(exit)}: only a "
            "universal tile crosses it",
        )
    return None


def fits(state: NilState, cell: Square, entry: int, exit: int) -> list[Step]:
    """The lines some tile kind could have at the end of a line from ``entry`` to ``exit``
    on ``cell``: on an empty cell across it, passing every check of ``step_problem``."""
    kit = state.kit
    before = point(cell, entry)
    in_blue = state.in_blue or kit.colour_of(cell) == "blue"
    extra = (before, point(cell, exit))
    board = state.board
    found = []
    for next_cell, next_entry in continuations(
        cell, exit, kit.columns, kit.rows, state.options["corner"] == "diagonal"
    ):
        if next_cell in board:
            continue
        for next_exit in kit.shapes[next_entry]:
            problem = step_problem(
                state,
                next_cell,
                next_entry,
                next_exit,
                before=before,
                in_blue=in_blue,
                extra_points=extra,
            )
            if problem is None:
                found.append(Step(next_cell, next_entry, next_exit))
    return found


def has_room(state: NilState, cell: Square, entry: int, exit: int, depth: int = 2) -> bool:
    """Whether, after a line from ``entry`` to ``exit`` on ``cell``, another tile could
    be laid at the new end, whatever the racks hold (NOTES.md §1, "Room for another
    tile").

    Looking one tile ahead only would let a line end in a pocket where a tile fits but
    could never be followed (nor lead to a crossing), and the game would stall; so, with
    ``depth`` 2, the tile that fits must itself end in the goal, have room one tile
    further, or face a tile of the line that a universal could cross."""
    steps = fits(state, cell, entry, exit)
    if depth <= 1 or not steps:
        return bool(steps)
    here = Step(cell, entry, exit)
    after = state if state.path and state.path[-1] == here else _with_step(state, here)
    kit = state.kit
    diagonal = state.options["corner"] == "diagonal"
    for step in steps:
        if finishes(after, step.cell, step.exit):
            return True
        if has_room(after, step.cell, step.entry, step.exit, depth - 1):
            return True
        for next_cell, next_entry in continuations(
            step.cell, step.exit, kit.columns, kit.rows, diagonal
        ):
            if next_cell in after.board and crossable(after, next_cell, next_entry) is None:
                return True
    return False


def crossable(state: NilState, cell: Square, entry: int) -> Problem | None:
    """Whether a universal tile may replace the tile on ``cell`` and carry the line on
    from ``entry`` straight across: the tile there must carry one line running side to
    side or corner to corner, which the universal keeps, and ``entry`` must be off it."""
    steps = [step for step in state.path if step.cell == cell]
    if len(steps) != 1:
        return Problem("nil.crossing-line", f"the line already crosses itself on {cell}")
    (step,) = steps
    if step.exit != opposite(step.entry):
        return Problem(
            "nil.crossing-line",
            f"the line on {cell} bends ({port_name(step.entry)} to {port_name(step.exit)}): "
            "a universal tile's lines run straight, side to side or corner to corner",
        )
    if entry in (step.entry, step.exit):
        return Problem(
            "nil.crossing-line",
            f"the crossing would run along the line on {cell}, not across it",
        )
    return None


def crossing_problem(state: NilState, cell: Square, entry: int) -> Problem | None:
    """Every check of a crossing at ``cell`` entered by ``entry``, the room rule included
    (its lead comes first, so the crossing needs no second lead)."""
    problem = crossable(state, cell, entry)
    if problem is not None:
        return problem
    exit = opposite(entry)
    end = state.end
    before = point(end.cell, end.entry) if end is not None else None
    problem = step_problem(state, cell, entry, exit, before=before, in_blue=state.in_blue)
    if problem is not None:
        return problem
    if not finishes(state, cell, exit) and not has_room(state, cell, entry, exit):
        return Problem(
            "nil.room",
            f"after the crossing on {cell} the line would end at {port_name(exit)} with no "
            "room for another tile",
        )
    return None


def leads_to_crossing(state: NilState, cell: Square, entry: int, exit: int) -> bool:
    """Whether the line from ``entry`` to ``exit`` on ``cell`` ends facing a tile of the
    line that a universal may cross next (the lead, "WIE MAN DEN FLUSSLAUF ... KREUZT")."""
    kit = state.kit
    lead = Step(cell, entry, exit)
    after = _with_step(state, lead)
    for next_cell, next_entry in continuations(
        cell, exit, kit.columns, kit.rows, state.options["corner"] == "diagonal"
    ):
        if next_cell in state.board and crossing_problem(after, next_cell, next_entry) is None:
            return True
    return False


def _with_step(state: NilState, step: Step) -> NilState:
    """The state with one more plain tile's step on the line (for looking ahead)."""
    from dataclasses import replace

    from rules.nil.model import Tile

    tiles = (*state.tiles, Tile(step.cell, "?"))
    return replace(state, tiles=tiles, path=(*state.path, step))
