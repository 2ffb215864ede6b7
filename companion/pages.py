"""The pages for people: the start page listing the tables, and a table's scoreboard,
which updates itself from the live event stream (no reloads, no outside assets)."""

from __future__ import annotations

from flask import Blueprint, abort, current_app, render_template

pages = Blueprint("pages", __name__)


@pages.get("/")
def index():
    service = current_app.extensions["companion"]
    return render_template("index.html", tables=[t.summary() for t in service.tables.values()])


@pages.get("/tables/<table_id>")
def scoreboard(table_id: str):
    table = current_app.extensions["companion"].tables.get(table_id)
    if table is None:
        abort(404, description=f"no table {table_id!r}")
    return render_template("table.html", table=table.summary())
