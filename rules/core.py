"""The interface every game offers, and the small values it speaks in.

Each game is a stateless :class:`Game` object in the registry (``rules.GAMES``) working on
immutable states, in the spirit of OpenSpiel's State API and boardgame.io's game objects:

- ``new(players, options, kit, view=...)`` makes the initial state; the kit is data
  loaded and validated outside the engine (``rules.kits``);
- ``to_act(state)`` is a seat number, :data:`CHANCE` when the physical world decides next
  (a die, a lot, a draw from the bag) or ``None`` when the game is over;
- ``legal_moves(state)`` lists player moves in a stable order; ``chance_outcomes(state)``
  lists the chance moves with their probabilities;
- ``violation(state, move)`` is the legality layer: ``None`` or the rule a move breaks;
  ``play(state, move)`` applies a legal move and raises :class:`IllegalMove` otherwise;
- ``scores``, ``score_bounds``, ``outcome`` and ``is_over`` report;
- ``state_to_json`` / ``state_from_json`` / ``move_to_json`` / ``move_from_json`` are the
  notation (see ``docs/notation.md``) and round-trip exactly.
"""

from __future__ import annotations

import enum
import json
import random
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar, Generic, NamedTuple, TypeVar

from rules.errors import IllegalMove, OptionError


class _Chance(enum.Enum):
    CHANCE = "chance"

    def __repr__(self) -> str:
        return "CHANCE"

    __str__ = __repr__


#: ``to_act`` returns this when the physical world decides next (a die, a lot, a draw).
CHANCE = _Chance.CHANCE


class View(enum.StrEnum):
    """Which parts of the state are known.

    ``FULL``: everything, as in a simulation that deals hidden parts from a seeded
    generator. ``TABLE``: what players at a real table see; hidden parts (racks, hands,
    the bag) may be unknown, and rules that need them are checked when they are shown.
    """

    FULL = "full"
    TABLE = "table"


@dataclass(frozen=True)
class Outcome:
    """How a game ended: who won and by which rule.

    ``winners`` is empty for a draw and holds several seats when tied winners share the
    victory. ``reason`` is a rule id from the catalogue. ``ranking`` lists the places
    from first to last, each a group of seats that share it.
    """

    winners: tuple[int, ...]
    reason: str
    detail: str = ""
    ranking: tuple[tuple[int, ...], ...] = ()

    @property
    def is_draw(self) -> bool:
        return not self.winners

    def to_json(self) -> dict[str, Any]:
        return {
            "winners": list(self.winners),
            "reason": self.reason,
            "detail": self.detail,
            "ranking": [list(place) for place in self.ranking],
        }


class Violation(NamedTuple):
    """The rule a move breaks (a catalogue id) and what exactly was wrong."""

    rule: str
    detail: str


@dataclass(frozen=True)
class Move:
    """Base of every game's moves. A chance move (a roll, a lot, a draw) has
    ``chance = True`` and no player; player moves derive from :class:`PlayerMove`."""

    chance: ClassVar[bool] = False
    #: True for moves that any seat may make whoever is to act (claiming a draw).
    out_of_turn: ClassVar[bool] = False


@dataclass(frozen=True)
class PlayerMove(Move):
    """A move made by a seat: ``player`` is the seat that makes it."""

    player: int


# -- options -------------------------------------------------------------------------


@dataclass(frozen=True)
class OptionSpec:
    """A named option of a game: an open rule reading or a variant.

    ``default`` is the reading proposed in ``rulebooks/NOTES.md``; ``source`` cites it.
    """

    name: str
    default: Any
    choices: tuple[Any, ...]
    doc: str
    source: str


@dataclass(frozen=True)
class Options(Mapping[str, Any]):
    """The resolved options of one game, immutable and hashable."""

    items_: tuple[tuple[str, Any], ...] = ()

    def __getitem__(self, key: str) -> Any:
        for name, value in self.items_:
            if name == key:
                return value
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return (name for name, _ in self.items_)

    def __len__(self) -> int:
        return len(self.items_)

    def __repr__(self) -> str:
        return f"Options({dict(self.items_)!r})"

    def to_json(self) -> dict[str, Any]:
        return dict(self.items_)


