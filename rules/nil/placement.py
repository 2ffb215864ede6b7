"""Where a tile may go: every placement rule that the board alone decides.

The layers: ``step_problem`` checks one line segment against the board (sharp angle,
blue zone, edge, the line meeting itself); ``room`` asks whether the line could still
go on from it to the goal, by plain tiles or by crossings with universal tiles, and
how many it needs (the room rule, whatever the racks hold). The engine (``engine.py``)
adds turn order, the rack (the universals the crossings need) and the declared kinds.
"""

from __future__ import annotations

from functools import lru_cache
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


#: ``room``'s answer when plain tiles alone could carry the line on to the goal.
OPEN = 0


def room(state: NilState, cell: Square, entry: int, exit: int) -> int | None:
    """Whether, after a line from ``entry`` to ``exit`` on ``cell``, the line could still
    go on legally (NOTES.md §1, "Room for another tile"; "WIE SETZT MAN DIE STEINE?" rule
    2): the fewest crossings with a universal tile that a way on to the blue goal needs
    (``OPEN``, 0, if plain tiles could carry it), or ``None`` if every way needs more
    crossings than the kit has universal tiles, or there is none. Whether the player
    keeps enough universals for them is the engine's question.

    A way on is a sequence of steps that tiles could make, each checked as
    ``step_problem`` checks it against the step before, ending in the goal: a tile
    accepted as leaving room always has a next tile that leaves room too, so the line
    never ends where no tile of any kind is legal. It is a way the line could really
    take: its tiles lie on empty cells, one tile a cell, and it never meets itself or
    the line, except where a universal tile crosses a straight line (of the line, or of
    the way itself) and replaces the tile there; a cell is crossed once."""
    here = Step(cell, entry, exit)
    cache = state.room_cache
    if here in cache:
        return cache[here]
    found: int | None = None
    if finishes(state, cell, exit):
        found = OPEN
    else:
        search = _Search(state, here)
        kit = state.kit
        for budget in range(sum(kit.kind[name].count for name in kit.universal_kinds) + 1):
            if search.way(budget):
                found = budget
                break
    cache[here] = found
    return found


def has_room(state: NilState, cell: Square, entry: int, exit: int) -> bool:
    """Whether plain tiles could carry the line on from the step to the goal."""
    return room(state, cell, entry, exit) == OPEN


def universals_off_board(state: NilState, cell: Square | None = None) -> int:
    """How many of the kit's universal tiles are not on the board (but for ``cell``)."""
    kit = state.kit
    total = sum(kit.kind[name].count for name in kit.universal_kinds)
    on_board = sum(1 for tile in state.tiles
                   if tile.kind in kit.universal_kinds and tile.cell != cell)  # fmt: skip
    return max(0, total - on_board)


def _line_cells(state: NilState) -> tuple[frozenset[Square], dict[Square, Step]]:
    """The cells of the line, and those with one line on them that runs straight (a
    universal may cross there); kept with the state."""
    found = state.room_cache.get(_LINE_CELLS)
    if found is None:
        steps: dict[Square, list[Step]] = {}
        for step in state.path:
            steps.setdefault(step.cell, []).append(step)
        straight = {cell: on[0] for cell, on in steps.items()
                    if len(on) == 1 and on[0].exit == opposite(on[0].entry)}  # fmt: skip
        found = (frozenset(steps), straight)
        state.room_cache[_LINE_CELLS] = found
    return found


_LINE_CELLS = "line cells"  # a key of ``room_cache`` beside its steps
_NEVER = 1 << 30  # deeper than any way: "no tile or point of the way decided this"


