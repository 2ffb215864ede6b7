"""Live figures: the latency from a device event to the update at the live clients, and
the journal's commits per second.

    python benchmarks/live_latency.py [--clients N] [--rolls N] [--commits N] [--seed S]
                                      [--json]

The service runs in this process as ``companion serve`` runs it: one Uräus table, its
journal, the app served by waitress with threads for the spare requests and the streams.
N clients follow ``/api/tables/ID/events`` over HTTP. The die emulator runs on a
pseudo-terminal and is read as the demo and a real table read it: by the table's
``companion.sources.DeviceSource`` over the real ``Link``, whose ``DieRolled`` is a claim
that the tracker explains (``Table.claim``), journalled as an ``input`` entry, then the
``move`` (and a forced move may follow). A bot plays the seat to act, so that the die is
wanted again. A roll's seq is that of the first ``move`` journalled after the throw; its
latency runs from the throw (``DieEmulator.act``) to each client's having the event with
that seq, all on one ``time.perf_counter``. Each event is awaited at every client before
the next one, so the figures are those of a table at a human pace, not of a queue. The
clients share this process (and its GIL) with the service: on a small machine they cost
it time.

Figures depend on the machine and its load; compare within one run.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import http.client
import json
import math
import os
import platform
import queue
import random
import socket
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from companion.app import Service, create_app
from companion.journal import Journal
from companion.serve import SPARE_THREADS, make_server
from companion.sources import DeviceSource
from companion.tables import Table, TableConfig
from hardware.emulate.die import DieEmulator
from hardware.link import Link
from hardware.messages import DieRolled, Event
from rules import CHANCE, IllegalMove, new_game
from rules.playout import choose_move

Clock = Callable[[], float]

TABLE = TableConfig("bench", "uraeus", ("Ada", "Ben", "Cy"), "1234")
HOST = "127.0.0.1"
WAIT = 20.0  # seconds an event may take to reach every client before the run gives up


# -- figures ----------------------------------------------------------------------------


def percentile(ordered: list[float], fraction: float) -> float:
    """The nearest-rank percentile of already sorted values."""
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def spread(seconds: list[float]) -> dict[str, float | int]:
    """Median, p90, p99 and max in milliseconds, and how many values."""
    ordered = sorted(seconds)
    if not ordered:
        return {"count": 0}
    return {
        "median_ms": round(statistics.median(ordered) * 1000, 3),
        "p90_ms": round(percentile(ordered, 0.90) * 1000, 3),
        "p99_ms": round(percentile(ordered, 0.99) * 1000, 3),
        "max_ms": round(ordered[-1] * 1000, 3),
        "count": len(ordered),
    }


def rate(seconds: list[float]) -> dict[str, float | int]:
    """Operations per second over the time they took, their median, and how many."""
    return {
        "per_s": round(len(seconds) / sum(seconds), 1),
        "median_ms": round(statistics.median(seconds) * 1000, 3),
        "count": len(seconds),
    }


# -- live clients -----------------------------------------------------------------------


class Progress:
    """What the clients have received: each one's last seq, under one condition."""

    def __init__(self, clients: int) -> None:
        self.changed = threading.Condition()
        self.last = [-1] * clients  # -1: not streaming yet; 0 and up: streaming

    def reached(self, index: int, seq: int) -> None:
        with self.changed:
            self.last[index] = seq
            self.changed.notify_all()

    def wait_all(self, seq: int, timeout: float) -> None:
        """Until every client has had ``seq`` (0: until every client streams)."""
        with self.changed:
            if not self.changed.wait_for(lambda: min(self.last) >= seq, timeout):
                behind = sum(1 for last in self.last if last < seq)
                raise RuntimeError(f"{behind} client(s) did not get seq {seq} in {timeout:g} s")


