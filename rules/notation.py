"""The JSON notation for states and moves of every game (``docs/notation.md``).

A state document carries the notation version and the game's name, so that any state can
be read back without knowing its game in advance; a move document is read in the context
of its game. ``dumps`` gives the canonical text: sorted keys, no spaces, so that equal
states give equal bytes.

The helpers below read JSON values with errors that name the path of the bad field.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, NamedTuple

from rules.errors import NotationError

#: The version of the notation that this code writes. Readers accept this version only;
#: a later version adds a migration here instead of changing the meaning of version 1.
VERSION = 1


def dumps(data: Any) -> str:
    """Canonical JSON text: sorted keys, compact, UTF-8 characters kept."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def loads(text: str | bytes) -> Any:
    """Parse JSON text, naming the line and column of a syntax error."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise NotationError(
            f"line {error.lineno} column {error.colno}", f"not valid JSON: {error.msg}"
        ) from None
    except UnicodeDecodeError as error:
        raise NotationError(f"byte {error.start}", "not UTF-8 text") from None


# -- reading fields with paths -------------------------------------------------------


def obj(data: Any, where: str) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise NotationError(where, "expected a JSON object", data)
    return data


def keys(data: dict[str, Any], where: str, required: tuple[str, ...], optional=()) -> None:
    """Check that ``data`` has every required key and no unknown one."""
    for key in required:
        if key not in data:
            raise NotationError(join(where, key), "missing")
    allowed = set(required) | set(optional)
    for key in data:
        if key not in allowed:
            raise NotationError(
                join(where, key), f"unknown field; expected {', '.join(sorted(allowed))}"
            )


def integer(value: Any, where: str, low: int | None = None, high: int | None = None) -> int:
    # JSON true/false arrive as bool, which is an int subclass in Python.
    if isinstance(value, bool) or not isinstance(value, int):
        raise NotationError(where, "expected a whole number", value)
    if (low is not None and value < low) or (high is not None and value > high):
        span = f"from {low}" if high is None else f"from {low} to {high}"
        raise NotationError(where, f"expected a whole number {span}", value)
    return value


def text(value: Any, where: str, choices: tuple[str, ...] | None = None) -> str:
    if not isinstance(value, str):
        raise NotationError(where, "expected a string", value)
    if choices is not None and value not in choices:
        raise NotationError(where, f"expected one of {', '.join(choices)}", value)
    return value


def boolean(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise NotationError(where, "expected true or false", value)
    return value


def array(value: Any, where: str, length: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        raise NotationError(where, "expected a JSON array", value)
    if length is not None and len(value) != length:
        raise NotationError(where, f"expected {length} entries, found {len(value)}")
    return value


def join(where: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{where}[{key}]"
    return f"{where}.{key}" if where else key


class Common(NamedTuple):
    """The fields every state document has, read and checked."""

    data: dict[str, Any]
    view: Any
    players: int
    options: Any
    kit: Any


def common(
    data: Any,
    game: str,
    fields: tuple[str, ...],
    option_specs: tuple,
    read_kit: Callable[[Any], Any],
    players: tuple[int, int],
) -> Common:
    """Read a state document's version, fields, view, players, options and kit."""
    from rules.core import View, resolve_options
    from rules.errors import KitError, OptionError

    data, _ = header(data, game)
    keys(data, "", fields)
    view = View(text(data["view"], "view", tuple(v.value for v in View)))
    low, high = players
    if low == high:
        if integer(data["players"], "players") != low:
            raise NotationError(
                "players", f"{game.capitalize()} is played by {low}", data["players"]
            )
        count = low
    else:
        count = integer(data["players"], "players", low, high)
    given = obj(data["options"], "options")
    keys(given, "options", tuple(spec.name for spec in option_specs))
    try:
        options = resolve_options(game, option_specs, given)
    except OptionError as error:
        raise NotationError("options", str(error)) from None
    try:
        kit = read_kit(data["kit"])
    except KitError as error:
        raise NotationError("kit", str(error)) from None
    return Common(data, view, count, options, kit)


def header(data: Any, game: str | None = None) -> tuple[dict[str, Any], str]:
    """Check a state document's version and return it with its game name."""
    data = obj(data, "")
    if "notation" not in data:
        raise NotationError("notation", "missing: a state document names its version")
    version = integer(data["notation"], "notation")
    if version != VERSION:
        raise NotationError("notation", f"this companion reads notation version {VERSION}", version)
    name = text(data.get("game"), "game")
    if game is not None and name != game:
        raise NotationError("game", f"expected a {game} state", name)
    return data, name
