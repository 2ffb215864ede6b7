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


def kit_toml(data: dict[str, Any], comment: str = "") -> str:
    """A kit in its JSON form written as a kit file (TOML) that ``read_kit_file`` reads
    back to the same data: scalars first, then tables, then arrays of tables."""
    lines = [f"# {line}".rstrip() for line in comment.splitlines()]
    _table(data, (), lines)
    return "\n".join(lines).strip() + "\n"


def _table(data: dict[str, Any], path: tuple[str, ...], lines: list[str]) -> None:
    tables = {k: v for k, v in data.items() if isinstance(v, dict)}
    arrays = {k: v for k, v in data.items()
              if isinstance(v, list) and v and all(isinstance(i, dict) for i in v)}  # fmt: skip
    for key, value in data.items():
        if key not in tables and key not in arrays:
            lines.append(f"{_key(key)} = {_value(value)}")
    for key, value in tables.items():
        lines += ["", f"[{'.'.join(_key(k) for k in (*path, key))}]"]
        _table(value, (*path, key), lines)
    for key, items in arrays.items():
        for item in items:
            lines += ["", f"[[{'.'.join(_key(k) for k in (*path, key))}]]"]
            _table(item, (*path, key), lines)


def _key(key: str) -> str:
    import re

    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else _value(key)


def _value(value: Any) -> str:
    import json

    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"a kit holds no {type(value).__name__}: {value!r}")
