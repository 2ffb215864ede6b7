"""A device emulator over a real pseudo-terminal, with fault injection.

The emulator speaks the protocol as a microcontroller would: a hello with a per-boot id,
sequence numbers, heartbeats, a ring of its last 64 frames for ``REPLAY``, a snapshot on
``GET``. The companion opens the pseudo-terminal's path exactly as it opens a real
serial port, so tests and demos run the whole serial stack.

Faults are injected on the way out, each with a seeded probability: ``garbage`` (noise
bytes between frames), ``flip`` (one bit of a frame flipped), ``drop`` (a frame not
sent: it stays in the ring, so a replay repairs it), ``duplicate`` (a frame sent
twice), ``reboot`` (a restart: new boot id, sequence numbers and counters from zero) and
``unplug`` (the port disappears and comes back as a new pseudo-terminal under the same
link). ``truth`` logs what the device meant to send, ``faults`` what it broke.
"""

from __future__ import annotations

import contextlib
import os
import random
import select
import tty
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from hardware.messages import Event, Gap, Heartbeat, Hello, encode
from hardware.protocol import SEQ_MODULUS, Frame, Parser

FAULT_KINDS = ("garbage", "flip", "drop", "duplicate", "reboot", "unplug")
RING = 64


@dataclass
class Faults:
    """Probabilities per frame sent (``reboot`` and ``unplug``: per event)."""

    rates: dict[str, float] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str | None, rate: float = 0.05) -> Faults:
        """``"garbage,drop"`` or ``"all"``: those kinds at ``rate`` (reboots and unplugs
        at a fifth of it)."""
        if not text:
            return cls()
        kinds = FAULT_KINDS if text == "all" else tuple(k.strip() for k in text.split(","))
        unknown = [k for k in kinds if k not in FAULT_KINDS]
        if unknown:
            raise ValueError(f"unknown fault {unknown[0]!r}; faults are {', '.join(FAULT_KINDS)}")
        return cls({k: rate / 5 if k in ("reboot", "unplug") else rate for k in kinds})


class PseudoTerminal:
    """A pseudo-terminal pair in raw mode; ``path`` is what a serial port would be."""

    def __init__(self, link: Path | None = None) -> None:
        if link is not None and link.exists() and not link.is_symlink():
            raise ValueError(f"--link {link} exists and is not a symbolic link: not replaced")
        self.master, self.slave = os.openpty()
        try:
            tty.setraw(self.slave)  # no echo, no newline translation: a plain byte pipe
            # Like a UART with nobody listening: what does not fit is lost, nothing blocks.
            os.set_blocking(self.master, False)
            self.path = os.ttyname(self.slave)
            self.unheard = 0
            self.link = link
            if link is not None:
                # Made under a temporary name and renamed: the link is never missing.
                temporary = link.with_name(f".{link.name}.{os.getpid()}")
                with contextlib.suppress(FileNotFoundError):
                    temporary.unlink()
                temporary.symlink_to(self.path)
                os.replace(temporary, link)
        except OSError as error:
            self.close()
            raise ValueError(f"cannot make the link {link}: {error.strerror}") from None

    def write(self, data: bytes) -> None:
        try:
            written = os.write(self.master, data)
        except (BlockingIOError, OSError):
            written = 0
        self.unheard += len(data) - written

    def read(self, timeout: float) -> bytes:
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return b""
        try:
            return os.read(self.master, 4096)
        except OSError:  # nobody has the other end open
            return b""

    def close(self) -> None:
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)

    def unlink(self) -> None:
        """Remove the link, unless another emulator has taken it over since."""
        link = self.link
        if link is not None and link.is_symlink() and os.readlink(link) == self.path:
            link.unlink()


