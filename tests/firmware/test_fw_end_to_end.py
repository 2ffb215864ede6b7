"""The firmware against the companion's own driver (``hardware.link``) over a real
pseudo-terminal, end to end: the board boots and says hello, the driver asks for a
snapshot, the die is thrown (seeded accelerometer traces) or chips fall through the
Regie frame (seeded beam and Hall signals), and the companion sees every roll and every
chip once, in order, with counters that agree, even when the cable loses a frame and
the driver has to ask the firmware for a replay. Waits are on events, never on time."""

from __future__ import annotations

import contextlib
import queue
import threading
import time

from accel_traces import Trace
from beam_signals import Scene
from pty_board import Board

from firmware.die.die import Die
from firmware.regie.regie import Regie
from hardware.link import Link, LinkUp, Problem, Received
from hardware.messages import (
    DieInvalid,
    DieRolled,
    DieSnapshot,
    Heartbeat,
    Hello,
    RegieSnapshot,
    decode,
)
from hardware.protocol import Parser

HOUSEKEEPING = (Hello, Heartbeat, DieSnapshot, RegieSnapshot)
WAIT = 30.0  # seconds: an upper bound on a loaded machine, never a sleep


class Companion:
    """The driver reading the board's port in a thread, as ``companion devices watch``."""

    def __init__(self, board: Board, path, kind: str) -> None:
        self.board = board
        self.link = Link(str(path), kind=kind, silence=5.0)
        self.happenings: queue.Queue = queue.Queue()
        self.received: list = []
        self.problems: list[str] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        for happening in self.link.run(stop=self.stop.is_set):
            if isinstance(happening, Received):
                self.received.append(happening.event)
            elif isinstance(happening, Problem):
                self.problems.append(happening.reason)
            self.happenings.put(happening)

    def wait_up(self) -> LinkUp:
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            try:
                happening = self.happenings.get(timeout=0.1)
            except queue.Empty:
                continue
            if isinstance(happening, LinkUp):
                return happening
        raise AssertionError("the link did not come up")

    def wait_for(self, done) -> list:
        """The events that matter (no housekeeping), once ``done(events)`` holds."""
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            events = [e for e in self.received if not isinstance(e, HOUSEKEEPING)]
            if done(events):
                return events
            with contextlib.suppress(queue.Empty):
                self.happenings.get(timeout=0.1)
        raise AssertionError(f"the companion saw only {self.received}")

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)


def meant(board: Board) -> list:
    """What the firmware meant to send, decoded by the companion, less housekeeping."""
    parser = Parser()
    events = [decode(f) for raw in board.truth for f in parser.feed(raw)]
    return [e for e in events if not isinstance(e, HOUSEKEEPING)]


def run(board: Board, path, kind: str, inputs, enough) -> tuple[Companion, list, LinkUp]:
    board.start(inputs)
    companion = Companion(board, path, kind)
    try:
        up = companion.wait_up()
        board.go.set()
        events = companion.wait_for(lambda events: board.done.is_set() and enough(events))
        # Everything meant has arrived: wait for the last heartbeat's worth to settle.
        events = companion.wait_for(lambda events: len(events) >= len(meant(board)))
    finally:
        companion.close()
        board.close()
    return companion, events, up


def test_the_die_firmware_rolls_reach_the_companion(tmp_path):
    trace = Trace(2024)
    trace.rest(1)
    faces = [3, 6, 1, 5, 2, 4]  # every face once
    previous = 1
    for i, face in enumerate(faces):
        trace.throw(previous, face)
        previous = face
        if i == 2:
            trace.slide(face)
        if i == 4:
            trace.throw(face, face, lean=40)
    die = Die("D1-PTY", "5EED0001")
    path = tmp_path / "die"
    # The cable loses the third roll the first time it is sent.
    board = Board(die, path, lose=lambda raw: b" ROLL face=" in raw and b" rolls=3 " in raw)
    inputs = [
        (t, lambda now, x=x, y=y, z=z: die.sample(now, x, y, z)) for t, x, y, z in trace.samples
    ]

    def enough(events):
        return sum(isinstance(e, DieRolled | DieInvalid) for e in events) >= len(faces) + 2

    companion, events, up = run(board, path, "die", inputs, enough)
    assert up.hello.kind == "die" and up.hello.boot == "5EED0001" and up.hello.serial == "D1-PTY"
    results = [(type(e).__name__, getattr(e, "face", None) or getattr(e, "why", None))
               for e in events if isinstance(e, DieRolled | DieInvalid)]  # fmt: skip
    assert results == [
        ("DieRolled", 3), ("DieRolled", 6), ("DieRolled", 1), ("DieInvalid", "handled"),
        ("DieRolled", 5), ("DieRolled", 2), ("DieInvalid", "crooked"), ("DieRolled", 4),
    ]  # fmt: skip
    assert events == meant(board)  # each once, in order, with the firmware's numbers
    assert [e.rolls for e in events if isinstance(e, DieRolled)] == [1, 2, 3, 4, 5, 6]
    assert len(board.lost) == 1
    health = companion.link.health
    assert health.gaps >= 1 and health.replays >= 1 and health.lost == 0
    assert health.doubled_counts == 0 and health.missed_counts == 0 and health.refused == 0
    assert companion.problems == []
    assert board.pty.unheard == 0


def test_the_regie_firmware_chips_reach_the_companion(tmp_path):
    regie = Regie("R1-PTY", "5EED0002")
    scene = Scene(77)
    scene.chip("insert 4", 100)
    scene.move("level 2", 300, [0, None, 1])
    scene.chip("comp 3", 700, wobble_ms=500)
    scene.chip("comp 4", 705)
    scene.chip("table right", 760)
    scene.move("box", 1500, [2, (2, 1), 1])
    scene.chip("insert 0", 1900)
    scene.chip("comp 3", 2300)
    path = tmp_path / "regie"
    # The cable loses the wobbling chip's count the first time it is sent.
    board = Board(regie, path, lose=lambda raw: b" COMP col=3 count=1 " in raw)
    inputs = list(scene.steps(regie, 2600, boot_at=None))
    companion, events, up = run(board, path, "regie", inputs, lambda events: len(events) >= 8)
    assert up.hello.kind == "regie" and up.hello.boot == "5EED0002"
    assert [(e.TYPE, *[v for k, v in vars(e).items() if k != "seq"]) for e in events] == [
        ("INSERT", 4, "unknown", 1),
        ("LEVEL", 2, 1),
        ("COMP", 3, 1),
        ("COMP", 4, 1),
        ("TABLE", "right", 1),
        ("BOX", 1),
        ("INSERT", 0, "unknown", 2),
        ("COMP", 3, 2),
    ]
    assert events == meant(board)
    health = companion.link.health
    assert len(board.lost) == 1 and health.gaps >= 1 and health.lost == 0
    assert health.doubled_counts == 0 and health.missed_counts == 0 and health.refused == 0
    assert companion.problems == []
    snapshots = [e for e in companion.received if isinstance(e, RegieSnapshot)]
    assert snapshots and snapshots[0].comp == (0,) * 7  # asked for when the port opened