class LiveClient(threading.Thread):
    """One browser's live stream: reads the server-sent events line by line and notes
    when each event (its ``id:`` is the seq) has fully arrived."""

    def __init__(
        self, index: int, port: int, path: str, since: int, progress: Progress, clock: Clock
    ) -> None:
        super().__init__(name=f"client-{index}", daemon=True)
        self.index, self.port, self.path, self.since = index, port, path, since
        self.progress, self.clock = progress, clock
        self.arrivals: dict[int, float] = {}  # seq -> when the whole event was in
        self.kinds: dict[int, str] = {}
        self.error: str | None = None
        self.closing = False
        self.sock: socket.socket | None = None

    def run(self) -> None:
        connection = http.client.HTTPConnection(HOST, self.port, timeout=60)
        try:
            connection.request("GET", self.path, headers={"Accept": "text/event-stream"})
            # Kept apart: the connection lets go of its socket to a response that will
            # close it, and ``close`` must still reach it.
            self.sock = connection.sock
            if self.closing:  # hung up before the socket was there to shut
                return
            response = connection.getresponse()
            if response.status != 200:
                self.error = f"HTTP {response.status}: {response.read(200)!r}"
                return
            seq: int | None = None
            kind = "message"
            while not self.closing:
                line = response.readline()
                if not line:
                    break
                now = self.clock()
                text = line.decode("utf-8").rstrip("\r\n")
                if text.startswith("retry:"):
                    self.progress.reached(self.index, self.since)  # streaming
                elif text.startswith("id:"):
                    seq = int(text[3:].strip())
                elif text.startswith("event:"):
                    kind = text[6:].strip()
                elif not text:  # a blank line ends the event
                    if seq is not None:
                        self.arrivals[seq] = now
                        self.kinds[seq] = kind
                        self.progress.reached(self.index, seq)
                    seq, kind = None, "message"
        except (OSError, http.client.HTTPException, ValueError) as error:
            if not self.closing:
                self.error = f"{type(error).__name__}: {error}"
        finally:
            connection.close()
            if self.sock is not None:
                self.sock.close()

    def close(self) -> None:
        """Hang up: the reading thread wakes, sees ``closing`` and ends."""
        self.closing = True
        if self.sock is not None:
            with contextlib.suppress(OSError):
                self.sock.shutdown(socket.SHUT_RDWR)


# -- the live service, the die and the bot ----------------------------------------------


@dataclass
class Throw:
    thrown: float  # the emulator was asked to throw
    linked: float  # the device source had the DieRolled from its link
    played: float  # Table.claim returned (journalled, streams notified)
    seq: int


@dataclass
class LiveRun:
    rolls: list[Throw] = field(default_factory=list)
    moves: list[tuple[float, int]] = field(default_factory=list)  # (before play, seq)
    clients: list[LiveClient] = field(default_factory=list)
    first_seq: int = 0
    last_seq: int = 0
    threads: int = 0
    games: int = 1


@contextlib.contextmanager
def served(app: Any, threads: int) -> Iterator[int]:
    """The app served by waitress on a free localhost port, in a thread; yields the port.
    The server is the one ``companion serve`` makes."""
    server = make_server(app, HOST, 0, threads)
    runner = threading.Thread(target=server.run, name="waitress", daemon=True)
    runner.start()
    try:
        yield int(server.effective_port)
    finally:
        # The task threads first, while the loop still sees the streams' clients go;
        # a single server's ``close`` only stops listening.
        server.task_dispatcher.shutdown(timeout=5)
        server.close()
        runner.join(timeout=5)


@contextlib.contextmanager
def die_source(
    folder: Path, table: Table, rng: random.Random, clock: Clock
) -> Iterator[tuple[DieEmulator, threading.Lock, queue.Queue[tuple[float, float] | Exception]]]:
    """The die emulator on a pseudo-terminal, served as in the demo, and read as the
    table's ``die`` by the product's ``DeviceSource`` through the real link. Yields the
    emulator, the lock that guards it, and a queue that has, for each ``DieRolled``, when
    the source had it and when its claim was done (or what the claim raised), once the
    link is up."""
    die = DieEmulator(rng, serial="BENCH-DIE", clock=clock, link=folder / "die")
    die.bad_roll_rate = 0.0  # every throw a roll: a bad one would only be thrown again
    lock = threading.Lock()
    stop = threading.Event()
    port = str(die.port.link)
    source = DeviceSource(table, "die", port, stop=stop, clock=clock,
                          link=Link(port, kind="die", clock=clock))  # fmt: skip
    claimed: queue.Queue[tuple[float, float] | Exception] = queue.Queue()
    claim = source.event

    def timed(event: Event) -> None:
        # Only watches: the source's own ``event`` makes the claim, as at a real table.
        linked = clock()
        try:
            claim(event)
        except Exception as error:  # the driver says what went wrong
            claimed.put(error)
            raise
        if isinstance(event, DieRolled):
            claimed.put((linked, clock()))

    source.event = timed  # type: ignore[method-assign]

    def serve() -> None:
        while not stop.is_set():
            with lock:
                die.serve(timeout=0.0)
            stop.wait(0.01)

    emulator = threading.Thread(target=serve, name="die-emulator", daemon=True)
    emulator.start()
    before = set(threading.enumerate())
    source.start()
    threads = [emulator, *(set(threading.enumerate()) - before)]  # and the source's
    try:
        deadline = time.monotonic() + 10
        while not source.state["up"]:
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"the link to the emulated die did not come up: {source.health()}"
                )
            stop.wait(0.01)
        yield die, lock, claimed
    finally:
        stop.set()
        for thread in threads:
            thread.join(timeout=5)
        die.close()


