"""The tracker: what a claim from a table's sources means, in the rules' words.

A source (the die, the Regie sensors, the camera, a tablet) never changes a game; it
makes a *claim*: the moves that would explain what it saw, or, for a camera, a test of
which positions look like what it saw. ``explain`` asks the rules and gives a *verdict*,
as DESIGN.md's "From observation to move" describes:

- one legal move explains the claim: play it;
- several do: ask the table which one (a question on the tablet);
- none does: flag the change with the rule the claimed move breaks, and hold the last
  legal state until the table is put right or a player overrides on the tablet;
- the position is what it was before the latest move of the turn: a take-back, not a
  move (a turn ends when a player taps it or the next player's action is seen);
- the position is unchanged: the table is put right (a held flag clears).

``explain`` is pure: the table (``companion.tables``) journals the claim and applies the
verdict under its lock.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rules import CHANCE
from rules.core import Game, Move, PlayerMove, Violation

#: The flag raised when what a camera saw is no single move; a companion rule id, listed
#: in the catalogue beside the games' rules.
UNEXPLAINED = "companion.unexplained"
#: The companion's own rules, in English and German (the games' are in the catalogue).
COMPANION_RULES = {
    UNEXPLAINED: (
        "What was seen on the table is no single legal move: put the table right, or "
        "tell the companion what happened.",
        "Was auf dem Tisch zu sehen ist, ist kein einzelner erlaubter Zug: den Tisch "
        "richtigstellen oder dem Begleiter sagen, was geschah.",
    ),
}


@dataclass(frozen=True)
class Claim:
    """What a source saw and what it may mean.

    ``seen`` is what was seen, as JSON, for the journal. ``moves`` are the moves that
    would explain it, legal or not (a die's roll, the move the sensors describe, a move
    a tablet entered). ``matches``, for a position read by a camera, says whether a
    state shows what was seen; the tracker then looks for the moves itself. ``say`` is
    for the table when the claim means no move (a die thrown crooked).
    """

    source: str
    seen: Any = None
    moves: tuple[Move, ...] = ()
    matches: Callable[[Any], bool] | None = field(default=None, compare=False)
    say: str | None = None
    #: For a position: how far a state is from what was seen (the confidence of the
    #: squares that disagree), so that a misread square does not block the game: the
    #: explanation the rules allow that disagrees least, by a clear margin, is taken.
    mismatch: Callable[[Any], float] | None = field(default=None, compare=False)
    #: The most disagreement such an explanation may have, and the margin it needs over
    #: the next one.
    tolerance: float = 1.0
    margin: float = 1.0


@dataclass(frozen=True)
class Verdict:
    """What the table does with a claim. ``kind`` is one of ``KINDS``."""

    kind: str
    move: Move | None = None
    choices: tuple[Move, ...] = ()
    violation: Violation | None = None
    say: str | None = None

    KINDS = ("move", "question", "flag", "take-back", "unchanged", "say")


def explain(game: Game, state: Any, claim: Claim, before: Any | None = None) -> Verdict:
    """The verdict on ``claim`` at ``state``. ``before`` is the state before the latest
    move of the turn still open, when there is one: a position that shows it again is a
    take-back."""
    if claim.matches is not None:
        return _explain_position(game, state, claim, before)
    legal = tuple(m for m in claim.moves if game.violation(state, m) is None)
    if len(legal) == 1:
        return Verdict("move", move=legal[0])
    if legal:
        return Verdict("question", choices=legal)
    if claim.moves:
        return Verdict("flag", move=claim.moves[0], violation=game.violation(state, claim.moves[0]))
    return Verdict("say", say=claim.say)


def _explain_position(game: Game, state: Any, claim: Claim, before: Any | None) -> Verdict:
    assert claim.matches is not None
    if claim.matches(state):
        return Verdict("unchanged")
    if before is not None and claim.matches(before):
        return Verdict("take-back")
    fitting = tuple(m for m in game.legal_moves(state) if claim.matches(game.play(state, m)))
    if claim.mismatch is not None and len(fitting) <= 1:
        # A reading with confidences: one move that fits is taken only when nothing the
        # rules allow comes near it (a piece's kind read with little confidence, another
        # kind set down there, is asked, not guessed).
        near = _nearest(game, state, claim, before)
        if near is not None:
            return near
    if len(fitting) == 1 and claim.mismatch is None:
        return Verdict("move", move=fitting[0])
    if fitting:
        return Verdict("question", choices=fitting)
    return Verdict(
        "flag",
        violation=Violation(UNEXPLAINED, "what was seen is no single legal move from here"),
    )


def _nearest(game: Game, state: Any, claim: Claim, before: Any | None) -> Verdict | None:
    """Prefer what the rules allow: of the table as it is, the take-back and every legal
    move, the one that disagrees least with what was seen, if it disagrees little and
    clearly less than the next (a misread square, not a different board). When moves
    alone come that near each other, the table asks which it was; when the table as it
    was comes near, None: the caller flags the change, or asks to confirm the one move
    that fits the reading exactly."""
    assert claim.mismatch is not None
    options: list[tuple[float, Verdict]] = [(claim.mismatch(state), Verdict("unchanged"))]
    if before is not None:
        options.append((claim.mismatch(before), Verdict("take-back")))
    for move in game.legal_moves(state):
        options.append((claim.mismatch(game.play(state, move)), Verdict("move", move=move)))
    options.sort(key=lambda option: option[0])
    best = options[0][0]
    # Sums of confidences: a tolerance or margin met exactly must not fail by a rounding.
    if best > claim.tolerance + 1e-9:
        return None
    close = [verdict for cost, verdict in options if cost - best < claim.margin - 1e-9]
    if len(close) == 1:
        return close[0]
    if all(verdict.kind == "move" for verdict in close):
        return Verdict("question", choices=tuple(v.move for v in close if v.move is not None))
    return None


def forced_move(game: Game, state: Any) -> Move | None:
    """The only move the player to act has, if there is exactly one (a pass when nothing
    can move, a single piece that can go): the table makes it for them."""
    if not isinstance(game.to_act(state), int):
        return None
    moves = game.legal_moves(state)
    if len(moves) != 1 or not isinstance(moves[0], PlayerMove) or moves[0].out_of_turn:
        return None
    return moves[0]


def mover(game: Game, state: Any, move: Move) -> int | None:
    """The seat whose action ``move`` is (``None`` for chance)."""
    if isinstance(move, PlayerMove):
        return move.player
    actor = game.to_act(state)
    return None if actor is CHANCE or actor is None else actor
