"""Uräus's rules (PHARAO, H. A. Renz), as ``rulebooks/uraeus.de.txt`` and NOTES.md §5 read them.

A turn is two moves: chance rolls the die (``Roll``), then the seat moves one piece by
exactly the roll (``Advance``) or, when nothing can move, passes. A capture may add a
decision for the captured piece's owner (``Return``). The legal moves for a roll are the
distinct resulting positions, each reached by one path (which piece, and at which step
it turns). Rule ids and their words are in ``rules/catalogue/uraeus.toml``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any, NamedTuple

from rules.core import CHANCE, Game, Outcome, View, Violation
from rules.uraeus import notation, words
from rules.uraeus.kit import UraeusKit, kit_from_json
from rules.uraeus.model import (
    DIE_FACES,
    TAIL,
    Advance,
    Pass,
    Return,
    Roll,
    Stone,
    UraeusMove,
    UraeusState,
)
from rules.uraeus.options import OPTION_SPECS
from rules.uraeus.track import lift, place, settle, walk

SIXTH = Fraction(1, 6)
#: A random player weighs a move by this base to the power of the fields it gains.
PROGRESS_BASE = 1.5


class Result(NamedTuple):
    """A move applied: the new state and the rule situations it created."""

    state: UraeusState
    events: tuple[str, ...]


class Uraeus(Game[UraeusState, UraeusMove, UraeusKit]):
    name = "uraeus"
    title = "Uräus"
    state_type = UraeusState
    min_players = 2
    max_players = 4
    option_specs = OPTION_SPECS
    game_over_rule = "uraeus.game-over"
    turn_rule = "uraeus.turn-order"
    chance_rule = "uraeus.die-first"

    # -- set-up ---------------------------------------------------------------------

    def new(
        self,
        players: int,
        options: Mapping[str, Any] | None,
        kit: UraeusKit,
        view: View = View.FULL,
    ) -> UraeusState:
        self.check_players(players)
        if not isinstance(kit, UraeusKit):
            raise TypeError(f"uraeus: expected an UraeusKit, got {kit!r}")
        return UraeusState(
            kit=kit,
            options=self.options(options),
            view=View(view),
            players=players,
            contenders=tuple(range(players)),
            rolloff=(),
            turn=0,
            roll=None,
            track=((),) * (kit.tail + 1),
            border=(kit.per_player,) * players,
            home=(0,) * players,
        )

    def kit_from_json(self, data: Any) -> UraeusKit:
        return kit_from_json(data)

    def kit_to_json(self, kit: UraeusKit) -> dict[str, Any]:
        return kit.to_json()

    # -- whose turn -----------------------------------------------------------------

    def seats(self, state: UraeusState) -> int:
        return state.players

    def to_act(self, state: UraeusState):
        if len(state.finished) >= state.players - 1:
            return None
        if state.contenders:
            return CHANCE
        if state.pending is not None:
            return state.pending.owner
        if state.roll is None:
            return CHANCE
        return state.turn

    def seat_colour(self, state: UraeusState, seat: int) -> str | None:
        return state.colour(seat)

    def chance_name(self, state: UraeusState, lang: str = "en") -> str:
        return words.chance_name(state, lang)

    def chance_outcomes(self, state: UraeusState) -> tuple[tuple[Roll, Fraction], ...]:
        if self.to_act(state) is not CHANCE:
            return ()
        return tuple((Roll(face), SIXTH) for face in DIE_FACES)

    def legal_moves(self, state: UraeusState) -> tuple[UraeusMove, ...]:
        actor = self.to_act(state)
        if actor is None or actor is CHANCE:
            return ()
        if state.pending is not None:
            return (Return(actor, True), Return(actor, False))
        choices = self._choices(state)
        return tuple(choices) if choices else (Pass(actor),)

    # -- the moves of a roll --------------------------------------------------------

    def _sources(self, state: UraeusState, seat: int) -> list[int | None]:
        """Where ``seat`` can take a piece from: the border first, then field by field."""
        sources: list[int | None] = [None] if state.border[seat] else []
        for field, stones in enumerate(state.track):
            if field == 0:
                if any(stone.owner == seat for stone in stones):
                    sources.append(0)
            elif stones and stones[-1].owner == seat:
                sources.append(field)
        return sources

    def _due(self, state: UraeusState, seat: int) -> set[int]:
        """Fields whose piece ``seat`` must move now if it can: the upper piece of every
        double (it lasts one round) and every piece on a goose field."""
        due = set()
        for field, stones in enumerate(state.track):
            if field == 0 or not stones or stones[-1].owner != seat:
                continue
            if len(stones) == 2 or field in state.kit.goose:
                due.add(field)
        return due

    def _choices(self, state: UraeusState) -> dict[Advance, Result]:
        """The legal moves for the roll: one path for each distinct resulting position,
        restricted to the pieces that must move when any of them can. Cached, since
        listing the moves, checking one and playing it all need them."""
        return _choices(self, state)

    # -- legality -------------------------------------------------------------------

    def rule_violation(self, state: UraeusState, move: UraeusMove) -> Violation | None:
        if isinstance(move, Roll):
            if type(move.face) is not int or move.face not in DIE_FACES:
                return Violation("uraeus.die-face", f"a die shows 1 to 6, not {move.face!r}")
            return None
        if state.pending is not None and not isinstance(move, Return):
            return Violation(
                "uraeus.capture-return",
                f"seat {state.pending.owner}'s captured piece waits on field "
                f"{state.pending.field}: its owner decides first whether it engages",
            )
        if isinstance(move, Return):
            if state.pending is None:
                return Violation("uraeus.capture-return", "no captured piece is waiting")
            if type(move.engage) is not bool:
                return Violation("uraeus.capture-return", "engage is true or false")
            return None
        if isinstance(move, Pass):
            choices = self._choices(state)
            if choices:
                example = self.describe(state, next(iter(choices)))
                return Violation("uraeus.pass", f"a piece can move, for example: {example}")
            return None
        if isinstance(move, Advance):
            return self._advance_violation(state, move)
        raise TypeError(f"not an Uräus move: {move!r}")

    def _advance_violation(self, state: UraeusState, move: Advance) -> Violation | None:
        roll = state.roll
        if move.turn is not None and (type(move.turn) is not int or not 1 <= move.turn <= roll):
            return Violation(
                "uraeus.turn-step",
                f"the turn is one of the {roll} steps of this move (1 to {roll}), "
                f"not {move.turn!r}",
            )
        if move in self._choices(state):
            return None
        src, seat = move.src, move.player
        if src is None:
            if not state.border[seat]:
                return Violation("uraeus.no-entry", "no piece of yours is left on the border")
        else:
            stones = state.track[src] if 0 <= src < state.kit.tail else ()
            mine = [stone for stone in stones if stone.owner == seat]
            if not mine:
                return Violation("uraeus.no-piece", f"no piece of yours stands on field {src}")
            if src != 0 and stones[-1].owner != seat:
                return Violation(
                    "uraeus.lower-piece",
                    f"your piece on field {src} is the lower one of a double and cannot move",
                )
        result = self._advance(state, move)
        if isinstance(result, Violation):
            return result
        due = self._due(state, seat)
        if src not in due:
            owed = [m for m in self._choices(state) if m.src in due]
            if owed:
                fields = sorted({m.src for m in owed})
                if any(len(state.track[f]) == 2 for f in fields):
                    return Violation(
                        "uraeus.double-one-round",
                        f"a double lasts one round: the upper piece on field "
                        f"{_fields(f for f in fields if len(state.track[f]) == 2)} must move now",
                    )
                return Violation(
                    "uraeus.goose-field",
                    f"a piece on a goose field must move at once: the piece on field "
                    f"{_fields(fields)} must move now",
                )
        return None

    # -- play -----------------------------------------------------------------------

    def apply(self, state: UraeusState, move: UraeusMove) -> UraeusState:
        return self._result(state, move).state

    def _result(self, state: UraeusState, move: UraeusMove) -> Result:
        if isinstance(move, Roll):
            return self._roll(state, move.face)
        if isinstance(move, Advance):
            result = self._choices(state).get(move) or self._advance(state, move)
            if isinstance(result, Violation):  # pragma: no cover - play checked it
                raise AssertionError(result)
            return result
        if isinstance(move, Pass):
            return Result(_evolve(state, turn=self._next_seat(state), roll=None), ("pass",))
        if isinstance(move, Return):
            track = list(state.track)
            events: list[str] = ["return-engage" if move.engage else "return-decline"]
            pending = settle(
                track,
                state.kit,
                state.pending.owner,
                state.pending.field,
                state.options["chain"],
                move.engage,
                events,
            )
            after = _evolve(state, track=tuple(track), pending=pending)
            if pending is None:
                after = _evolve(after, turn=self._next_seat(state), roll=None)
            return Result(after, tuple(events))
        raise TypeError(f"not an Uräus move: {move!r}")

    def _roll(self, state: UraeusState, face: int) -> Result:
        if not state.contenders:
            return Result(_evolve(state, roll=face), ("roll",))
        rolls = (*state.rolloff, face)
        if len(rolls) < len(state.contenders):
            return Result(_evolve(state, rolloff=rolls), ("rolloff",))
        best = max(rolls)
        tied = tuple(seat for seat, f in zip(state.contenders, rolls, strict=True) if f == best)
        if len(tied) > 1:  # the tied seats roll again
            return Result(_evolve(state, contenders=tied, rolloff=()), ("rolloff", "rolloff-tie"))
        return Result(_evolve(state, contenders=(), rolloff=(), turn=tied[0]), ("rolloff",))

    def _advance(self, state: UraeusState, move: Advance) -> Result | Violation:
        """Walk the move's path and build the resulting state, or name the rule the path
        breaks. The caller has checked the source field and the turn step."""
        kit, seat, src = state.kit, move.player, move.src
        track = list(state.track)
        border = list(state.border)
        events = ["enter" if src is None else "advance"]
        if src is None:
            mover, start = Stone(seat, TAIL), 0
            border[seat] -= 1
        else:
            mover, start = lift(track, src, seat), src
        was_upper = src is not None and src != 0 and len(state.track[src]) == 2
        past_head = state.options["past_head"]
        path = walk(track, kit, start, mover.facing, state.roll, move.turn, past_head)
        if isinstance(path, Violation):
            return path
        if path.pips_lost:
            if move.turn is not None and move.turn > path.steps:
                return Violation(
                    "uraeus.turn-step",
                    f"the piece stops on the head field at step {path.steps}; "
                    f"it cannot turn at step {move.turn}",
                )
            for turn in (None, *range(1, state.roll + 1)):
                other = walk(track, kit, start, mover.facing, state.roll, turn, past_head)
                if not isinstance(other, Violation) and not other.pips_lost:
                    return Violation(
                        "uraeus.past-head",
                        f"this piece can use all {state.roll} steps on the track; it goes "
                        "past the head field only when driven back",
                    )
        if move.turn is not None:
            events.append("turn")
            straight = walk(track, kit, start, mover.facing, state.roll, None, "stop")
            if isinstance(straight, Violation):
                events.append("drive")  # no way to complete the roll without turning round
        if src is not None and src in kit.goose:
            events.append("goose")
        renewal = was_upper and path.end == src and path.occupied
        if renewal:
            if state.options["renewal"] == "once" and mover.renewed:
                return Violation(
                    "uraeus.renewal-once",
                    f"the double on field {src} was kept once already and must now be dissolved",
                )
            events.append("stay" if state.roll == 1 else "reoccupy")
        elif path.occupied:
            events.append("double")
        if path.pips_lost:
            events.append("drive-past-head")

        home = list(state.home)
        finished = state.finished
        pending = None
        if path.home:
            events.append("home")
            home[seat] += 1
            if home[seat] == kit.per_player:
                finished = (*finished, seat)
        elif path.left_track:
            border[seat] += 1
        else:
            place(track, Stone(seat, path.facing, renewed=renewal), path)
            if path.captured is not None:
                events.append("capture")
                back = kit.return_field(path.end)
                pending = settle(
                    track, kit, path.captured.owner, back, state.options["chain"], None, events
                )
        if tuple(track) == state.track and tuple(border) == state.border and not path.home:
            return Violation(
                "uraeus.must-move",
                "this path brings the piece back to where it stood, as it stood",
            )
        after = _evolve(
            state,
            track=tuple(track),
            border=tuple(border),
            home=tuple(home),
            finished=finished,
            pending=pending,
            roll=None,
            turn=state.turn if pending else _next_seat(state.turn, state.players, finished),
        )
        return Result(after, tuple(events))

    def _next_seat(self, state: UraeusState) -> int:
        return _next_seat(state.turn, state.players, state.finished)

    # -- reports --------------------------------------------------------------------

    def scores(self, state: UraeusState) -> tuple[int, ...]:
        """Pieces brought home, by seat."""
        return state.home

    def score_bounds(self, state: UraeusState) -> tuple[int, int]:
        return (0, state.kit.per_player)

    def outcome(self, state: UraeusState) -> Outcome | None:
        if len(state.finished) < state.players - 1:
            return None
        rest = tuple(seat for seat in range(state.players) if seat not in state.finished)
        ranking = tuple((seat,) for seat in state.finished) + ((rest,) if rest else ())
        winner = state.finished[0]
        detail = f"seat {winner} ({state.colour(winner)}) brought all pieces home first"
        return Outcome((winner,), "uraeus.all-home", detail, ranking)

    def situations(self, state: UraeusState, move: UraeusMove) -> tuple[str, ...]:
        return self._result(state, move).events

    def describe(self, state: UraeusState, move: UraeusMove, lang: str = "en") -> str:
        """The move in words (``rules/uraeus/words.py``), English or German."""
        words.german(lang)  # an unknown lang is refused before any work
        if isinstance(move, Advance):
            result = self._result(state, move)
            return words.describe(state, move, result.state, result.events, lang)
        return words.describe(state, move, None, (), lang)

    def diagram(self, state: UraeusState) -> str:
        lines = []
        for field, stones in enumerate(state.track):
            if stones:
                # ">" faces the tail, "<" the head; a double lists its lower piece first.
                names = [
                    f"{state.colour(s.owner)}{'>' if s.facing == TAIL else '<'}" for s in stones
                ]
                if field and len(names) == 2:
                    names[1] += " on top"
                lines.append(f"{field:>3}: {', '.join(names)}")
        for seat in range(state.players):
            lines.append(
                f"{state.colour(seat)} (seat {seat}): border {state.border[seat]}, "
                f"home {state.home[seat]}"
            )
        lines.append(self.where(state))
        return "\n".join(lines)

    def where(self, state: UraeusState) -> str:
        actor = self.to_act(state)
        if actor is None:
            return "uraeus: game over"
        if actor is CHANCE:
            return f"uraeus: waiting for {self.chance_name(state)}"
        if state.pending is not None:
            return f"uraeus: seat {actor} decides on its captured piece on {state.pending.field}"
        return f"uraeus: seat {actor} to move with a {state.roll}"

    # -- notation -------------------------------------------------------------------

    def state_to_json(self, state: UraeusState) -> dict[str, Any]:
        return notation.state_to_json(state)

    def state_from_json(self, data: Any) -> UraeusState:
        return notation.state_from_json(data)

    def move_to_json(self, move: UraeusMove) -> dict[str, Any]:
        return notation.move_to_json(move)

    def move_from_json(self, data: Any) -> UraeusMove:
        return notation.move_from_json(data)

    # -- for simulation -------------------------------------------------------------

    def playout_weights(
        self, state: UraeusState, moves: tuple[UraeusMove, ...]
    ) -> tuple[float, ...] | None:
        """Players mostly run their pieces on, and turn round or capture when it pays;
        uniform play would choose a turning path for most moves and seldom finish a race.
        A move weighs ``PROGRESS_BASE`` to the power of the race it gains: the fields the
        mover's pieces advance, less what the opponents' pieces gain."""
        if state.pending is not None or not isinstance(moves[0], Advance):
            return None
        choices = self._choices(state)
        before = _progress(state)
        weights = []
        for move in moves:
            after = _progress(choices[move].state)
            gain = after[move.player] - before[move.player]
            gain -= sum(after[s] - before[s] for s in range(state.players) if s != move.player)
            weights.append(PROGRESS_BASE ** max(-12, min(12, gain)))
        return tuple(weights)

    # -- for the conformance suite --------------------------------------------------

    def random_move(self, state: UraeusState, rng: random.Random) -> UraeusMove:
        """Any well-formed move: faces 0 to 7, seats up to one beyond the table, any
        field, turn steps from 0 to one past the roll."""
        player = rng.randrange(state.players + 1)
        roll = rng.random()
        if roll < 0.15:
            return Roll(rng.randrange(8))
        if roll < 0.85:
            occupied = [f for f, stones in enumerate(state.track) if stones]
            choice = rng.random()
            if choice < 0.15:
                src = None
            elif occupied and choice < 0.8:
                src = rng.choice(occupied)
            else:
                src = rng.randrange(state.kit.tail + 2)
            top = (state.roll or 6) + 1
            turn = None if rng.random() < 0.4 else rng.randrange(top + 1)
            if occupied and src in occupied and rng.random() < 0.7:
                player = state.track[src][-1].owner
            return Advance(player, src, turn)
        if roll < 0.92:
            return Pass(player)
        return Return(player, rng.random() < 0.5)


def _next_seat(turn: int, players: int, finished: tuple[int, ...]) -> int:
    """The next seat clockwise after ``turn`` that still plays."""
    for step in range(1, players + 1):
        seat = (turn + step) % players
        if seat not in finished:
            return seat
    return turn


def _evolve(state: UraeusState, **changes: Any) -> UraeusState:
    """A copy of ``state`` with ``changes``: ``dataclasses.replace`` without its field
    introspection, which dominated the cost of listing moves. UraeusState has no
    derived cached fields, so copying its fields is all a copy needs."""
    after = object.__new__(UraeusState)
    after.__dict__.update(state.__dict__)
    after.__dict__.update(changes)
    return after


@lru_cache(maxsize=256)
def _choices(game: Uraeus, state: UraeusState) -> dict[Advance, Result]:
    seat = state.turn
    due = game._due(state, seat)
    found: dict[UraeusState, tuple[Advance, Result]] = {}
    forced: dict[UraeusState, tuple[Advance, Result]] = {}
    for src in game._sources(state, seat):
        for turn in (None, *range(1, state.roll + 1)):
            move = Advance(seat, src, turn)
            result = game._advance(state, move)
            if isinstance(result, Violation):
                continue
            found.setdefault(result.state, (move, result))
            if src in due:
                forced.setdefault(result.state, (move, result))
    return dict((forced or found).values())


def _progress(state: UraeusState) -> list[int]:
    """How far each seat's pieces have come: their fields, a piece home counting one past
    the tail and a piece on the border one before the head."""
    progress = [
        (state.kit.tail + 1) * home - border
        for home, border in zip(state.home, state.border, strict=True)
    ]
    for field, stones in enumerate(state.track):
        for stone in stones:
            progress[stone.owner] += field
    if state.pending is not None:
        progress[state.pending.owner] += state.pending.field
    return progress


def _fields(fields) -> str:
    return " or ".join(str(f) for f in fields)


URAEUS = Uraeus()
