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
import re
from collections import defaultdict, deque
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, request

from companion.tables import IllegalUndo, Stale, Table, flag_words
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
    entries = found.journal.entries(
        found.game_id, since=sequence_number(request.args.get("since", "0"))
    )
    return jsonify(
        seq=found.seq,
        entries=[{"seq": e.seq, "at": e.at, "kind": e.kind, "data": e.data} for e in entries],
    )


@api.get("/tables/<table_id>/events")
def events(table_id: str):
    """Server-sent events: every journal entry after ``since`` (or the ``Last-Event-ID``
    a reconnecting browser sends), then each new one as it is written, with keep-alive
    comments between. An entry's ``id`` is its ``seq``, its ``event`` its kind. Streams
    are capped so that they never take every server thread."""
    found = table(table_id)
    since = sequence_number(request.headers.get("Last-Event-ID") or request.args.get("since", "0"))
    if since > found.seq:
        since = 0  # an id from another journal (a restored backup, say): start afresh
    keepalive = current_app.config["KEEPALIVE_SECONDS"]
    changed = service().changed
    streams = service().streams
    if not streams.acquire(blocking=False):
        abort(503, description="too many live streams: try again shortly")
    # Waitress can tell when the client has gone; elsewhere a failed write tells.
    disconnected = request.environ.get("waitress.client_disconnected", lambda: False)

    def stream():
        last = since
        try:
            yield "retry: 2000\n\n"
            while not disconnected():
                for entry in found.journal.entries(found.game_id, since=last):
                    last = entry.seq
                    data = json.dumps({"seq": entry.seq, "kind": entry.kind, "data": entry.data,
                                       "table": found.summary()})  # fmt: skip
                    yield f"id: {entry.seq}\nevent: {entry.kind}\ndata: {data}\n\n"
                waited = 0.0
                woken = False
                while not woken and waited < keepalive and not disconnected():
                    with changed:  # a change between reading and waiting is not missed
                        woken = found.seq > last or changed.wait(timeout=min(1.0, keepalive))
                    waited += min(1.0, keepalive)
                if not woken:
                    yield ": keep-alive\n\n"
        finally:
            streams.release()

    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(stream(), mimetype="text/event-stream", headers=headers)


def sequence_number(text: str) -> int:
    if not re.fullmatch(r"[0-9]{1,18}", text):
        abort(400, description=f"since must be a sequence number, got {text[:40]!r}")
    return int(text)


@api.post("/tables/<table_id>/moves")
def moves(table_id: str):
    found = table(table_id)
    body = change_body(found)
    if "move" not in body:
        abort(400, description='expected {"move": <a move in the notation>}')
    try:
        seq = found.play(body["move"], body.get("seq"))
    except Stale as error:
        abort(409, description=str(error))
    except NotationError as error:
        abort(400, description=f"malformed move: {error}")
    except IllegalMove as error:
        return jsonify(error="illegal move", flag=flag_words(error), seq=found.seq), 422
    return jsonify(seq=seq, table=found.summary())


@api.post("/tables/<table_id>/undo")
def undo(table_id: str):
    found = table(table_id)
    body = change_body(found)
    try:
        seq = found.undo(body.get("seq"))
    except (IllegalUndo, Stale) as error:
        abort(409, description=str(error))
    return jsonify(seq=seq, table=found.summary())


def change_body(found: Table) -> dict[str, Any]:
    """Check the PIN (rate-limited), the JSON body and the seq of a change request."""
    check_pin(found)
    if request.content_length and request.mimetype != "application/json":
        abort(415, description="send the body as application/json")
    try:
        body = request.get_json(silent=True)
    except RecursionError:
        abort(400, description="the JSON is nested too deep")
    if body is None and request.get_data():
        abort(400, description="the body is not valid JSON")
    body = body if body is not None else {}
    if not isinstance(body, dict):
        abort(400, description="expected a JSON object")
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
