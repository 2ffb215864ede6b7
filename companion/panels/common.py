"""What the three game panels share: a tiny SVG writer, labels in two languages, the
tap error, and checks on taps.

The panels write SVG as text rather than through a library: the pictures are small,
the rules layer needs nothing beyond the standard library, and text written here can
be escaped in one place (``attr`` and ``text``), which is where user data (kit names,
colours) meets the page.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from html import escape
from typing import Any

from rules.catalogue import UnknownRule
from rules.catalogue import explain as rule_entry
from rules.core import CHANCE

SVG_NS = "http://www.w3.org/2000/svg"
LANGS = ("en", "de")

#: Words every panel uses; each game module adds its own in the same shape.
WORDS: dict[str, dict[str, str]] = {
    "seat": {"en": "Seat {seat}", "de": "Platz {seat}"},
    "to_move": {"en": "{who} to move", "de": "{who} ist am Zug"},
    "over": {"en": "Game over", "de": "Spiel vorbei"},
    "won": {"en": "Game over: {who} wins", "de": "Spiel vorbei: {who} gewinnt"},
    "drawn": {"en": "Game over: a draw", "de": "Spiel vorbei: unentschieden"},
    "points": {"en": "{n} points", "de": "{n} Punkte"},
}

# A hint must show without the page's stylesheet, and must not leak onto the page when
# the picture is inlined: every rule is scoped to the panel's root class.
STYLE = (
    ".panel .place{cursor:pointer}"
    ".panel .place.hint .cell{stroke:#e07000;stroke-width:4}"
    ".panel .place.tapped .cell{stroke:#0060d0;stroke-width:5}"
    ".panel text{font-family:system-ui,sans-serif}"
)

#: A game's words in one language: ``say(key, **values)``.
Say = Callable[..., str]

_COLOUR = re.compile(r"[a-zA-Z]{1,30}|#[0-9a-fA-F]{3,8}")


class TapError(ValueError):
    """Taps that form no move; the message quotes the taps and says why."""

    def __init__(self, taps: Iterable[object], why: str) -> None:
        self.taps = tuple(taps)
        self.why = why
        shown = ", ".join(repr(tap) for tap in self.taps) or "none"
        super().__init__(f"taps {shown}: {why}")


def words(table: Mapping[str, Mapping[str, str]], lang: str) -> Say:
    """A lookup ``say(key, **values)`` in ``lang`` over the game's words and the shared ones."""
    if lang not in LANGS:
        raise ValueError(f"lang must be one of {', '.join(LANGS)}, got {lang!r}")

    def say(key: str, **values: Any) -> str:
        entry = table.get(key) or WORDS[key]
        return entry[lang].format(**values)

    return say


def check_taps(taps: object) -> tuple[str, ...]:
    """The taps as a tuple of strings, or a TapError for anything else."""
    if isinstance(taps, str) or not isinstance(taps, tuple | list):
        raise TapError((taps,), "taps are a sequence of place ids")
    for tap in taps:
        if not isinstance(tap, str):
            raise TapError(taps, f"a place id is a string, not {tap!r}")
    return tuple(taps)


def seat_to_act(game: Any, state: Any, taps: tuple[str, ...]) -> int:
    """The seat whose taps these are, or a TapError when no seat is to act."""
    actor = game.to_act(state)
    if actor is None:
        raise TapError(taps, "the game is over")
    if actor is CHANCE:
        raise TapError(taps, f"waiting for {game.chance_name(state)}, not for a player")
    return actor


def ended(game: Any, state: Any, say: Say, name: Callable[[int], str]) -> str:
    """The last word of a finished game: who won (``name(seat)`` in words), or a draw."""
    outcome = game.outcome(state)
    if outcome is None:
        return say("over")
    if outcome.is_draw:
        return say("drawn")
    return say("won", who=" & ".join(name(seat) for seat in outcome.winners))


def rule_words(rule: str, lang: str) -> str:
    """A rule in words from the catalogue (German with ``lang`` "de"); the id itself
    when the catalogue does not know it."""
    try:
        entry = rule_entry(rule)
    except UnknownRule:
        return rule
    return entry.german if lang == "de" else entry.rule


def whole(text: str, low: int, high: int) -> int | None:
    """``text`` as a whole number in ``low..high`` written canonically, or None."""
    if not re.fullmatch(r"0|-?[1-9][0-9]{0,3}", text):
        return None
    value = int(text)
    return value if low <= value <= high else None


def colour(name: str, fallback: str = "#999999") -> str:
    """A kit's colour name as a paint, when it looks like one; a neutral grey otherwise
    (the seat's number or letter still tells the pieces apart)."""
    return name if _COLOUR.fullmatch(name) else fallback


