"""Gimmel's board as the companion understands it, and taps on it turned into moves.

Place ids (``data-place``):

- a square by its notation name, ``"a1"`` .. ``"h18"`` (every square the kit's board has);
- ``"reserve:<seat>:<kind>"``: a seat's pieces of one kind beside the board, kind being
  ``beetle``, ``cat`` or ``falcon`` (``"reserve:0:cat"``).

Taps: a placement is ``("reserve:<seat>:<kind>", square)``, a leap ``(from, to)``. The
colour lot, a pass and a draw claim are not tapped: the page shows them as buttons.
Every legal move has its own taps, so ``compose`` is never ambiguous.

``compose`` builds whatever move the taps describe, legal or not, so that the engine
names the rule it breaks (a leap too short, onto one's own piece, with the opponent's
piece, a placement from an empty reserve or onto a piece). Taps that describe no move
at all are a :class:`TapError`: an unknown id, a first tap on an empty square (nothing
to move), the opponent's reserve (one never places the opponent's pieces), a reserve as
a destination, or more than two taps.

The picture: a board of more rows than columns is drawn turned a quarter clockwise (row
1 on the left, column a at the top) so that it fits a landscape screen; the coordinates
are written along its edges. Pieces carry a shape (beetle: an oval with legs, cat
goddess: a triangle, falcon: a disc with a ring), a letter and their colour (white or
black, grey before the colour lot).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from companion.panels.common import (
    Say,
    TapError,
    card,
    check_taps,
    circle,
    document,
    el,
    ended,
    place,
    polygon,
    rect,
    seat_to_act,
    text,
    whole,
    words,
)
from rules.gimmel import GIMMEL
from rules.gimmel.model import KINDS, GimmelMove, GimmelState, Kind, Leap, Piece, Place
from rules.grid import LETTERS, Square

CELL = 40
EDGE = CELL  # room for the coordinates around the board
PANEL = 150  # the height of the two seats' panels under the board
KIND_NAMES = {
    Kind.BEETLE: {"en": "beetle", "de": "Käfer"},
    Kind.CAT: {"en": "cat goddess", "de": "Katzengöttin"},
    Kind.FALCON: {"en": "falcon", "de": "Falke"},
}
LETTER = {Kind.BEETLE: "B", Kind.CAT: "C", Kind.FALCON: "F"}
FILL = {"white": "#ffffff", "black": "#202020", None: "#9a9a9a"}
INK = {"white": "#000000", "black": "#ffffff", None: "#000000"}

WORDS = {
    "title": {"en": "Gimmel board", "de": "Gimmel-Brett"},
    "white": {"en": "White", "de": "Weiß"},
    "black": {"en": "Black", "de": "Schwarz"},
    "lot": {"en": "colour by lot", "de": "Farbe per Los"},
    "waiting_lot": {"en": "Waiting for the colour lot", "de": "Die Farben werden ausgelost"},
    "reserve": {"en": "Reserve", "de": "Vorrat"},
    "captured": {"en": "Captured", "de": "Geschlagen"},
    "square": {"en": "Square {name}", "de": "Feld {name}"},
    "empty": {"en": "empty", "de": "leer"},
    "in_reserve": {"en": "{seat}: {n} × {kind} in reserve", "de": "{seat}: {n} × {kind} im Vorrat"},
}


# -- taps ---------------------------------------------------------------------------


def taps(state: GimmelState, move: GimmelMove) -> tuple[str, ...]:
    """The place ids a player taps for ``move``; ``()`` for moves made with buttons and
    for moves whose places the picture does not have (a square off the board)."""
    board = state.grid
    if isinstance(move, Place) and move.player in (0, 1) and board.contains(move.to):
        return (f"reserve:{move.player}:{move.kind.value}", str(move.to))
    if isinstance(move, Leap) and board.contains(move.src) and board.contains(move.dst):
        return (str(move.src), str(move.dst))
    return ()


def compose(state: GimmelState, taps: tuple[str, ...]) -> Place | Leap | None:
    """The move the taps describe (legal or not), ``None`` for a valid beginning."""
    taps = check_taps(taps)
    if not taps:
        return None
    seat = seat_to_act(GIMMEL, state, taps)
    if len(taps) > 2:
        raise TapError(taps, "a move is at most two taps: where from, then where to")
    first = _reserve(state, taps, taps[0])
    if first is None:
        src = _square(state, taps, taps[0])
        if state.board[state.grid.index(src)] is None:
            raise TapError(taps, f"{taps[0]} is empty: a move begins at a piece or a reserve")
    elif first[0] != seat:
        raise TapError(taps, f"{taps[0]} is seat {first[0]}'s reserve, and seat {seat} is to move")
    if len(taps) == 1:
        return None
    if _reserve(state, taps, taps[1]) is not None:
        raise TapError(taps, f"{taps[1]} is a reserve: a piece goes to a square")
    dst = _square(state, taps, taps[1])
    if first is not None:
        return Place(seat, first[1], dst)
    return Leap(seat, src, dst)


def _reserve(state: GimmelState, taps: tuple[str, ...], tap: str) -> tuple[int, Kind] | None:
    """``(seat, kind)`` for a reserve id, None for anything that is not one."""
    if not tap.startswith("reserve:"):
        return None
    parts = tap.split(":")
    seat = whole(parts[1], 0, 1) if len(parts) == 3 else None
    kinds = {kind.value: kind for kind in KINDS}
    if seat is None or parts[2] not in kinds:
        raise TapError(taps, f"{tap} is no place of this board: reserves are reserve:<0|1>:<kind>")
    return seat, kinds[parts[2]]


def _square(state: GimmelState, taps: tuple[str, ...], tap: str) -> Square:
    board = state.grid
    try:
        square = Square.parse(tap)
    except ValueError:
        square = None
    if square is None or str(square) != tap or not board.contains(square):
        last = str(board.squares[-1])
        raise TapError(taps, f"{tap} is no place of this board (squares a1 to {last})")
    return square


# -- the picture --------------------------------------------------------------------


def svg(state: GimmelState, *, lang: str = "en", flag: Mapping[str, Any] | None = None) -> str:
    # A flag is left to the page, which shows its words: no move of this game has a
    # place on the board that would say more.
    say = words(WORDS, lang)
    columns, rows = state.kit.columns, state.kit.rows
    turned = rows > columns
    across, down = (rows, columns) if turned else (columns, rows)
    width = max(across * CELL + 2 * EDGE, 2 * 330)
    left, top = (width - across * CELL) / 2, 34 + EDGE
    height = top + down * CELL + EDGE + PANEL

    def corner(col: int, row: int) -> tuple[float, float]:
        """The top left corner of a square; -1 and the board's size give the edges."""
        if turned:
            return left + row * CELL, top + col * CELL
        return left + col * CELL, top + (rows - 1 - row) * CELL

    status = _status(state, say)
    body = [text(width / 2, 24, status, 18, font_weight="bold")]
    for index, square in enumerate(state.grid.squares):
        x, y = corner(*square)
        piece = state.board[index]
        shade = "#e9dcb9" if (square.col + square.row) % 2 else "#c9b386"
        parts = [rect(x, y, CELL, CELL, fill=shade, stroke="#6b5a3a", class_="cell")]
        label = say("square", name=str(square))
        if piece is not None:
            parts.append(_piece(state, piece, x + CELL / 2, y + CELL / 2, CELL * 0.4))
            label += f": {_seat_name(state, piece.owner, say)}, {KIND_NAMES[piece.kind][lang]}"
        body.append(place(str(square), parts, label))
    labels = []
    # Coordinates on all four edges: the tablet may lie either way round on the table.
    for col in range(columns):
        for row in (-1, rows):
            x, y = corner(col, row)
            labels.append(_label(x, y, LETTERS[col]))
    for row in range(rows):
        for col in (-1, columns):
            x, y = corner(col, row)
            labels.append(_label(x, y, str(row + 1)))
    body.append(el("g", labels, class_="coordinates", fill="#333333"))
    panel_y = top + down * CELL + EDGE
    for seat in (0, 1):
        x = seat * width / 2 + 10
        body.append(_seat_panel(state, seat, x, panel_y, width / 2 - 20, say, lang))
    return document("gimmel", width, height, f"{say('title')}: {status}", body)


