"""Nil's moves in words (English and German), its situations for simulations, and a
plain-text diagram of the board."""

from __future__ import annotations

from rules.grid import LETTERS, Square
from rules.nil.geometry import PORT_NAMES, point, turn_line
from rules.nil.model import UNKNOWN, Draw, EndTurn, Lay, NilMove, NilState, NoPlay
from rules.nil.placement import candidates, finishes, lead_only, step_problem
from rules.nil.turns import RACK, lot_drawer, turn_parts

#: Port names in German: Ost for East.
PORTS_DE = ("N", "NO", "O", "SO", "S", "SW", "W", "NW")


def _german(lang: str) -> bool:
    if lang not in ("en", "de"):
        raise ValueError(f"unknown lang {lang!r}: the rules speak 'en' and 'de'")
    return lang == "de"


def lay_text(move: Lay) -> str:
    """A lay in short words, for messages: ``straight on k2 turned 1``."""
    stand_in = f" for a {move.declared}" if move.declared else ""
    return f"{move.kind}{stand_in} on {move.to} turned {move.rotation}"


def chance_name(state: NilState, drawer: int | None, lang: str = "en") -> str:
    de = _german(lang)
    if drawer is not None:
        if de:
            return f"die Auslosung des Startspielers: Platz {drawer} zieht"
        return f"the first-player lot: seat {drawer} draws"
    seat = state.pending[0] if state.pending else state.seat
    if de:
        return f"ein Stein aus dem Beutel für Platz {seat}"
    return f"a tile from the bag for seat {seat}"


def _kind(state: NilState, name: str, de: bool) -> str:
    kind = state.kit.kind[name]
    return f"Stein „{kind.german}“" if de else kind.name


def _port(port: int, de: bool) -> str:
    return PORTS_DE[port] if de else PORT_NAMES[port]


def describe(state: NilState, move: NilMove, lang: str = "en") -> str:

    de = _german(lang)
    if isinstance(move, Draw):
        drawer = lot_drawer(state)
        if drawer is not None:
            value = state.kit.kind[move.kind].value
            if de:
                return (f"Platz {drawer} zieht für die Auslosung des Startspielers einen "
                        f"{_kind(state, move.kind, de)} ({value}).")  # fmt: skip
            return f"Seat {drawer} draws a {move.kind} ({value}) for the first-player lot."
        seat = state.pending[0]
        if move.kind is None:
            if de:
                return f"Platz {seat} zieht einen verdeckten Stein aus dem Beutel."
            return f"Seat {seat} draws an unseen tile out of the bag."
        if de:
            return f"Platz {seat} zieht einen {_kind(state, move.kind, de)} aus dem Beutel."
        return f"Seat {seat} draws a {move.kind} from the bag."
    who = f"Platz {move.player}" if de else f"Seat {move.player}"
    if isinstance(move, Lay):
        kit = state.kit
        entry = next(e for c, e in candidates(state) if c == move.to)
        crossing = move.to in state.board
        if crossing:
            exit = (entry + 4) % 8
        else:
            line = turn_line(kit.kind[move.declared or move.kind].lines[0], move.rotation)
            exit = line[1] if line[0] == entry else line[0]
        value = kit.kind[move.kind].value
        way = f"{_port(entry, de)} {'nach' if de else 'to'} {_port(exit, de)}"
        if crossing:
            replaced = _kind(state, state.board[move.to].kind, de)
            if de:
                text = (f"{who} kreuzt die Linie auf {move.to} mit einem "
                        f"{_kind(state, move.kind, de)}, von {way} (+{value}); der "
                        f"{replaced} dort kommt zurück in den Beutel")  # fmt: skip
            else:
                text = (f"{who} crosses the line on {move.to} with a {move.kind}, from {way} "
                        f"(+{value}); the {replaced} there goes back to the bag")  # fmt: skip
        else:
            stand_in = ""
            if move.declared:
                if de:  # genitive: "anstelle eines Steins „Bogen“"
                    stand_in = f" anstelle eines Steins „{kit.kind[move.declared].german}“"
                else:
                    stand_in = f" for a {move.declared}"
            if de:
                text = (
                    f"{who} setzt einen {_kind(state, move.kind, de)}{stand_in} auf {move.to}, "
                    f"{move.rotation} Vierteldrehungen, von {way} (+{value})"
                )
            else:
                text = (f"{who} lays a {move.kind}{stand_in} on {move.to}, turned "
                        f"{move.rotation}, from {way} (+{value})")  # fmt: skip
        index = kit.field_at.get(move.to)
        if index is not None:
            field = kit.fields[index]
            if field.colour == "green" and index not in state.greens:
                text += f"; grünes Feld +{field.value}" if de else f"; green field +{field.value}"
            elif field.colour == "red" and index not in state.reds:
                text += f"; rotes Feld -{field.value}" if de else f"; red field -{field.value}"
            elif field.colour == "red":
                text += (" (rotes Feld schon in diesem Zug bezahlt)" if de
                         else " (red field already paid this turn)")  # fmt: skip
        if finishes(state, move.to, exit):
            blue = kit.fields[index].value
            text += (f"; der Nil mündet auf Blau {blue}" if de
                     else f"; the river ends on blue {blue}")  # fmt: skip
        return text + "."
    if isinstance(move, EndTurn):
        parts = turn_parts(state)
        listed = [
            (label_de if de else label, parts[key])
            for key, label, label_de in (
                ("tiles", "tiles", "Steine"),
                ("green", "green", "Grün"),
                ("bonus", "bonus", "Sonderpunkte"),
                ("red", "red", "Rot"),
            )
            if parts[key] or key == "tiles"
        ]
        shown = ", ".join(f"{label} {value}" for label, value in listed)
        count = len(state.laid)
        if de:
            return (f"{who} beendet den Zug mit {count} Steinen: {parts['total']} Punkte "
                    f"({shown}).")  # fmt: skip
        return f"{who} ends the turn with {count} tiles: {parts['total']} points ({shown})."
    if isinstance(move, NoPlay):
        if not state.path:
            if de:
                return f"{who} kann nicht eröffnen; der Spieler zur Linken eröffnet."
            return f"{who} cannot open; the next seat opens."
        rack = state.racks[move.player] if move.shown is None else move.shown
        if UNKNOWN in rack:
            if de:
                return (f"{who} kann keinen Stein setzen und legt die Steine offen auf "
                        f"({len(rack)} Steine, ihr Wert ist hier unbekannt).")  # fmt: skip
            return (f"{who} cannot lay a tile and shows the rack ({len(rack)} tiles, whose "
                    "values are unknown here).")  # fmt: skip
        lost = sum(state.kit.kind[name].value for name in rack)
        if de:
            return (f"{who} kann keinen Stein setzen, legt die Steine offen auf und verliert "
                    f"{lost} Punkte.")  # fmt: skip
        return f"{who} cannot lay a tile, shows the rack and loses {lost} points."
    raise TypeError(f"not a Nil move: {move!r}")


