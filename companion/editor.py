"""The position editor: a draft position changed one tap at a time, to join a game
already in progress.

A player taps a place on the board picture (the panel's place ids) and chooses what is
there; settings say whose turn it is. Each edit works on the position in the notation
and is checked by reading it back (``parse_state``), so a draft is always a position the
rules accept, and a refused edit says why. Pieces are counted as at a real table: a
piece set on the board comes from its owner's pieces beside it, one taken off goes back
there. Nothing is recorded until the draft is set as the table's position
(``Table.new_game(position=...)``).

Gimmel and Uräus have board editors; a game without one (Regie, whose sensors report
its frame) is edited in the notation.
"""

from __future__ import annotations

import copy
from typing import Any

from rules import game_of, get_game, parse_state
from rules.errors import RulesError


class EditError(ValueError):
    """An edit that cannot be made; says why."""


def has_editor(game: str) -> bool:
    return game in EDITORS


def choices(state: Any, place: str, lang: str = "en") -> list[dict[str, str]]:
    """What may stand on ``place``: ``[{"value", "label"}]``."""
    return _editor(state).choices(state, place, lang)


def edit(state: Any, place: str, value: str) -> Any:
    """The draft with ``place`` holding ``value`` (one of ``choices``)."""
    editor = _editor(state)
    document = copy.deepcopy(game_of(state).state_to_json(state))
    editor.edit(state, document, place, value)
    return _checked(document)


def settings(state: Any, lang: str = "en") -> list[dict[str, Any]]:
    """The draft's settings (whose turn, the die): ``[{"name", "label", "value",
    "choices": [{"value", "label"}]}]``."""
    return _editor(state).settings(state, lang)


def setting(state: Any, name: str, value: str) -> Any:
    editor = _editor(state)
    document = copy.deepcopy(game_of(state).state_to_json(state))
    editor.setting(state, document, name, value)
    return _checked(document)


def _editor(state: Any):
    name = game_of(state).name
    if name not in EDITORS:
        raise EditError(f"{get_game(name).title} has no board editor: edit it in the notation")
    return EDITORS[name]


def _checked(document: dict[str, Any]) -> Any:
    try:
        return parse_state(document)
    except RulesError as error:
        raise EditError(f"that position is not possible: {error}") from None


def _say(lang: str, english: str, german: str) -> str:
    return german if lang == "de" else english


# -- Gimmel ----------------------------------------------------------------------------

KIND_WORDS = {"beetle": ("beetle", "Käfer"), "cat": ("cat goddess", "Katzengöttin"),
              "falcon": ("falcon", "Falke")}  # fmt: skip


