"""Uräus's moves in words, English and German side by side (``describe``, ``chance_name``).

The German uses the rulebook's words (``rulebooks/uraeus.de.txt``): Spielstein, Kopffeld,
Rückenfeld, Schwanzfeld, Randfeld, Doppelstein, schlagen, besetzen, vertreiben, Drehen,
Verbleiben, Wiederbesetzen. Each German sentence says what its English one says, with
the same numbers.
"""

from __future__ import annotations

from rules.uraeus.model import (
    FACING_NAMES,
    TAIL,
    Advance,
    Pass,
    Return,
    Roll,
    UraeusMove,
    UraeusState,
)

LANGS = ("en", "de")

#: The kit's colour names as German players' names; other names are shown as written.
COLOURS_DE = {"red": "Rot", "blue": "Blau", "green": "Grün", "yellow": "Gelb"}

#: What a move's rule situations add to its sentence, by language.
EVENTS = {
    "en": {
        "capture": "captures",
        "capture-chain": "the returned piece captures in turn",
        "double": "makes a double",
        "stay": "keeps its double by staying",
        "reoccupy": "keeps its double by re-occupying",
        "drive": "driven back",
        "drive-past-head": "driven back to the head field",
        "home": "reaches the tail field",
    },
    "de": {
        "capture": "schlägt",
        "capture-chain": "der zurückgesetzte Spielstein schlägt seinerseits",
        "double": "bildet einen Doppelstein",
        "stay": "erhält seinen Doppelstein durch Verbleiben",
        "reoccupy": "erhält seinen Doppelstein durch Wiederbesetzen",
        "drive": "vertrieben",
        "drive-past-head": "bis auf das Kopffeld vertrieben",
        "home": "erreicht das Schwanzfeld",
    },
}


def german(lang: str) -> bool:
    """Whether ``lang`` is German; ``ValueError`` naming it unless it is "en" or "de"."""
    if lang not in LANGS:
        raise ValueError(f"unknown lang {lang!r}: the rules speak 'en' and 'de'")
    return lang == "de"


def chance_name(state: UraeusState, lang: str = "en") -> str:
    de = german(lang)
    if state.contenders:
        seat = state.contenders[len(state.rolloff)]
        if de:
            return f"der Würfel von Platz {seat} beim Auswürfeln"
        return f"the roll-off die of seat {seat}"
    return f"der Würfel von Platz {state.turn}" if de else f"the die of seat {state.turn}"


def describe(
    state: UraeusState,
    move: UraeusMove,
    after: UraeusState | None,
    events: tuple[str, ...],
    lang: str = "en",
) -> str:
    """The sentence for ``move``; an advance passes the state ``after`` it and the rule
    situations it creates (``events``)."""
    de = german(lang)
    if isinstance(move, Roll):
        if de:
            die = chance_name(state, lang)
            return f"{die[0].upper()}{die[1:]} zeigt eine {move.face}."
        return f"{chance_name(state).capitalize()} shows {move.face}."
    colour = state.colour(move.player)
    if de:
        who = f"{COLOURS_DE.get(colour, colour.capitalize())} (Platz {move.player})"
    else:
        who = f"{colour.capitalize()} (seat {move.player})"
    if isinstance(move, Pass):
        if de:
            return f"{who} kann mit der {state.roll} nicht ziehen und setzt aus."
        return f"{who} cannot move with the {state.roll} and passes."
    if isinstance(move, Return):
        field = state.pending.field
        if de:
            what = (
                "greift den Spielstein dort an"
                if move.engage
                else "lässt den Spielstein dort in Ruhe"
            )
            return f"Der geschlagene Spielstein von {who} kommt auf Feld {field} zurück und {what}."
        if move.engage:
            return f"{who}'s captured piece, set back on {field}, takes on the piece there."
        return f"{who}'s captured piece, set back on {field}, leaves the piece there alone."
    if not isinstance(move, Advance) or after is None:
        raise TypeError(f"not an Uräus move: {move!r}")
    where = _where_to(state, after, move, de)
    said = "".join(f"; {EVENTS[lang][e]}" for e in events if e in EVENTS[lang])
    if de:
        src = (
            "einen neuen Spielstein" if move.src is None else f"den Spielstein von Feld {move.src}"
        )
        turn = "" if move.turn is None else f", mit Drehung beim {move.turn}. Schritt"
        return f"{who} zieht mit der {state.roll} {src}{turn}: {where}{said}."
    src = "a new piece" if move.src is None else f"the piece on {move.src}"
    turn = "" if move.turn is None else f", turning at step {move.turn}"
    return f"{who} moves {src} by {state.roll}{turn}: {where}{said}."


def _where_to(before: UraeusState, after: UraeusState, move: Advance, de: bool) -> str:
    if after.home[move.player] > before.home[move.player]:
        tail = before.kit.tail
        return f"ins Ziel auf das Schwanzfeld {tail}" if de else f"home on the tail field {tail}"
    if move.src is not None and after.border[move.player] > before.border[move.player]:
        if de:
            return "von der Schlange herunter, zurück auf das Randfeld"
        return "off the track, back to the border"
    # The moved piece is the one of this player's that is new or changed.
    for field, stones in enumerate(after.track):
        if stones != before.track[field] and any(s.owner == move.player for s in stones):
            top = [s for s in stones if s.owner == move.player][-1]
            if de:
                toward = "Schwanzfeld" if top.facing == TAIL else "Kopffeld"
                return f"auf Feld {field}, in Richtung {toward}"
            return f"to field {field}, facing the {FACING_NAMES[top.facing]}"
    return "auf das Kopffeld 0" if de else "to the head field 0"
