"""``companion journal``: a journal's games listed, exported as JSON records in the
notation, imported to replay, and backed up while the service runs.

Listing, export and backup change no game, so they may run beside a serving companion
(SQLite's write-ahead log lets them; opening the journal brings an old schema up to date,
which the serving companion has done already); import writes a game, so it takes the
instance folder's lock and is refused while a companion serves from it (that server
would never see it).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TextIO

from companion.journal import Journal, JournalError
from rules.notation import dumps

JOURNAL_FILE = "journal.sqlite"


def open_journal(instance: str | Path) -> Journal:
    path = Path(instance) / JOURNAL_FILE
    if not path.is_file():
        demo = Path(instance) / "demo" / JOURNAL_FILE
        hint = f" (the demo's is in {demo.parent})" if demo.is_file() else ""
        raise JournalError(
            f"no journal at {path}: give the --instance folder the service uses{hint}"
        )
    return Journal(path)


def list_games(instance: str | Path, out: TextIO, as_json: bool = False) -> int:
    journal = open_journal(instance)
    try:
        rows = []
        for game_id, table, game in journal.games():
            players = list(journal.players(game_id))
            moves = len(journal.moves(game_id))
            rows.append({"id": game_id, "table": table, "game": game, "players": players,
                         "moves": moves})  # fmt: skip
    finally:
        journal.close()
    if as_json:
        print(dumps({"games": rows}), file=out)
        return 0
    for row in rows:
        names = ", ".join(row["players"]) or "(the configuration's players)"
        print(f"{row['id']}: table {row['table']}, {row['game']}, {names}, {row['moves']} moves",
              file=out)  # fmt: skip
    return 0


def export_game(instance: str | Path, game_id: int, out: TextIO) -> int:
    journal = open_journal(instance)
    try:
        record = journal.export(game_id)
    finally:
        journal.close()
    print(dumps(record), file=out)
    return 0


def import_game(instance: str | Path, table: str, source: str | Path, out: TextIO) -> int:
    """Replay a record as ``table``'s current game; refused whole if any move is illegal."""
    from companion.serve import lock_instance

    path = Path(source)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise JournalError(f"{path}: not a readable game record: {error}") from None
    lock = lock_instance(Path(instance))
    try:
        journal = Journal(Path(instance) / JOURNAL_FILE)
        try:
            game_id = journal.import_record(table, record)
            moves = len(journal.moves(game_id))
        finally:
            journal.close()
    finally:
        lock.close()
    print(f"imported {path} as game {game_id} at table {table} ({moves} moves)", file=out)
    return 0


def backup(instance: str | Path, destination: str | Path, out: TextIO) -> int:
    destination = Path(destination)
    if destination.exists():
        raise JournalError(f"{destination} exists: give a new file for the backup")
    journal = open_journal(instance)
    try:
        journal.backup(destination)
    finally:
        journal.close()
    print(f"backed up {Path(instance) / JOURNAL_FILE} to {destination}", file=out)
    return 0
