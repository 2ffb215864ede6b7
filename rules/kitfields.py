"""Reading a kit document (parsed TOML or JSON) with errors that name the field.

Every game's kit has the same header (``kit``, ``game``, ``name``, ``description``) and
is built of tables and whole numbers; ``KitFields`` reads them for one game, so that each
kit module states only what its game's kit holds.
"""

from __future__ import annotations

from typing import Any

from rules.errors import KitError

HEADER = ("kit", "game", "name", "description")


class KitFields:
    def __init__(self, game: str, version: int) -> None:
        self.game = game
        self.version = version

    def fail(self, field: str, problem: str, value: Any = None) -> KitError:
        return KitError(self.game, field, problem, value)

    def header(self, data: Any, fields: tuple[str, ...]) -> tuple[str, str]:
        """Check the document's shape and header; return its name and description.
        ``fields`` are the game's own top-level fields."""
        if not isinstance(data, dict):
            raise self.fail("(top)", "expected a table of fields", data)
        allowed = HEADER + fields
        for key in data:
            if key not in allowed:
                raise self.fail(key, f"unknown field; a {self.game} kit has {', '.join(allowed)}")
        if data.get("kit") != self.version:
            raise self.fail("kit", f"expected kit format version {self.version}", data.get("kit"))
        if data.get("game") != self.game:
            raise self.fail("game", f"expected {self.game!r}", data.get("game"))
        name = data.get("name")
        if not isinstance(name, str) or not name.strip():
            raise self.fail("name", "expected a non-empty name", name)
        description = data.get("description", "")
        if not isinstance(description, str):
            raise self.fail("description", "expected text", description)
        return name, description

    def table(self, value: Any, field: str, keys: tuple[str, ...]) -> dict[str, Any]:
        """A table with exactly ``keys``."""
        if not isinstance(value, dict):
            raise self.fail(field, f"expected a table with {', '.join(keys)}", value)
        for key in value:
            if key not in keys:
                raise self.fail(f"{field}.{key}", f"unknown field; expected {', '.join(keys)}")
        for key in keys:
            if key not in value:
                raise self.fail(f"{field}.{key}", "missing")
        return value

    def whole(self, value: Any, field: str, low: int, high: int) -> int:
        # TOML and JSON true/false would pass as 1/0 in Python: refused.
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.fail(field, f"expected a whole number from {low} to {high}", value)
        return value
