"""The board's side that a host can run with a stand-in ``machine`` module: the port's
baud rate from CONFIG, and ``run``: an error is logged and the board reset, Ctrl-C
stops the program and leaves the REPL alone."""

from __future__ import annotations

import os
import sys
import time
import traceback
import types

import pytest

from firmware.common import board


class FakeMachine(types.ModuleType):
    def __init__(self) -> None:
        super().__init__("machine")
        self.uarts: list[dict] = []
        self.resets = 0

    def Pin(self, number):
        return ("pin", number)

    def UART(self, uart_id, **settings):
        self.uarts.append({"id": uart_id, **settings})
        return object()

    def reset(self) -> None:
        self.resets += 1


@pytest.fixture
def machine(monkeypatch) -> FakeMachine:
    fake = FakeMachine()
    monkeypatch.setitem(sys.modules, "machine", fake)
    # MicroPython's own: sys.print_exception and time.sleep_ms.
    monkeypatch.setattr(
        sys, "print_exception",
        lambda error, file=sys.stdout: traceback.print_exception(error, file=file),
        raising=False,
    )  # fmt: skip
    monkeypatch.setattr(time, "sleep_ms", lambda ms: None, raising=False)
    return fake


def test_a_uart_port_runs_at_115200_baud_or_the_rate_configured(machine):
    board.open_port(("uart", 0, 0, 1))
    board.open_port(("uart", 1, 4, 5, 9600))
    assert [(u["id"], u["tx"], u["rx"], u["baudrate"]) for u in machine.uarts] == [
        (0, ("pin", 0), ("pin", 1), 115200),
        (1, ("pin", 4), ("pin", 5), 9600),
    ]
    with pytest.raises(ValueError, match="CONFIG port"):
        board.open_port(("uart", 0, 0))


def test_an_error_is_logged_and_the_board_restarts(machine, tmp_path, capsys):
    log = tmp_path / "error.txt"

    def main():
        raise OSError(5, "EIO")  # the accelerometer's wire came loose

    board.run(main, error_file=str(log))
    assert machine.resets == 1
    assert "OSError" in log.read_text() and "OSError" in capsys.readouterr().out
    first = log.read_text()
    os.utime(log, ns=(0, 0))
    board.run(main, error_file=str(log))  # the same error again: not written again
    assert machine.resets == 2 and log.read_text() == first and log.stat().st_mtime_ns == 0


def test_ctrl_c_stops_the_program_without_a_reset(machine, tmp_path):
    def main():
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        board.run(main, error_file=str(tmp_path / "error.txt"))
    assert machine.resets == 0 and not (tmp_path / "error.txt").exists()