def first_move_after(table: Table, seq: int) -> int | None:
    """The seq of the first move journalled after ``seq``: the one just played, not the
    entries the table may add around it (the claim's input, a forced move)."""
    entries = table.journal.entries(table.game_id, since=seq)
    return next((e.seq for e in entries if e.kind == "move"), None)


def live_latency(
    folder: Path, clients: int, rolls: int, rng: random.Random, clock: Clock, wall: Clock
) -> LiveRun:
    """Throw the die ``rolls`` times at a table that ``clients`` live clients follow."""
    journal = Journal(folder / "journal.sqlite", clock=wall)
    table = Table(TABLE, journal)
    threads = SPARE_THREADS + clients  # as serve.py: the spare threads and the streams
    service = Service([table], wall, max_streams=threads - SPARE_THREADS)
    run = LiveRun(threads=threads)
    progress = Progress(clients)
    try:
        with (
            served(create_app(service), threads) as port,
            die_source(folder, table, random.Random(rng.random()), clock) as (die, lock, claimed),
        ):
            run.first_seq = since = table.seq
            path = f"/api/tables/{TABLE.id}/events?since={since}"
            run.clients = [
                LiveClient(i, port, path, since, progress, clock) for i in range(clients)
            ]
            try:
                for client in run.clients:
                    client.start()
                progress.wait_all(since, WAIT)
                while len(run.rolls) < rolls:
                    failed = [c.error for c in run.clients if c.error]
                    if failed:
                        raise RuntimeError(f"{len(failed)} client(s) failed: {failed[0]}")
                    if table.game.is_over(table.state):
                        run.games += 1
                        table.new_game()
                    elif table.game.to_act(table.state) is CHANCE:
                        before = table.seq
                        with lock:
                            thrown = clock()
                            die.act()  # a player throws the die
                        try:
                            outcome = claimed.get(timeout=WAIT)
                        except queue.Empty:
                            raise RuntimeError(f"no roll reached the table in {WAIT:g} s") from None
                        if isinstance(outcome, Exception):
                            raise RuntimeError(f"the roll's claim failed: {outcome!r}")
                        linked, done = outcome
                        seq = first_move_after(table, before)
                        if seq is None:
                            kinds = [e.kind for e in table.journal.entries(table.game_id, before)]
                            raise RuntimeError(f"the roll was not played: journalled {kinds}")
                        progress.wait_all(seq, WAIT)
                        run.rolls.append(Throw(thrown, linked, done, seq))
                    else:  # the seat to act: a bot, through Table.play as a tablet
                        move = choose_move(table.game, table.state, rng)
                        before = table.seq
                        started = clock()
                        with contextlib.suppress(IllegalMove):  # flagged and journalled
                            table.play(table.game.move_to_json(move))
                            seq = first_move_after(table, before)
                            assert seq is not None, "Table.play returned without a move"
                            run.moves.append((started, seq))
                    # Every client is up to date before the table moves on, as at a
                    # table at a human pace.
                    progress.wait_all(table.seq, WAIT)
                run.last_seq = table.seq
            finally:
                for client in run.clients:
                    client.close()
                for client in run.clients:
                    client.join(timeout=5)
                service.notify()  # the streams look at their clients again and end
    finally:
        journal.close()
    return run


# -- the journal's commits --------------------------------------------------------------


def journal_appends(folder: Path, count: int, clock: Clock, wall: Clock) -> list[float]:
    """Seconds per ``Journal.append`` of a note to a fresh journal (WAL, synchronous)."""
    journal = Journal(folder / "appends.sqlite", clock=wall)
    try:
        game_id = journal.start_game(TABLE.id, new_game("uraeus", 3))
        took = []
        for i in range(count):
            started = clock()
            journal.append(game_id, "note", {"event": "benchmark", "i": i})
            took.append(clock() - started)
        return took
    finally:
        journal.close()