class GimmelEditor:
    @staticmethod
    def _seat(state, seat: int, lang: str) -> str:
        colour = get_game("gimmel").seat_colour(state, seat)
        if colour is None:
            return _say(lang, f"seat {seat}", f"Platz {seat}")
        return _say(lang, colour.capitalize(), {"white": "Weiß", "black": "Schwarz"}[colour])

    def choices(self, state, place: str, lang: str) -> list[dict[str, str]]:
        if place.startswith("reserve:"):
            seat, kind = self._reserve(place)
            top = self._free(state, seat, kind) + state.reserve[seat][_kind_index(kind)]
            return [{"value": str(n), "label": _say(lang, f"{n} beside the board",
                                                      f"{n} neben dem Brett")}
                    for n in range(top + 1)]  # fmt: skip
        self._square(state, place)
        found = [{"value": "", "label": _say(lang, "empty", "leer")}]
        for seat in (0, 1):
            for kind, (english, german) in KIND_WORDS.items():
                label = f"{self._seat(state, seat, lang)}: {_say(lang, english, german)}"
                found.append({"value": f"{seat}:{kind}", "label": label})
        return found

    def edit(self, state, document: dict, place: str, value: str) -> None:
        self._edit(state, document, place, value)
        # Every piece off the reserve was placed in a turn of its own: the turns played
        # are at least those, and keep whose turn it is.
        per_kind = state.terms.per_kind
        placed = sum(per_kind * 3 - sum(r.values()) for r in document["reserve"])
        least = placed + document["passes"]
        if document["ply"] < least:
            document["ply"] = least + (least - document["ply"]) % 2

    def _edit(self, state, document: dict, place: str, value: str) -> None:
        if place.startswith("reserve:"):
            seat, kind = self._reserve(place)
            count = _whole(value, "a count")
            if count > self._free(state, seat, kind) + state.reserve[seat][_kind_index(kind)]:
                raise EditError(f"seat {seat} has not that many {kind}s off the board")
            document["reserve"][seat][kind] = count
            return
        self._square(state, place)
        board, reserve = document["board"], document["reserve"]
        old = board.pop(place, None)
        if old is not None:  # back beside the board
            reserve[old["player"]][old["piece"]] += 1
        if value:
            seat_text, _, kind = value.partition(":")
            seat = _whole(seat_text, "a seat")
            if seat not in (0, 1) or kind not in KIND_WORDS:
                raise EditError(f"{value!r} is no Gimmel piece (seat:kind, as 0:falcon)")
            if reserve[seat][kind] == 0:
                raise EditError(
                    f"seat {seat} has no {kind} left beside the board: take one off the board "
                    "first, or count it back in with the reserve"
                )
            reserve[seat][kind] -= 1
            board[place] = {"player": seat, "piece": kind}

    def settings(self, state, lang: str) -> list[dict[str, Any]]:
        white = [{"value": str(s), "label": self._seat_plain(s, lang)} for s in (0, 1)]
        found = [{"name": "white", "label": _say(lang, "White is", "Weiß spielt"),
                  "value": None if state.white is None else str(state.white),
                  "choices": white}]  # fmt: skip
        if state.white is not None:
            actor = get_game("gimmel").to_act(state)
            found.append({"name": "to_act", "label": _say(lang, "To act", "Am Zug"),
                          "value": None if not isinstance(actor, int) else str(actor),
                          "choices": [{"value": str(s), "label": self._seat(state, s, lang)}
                                      for s in (0, 1)]})  # fmt: skip
        return found

    @staticmethod
    def _seat_plain(seat: int, lang: str) -> str:
        return _say(lang, f"seat {seat}", f"Platz {seat}")

    def setting(self, state, document: dict, name: str, value: str) -> None:
        seat = _whole(value, "a seat")
        if seat not in (0, 1):
            raise EditError(f"a Gimmel seat is 0 or 1, got {value!r}")
        if name == "white":
            document["white"] = seat
        elif name == "to_act":
            if state.white is None:
                raise EditError("draw the colours first: whose turn follows from them")
            # White moves at even plies: the ply's parity says whose turn it is.
            wanted_even = seat == state.white
            if (document["ply"] % 2 == 0) != wanted_even:
                document["ply"] += 1
        else:
            raise EditError(f"Gimmel has no setting {name!r}")

    @staticmethod
    def _reserve(place: str) -> tuple[int, str]:
        parts = place.split(":")
        if len(parts) != 3 or parts[1] not in ("0", "1") or parts[2] not in KIND_WORDS:
            raise EditError(f"{place!r} is no reserve (reserve:<seat>:<kind>)")
        return int(parts[1]), parts[2]

    @staticmethod
    def _square(state, place: str) -> None:
        from rules.grid import Square

        try:
            square = Square.parse(place, "place")
        except (RulesError, ValueError):
            square = None
        if square is None or not (
            square.col < state.kit.columns and square.row < state.kit.rows and str(square) == place
        ):
            raise EditError(f"{place!r} is no square of this board")

    @staticmethod
    def _free(state, seat: int, kind: str) -> int:
        """Pieces of ``seat``'s ``kind`` neither on the board nor beside it (captured)."""
        return state.captured[seat][_kind_index(kind)]


def _kind_index(kind: str) -> int:
    return list(KIND_WORDS).index(kind)


# -- Uräus ------------------------------------------------------------------------------


