"""A board on a real pseudo-terminal: the firmware's logic driven as its ``main.py``
drives it, with CPython standing in for the pins and the USB port.

The firmware's frames go out on the pseudo-terminal that the companion's driver opens
as it opens a serial port, and what the companion sends comes back to the firmware.
The board's clock is simulated (the inputs carry their own times) and runs faster than
the wall clock while there are inputs, then at the wall clock's pace, so that the
heartbeat keeps the link up. ``lose`` picks frames that the cable loses the first time
they are sent (the firmware keeps them for a replay).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from hardware.emulate.device import PseudoTerminal


class Board:
    def __init__(
        self, device, link: Path, lose: Callable[[bytes], bool] = lambda raw: False
    ) -> None:
        self.device = device  # a firmware Die or Regie
        self.pty = PseudoTerminal(link)
        self.lose = lose
        self.lost: list[bytes] = []
        self.truth: list[bytes] = []  # every frame the firmware meant to send, once
        self.now = 0
        self.inputs: Iterable = ()
        self.go = threading.Event()  # start on the inputs
        self.done = threading.Event()  # all inputs read
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def start(self, inputs: Iterable[tuple[int, Callable[[int], list[bytes]]]]) -> None:
        """Boot, then (once ``go`` is set) each input ``(t, read)``: ``read(now)`` gives
        the firmware the sensors' readings at ``t`` after the start, at board time
        ``now``, and returns its frames."""
        self.inputs = inputs
        self.thread.start()

    def write(self, raws: list[bytes]) -> None:
        for raw in raws:
            if raw in self.truth:
                self.pty.write(raw)  # a replay: sent again as it was
                continue
            self.truth.append(raw)
            if self.lose(raw) and raw not in self.lost:
                self.lost.append(raw)
                continue
            self.pty.write(raw)

    def serve(self) -> None:
        """What main.py's loop does besides the sensors: the port and the heartbeat."""
        data = self.pty.read(0)
        if data:
            self.write(self.device.receive(data, self.now))
        self.write(self.device.tick(self.now))

    def _idle(self, until: Callable[[], bool]) -> None:
        while not until() and not self.stop.is_set():
            self.now += 10
            self.serve()
            time.sleep(0.01)

    def _run(self) -> None:
        self.write(self.device.boot(self.now))
        self._idle(self.go.is_set)
        start = self.now
        for i, (t, read) in enumerate(self.inputs):
            if self.stop.is_set():
                return
            self.now = start + t
            self.write(read(self.now))
            if i % 20 == 0:
                self.serve()
                time.sleep(0.001)  # the board's pace: the driver keeps up
        self.done.set()
        self._idle(lambda: False)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(timeout=5)
        self.pty.unlink()
        self.pty.close()
