"""Nil's rules ("Das Spiel der Pharaonen", Spear Nr. 22060), as ``rulebooks/nil.de.txt``
and NOTES.md §1 read them.

Rule ids and their words are in ``rules/catalogue/nil.toml``; the open readings are the
options in ``options.py``. The placement rules that the board alone decides are in
``placement.py``; this module adds turns, the rack, the bag, scoring and the end.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any

from rules.core import CHANCE, Game, Outcome, PlayerMove, View, Violation
from rules.grid import Square
from rules.nil import notation, words
from rules.nil.geometry import opposite, point, port_name, turn_line
from rules.nil.kit import NilKit, kit_from_json
from rules.nil.model import UNKNOWN, Draw, EndTurn, Lay, NilMove, NilState, NoPlay
from rules.nil.options import OPTION_SPECS
from rules.nil.placement import (
    OPEN,
    Problem,
    candidates,
    crossing_problem,
    finishes,
    lead_only,
    room,
    step_problem,
    universals_off_board,
)
from rules.nil.turns import (
    FIVE_TILE_BONUS,
    RACK,
    close_turn,
    draw,
    lay,
    lot_bag,
    lot_drawer,
    no_play,
)


class Nil(Game[NilState, NilMove, NilKit]):
    name = "nil"
    title = "Nil"
    state_type = NilState
    min_players = 2
    max_players = 4
    option_specs = OPTION_SPECS
    game_over_rule = "nil.game-over"
    turn_rule = "nil.turn-order"
    chance_rule = "nil.bag-draw"

    # -- set-up ---------------------------------------------------------------------

    def new(
        self,
        players: int,
        options: Mapping[str, Any] | None,
        kit: NilKit,
        view: View = View.FULL,
    ) -> NilState:
        self.check_players(players)
        resolved = self.options(options)
        if not isinstance(kit, NilKit):
            raise TypeError(f"nil: expected a NilKit, got {kit!r}")
        view = View(view)
        return NilState(
            kit=kit,
            options=resolved,
            view=view,
            players=players,
            contenders=tuple(range(players)),
            lots=(),
            starter=None,
            pending=(),
            racks=((),) * players,
            bag=tuple(k.count for k in kit.kinds) if view is View.FULL else None,
            bag_size=kit.printed,
            tiles=(),
            path=(),
            seat=0,
            laid=(),
            greens=(),
            reds=(),
            scores=(0,) * players,
        )

    def kit_from_json(self, data: Any) -> NilKit:
        return kit_from_json(data)

    def kit_to_json(self, kit: NilKit) -> dict[str, Any]:
        return kit.to_json()

    # -- whose turn -----------------------------------------------------------------

    def to_act(self, state: NilState):
        if state.finished is not None:
            return None
        if state.starter is None or state.pending:
            return CHANCE
        return state.seat

    def seats(self, state: NilState) -> int:
        return state.players

    def chance_name(self, state: NilState, lang: str = "en") -> str:
        return words.chance_name(state, lot_drawer(state), lang)

    def chance_outcomes(self, state: NilState) -> tuple[tuple[Draw, Fraction], ...]:
        if self.to_act(state) is not CHANCE:
            return ()
        if state.starter is None:
            # The lot is drawn openly from the full bag ("SPIELBEGINN"): known in both views.
            counts = lot_bag(state)
        elif state.bag is None:
            return ((Draw(None), Fraction(1)),)
        else:
            counts = state.bag
        total = sum(counts)
        return tuple(
            (Draw(kind.name), Fraction(count, total))
            for kind, count in zip(state.kit.kinds, counts, strict=True)
            if count
        )

    def legal_moves(self, state: NilState) -> tuple[NilMove, ...]:
        seat = self.to_act(state)
        if seat is None or seat is CHANCE:
            return ()
        moves: list[NilMove] = list(self._lays(state, seat))
        if state.laid:
            if self._end_turn_problem(state, moves) is None:
                moves.append(EndTurn(seat))
        elif state.view is View.TABLE or not moves:
            moves.append(NoPlay(seat))
        return tuple(moves)

    def _available(self, state: NilState, seat: int) -> tuple[str, ...]:
        """The kinds ``seat`` may lay: those on the rack, or in the table view every kind
        not all of whose tiles are on the board already."""
        kit = state.kit
        if state.view is View.FULL:
            return tuple(k.name for k in kit.kinds if k.name in state.racks[seat])
        if not state.racks[seat]:
            return ()
        on_board = Counter(tile.kind for tile in state.tiles)
        return tuple(k.name for k in kit.kinds if on_board[k.name] < k.count)

    def _lays(self, state: NilState, seat: int) -> list[Lay]:
        """Every legal placement, by cell, exit port and kind (kit order)."""
        kit = state.kit
        available = self._available(state, seat)
        plain = [kit.kind[name] for name in available if not kit.kind[name].universal]
        universal = [name for name in available if kit.kind[name].universal]
        moves: list[Lay] = []
        for cell, entry in candidates(state):
            if cell in state.board:
                if universal and state.laid:
                    moves.extend(
                        Lay(seat, cell, name)
                        for name in universal
                        if self._crossing_check(state, seat, cell, entry, name) is None
                    )
                continue
            for exit in kit.shapes[entry]:
                line = (min(entry, exit), max(entry, exit))
                ways = [(kind, quarter) for kind in kit.kinds if not kind.universal
                        for quarter, shape in kind.shapes if shape == line]  # fmt: skip
                if not ways:
                    continue
                for kind, quarter in ways:
                    if (
                        kind in plain
                        and self._placement(state, seat, cell, entry, exit, kind.name) is None
                    ):
                        moves.append(Lay(seat, cell, kind.name, quarter))
                for name in universal:
                    if self._placement(state, seat, cell, entry, exit, name) is None:
                        moves.extend(Lay(seat, cell, name, q, kind.name) for kind, q in ways)
        return moves

    # -- legality -------------------------------------------------------------------

    def violation(self, state: NilState, move: NilMove) -> Violation | None:
        broken = super().violation(state, move)
        # Before the lot's winner has opened (or passed), another seat is refused by the
        # first-player rule.
        opening = state.starter is not None and not state.path and state.seat == state.starter
        if broken is not None and broken.rule == self.turn_rule and opening:
            seated = isinstance(move, PlayerMove) and type(move.player) is int
            if seated and 0 <= move.player < state.players and state.no_play_run == 0:
                return Violation("nil.first-player", broken.detail + " (the first-player lot)")
        return broken

    def rule_violation(self, state: NilState, move: NilMove) -> Violation | None:
        if isinstance(move, Draw):
            if move.kind is not None and move.kind not in state.kit.kind:
                return Violation(self.chance_rule, f"the kit has no tile kind {move.kind!r}")
            return None  # the core checks that it is a listed outcome
        if isinstance(move, Lay):
            problem = self._lay_problem(state, move)
            return None if problem is None else Violation(*problem)
        if isinstance(move, EndTurn):
            problem = self._end_turn_problem(state)
            return None if problem is None else Violation(*problem)
        if isinstance(move, NoPlay):
            problem = self._no_play_problem(state, move)
            return None if problem is None else Violation(*problem)
        raise TypeError(f"not a Nil move: {move!r}")

    def _lay_problem(self, state: NilState, move: Lay) -> Problem | None:
        kit = state.kit
        kind = kit.kind.get(move.kind)
        if kind is None:
            return Problem("nil.tile-in-rack", f"the kit has no tile kind {move.kind!r}")
        if type(move.rotation) is not int or not 0 <= move.rotation < 4:
            return Problem(
                "nil.line-end", f"a tile turns 0 to 3 quarter turns, not {move.rotation!r}"
            )
        if move.declared is not None:
            if not kind.universal:
                return Problem(
                    "nil.universal-declare",
                    f"only a universal tile stands in for another; {kind.name} does not",
                )
            if move.declared not in kit.plain_kinds:
                return Problem(
                    "nil.universal-declare",
                    f"a universal tile stands in for one of {', '.join(kit.plain_kinds)}, "
                    f"not {move.declared!r}",
                )
        cell = move.to
        if not (0 <= cell.col < kit.columns and 0 <= cell.row < kit.rows):
            return Problem(
                "nil.off-board", f"{cell} is not a cell of the {kit.columns} x {kit.rows} board"
            )
        if move.kind not in self._available(state, move.player):
            if state.view is View.FULL:
                return Problem(
                    "nil.tile-in-rack", f"seat {move.player} has no {move.kind} on the rack"
                )
            if not state.racks[move.player]:
                return Problem(
                    "nil.tile-in-rack", f"seat {move.player} has no tile left on the rack"
                )
            return Problem(
                "nil.tile-in-rack", f"every {move.kind} tile of the kit is on the board already"
            )
        if cell in state.board:
            if kind.universal and move.declared is None:
                return self._crossing_lay_problem(state, move)
            return Problem(
                "nil.no-stacking",
                f"{cell} holds a {state.board[cell].kind} already; no tile goes on another",
            )
        if kind.universal and move.declared is None:
            return Problem(
                "nil.universal-declare",
                f"a universal tile laid on the empty cell {cell} must say which tile it stands "
                "in for",
            )
        entries = [entry for c, entry in candidates(state) if c == cell]
        if not entries:
            if not state.path:
                return Problem(
                    "nil.opening",
                    f"the first tile goes on the start field {kit.start}, not on {cell}",
                )
            end = state.end
            return Problem(
                "nil.line-end",
                f"{cell} does not join the line's end ({port_name(end.exit)} of {end.cell})",
            )
        (entry,) = entries
        shape = kit.kind[move.declared or move.kind].lines[0]
        line = turn_line(shape, move.rotation)
        if entry not in line:
            if not state.path:
                return Problem(
                    "nil.opening",
                    "the first tile's line must touch the start point "
                    f"({port_name(entry)} of {cell})",
                )
            return Problem(
                "nil.line-end",
                f"the line of the {move.declared or move.kind} on {cell}, turned {move.rotation}, "
                f"does not start at the line's end ({port_name(entry)} of {cell})",
            )
        exit = line[1] if line[0] == entry else line[0]
        return self._placement(state, move.player, cell, entry, exit, move.kind)

    def _placement(
        self, state: NilState, seat: int, cell: Square, entry: int, exit: int, kind: str
    ) -> Problem | None:
        """The board's rules for a tile of ``kind`` laid by ``seat`` from ``entry`` to
        ``exit`` on the empty cell ``cell``, which joins the line's end."""
        end = state.end
        before = point(end.cell, end.entry) if end is not None else None
        extra = (point(cell, entry),)
        problem = step_problem(
            state, cell, entry, exit, before=before, in_blue=state.in_blue, extra_points=extra
        )
        if problem is not None:
            return problem
        if finishes(state, cell, exit):
            return None
        found = room(state, cell, entry, exit)
        if found == OPEN:
            return None
        if state.path and found is not None:
            return self._crossing_room_problem(state, seat, cell, exit, kind, found)
        if not state.path:
            return Problem(
                "nil.opening",
                f"the first tile must leave room to continue; from {port_name(exit)} of {cell} "
                "no tile could follow",
            )
        return Problem(
            "nil.room",
            f"the line would end at {port_name(exit)} of {cell} with no room for another tile",
        )

    def _crossing_room_problem(
        self, state: NilState, seat: int, cell: Square, exit: int, kind: str, needed: int
    ) -> Problem | None:
        """Room that needs ``needed`` crossings counts only while the placer keeps as
        many universal tiles (NOTES.md §1, "Room for another tile": one for each
        crossing, rule 7), whether the tile of ``kind`` laid on ``cell`` leads to a
        crossing or a later tile would. In the table view: while as many tiles are left
        on the rack and universals off the board (``lay`` notes it as unchecked)."""
        rack = list(state.racks[seat])
        rack.remove(kind if state.view is View.FULL else UNKNOWN)
        if state.view is View.FULL:
            kept = sum(1 for t in rack if t in state.kit.universal_kinds)
        else:
            off = universals_off_board(state, cell) - (kind in state.kit.universal_kinds)
            kept = min(len(rack), off)
        if kept >= needed:
            return None
        if needed == 1:
            return Problem(
                "nil.room",
                f"the line would end at {port_name(exit)} of {cell} with room only for a "
                f"crossing, and seat {seat} would hold no universal tile to cross with",
            )
        return Problem(
            "nil.room",
            f"the line would end at {port_name(exit)} of {cell} with room only for {needed} "
            f"crossings, and seat {seat} would hold {kept} of the {needed} universal tiles to "
            "cross with",
        )

    def _crossing_check(
        self, state: NilState, seat: int, cell: Square, entry: int, kind: str
    ) -> Problem | None:
        """A crossing's checks (``crossing_problem``), and a universal kept when the line
        beyond it goes on only by crossing again."""
        problem = crossing_problem(state, cell, entry)
        if problem is not None:
            return problem
        exit = opposite(entry)
        if finishes(state, cell, exit):
            return None
        found = room(state, cell, entry, exit)
        if found == OPEN:
            return None
        return self._crossing_room_problem(state, seat, cell, exit, kind, found)

    def _crossing_lay_problem(self, state: NilState, move: Lay) -> Problem | None:
        if not state.laid:
            return Problem(
                "nil.crossing-lead",
                "a crossing needs two tiles in one turn: one leading to the crossing, then the "
                "universal tile",
            )
        entries = [entry for c, entry in candidates(state) if c == move.to]
        if not entries:
            end = state.end
            return Problem(
                "nil.line-end",
                f"{move.to} does not join the line's end ({port_name(end.exit)} of {end.cell})",
            )
        return self._crossing_check(state, move.player, move.to, entries[0], move.kind)

    def _end_turn_problem(self, state: NilState, lays: list[Lay] | None = None) -> Problem | None:
        if not state.laid:
            return Problem(
                "nil.end-turn", "a turn lays at least one tile; a player who cannot shows the rack"
            )
        end = state.end
        if lead_only(state, end.cell, end.entry, end.exit):
            return Problem(
                "nil.crossing-unfinished",
                f"the line ends facing a crossing at {port_name(end.exit)} of {end.cell}: the "
                "universal tile must cross in this turn",
            )
        if (
            state.options["blue_zone"] == "same-turn"
            and state.in_blue
            and state.view is View.FULL
            and (lays if lays is not None else self._lays(state, state.seat))
        ):
            return Problem(
                "nil.blue-same-turn",
                "the line entered the blue zone this game: the player must end it at a blue "
                "number while a tile can still be laid",
            )
        return None

    def _no_play_problem(self, state: NilState, move: NoPlay) -> Problem | None:
        seat = move.player
        if state.laid:
            return Problem(
                "nil.end-turn", "tiles were laid this turn: the turn is ended, not passed"
            )
        probe = state
        if move.shown is not None:
            problem = self._shown_problem(state, move)
            if problem is not None:
                return problem
            # The shown rack decides, as if everything were known.
            racks = list(state.racks)
            racks[seat] = tuple(move.shown)
            probe = replace(state, view=View.FULL, racks=tuple(racks))
        elif state.view is View.TABLE:
            return None  # the rack is not seen: recorded as unchecked when played
        lays = self._lays(probe, seat)
        if not lays:
            return None
        universal = state.kit.universal_kinds
        if all(lay.kind in universal for lay in lays):
            return Problem(
                "nil.universal-compulsory",
                f"the universal tile fits ({words.lay_text(lays[0])}): with no other tile "
                "that fits, it must be used",
            )
        plain = next(lay for lay in lays if lay.kind not in universal)
        return Problem(
            "nil.no-play", f"a tile of the rack fits and must be laid: {words.lay_text(plain)}"
        )

    def _shown_problem(self, state: NilState, move: NoPlay) -> Problem | None:
        """Whether the rack shown can be ``move.player``'s rack."""
        kit = state.kit
        rack = state.racks[move.player]
        shown = list(move.shown)
        for name in shown:
            if name not in kit.kind:
                return Problem("nil.tile-in-rack", f"the kit has no tile kind {name!r}")
        if len(shown) != len(rack):
            return Problem(
                "nil.no-play",
                f"seat {move.player} holds {len(rack)} tiles; {len(shown)} were shown",
            )
        if state.view is View.FULL:
            if sorted(shown) != sorted(rack):
                return Problem(
                    "nil.no-play",
                    f"the tiles shown ({', '.join(shown)}) are not seat {move.player}'s rack",
                )
            return None
        on_board = Counter(tile.kind for tile in state.tiles)
        for name, count in Counter(shown).items():
            if on_board[name] + count > kit.kind[name].count:
                return Problem(
                    "nil.tile-in-rack",
                    f"{count} {name} tiles shown, but only {kit.kind[name].count - on_board[name]} "
                    "of the kit are off the board",
                )
        return None

    # -- play -----------------------------------------------------------------------

    def apply(self, state: NilState, move: NilMove) -> NilState:
        if isinstance(move, Draw):
            return draw(state, move)
        if isinstance(move, Lay):
            return lay(state, move)
        if isinstance(move, EndTurn):
            notes = state.unchecked
            if (
                state.options["blue_zone"] == "same-turn"
                and state.in_blue
                and state.view is View.TABLE
            ):
                notes += (f"turn {state.turns + 1}: whether seat {state.seat} could still lay a "
                          "tile in the blue zone (the rack is not seen)",)  # fmt: skip
            return close_turn(replace(state, unchecked=notes))
        if isinstance(move, NoPlay):
            return no_play(state, move.shown)
        raise TypeError(f"not a Nil move: {move!r}")

    # -- reports --------------------------------------------------------------------

    def scores(self, state: NilState) -> tuple[int, ...]:
        return state.scores

    def score_bounds(self, state: NilState) -> tuple[int, int]:
        kit = state.kit
        lays = kit.columns * kit.rows + sum(k.count for k in kit.kinds if k.universal)
        top = max(k.value for k in kit.kinds)
        reds = sum(f.value for f in kit.fields if f.colour == "red")
        gains = sum(f.value for f in kit.fields if f.colour != "red")
        no_plays = (lays + 1) * 2 * self.max_players
        low = -(lays * reds + (no_plays + 1) * RACK * top)
        high = lays * (top + FIVE_TILE_BONUS) + lays * gains
        return (low, high)

    def outcome(self, state: NilState) -> Outcome | None:
        if state.finished is None:
            return None
        reason = {"blue": "nil.end-blue", "all-placed": "nil.end-all-placed",
                  "no-play": "nil.end-no-play"}[state.finished]  # fmt: skip
        places = sorted(set(state.scores), reverse=True)
        ranking = tuple(
            tuple(s for s in range(state.players) if state.scores[s] == score) for score in places
        )
        detail = "scores " + "-".join(str(s) for s in state.scores)
        return Outcome(ranking[0], reason, detail, ranking)

    def situations(self, state: NilState, move: NilMove) -> tuple[str, ...]:
        return words.situations(state, move)

    def describe(self, state: NilState, move: NilMove, lang: str = "en") -> str:
        return words.describe(state, move, lang)

    def diagram(self, state: NilState) -> str:
        return words.diagram(state)

    def where(self, state: NilState) -> str:
        actor = self.to_act(state)
        if actor is None:
            turn = "game over"
        elif actor is CHANCE:
            turn = "drawing from the bag"
        else:
            turn = f"seat {actor} to act"
        end = state.end
        at = "no tile laid" if end is None else f"line ends at {port_name(end.exit)} of {end.cell}"
        scores = "-".join(str(s) for s in state.scores)
        return f"nil turn {state.turns + 1}, {turn}, {at}, scores {scores}"

    # -- notation -------------------------------------------------------------------

    def state_to_json(self, state: NilState) -> dict[str, Any]:
        return notation.state_to_json(state)

    def state_from_json(self, data: Any) -> NilState:
        return notation.state_from_json(data)

    def move_to_json(self, move: NilMove) -> dict[str, Any]:
        return notation.move_to_json(move)

    def move_from_json(self, data: Any) -> NilMove:
        return notation.move_from_json(data)

    # -- for simulation -------------------------------------------------------------

    def is_report(self, move: NilMove) -> bool:
        """A no-play with the rack as shown at the table is a player's report: checked
        against the board when it arrives, never listed among the legal moves."""
        return isinstance(move, NoPlay) and move.shown is not None

    def playout_weights(self, state: NilState, moves: tuple[NilMove, ...]) -> tuple[float, ...]:
        """Players lead the river towards the goal and lay several tiles a turn; uniform
        choice would wander and stop after one tile."""
        goal = state.kit.goal_side
        weights = []
        for move in moves:
            if isinstance(move, Lay):
                weights.append(1.0 + 3.0 * (_towards(state, move, goal) > 0))
            elif isinstance(move, EndTurn):
                weights.append(0.5)
            else:
                weights.append(1.0)
        return tuple(weights)

    def random_move(self, state: NilState, rng: random.Random) -> NilMove:
        """Any well-formed move: every type, seats one beyond the table, cells around the
        line's end and anywhere up to one past the board, every kind and rotation."""
        kit = state.kit
        player = rng.randrange(state.players + 1)
        roll = rng.random()
        names = [k.name for k in kit.kinds]
        if roll < 0.1:
            return Draw(rng.choice([*names, None]))
        if roll < 0.8:
            near = [cell for cell, _ in candidates(state)]
            if near and rng.random() < 0.7:
                cell = rng.choice(near)
            else:
                cell = Square(rng.randrange(kit.columns + 1), rng.randrange(kit.rows + 1))
            kind = rng.choice(names)
            declared = rng.choice([None, None, *names])
            return Lay(player, cell, kind, rng.randrange(4), declared)
        if roll < 0.9:
            return EndTurn(player)
        if rng.random() < 0.5:
            return NoPlay(player)
        return NoPlay(player, tuple(rng.choice(names) for _ in range(rng.randrange(6))))


def _towards(state: NilState, move: Lay, goal: str) -> int:
    """How far a lay's cell lies towards the goal edge from the line's end."""
    end = state.end
    start = end.cell if end is not None else state.kit.start
    dc, dr = move.to.col - start.col, move.to.row - start.row
    return {"N": dr, "S": -dr, "E": dc, "W": -dc}[goal]


NIL = Nil()
