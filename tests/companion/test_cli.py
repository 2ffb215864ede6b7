"""The ``companion`` command: simulate and games, their JSON contract and their errors."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_simulate_json_is_byte_identical_for_the_same_arguments(capsys):
    args = ("simulate", "gimmel", "--games", "12", "--seed", "1", "--json")
    code, first, err = run(capsys, *args)
    assert code == 0
    assert "games/s" in err and "moves/s" in err  # timing goes to stderr only
    _, second, _ = run(capsys, *args)
    assert first == second
    _, other, _ = run(capsys, "simulate", "gimmel", "--games", "12", "--seed", "2", "--json")
    assert other != first


def test_simulate_json_summary_adds_up(capsys):
    _, out, _ = run(capsys, "simulate", "gimmel", "--games", "12", "--seed", "3", "--json")
    summary = json.loads(out)
    assert out.count("\n") == 1  # one JSON object on one line
    assert summary["game"] == "gimmel" and summary["games"] == 12 and summary["seed"] == 3
    assert summary["finished"] + summary["unfinished"] == 12
    assert sum(summary["wins"]) + summary["draws"] == summary["finished"]
    assert sum(summary["outcomes"].values()) == summary["finished"]
    assert set(summary["outcomes"]) <= {"gimmel.target", "gimmel.draw", "gimmel.draw-claimed"}
    assert summary["situations"]["lot"] == 12
    assert summary["situations"]["capture"] <= summary["situations"]["leap"]
    for seat in summary["scores"]:
        assert sum(count for _, count in seat["histogram"]) == summary["finished"]
        assert 0 <= seat["min"] <= seat["mean"] <= seat["max"] <= 40
    moves = summary["situations"]["lot"] + summary["situations"]["place"]
    moves += summary["situations"]["leap"] + summary["situations"].get("pass", 0)
    moves += summary["situations"].get("claim-draw", 0)
    assert moves == summary["length"]["total"]


def test_the_ply_limit_reports_games_as_unfinished_never_as_over(capsys):
    _, out, _ = run(capsys, "simulate", "gimmel", "--games", "3", "--ply-limit", "10", "--json")
    summary = json.loads(out)
    assert summary["finished"] == 0 and summary["unfinished"] == 3
    assert summary["outcomes"] == {} and summary["draws"] == 0 and summary["wins"] == [0, 0]


def test_options_reach_the_games(capsys):
    _, out, _ = run(
        capsys, "simulate", "gimmel", "--games", "4", "--option", "variant=true", "--json"
    )
    summary = json.loads(out)
    assert summary["options"] == {"draw": "automatic", "variant": True}
    # A variant game ends only at 60 points or with both on at least 40; a standard game
    # never passes 35 (30 plus a falcon).
    assert summary["finished"] >= 1
    assert max(seat["max"] for seat in summary["scores"]) >= 40


def test_show_prints_the_board_and_the_ending(capsys):
    code, out, _ = run(capsys, "simulate", "gimmel", "--games", "1", "--seed", "5", "--show")
    assert code == 0
    assert "   a b c d e f g h" in out
    assert "The lot gives White to seat" in out
    assert ("Won by seat" in out) or ("Drawn:" in out)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("simulate", "chess"), "unknown game 'chess'; known games: gimmel"),
        (("simulate", "gimmel", "--players", "3"), "gimmel takes 2 players, got 3"),
        (("simulate", "gimmel", "--option", "draw=maybe"), "option 'draw' must be one of"),
        (("simulate", "gimmel", "--option", "colour"), "--option expects NAME=VALUE"),
        (("simulate", "gimmel", "--games", "0"), "--games must be at least 1"),
        (("simulate", "gimmel", "--kit", "/nonexistent.toml"), "cannot read /nonexistent.toml"),
        (("simulate", "gimmel", "--show", "--json"), "--show and --json do not go together"),
        (("simulate", "gimmel", "--show", "--delay", "-1"), "--delay must not be negative"),
        (("simulate", "gimmel", "--delay", "1"), "--delay works with --show only"),
        (("simulate", "gimmel", "--option", "variant=True"), "must be one of false, true"),
    ],
)
def test_bad_arguments_give_a_clear_error_and_exit_2(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert out == ""
    assert err.startswith("companion: error: ") and message in err
    assert "Traceback" not in err


def test_games_lists_every_game_with_its_options(capsys):
    _, out, _ = run(capsys, "games", "--json")
    listing = json.loads(out)
    assert listing["gimmel"]["players"] == [2, 2]
    assert listing["gimmel"]["options"]["draw"]["choices"] == ["automatic", "claim"]
    assert listing["gimmel"]["options"]["variant"]["default"] is False


def test_the_installed_console_command_runs():
    command = shutil.which("companion") or str(
        __import__("pathlib").Path(sys.executable).with_name("companion")
    )
    result = subprocess.run(
        [command, "simulate", "gimmel", "--games", "2", "--seed", "9", "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["games"] == 2


def test_simulate_uraeus_counts_its_situations(capsys):
    _, out, _ = run(capsys, "simulate", "uraeus", "--players", "3", "--games", "3", "--json")
    summary = json.loads(out)
    assert summary["players"] == 3 and summary["finished"] == 3
    assert len(summary["wins"]) == 3 and sum(summary["wins"]) == 3
    situations = summary["situations"]
    assert situations["rolloff"] >= 9  # three seats roll at least once a game
    assert situations["enter"] >= 3 * 2 * 3  # two finishers bring in all three pieces
    assert situations["home"] >= 3 * 2 * 3
    assert situations["capture"] >= situations.get("capture-chain", 0)
    assert sum(summary["outcomes"].values()) == 3
    code, _, err = run(capsys, "simulate", "uraeus", "--players", "5")
    assert code == 2 and "uraeus takes 2 to 4 players, got 5" in err


def test_simulate_regie_counts_its_situations(capsys):
    _, out, _ = run(capsys, "simulate", "regie", "--games", "6", "--seed", "2", "--json")
    summary = json.loads(out)
    assert summary["finished"] == 6
    assert sum(summary["wins"]) + summary["draws"] == 6
    situations = summary["situations"]
    assert situations["start"] == 6
    assert situations["insert"] >= 6 * 8  # the finisher put in all its chips
    # Every finished game has a player with all 8 chips through: in the box or on the table.
    landed = situations.get("score", 0) + situations.get("box-zero", 0) + situations["table"]
    assert landed >= 6 * 8
    assert situations.get("fall-through", 0) <= situations["insert"]
    for seat, scores in enumerate(summary["scores"]):
        assert scores["max"] <= 5 * 8, seat  # the best compartment is worth 5


def start_emulator(kind: str, seed: int, link, *extra: str) -> subprocess.Popen:
    process = subprocess.Popen(
        [companion_command(), "emulate", kind, "--seed", str(seed), "--link", str(link),
         "--interval", "0.05", *extra],
        stdout=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    first = process.stdout.readline()  # the pseudo-terminal's path, then it runs
    assert first.startswith("/dev/"), first
    return process


def companion_command() -> str:
    return shutil.which("companion") or str(
        __import__("pathlib").Path(sys.executable).with_name("companion")
    )


@pytest.mark.parametrize("kind", ["die", "regie"])
def test_emulate_and_watch_print_the_hello_then_events_in_sequence(tmp_path, capsys, kind):
    link = tmp_path / f"{kind}-port"
    emulator = start_emulator(kind, 3, link)
    try:
        code, out, _ = run(capsys, "devices", "watch", str(link), "--count", "20", "--json")
    finally:
        emulator.terminate()
        emulator.wait(timeout=10)
    assert code == 0
    lines = [json.loads(line) for line in out.splitlines()]
    assert lines[0]["event"] == "hello" and lines[0]["kind"] == kind
    events = lines[1:]
    assert len(events) == 20
    seqs = [event["seq"] for event in events]
    assert seqs == sorted(seqs) and len(set(seqs)) == 20
    if kind == "die":
        faces = [event["face"] for event in events if event["event"] == "roll"]
        assert faces and all(1 <= face <= 6 for face in faces)
    assert not link.exists()  # the emulator removed its link when it stopped


def test_watch_reconnects_after_the_device_is_replaced(tmp_path):
    link = tmp_path / "die-port"
    first = start_emulator("die", 3, link)
    watch = subprocess.Popen(
        [companion_command(), "devices", "watch", str(link), "--count", "40", "--json"],
        stdout=subprocess.PIPE,
        text=True,
    )
    second = None
    try:
        lines = []
        for line in watch.stdout:  # waits on each line the watch prints
            lines.append(json.loads(line))
            if len(lines) == 5 and second is None:
                first.terminate()
                first.wait(timeout=10)
                second = start_emulator("die", 3, link)  # the same seed: a new boot all the same
            if lines[-1]["event"] == "reset":
                break
        events = [line["event"] for line in lines]
        assert "link-down" in events and "reset" in events
        reset = next(line for line in lines if line["event"] == "reset")
        assert reset["before"] != reset["after"]
        more = [json.loads(watch.stdout.readline()) for _ in range(3)]
        assert all("seq" in line for line in more)  # and it goes on with the new device
    finally:
        watch.kill()
        for process in (first, second):
            if process is not None:
                process.terminate()
                process.wait(timeout=10)


def test_watch_ends_with_an_error_on_a_port_that_can_never_work(capsys, tmp_path):
    code, _, err = run(capsys, "devices", "watch", str(tmp_path), "--json")
    assert code == 2 and "companion: error:" in err and str(tmp_path) in err
    code, _, err = run(capsys, "devices", "watch", "/dev/null", "--count", "0")
    assert code == 2 and "--count must be at least 1" in err


def free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def get_json(url: str, timeout: float = 20.0):
    import time
    import urllib.request

    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                return json.loads(answer.read())
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)  # the server is starting: poll its port


def post_json(url: str, body: dict, pin: str):
    import urllib.request

    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json",
                                              "X-Table-PIN": pin})  # fmt: skip
    with urllib.request.urlopen(request, timeout=5) as answer:
        return json.loads(answer.read())


def test_serve_keeps_every_table_through_a_sigkill(tmp_path):
    import signal

    example = Path(__file__).resolve().parents[2] / "docs" / "tables.example.toml"
    port = free_port()
    command = [companion_command(), "serve", "--config", str(example), "--port", str(port),
               "--instance", str(tmp_path / "instance")]  # fmt: skip
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    base = f"http://127.0.0.1:{port}/api/tables"
    try:
        assert [t["id"] for t in get_json(base)["tables"]] == ["uraeus", "regie", "gimmel"]
        for face in (6, 1, 2, 4):
            post_json(f"{base}/uraeus/moves", {"move": {"type": "roll", "face": face}}, "4711")
        before = get_json(base)
    finally:
        server.send_signal(signal.SIGKILL)
        server.wait(timeout=10)
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        after = get_json(base)
        # The example's devices are not plugged in here: their health is no game state.
        for listing in (before, after):
            for table in listing["tables"]:
                table.pop("sources")
        assert after == before
        uraeus = after["tables"][0]
        assert uraeus["seq"] >= 4 and "shows 4" in uraeus["last_move"]
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_the_demo_brings_up_live_tables_and_names_the_die_link(tmp_path):
    import time

    port = free_port()
    server = subprocess.Popen(
        [companion_command(), "serve", "--demo", "--pace", "0.2", "--port", str(port),
         "--instance", str(tmp_path)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        base = f"http://127.0.0.1:{port}/api/tables"
        first = {t["id"]: t["seq"] for t in get_json(base)["tables"]}
        # The Gimmel table moves once its camera is set up (photos rendered, the board
        # learnt): seconds here, half a minute on a loaded machine.
        deadline = time.monotonic() + 90
        while True:
            tables = {t["id"]: t for t in get_json(base)["tables"]}
            moved = all(tables[name]["seq"] > first[name] for name in first)
            die = tables["uraeus"]["sources"].get("die", {})
            if (moved and die.get("up")) or time.monotonic() > deadline:
                break
            time.sleep(0.2)  # polling the running service, which moves on its own
        assert set(tables) == {"uraeus", "regie", "gimmel", "nil", "horus"}
        assert moved, "every table's seq advances"
        assert die["up"] and die["port"] and die["boot"]
        assert tables["regie"]["sources"]["sensors"]["up"]
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_a_second_server_on_one_instance_folder_is_refused(tmp_path):
    from companion.serve import InstanceBusy, lock_instance

    held = lock_instance(tmp_path)
    try:
        with pytest.raises(
            InstanceBusy, match=rf"in use by a running companion \(pid {os.getpid()}\)"
        ):
            lock_instance(tmp_path)
    finally:
        held.close()
    lock_instance(tmp_path).close()  # released with its holder: no stale lock


@pytest.mark.parametrize(
    ("spec", "message"),
    [("chess:0", "tables with bots are uraeus, gimmel, nil, horus"),
     ("gimmel:2", "seat of gimmel is 0 to 1"), ("uraeus:x", "seat of uraeus is 0 to 2"),
     ("nil:3", "seat of nil is 0 to 2"), ("horus:3", "seat of horus is 0 to 2")],
)  # fmt: skip
def test_the_demo_names_a_human_seat_it_cannot_leave(tmp_path, spec, message):
    from companion.demo import parse_humans

    assert parse_humans(("uraeus:1", "gimmel:0")) == {"uraeus": {1}, "gimmel": {0}}
    with pytest.raises(ValueError, match=message):
        parse_humans((spec,))


def test_journal_games_export_import_and_backup(tmp_path, capsys):
    from companion.journal import Journal
    from companion.serve import lock_instance
    from companion.tables import Table, TableConfig

    instance = tmp_path / "instance"
    journal = Journal(instance / "journal.sqlite")
    table = Table(TableConfig("u", "uraeus", ("Ada", "Ben"), "1"), journal)
    for face in (5, 2, 3):
        table.play({"type": "roll", "face": face})
    journal.close()
    args = ["--instance", str(instance)]

    assert main(["journal", "games", "--json", *args]) == 0
    (listed,) = json.loads(capsys.readouterr().out)["games"]
    assert listed == {"id": 1, "table": "u", "game": "uraeus", "players": ["Ada", "Ben"],
                      "moves": 3}  # fmt: skip
    assert main(["journal", "export", "1", *args]) == 0
    record = capsys.readouterr().out
    (tmp_path / "game.json").write_text(record)
    assert main(["journal", "import", "copy", str(tmp_path / "game.json"), *args]) == 0
    assert "as game 2 at table copy (3 moves)" in capsys.readouterr().out
    assert main(["journal", "backup", str(tmp_path / "backup.sqlite"), *args]) == 0
    copy = Journal(tmp_path / "backup.sqlite")
    assert copy.replay(2) == copy.replay(1) and copy.players(2) == ("Ada", "Ben")

    # Bad input is named, and changes nothing.
    (tmp_path / "bad.json").write_text(record.replace('"face":3', '"face":9'))
    assert main(["journal", "import", "copy", str(tmp_path / "bad.json"), *args]) == 2
    assert "face" in capsys.readouterr().err
    held = lock_instance(instance)
    try:
        assert main(["journal", "import", "copy", str(tmp_path / "game.json"), *args]) == 2
        assert "in use by a running companion" in capsys.readouterr().err
    finally:
        held.close()
    assert main(["journal", "export", "7", *args]) == 2
    assert "no game 7" in capsys.readouterr().err
    assert main(["journal", "backup", str(tmp_path / "backup.sqlite"), *args]) == 2
    assert "exists" in capsys.readouterr().err
    assert main(["journal", "games", "--instance", str(tmp_path / "nowhere")]) == 2
    assert "no journal at" in capsys.readouterr().err
    assert len(Journal(instance / "journal.sqlite").games()) == 2


def test_serve_on_a_port_in_use_says_so_before_claiming_to_serve(tmp_path, capsys):
    import socket

    example = Path(__file__).resolve().parents[2] / "docs" / "tables.example.toml"
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["serve", "--config", str(example), "--port", str(port),
                     "--instance", str(tmp_path)])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 2 and f"cannot listen on 127.0.0.1:{port}" in err
    assert "serving" not in out


def test_score_prints_the_horus_count_per_player_and_region(tmp_path, capsys):
    from horus_positions import HORUS, position

    from rules.notation import dumps

    # Beispiel 6 (rulebook "Der Horustempel"): farmland 4 x 2, hills capped at 10, the
    # desert at the temple 2, the other desert 1.
    layout = [(0, 2, "temple"), (0, 4, "desert"), (-2, 2, "farmland"), (-4, 2, "farmland"),
              (-6, 2, "farmland"), (-4, 4, "farmland"), (2, 2, "hills"), (4, 2, "hills"),
              (6, 2, "hills"), (4, 4, "hills"), (6, 4, "hills"), (8, 4, "hills"),
              (-6, 0, "desert")]  # fmt: skip
    state = position(layout, [(-2, 2, 0), (2, 2, 1), (0, 4, 0), (-6, 0, 1)])
    path = tmp_path / "state.json"
    path.write_text(dumps(HORUS.state_to_json(state)), encoding="utf-8")
    assert main(["score", "horus", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["scores"] == [10, 11]
    assert sorted(r["value"] for r in report["regions"]) == [1, 2, 8, 10]
    assert main(["score", "horus", str(path)]) == 0
    text = capsys.readouterr().out
    assert "count so far: seat 0 10, seat 1 11" in text
    assert "hills region of 6 at 2,2: 10 (temple x2; capped at 10)" in text
    assert main(["score", "gimmel", str(path)]) == 2
    assert "holds a horus state, not gimmel" in capsys.readouterr().err


def test_score_names_the_file_it_cannot_read(tmp_path, capsys):
    broken = tmp_path / "broken.json"
    broken.write_text("{bad", encoding="utf-8")
    assert main(["score", "nil", str(broken)]) == 2
    err = capsys.readouterr().err
    assert str(broken) in err and "not valid JSON" in err
    assert main(["score", "nil", str(tmp_path / "missing.json")]) == 2
    assert "missing.json" in capsys.readouterr().err