def wrap(words_: str, width: int, lines: int) -> list[str]:
    """``words_`` in at most ``lines`` lines of about ``width`` characters, the last one
    cut with an ellipsis when the words go on (a panel shows the whole as a title)."""
    found: list[str] = []
    line = ""
    for word in words_.split():
        if line and len(line) + 1 + len(word) > width:
            found.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    found.append(line)
    if len(found) > lines:
        found = found[:lines]
        found[-1] = found[-1][: width - 1].rstrip() + "…"
    return found


# -- writing SVG -----------------------------------------------------------------------


def num(value: float) -> str:
    return f"{round(value, 2):g}"


def attr(attrs: Mapping[str, Any]) -> str:
    """Attributes as text; names ending in ``_`` lose it (``class_``), underscores
    inside become hyphens (``font_size``), ``None`` values are left out."""
    parts = []
    for name, value in attrs.items():
        if value is None:
            continue
        name = name.rstrip("_").replace("_", "-")
        shown = num(value) if isinstance(value, float) else str(value)
        parts.append(f' {name}="{escape(shown, quote=True)}"')
    return "".join(parts)


def el(tag: str, children: Iterable[str] = (), **attrs: Any) -> str:
    body = "".join(children)
    if not body:
        return f"<{tag}{attr(attrs)}/>"
    return f"<{tag}{attr(attrs)}>{body}</{tag}>"


def rect(x: float, y: float, w: float, h: float, **attrs: Any) -> str:
    return el("rect", x=float(x), y=float(y), width=float(w), height=float(h), **attrs)


def circle(cx: float, cy: float, r: float, **attrs: Any) -> str:
    return el("circle", cx=float(cx), cy=float(cy), r=float(r), **attrs)


def polygon(points: Iterable[tuple[float, float]], **attrs: Any) -> str:
    return el("polygon", points=" ".join(f"{num(x)},{num(y)}" for x, y in points), **attrs)


def text(x: float, y: float, words_: str, size: float = 14, **attrs: Any) -> str:
    attrs.setdefault("text_anchor", "middle")
    return (
        f"<text{attr({'x': float(x), 'y': float(y), 'font_size': float(size), **attrs})}>"
        f"{escape(words_, quote=False)}</text>"
    )


def title(words_: str) -> str:
    return f"<title>{escape(words_, quote=False)}</title>"


def place(place_id: str, children: Iterable[str], label: str) -> str:
    """A tappable group: the page finds it by ``data-place`` and marks hints on it."""
    return el("g", [title(label), *children], class_="place", data_place=place_id)


def outlined(x: float, y: float, words_: str, size: float, **attrs: Any) -> str:
    """Text legible on any fill: white letters with a dark rim."""
    return text(
        x,
        y,
        words_,
        size,
        fill="#ffffff",
        stroke="#000000",
        stroke_width=float(size / 6),
        paint_order="stroke",
        font_weight="bold",
        dominant_baseline="central",
        **attrs,
    )


def token(cx: float, cy: float, r: float, paint: str, label: str, dashed: bool = False) -> str:
    """A disc in a seat's colour with its number or letter, so colour is never alone."""
    dashes = "3 2" if dashed else None
    edge = circle(cx, cy, r, fill=paint, stroke="#000000", stroke_width=2, stroke_dasharray=dashes)
    return el("g", [edge, outlined(cx, cy, label, r * 1.1)])


def card(x: float, y: float, w: float, h: float, to_act: bool) -> str:
    """A seat's panel; the seat to act gets a heavy outline."""
    frame = {"stroke": "#000000", "stroke_width": 4} if to_act else {"stroke": "#999999"}
    return rect(x, y, w, h, rx=8, fill="#f4f4f4", class_="card", **frame)


def document(game: str, width: float, height: float, heading: str, body: Iterable[str]) -> str:
    """The standalone ``<svg>``: no width or height, so CSS scales it to the screen."""
    return (
        f'<svg xmlns="{SVG_NS}" viewBox="0 0 {num(width)} {num(height)}" role="img" '
        f'class="panel panel-{game}">'
        f"{title(heading)}<style>{STYLE}</style>{''.join(body)}</svg>"
    )


#: Pip positions on a die face, in a 3 x 3 grid (0, 1, 2 on each axis).
PIPS = {
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (2, 0), (0, 1), (2, 1), (0, 2), (2, 2)),
}


def die(x: float, y: float, size: float, face: int | None, label: str) -> str:
    """A die face with ``face`` pips at (x, y), or a blank face with a dash."""
    parts = [
        title(label),
        rect(x, y, size, size, rx=size / 6, fill="#ffffff", stroke="#000000", stroke_width=2),
    ]
    if face in PIPS:
        step = size / 4
        for col, row in PIPS[face]:
            parts.append(circle(x + step * (col + 1), y + step * (row + 1), size / 11))
    else:
        parts.append(text(x + size / 2, y + size / 2, "–", size / 2, dominant_baseline="central"))
    return el("g", parts, class_="die", data_face=face)
