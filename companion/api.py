"""The JSON API (``docs/api.md``): watching needs nothing; a change needs the table's PIN.

    GET  /api/games                       the games a tablet can start, with options and kits
    GET  /api/tables                      every table: id, game, players, scores, seq
    GET  /api/tables/ID/state             one table, its state in the notation and legal moves
    GET  /api/tables/ID/journal?since=N   the table's journal entries after seq N
    GET  /api/tables/ID/events            live: server-sent events from a seq
    GET  /api/tables/ID/panel?lang=en     the board as SVG, and the moves as taps and words
    POST /api/tables/ID/moves             {"move": <move in the notation>, "seq": optional}
    POST /api/tables/ID/taps              {"taps": [place ids], "seq": optional}
    POST /api/tables/ID/undo              {"seq": optional}
    POST /api/tables/ID/end-turn          {"seq": optional}
    POST /api/tables/ID/dismiss           {"seq": optional}
    POST /api/tables/ID/games             {"game", "players", "options", "kit"} or {"position"}
    POST /api/tables/ID/kit-correction    {"seq": optional}: keep the kit as play showed it
    POST /api/tables/ID/edit              {"draft", "place", "setting", "value"}: the editor

The PIN comes in the ``X-Table-PIN`` header. Wrong PINs are limited per table and client.
"""

from __future__ import annotations

import hmac
import json
import re
from collections import deque
from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, request

from companion import editor
from companion.panels import TapError, panel_for
from companion.tables import ConfigError, IllegalUndo, Stale, Table, flag_words, game_listing
from rules import GAMES, IllegalMove, NotationError, RulesError, game_of, parse_state

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


@api.get("/games")
def games():
    """The games with their players and options, and the kits each table offers."""
    listing = game_listing()
    for name, entry in listing.items():
        entry["kits"] = {t.config.id: list(t.kits(name)) for t in service().tables.values()}
    return jsonify(games=listing)


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
    return play_answer(found, body["move"], body.get("seq"))


@api.get("/tables/<table_id>/panel")
def panel(table_id: str):
    """The board as the companion understands it, drawn in ``lang`` (en, de), with every
    legal move of the player to act: its words and the places tapped to make it."""
    found = table(table_id)
    lang = request.args.get("lang", "en")
    if lang not in ("en", "de"):
        abort(400, description=f"lang must be en or de, got {lang[:10]!r}")
    with found.lock:
        game, state = found.game, found.state
        drawer = panel_for(game.name)
        moves = [{"move": game.move_to_json(m), "words": game.describe(state, m, lang),
                  "taps": list(drawer.taps(state, m))}
                 for m in game.legal_moves(state)]  # fmt: skip
        chance = [{"move": game.move_to_json(m), "words": game.describe(state, m, lang)}
                  for m, _ in game.chance_outcomes(state)]  # fmt: skip
        # A flag the table holds may be drawn where the refused move went.
        held = found.attention
        flag = held if held is not None and held.get("kind") == "flag" else None
        return jsonify(svg=drawer.svg(state, lang=lang, flag=flag), moves=moves, chance=chance,
                       seq=found.seq)  # fmt: skip