class _Search:
    """The room rule's search from one step (``room``): depth first, greedy towards the
    goal side, for a way whose tiles keep to cells of their own.

    A walk that may come back to its own cells is quick to find (best first, each step
    once) and exists wherever a way does, so it prunes: once a branch has failed, the
    next is tried only while a walk to the goal is left (``walk``). A branch that failed
    without meeting the way above it (a tile or a point of it) fails from anywhere and
    is remembered; one that met it is not. What the board's geometry alone decides (the
    sharp angle, the edge, the goal) is worked out once per kit (``_successors``)."""

    def __init__(self, state: NilState, start: Step) -> None:
        kit = state.kit
        self.start = start
        self.successors = _successors(
            kit, state.options["corner"] == "diagonal", state.options["sharp_angle"] == "right"
        )
        laid = bool(state.path) and state.path[-1] == start
        board, straight = _line_cells(state)
        if not laid:
            # The step looked at is one more tile of the line (or crosses one).
            board = board | {start.cell}
            straight = dict(straight)
            if start.cell in state.board or start.exit != opposite(start.entry):
                straight.pop(start.cell, None)
            else:
                straight[start.cell] = start
        self.board = board
        # The cells a universal may cross: one line on them, running straight.
        self.straight = straight
        points = state.line_points
        if not laid:
            points = points | {point(start.cell, start.entry), point(start.cell, start.exit)}
        self.points = points
        self.blue = state.in_blue or kit.colour_of(start.cell) == "blue"
        # The way so far: its tiles by cell (the depth that laid each, and its line if a
        # universal may still cross it) and its points by the depth that reached each.
        self.cells: dict[Square, tuple[int, Step | None]] = {}
        self.own_points: dict[Point, int] = {}

    def _next(self, succ: tuple, crossed: int, budget: int) -> tuple[int | None, int]:
        """Whether the way may take the successor step ``succ``: ``None`` (no), 0 (a
        tile on an empty cell) or 1 (a universal crossing); and the depth of the way's
        tile or point that decided it (``_NEVER`` if none did)."""
        nxt, after, _blue, _done, plain, straight, _distance = succ
        cell = nxt[0]
        depth = self.own_points.get(after)
        if depth is not None:
            return None, depth
        if after in self.points:
            return None, _NEVER
        own = self.cells.get(cell)
        if own is not None:
            depth, line = own
            if line is None or not straight or crossed >= budget or nxt[1] in line[1:]:
                return None, depth
            return 1, depth
        if cell in self.board:
            line = self.straight.get(cell)
            if line is None or not straight or crossed >= budget or nxt[1] in line[1:]:
                return None, _NEVER
            return 1, _NEVER
        return (0 if plain else None), _NEVER

    def way(self, budget: int) -> bool:
        """Whether a way to the goal crosses the line at most ``budget`` times."""
        root = (self.start.cell, self.start.entry, self.start.exit)
        found, _, route = self.walk(root, self.blue, 0, budget)
        if not found:
            return False
        if self._is_way(route, budget):
            return True  # the quick walk kept to cells of its own, as it mostly does
        return self._depth_first(root, budget, dict(route))

    def _is_way(self, route: list[tuple[tuple, tuple]], budget: int) -> bool:
        """Whether a walk's steps keep to cells of their own (crossings aside)."""
        crossed = 0
        try:
            for depth, (_node, succ) in enumerate(route, start=1):
                crossing, _ = self._next(succ, crossed, budget)
                if crossing is None:
                    return False
                crossed += crossing
                nxt = succ[0]
                line = Step(*nxt) if not crossing and nxt[2] == opposite(nxt[1]) else None
                self.cells[nxt[0]] = (depth, line)
                self.own_points[succ[1]] = depth
            return True
        finally:
            self.cells.clear()
            self.own_points.clear()

    def _depth_first(self, root: tuple, budget: int, plan: dict[tuple, tuple]) -> bool:
        """The search proper (rarely needed: the walk it starts from came back to its
        own cells). ``plan`` holds the step the latest walk took from each node, tried
        first there."""
        cells, own_points = self.cells, self.own_points
        failed: set[tuple] = set()

        def children(node: tuple):
            first = plan.get(node)
            if first is not None:
                yield first
            for succ in self.successors(node):
                if succ is not first:
                    yield succ

        # A frame: [node, in the blue zone, crossings, depth, successors left, the lowest
        # depth of the way above that its branch met, whether a branch failed, the cell's
        # entry in ``cells`` before it].
        stack: list[list] = [[root, self.blue, 0, 0, children(root), _NEVER, False, None]]
        try:
            while stack:
                frame = stack[-1]
                node, blue, crossed, depth, left, low, tried, _ = frame
                child = None
                for succ in left:
                    nxt, after, blue_cell, done, _plain, _straight, _distance = succ
                    if blue and not blue_cell:
                        continue
                    crossing, met = self._next(succ, crossed, budget)
                    low = min(low, met)
                    if crossing is None:
                        continue
                    if done:
                        return True
                    key = (nxt, blue or blue_cell, crossed + crossing)
                    if key in failed:
                        continue
                    if tried:
                        tried = False  # the walk test, once after each failed branch
                        found, met, route = self.walk(node, blue, crossed, budget)
                        low = min(low, met)
                        if not found:
                            break
                        plan.update(route)
                    # A crossing of the way's own tile depends on that tile: its branch
                    # starts out having met it.
                    child = [*key, depth + 1, children(nxt), met if crossing else _NEVER,
                             False, cells.get(nxt[0])]  # fmt: skip
                    line = Step(*nxt) if not crossing and nxt[2] == opposite(nxt[1]) else None
                    cells[nxt[0]] = (depth + 1, line)
                    own_points[after] = depth + 1
                    break
                frame[5], frame[6] = low, tried
                if child is not None:
                    stack.append(child)
                    continue
                # The branch failed: take its tile back; remember it if nothing above it
                # mattered.
                stack.pop()
                if depth == 0:
                    return False
                cell = node[0]
                if frame[7] is None:
                    del cells[cell]
                else:
                    cells[cell] = frame[7]
                del own_points[point(cell, node[2])]
                if low >= depth:
                    failed.add((node, blue, crossed))
                parent = stack[-1]
                parent[5] = min(parent[5], low)
                parent[6] = True
            return False
        finally:
            cells.clear()
            own_points.clear()

    def walk(
        self, node: tuple, blue: bool, crossed: int, budget: int
    ) -> tuple[bool, int, list[tuple[tuple, tuple]]]:
        """Whether a walk that may come back to its own cells leads from ``node`` to the
        goal with at most ``budget`` crossings in all, the way so far an obstacle; the
        lowest depth of the way it met; and the walk, as (node, successor) pairs. Best
        first towards the goal side, each node once with the fewest crossings."""
        import heapq

        successors = self.successors
        points, board, straight_lines = self.points, self.board, self.straight
        fresh = not self.cells  # the way so far is only the step looked at
        low = _NEVER
        start = (node, blue)
        # Each node and zone once, with the fewest crossings (a node is found again
        # only with fewer), and the node it was reached from.
        best = {start: crossed}
        parents: dict[tuple, tuple] = {}
        queue = [(0, 0, node, blue, crossed)]
        counter = 0
        while queue:
            _, _, here, hblue, hcrossed = heapq.heappop(queue)
            if hcrossed and best[(here, hblue)] < hcrossed:
                continue
            at = None
            for succ in successors(here):
                nxt, after, blue_cell, done, plain, straight, distance = succ
                if hblue and not blue_cell:
                    continue
                if fresh:  # ``_next``, quicker with no way so far
                    if after in points:
                        continue
                    cell = nxt[0]
                    if cell in board:
                        if not straight or hcrossed >= budget:
                            continue
                        line = straight_lines.get(cell)
                        if line is None or nxt[1] == line.entry or nxt[1] == line.exit:
                            continue
                        crossing = 1
                    elif plain:
                        crossing = 0
                    else:
                        continue
                else:
                    crossing, met = self._next(succ, hcrossed, budget)
                    if met < low:
                        low = met
                    if crossing is None:
                        continue
                if at is None:
                    at = (here, hblue)
                if done:
                    return True, low, self._route(parents, start, at, succ)
                ncrossed = hcrossed + crossing
                key = (nxt, hblue or blue_cell)
                if key in best and best[key] <= ncrossed:
                    continue
                best[key] = ncrossed
                parents[key] = at
                counter += 1
                heapq.heappush(queue, (distance, counter, nxt, key[1], ncrossed))
        return False, low, []

    def _route(self, parents: dict, start: tuple, at: tuple, last: tuple) -> list:
        """The walk that ``walk`` found, as (node, successor) pairs from its start."""
        route = [(at[0], last)]
        while at != start:
            before = parents[at]
            node = at[0]
            succ = next(s for s in self.successors(before[0]) if s[0] == node)
            route.append((before[0], succ))
            at = before
        route.reverse()
        return route


