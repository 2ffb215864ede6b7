"""Tables: one game each, its players, its engine with kit and options, its journal.

A table's state is always the replay of its journal, so a restart (or a power cut)
carries on where the table was. Changes go through ``Table.play`` and ``Table.undo``,
which journal them before they count.
"""

from __future__ import annotations

import threading
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.journal import Journal
from rules import GAMES, IllegalMove, RulesError, View, get_game
from rules.catalogue import explain
from rules.kits import load_kit


class ConfigError(ValueError):
    """A table configuration that cannot be used; names the field."""


@dataclass(frozen=True)
class TableConfig:
    id: str
    game: str
    players: tuple[str, ...]
    pin: str
    options: dict[str, Any] = field(default_factory=dict)
    kit: str | None = None  # a kit file; the shipped kit when None


def read_config(path: str | Path) -> list[TableConfig]:
    """Tables from a TOML file: ``[[tables]]`` with id, game, players, pin, and
    optionally options (a table) and kit (a file path)."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: not a readable configuration: {error}") from None
    tables = data.get("tables")
    if not isinstance(tables, list) or not tables:
        raise ConfigError(f"{path}: expected one or more [[tables]]")
    configs = []
    for i, raw in enumerate(tables):
        where = f"{path}: tables[{i}]"
        if not isinstance(raw, dict):
            raise ConfigError(f"{where}: expected a table of fields")
        unknown = set(raw) - {"id", "game", "players", "pin", "options", "kit"}
        if unknown:
            raise ConfigError(f"{where}: unknown field {sorted(unknown)[0]!r}")
        for key in ("id", "game", "pin"):
            if not isinstance(raw.get(key), str) or not raw[key]:
                raise ConfigError(f"{where}.{key}: expected text")
        if raw["game"] not in GAMES:
            raise ConfigError(f"{where}.game: unknown game {raw['game']!r}")
        players = raw.get("players")
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise ConfigError(f"{where}.players: expected a list of names")
        configs.append(
            TableConfig(
                id=raw["id"],
                game=raw["game"],
                players=tuple(players),
                pin=raw["pin"],
                options=dict(raw.get("options", {})),
                kit=raw.get("kit"),
            )
        )
    ids = [c.id for c in configs]
    if len(set(ids)) != len(ids):
        raise ConfigError(f"{path}: table ids must differ")
    return configs


class Table:
    def __init__(self, config: TableConfig, journal: Journal) -> None:
        self.config = config
        self.game = get_game(config.game)
        self.journal = journal
        self.lock = threading.Lock()
        self.on_change: Callable[[], None] = lambda: None  # the service's live streams
        #: The table's input sources by name, each reporting its health (a die's link).
        self.sources: dict[str, Callable[[], dict[str, Any]]] = {}
        game_id = journal.current_game(config.id)
        if game_id is None:
            game_id = journal.start_game(config.id, self._fresh_state())
        self.game_id = game_id
        try:
            self.state = journal.replay(game_id)
        except RulesError as error:
            raise ConfigError(
                f"table {config.id!r}: its journal does not replay: {error}"
            ) from None
        seats = self.game.seats(self.state)
        if journal.initial(game_id).__class__ is not self.game.state_type or seats != len(
            config.players
        ):
            raise ConfigError(
                f"table {config.id!r}: the journal's game ({self.game.name}, {seats} seats) "
                f"does not match the configuration ({len(config.players)} players)"
            )
        entries = journal.entries(game_id)
        self.seq = entries[-1].seq if entries else 0
        self.last = self._last_move_words()

    # -- changes ----------------------------------------------------------------------

    def play(self, document: Any, expected: int | None = None) -> int:
        """Play a move given in the notation; journal it; return the new ``seq``.
        An illegal move is journalled as a flag and raised. With ``expected``, a table
        that has moved on since refuses the move (``Stale``)."""
        with self.lock:
            self._check_seq(expected)
            move = self.game.move_from_json(document)  # NotationError: malformed
            try:
                after = self.game.play(self.state, move)
            except IllegalMove as error:
                self.seq = self.journal.append(
                    self.game_id,
                    "flag",
                    {"move": document, "rule": error.rule, "words": explain(error.rule).rule},
                )
                self.on_change()
                raise
            words = self.game.describe(self.state, move)
            self.seq = self.journal.append(self.game_id, "move", self.game.move_to_json(move))
            self.state, self.last = after, words
        self.on_change()
        return self.seq

    def undo(self, expected: int | None = None) -> int:
        with self.lock:
            self._check_seq(expected)
            if not self.journal.moves(self.game_id):
                raise IllegalUndo("there is no move to take back")
            self.seq = self.journal.append(self.game_id, "undo", {})
            self.state = self.journal.replay(self.game_id)
            self.last = self._last_move_words()
        self.on_change()
        return self.seq

    def new_game(self) -> int:
        """Start the next game at this table (the finished one stays on record)."""
        with self.lock:
            self.game_id = self.journal.start_game(self.config.id, self._fresh_state())
            self.state = self.journal.replay(self.game_id)
            self.seq = self.journal.append(self.game_id, "note", {"event": "new game"})
            self.last = None
        self.on_change()
        return self.seq

    def _fresh_state(self) -> Any:
        try:
            kit = load_kit(self.config.game, self.config.kit)
            players = len(self.config.players)
            return self.game.new(players, self.config.options, kit, View.TABLE)
        except RulesError as error:
            raise ConfigError(f"table {self.config.id!r}: {error}") from None

    def _check_seq(self, expected: int | None) -> None:
        # Under the table's lock: two tablets acting on one state cannot both win.
        if expected is not None and expected != self.seq:
            raise Stale(f"stale: the table is at seq {self.seq}, not {expected!r}")

    # -- views ------------------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        with self.lock:
            actor = self.game.to_act(self.state)
            outcome = self.game.outcome(self.state)
            return {
                "id": self.config.id,
                "game": self.game.name,
                "title": self.game.title,
                "players": list(self.config.players),
                "scores": list(self.game.scores(self.state)),
                "to_act": actor
                if isinstance(actor, int)
                else (None if actor is None else "chance"),
                "over": outcome is not None,
                "outcome": None if outcome is None else outcome.to_json(),
                "last_move": self.last,
                "seq": self.seq,
                "sources": {name: health() for name, health in self.sources.items()},
            }

    def detail(self) -> dict[str, Any]:
        summary = self.summary()
        with self.lock:
            summary["state"] = self.game.state_to_json(self.state)
            summary["legal_moves"] = [
                self.game.move_to_json(m) for m in self.game.legal_moves(self.state)
            ]
            summary["chance"] = [
                self.game.move_to_json(m) for m, _ in self.game.chance_outcomes(self.state)
            ]
        return summary

    def _last_move_words(self) -> str | None:
        moves = self.journal.moves(self.game_id)
        if not moves:
            return None
        state = self.journal.initial(self.game_id)
        for document in moves[:-1]:
            state = self.game.play(state, self.game.move_from_json(document))
        return self.game.describe(state, self.game.move_from_json(moves[-1]))


class IllegalUndo(ValueError):
    """An undo with nothing to take back."""


class Stale(ValueError):
    """A change that names a seq the table has moved past."""


def flag_words(error: IllegalMove) -> dict[str, Any]:
    """What the tablet shows for an illegal move: the rule in words and its source."""
    entry = explain(error.rule)
    return {
        "rule": error.rule,
        "message": str(error),
        "words": entry.rule,
        "german": entry.german,
        "rulebook": entry.rulebook,
        "heading": entry.heading,
    }
