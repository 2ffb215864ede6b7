"""Pictures of each game's board for the tablet scoreboard, and taps on them as moves.

One module per game offers the :class:`Panel` functions: ``svg`` draws the board as the
companion understands it (a standalone ``<svg>`` that CSS scales to the screen), ``taps``
says which places a player taps to enter a move, and ``compose`` turns taps back into a
move. ``compose`` builds the move the taps describe even when it is illegal, so that the
rules engine, not the panel, judges it and names the rule it breaks; taps that describe
no move at all raise :class:`TapError`. Each module's docstring lists its place ids.

Every tappable element of a picture has ``class="place"`` and ``data-place="<id>"``; the
page marks hints by adding the class ``hint`` to the places that begin or continue the
taps of the legal moves, and the taps so far with ``tapped``. Each place holds an outline
of class ``cell`` that the picture's own small stylesheet (scoped to ``svg.panel``)
restyles for both, so that hints show without the page's stylesheet too.

``svg`` is also given the flag the table holds, if any (the table's attention: the rule
id, its words, the flagged move in the notation), so that a picture can show where the
refused move went; the page shows the flag's words in any case, and a panel may leave
the flag to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from companion.panels import gimmel, horus, nil, regie, uraeus
from companion.panels.common import TapError


class Panel(Protocol):
    """What a game's panel module provides."""

    def svg(
        self, state: Any, *, lang: str = "en", flag: Mapping[str, Any] | None = None
    ) -> str: ...

    def taps(self, state: Any, move: Any) -> tuple[str, ...]: ...

    def compose(self, state: Any, taps: tuple[str, ...]) -> Any: ...


#: The panel of every game that has one, by the game's registered name.
PANELS: dict[str, Panel] = {
    "uraeus": uraeus,
    "gimmel": gimmel,
    "regie": regie,
    "nil": nil,
    "horus": horus,
}


def panel_for(game_name: str) -> Panel:
    """The panel for ``game_name``; a ValueError naming the known games otherwise."""
    try:
        return PANELS[game_name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(PANELS))
        raise ValueError(
            f"no board panel for game {game_name!r}; panels exist for {known}"
        ) from None


__all__ = ["PANELS", "Panel", "TapError", "panel_for"]