def _label(x: float, y: float, words_: str) -> str:
    """A coordinate in the middle of the square-sized spot beside the board at (x, y)."""
    return text(x + CELL / 2, y + CELL / 2, words_, 14, dominant_baseline="central")


def _status(state: GimmelState, say: Say) -> str:
    actor = GIMMEL.to_act(state)
    if actor is None:
        return ended(GIMMEL, state, say, lambda seat: _seat_name(state, seat, say))
    if state.white is None:
        return say("waiting_lot")
    return say("to_move", who=_seat_name(state, actor, say))


def _seat_name(state: GimmelState, seat: int, say: Say) -> str:
    colour = state.colour(seat)
    name = say("seat", seat=seat)
    return name if colour is None else f"{say(colour)} ({name})"


def _shape(kind: Kind, cx: float, cy: float, r: float, fill: str, ink: str) -> list[str]:
    line = {"fill": fill, "stroke": ink, "stroke_width": 2}
    if kind is Kind.CAT:
        corners = ((cx, cy - r), (cx + r * 0.95, cy + r * 0.8), (cx - r * 0.95, cy + r * 0.8))
        return [polygon(corners, **line)]
    if kind is Kind.FALCON:
        return [circle(cx, cy, r, **line), circle(cx, cy, r * 0.72, fill="none", stroke=ink)]
    # A beetle's legs are dark whatever its colour, so that they show on light squares.
    legs = [
        el("line", x1=cx + side * r * 0.5, y1=cy + dy * r, x2=cx + side * r,
           y2=cy + dy * r * 1.5, stroke="#000000", stroke_width=2.5)
        for side in (-1, 1)
        for dy in (-0.45, 0.0, 0.45)
    ]  # fmt: skip
    return [*legs, el("ellipse", cx=cx, cy=cy, rx=r * 0.62, ry=r * 0.9, **line)]