def situations(state: NilState, move: NilMove) -> tuple[str, ...]:
    """Labels for a legal move: ``lot``, ``draw``, ``lay``, ``universal``, ``lead``,
    ``crossing``, ``green``, ``red-penalty``, ``blue-finish``, ``sharp-angle-refused``
    (a tile here was refused for a sharp angle), ``end-turn``, ``five-tile-bonus``,
    ``no-play``."""

    if isinstance(move, Draw):
        return ("lot",) if lot_drawer(state) is not None else ("draw",)
    if isinstance(move, EndTurn):
        return ("end-turn", "five-tile-bonus") if len(state.laid) >= RACK else ("end-turn",)
    if isinstance(move, NoPlay):
        return ("no-play",)
    kit = state.kit
    labels = ["lay"]
    crossing = move.to in state.board
    entry = next(e for c, e in candidates(state) if c == move.to)
    if crossing:
        labels.append("crossing")
        exit = (entry + 4) % 8
    else:
        if move.declared:
            labels.append("universal")
        line = turn_line(kit.kind[move.declared or move.kind].lines[0], move.rotation)
        exit = line[1] if line[0] == entry else line[0]
    index = kit.field_at.get(move.to)
    if index is not None:
        colour = kit.fields[index].colour
        if colour == "green" and index not in state.greens:
            labels.append("green")
        if colour == "red" and index not in state.reds:
            labels.append("red-penalty")
    done = finishes(state, move.to, exit)
    if done:
        labels.append("blue-finish")
        if len(state.laid) + 1 >= RACK:
            labels.append("five-tile-bonus")
    elif not crossing and lead_only(state, move.to, entry, exit):
        labels.append("lead")
    end = state.end
    if end is not None:
        before = point(end.cell, end.entry)
        for cell, port in candidates(state):
            if cell in state.board:
                continue
            for other in kit.shapes[port]:
                problem = step_problem(
                    state, cell, port, other, before=before, in_blue=state.in_blue
                )
                if problem is not None and problem.rule == "nil.sharp-angle":
                    labels.append("sharp-angle-refused")
                    return tuple(labels)
    return tuple(labels)


def diagram(state: NilState) -> str:
    """The board from the start's side, north up: fields as ``g`` ``r`` ``b`` (lower
    case when empty), tiles as ``#``, a crossing as ``+``, the start field ``s``."""
    kit = state.kit
    crossings = {
        step.cell for step in state.path if sum(1 for s in state.path if s.cell == step.cell) > 1
    }
    lines = []
    for row in range(kit.rows - 1, -1, -1):
        cells = []
        for col in range(kit.columns):
            cell = Square(col, row)
            if cell in crossings:
                cells.append("+")
            elif cell in state.board:
                cells.append("#")
            elif cell == kit.start:
                cells.append("s")
            else:
                colour = kit.colour_of(cell)
                cells.append("." if colour is None else colour[0])
        lines.append(f"{row + 1:>2} " + " ".join(cells))
    lines.append("   " + " ".join(LETTERS[: kit.columns]))
    for seat in range(state.players):
        rack = ", ".join(state.racks[seat]) or "empty"
        lines.append(f"seat {seat}: {state.scores[seat]} points; rack {rack}")
    return "\n".join(lines)


__all__ = ["chance_name", "describe", "diagram", "lay_text", "situations"]
