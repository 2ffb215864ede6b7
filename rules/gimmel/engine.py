"""Gimmel's rules (Hexagames 1983), as ``rulebooks/gimmel.de.txt`` and NOTES.md §2 read them.

Rule ids and their words are in ``rules/catalogue/gimmel.toml``.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

from rules.core import CHANCE, Game, Outcome, View, Violation
from rules.gimmel import notation
from rules.gimmel.kit import GimmelKit, kit_from_json
from rules.gimmel.model import (
    COLOURS,
    DISTANCE,
    KINDS,
    LETTER,
    OFFSETS,
    VALUE,
    ClaimDraw,
    DrawLots,
    GimmelMove,
    GimmelState,
    Kind,
    Leap,
    Pass,
    Piece,
    Place,
)
from rules.gimmel.notation import move_from_json, move_to_json
from rules.gimmel.options import OPTION_SPECS, terms
from rules.grid import Square, grid

HALF = Fraction(1, 2)
MOVE_RULE = {
    Kind.BEETLE: "gimmel.beetle-move",
    Kind.CAT: "gimmel.cat-move",
    Kind.FALCON: "gimmel.falcon-move",
}


@lru_cache(maxsize=32)
def _leap_table(columns: int, rows: int) -> dict[Kind, tuple[tuple[int, ...], ...]]:
    board = grid(columns, rows)
    return {kind: board.leaps(OFFSETS[kind]) for kind in KINDS}


class Gimmel(Game[GimmelState, GimmelMove, GimmelKit]):
    name = "gimmel"
    title = "Gimmel"
    state_type = GimmelState
    min_players = 2
    max_players = 2
    option_specs = OPTION_SPECS
    game_over_rule = "gimmel.game-over"
    turn_rule = "gimmel.turn-order"
    chance_rule = "gimmel.colours-by-lot"

    # -- set-up ---------------------------------------------------------------------

    def new(
        self,
        players: int,
        options: Mapping[str, Any] | None,
        kit: GimmelKit,
        view: View = View.FULL,
    ) -> GimmelState:
        self.check_players(players)
        resolved = self.options(options)
        if not isinstance(kit, GimmelKit):
            raise TypeError(f"gimmel: expected a GimmelKit, got {kit!r}")
        count = terms(resolved).per_kind
        return GimmelState(
            kit=kit,
            options=resolved,
            view=View(view),
            white=None,
            board=(None,) * (kit.columns * kit.rows),
            reserve=((count,) * 3, (count,) * 3),  # type: ignore[arg-type]
        )

    def kit_from_json(self, data: Any) -> GimmelKit:
        return kit_from_json(data)

    def kit_to_json(self, kit: GimmelKit) -> dict[str, Any]:
        return kit.to_json()

    # -- whose turn -----------------------------------------------------------------

    def to_act(self, state: GimmelState):
        if state.white is None:
            return CHANCE
        if self.outcome(state) is not None:
            return None
        return state.white if state.ply % 2 == 0 else 1 - state.white

    def seats(self, state: GimmelState) -> int:
        return 2

    def seat_colour(self, state: GimmelState, seat: int) -> str | None:
        if state.white is None:
            return None  # before the colour lot
        return COLOURS[0] if seat == state.white else COLOURS[1]

    def chance_name(self, state: GimmelState, lang: str = "en") -> str:
        return "die Auslosung der Farben" if _german(lang) else "the colour lot"

    def chance_outcomes(self, state: GimmelState) -> tuple[tuple[DrawLots, Fraction], ...]:
        if self.to_act(state) is not CHANCE:
            return ()
        return ((DrawLots(white=0), HALF), (DrawLots(white=1), HALF))

    def legal_moves(self, state: GimmelState) -> tuple[GimmelMove, ...]:
        seat = self.to_act(state)
        if seat is None or seat is CHANCE:
            return ()
        moves: list[GimmelMove] = self._actions(state, seat)
        if not moves:
            moves.append(Pass(seat))
        if self._draw_claimable(state):
            moves.extend(ClaimDraw(player) for player in (0, 1))
        return tuple(moves)

    def _actions(self, state: GimmelState, seat: int) -> list[GimmelMove]:
        """Every placement and leap for ``seat``, in board order."""
        squares = state.grid.squares
        board = state.board
        moves: list[GimmelMove] = []
        empty = [i for i, piece in enumerate(board) if piece is None]
        for k, kind in enumerate(KINDS):
            if state.reserve[seat][k]:
                moves.extend(Place(seat, kind, squares[i]) for i in empty)
        table = _leap_table(state.kit.columns, state.kit.rows)
        for i, piece in enumerate(board):
            if piece is None or piece.owner != seat:
                continue
            for j in table[piece.kind][i]:
                target = board[j]
                if target is None or target.owner != seat:
                    moves.append(Leap(seat, squares[i], squares[j]))
        return moves

    # -- legality -------------------------------------------------------------------

    def rule_violation(self, state: GimmelState, move: GimmelMove) -> Violation | None:
        if isinstance(move, DrawLots):
            if type(move.white) is not int:  # True == 1 in Python; the notation has 0 or 1
                return Violation(self.chance_rule, f"the lot names a seat, not {move.white!r}")
            return None  # the core checks that it is one of the listed outcomes
        if isinstance(move, Place):
            return self._place_violation(state, move)
        if isinstance(move, Leap):
            return self._leap_violation(state, move)
        if isinstance(move, ClaimDraw):
            if state.options["draw"] != "claim":
                return Violation(
                    "gimmel.draw-claim", "draws are automatic with these options; none to claim"
                )
            if not self._draw_claimable(state):
                t = state.terms
                return Violation(
                    "gimmel.draw-claim",
                    f"a draw needs both players on at least {t.draw_minimum} points and a lead "
                    f"of at most {t.draw_margin}; the scores are {_scores(state)}",
                )
            return None
        if isinstance(move, Pass):
            if self._actions(state, move.player):
                return Violation("gimmel.pass", "a player who can place or leap may not pass")
            return None
        raise TypeError(f"not a Gimmel move: {move!r}")

    def _place_violation(self, state: GimmelState, move: Place) -> Violation | None:
        if not state.grid.contains(move.to):
            return Violation("gimmel.off-board", f"{move.to} is not on the board")
        if not state.reserve[move.player][KINDS.index(move.kind)]:
            return Violation("gimmel.no-reserve", f"no {move.kind.value} left to place")
        occupant = state.board[state.grid.index(move.to)]
        if occupant is not None:
            return Violation(
                "gimmel.place-on-empty",
                f"{move.to} holds a {_name(state, occupant)}; a piece is set on an empty square",
            )
        return None

    def _leap_violation(self, state: GimmelState, move: Leap) -> Violation | None:
        for square in (move.src, move.dst):
            if not state.grid.contains(square):
                return Violation("gimmel.off-board", f"{square} is not on the board")
        piece = state.board[state.grid.index(move.src)]
        if piece is None:
            return Violation("gimmel.no-piece", f"no piece stands on {move.src}")
        if piece.owner != move.player:
            return Violation(
                "gimmel.not-own-piece",
                f"the {_name(state, piece)} on {move.src} belongs to the opponent",
            )
        offset = (move.dst.col - move.src.col, move.dst.row - move.src.row)
        if offset not in OFFSETS[piece.kind]:
            reach = max(abs(offset[0]), abs(offset[1]))
            if reach < DISTANCE[piece.kind]:
                return Violation(
                    "gimmel.full-distance",
                    f"a {piece.kind.value} leaps the full {DISTANCE[piece.kind]} squares; "
                    f"{move.src} to {move.dst} is {reach}",
                )
            return Violation(
                MOVE_RULE[piece.kind],
                f"a {piece.kind.value} cannot leap from {move.src} to {move.dst}",
            )
        target = state.board[state.grid.index(move.dst)]
        if target is not None and target.owner == move.player:
            return Violation("gimmel.own-piece", f"{move.dst} holds your own {target.kind.value}")
        return None

    def _draw_claimable(self, state: GimmelState) -> bool:
        return state.options["draw"] == "claim" and _draw_condition(state)

    # -- play -----------------------------------------------------------------------

    def apply(self, state: GimmelState, move: GimmelMove) -> GimmelState:
        if isinstance(move, DrawLots):
            return replace(state, white=move.white)
        if isinstance(move, Place):
            board = list(state.board)
            board[state.grid.index(move.to)] = Piece(move.player, move.kind)
            reserve = [list(r) for r in state.reserve]
            reserve[move.player][KINDS.index(move.kind)] -= 1
            return replace(
                state,
                board=tuple(board),
                reserve=(tuple(reserve[0]), tuple(reserve[1])),  # type: ignore[arg-type]
                ply=state.ply + 1,
                passes=0,
            )
        if isinstance(move, Leap):
            board = list(state.board)
            src, dst = state.grid.index(move.src), state.grid.index(move.dst)
            board[dst], board[src] = board[src], None
            return replace(state, board=tuple(board), ply=state.ply + 1, passes=0)
        if isinstance(move, ClaimDraw):
            return replace(state, draw_claimed_by=move.player)
        if isinstance(move, Pass):
            return replace(state, ply=state.ply + 1, passes=state.passes + 1)
        raise TypeError(f"not a Gimmel move: {move!r}")

    # -- reports --------------------------------------------------------------------

    def scores(self, state: GimmelState) -> tuple[int, int]:
        return state.scores

    def score_bounds(self, state: GimmelState) -> tuple[int, int]:
        per_kind = state.terms.per_kind
        return (0, per_kind * sum(VALUE.values()))

    def outcome(self, state: GimmelState) -> Outcome | None:
        t = state.terms
        scores = state.scores
        best = max(scores)
        # Reaching the target wins even where the draw clause would also hold: the
        # target is the game's goal ("Gewinner ist, wer als erster 30 Punkte gesammelt hat").
        if best >= t.target:
            winners = tuple(seat for seat in (0, 1) if scores[seat] == best)
            losers = tuple(seat for seat in (0, 1) if seat not in winners)
            ranking = (winners, losers) if losers else (winners,)
            return Outcome(winners, "gimmel.target", f"{best} points of {t.target}", ranking)
        if state.draw_claimed_by is not None:
            detail = f"claimed by seat {state.draw_claimed_by}"
            return Outcome((), "gimmel.draw-claimed", detail, ((0, 1),))
        if state.options["draw"] == "automatic" and _draw_condition(state):
            return Outcome((), "gimmel.draw", f"scores {scores[0]}-{scores[1]}", ((0, 1),))
        if state.passes >= 2:
            # Neither can place or leap, so the position can never change again.
            detail = f"neither player can act; scores {scores[0]}-{scores[1]}"
            return Outcome((), "gimmel.stalemate", detail, ((0, 1),))
        return None

    def situations(self, state: GimmelState, move: GimmelMove) -> tuple[str, ...]:
        if isinstance(move, Leap):
            captures = state.board[state.grid.index(move.dst)] is not None
            return ("leap", "capture") if captures else ("leap",)
        return (move_to_json(move)["type"],)

    def describe(self, state: GimmelState, move: GimmelMove, lang: str = "en") -> str:
        """The move in words, English or German (the rulebook's setzen, schlagen, Käfer,
        Katzengöttin, Falke, Weiß and Schwarz; "springt" for a leap)."""
        de = _german(lang)
        if isinstance(move, DrawLots):
            if de:
                return f"Das Los teilt Platz {move.white} Weiß zu."
            return f"The lot gives White to seat {move.white}."
        who = _seat(state, move.player, de)
        if isinstance(move, Place):
            if de:
                return f"{who} setzt {_KIND_DE[move.kind][0]} auf {move.to}."
            return f"{who} places a {move.kind.value} on {move.to}."
        if isinstance(move, Leap):
            kind = state.board[state.grid.index(move.src)].kind
            target = state.board[state.grid.index(move.dst)]
            if de:
                leap = f"{who} springt mit {_KIND_DE[kind][1]} von {move.src} nach {move.dst}"
                if target is not None:
                    caught = _name_de(state, target)
                    return f"{leap} und schlägt {caught} (+{VALUE[target.kind]})."
                return f"{leap}."
            if target is not None:
                return (
                    f"{who}'s {kind.value} leaps {move.src}-{move.dst} and captures the "
                    f"{_name(state, target)} (+{VALUE[target.kind]})."
                )
            return f"{who}'s {kind.value} leaps {move.src}-{move.dst}."
        if isinstance(move, ClaimDraw):
            return f"{who} beansprucht das Unentschieden." if de else f"{who} claims the draw."
        if de:
            return f"{who} kann weder setzen noch springen und passt."
        return f"{who} cannot place or leap and passes."

    def diagram(self, state: GimmelState) -> str:
        """The board from White's side (row 1 at the bottom): White upper case."""
        columns, rows = state.kit.columns, state.kit.rows
        lines = []
        for row in range(rows - 1, -1, -1):
            cells = []
            for col in range(columns):
                piece = state.board[row * columns + col]
                if piece is None:
                    cells.append(".")
                else:
                    letter = LETTER[piece.kind]
                    cells.append(letter.upper() if piece.owner == state.white else letter)
            lines.append(f"{row + 1:>2} " + " ".join(cells))
        lines.append("   " + " ".join("abcdefghijklmnopqrstuvwxyz"[:columns]))
        for seat in (0, 1):
            reserve = ", ".join(
                f"{count} {kind.value}"
                for kind, count in zip(KINDS, state.reserve[seat], strict=True)
            )
            lines.append(f"{_seat(state, seat)}: {state.scores[seat]} points; reserve {reserve}")
        return "\n".join(lines)

    def where(self, state: GimmelState) -> str:
        actor = self.to_act(state)
        if actor is None:
            turn = "game over"
        elif actor is CHANCE:
            turn = "before the colour lot"
        else:
            turn = f"{_seat(state, actor)} to act"
        return f"gimmel ply {state.ply}, {turn}, scores {_scores(state)}"

    # -- notation -------------------------------------------------------------------

    def state_to_json(self, state: GimmelState) -> dict[str, Any]:
        return notation.state_to_json(state)

    def state_from_json(self, data: Any) -> GimmelState:
        return notation.state_from_json(data)

    def move_to_json(self, move: GimmelMove) -> dict[str, Any]:
        return move_to_json(move)

    def move_from_json(self, data: Any) -> GimmelMove:
        return move_from_json(data)

    # -- for the conformance suite --------------------------------------------------

    def random_move(self, state: GimmelState, rng: random.Random) -> GimmelMove:
        """Any well-formed move: every type, seats 0 to 2 (one beyond the table), squares
        up to one past the board's edge."""
        columns, rows = state.kit.columns, state.kit.rows

        def square() -> Square:
            return Square(rng.randrange(columns + 1), rng.randrange(rows + 1))

        player = rng.choice((0, 0, 1, 1, 2))
        roll = rng.random()
        if roll < 0.1:
            return DrawLots(white=player)
        if roll < 0.4:
            return Place(player, rng.choice(KINDS), square())
        if roll < 0.9:
            occupied = [i for i, piece in enumerate(state.board) if piece is not None]
            if occupied and rng.random() < 0.8:
                src = state.grid.squares[rng.choice(occupied)]
                dst = Square(
                    max(0, src.col + rng.randint(-3, 3)), max(0, src.row + rng.randint(-3, 3))
                )
                return Leap(player, src, dst)
            return Leap(player, square(), square())
        if roll < 0.95:
            return ClaimDraw(player)
        return Pass(player)