@api.get("/tables/<table_id>/camera.jpg")
def camera_view(table_id: str):
    """The last frame the table's camera read, square-on, each square labelled."""
    import cv2

    found = table(table_id)
    camera = getattr(found, "camera", None)
    if camera is None:
        abort(404, description=f"table {table_id!r} has no camera")
    picture = camera.view()
    if picture is None:
        abort(404, description="the camera has not read the board yet")
    _, data = cv2.imencode(".jpg", picture, [cv2.IMWRITE_JPEG_QUALITY, 85])
    return Response(data.tobytes(), mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@api.post("/tables/<table_id>/taps")
def taps(table_id: str):
    """Taps on the board's places as a move: legal or not, the rules judge it. Taps
    that are only the start of a move answer ``{"complete": false}``."""
    found = table(table_id)
    body = change_body(found)
    given = body.get("taps")
    if not isinstance(given, list) or not all(isinstance(t, str) for t in given):
        abort(400, description='expected {"taps": [place ids]}')
    with found.lock:  # the move is judged at the state it was composed from
        try:
            move = panel_for(found.game.name).compose(found.state, tuple(given))
        except TapError as error:
            abort(400, description=str(error))
        if move is None:
            return jsonify(complete=False, seq=found.seq)
        return play_answer(found, found.game.move_to_json(move), body.get("seq"))


def play_answer(found: Table, document: Any, expected: Any):
    """Play a move for a request and answer: 200 with the table, 409 stale, 400
    malformed, 422 with the flag for an illegal move (journalled as a flag)."""
    try:
        seq = found.play(document, expected)
    except Stale as error:
        abort(409, description=str(error))
    except NotationError as error:
        abort(400, description=f"malformed move: {error}")
    except IllegalMove as error:
        return jsonify(error="illegal move", flag=flag_words(error), seq=found.seq), 422
    return jsonify(complete=True, seq=seq, table=found.summary())


@api.post("/tables/<table_id>/undo")
def undo(table_id: str):
    return table_change(table_id, Table.undo)


@api.post("/tables/<table_id>/end-turn")
def end_turn(table_id: str):
    return table_change(table_id, Table.end_turn)


@api.post("/tables/<table_id>/dismiss")
def dismiss(table_id: str):
    return table_change(table_id, Table.dismiss)


def table_change(table_id: str, change):
    """A change that takes only the ``seq`` it was made against: 409 when the table has
    moved on or there is nothing to change (nothing to undo or to dismiss)."""
    found = table(table_id)
    body = change_body(found)
    try:
        seq = change(found, body.get("seq"))
    except (IllegalUndo, Stale) as error:
        abort(409, description=str(error))
    return jsonify(seq=seq, table=found.summary())


@api.post("/tables/<table_id>/edit")
def edit_position(table_id: str):
    """The position editor's step: from ``draft`` (a state in the notation; the table's
    current state when absent), the choices for a ``place``, or the draft with ``place``
    (or ``setting``) set to ``value``. Nothing is recorded: ``/games`` with ``position``
    sets the draft as the table's position."""
    found = table(table_id)
    body = change_body(found)
    lang = body.get("lang", "en")
    if lang not in ("en", "de"):
        abort(400, description="lang must be en or de")
    place, name, value = body.get("place"), body.get("setting"), body.get("value")
    for field, given in (("place", place), ("setting", name), ("value", value)):
        if given is not None and not isinstance(given, str):
            abort(400, description=f"{field}: expected text")
    with found.lock:
        draft = found.state if body.get("draft") is None else None
        game = found.game
    try:
        if draft is None:
            draft = parse_state(body["draft"])
            if game_of(draft) is not game:
                abort(
                    400, description=f"draft: a {game_of(draft).title} position, not {game.title}"
                )
        if not editor.has_editor(game.name):
            return jsonify(editor=False, draft=game.state_to_json(draft))
        choices = []
        if place is not None and value is None:
            choices = editor.choices(draft, place, lang)
        elif place is not None:
            draft = editor.edit(draft, place, value)
        elif name is not None and value is not None:
            draft = editor.setting(draft, name, value)
    except (editor.EditError, NotationError) as error:
        abort(400, description=str(error))
    return jsonify(editor=True, draft=game.state_to_json(draft), choices=choices,
                   svg=panel_for(game.name).svg(draft, lang=lang),
                   settings=editor.settings(draft, lang))  # fmt: skip


@api.post("/tables/<table_id>/kit-correction")
def kit_correction(table_id: str):
    """Keep what play has shown about the kit (Regie: the sensors win over the kit) as
    the table's own kit file, which its next games start with."""
    found = table(table_id)
    body = change_body(found)
    try:
        path = found.save_kit_correction(body.get("seq"))
    except (IllegalUndo, Stale) as error:
        abort(409, description=str(error))
    except OSError as error:
        abort(503, description=f"the kit file could not be written: {error.strerror}")
    return jsonify(saved=path, seq=found.seq, table=found.summary())


@api.post("/tables/<table_id>/games")
def start_game(table_id: str):
    """Start the next game at the table: ``game``, ``players`` (names by seat),
    ``options`` and ``kit`` (a name from /api/games) default to the current game's;
    ``position`` (a state in the notation) joins a game in progress instead."""
    found = table(table_id)
    body = change_body(found)
    unknown = set(body) - {"game", "players", "options", "kit", "position", "seq"}
    if unknown:
        abort(400, description=f"unknown field {sorted(unknown)[0]!r}")
    if "position" in body and not isinstance(body["position"], dict):
        abort(400, description="position: expected a state in the notation (an object)")
    game = body.get("game")
    if game is not None and (not isinstance(game, str) or game not in GAMES):
        known = ", ".join(GAMES)
        abort(400, description=f"game: unknown game {str(game)[:40]!r}; games are {known}")
    players = body.get("players")
    if players is not None and (
        not isinstance(players, list)
        or not all(isinstance(p, str) and 0 < len(p.strip()) <= 40 for p in players)
    ):
        abort(400, description="players: expected a list of names (1 to 40 characters each)")
    options = body.get("options")
    if options is not None and not isinstance(options, dict):
        abort(400, description="options: expected an object of option = value")
    kit = body.get("kit")
    kits = found.kits(game or found.game.name)
    if kit is not None and (not isinstance(kit, str) or kit not in kits):
        abort(400, description=f"kit: {str(kit)[:40]!r} is not one of {', '.join(kits)}")
    try:
        seq = found.new_game(
            game=game,
            players=None if players is None else tuple(p.strip() for p in players),
            options=options,
            kit=None if kit is None else kits[kit],
            position=body.get("position"),
            expected=body.get("seq"),
        )
    except Stale as error:
        abort(409, description=str(error))
    except NotationError as error:
        abort(400, description=f"position: {error}")
    except (ConfigError, RulesError) as error:
        abort(422, description=str(error))
    return jsonify(seq=seq, table=found.summary())


def change_body(found: Table) -> dict[str, Any]:
    """Check the PIN (rate-limited), the JSON body and the seq of a change request."""
    check_pin(found)
    found.touched = service().clock()
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
    seq = body.get("seq")
    if seq is not None and (type(seq) is not int or seq < 0):
        abort(400, description=f"seq must be a sequence number, got {json.dumps(seq)[:40]}")
    return body


def check_pin(found: Table) -> None:
    failures: dict[tuple, deque] = current_app.extensions.setdefault("pin_failures", {})
    key = (found.config.id, request.remote_addr)
    now = service().clock()
    given = request.headers.get("X-Table-PIN", "")
    right = hmac.compare_digest(given.encode(), found.config.pin.encode())
    with service().pin_lock:  # requests run in threads: count each wrong PIN once
        recent = failures.get(key, deque())
        while recent and now - recent[0] > FAILURE_WINDOW:
            recent.popleft()
        if len(recent) >= MAX_FAILURES:
            abort(429, description="too many wrong PINs: wait a minute")
        if right:
            if not recent:
                failures.pop(key, None)
            return
        recent.append(now)
        failures[key] = recent
        if len(failures) > 1000:  # many clients failed once: forget the ones long gone
            for old in [k for k, v in failures.items() if now - v[-1] > FAILURE_WINDOW]:
                del failures[old]
    abort(401, description="this change needs the table's PIN (header X-Table-PIN)")
