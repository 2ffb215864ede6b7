"""The web application: ``create_app`` builds it around a set of tables (the flaskr
way: an application factory, blueprints, no state at import)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from flask import Flask, jsonify
from werkzeug.exceptions import HTTPException

from companion.tables import Table


class Service:
    """The running tables, by id, the clock the service keeps time by, and a condition
    that every change notifies, so that live streams wake up."""

    def __init__(
        self, tables: list[Table], clock: Callable[[], float], max_streams: int = 64
    ) -> None:
        self.tables = {table.config.id: table for table in tables}
        self.clock = clock
        self.changed = threading.Condition()
        self.streams = threading.BoundedSemaphore(max_streams)
        self.pin_lock = threading.Lock()
        for table in tables:
            table.on_change = self.notify

    def notify(self) -> None:
        with self.changed:
            self.changed.notify_all()


def create_app(service: Service, config: dict[str, Any] | None = None) -> Flask:
    from companion.api import api
    from companion.pages import pages

    app = Flask(__name__)
    app.config.update(
        DEBUG=False,
        PROPAGATE_EXCEPTIONS=False,
        KEEPALIVE_SECONDS=15.0,
        MAX_CONTENT_LENGTH=64 * 1024,  # a move is a few hundred bytes
    )
    app.config.update(config or {})
    app.extensions["companion"] = service
    app.register_blueprint(api)
    app.register_blueprint(pages)

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException):
        # Every error is JSON that says what was wrong, never an HTML page.
        return jsonify(error=error.description or error.name), error.code

    @app.errorhandler(Exception)
    def unexpected(error: Exception):  # pragma: no cover - a bug, still not an HTML 500
        app.logger.exception("unexpected error")
        return jsonify(error=f"internal error: {type(error).__name__}"), 500

    return app