class Emulator:
    """The common device: hello, sequence, ring, heartbeat, host commands, faults.

    ``clock`` and ``rng`` are passed in. Subclasses provide ``kind``, ``snapshot()`` and
    ``reset_counters()``, and call ``emit`` for each event.
    """

    kind = ""
    heartbeat = 1.0

    def __init__(
        self,
        rng: random.Random,
        *,
        serial: str,
        faults: Faults | None = None,
        link: Path | None = None,
        clock: Callable[[], float],
        boot_ids: Callable[[], str] | None = None,
    ) -> None:
        self.rng = rng
        # A real device draws its boot id from hardware noise; tests pass a seeded one,
        # the command line the operating system's randomness, so that two runs with one
        # seed are still two boots.
        self.boot_ids = boot_ids or (lambda: f"{self.rng.getrandbits(32):08X}")
        self.serial = serial
        self.faults = faults or Faults()
        self.clock = clock
        self.port = PseudoTerminal(link)
        self.parser = Parser()
        self.truth: list[Event] = []  # what the device meant to send, in order
        self.fault_log: list[tuple[str, int | None]] = []  # (fault kind, frame seq)
        self.ring: deque[Frame] = deque(maxlen=RING)
        self.boot = ""
        self.seq = 0
        self.last_sent = clock()
        self.boots = 0
        self.start()

    # -- what a device does ---------------------------------------------------------

    def start(self) -> None:
        """Boot: a new boot id, sequence numbers from zero, counters from zero, hello."""
        self.boots += 1
        self.booted = self.clock()
        self.boot = self.boot_ids()
        self.seq = 0
        self.ring.clear()
        self.reset_counters()
        self.emit(self.hello())

    def hello(self) -> Hello:
        return Hello(seq=0, proto=1, kind=self.kind, serial=self.serial, boot=self.boot, fw="1.0")

    def next_seq(self) -> int:
        seq = self.seq
        self.seq = (self.seq + 1) % SEQ_MODULUS
        return seq

    def emit(self, event: Event, *, faults: bool = True) -> None:
        """Send one event as the next frame (faults may strike on the way)."""
        event = replace(event, seq=self.next_seq())
        self.truth.append(event)
        frame = encode(event)
        self.ring.append(frame)
        self._send(frame, faults)

    def _send(self, frame: Frame, faults: bool = True) -> None:
        raw = frame.encode()
        self.last_sent = self.clock()
        if faults and self._strikes("garbage"):
            noise = bytes(self.rng.choice(b"abcxyz019 #$%\r\n*") for _ in range(8))
            self.port.write(noise)
            self.fault_log.append(("garbage", None))
        if faults and self._strikes("drop"):
            self.fault_log.append(("drop", frame.seq))
            return
        if faults and self._strikes("flip"):
            damaged = bytearray(raw)
            damaged[self.rng.randrange(1, len(raw) - 1)] ^= 1 << self.rng.randrange(7)
            self.port.write(bytes(damaged))
            self.fault_log.append(("flip", frame.seq))
            return
        self.port.write(raw)
        if faults and self._strikes("duplicate"):
            self.port.write(raw)
            self.fault_log.append(("duplicate", frame.seq))

    def _strikes(self, kind: str) -> bool:
        rate = self.faults.rates.get(kind, 0.0)
        return rate > 0 and self.rng.random() < rate

    def serve(self, timeout: float = 0.0) -> None:
        """Answer the host's commands and keep the heartbeat going."""
        data = self.port.read(timeout)
        for frame in self.parser.feed(data):
            if frame.type == "GET":
                self.emit(self.hello(), faults=False)
                self.emit(self.snapshot(), faults=False)
            elif frame.type == "REPLAY":
                self.replay(frame.get("from"))
        if self.clock() - self.last_sent >= self.heartbeat:
            up = int((self.clock() - self.booted) * 1000) % 2**32
            self.emit(Heartbeat(seq=0, up=up))

    def replay(self, start: str | None) -> None:
        """Send the ring's frames again from ``start`` on; a snapshot when it is older
        than the ring (sequence numbers wrap, but not within one ring)."""
        frames = list(self.ring)
        wanted = int(start) if start is not None and start.isdigit() else None
        index = next((i for i, f in enumerate(frames) if f.seq == wanted), None)
        if index is None:  # not in the ring (too old, or never sent): say what is lost
            first = wanted if wanted is not None else self.seq
            self.emit(Gap(seq=0, first=first, last=(self.seq - 1) % SEQ_MODULUS), faults=False)
            self.emit(self.snapshot(), faults=False)
            return
        for frame in frames[index:]:  # in sending order, across a wrap of the numbers
            self._send(frame, faults=False)

    def maybe_disrupt(self) -> None:
        """Between events: perhaps reboot, perhaps be unplugged and plugged in again."""
        if self._strikes("reboot"):
            self.fault_log.append(("reboot", None))
            self.start()
        if self._strikes("unplug"):
            self.fault_log.append(("unplug", None))
            link = self.port.link
            self.port.close()  # its link now points at nothing, as a device node vanishes
            self.port = PseudoTerminal(link)
            self.start()

    def close(self) -> None:
        self.port.unlink()
        self.port.close()

    # -- for subclasses -------------------------------------------------------------

    def snapshot(self) -> Event:
        raise NotImplementedError

    def reset_counters(self) -> None:
        raise NotImplementedError
