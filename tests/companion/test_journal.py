"""The journal: a real SQLite file, append-only, durable at each append, replayed into
the same state after a restart or a SIGKILL."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from companion.journal import SCHEMA_VERSION, Journal, JournalError
from rules import CHANCE, IllegalMove, get_game, new_game
from rules.notation import dumps
from rules.playout import game_rng, random_playout

URAEUS = get_game("uraeus")


def played(n: int, seed: int = 3):
    """The first ``n`` moves of a seeded 3-player Uräus game, and the states on the way."""
    playout = random_playout(URAEUS, new_game("uraeus", players=3), game_rng(seed, 0), n)
    return playout.initial, playout.moves


def recorded(tmp_path, initial, moves):
    """A journal holding one game at table "t" with ``moves`` played."""
    journal = Journal(tmp_path / "j.sqlite")
    game_id = journal.start_game("t", initial)
    for move in moves:
        journal.append(game_id, "move", URAEUS.move_to_json(move))
    return journal, game_id


def test_a_game_is_recorded_and_replayed(tmp_path):
    initial, moves = played(60)
    journal = Journal(tmp_path / "journal.sqlite", clock=iter(range(1000)).__next__)
    game_id = journal.start_game("table-1", initial)
    seqs = [journal.append(game_id, "move", URAEUS.move_to_json(m)) for m in moves]
    assert seqs == sorted(seqs) and len(set(seqs)) == 60
    state = initial
    for move in moves:
        state = URAEUS.play(state, move)
    assert journal.replay(game_id) == state
    assert [e.seq for e in journal.entries(since=seqs[49])] == seqs[50:]
    assert journal.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert journal.db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    journal.close()
    again = Journal(tmp_path / "journal.sqlite")
    assert again.replay(again.current_game("table-1")) == state


def test_an_undo_takes_back_the_latest_move_and_stays_on_record(tmp_path):
    initial, moves = played(10)
    journal, game_id = recorded(tmp_path, initial, moves)
    journal.append(game_id, "flag", {"rule": "uraeus.pass-from-front"})
    journal.append(game_id, "undo", {"by": "tablet"})
    assert len(journal.moves(game_id)) == 9
    assert [e.kind for e in journal.entries(game_id)][-2:] == ["flag", "undo"]
    state = initial
    for move in moves[:9]:
        state = URAEUS.play(state, move)
    assert journal.replay(game_id) == state


def test_the_kit_and_options_travel_with_the_game(tmp_path):
    journal = Journal(tmp_path / "j.sqlite")
    state = new_game("gimmel", options={"variant": True, "draw": "claim"})
    game_id = journal.start_game("t", state)
    assert journal.initial(game_id) == state
    assert journal.export(game_id)["initial"]["kit"]["board"] == {"columns": 8, "rows": 18}


def test_sigkill_mid_game_loses_nothing_that_was_acknowledged(tmp_path):
    path = tmp_path / "j.sqlite"
    script = textwrap.dedent(
        f"""
        import sys
        from companion.journal import Journal
        from rules import get_game, new_game
        from rules.playout import game_rng, random_playout
        game = get_game("uraeus")
        playout = random_playout(game, new_game("uraeus", players=3), game_rng(3, 0), 400)
        journal = Journal({str(path)!r})
        game_id = journal.start_game("table-1", playout.initial)
        for move in playout.moves:
            seq = journal.append(game_id, "move", game.move_to_json(move))
            print(seq, flush=True)  # acknowledged: on disk
        import time
        time.sleep(60)
        """
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    acknowledged = [int(process.stdout.readline()) for _ in range(150)]
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    journal = Journal(path)
    game_id = journal.current_game("table-1")
    recorded = journal.moves(game_id)
    assert len(recorded) >= len(acknowledged)
    initial, moves = played(len(recorded))
    state = initial
    for move in moves:
        state = URAEUS.play(state, move)
    assert journal.replay(game_id) == state  # the same state, ready to go on


def test_export_and_import_replay_the_same_game(tmp_path):
    initial, moves = played(40)
    journal, game_id = recorded(tmp_path, initial, moves)
    record = json.loads(json.dumps(journal.export(game_id)))
    copy = journal.import_record("other", record)
    assert journal.replay(copy) == journal.replay(game_id)
    record["entries"][5]["data"] = {"type": "roll", "face": 9}
    with pytest.raises(IllegalMove, match=r"uraeus\.die-face"):
        journal.import_record("bad", record)
    with pytest.raises(JournalError, match="not a game record"):
        journal.import_record("bad", {"record": 7})


def test_a_backup_is_a_working_journal(tmp_path):
    initial, moves = played(20)
    journal, game_id = recorded(tmp_path, initial, moves)
    copy = Journal(journal.backup(tmp_path / "backup.sqlite"))
    assert copy.replay(game_id) == journal.replay(game_id)


def test_schema_versions_migrate_up_and_refuse_the_unknown(tmp_path):
    old = tmp_path / "v0.sqlite"
    sqlite3.connect(old).close()  # version 0: an empty file from before the first schema
    journal = Journal(old)
    assert journal.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    journal.close()
    newer = tmp_path / "newer.sqlite"
    db = sqlite3.connect(newer)
    db.execute(f"PRAGMA user_version={SCHEMA_VERSION + 1}")
    db.close()
    with pytest.raises(JournalError, match="has journal schema 3; this companion knows up to 2"):
        Journal(newer)
    broken = tmp_path / "broken.sqlite"
    broken.write_bytes(b"this is no database" * 100)
    with pytest.raises(JournalError, match=r"broken\.sqlite is not a usable journal"):
        Journal(broken)


def test_a_version_1_journal_migrates_with_its_games_intact(tmp_path):
    """A journal written by schema 1 (no players per game) opens under schema 2: its games
    replay to the same state, and their players read as unknown (the configuration's)."""
    from companion.journal import MIGRATIONS

    initial, moves = played(12)
    old = tmp_path / "v1.sqlite"
    db = sqlite3.connect(old, isolation_level=None)
    for statement in MIGRATIONS[1]:
        db.execute(statement)
    db.execute("PRAGMA user_version=1")
    db.execute(
        "INSERT INTO games (table_id, game, started, initial) VALUES (?, ?, ?, ?)",
        ("t", "uraeus", 1.0, dumps(get_game("uraeus").state_to_json(initial))),
    )
    for move in moves:
        db.execute(
            "INSERT INTO entries (game_id, at, kind, data) VALUES (1, 2.0, 'move', ?)",
            (dumps(get_game("uraeus").move_to_json(move)),),
        )
    db.close()
    journal = Journal(old)
    assert journal.db.execute("PRAGMA user_version").fetchone()[0] == 2
    assert journal.players(1) == ()
    expected = initial
    for move in moves:
        expected = get_game("uraeus").play(expected, move)
    assert journal.replay(1) == expected
    later = journal.start_game("t", initial, ("Ada", "Ben"))
    assert journal.players(later) == ("Ada", "Ben")
    assert journal.export(later)["players"] == ["Ada", "Ben"]


def test_bad_requests_name_what_was_wrong(tmp_path):
    journal = Journal(tmp_path / "j.sqlite")
    with pytest.raises(JournalError, match="no game 7"):
        journal.replay(7)
    game_id = journal.start_game("t", new_game("regie"))
    with pytest.raises(JournalError, match="unknown entry kind 'edit'"):
        journal.append(game_id, "edit", {})


def test_a_bad_record_is_refused_whole_and_writes_nothing(tmp_path):
    initial, moves = played(10)
    journal, game_id = recorded(tmp_path, initial, moves)
    record = journal.export(game_id)
    record["entries"][-1]["data"] = {"type": "roll", "face": 9}
    games_before, seq_before = journal.games(), journal.last_seq()
    with pytest.raises(IllegalMove):
        journal.import_record("copy", record)
    assert journal.games() == games_before and journal.last_seq() == seq_before
    record = journal.export(game_id)
    record["players"] = ["Only one"]
    with pytest.raises(JournalError, match="players: 1 names for a game of 3 seats"):
        journal.import_record("copy", record)
    record = journal.export(game_id)
    record["game"] = "gimmel"
    with pytest.raises(JournalError, match="the record says 'gimmel' but holds uraeus"):
        journal.import_record("copy", record)


def test_an_illegal_move_undone_later_in_a_record_is_still_refused(tmp_path):
    initial, moves = played(10)
    journal, game_id = recorded(tmp_path, initial, moves)
    record = journal.export(game_id)
    # A well-formed move the rules refuse after the fifth, then taken back: the record
    # is still false, and it is refused whole.
    state = initial
    for move in moves[:5]:
        state = URAEUS.play(state, move)
    wrong = {"type": "pass", "player": 0} if URAEUS.to_act(state) is CHANCE else {
        "type": "roll", "face": 3}  # fmt: skip
    record["entries"].insert(5, {"at": 0.0, "kind": "move", "data": wrong})
    record["entries"].insert(6, {"at": 0.0, "kind": "undo", "data": {}})
    with pytest.raises(IllegalMove):
        journal.import_record("copy", record)
    with pytest.raises(JournalError, match="no folder"):
        journal.backup(tmp_path / "missing" / "b.sqlite")
