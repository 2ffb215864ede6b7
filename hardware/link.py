"""The link to one serial device: open, hello, snapshot, sequence, heartbeat, reconnect.

``Link.run`` yields what happened on the link, in order: ``LinkUp`` with the device's
hello, ``Received`` device events (each exactly once, in the device's order, timestamped
by the injected clock), ``DeviceReset`` when the device restarted, ``Problem`` for a
frame that made no sense, and ``LinkDown`` with the reason when the port failed, went
silent or never opened. After a ``LinkDown`` it reopens the port with backoff, by the
same path (a ``/dev/serial/by-id`` name or a udev link survives a replug), and only a
hello from the expected kind of device brings it up again.

Sequence numbers are checked on every event: a duplicate is passed over, a gap asks the
device to replay from the first missing frame (or it answers with a snapshot).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from hardware.counters import Counters
from hardware.messages import Event, Gap, Heartbeat, Hello, Refusal, decode
from hardware.protocol import SEQ_MODULUS, Parser, frame


class Port(Protocol):
    def read(self, size: int) -> bytes: ...
    def write(self, data: bytes) -> Any: ...
    def close(self) -> None: ...


def open_serial(path: str) -> Port:
    """A real serial port, opened exclusively, reads returning after 50 ms at most.

    ``path`` is a device path (best a stable one: ``/dev/serial/by-id/...`` or a udev
    link), or ``usb:VID:PID[:SERIAL]`` (hexadecimal ids) to find a USB device by who it is.
    """
    import serial

    return serial.Serial(
        find_port(path), baudrate=115200, timeout=0.05, write_timeout=1.0, exclusive=True
    )


def find_port(spec: str) -> str:
    """The device path for ``spec``; ``usb:VID:PID[:SERIAL]`` is looked up among the
    ports present, anything else is a path. A USB device that is not there raises
    ``FileNotFoundError`` naming what was looked for."""
    if not spec.startswith("usb:"):
        return spec
    from serial.tools import list_ports

    parts = spec.split(":")[1:]
    try:
        vid, pid = int(parts[0], 16), int(parts[1], 16)
    except (IndexError, ValueError):
        raise ValueError(f"expected usb:VID:PID[:SERIAL] in hexadecimal, got {spec!r}") from None
    serial_number = parts[2] if len(parts) > 2 else None
    for port in list_ports.comports():
        if port.vid == vid and port.pid == pid and serial_number in (None, port.serial_number):
            return port.device
    raise FileNotFoundError(f"no USB serial device {spec} is plugged in")


@dataclass(frozen=True)
class LinkUp:
    hello: Hello
    at: float


@dataclass(frozen=True)
class LinkDown:
    reason: str
    at: float


@dataclass(frozen=True)
class DeviceReset:
    """The device restarted (a new boot id): its counters and sequence begin again."""

    before: Hello
    after: Hello
    at: float


@dataclass(frozen=True)
class Received:
    event: Event
    at: float


@dataclass(frozen=True)
class Problem:
    reason: str
    at: float


LinkEvent = LinkUp | LinkDown | DeviceReset | Received | Problem


@dataclass
class Health:
    """Counters for the service to show."""

    up: bool = False
    connects: int = 0
    downs: int = 0
    last_heartbeat: float | None = None
    frames: int = 0
    dropped_bytes: int = 0
    bad_frames: int = 0
    resyncs: int = 0
    refused: int = 0
    gaps: int = 0
    replays: int = 0
    lost: int = 0  # frames the device could not replay
    doubled_counts: int = 0  # events whose counter did not advance: passed over
    missed_counts: int = 0  # events the device's counters say it never sent
    resets: int = 0
    duplicates: int = 0  # frames received twice in a row
    stale: int = 0  # frames from behind the sequence, already received
    before_hello: int = 0
    reasons: dict[str, int] = field(default_factory=dict)


class LinkLost(Exception):
    """The connection is no good any more; the message says why."""


class WrongDevice(LinkLost):
    """Another kind of device answered on the port."""


class Link:
    def __init__(
        self,
        path: str,
        *,
        kind: str | None = None,
        open_port: Callable[[str], Port] = open_serial,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
        silence: float = 3.0,
        settle: float = 0.0,
        backoff: tuple[float, ...] = (0.1, 0.2, 0.5, 1.0, 2.0),
    ) -> None:
        self.path = path
        self.kind = kind
        self.open_port = open_port
        self.clock = clock
        self.sleep = sleep
        self.silence = silence
        self.settle = settle  # a board that resets when its port opens needs a moment
        self.backoff = backoff
        self.health = Health()
        self.hello: Hello | None = None  # the last hello seen, across connections
        self.parser = Parser()
        self.counters = Counters()
        self._seq = 0

    def run(self, stop: Callable[[], bool] = lambda: False) -> Iterator[LinkEvent]:
        failures = 0
        down_reported = False
        while not stop():
            try:
                port = self.open_port(self.path)
            except (OSError, ValueError) as error:  # SerialException is an OSError
                if not down_reported:
                    yield LinkDown(f"cannot open {self.path}: {error} (trying again)", self.clock())
                    down_reported = True
                self.sleep(self.backoff[min(failures, len(self.backoff) - 1)])
                failures += 1
                continue
            try:
                for event in self._session(port, stop):
                    if isinstance(event, LinkUp):
                        failures, down_reported = 0, False
                    yield event
            except (OSError, LinkLost) as error:
                self.health.downs += 1
                self.health.up = False
                reason = _plain(error)
                self.health.reasons[reason] = self.health.reasons.get(reason, 0) + 1
                yield LinkDown(reason, self.clock())
                down_reported = True
                # The wrong device stays the wrong device: wait the longest before asking.
                wait = self.backoff[-1] if isinstance(error, WrongDevice) else None
                self.sleep(wait or self.backoff[min(failures, len(self.backoff) - 1)])
                failures += 1
            finally:
                with contextlib.suppress(OSError):
                    port.close()

    def _send(self, port: Port, type: str, **fields: object) -> None:
        port.write(frame(self._seq, type, **fields).encode())
        self._seq = (self._seq + 1) % SEQ_MODULUS

    def _session(self, port: Port, stop: Callable[[], bool]) -> Iterator[LinkEvent]:
        if self.settle:
            self.sleep(self.settle)
        parser = self.parser
        parser.buffer.clear()  # half a frame from the last connection is no frame
        hello: Hello | None = None
        expected = 0
        replays_unanswered = 0
        asked_at = -1.0  # when the last REPLAY went out; < 0: none outstanding
        behind_run = 0  # frames in a row from behind: a reset whose hello was lost?
        previous = None
        dropped_at_start = sum(parser.dropped.values())
        self._send(port, "GET", what="snapshot")
        asked_get = heard = self.clock()
        while not stop():
            # One byte waits for the line (up to the port's timeout); then take all there is.
            data = port.read(1)
            waiting = getattr(port, "in_waiting", 0)
            if data and waiting:
                data += port.read(waiting)
            now = self.clock()
            frames = parser.feed(data)
            self._count(parser)
            if frames:
                heard = now  # only whole frames count as the device speaking
            elif now - heard > self.silence:
                dropped = sum(parser.dropped.values()) - dropped_at_start
                what = "no hello" if hello is None else "no word"
                raise LinkLost(
                    f"{what} from the device for {self.silence:g} s"
                    + (f" ({dropped} bytes of garbage: is the speed right?)" if dropped else "")
                )
            if hello is None and now - asked_get > 1.0:
                self._send(port, "GET", what="snapshot")  # the first may have been lost
                asked_get = now
            if asked_at >= 0 and now - asked_at > 1.0:
                if replays_unanswered >= 2:
                    # The device does not replay: take its word afresh (hello, snapshot).
                    self._send(port, "GET", what="snapshot")
                    asked_get, asked_at, replays_unanswered = now, -1.0, 0
                else:
                    self._send(port, "REPLAY", **{"from": expected})
                    self.health.replays += 1
                    asked_at, replays_unanswered = now, replays_unanswered + 1
            for raw in frames:
                if raw == previous:  # the same frame twice in a row: a doubled send
                    self.health.duplicates += 1
                    continue
                previous = raw
                event = decode(raw)
                if isinstance(event, Refusal):
                    self.health.refused += 1
                    yield Problem(event.reason, now)
                    continue
                if isinstance(event, Hello):
                    if self.kind is not None and event.kind != self.kind:
                        raise WrongDevice(f"a {event.kind} device answered, not a {self.kind}")
                    if hello is None or event.boot != hello.boot:
                        before = hello or self.hello
                        hello = self.hello = event
                        expected = (event.seq + 1) % SEQ_MODULUS
                        asked_at, replays_unanswered = -1.0, 0
                        self.counters.check(event)
                        if before is not None and before.boot != event.boot:
                            self.health.resets += 1
                            yield DeviceReset(before, event, now)
                            if event.seq != 0:
                                # Its boot hello went missing: fetch all since the boot.
                                expected = 1
                                self._send(port, "REPLAY", **{"from": 1})
                                self.health.replays += 1
                                asked_at = now
                            elif now - asked_get > 1.0:
                                self._send(port, "GET", what="snapshot")
                                asked_get = now
                        if not self.health.up:
                            self.health.up = True
                            self.health.connects += 1
                            yield LinkUp(event, now)
                        continue
                    ahead = (event.seq - expected) % SEQ_MODULUS
                    if ahead and ahead < SEQ_MODULUS // 2:
                        # Its own hello again, ahead of what we have: it answered our GET
                        # while frames were missing. Those are lost; go on from here.
                        self.health.lost += ahead
                        yield Problem(f"{ahead} frames were lost before seq {event.seq}", now)
                        expected, asked_at, replays_unanswered = event.seq, -1.0, 0
                if hello is None:
                    self.health.before_hello += 1
                    continue
                ahead = (event.seq - expected) % SEQ_MODULUS
                if isinstance(event, Gap) and ahead < SEQ_MODULUS // 2:
                    # The device cannot replay what was missed: lost, say so, go on from
                    # here, and ask for its word afresh (a new boot shows in the hello).
                    self.health.lost += (event.last - event.first) % SEQ_MODULUS + 1
                    expected, asked_at, replays_unanswered = (event.seq + 1) % SEQ_MODULUS, -1.0, 0
                    yield Problem(
                        f"frames {event.first} to {event.last} were lost: the device could "
                        "not replay them",
                        now,
                    )
                    self._send(port, "GET", what="snapshot")
                    asked_get = now
                    continue
                behind_run = behind_run + 1 if ahead >= SEQ_MODULUS // 2 else 0
                if ahead == 0:
                    expected = (event.seq + 1) % SEQ_MODULUS
                    asked_at, replays_unanswered = -1.0, 0
                    if isinstance(event, Heartbeat):
                        self.health.last_heartbeat = now
                        continue
                    if isinstance(event, Hello):
                        continue
                    verdict = self.counters.check(event)
                    if verdict.kind == "doubled":
                        self.health.doubled_counts += 1
                        yield Problem(f"{event.TYPE} counted twice by the device: passed over", now)
                        continue
                    if verdict.kind == "missed":
                        self.health.missed_counts += verdict.missed
                        yield Problem(
                            f"the device's count skipped {verdict.missed} {event.TYPE} "
                            "event(s): they were never sent",
                            now,
                        )
                    yield Received(event, now)
                elif ahead < SEQ_MODULUS // 2:
                    if asked_at < 0:
                        self.health.gaps += 1
                        self.health.replays += 1
                        self._send(port, "REPLAY", **{"from": expected})
                        asked_at, replays_unanswered = now, 1
                else:
                    self.health.stale += 1  # already had it (a replay overlapping)
                    if behind_run >= 3 and now - asked_get > 1.0:
                        self._send(port, "GET", what="snapshot")  # the hello tells a reset
                        asked_get = now

    def _count(self, parser: Parser) -> None:
        self.health.frames = parser.frames
        self.health.dropped_bytes = sum(parser.dropped.values())
        self.health.bad_frames = sum(parser.bad_frames.values())
        self.health.resyncs = parser.resyncs


def _plain(error: BaseException) -> str:
    """The reason in words a player can act on (pyserial's own are cryptic)."""
    text = str(error) or type(error).__name__
    if "readiness to read but returned no data" in text or "Input/output error" in text:
        return "the device went away (unplugged, or its port closed)"
    return text
