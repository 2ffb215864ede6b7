"""The JSON API (``docs/api.md``): watching needs nothing; a change needs the table's PIN.

    GET  /api/tables                      every table: id, game, players, scores, seq
    GET  /api/tables/ID/state             one table, its state in the notation and legal moves
    GET  /api/tables/ID/journal?since=N   the table's journal entries after seq N
    POST /api/tables/ID/moves             {"move": <move in the notation>, "seq": optional}
    POST /api/tables/ID/undo              {"seq": optional}

The PIN comes in the ``X-Table-PIN`` header. Wrong PINs are limited per table and client.
"""

from __future__ import annotations

import hmac
import json
from collections import defaultdict, deque
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, request

from companion.tables import IllegalUndo, Table, flag_words
from rules import IllegalMove, NotationError

api = Blueprint("api", __name__, url_prefix="/api")

MAX_FAILURES = 5  # wrong PINs a client may give a table ...
FAILURE_WINDOW = 60.0  # ... within this many seconds


def service():
    return current_app.extensions["companion"]


def table(table_id: str) -> Table:
    found = service().tables.get(table_id)
    if found is None:
        abort(404, description=f"no table {table_id!r}")
    return found


@api.get("/tables")
def tables():
    return jsonify(tables=[t.summary() for t in service().tables.values()])


@api.get("/tables/<table_id>/state")
def state(table_id: str):
    return jsonify(table(table_id).detail())


@api.get("/tables/<table_id>/journal")
def journal(table_id: str):
    found = table(table_id)
    since = request.args.get("since", "0")
    if not since.isdigit():
        abort(400, description=f"since must be a sequence number, got {since!r}")
    entries = found.journal.entries(found.game_id, since=int(since))
    return jsonify(
        seq=found.seq,
        entries=[{"seq": e.seq, "at": e.at, "kind": e.kind, "data": e.data} for e in entries],
    )


@api.get("/tables/<table_id>/events")
def events(table_id: str):
    """Server-sent events: every journal entry after ``since`` (or the ``Last-Event-ID``
    a reconnecting browser sends), then each new one as it is written, with keep-alive
    comments between. An entry's ``id`` is its ``seq``, its ``event`` its kind."""
    found = table(table_id)
    since = request.headers.get("Last-Event-ID") or request.args.get("since", "0")
    if not since.isdigit():
        abort(400, description=f"since must be a sequence number, got {since!r}")
    keepalive = current_app.config["KEEPALIVE_SECONDS"]
    changed = service().changed

    def stream():
        last = int(since)
        yield "retry: 2000\n\n"
        while True:
            entries = found.journal.entries(found.game_id, since=last)
            for entry in entries:
                last = entry.seq
                data = json.dumps({"seq": entry.seq, "kind": entry.kind, "data": entry.data,
                                   "table": found.summary()})  # fmt: skip
                yield f"id: {entry.seq}\nevent: {entry.kind}\ndata: {data}\n\n"
            with changed:  # a change between reading and waiting is not missed
                woken = found.seq > last or changed.wait(timeout=keepalive)
            if not woken:
                yield ": keep-alive\n\n"

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(stream(), mimetype="text/event-stream", headers=headers)


@api.post("/tables/<table_id>/moves")
def moves(table_id: str):
    found = table(table_id)
    body = change_body(found)
    if "move" not in body:
        abort(400, description='expected {"move": <a move in the notation>}')
    try:
        seq = found.play(body["move"])
    except NotationError as error:
        abort(400, description=f"malformed move: {error}")
    except IllegalMove as error:
        return jsonify(error="illegal move", flag=flag_words(error), seq=found.seq), 422
    return jsonify(seq=seq, table=found.summary())


@api.post("/tables/<table_id>/undo")
def undo(table_id: str):
    found = table(table_id)
    change_body(found)
    try:
        seq = found.undo()
    except IllegalUndo as error:
        abort(409, description=str(error))
    return jsonify(seq=seq, table=found.summary())


def change_body(found: Table) -> dict[str, Any]:
    """Check the PIN (rate-limited), the JSON body and the seq of a change request."""
    check_pin(found)
    body = request.get_json(silent=True)
    if body is None and request.data:
        abort(400, description="the body is not valid JSON")
    body = body if body is not None else {}
    if not isinstance(body, dict):
        abort(400, description="expected a JSON object")
    seq = body.get("seq")
    if seq is not None and seq != found.seq:
        abort(409, description=f"stale: the table is at seq {found.seq}, not {seq!r}")
    return body


def check_pin(found: Table) -> None:
    failures = current_app.extensions.setdefault("pin_failures", defaultdict(deque))
    key = (found.config.id, request.remote_addr)
    now = service().clock()
    recent = failures[key]
    while recent and now - recent[0] > FAILURE_WINDOW:
        recent.popleft()
    if len(recent) >= MAX_FAILURES:
        abort(429, description="too many wrong PINs: wait a minute")
    given = request.headers.get("X-Table-PIN", "")
    if not hmac.compare_digest(given.encode(), found.config.pin.encode()):
        recent.append(now)
        abort(401, description="this change needs the table's PIN (header X-Table-PIN)")