def _piece(
    state: GimmelState, piece: Piece, cx: float, cy: float, r: float, cls: str = "piece"
) -> str:
    colour = state.colour(piece.owner)
    fill, ink = FILL[colour], INK[colour]
    parts = _shape(piece.kind, cx, cy, r, fill, ink)
    low = r * 0.2 if piece.kind is Kind.CAT else 0.0  # a triangle's middle sits low
    letter = LETTER[piece.kind]
    parts.append(text(cx, cy + low, letter, r * 0.85, fill=ink, font_weight="bold",
                      dominant_baseline="central"))  # fmt: skip
    return el("g", parts, class_=cls, data_owner=piece.owner, data_kind=piece.kind.value)


def _seat_panel(
    state: GimmelState, seat: int, x: float, y: float, w: float, say: Say, lang: str
) -> str:
    colour = state.colour(seat)
    heading = f"{_seat_name(state, seat, say)} · {say('points', n=state.scores[seat])}"
    if colour is None:
        heading = f"{say('seat', seat=seat)} · {say('lot')}"
    me = GIMMEL.to_act(state) == seat
    parts = [
        card(x, y, w, PANEL - 10, me),
        text(x + 12, y + 24, ("▶ " if me else "") + heading, 16, text_anchor="start",
             font_weight="bold"),
        text(x + 12, y + 48, say("reserve"), 13, text_anchor="start"),
    ]  # fmt: skip
    box = (w - 24) / 3
    for k, kind in enumerate(KINDS):
        bx = x + 12 + k * box
        count = state.reserve[seat][k]
        inner = [
            rect(bx, y + 54, box - 8, 44, rx=6, fill="#ffffff", stroke="#666666", class_="cell"),
            _piece(state, Piece(seat, kind), bx + 24, y + 76, 15, "reserve-piece"),
            text(bx + 48, y + 82, f"× {count}", 18, text_anchor="start", font_weight="bold"),
        ]
        name = KIND_NAMES[kind][lang]
        label = say("in_reserve", seat=_seat_name(state, seat, say), n=count, kind=name)
        body = el("g", inner, data_count=count)
        parts.append(place(f"reserve:{seat}:{kind.value}", [body], label))
    # What this seat has taken: the opponent's pieces that are gone, its points.
    taken = state.captured[1 - seat]
    line = ", ".join(
        f"{n} × {KIND_NAMES[kind][lang]}" for kind, n in zip(KINDS, taken, strict=True) if n
    )
    words_ = f"{say('captured')}: {line or '–'}"
    parts.append(text(x + 12, y + 122, words_, 13, text_anchor="start", class_="captured"))
    return el("g", parts, class_="seat", data_seat=seat)
