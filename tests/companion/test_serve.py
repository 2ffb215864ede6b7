"""The service under its real server (waitress, as `companion serve` runs it): more live
streams than a server's default four threads all receive every change."""

from __future__ import annotations

import http.client
import json
import threading
import time

from companion.app import Service, create_app
from companion.journal import Journal
from companion.serve import make_server, threads_for
from companion.tables import Table, TableConfig

WAITRESS_DEFAULT_THREADS = 4


def test_more_live_streams_than_default_threads_all_get_the_update(tmp_path):
    journal = Journal(tmp_path / "journal.sqlite")
    table = Table(TableConfig("u", "uraeus", ("Ada", "Ben"), "4711"), journal)
    threads = threads_for(1)
    app = create_app(Service([table], time.time, max_streams=threads - 8))
    server = make_server(app, "127.0.0.1", 0, threads)
    port = server.effective_port
    serving = threading.Thread(target=server.run, daemon=True)
    serving.start()
    streams = WAITRESS_DEFAULT_THREADS + 3
    got: dict[int, list[str]] = {i: [] for i in range(streams)}
    ready = threading.Barrier(streams + 1)
    connections = []

    def listen(i: int) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        connections.append(connection)
        connection.request("GET", "/api/tables/u/events?since=0")
        answer = connection.getresponse()
        assert answer.status == 200
        ready.wait()
        for raw in answer:
            line = raw.decode().strip()
            if line.startswith("data: "):
                got[i].append(json.loads(line[6:])["kind"])
                return

    listeners = [threading.Thread(target=listen, args=(i,), daemon=True) for i in range(streams)]
    for listener in listeners:
        listener.start()
    try:
        ready.wait(timeout=10)  # every stream is open and holds a thread
        # A change, made while every stream waits: a request still finds a thread.
        post = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        post.request("POST", "/api/tables/u/moves", body=json.dumps({"move": {"type": "roll",
                     "face": 4}}), headers={"Content-Type": "application/json",
                                            "X-Table-PIN": "4711"})  # fmt: skip
        assert post.getresponse().status == 200
        for listener in listeners:
            listener.join(timeout=10)
        assert got == {i: ["move"] for i in range(streams)}
    finally:
        for connection in connections:
            connection.close()
        server.task_dispatcher.shutdown()
        server.close()
        journal.close()
