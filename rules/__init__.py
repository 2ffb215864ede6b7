"""The rules of the five games: pure engines behind one interface, and a registry.

Nothing here does I/O except reading the kit and catalogue files shipped with it.

    >>> from rules import get_game, new_game
    >>> game = get_game("gimmel")
    >>> state = new_game("gimmel")
    >>> game.to_act(state)
    CHANCE
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.core import CHANCE, Game, Move, Options, OptionSpec, Outcome, View, Violation
from rules.errors import (
    IllegalMove,
    KitError,
    NotationError,
    OptionError,
    RulesError,
    UnknownGame,
)
from rules.gimmel import GIMMEL
from rules.horus import HORUS
from rules.nil import NIL
from rules.regie import REGIE
from rules.uraeus import URAEUS

#: Every registered game by name. A game added here joins the conformance suite.
GAMES: dict[str, Game] = {game.name: game for game in (GIMMEL, URAEUS, REGIE, NIL, HORUS)}


def get_game(name: str) -> Game:
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise UnknownGame(name, tuple(GAMES)) from None


def game_of(state: Any) -> Game:
    """The registered game that ``state`` belongs to."""
    for game in GAMES.values():
        if isinstance(state, game.state_type):
            return game
    raise TypeError(f"not a state of a registered game: {type(state).__name__}")


def new_game(
    name: str,
    players: int | None = None,
    options: Mapping[str, Any] | None = None,
    kit: Any = None,
    view: View = View.FULL,
) -> Any:
    """A new game with the shipped default kit unless one is given."""
    from rules.kits import load_kit

    game = get_game(name)
    if kit is None:
        kit = load_kit(name)
    return game.new(game.min_players if players is None else players, options, kit, view)


def parse_state(data: Any) -> Any:
    """Read a state document of any registered game (a dict, or JSON text)."""
    from rules import notation

    if isinstance(data, str | bytes):
        data = notation.loads(data)
    _, name = notation.header(data)
    try:
        game = get_game(name)
    except UnknownGame as error:
        raise NotationError("game", str(error)) from None
    return game.state_from_json(data)


def format_state(game: Game, state: Any) -> str:
    """A state as canonical JSON text."""
    from rules import notation

    return notation.dumps(game.state_to_json(state))


__all__ = [
    "CHANCE",
    "GAMES",
    "Game",
    "IllegalMove",
    "KitError",
    "Move",
    "NotationError",
    "OptionError",
    "OptionSpec",
    "Options",
    "Outcome",
    "RulesError",
    "UnknownGame",
    "View",
    "Violation",
    "format_state",
    "game_of",
    "get_game",
    "new_game",
    "parse_state",
]
