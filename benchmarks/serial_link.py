"""Serial figures: frames parsed per second, and the latency from an emulator's write to
the link's event over a real pseudo-terminal (median and 99th percentile).

    python benchmarks/serial_link.py [--frames N] [--events N]

Figures depend on the machine and its load; compare within one run.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import threading
import time
from pathlib import Path

from hardware.emulate.die import DieEmulator
from hardware.link import Link, LinkUp, Received
from hardware.messages import DieRolled
from hardware.protocol import Parser, frame


def parse_rate(count: int) -> float:
    rng = random.Random(1)
    stream = b"".join(
        frame(i, "ROLL", face=rng.randint(1, 6), rolls=i).encode() for i in range(count)
    )
    chunks = [stream[i : i + 512] for i in range(0, len(stream), 512)]
    started = time.perf_counter()
    parser = Parser()
    parsed = sum(len(parser.feed(chunk)) for chunk in chunks)
    elapsed = time.perf_counter() - started
    assert parsed == count
    return count / elapsed


def latencies(events: int) -> list[float]:
    link_path = Path(tempfile.mkdtemp()) / "die"
    device = DieEmulator(random.Random(2), serial="B1", link=link_path, clock=time.monotonic)
    link = Link(str(link_path), kind="die")
    stop = threading.Event()
    sent: dict[int, float] = {}
    seen: list[float] = []
    lock = threading.Lock()
    up = threading.Event()
    arrived = threading.Event()

    def read() -> None:
        for happening in link.run(stop=stop.is_set):
            if isinstance(happening, LinkUp):
                up.set()
            if isinstance(happening, Received) and isinstance(happening.event, DieRolled):
                with lock:
                    seen.append(time.perf_counter() - sent[happening.event.seq])
                arrived.set()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    while not up.is_set():
        device.serve(timeout=0.01)
    for _ in range(events):
        arrived.clear()
        device.rolls += 1
        seq = device.seq
        sent[seq] = time.perf_counter()
        device.emit(DieRolled(seq=0, face=3, rolls=device.rolls))
        while not arrived.wait(0.005):
            device.serve(timeout=0.0)
    stop.set()
    reader.join(timeout=5)
    device.close()
    return seen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=20000)
    parser.add_argument("--events", type=int, default=300)
    args = parser.parse_args()
    rate = parse_rate(args.frames)
    print(f"parser: {rate:,.0f} frames/s ({args.frames} frames in 512-byte reads)")
    seen = sorted(latencies(args.events))
    p99 = seen[max(0, int(len(seen) * 0.99) - 1)]
    print(
        f"latency emulator write -> link event over a pty ({len(seen)} events): "
        f"median {statistics.median(seen) * 1000:.2f} ms, p99 {p99 * 1000:.2f} ms"
    )


if __name__ == "__main__":
    main()
