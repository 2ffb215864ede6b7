"""The board's side, for the ``main.py`` files: the clock, the random boot id, the
board's serial number, and the port (USB or a UART). MicroPython only; the modules it
needs (``machine``, ``select``) are imported where used, so that the pure ``Clock``
can be checked on a host too.
"""

import sys
import time


class Clock:
    """Milliseconds since boot that never wrap. MicroPython's ``ticks_ms`` wraps (at
    2^30 on the RP2040); ``ticks_diff`` tells the step across a wrap. ``ticks`` and
    ``diff`` are passed in for the tests."""

    def __init__(self, ticks=None, diff=None):
        self.ticks = ticks or time.ticks_ms
        self.diff = diff or time.ticks_diff
        self.last = self.ticks()
        self.ms = 0

    def now(self):
        ticks = self.ticks()
        self.ms += self.diff(ticks, self.last)
        self.last = ticks
        return self.ms


def boot_id():
    """8 hexadecimal digits, new at every boot: from the chip's random generator (on the
    RP2040 ``os.urandom`` draws on its ring oscillator)."""
    import os

    number = int.from_bytes(os.urandom(4), "big")
    return "".join("0123456789ABCDEF"[(number >> s) & 0xF] for s in range(28, -1, -4))


def serial_number(prefix):
    """``prefix`` and the chip's unique id in hexadecimal: fixed for the board."""
    import machine

    return prefix + "".join("0123456789ABCDEF"[b >> 4] + "0123456789ABCDEF"[b & 0xF]
                            for b in machine.unique_id())  # fmt: skip


class UsbPort:
    """The USB serial port (CDC) that MicroPython's REPL also uses: ``sys.stdin`` and
    ``sys.stdout``. Ctrl-C still stops the program (``mpremote`` needs that); the
    companion only ever sends printable ASCII, and USB does not garble bytes."""

    def __init__(self):
        import select

        self.poll = select.poll()
        self.poll.register(sys.stdin, select.POLLIN)
        self.out = sys.stdout.buffer

    def read(self):
        data = b""
        while len(data) < 256 and self.poll.poll(0):
            data += sys.stdin.buffer.read(1)
        return data

    def write(self, frames):
        for raw in frames:
            self.out.write(raw)


class UartPort:
    """A UART, for a USB serial adapter or a Bluetooth serial module (HC-05, HC-06)."""

    def __init__(self, uart_id, tx, rx, baudrate=115200):
        import machine

        self.uart = machine.UART(
            uart_id, baudrate=baudrate, tx=machine.Pin(tx), rx=machine.Pin(rx), rxbuf=512
        )

    def read(self):
        return self.uart.read() or b""

    def write(self, frames):
        for raw in frames:
            self.uart.write(raw)
