"""The errors of the rules layer.

Every error is a ``ValueError`` whose message quotes the bad input and says where it was
found, so that a user can fix a file or a caller can show the message as it is. Malformed
input (``NotationError``, ``KitError``, ``OptionError``) and a well-formed move that the
rules forbid (``IllegalMove``) are different errors.
"""

from __future__ import annotations

from typing import Any


class RulesError(ValueError):
    """Base of every error raised by ``rules``."""


class UnknownGame(RulesError):
    """A game name that is not registered."""

    def __init__(self, name: object, known: tuple[str, ...]) -> None:
        self.name = name
        super().__init__(f"unknown game {name!r}; known games: {', '.join(known)}")


class NotationError(RulesError):
    """A state or move in the JSON notation that cannot be read.

    ``where`` is a path into the document, such as ``board.c5.piece``. ``rule`` is the
    catalogued rule id the document breaks, where one applies (``horus.overlap`` for two
    tiles on top of each other), as a refused move names it.
    """

    def __init__(self, where: str, problem: str, value: Any = None, rule: str = "") -> None:
        self.where = where
        self.problem = problem
        self.value = value
        self.rule = rule
        shown = "" if value is None else f" (got {_quote(value)})"
        named = f" [{rule}]" if rule else ""
        super().__init__(f"{where or 'document'}: {problem}{shown}{named}")


class KitError(RulesError):
    """A kit (the physical facts of one copy of a game) that is malformed or impossible.

    ``field`` names the offending field, such as ``board.columns``.
    """

    def __init__(self, game: str, field: str, problem: str, value: Any = None) -> None:
        self.game = game
        self.field = field
        self.problem = problem
        self.value = value
        shown = "" if value is None else f" (got {_quote(value)})"
        super().__init__(f"{game} kit, field {field!r}: {problem}{shown}")


class OptionError(RulesError):
    """An unknown option, a bad option value, or an impossible number of players."""


class IllegalMove(RulesError):
    """A well-formed move that the rules forbid in this state.

    ``rule`` is a stable rule id from the catalogue (``gimmel.falcon-move``); the tablet
    shows the rule's words from there.
    """

    def __init__(self, rule: str, move: Any, detail: str, where: str = "") -> None:
        self.rule = rule
        self.move = move
        self.detail = detail
        self.where = where
        at = f" in {where}" if where else ""
        super().__init__(f"illegal move {move}{at}: {detail} [{rule}]")


def _quote(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."