class UraeusEditor:
    def choices(self, state, place: str, lang: str) -> list[dict[str, str]]:
        if place.startswith("border:"):
            seat = self._border(state, place)
            top = state.border[seat] + state.home[seat]
            return [{"value": str(n), "label": _say(lang, f"{n} home", f"{n} im Ziel")}
                    for n in range(top + 1)]  # fmt: skip
        field = self._field(state, place)
        stones = state.track[field]
        found = [{"value": "", "label": _say(lang, "empty", "leer")}]
        for seat in range(state.players):
            name = self._seat(state, seat, lang)
            for facing, english, german in (("tail", "toward the tail", "zum Schwanz"),
                                            ("head", "toward the head", "zum Kopf")):  # fmt: skip
                found.append({"value": f"{seat}:{facing}",
                              "label": f"{name}, {_say(lang, english, german)}"})  # fmt: skip
                if len(stones) == 1 or (field == 0 and stones):
                    found.append({"value": f"+{seat}:{facing}",
                                  "label": f"{_say(lang, 'on top', 'obenauf')}: {name}, "
                                           f"{_say(lang, english, german)}"})  # fmt: skip
        return found

    def edit(self, state, document: dict, place: str, value: str) -> None:
        if place.startswith("border:"):
            seat = self._border(state, place)
            home = _whole(value, "a count")
            total = state.border[seat] + state.home[seat]
            if home > total:
                raise EditError(f"seat {seat} has {total} pieces off the track, not {home}")
            document["home"][seat], document["border"][seat] = home, total - home
            per_player = state.kit.per_player
            finished = [s for s in document["finished"] if document["home"][s] == per_player]
            if home == per_player and seat not in finished:
                finished.append(seat)  # all home: finished, after those before
            document["finished"] = finished
            return
        field = self._field(state, place)
        track = document["track"]
        stones = track.pop(str(field), [])
        on_top = value.startswith("+")
        if on_top:
            track[str(field)] = stones
            value = value[1:]
        else:
            for stone in stones:  # back to the border
                document["border"][stone["player"]] += 1
        if value:
            seat_text, _, facing = value.partition(":")
            seat = _whole(seat_text, "a seat")
            if not 0 <= seat < state.players or facing not in ("tail", "head"):
                raise EditError(f"{value!r} is no Uräus piece (seat:tail or seat:head)")
            if document["border"][seat] == 0:
                raise EditError(
                    f"seat {seat} has no piece left at the border: take one off the track, "
                    "or bring one back from home"
                )
            document["border"][seat] -= 1
            track.setdefault(str(field), []).append({"player": seat, "facing": facing})
        if not track.get(str(field)):
            track.pop(str(field), None)

    def settings(self, state, lang: str) -> list[dict[str, Any]]:
        seats = [{"value": str(s), "label": self._seat(state, s, lang)}
                 for s in range(state.players)]  # fmt: skip
        faces = [{"value": "", "label": _say(lang, "not rolled yet", "noch nicht gewürfelt")}]
        faces += [{"value": str(f), "label": str(f)} for f in range(1, 7)]
        return [
            {"name": "turn", "label": _say(lang, "To act", "Am Zug"),
             "value": None if state.contenders else str(state.turn), "choices": seats},
            {"name": "roll", "label": _say(lang, "The die shows", "Der Würfel zeigt"),
             "value": "" if state.roll is None else str(state.roll), "choices": faces},
        ]  # fmt: skip

    def setting(self, state, document: dict, name: str, value: str) -> None:
        # A game joined in progress is past the roll-off and any pending decision.
        document["rolloff"], document["pending"] = None, None
        if name == "turn":
            seat = _whole(value, "a seat")
            if not 0 <= seat < state.players:
                raise EditError(f"seat {value!r} is not at this table of {state.players}")
            document["turn"] = seat
        elif name == "roll":
            document["roll"] = None if value == "" else _whole(value, "a face")
        else:
            raise EditError(f"Uräus has no setting {name!r}")

    @staticmethod
    def _seat(state, seat: int, lang: str) -> str:
        colour = state.colour(seat)
        german = {"red": "Rot", "blue": "Blau", "green": "Grün", "yellow": "Gelb"}
        return _say(lang, colour.capitalize(), german.get(colour, colour))

    @staticmethod
    def _field(state, place: str) -> int:
        head, _, number = place.partition(":")
        if head != "field" or not number.isdigit() or not 0 <= int(number) < state.kit.tail:
            last = state.kit.tail - 1
            raise EditError(f"{place!r} is no field a piece can stand on (field:0 to field:{last})")
        return int(number)

    @staticmethod
    def _border(state, place: str) -> int:
        head, _, number = place.partition(":")
        if head != "border" or not number.isdigit() or int(number) >= state.players:
            raise EditError(f"{place!r} is no border of a seat at this table")
        return int(number)


def _whole(text: str, what: str) -> int:
    if not isinstance(text, str) or not text.isdigit():
        raise EditError(f"expected {what}, got {text!r}")
    return int(text)


EDITORS: dict[str, Any] = {"gimmel": GimmelEditor(), "uraeus": UraeusEditor()}
