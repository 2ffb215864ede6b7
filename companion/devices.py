"""``companion emulate`` and ``companion devices watch``: the serial devices from the
command line. Output formats are a contract (``docs/cli.md``)."""

from __future__ import annotations

import contextlib
import json
import os
import random
import signal
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import TextIO

from hardware.emulate.device import Faults
from hardware.link import DeviceReset, Link, LinkDown, LinkUp, Problem, Received
from hardware.messages import BAD_ROLLS, Event


def event_json(event: Event) -> dict:
    """A device event as one JSON object: ``seq``, ``event`` (its type) and its fields."""
    data = asdict(event)
    seq = data.pop("seq")
    fields = {k: list(v) if isinstance(v, tuple) else v for k, v in data.items()}
    return {"seq": seq, "event": event.TYPE.lower(), **fields}


def emulate(
    kind: str,
    *,
    seed: int,
    link: str | None,
    faults: str | None,
    interval: float,
    count: int | None,
    out: TextIO,
    script: str | None = None,
) -> int:
    """Run a device emulator on a new pseudo-terminal until stopped (or ``count`` acts)."""
    from hardware.emulate.die import DieEmulator
    from hardware.emulate.regie import RegieEmulator

    cls = DieEmulator if kind == "die" else RegieEmulator
    device = cls(
        random.Random(seed),
        serial=f"{'D' if kind == 'die' else 'R'}1-{seed:04d}",
        faults=Faults.parse(faults),
        link=Path(link) if link else None,
        clock=time.monotonic,
        boot_ids=lambda: os.urandom(4).hex().upper(),
    )
    if script:
        if kind != "die":
            device.close()
            raise ValueError("--script scripts the die's throws")
        device.script = [throw.strip() for throw in script.split(",")]
        bad = [t for t in device.script if t not in ("1", "2", "3", "4", "5", "6", *BAD_ROLLS)]
        if bad:
            device.close()
            raise ValueError(f"--script: a throw is 1 to 6, crooked, tilted or handled: {bad[0]!r}")
    print(device.port.path, file=out, flush=True)
    stopping = []
    signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))
    acts = 0
    try:
        next_act = time.monotonic() + interval
        while not stopping and (count is None or acts < count):
            device.serve(timeout=0.02)
            if time.monotonic() >= next_act:
                device.act()
                device.maybe_disrupt()
                acts += 1
                next_act += interval
        while not stopping:  # keep answering (snapshots, replays) until stopped
            device.serve(timeout=0.05)
    except KeyboardInterrupt:
        pass
    finally:
        device.close()
    return 0


def watch(
    port: str,
    *,
    count: int | None,
    as_json: bool,
    kind: str | None,
    out: TextIO,
    settle: float = 0.0,
) -> int:
    """Print the device's hello and each event as it arrives, reconnecting by itself."""
    link = Link(port, kind=kind, settle=settle)
    received = [0]  # read by the stop test between events
    last_down = None

    def enough() -> bool:
        return count is not None and received[0] >= count

    try:
        for happening in link.run(stop=enough):
            if isinstance(happening, Received):
                received[0] += 1
                line = event_json(happening.event)
            elif isinstance(happening, LinkUp):
                line = event_json(happening.hello)
            elif isinstance(happening, DeviceReset):
                line = {"event": "reset", "before": happening.before.boot,
                        "after": happening.after.boot}  # fmt: skip
            elif isinstance(happening, LinkDown):
                if happening.reason == last_down:
                    continue  # the same trouble again: said once is enough
                last_down = happening.reason
                line = {"event": "link-down", "reason": happening.reason}
                if _hopeless(happening.reason):
                    raise ValueError(f"{port}: {happening.reason}")
            elif isinstance(happening, Problem):
                line = {"event": "problem", "reason": happening.reason}
            else:  # pragma: no cover
                continue
            if as_json:
                print(json.dumps(line), file=out, flush=True)
            else:
                words = " ".join(f"{k}={v}" for k, v in line.items() if k not in ("event", "seq"))
                seq = f"#{line['seq']} " if "seq" in line else ""
                print(f"{seq}{line['event']} {words}".rstrip(), file=out, flush=True)
            if isinstance(happening, LinkUp):
                last_down = None
            if enough():
                break
    except BrokenPipeError:  # the reader (say `head`) has had enough
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - quiet the exit flush
    return 0


def _hopeless(reason: str) -> bool:
    """A port that will never work: not a terminal, a directory, a malformed name."""
    return any(
        words in reason
        for words in ("Inappropriate ioctl", "Is a directory", "expected usb:VID:PID")
    )