def table_plays(
    folder: Path, count: int, rng: random.Random, clock: Clock, wall: Clock
) -> list[float]:
    """Seconds per ``Table.play`` of a legal move (rolls and the players' moves alike):
    the notation read, the rules, the journal, the notification of the streams."""
    journal = Journal(folder / "plays.sqlite", clock=wall)
    try:
        table = Table(TABLE, journal)
        Service([table], wall)  # the streams' notification, with nobody waiting
        took = []
        while len(took) < count:
            if table.game.is_over(table.state):
                table.new_game()
                continue
            document = table.game.move_to_json(choose_move(table.game, table.state, rng))
            started = clock()
            table.play(document)
            took.append(clock() - started)
        return took
    finally:
        journal.close()


# -- the report -------------------------------------------------------------------------


def measure(args: argparse.Namespace, clock: Clock, wall: Clock) -> dict[str, Any]:
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory(prefix="live-latency-") as name:
        folder = Path(name)
        run = live_latency(folder / "live", args.clients, args.rolls, rng, clock, wall)
        appends = journal_appends(folder / "commits", args.commits, clock, wall)
        plays = table_plays(folder / "commits", args.commits, rng, clock, wall)
    delivered = [
        client.arrivals[roll.seq] - roll.thrown
        for roll in run.rolls
        for client in run.clients
        if roll.seq in client.arrivals
    ]
    moved = [
        client.arrivals[seq] - started
        for started, seq in run.moves
        for client in run.clients
        if seq in client.arrivals
    ]
    wanted = set(range(run.first_seq + 1, run.last_seq + 1))
    missed = sum(len(wanted - client.arrivals.keys()) for client in run.clients)
    return {
        "machine": {
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
        },
        "settings": {
            "clients": args.clients,
            "rolls": args.rolls,
            "commits": args.commits,
            "seed": args.seed,
            "waitress_threads": run.threads,
            "spare_threads": SPARE_THREADS,
        },
        "device_to_clients": spread(delivered),
        "throw_to_link": spread([r.linked - r.thrown for r in run.rolls]),
        "throw_to_journalled": spread([r.played - r.thrown for r in run.rolls]),
        "move_to_clients": spread(moved),
        "rolls": len(run.rolls),
        "bot_moves": len(run.moves),
        "games": run.games,
        "events": run.last_seq - run.first_seq,
        "event_kinds": dict(collections.Counter(run.clients[0].kinds.values())),
        "missed_deliveries": missed,
        "journal_append": rate(appends),
        "table_play": rate(plays),
    }


def ms(figures: dict[str, Any]) -> str:
    if not figures["count"]:
        return "none"
    return (
        f"median {figures['median_ms']:.1f} ms, p90 {figures['p90_ms']:.1f} ms, "
        f"p99 {figures['p99_ms']:.1f} ms, max {figures['max_ms']:.1f} ms"
    )


def report(figures: dict[str, Any]) -> str:
    machine, settings = figures["machine"], figures["settings"]
    n = settings["clients"]
    appends, plays = figures["journal_append"], figures["table_play"]
    kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(figures["event_kinds"].items()))
    return "\n".join(
        [
            f"machine: {machine['cpus']} CPUs, {machine['platform']}, Python {machine['python']}",
            f"settings: {n} clients, {settings['rolls']} rolls, {settings['commits']} "
            f"commits, seed {settings['seed']}; one Uräus table, waitress "
            f"{settings['waitress_threads']} threads ({settings['spare_threads']} spare + {n} "
            "streams); clients, service and die in one process",
            f"device event -> {n} live clients: {ms(figures['device_to_clients'])} "
            f"over {figures['rolls']} rolls",
            f"  throw -> source has DieRolled: {ms(figures['throw_to_link'])}",
            f"  throw -> Table.claim returned: {ms(figures['throw_to_journalled'])}",
            f"bot Table.play -> {n} live clients: {ms(figures['move_to_clients'])} "
            f"over {figures['bot_moves']} moves",
            f"  {figures['events']} events ({kinds}) in {figures['games']} game(s), "
            f"{figures['missed_deliveries']} deliveries missed",
            f"journal append (WAL, synchronous FULL): {appends['per_s']:,.0f} commits/s, "
            f"median {appends['median_ms']:.2f} ms over {appends['count']} appends",
            f"Table.play of a legal move: {plays['per_s']:,.0f} plays/s, "
            f"median {plays['median_ms']:.2f} ms over {plays['count']} plays",
        ]
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50, help="live clients (default 50)")
    parser.add_argument("--rolls", type=int, default=100, help="die rolls timed (default 100)")
    parser.add_argument("--commits", type=int, default=500, help="appends and plays (500)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON object, no text")
    args = parser.parse_args()
    for name in ("clients", "rolls", "commits"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    figures = measure(args, time.perf_counter, time.time)
    print(json.dumps(figures, indent=2) if args.json else report(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
