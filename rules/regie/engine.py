"""Regie's rules (2 players, "4284-LD681"), as ``rulebooks/regie.de.txt`` and NOTES.md §4
read them. The mechanics of falling chips are in ``physics.py``, kit corrections from
what was seen in ``reality.py``; rule ids and their words in
``rules/catalogue/regie.toml``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from typing import Any, NamedTuple

from rules.core import CHANCE, Game, Outcome, View, Violation
from rules.regie import notation, physics
from rules.regie.kit import BOX_POSITIONS, LEVELS, RegieKit, kit_from_json
from rules.regie.model import (
    COLOURS,
    Doubt,
    Insert,
    Landed,
    LastMove,
    MoveBox,
    RegieMove,
    RegieState,
    Seen,
    SeenExit,
    Slide,
    Start,
)
from rules.regie.options import OPTION_SPECS
from rules.regie.reality import Ambiguous, explain, flipped

HALF = Fraction(1, 2)
#: How much less often a simulated player puts a chip in where it falls through (a
#: misjudged slot) than makes any one legal move.
MISJUDGED_WEIGHT = 0.1


class Result(NamedTuple):
    state: RegieState
    events: tuple[str, ...]


def effective_kit(state: RegieState) -> RegieKit:
    """The kit as this game believes it: the kit it started with, corrected by every
    doubt seen since (the latest word on a cell wins)."""
    if not state.doubts:
        return state.kit
    corrections: dict[tuple[int, int], str] = {}
    for doubt in state.doubts:
        corrections[(doubt.level, doubt.cell)] = doubt.seen
    cells = [
        cell
        for cell, seen in corrections.items()
        if state.kit.levels[cell[0]].cells[cell[1]] != (seen == "window")
    ]
    return flipped(state.kit, cells)


class Regie(Game[RegieState, RegieMove, RegieKit]):
    name = "regie"
    title = "Regie"
    state_type = RegieState
    min_players = 2
    max_players = 2
    option_specs = OPTION_SPECS
    game_over_rule = "regie.game-over"
    turn_rule = "regie.turn-order"
    chance_rule = "regie.who-begins"

    # -- set-up ---------------------------------------------------------------------

    def new(
        self,
        players: int,
        options: Mapping[str, Any] | None,
        kit: RegieKit,
        view: View = View.FULL,
    ) -> RegieState:
        self.check_players(players)
        if not isinstance(kit, RegieKit):
            raise TypeError(f"regie: expected a RegieKit, got {kit!r}")
        return RegieState(
            kit=kit,
            options=self.options(options),
            view=View(view),
            first=None,
            turn=0,
            levels=physics.start_levels(kit),
            windows=physics.empty_windows(kit),
            box=kit.box_start,
            reserve=(kit.chips_per_player, kit.chips_per_player),
        )

    def kit_from_json(self, data: Any) -> RegieKit:
        return kit_from_json(data)

    def corrected_kit(self, state: RegieState) -> RegieKit | None:
        """What the sensors have shown: the kit with every doubt's correction."""
        return effective_kit(state) if state.doubts else None

    def kit_to_json(self, kit: RegieKit) -> dict[str, Any]:
        return kit.to_json()

    # -- whose turn -----------------------------------------------------------------

    def seats(self, state: RegieState) -> int:
        return 2

    def to_act(self, state: RegieState):
        if self._finished(state):
            return None
        if state.first is None:
            return CHANCE
        return state.turn

    def _finished(self, state: RegieState) -> bool:
        return any(state.through(seat) == state.kit.chips_per_player for seat in (0, 1))

    def seat_colour(self, state: RegieState, seat: int) -> str | None:
        return COLOURS[seat]

    def chance_name(self, state: RegieState, lang: str = "en") -> str:
        return "die Festlegung, wer beginnt" if _german(lang) else "the choice of who begins"

    def chance_outcomes(self, state: RegieState) -> tuple[tuple[Start, Fraction], ...]:
        if self.to_act(state) is not CHANCE:
            return ()
        return ((Start(0), HALF), (Start(1), HALF))

    def legal_moves(self, state: RegieState) -> tuple[RegieMove, ...]:
        seat = self.to_act(state)
        if seat is None or seat is CHANCE:
            return ()
        kit = effective_kit(state)
        moves: list[RegieMove] = []
        if state.reserve[seat]:
            penalty = state.options["fall_through"] == "penalty"
            for column in physics.insertion_columns(kit, state.levels, state.windows):
                if penalty or physics.stops_in_level_1(kit, state.levels, state.windows, column):
                    moves.append(Insert(seat, column))
        for level in range(1, LEVELS + 1):
            for direction in (-1, 1):
                if self._slide_problem(state, kit, Slide(seat, level, direction)) is None:
                    moves.append(Slide(seat, level, direction))
        for to in (state.box - 1, state.box + 1):
            if self._box_problem(state, MoveBox(seat, to)) is None:
                moves.append(MoveBox(seat, to))
        return tuple(moves)

    def is_report(self, move: RegieMove) -> bool:
        return getattr(move, "seen", None) is not None

    def physical_moves(self, state: RegieState) -> tuple[RegieMove, ...]:
        """The legal moves, and (with fall_through = "forbidden") a chip put in where it
        falls through: not allowed, but a player may misjudge it, and then it happens."""
        moves = self.legal_moves(state)
        seat = self.to_act(state)
        if not moves or state.options["fall_through"] == "penalty" or not state.reserve[seat]:
            return moves
        kit = effective_kit(state)
        misjudged = tuple(
            Insert(seat, column, Seen(through=True))
            for column in physics.insertion_columns(kit, state.levels, state.windows)
            if not physics.stops_in_level_1(kit, state.levels, state.windows, column)
        )
        return moves + misjudged

    def playout_weights(
        self, state: RegieState, moves: tuple[RegieMove, ...]
    ) -> tuple[float, ...] | None:
        return tuple(
            MISJUDGED_WEIGHT if isinstance(m, Insert) and m.seen is not None else 1.0 for m in moves
        )

    # -- legality -------------------------------------------------------------------

    def rule_violation(self, state: RegieState, move: RegieMove) -> Violation | None:
        if isinstance(move, Start):
            return None  # the core checks it is a listed outcome
        if isinstance(move, MoveBox):
            return self._box_problem(state, move)
        kit = effective_kit(state)
        if isinstance(move, Slide):
            problem = self._slide_problem(state, kit, move)
            if problem is not None:
                return problem
        elif isinstance(move, Insert):
            if not state.reserve[move.player]:
                return Violation("regie.no-chip", "all your chips are in play already")
            columns = physics.insertion_columns(kit, state.levels, state.windows)
            seen_in = self.is_report(move) and self._free_in_truth(state, kit, move.column)
            if move.column not in columns and not seen_in:
                return Violation(
                    "regie.insert-slot",
                    f"level 1 has no free window at frame column {move.column}; "
                    f"chips go in at columns {', '.join(map(str, columns)) or 'none now'}",
                )
        else:
            raise TypeError(f"not a Regie move: {move!r}")
        result = self._result(state, move)
        if isinstance(result, Violation):
            return result
        if (
            isinstance(move, Insert)
            and (move.seen is None or move.seen == Seen())
            and "fall-through" in result.events
            and state.options["fall_through"] == "forbidden"
        ):
            return Violation(
                "regie.insert-falls-through",
                f"a chip put in at column {move.column} falls on past level 1; it must come "
                "to rest in level 1",
            )
        return None

    def _free_in_truth(self, state: RegieState, kit: RegieKit, column: int) -> bool:
        """Whether a chip seen going in at ``column`` could have: inside the frame, no chip
        in the way (the kit may be wrong about the cell being solid)."""
        if type(column) is not int or not 0 <= column < kit.columns:
            return False
        return state.windows[0][kit.column_cell(0, state.levels[0], column)] is None

    def _slide_problem(self, state: RegieState, kit: RegieKit, move: Slide) -> Violation | None:
        if type(move.level) is not int or not 1 <= move.level <= LEVELS:
            return Violation("regie.slide-travel", f"the levels are 1 to 6, not {move.level!r}")
        if move.direction not in (-1, 1):
            return Violation("regie.slide-travel", "a level moves one click left or right")
        if not physics.can_slide(kit, state.levels, move.level - 1, move.direction):
            side = "right" if move.direction > 0 else "left"
            return Violation(
                "regie.slide-travel",
                f"level {move.level} cannot move {side}: its ridged end would enter the frame",
            )
        last = state.last[1 - move.player]
        if last is not None and last.kind == "slide" and last.level == move.level:
            return Violation(
                "regie.same-level",
                f"level {move.level} was slid by the opponent in their last turn",
            )
        return None

    def _box_problem(self, state: RegieState, move: MoveBox) -> Violation | None:
        if (
            type(move.to) is not int
            or abs(move.to - state.box) != 1
            or not (1 <= move.to <= BOX_POSITIONS)
        ):
            return Violation(
                "regie.box-step",
                f"the box moves one position from {state.box}, to 1, 2 or 3; not to {move.to!r}",
            )
        last = state.last[1 - move.player]
        if last is not None and last.kind == "box" and last.came_from == move.to:
            return Violation(
                "regie.box-back",
                f"the opponent just moved the box from {move.to} to {state.box}; "
                "it may not go straight back",
            )
        return None

    # -- play -----------------------------------------------------------------------

    def apply(self, state: RegieState, move: RegieMove) -> RegieState:
        result = self._result(state, move)
        if isinstance(result, Violation):  # pragma: no cover - play checked it
            raise AssertionError(result)
        return result.state

    def _result(self, state: RegieState, move: RegieMove) -> Result | Violation:
        if isinstance(move, Start):
            return Result(replace(state, first=move.first, turn=move.first), ("start",))
        seat = move.player
        events: list[str] = []
        if self._refused_slide(state, seat):
            events.append("slide-refused")
        if self._refused_box(state, seat):
            events.append("box-refused")
        if isinstance(move, MoveBox):
            events.append("box")
            after = replace(state, box=move.to)
            return Result(
                self._next(after, seat, LastMove("box", came_from=state.box)), tuple(events)
            )
        kit = effective_kit(state)
        if isinstance(move, Insert):
            levels = state.levels

            def action(k: RegieKit):
                return physics.insert(k, levels, state.windows, move.column, seat, state.box)

            last = LastMove("insert")
            events.append("insert")
        else:
            levels = list(state.levels)
            levels[move.level - 1] += move.direction
            levels = tuple(levels)

            def action(k: RegieKit):
                return physics.slide(
                    k, state.levels, state.windows, move.level - 1, move.direction, state.box
                )

            last = LastMove("slide", level=move.level)
            events.append("slide")
        explained = explain(
            kit,
            state.levels,
            levels,
            state.windows,
            state.box,
            action,
            move.seen,
            top=isinstance(move, Insert),
        )
        if explained is None:
            return Violation(
                "regie.unexplained",
                "what was seen cannot be explained by correcting one or two cells of the "
                "kit: check the sensors and the kit",
            )
        if isinstance(explained, Ambiguous):
            return Violation(
                "regie.unexplained",
                f"what was seen fits {explained.count} corrections of the kit that disagree "
                "on where the chips are: tell the table which happened",
            )
        outcome, corrections = explained
        # Each correction says the cell is the opposite of what the kit believed.
        doubts = tuple(
            Doubt(state.ply, k, cell, "solid" if kit.levels[k].cells[cell] else "window")
            for k, cell in corrections
        )
        if doubts:
            events.append("kit-doubt")
        through = isinstance(move, Insert) and not outcome.stopped_in_level_1
        if through:
            events.append("fall-through")
        row = kit.box_row(state.box)
        landed = list(state.landed)
        for exit in outcome.exits:
            if exit.kind == "table":
                landed.append(Landed(exit.owner, "table", None, None, exit.side, 0))
                events.append("table")
                continue
            # A chip that fell through on insertion scores nothing in the box.
            value = 0 if through else exit.value
            landed.append(Landed(exit.owner, "box", exit.column, row, None, value))
            events.append("score" if value else "box-zero")
        drops = [f.to_level - f.from_level for f in outcome.falls]
        drops += [e.levels_fallen for e in outcome.exits if e.kind == "box"]
        if any(d >= 2 for d in drops):
            events.append("cascade")
        if len(outcome.falls) + len(outcome.exits) >= 2:
            events.append("multi-fall")
        reserve = list(state.reserve)
        if isinstance(move, Insert):
            reserve[seat] -= 1
        after = replace(
            state,
            levels=outcome.levels if isinstance(outcome, physics.Slid) else state.levels,
            windows=outcome.windows,
            reserve=(reserve[0], reserve[1]),
            landed=tuple(landed),
            doubts=state.doubts + doubts,
        )
        if through:  # "so setzt er im nächsten Durchgang aus"
            skips = list(after.skips)
            skips[seat] += 1
            after = replace(after, skips=(skips[0], skips[1]))
        after = self._next(after, seat, last)
        return Result(after, tuple(events))

    def _next(self, state: RegieState, seat: int, last: LastMove) -> RegieState:
        """Record ``seat``'s move and pass the turn on, past every turn a seat misses."""
        lasts = list(state.last)
        lasts[seat] = last
        skips = list(state.skips)
        following = 1 - seat
        while skips[following]:  # at most twice: each pass uses a missed turn up
            skips[following] -= 1
            following = 1 - following
        return replace(
            state,
            last=tuple(lasts),
            turn=following,
            skips=(skips[0], skips[1]),
            ply=state.ply + 1,
        )

    def _refused_box(self, state: RegieState, seat: int) -> bool:
        """Whether the no-way-back rule takes away a box move ``seat`` could otherwise make."""
        last = state.last[1 - seat]
        return last is not None and last.kind == "box" and abs(last.came_from - state.box) == 1

    def _refused_slide(self, state: RegieState, seat: int) -> bool:
        """Whether the same-level rule takes away a slide ``seat`` could otherwise make."""
        last = state.last[1 - seat]
        if last is None or last.kind != "slide":
            return False
        kit = effective_kit(state)
        return any(physics.can_slide(kit, state.levels, last.level - 1, d) for d in (-1, 1))

    # -- reports --------------------------------------------------------------------

    def scores(self, state: RegieState) -> tuple[int, int]:
        return (state.score(0), state.score(1))

    def score_bounds(self, state: RegieState) -> tuple[int, int]:
        best = max(max(row) for row in state.kit.box_rows)
        return (0, best * state.kit.chips_per_player)

    def outcome(self, state: RegieState) -> Outcome | None:
        if not self._finished(state):
            return None
        done = [s for s in (0, 1) if state.through(s) == state.kit.chips_per_player]
        red, blue = self.scores(state)
        who = " and ".join(COLOURS[s] for s in done)
        detail = f"{who} brought all {state.kit.chips_per_player} chips through; {red}-{blue}"
        if red == blue:
            return Outcome((), "regie.all-through", detail, ((0, 1),))
        winner = 0 if red > blue else 1
        return Outcome((winner,), "regie.all-through", detail, ((winner,), (1 - winner,)))

    def situations(self, state: RegieState, move: RegieMove) -> tuple[str, ...]:
        result = self._result(state, move)
        return () if isinstance(result, Violation) else result.events

    def describe(self, state: RegieState, move: RegieMove, lang: str = "en") -> str:
        """The move in words, English or German (the rulebook's Chip, Ebene, Wertungsbox,
        Tisch, "setzt aus"; a compartment of the box is a "Fach")."""
        de = _german(lang)
        if isinstance(move, Start):
            if de:
                return f"{_COLOUR_DE[COLOURS[move.first]]} beginnt."
            return f"{COLOURS[move.first].capitalize()} begins."
        who = _COLOUR_DE[COLOURS[move.player]] if de else COLOURS[move.player].capitalize()
        if isinstance(move, MoveBox):
            if de:
                box = f"von Position {state.box} in Position {move.to}"
                return f"{who} schiebt die Wertungsbox {box}."
            return f"{who} moves the box from position {state.box} to {move.to}."
        result = self._result(state, move)
        if isinstance(move, Insert):
            if de:
                text = f"{who} setzt einen Chip in Spalte {move.column} ein"
            else:
                text = f"{who} puts a chip in at column {move.column}"
        else:
            side = "right" if move.direction > 0 else "left"
            if de:
                text = f"{who} schiebt Ebene {move.level} nach {_SIDE_DE[side]}"
            else:
                text = f"{who} slides level {move.level} {side}"
        if isinstance(result, Violation):
            return f"{text}."
        after = result.state
        new = after.landed[len(state.landed) :]
        parts = []
        for chip in new:
            colour = COLOURS[chip.owner]
            if de:
                chip_de = f"ein {_ADJECTIVE_DE[colour]}er Chip fällt"
                if chip.kind == "box":
                    parts.append(f"{chip_de} in Fach {chip.column} (+{chip.value})")
                else:
                    parts.append(f"{chip_de} {_SIDE_DE[chip.side]} auf den Tisch")
            elif chip.kind == "box":
                parts.append(f"{colour} into compartment {chip.column} (+{chip.value})")
            else:
                parts.append(f"{colour} onto the table on the {chip.side}")
        if "fall-through" in result.events:
            if de:
                parts.append(f"der Chip fällt durch, und {who} setzt im nächsten Durchgang aus")
            else:
                parts.append("the chip falls through: the next turn is missed")
        return text + (": " + "; ".join(parts) if parts else "") + "."

    def diagram(self, state: RegieState) -> str:
        kit = effective_kit(state)
        lines = []
        for k, level in enumerate(kit.levels):
            margin = kit.margin(k)
            offset = margin - state.levels[k]
            row = []
            for column in range(kit.columns):
                cell = offset + column
                owner = state.windows[k][cell]
                row.append("o" if level.cells[cell] and owner is None else
                           "." if owner is None else "RB"[owner])  # fmt: skip
            lines.append(f"level {k + 1} ({state.levels[k]:+d}): " + " ".join(row))
        values = kit.box_rows[kit.box_row(state.box)]
        lines.append(f"box {state.box}:     " + " ".join(str(v)[-1] for v in values))
        for seat in (0, 1):
            lines.append(
                f"{COLOURS[seat]}: {state.score(seat)} points, {state.through(seat)} through, "
                f"{state.reserve[seat]} to play"
            )
        return "\n".join(lines)

    def where(self, state: RegieState) -> str:
        actor = self.to_act(state)
        if actor is None:
            return "regie: game over"
        if actor is CHANCE:
            return "regie: before it is settled who begins"
        return f"regie ply {state.ply}, {COLOURS[actor]} to move"

    # -- notation -------------------------------------------------------------------

    def state_to_json(self, state: RegieState) -> dict[str, Any]:
        return notation.state_to_json(state)

    def state_from_json(self, data: Any) -> RegieState:
        return notation.state_from_json(data)

    def move_to_json(self, move: RegieMove) -> dict[str, Any]:
        return notation.move_to_json(move)

    def move_from_json(self, data: Any) -> RegieMove:
        return notation.move_from_json(data)

    # -- for the conformance suite --------------------------------------------------

    def random_move(self, state: RegieState, rng: random.Random) -> RegieMove:
        """Any well-formed move: columns and levels one beyond the frame, box positions
        0 to 4, seats 0 to 2, and now and then something seen."""
        player = rng.choice((0, 0, 1, 1, 2))
        roll = rng.random()
        seen = None
        if rng.random() < 0.1:
            seen = Seen(
                through=rng.choice((None, True, False)),
                exits=rng.choice(
                    (None, (), (SeenExit("box", column=rng.randrange(state.kit.columns)),))
                ),
            )
        if roll < 0.05:
            return Start(rng.randrange(3))
        if roll < 0.4:
            return Insert(player, rng.randrange(-1, state.kit.columns + 1), seen)
        if roll < 0.85:
            return Slide(player, rng.randrange(0, LEVELS + 2), rng.choice((-1, 1)), seen)
        return MoveBox(player, rng.randrange(0, BOX_POSITIONS + 2))


#: German words: the colours as players' names and as adjectives' stems; the sides.
_COLOUR_DE = {"red": "Rot", "blue": "Blau"}
_ADJECTIVE_DE = {"red": "rot", "blue": "blau"}
_SIDE_DE = {"left": "links", "right": "rechts"}


def _german(lang: str) -> bool:
    """Whether ``lang`` is German; ``ValueError`` naming it unless it is "en" or "de"."""
    if lang not in ("en", "de"):
        raise ValueError(f"unknown lang {lang!r}: the rules speak 'en' and 'de'")
    return lang == "de"


REGIE = Regie()
