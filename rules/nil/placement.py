"""Where a tile may go: every placement rule that the board alone decides.

The layers: ``step_problem`` checks one line segment against the board (sharp angle,
blue zone, edge, the line meeting itself); ``room`` asks whether the line could still
go on from it to the goal, by plain tiles or by one crossing (the room rule, whatever
the racks hold). The engine (``engine.py``) adds turn order, the rack (a crossing's
universal) and the declared kinds.
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


OPEN = "open"
CROSSING = "crossing"


def room(state: NilState, cell: Square, entry: int, exit: int) -> str | None:
    """Whether, after a line from ``entry`` to ``exit`` on ``cell``, the line could still
    go on legally (NOTES.md §1, "Room for another tile"; "WIE SETZT MAN DIE STEINE?" rule
    2): ``OPEN`` if plain tiles could carry it on to the blue goal, ``CROSSING`` if only
    a way that crosses the line once with a universal tile does, ``None`` if nothing
    does.

    Room is one consistent test, not a fixed look-ahead: a search over the steps a tile
    could make (cell, entry and exit port, and whether the line is in the blue zone), the
    line's cells and points as obstacles and every step checked as ``step_problem``
    checks it against the step before. A step has room when it reaches the goal, so a
    tile accepted as leaving room always has a next tile that leaves room too, and the
    line never ends where no tile of any kind is legal."""
    here = Step(cell, entry, exit)
    cache = state.room_cache
    if here in cache:
        return cache[here]
    found = None
    if _search(state, here, crossings=False):
        found = OPEN
    elif _search(state, here, crossings=True):
        found = CROSSING
    cache[here] = found
    return found


def has_room(state: NilState, cell: Square, entry: int, exit: int) -> bool:
    """Whether plain tiles could carry the line on from the step to the goal."""
    return room(state, cell, entry, exit) == OPEN


def _search(state: NilState, start: Step, *, crossings: bool) -> bool:
    """Whether the line's end ``start`` (the last step of ``state``, or a step looked at
    beyond it) reaches the blue goal
    through empty cells, or with ``crossings`` also across one straight line of the line
    that a universal tile may cross (one: the placer keeps one universal for it). Best
    first towards the goal side; each node is visited once (the memo), so the search is
    linear in the board. What the board's geometry alone decides of a step (the sharp
    angle, the edge, the goal) is worked out once per kit (``_successors``)."""
    import heapq

    kit = state.kit
    successors = _successors(kit, state.options["corner"] == "diagonal",
                             state.options["sharp_angle"] == "right")  # fmt: skip
    goal = kit.goal_side
    rows, columns = kit.rows, kit.columns
    distance = {
        "N": lambda sq: rows - 1 - sq.row,
        "S": lambda sq: sq.row,
        "E": lambda sq: columns - 1 - sq.col,
        "W": lambda sq: sq.col,
    }[goal]
    board = state.board
    line_points = state.line_points
    blue0 = state.in_blue or kit.colour_of(start.cell) == "blue"
    if finishes(state, start.cell, start.exit):
        return True
    if not (state.path and state.path[-1] == start):  # the step is looked at, not laid
        board = {**board, start.cell: None}
        line_points = line_points | {point(start.cell, start.entry), point(start.cell, start.exit)}
    first = (start.cell, start.entry, start.exit)
    seen = {(first, blue0, False)}
    queue = [(distance(start.cell), 0, first, blue0, False)]
    counter = 0
    while queue:
        _, _, node, blue, crossed = heapq.heappop(queue)
        for nxt, after, blue_cell, done, plain, straight in successors(node):
            cell = nxt[0]
            ncrossed = crossed
            if cell in board:
                if not (straight and crossings and not crossed) or cell == start.cell:
                    continue
                if crossable(state, cell, nxt[1]) is not None:
                    continue
                ncrossed = True
            elif not plain:
                continue
            if (blue and not blue_cell) or after in line_points:
                continue
            if done:
                return True
            nblue = blue or blue_cell
            key = (nxt, nblue, ncrossed)
            if key in seen:
                continue
            seen.add(key)
            counter += 1
            heapq.heappush(queue, (distance(cell), counter, nxt, nblue, ncrossed))
    return False


_GRAPHS: dict[tuple[int, bool, bool], tuple[object, dict]] = {}


def _successors(kit, diagonal: bool, right: bool):
    """For a step (cell, entry, exit), the steps that may follow it as far as the board's
    geometry decides, each with its exit point, whether its cell is blue, whether it
    ends in the goal, whether a plain tile has its line and whether it runs straight
    (for a crossing); worked out on first use and kept for the kit."""
    key = (id(kit), diagonal, right)
    held = _GRAPHS.get(key)
    if held is None or held[0] is not kit:
        held = (kit, {})
        _GRAPHS[key] = held
    table = held[1]
    columns, rows, goal = kit.columns, kit.rows, kit.goal_side
    shapes = kit.shapes

    def get(node):
        found = table.get(node)
        if found is not None:
            return found
        cell, entry, exit = node
        before = point(cell, entry)
        out = []
        for nxt, ne in continuations(cell, exit, columns, rows, diagonal):
            junction = point(nxt, ne)
            blue_cell = kit.colour_of(nxt) == "blue"
            exits = set(shapes[ne]) | {opposite(ne)}
            for nx in sorted(exits):
                after = point(nxt, nx)
                if after in (before, junction):
                    continue
                if is_corner(ne) and is_sharp(before, junction, after, right):
                    continue
                sides = border_sides(after, columns, rows)
                done = goal in sides and blue_cell
                if sides and not done:
                    continue
                out.append(((nxt, ne, nx), after, blue_cell, done, nx in shapes[ne],
                            nx == opposite(ne)))  # fmt: skip
        found = tuple(out)
        table[node] = found
        return found

    return get


def lead_only(state: NilState, cell: Square, entry: int, exit: int) -> bool:
    """Whether the line from ``entry`` to ``exit`` on ``cell`` can go on only by a
    crossing next: no empty cell across its end takes a tile that leaves room, and a
    universal must cross in this turn (the lead, "WIE MAN DEN FLUSSLAUF ... KREUZT")."""
    if finishes(state, cell, exit) or room(state, cell, entry, exit) != CROSSING:
        return False
    here = Step(cell, entry, exit)
    after = state if state.path and state.path[-1] == here else _with_step(state, here)
    return not any(
        finishes(after, step.cell, step.exit) or room(after, *step) is not None
        for step in fits(after, cell, entry, exit)
    )


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
    if not finishes(state, cell, exit) and room(state, cell, entry, exit) is None:
        return Problem(
            "nil.room",
            f"after the crossing on {cell} the line would end at {port_name(exit)} with no "
            "room for another tile",
        )
    return None


def _with_step(state: NilState, step: Step) -> NilState:
    """The state with one more plain tile's step on the line (for looking ahead)."""
    from dataclasses import replace

    from rules.nil.model import Tile

    tiles = (*state.tiles, Tile(step.cell, "?"))
    return replace(state, tiles=tiles, path=(*state.path, step))
