"""Kit files: the physical facts of one copy of a game, read and validated here.

Each game ships a default kit (``rules/kits/<game>.toml``), a documented best guess at
what the rulebook's missing pictures show. A user replaces it with a kit file of their
own copy. Engines never read files: they receive the validated kit in ``new``.
"""

from __future__ import annotations

import tomllib
from importlib import resources
from pathlib import Path
from typing import Any

from rules.errors import KitError


def default_kit_path(game: str) -> Path:
    return Path(str(resources.files("rules.kits").joinpath(f"{game}.toml")))


def read_kit_file(game: str, path: str | Path | None = None) -> Any:
    """Read a kit file (TOML, or JSON when the name ends in .json) into plain data."""
    import json

    path = Path(path) if path is not None else default_kit_path(game)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise KitError(game, "(file)", f"cannot read {path}: {error.strerror}") from None
    try:
        if path.suffix.lower() == ".json":
            return json.loads(raw)
        return tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, json.JSONDecodeError, UnicodeDecodeError) as error:
        raise KitError(game, "(file)", f"{path} is not a readable kit file: {error}") from None


def load_kit(game: str, path: str | Path | None = None) -> Any:
    """The validated kit for ``game``: from ``path``, or the shipped default."""
    from rules import get_game

    return get_game(game).kit_from_json(read_kit_file(game, path))
