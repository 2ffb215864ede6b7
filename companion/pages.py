"""The pages for people: the start page listing the tables with a QR code of its own
address for tablets to join, and a table's scoreboard, which updates itself from the
live event stream (no reloads, no outside assets: a table has no network)."""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from flask import Blueprint, abort, current_app, render_template, request

pages = Blueprint("pages", __name__)


@pages.get("/")
def index():
    service = current_app.extensions["companion"]
    address = join_address(request.host_url, current_app.config.get("BIND_HOST"))
    return render_template(
        "index.html",
        tables=[t.summary() for t in service.tables.values()],
        address=address,
        qr=qr_svg(address),
        local_only=is_loopback(current_app.config.get("BIND_HOST") or ""),
    )


@pages.get("/tables/<table_id>")
def scoreboard(table_id: str):
    table = current_app.extensions["companion"].tables.get(table_id)
    if table is None:
        abort(404, description=f"no table {table_id!r}")
    return render_template("table.html", table=table.summary())


def join_address(host_url: str, bind_host: str | None) -> str:
    """The address tablets should open: the one this page was asked under, unless that
    is the machine's own loopback (a browser on the Pi itself), which a tablet cannot
    reach; then the machine's address on the local network, when it listens there."""
    parts = urlsplit(host_url)
    if not is_loopback(parts.hostname or "") or is_loopback(bind_host or ""):
        return host_url
    lan = local_network_address()
    if lan is None:
        return host_url
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{lan}{port}/"


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def local_network_address() -> str | None:
    """This machine's address toward the local network. Connecting a datagram socket
    sends nothing; it only makes the system choose the outgoing interface."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: never routed anywhere real
            address = probe.getsockname()[0]
    except OSError:
        return None
    return None if is_loopback(address) or address == "0.0.0.0" else address


def qr_svg(text: str) -> str:
    """A QR code of ``text`` as inline SVG, drawn here (segno, no network)."""
    import segno

    return segno.make(text, error="m").svg_inline(scale=6, border=2, title=text)
