"""A table's serial devices, through real pseudo-terminals with the emulators and the
real link: the die's rolls become the game's rolls; the Regie sensors' sightings become
moves once the frame is still; the link's health is the table's to show."""

from __future__ import annotations

import random
import threading
import time

import pytest

from companion.journal import Journal
from companion.sources import DeviceSource
from companion.tables import Table, TableConfig
from hardware.emulate.die import DieEmulator
from hardware.emulate.regie import RegieEmulator
from rules import get_game
from rules.regie import Start


def wait_until(condition, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting")
        time.sleep(0.02)


@pytest.fixture
def stop():
    stop = threading.Event()
    yield stop
    stop.set()


def running(emulator, stop) -> threading.Lock:
    """Serve ``emulator`` in a thread until ``stop`` or until it is closed (under the
    returned lock)."""
    lock = threading.Lock()

    def serve() -> None:
        while not stop.is_set():
            with lock:
                if emulator.port.link is not None and not emulator.port.link.exists():
                    return  # closed: unplugged
                emulator.serve(timeout=0.0)
            stop.wait(0.01)

    threading.Thread(target=serve, daemon=True).start()
    return lock


def test_the_die_on_its_port_plays_the_uraeus_table(tmp_path, stop):
    table = Table(TableConfig("u", "uraeus", ("Ada", "Ben"), "1"), Journal(tmp_path / "j.sqlite"))
    die = DieEmulator(random.Random(1), serial="D1", clock=time.monotonic, link=tmp_path / "die")
    die.script = ["5", "2", "crooked", "1"]
    lock = running(die, stop)
    source = DeviceSource(table, "die", str(tmp_path / "die"), stop=stop)
    source.start()
    wait_until(lambda: table.summary()["sources"]["die"]["up"])
    assert table.summary()["sources"]["die"]["boot"] == die.boot
    for _ in range(4):
        with lock:
            die.act()
    wait_until(lambda: len(table.journal.moves(table.game_id)) == 4)
    moves = table.journal.moves(table.game_id)
    # Roll-off 5 against 2, the crooked throw said not played, then a 1: the forced entry.
    assert [m.get("face") for m in moves[:3]] == [5, 2, 1] and moves[3]["type"] == "advance"
    said = [e.data for e in table.journal.entries(table.game_id) if "say" in e.data]
    assert len(said) == 1 and "crooked" in said[0]["say"]
    with lock:
        die.close()  # unplugged
    wait_until(lambda: not table.summary()["sources"]["die"]["up"])
    assert table.summary()["sources"]["die"]["problem"]


def test_the_regie_sensors_play_the_game_they_saw(tmp_path, stop):
    regie = get_game("regie")
    table = Table(TableConfig("r", "regie", ("Red", "Blue"), "1"), Journal(tmp_path / "j.sqlite"))
    sensors = RegieEmulator(random.Random(7), serial="R1", clock=time.monotonic,
                            link=tmp_path / "regie")  # fmt: skip
    sensors.game_state = regie.play(sensors.game_state, Start(0))
    table.play({"type": "start", "first": 0})
    lock = running(sensors, stop)
    source = DeviceSource(table, "sensors", str(tmp_path / "regie"), stop=stop, settle=0.3)
    source.start()
    wait_until(lambda: table.summary()["sources"]["sensors"]["up"])
    for _ in range(12):
        with lock:
            sensors.act()
        time.sleep(0.05)
    # The last move is complete once the frame has been still for the settle time.
    wait_until(lambda: table.state.ply == sensors.game_state.ply)
    assert table.state.levels == sensors.game_state.levels
    assert table.state.landed == sensors.game_state.landed
    seen = [e.data for e in table.journal.entries(table.game_id) if e.kind == "input"]
    assert len(seen) == 12 and all(d["source"] == "sensors" for d in seen)


def test_a_device_the_game_does_not_have_is_refused(tmp_path, stop):
    table = Table(TableConfig("g", "gimmel", ("a", "b"), "1"), Journal(tmp_path / "j.sqlite"))
    with pytest.raises(ValueError, match="gimmel has no device 'die'"):
        DeviceSource(table, "die", "/dev/null", stop=stop)


def test_the_die_outlives_a_table_that_changed_its_game(tmp_path, stop):
    table = Table(TableConfig("u", "uraeus", ("Ada", "Ben"), "1"), Journal(tmp_path / "j.sqlite"))
    die = DieEmulator(random.Random(2), serial="D2", clock=time.monotonic, link=tmp_path / "die")
    die.script = ["4", "3"]
    lock = running(die, stop)
    DeviceSource(table, "die", str(tmp_path / "die"), stop=stop).start()
    wait_until(lambda: table.summary()["sources"]["die"]["up"])
    table.new_game(game="gimmel")  # a tablet starts Gimmel at the die's table
    with lock:
        die.act()  # the die is thrown anyway: it means nothing to Gimmel
    wait_until(lambda: die.rolls == 1)
    time.sleep(0.3)
    assert table.journal.moves(table.game_id) == []
    table.new_game(game="uraeus")
    with lock:
        die.act()
    wait_until(lambda: table.journal.moves(table.game_id) == [{"type": "roll", "face": 3}])
    assert table.summary()["sources"]["die"]["problem"] is None