def _draw_condition(state: GimmelState) -> bool:
    t = state.terms
    a, b = state.scores
    return min(a, b) >= t.draw_minimum and abs(a - b) <= t.draw_margin


def _seat(state: GimmelState, seat: int, de: bool = False) -> str:
    colour = state.colour(seat)
    if de:
        return f"Platz {seat}" if colour is None else f"{_COLOUR_DE[colour]} (Platz {seat})"
    return f"seat {seat}" if colour is None else f"{colour.capitalize()} (seat {seat})"


def _scores(state: GimmelState) -> str:
    return f"{state.scores[0]}-{state.scores[1]}"


def _name(state: GimmelState, piece: Piece) -> str:
    colour = state.colour(piece.owner) or f"seat {piece.owner}'s"
    return f"{colour} {piece.kind.value}"


#: German words: each colour as a player's name and as an adjective's stem; each kind
#: as in "setzt einen Käfer", "mit dem Käfer", "schlägt den Käfer" and "den weißen Käfer".
_COLOUR_DE = {"white": "Weiß", "black": "Schwarz"}
_ADJECTIVE_DE = {"white": "weiß", "black": "schwarz"}
_KIND_DE = {
    Kind.BEETLE: ("einen Käfer", "dem Käfer", "den Käfer", "den {}en Käfer"),
    Kind.CAT: ("eine Katzengöttin", "der Katzengöttin", "die Katzengöttin", "die {}e Katzengöttin"),
    Kind.FALCON: ("einen Falken", "dem Falken", "den Falken", "den {}en Falken"),
}


def _name_de(state: GimmelState, piece: Piece) -> str:
    """A piece in the accusative: "den schwarzen Falken", "den Falken von Platz 1"."""
    colour = state.colour(piece.owner)
    if colour is None:
        return f"{_KIND_DE[piece.kind][2]} von Platz {piece.owner}"
    return _KIND_DE[piece.kind][3].format(_ADJECTIVE_DE[colour])


def _german(lang: str) -> bool:
    """Whether ``lang`` is German; ``ValueError`` naming it unless it is "en" or "de"."""
    if lang not in ("en", "de"):
        raise ValueError(f"unknown lang {lang!r}: the rules speak 'en' and 'de'")
    return lang == "de"


GIMMEL = Gimmel()