def _successors(kit, diagonal: bool, right: bool) -> _Graph:
    """The board's geometry for the room rule's search (``_Graph``), worked out on first
    use and kept with the kit (``NilKit.search_tables``)."""
    graph = kit.search_tables.get((diagonal, right))
    if graph is None:
        graph = kit.search_tables[(diagonal, right)] = _shared_graph(kit, diagonal, right)
    return graph


@lru_cache(maxsize=8)
def _shared_graph(kit, diagonal: bool, right: bool) -> _Graph:
    """One ``_Graph`` for equal kits (a state read back from its notation brings a new
    kit object with the same facts); a few are kept."""
    return _Graph(kit, diagonal, right)


class _Graph:
    """For a step (cell, entry, exit), the steps that may follow it as far as the board's
    geometry decides, nearest the goal side first, each with its exit point, whether
    its cell is blue, whether it ends in the goal, whether a plain tile has its line,
    whether it runs straight (for a crossing) and its cell's distance from the goal
    side (``distance``). Plain data, worked out a step at a time."""

    def __init__(self, kit, diagonal: bool, right: bool) -> None:
        self.kit, self.diagonal, self.right = kit, diagonal, right
        self.table: dict[tuple, tuple] = {}

    def distance(self, cell: Square) -> int:
        kit = self.kit
        return {
            "N": kit.rows - 1 - cell.row,
            "S": cell.row,
            "E": kit.columns - 1 - cell.col,
            "W": cell.col,
        }[kit.goal_side]

    def __call__(self, node: tuple) -> tuple:
        found = self.table.get(node)
        if found is not None:
            return found
        kit, right = self.kit, self.right
        columns, rows, goal, shapes = kit.columns, kit.rows, kit.goal_side, kit.shapes
        cell, entry, exit = node
        before = point(cell, entry)
        out = []
        for nxt, ne in continuations(cell, exit, columns, rows, self.diagonal):
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
                            nx == opposite(ne), self.distance(nxt)))  # fmt: skip
        out.sort(key=lambda succ: (not succ[3], succ[6]))
        found = self.table[node] = tuple(out)
        return found


def lead_only(state: NilState, cell: Square, entry: int, exit: int) -> bool:
    """Whether the line from ``entry`` to ``exit`` on ``cell`` can go on only by a
    crossing next: no empty cell across its end takes a tile that leaves room, and a
    universal must cross in this turn (the lead, "WIE MAN DEN FLUSSLAUF ... KREUZT")."""
    if finishes(state, cell, exit) or not room(state, cell, entry, exit):
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
