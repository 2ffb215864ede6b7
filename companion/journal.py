"""The journal: the append-only record of every table's games, the source of truth.

An SQLite file in the instance folder, in write-ahead-logging mode with synchronous
commits: every entry is on disk when ``append`` returns, so a power cut loses nothing
that was acknowledged. Entries are never changed or deleted; an undo is an entry too.
A game's state is the fold of its accepted moves over the initial state it started with
(which carries the kit and options), so replacing a kit file never changes a recorded
game, and a restart replays the journal and carries on where the table was.

The schema is versioned (``PRAGMA user_version``); ``MIGRATIONS`` brings an older file
up to date when it is opened, and a newer one than this code knows is refused.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rules import game_of, get_game, parse_state
from rules.notation import dumps

SCHEMA_VERSION = 2
RECORD_VERSION = 1
#: Entry kinds. A ``move`` is accepted and changes the state; an ``undo`` takes back the
#: latest accepted move not yet undone; the others are kept for the record.
KINDS = ("move", "undo", "flag", "override", "input", "note")

MIGRATIONS: dict[int, tuple[str, ...]] = {
    # version reached -> statements that reach it from the one before
    1: (
        """CREATE TABLE games (
            id INTEGER PRIMARY KEY,
            table_id TEXT NOT NULL,
            game TEXT NOT NULL,
            started REAL NOT NULL,
            initial TEXT NOT NULL
        )""",
        """CREATE TABLE entries (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            game_id INTEGER NOT NULL REFERENCES games(id),
            at REAL NOT NULL,
            kind TEXT NOT NULL,
            data TEXT NOT NULL
        )""",
        "CREATE INDEX entries_by_game ON entries(game_id, seq)",
    ),
    # 2: a game records its players' names, since a tablet may start any game at a table;
    # games recorded before keep an empty list and take the names from the configuration.
    2: ("ALTER TABLE games ADD COLUMN players TEXT NOT NULL DEFAULT '[]'",),
}


class JournalError(ValueError):
    """A journal that cannot be used, or a request it cannot answer; says which."""


@dataclass(frozen=True)
class Entry:
    seq: int
    game_id: int
    at: float
    kind: str
    data: Any


class Journal:
    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self.clock = clock
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            # One connection, shared by the service's threads one at a time.
            self.lock = threading.RLock()
            self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
            self._execute("PRAGMA journal_mode=WAL")
            self._execute("PRAGMA synchronous=FULL")  # on disk before append returns
            self._execute("PRAGMA foreign_keys=ON")
            self._migrate()
        except sqlite3.DatabaseError as error:
            raise JournalError(f"{self.path} is not a usable journal: {error}") from None

    def _execute(self, sql: str, args: tuple = ()) -> list[tuple]:
        """Run one statement and fetch its rows, all under the lock."""
        with self.lock:
            return self.db.execute(sql, args).fetchall()

    def _insert(self, sql: str, args: tuple) -> int:
        with self.lock:
            return int(self.db.execute(sql, args).lastrowid)

    def _migrate(self) -> None:
        version = self._execute("PRAGMA user_version")[0][0]
        if version > SCHEMA_VERSION:
            raise JournalError(
                f"{self.path} has journal schema {version}; this companion knows up to "
                f"{SCHEMA_VERSION}: update the companion"
            )
        for target in range(version + 1, SCHEMA_VERSION + 1):
            with self.lock, self.db:  # one transaction per step: whole or not at all
                self._execute("BEGIN")
                for statement in MIGRATIONS[target]:
                    self._execute(statement)
                self._execute(f"PRAGMA user_version={target}")

    # -- writing --------------------------------------------------------------------

    def start_game(self, table: str, state: Any, players: tuple[str, ...] = ()) -> int:
        """Record a new game at ``table`` from ``state`` (its kit and options with it),
        played by ``players`` (their names, by seat)."""
        game = game_of(state)
        initial = dumps(game.state_to_json(state))
        return self._insert(
            "INSERT INTO games (table_id, game, started, initial, players) VALUES (?, ?, ?, ?, ?)",
            (table, game.name, self.clock(), initial, dumps(list(players))),
        )

    def append(self, game_id: int, kind: str, data: Any) -> int:
        """Append one entry; return its sequence number, once it is on disk."""
        if kind not in KINDS:
            raise JournalError(f"unknown entry kind {kind!r}; kinds are {', '.join(KINDS)}")
        self._game_row(game_id)
        return self._insert(
            "INSERT INTO entries (game_id, at, kind, data) VALUES (?, ?, ?, ?)",
            (game_id, self.clock(), kind, dumps(data)),
        )

    # -- reading --------------------------------------------------------------------

    def entries(self, game_id: int | None = None, since: int = 0) -> list[Entry]:
        """Entries after sequence number ``since``, of one game or of all."""
        query = "SELECT seq, game_id, at, kind, data FROM entries WHERE seq > ?"
        args: tuple = (since,)
        if game_id is not None:
            query += " AND game_id = ?"
            args += (game_id,)
        rows = self._execute(query + " ORDER BY seq", args)
        return [Entry(seq, gid, at, kind, json.loads(data)) for seq, gid, at, kind, data in rows]

    def last_seq(self) -> int:
        return self._execute("SELECT COALESCE(MAX(seq), 0) FROM entries")[0][0]

    def games(self, table: str | None = None) -> list[tuple[int, str, str]]:
        """(game id, table, game name) of every game, oldest first."""
        query, args = "SELECT id, table_id, game FROM games", ()
        if table is not None:
            query, args = query + " WHERE table_id = ?", (table,)
        return [tuple(row) for row in self._execute(query + " ORDER BY id", args)]

    def current_game(self, table: str) -> int | None:
        games = self.games(table)
        return games[-1][0] if games else None

    def initial(self, game_id: int) -> Any:
        return parse_state(self._game_row(game_id)[1])

    def players(self, game_id: int) -> tuple[str, ...]:
        """The players' names a game was started with (empty for games recorded before
        schema 2, whose names are the configuration's)."""
        self._game_row(game_id)
        rows = self._execute("SELECT players FROM games WHERE id = ?", (game_id,))
        return tuple(json.loads(rows[0][0]))

    def moves(self, game_id: int) -> list[Any]:
        """The accepted moves of a game, undos taken into account, as notation."""
        moves: list[Any] = []
        for entry in self.entries(game_id):
            if entry.kind == "move":
                moves.append(entry.data)
            elif entry.kind == "undo" and moves:
                moves.pop()
        return moves

    def replay(self, game_id: int) -> Any:
        """The game's current state: its accepted moves played from its initial state."""
        name, _ = self._game_row(game_id)
        game = get_game(name)
        state = self.initial(game_id)
        for move in self.moves(game_id):
            state = game.play(state, game.move_from_json(move))
        return state

    # -- records and backups ----------------------------------------------------------

    def export(self, game_id: int) -> dict[str, Any]:
        """A game as a JSON record: its initial state in the notation and every entry."""
        name, initial = self._game_row(game_id)
        return {
            "record": RECORD_VERSION,
            "game": name,
            "players": list(self.players(game_id)),
            "initial": json.loads(initial),
            "entries": [
                {"at": e.at, "kind": e.kind, "data": e.data} for e in self.entries(game_id)
            ],
        }

    def import_record(self, table: str, record: Any) -> int:
        """Start a game at ``table`` from an exported record. The record is checked whole
        first (every move legal in order); only then is it written, in one transaction."""
        if not isinstance(record, dict) or record.get("record") != RECORD_VERSION:
            raise JournalError(f"not a game record of version {RECORD_VERSION}")
        state = parse_state(record.get("initial"))
        game = game_of(state)
        if record.get("game") != game.name:
            raise JournalError(f"the record says {record.get('game')!r} but holds {game.name}")
        players = record.get("players", [])
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise JournalError("players: expected a list of names")
        entries = record.get("entries", [])
        if not isinstance(entries, list):
            raise JournalError("entries: expected a list")
        if players and len(players) != game.seats(state):
            raise JournalError(
                f"players: {len(players)} names for a game of {game.seats(state)} seats"
            )
        # Every move is checked where it was played, also those undone later.
        states = [state]
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict) or entry.get("kind") not in KINDS:
                raise JournalError(f"entries[{i}]: expected an entry with a known kind")
            if entry["kind"] == "move":
                move = game.move_from_json(entry.get("data"))
                states.append(game.play(states[-1], move))  # IllegalMove names it
            elif entry["kind"] == "undo" and len(states) > 1:
                states.pop()
        with self.lock, self.db:
            self.db.execute("BEGIN")
            game_id = self.start_game(table, state, tuple(players))
            for entry in entries:
                self.append(game_id, entry["kind"], entry.get("data"))
        return game_id

    def backup(self, destination: str | Path) -> Path:
        """A consistent copy of the journal, taken while it is in use."""
        destination = Path(destination)
        if not destination.parent.is_dir():
            raise JournalError(f"cannot back up to {destination}: no folder {destination.parent}")
        try:
            target = sqlite3.connect(destination)
            try:
                with self.lock:
                    self.db.backup(target)
            finally:
                target.close()
        except sqlite3.Error as error:
            raise JournalError(f"cannot back up to {destination}: {error}") from None
        return destination

    def close(self) -> None:
        self.db.close()

    def _game_row(self, game_id: int) -> tuple[str, str]:
        rows = self._execute("SELECT game, initial FROM games WHERE id = ?", (game_id,))
        row = rows[0] if rows else None
        if row is None:
            raise JournalError(f"no game {game_id!r} in {self.path}")
        return row[0], row[1]
