"""The board's side, for the ``main.py`` files: the clock, the random boot id, the
board's serial number, the port (USB or a UART), the watchdog, and ``run``, which
restarts the board after an error. MicroPython only; the modules it needs (``machine``,
``select``) are imported where used, so that the pure parts can be checked on a host.
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


def open_port(spec):
    """``("usb",)``, or ``("uart", id, tx, rx)`` with the baud rate after them if not
    115200 (an HC-06 answers at 9600 until set otherwise): ``("uart", 0, 0, 1, 9600)``."""
    if spec[0] == "usb":
        return UsbPort()
    if spec[0] == "uart" and len(spec) in (4, 5):
        return UartPort(spec[1], spec[2], spec[3], spec[4] if len(spec) == 5 else 115200)
    raise ValueError('CONFIG port: ("usb",) or ("uart", id, tx, rx[, baud]): ' + repr(spec))


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


WATCHDOG_MS = 5000  # the RP2040's watchdog counts to 8.3 s at most
ERROR_FILE = "/error.txt"
# The WATCHDOG block's CTRL register, and the alias that clears the bits written to it.
_WATCHDOG_CTRL = {"RP2040": 0x40058000, "RP2350": 0x400D8000}
_CLEAR_ALIAS = 0x3000
_ENABLE = 1 << 30


def start_watchdog(ms=WATCHDOG_MS):
    """The chip's watchdog: it resets the board unless ``feed()`` comes within ``ms``."""
    import machine

    return machine.WDT(timeout=ms)


def stop_watchdog():
    """Turn a started watchdog off again, so that the REPL (``mpremote``: flashing, the
    bench check) is not reset under the user after Ctrl-C. MicroPython has no call for
    it; on the RP2040 and RP2350 the ENABLE bit of the watchdog's CTRL register is
    cleared. Elsewhere nothing happens (the board then resets within a few seconds)."""
    import os

    import machine

    for chip, ctrl in _WATCHDOG_CTRL.items():
        if chip in os.uname().machine:
            machine.mem32[ctrl + _CLEAR_ALIAS] = _ENABLE


def log_error(error, path=ERROR_FILE):
    """The error's traceback, printed (``mpremote repl`` shows it; the companion passes
    over a line that is no frame) and kept in ``path`` on the board's flash
    (``mpremote cat :error.txt``), written only when it is a new one (flash wears)."""
    import io

    text = io.StringIO()
    sys.print_exception(error, text)
    text = text.getvalue()
    print(text)
    try:
        try:
            with open(path) as f:
                if f.read() == text:
                    return
        except OSError:
            pass
        with open(path, "w") as f:
            f.write(text)
    except OSError:
        pass


def run(main, restart_ms=2000, error_file=ERROR_FILE):
    """The board's program: ``main()``, and after any error the error logged and the
    board reset ``restart_ms`` later (the companion sees a new boot and carries on). A
    hang is the watchdog's: ``main`` starts it and feeds it in its loop. Ctrl-C (as
    ``mpremote`` sends it) stops the program and the watchdog, and leaves the REPL."""
    import machine

    try:
        try:
            main()
        except KeyboardInterrupt:
            raise
        except Exception as error:  # whatever it was: start again
            log_error(error, error_file)
            time.sleep_ms(restart_ms)
            machine.reset()
    except KeyboardInterrupt:
        stop_watchdog()
        raise