def resolve_options(
    game: str, specs: tuple[OptionSpec, ...], given: Mapping[str, Any] | None
) -> Options:
    """Fill in defaults and check every given option against its spec."""
    given = dict(given or {})
    known = {spec.name: spec for spec in specs}
    unknown = sorted(set(given) - set(known))
    if unknown:
        names = ", ".join(known) or "none"
        raise OptionError(f"{game}: unknown option {unknown[0]!r}; its options are: {names}")
    resolved = []
    for spec in specs:
        value = given.get(spec.name, spec.default)
        # bool is an int subclass: compare types too, so that 1 is not taken for True.
        if not any(value == c and type(value) is type(c) for c in spec.choices):
            # Quoted as JSON, as they are written in files, on the command line and the web.
            choices = ", ".join(json.dumps(c) for c in spec.choices)
            got = json.dumps(value, default=repr)
            raise OptionError(f"{game}: option {spec.name!r} must be one of {choices}, got {got}")
        resolved.append((spec.name, value))
    return Options(tuple(resolved))


# -- the game interface --------------------------------------------------------------

S = TypeVar("S")
M = TypeVar("M", bound=Move)
K = TypeVar("K")


class Game(Generic[S, M, K]):
    """One game's rules. Subclasses are stateless; every method is pure."""

    name: ClassVar[str]
    title: ClassVar[str]
    state_type: ClassVar[type]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    option_specs: ClassVar[tuple[OptionSpec, ...]] = ()
    #: Rule ids for the checks every game shares: a move after the end, a move out of
    #: turn, and a player move while chance decides (or a chance move out of place).
    game_over_rule: ClassVar[str]
    turn_rule: ClassVar[str]
    chance_rule: ClassVar[str]

    # -- set-up ---------------------------------------------------------------------

    def options(self, given: Mapping[str, Any] | None = None) -> Options:
        return resolve_options(self.name, self.option_specs, given)

    def check_players(self, players: int) -> int:
        if isinstance(players, bool) or not isinstance(players, int):
            raise OptionError(f"{self.name}: players must be a whole number, got {players!r}")
        if not self.min_players <= players <= self.max_players:
            span = (
                str(self.min_players)
                if self.min_players == self.max_players
                else f"{self.min_players} to {self.max_players}"
            )
            raise OptionError(f"{self.name} takes {span} players, got {players}")
        return players

    def new(
        self,
        players: int,
        options: Mapping[str, Any] | None,
        kit: K,
        view: View = View.FULL,
    ) -> S:
        raise NotImplementedError

    def kit_from_json(self, data: Any) -> K:
        raise NotImplementedError

    def kit_to_json(self, kit: K) -> dict[str, Any]:
        raise NotImplementedError

    def corrected_kit(self, state: S) -> K | None:
        """The kit as play has shown it to be, when that differs from the kit the game
        started with (Regie: the sensors saw chips fall where the kit has no window);
        ``None`` when nothing contradicted the kit."""
        return None

    # -- whose turn, what can happen --------------------------------------------------

    def to_act(self, state: S) -> int | _Chance | None:
        raise NotImplementedError

    def seats(self, state: S) -> int:
        """The number of seats at this game."""
        raise NotImplementedError

    def legal_moves(self, state: S) -> tuple[M, ...]:
        """Player moves in a stable order; empty at chance nodes and when over."""
        raise NotImplementedError

    def chance_outcomes(self, state: S) -> tuple[tuple[M, Fraction], ...]:
        """Chance moves with probabilities summing to 1; empty unless ``CHANCE`` acts."""
        raise NotImplementedError

    # -- legality and play ------------------------------------------------------------

    def violation(self, state: S, move: M) -> Violation | None:
        """The rule ``move`` breaks in ``state``, or ``None`` if it is legal."""
        actor = self.to_act(state)
        if actor is None:
            return Violation(self.game_over_rule, "the game is over")
        if actor is CHANCE and not move.chance:
            return Violation(self.chance_rule, f"waiting for {self.chance_name(state)}")
        if actor is not CHANCE and move.chance:
            return Violation(self.chance_rule, f"it is seat {actor}'s turn, not chance's")
        if isinstance(move, PlayerMove):
            seats = self.seats(state)
            if type(move.player) is not int or not 0 <= move.player < seats:
                return Violation(
                    self.turn_rule, f"seat {move.player!r} is not at this table of {seats}"
                )
            if not move.out_of_turn and move.player != actor:
                return Violation(
                    self.turn_rule, f"it is seat {actor}'s turn, not seat {move.player}'s"
                )
        broken = self.rule_violation(state, move)
        # A chance move must be one of the listed outcomes, whatever the game checks.
        listed = {outcome for outcome, _ in self.chance_outcomes(state)} if move.chance else ()
        if broken is None and move.chance and move not in listed:
            return Violation(
                self.chance_rule, f"not a possible outcome of {self.chance_name(state)}"
            )
        return broken

    def rule_violation(self, state: S, move: M) -> Violation | None:
        """The game's own rules, once turn order and game end are settled."""
        raise NotImplementedError

    def play(self, state: S, move: M) -> S:
        if not isinstance(move, Move):
            raise TypeError(f"{self.name}: expected a move, got {move!r}")
        broken = self.violation(state, move)
        if broken is not None:
            raise IllegalMove(
                broken.rule,
                self.move_text(move),
                broken.detail,
                where=self.where(state),
            )
        return self.apply(state, move)

    def apply(self, state: S, move: M) -> S:
        """Apply a move already known to be legal."""
        raise NotImplementedError

    # -- reports ----------------------------------------------------------------------

    def scores(self, state: S) -> tuple[int, ...]:
        raise NotImplementedError

    def score_bounds(self, state: S) -> tuple[int, int]:
        """The lowest and highest score any seat can have in this game."""
        raise NotImplementedError

    def outcome(self, state: S) -> Outcome | None:
        raise NotImplementedError

    def is_over(self, state: S) -> bool:
        return self.to_act(state) is None

    def situations(self, state: S, move: M) -> tuple[str, ...]:
        """Labels for the rule situations a legal move creates (``capture``, ...).

        Simulations count them; the labels are part of ``companion simulate --json``.
        """
        raise NotImplementedError

    def describe(self, state: S, move: M, lang: str = "en") -> str:
        """A short sentence for a legal move, for people, in ``lang``: ``"en"`` (English,
        the default, which logs and ``companion simulate --show`` print) or ``"de"``
        (German, in the rulebooks' words; the same facts and numbers as the English).
        Any other ``lang`` raises ``ValueError`` naming it."""
        raise NotImplementedError

    def diagram(self, state: S) -> str:
        """A plain-text picture of the state, for terminals and logs."""
        raise NotImplementedError

    def seat_colour(self, state: S, seat: int) -> str | None:
        """The colour ``seat`` plays, in English (``"red"``), where the game gives seats
        colours; ``None`` where it has none or has not dealt them yet (Gimmel's lot)."""
        return None

    def chance_name(self, state: S, lang: str = "en") -> str:
        """What chance decides next, in words ("the colour lot", "a die roll"), in
        ``lang`` as for :meth:`describe`: ``"en"`` or ``"de"``; any other ``lang`` raises
        ``ValueError`` naming it."""
        if lang not in ("en", "de"):
            raise ValueError(f"unknown lang {lang!r}: the rules speak 'en' and 'de'")
        return "chance" if lang == "en" else "der Zufall"

    def where(self, state: S) -> str:
        """A short description of the position, for error messages."""
        raise NotImplementedError

    # -- notation ---------------------------------------------------------------------

    def state_to_json(self, state: S) -> dict[str, Any]:
        raise NotImplementedError

    def state_from_json(self, data: Any) -> S:
        raise NotImplementedError

    def move_to_json(self, move: M) -> dict[str, Any]:
        raise NotImplementedError

    def move_from_json(self, data: Any) -> M:
        raise NotImplementedError

    def move_text(self, move: M) -> str:
        """The move's notation as one line of JSON, for messages and logs."""
        from rules.notation import dumps

        return dumps(self.move_to_json(move))

    # -- for simulation -----------------------------------------------------------------

    def is_report(self, move: M) -> bool:
        """Whether ``move`` carries what was seen to happen (a sensor's or a player's
        report) rather than leaving the outcome to the rules' prediction. ``play`` takes
        a report as reality when it is physically possible, legal or not."""
        return False

    def physical_moves(self, state: S) -> tuple[M, ...]:
        """Every action a player can physically make here whose consequence the rules
        define: the legal moves, and any "illegal but it happened" action that ``play``
        accepts as a report of reality (Regie: a chip put in where it falls through).
        Simulations draw from these."""
        return self.legal_moves(state)

    def playout_weights(self, state: S, moves: tuple[M, ...]) -> tuple[float, ...] | None:
        """Relative weights for a random player choosing among ``moves`` (the legal
        moves), or ``None`` for a uniform choice. A game whose uniform random play would
        rarely end (a race where most paths turn back) weights moves as players would."""
        return None

    # -- for the conformance suite ------------------------------------------------------

    def random_move(self, state: S, rng: random.Random) -> M:
        """A well-formed move drawn from the whole move space, legal or not."""
        raise NotImplementedError
