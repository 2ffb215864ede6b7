"""The link against the emulators over real pseudo-terminals: every event the device
meant to send arrives once, in order, through garbage, flipped bits, dropped and doubled
frames, reboots and unplugging; the counters say what happened. Waits are on events."""

from __future__ import annotations

import contextlib
import queue
import random
import threading
import time
from pathlib import Path

import pytest

from hardware.emulate.device import Faults
from hardware.emulate.die import DieEmulator
from hardware.emulate.regie import RegieEmulator
from hardware.link import DeviceReset, Link, LinkDown, LinkUp, Problem, Received
from hardware.messages import DieSnapshot, Heartbeat, Hello, RegieSnapshot

HOUSEKEEPING = (Hello, Heartbeat, DieSnapshot, RegieSnapshot)
WAIT = 20.0  # seconds: an upper bound for a loaded machine, never a sleep


class Bench:
    """An emulator served in one thread and a link read in another."""

    def __init__(self, emulator, link_path: Path, kind: str) -> None:
        self.device = emulator
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.happenings: queue.Queue = queue.Queue()
        self.received: list = []
        self.link = Link(str(link_path), kind=kind, silence=5.0)
        self.serving = threading.Thread(target=self._serve, daemon=True)
        self.reading = threading.Thread(target=self._read, daemon=True)
        self.serving.start()
        self.reading.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            with self.lock:
                self.device.serve(timeout=0.0)
            time.sleep(0.005)  # the device's own pace, not a test wait

    def _read(self) -> None:
        for happening in self.link.run(stop=self.stop.is_set):
            if isinstance(happening, Received):
                self.received.append(happening.event)
            self.happenings.put(happening)

    def wait_for(self, kind, predicate=lambda h: True):
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            try:
                happening = self.happenings.get(timeout=0.1)
            except queue.Empty:
                continue
            if isinstance(happening, kind) and predicate(happening):
                return happening
        raise AssertionError(f"no {kind.__name__} within {WAIT} s")

    def act(self, times: int) -> None:
        for _ in range(times):
            with self.lock:
                self.device.act()

    def expected_since(self, hello: Hello) -> list:
        """What the device meant to send after ``hello``, less the housekeeping."""
        truth = self.device.truth
        start = max(i for i, e in enumerate(truth) if e == hello)
        return [e for e in truth[start + 1 :] if not isinstance(e, HOUSEKEEPING)]

    def caught_up(self, hello: Hello) -> list:
        """Wait until everything meant since ``hello`` has arrived; return it."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            with self.lock:
                expected = self.expected_since(hello)
            got = [e for e in self.received_since(hello) if not isinstance(e, HOUSEKEEPING)]
            if len(got) >= len(expected):
                return got
            with contextlib.suppress(queue.Empty):
                self.happenings.get(timeout=0.1)  # wake on the link's next happening
        raise AssertionError("the link did not catch up")

    def received_since(self, hello: Hello) -> list:
        return list(self.received[self.marks[hello.boot] :])

    def close(self) -> None:
        self.stop.set()
        self.reading.join(timeout=5)
        self.serving.join(timeout=5)
        self.device.close()


def start(tmp_path, cls, faults: Faults, seed: int = 7) -> Bench:
    link = tmp_path / f"{cls.kind}-link"
    device = cls(random.Random(seed), serial="T1", faults=faults, link=link, clock=time.monotonic)
    bench = Bench(device, link, cls.kind)
    bench.marks = {}
    up = bench.wait_for(LinkUp)
    bench.marks[up.hello.boot] = len(bench.received)
    bench.hello = up.hello
    return bench


@pytest.mark.parametrize("cls", [DieEmulator, RegieEmulator])
def test_every_event_arrives_once_in_order_on_a_clean_line(tmp_path, cls):
    bench = start(tmp_path, cls, Faults())
    try:
        bench.act(30)
        got = bench.caught_up(bench.hello)
        assert got == bench.expected_since(bench.hello)
        assert len(got) >= 30
        assert bench.link.health.gaps == 0 and bench.link.health.duplicates == 0
        seqs = [e.seq for e in got]
        assert seqs == sorted(seqs)
    finally:
        bench.close()


@pytest.mark.parametrize("cls", [DieEmulator, RegieEmulator])
def test_with_every_fault_the_events_equal_the_truth_and_counters_match(tmp_path, cls):
    faults = Faults({"garbage": 0.15, "flip": 0.1, "drop": 0.1, "duplicate": 0.1})
    bench = start(tmp_path, cls, faults, seed=11)
    try:
        hello = bench.hello
        for round_ in range(4):
            bench.act(25)
            got = bench.caught_up(hello)
            assert got == bench.expected_since(hello), f"round {round_}"
            # Reboots and unplugs strike between rounds, once the line has caught up.
            kind = ("reboot", "unplug")[round_ % 2]
            with bench.lock:
                before = len(bench.device.fault_log)
                bench.device.faults.rates[kind] = 1.0
                bench.device.maybe_disrupt()
                bench.device.faults.rates[kind] = 0.0
                assert bench.device.fault_log[before][0] == kind
            reset = bench.wait_for(DeviceReset)
            assert reset.before.boot == hello.boot and reset.after.boot != hello.boot
            hello = reset.after
            bench.marks[hello.boot] = len(bench.received)
        log = [kind for kind, _ in bench.device.fault_log]
        health = bench.link.health
        assert health.resets == log.count("reboot") + log.count("unplug") == 4
        assert health.downs >= log.count("unplug") == 2
        # Each doubled frame is counted once; the second copy of the very last frame
        # before an unplug can be cut off with the line (at most one per unplug).
        doubled = log.count("duplicate")
        assert doubled > 0 and doubled - log.count("unplug") <= health.duplicates <= doubled
        assert health.gaps >= 1 and health.replays >= 1
        assert health.dropped_bytes > 0 and health.resyncs > 0
        assert health.bad_frames + health.gaps >= log.count("flip") > 0
    finally:
        bench.close()


def test_a_device_of_another_kind_is_refused(tmp_path):
    link = tmp_path / "wrong"
    device = DieEmulator(random.Random(1), serial="T1", link=link, clock=time.monotonic)
    bench = Bench(device, link, "regie")
    try:
        down = bench.wait_for(LinkDown, lambda h: "not a regie" in h.reason)
        assert "a die device answered" in down.reason
    finally:
        bench.close()


def test_a_missing_port_is_reported_once_and_retried(tmp_path):
    sleeps = []
    link = Link(str(tmp_path / "nothing"), sleep=sleeps.append)
    runs = link.run(stop=lambda: len(sleeps) >= 4)
    down = next(runs)
    assert isinstance(down, LinkDown) and "cannot open" in down.reason
    assert list(runs) == []  # no second report while it stays missing
    assert sleeps == [0.1, 0.2, 0.5, 1.0]  # backoff


def test_garbage_from_the_device_is_counted_never_raised(tmp_path):
    bench = start(tmp_path, DieEmulator, Faults())
    try:
        with bench.lock:
            bench.device.port.write(b"\x00\xffnoise@@\n@1 ROLL face=9 rolls=1 *0000\n")
            from hardware.protocol import frame

            bench.device.port.write(frame(50000, "ROLL", face=9, rolls=1).encode())
        problem = bench.wait_for(Problem)
        assert "face=9: expected 1 to 6" in problem.reason
        assert bench.link.health.refused == 1 and bench.link.health.bad_frames >= 1
    finally:
        bench.close()


def test_usb_ids_that_are_not_plugged_in_are_named(monkeypatch):
    from serial.tools import list_ports

    from hardware.link import find_port

    monkeypatch.setattr(list_ports, "comports", lambda: [])
    assert find_port("/dev/serial/by-id/usb-x") == "/dev/serial/by-id/usb-x"
    with pytest.raises(FileNotFoundError, match="no USB serial device usb:2e8a:000a"):
        find_port("usb:2e8a:000a")
    with pytest.raises(ValueError, match="expected usb:VID:PID"):
        find_port("usb:pico")


def test_a_busy_port_is_reported_with_the_reason(tmp_path):
    import serial

    link_path = tmp_path / "busy"
    device = DieEmulator(random.Random(1), serial="T1", link=link_path, clock=time.monotonic)
    holder = serial.Serial(str(link_path), exclusive=True)
    try:
        sleeps = []
        link = Link(str(link_path), sleep=sleeps.append)
        down = next(link.run(stop=lambda: bool(sleeps)))
        assert isinstance(down, LinkDown) and "cannot open" in down.reason
        assert "lock" in down.reason.lower()
    finally:
        holder.close()
        device.close()


class SilentPort:
    """A port that opens and then says nothing: a hung device."""

    def __init__(self) -> None:
        self.written = b""

    def read(self, size: int) -> bytes:
        return b""

    def write(self, data: bytes) -> None:
        self.written += data

    def close(self) -> None:
        pass


def test_a_silent_device_is_declared_down_by_the_heartbeat_timeout():
    now = [0.0]

    def clock() -> float:
        now[0] += 0.5  # every read takes half a second of the injected clock
        return now[0]

    port = SilentPort()
    link = Link("fake", open_port=lambda path: port, clock=clock, sleep=lambda s: None, silence=3.0)
    down = next(link.run())
    assert isinstance(down, LinkDown) and down.reason == "no hello from the device for 3 s"
    assert port.written.count(b" GET what=snapshot ") >= 3  # asked again every second
    assert port.written.startswith(b"@0 GET what=snapshot *")  # it asked for the state first


def test_the_die_throws_its_script_first(tmp_path):
    device = DieEmulator(random.Random(5), serial="T1", clock=time.monotonic)
    try:
        device.script = ["6", "crooked", "2"]
        for _ in range(3):
            device.act()
        thrown = [e for e in device.truth if type(e).__name__ in ("DieRolled", "DieInvalid")]
        assert [getattr(e, "face", getattr(e, "why", None)) for e in thrown] == [6, "crooked", 2]
        with pytest.raises(ValueError, match="a face 1 to 6"):
            device.throw("7")
    finally:
        device.close()


def test_a_device_that_does_not_replay_is_resynced_and_the_loss_reported(tmp_path):
    bench = start(tmp_path, DieEmulator, Faults())
    try:
        bench.device.replay = lambda start: None  # a device without REPLAY
        with bench.lock:
            bench.device.faults.rates["drop"] = 1.0
            bench.device.act()  # these frames never arrive
            bench.device.faults.rates["drop"] = 0.0
            bench.device.act()  # these do, after a hole
        problem = bench.wait_for(Problem, lambda p: "lost" in p.reason)
        assert "frames were lost" in problem.reason
        with bench.lock:
            bench.device.script = ["5"]
            bench.device.act()
        rolled = bench.wait_for(Received, lambda r: getattr(r.event, "face", None) == 5)
        assert rolled.event.face == 5  # and it goes on
        assert bench.link.health.lost >= 1
    finally:
        bench.close()


def test_the_link_file_is_never_clobbered_nor_removed_from_another_emulator(tmp_path):
    plain = tmp_path / "notes.txt"
    plain.write_text("keep me")
    with pytest.raises(ValueError, match="exists and is not a symbolic link"):
        DieEmulator(random.Random(1), serial="T1", link=plain, clock=time.monotonic)
    assert plain.read_text() == "keep me"
    link = tmp_path / "die"
    first = DieEmulator(random.Random(1), serial="T1", link=link, clock=time.monotonic)
    second = DieEmulator(random.Random(2), serial="T2", link=link, clock=time.monotonic)
    first.close()  # the link is the second's now: it stays
    assert link.is_symlink() and str(link.resolve()) == second.port.path
    second.close()
    assert not link.is_symlink()
