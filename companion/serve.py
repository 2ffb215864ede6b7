"""``companion serve``: the tables of a configuration, their journal, the web app, served
by waitress with its threads sized for live streams."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TextIO

from companion.app import Service, create_app
from companion.journal import Journal
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
) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")
    if demo:
        from companion.demo import DEMO_PIN, Demo

        runner = Demo(Path(instance) / "demo", pace=pace, seed=int(time.time()))
        tables = runner.tables
        print(f"demo: bots play Uräus, Regie and Gimmel; the PIN is {DEMO_PIN}", file=out)
    else:
        if config is None:
            raise ValueError("serve needs --config FILE, or --demo")
        journal = Journal(Path(instance) / "journal.sqlite")
        tables = [Table(table_config, journal) for table_config in read_config(config)]
    # A server's default of four threads stalls the fifth live stream: size it, and cap
    # the streams so that requests always find a thread.
    threads = threads or SPARE_THREADS + STREAMS_PER_TABLE * len(tables)
    app = create_app(Service(tables, time.time, max_streams=max(1, threads - SPARE_THREADS)))
    if demo:
        runner.start()
    from waitress import serve as waitress_serve

    print(f"serving {len(tables)} table(s) at http://{host}:{port}/ ({threads} threads)",
          file=out, flush=True)  # fmt: skip
    waitress_serve(
        app,
        host=host,
        port=port,
        threads=threads,
        channel_timeout=3600,
        channel_request_lookahead=1,  # lets a stream notice its client has gone
        max_request_body_size=64 * 1024,
    )
    return 0
