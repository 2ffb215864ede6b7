"""``companion serve``: the tables of a configuration, their journal, the web app, served
by waitress with its threads sized for live streams."""

from __future__ import annotations

import fcntl
import logging
import os
import threading
import time
from pathlib import Path
from typing import TextIO

from companion.app import Service, create_app
from companion.journal import Journal
from companion.sources import DeviceSource
from companion.tables import Table, read_config

#: Threads beyond the live streams: for the requests that come and go.
SPARE_THREADS = 8
#: Live streams a table is expected to feed (its tablets and phones), with headroom.
STREAMS_PER_TABLE = 8


def serve(
    config: str | None,
    *,
    host: str,
    port: int,
    instance: str,
    threads: int | None,
    out: TextIO,
    demo: bool = False,
    pace: float = 1.0,
    humans: tuple[str, ...] = (),
) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    folder = Path(instance) / "demo" if demo else Path(instance)
    lock = lock_instance(folder)  # held until the process ends
    stop = threading.Event()
    if demo:
        from companion.demo import DEMO_PIN, Demo

        runner = Demo(folder, pace=pace, seed=int(time.time()), humans=humans)
        tables = runner.tables
        print(
            f"demo: bots play Uräus, Regie, Gimmel, Nil and Horus; the PIN is {DEMO_PIN}", file=out
        )
    else:
        if config is None:
            raise ValueError("serve needs --config FILE, or --demo")
        if humans:
            raise ValueError("--human is for the demo's bots; a configured table has none")
        journal = Journal(folder / "journal.sqlite")
        tables = [Table(table_config, journal) for table_config in read_config(config)]
        for table in tables:
            for name, device in table.config.devices.items():
                DeviceSource(table, name, device, stop=stop).start()
            if table.config.camera:
                from companion.camera_source import CameraConfig, CameraSource

                CameraSource(table, CameraConfig(**table.config.camera), stop=stop).start()
    threads = threads or threads_for(len(tables))
    service = Service(tables, time.time, max_streams=max(1, threads - SPARE_THREADS))
    app = create_app(service, {"BIND_HOST": host})
    try:
        server = make_server(app, host, port, threads)
    except OSError as error:
        stop.set()
        lock.close()
        raise OSError(f"cannot listen on {host}:{port}: {error.strerror}") from None
    if demo:
        runner.start()
    print(f"serving {len(tables)} table(s) at http://{host}:{port}/ ({threads} threads)",
          file=out, flush=True)  # fmt: skip
    try:
        server.run()
    finally:
        stop.set()
        lock.close()
    return 0


def threads_for(tables: int) -> int:
    """A server's default of four threads stalls the fifth live stream: size the server
    for every table's tablets, and keep spare threads so requests always find one (the
    service caps the streams at the rest)."""
    return SPARE_THREADS + STREAMS_PER_TABLE * tables


def make_server(app, host: str, port: int, threads: int):
    """The waitress server for ``app``, listening already (an address in use fails
    here, before anything says it is serving); ``run()`` serves until the process ends."""
    from waitress import create_server

    return create_server(
        app,
        host=host,
        port=port,
        threads=threads,
        channel_timeout=3600,
        channel_request_lookahead=1,  # lets a stream notice its client has gone
        # Above Flask's own limit, so that an oversized body gets the app's JSON 413.
        max_request_body_size=1024 * 1024,
    )


class InstanceBusy(ValueError):
    """Another companion already serves this instance folder."""


def lock_instance(folder: Path):
    """Lock the instance folder for this process: two servers writing one journal would
    each replay only their own changes. The lock goes with the process, however it ends
    (the kernel releases it on SIGKILL or a power cut, so no stale lock is left)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "companion.lock"
    handle = path.open("a+")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        handle.seek(0)
        holder = handle.read().strip() or "another process"
        handle.close()
        raise InstanceBusy(
            f"{folder} is in use by a running companion ({holder}): stop it, or give "
            "another --instance folder"
        ) from None
    handle.seek(0)
    handle.truncate()
    handle.write(f"pid {os.getpid()}\n")
    handle.flush()
    return handle
