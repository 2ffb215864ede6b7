"""Regie states and moves in the JSON notation (``docs/notation.md``)."""

from __future__ import annotations

import re
from typing import Any

from rules import notation as n
from rules.errors import NotationError
from rules.regie.kit import BOX_POSITIONS, LEVELS, kit_from_json
from rules.regie.model import (
    DIRECTIONS,
    Doubt,
    Insert,
    Landed,
    LastMove,
    MoveBox,
    RegieMove,
    RegieState,
    Seen,
    SeenExit,
    Slide,
    Start,
)
from rules.regie.options import OPTION_SPECS

FIELDS = ("notation", "game", "view", "players", "options", "kit", "first", "turn", "levels",
          "windows", "box", "reserve", "landed", "skips", "last", "ply", "doubts")  # fmt: skip
MOVE_TYPES = ("start", "insert", "slide", "box")
SIDES = ("left", "right")
DIRECTION_NAMES = {value: name for name, value in DIRECTIONS.items()}
_FIELD = re.compile(r"levels\[(\d+)\]\.cells\[(\d+)\]")


# -- moves ---------------------------------------------------------------------------


def move_to_json(move: RegieMove) -> dict[str, Any]:
    if isinstance(move, Start):
        return {"type": "start", "first": move.first}
    if isinstance(move, Insert):
        data: dict[str, Any] = {"type": "insert", "player": move.player, "column": move.column}
    elif isinstance(move, Slide):
        data = {
            "type": "slide",
            "player": move.player,
            "level": move.level,
            "direction": DIRECTION_NAMES.get(move.direction, move.direction),
        }
    elif isinstance(move, MoveBox):
        return {"type": "box", "player": move.player, "to": move.to}
    else:
        raise TypeError(f"not a Regie move: {move!r}")
    if move.seen is not None:
        data["seen"] = seen_to_json(move.seen)  # {} when nothing was seen: kept as given
    return data


def seen_to_json(seen: Seen) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if seen.through is not None:
        data["through"] = seen.through
    if seen.exits is not None:
        data["exits"] = [
            {"kind": "box", "column": e.column}
            if e.kind == "box"
            else {"kind": "table", "side": e.side}
            for e in seen.exits
        ]
    return data


def move_from_json(data: Any, where: str = "move") -> RegieMove:
    """Read a move. Columns, levels and box positions are read as any whole number: whether
    one is possible here is the rules' question."""
    data = n.obj(data, where)
    kind = n.text(data.get("type"), n.join(where, "type"), MOVE_TYPES)
    if kind == "start":
        n.keys(data, where, ("type", "first"))
        return Start(first=n.integer(data["first"], n.join(where, "first"), 0))
    if kind == "box":
        n.keys(data, where, ("type", "player", "to"))
        player = n.integer(data["player"], n.join(where, "player"), 0)
        return MoveBox(player, n.integer(data["to"], n.join(where, "to")))
    if kind == "insert":
        n.keys(data, where, ("type", "player", "column"), ("seen",))
        player = n.integer(data["player"], n.join(where, "player"), 0)
        column = n.integer(data["column"], n.join(where, "column"))
        return Insert(player, column, _seen(data.get("seen"), n.join(where, "seen")))
    n.keys(data, where, ("type", "player", "level", "direction"), ("seen",))
    player = n.integer(data["player"], n.join(where, "player"), 0)
    level = n.integer(data["level"], n.join(where, "level"))
    direction = DIRECTIONS[n.text(data["direction"], n.join(where, "direction"), tuple(DIRECTIONS))]
    return Slide(player, level, direction, _seen(data.get("seen"), n.join(where, "seen")))


def _seen(data: Any, where: str) -> Seen | None:
    if data is None:
        return None
    data = n.obj(data, where)
    n.keys(data, where, (), ("through", "exits"))
    through = data.get("through")
    if through is not None:
        through = n.boolean(through, n.join(where, "through"))
    exits = None
    if data.get("exits") is not None:
        exits = []
        for i, raw in enumerate(n.array(data["exits"], n.join(where, "exits"))):
            at = f"{where}.exits[{i}]"
            raw = n.obj(raw, at)
            kind = n.text(raw.get("kind"), f"{at}.kind", ("box", "table"))
            if kind == "box":
                n.keys(raw, at, ("kind", "column"))
                exits.append(SeenExit("box", column=n.integer(raw["column"], f"{at}.column", 0)))
            else:
                n.keys(raw, at, ("kind", "side"))
                exits.append(SeenExit("table", side=n.text(raw["side"], f"{at}.side", SIDES)))
        exits = tuple(exits)
    return Seen(through, exits)


# -- states --------------------------------------------------------------------------


def state_to_json(state: RegieState) -> dict[str, Any]:
    return {
        "notation": n.VERSION,
        "game": "regie",
        "view": state.view.value,
        "players": 2,
        "options": state.options.to_json(),
        "kit": state.kit.to_json(),
        "first": state.first,
        "turn": state.turn,
        "levels": list(state.levels),
        "windows": [
            {str(cell): owner for cell, owner in enumerate(bar) if owner is not None}
            for bar in state.windows
        ],
        "box": state.box,
        "reserve": list(state.reserve),
        "landed": [_landed_to_json(chip) for chip in state.landed],
        "skips": list(state.skips),
        "last": [None if last is None else _last_to_json(last) for last in state.last],
        "ply": state.ply,
        "doubts": [{"ply": d.ply, "field": d.field, "seen": d.seen} for d in state.doubts],
    }


def _landed_to_json(chip: Landed) -> dict[str, Any]:
    if chip.kind == "box":
        return {"player": chip.owner, "kind": "box", "column": chip.column, "row": chip.row,
                "value": chip.value}  # fmt: skip
    return {"player": chip.owner, "kind": "table", "side": chip.side}


def _last_to_json(last: LastMove) -> dict[str, Any]:
    if last.kind == "slide":
        return {"type": "slide", "level": last.level}
    if last.kind == "box":
        return {"type": "box", "from": last.came_from}
    return {"type": "insert"}


def state_from_json(data: Any) -> RegieState:
    from rules.regie.physics import settle

    data, view, _, options, kit = n.common(
        data, "regie", FIELDS, OPTION_SPECS, kit_from_json, players=(2, 2)
    )

    first = None if data["first"] is None else n.integer(data["first"], "first", 0, 1)
    turn = n.integer(data["turn"], "turn", 0, 1)
    raw_levels = n.array(data["levels"], "levels", LEVELS)
    levels = tuple(
        n.integer(p, f"levels[{k}]", -kit.levels[k].travel, kit.levels[k].travel)
        for k, p in enumerate(raw_levels)
    )
    box = n.integer(data["box"], "box", 1, BOX_POSITIONS)
    reserve = tuple(
        n.integer(r, f"reserve[{s}]", 0, kit.chips_per_player)
        for s, r in enumerate(n.array(data["reserve"], "reserve", 2))
    )
    landed = tuple(_landed(raw, f"landed[{i}]", kit) for i, raw in enumerate(
        n.array(data["landed"], "landed")))  # fmt: skip
    skips = tuple(
        n.integer(v, f"skips[{s}]", 0, 1) for s, v in enumerate(n.array(data["skips"], "skips", 2))
    )
    last = tuple(
        None if raw is None else _last(raw, f"last[{s}]")
        for s, raw in enumerate(n.array(data["last"], "last", 2))
    )
    ply = n.integer(data["ply"], "ply", 0)
    doubts = tuple(_doubt(raw, f"doubts[{i}]", kit) for i, raw in enumerate(
        n.array(data["doubts"], "doubts")))  # fmt: skip
    state = RegieState(
        kit=kit,
        options=options,
        view=view,
        first=first,
        turn=turn,
        levels=levels,
        windows=(),
        box=box,
        reserve=reserve,  # type: ignore[arg-type]
        landed=landed,
        skips=skips,  # type: ignore[arg-type]
        last=last,  # type: ignore[arg-type]
        ply=ply,
        doubts=doubts,
    )
    from rules.regie.engine import effective_kit

    believed = effective_kit(state)
    windows = _windows(data["windows"], believed)
    state = RegieState(**{**state.__dict__, "windows": windows})
    for seat in (0, 1):
        in_levels = sum(1 for bar in windows for owner in bar if owner == seat)
        if reserve[seat] + in_levels + state.through(seat) != kit.chips_per_player:
            raise NotationError(
                "windows",
                f"seat {seat} has {reserve[seat]} in reserve, {in_levels} in the levels and "
                f"{state.through(seat)} through, not the {kit.chips_per_player} it plays",
            )
    if first is None and (ply or landed or any(any(bar) for bar in windows) or turn):
        raise NotationError("first", "nothing moves before it is settled who begins")
    if first is not None and ply == 0 and turn != first:
        raise NotationError("turn", f"before any move it is the first seat's turn, {first}")
    for seat in (0, 1):
        if skips[seat] and (last[seat] is None or last[seat].kind != "insert"):
            raise NotationError(
                f"skips[{seat}]", "a turn is missed only after a chip fell through on insertion"
            )
    if skips[turn]:
        raise NotationError("skips", f"seat {turn} is to move, so it misses no turn now")
    for i, doubt in enumerate(doubts):
        if doubt.ply >= max(ply, 1):
            raise NotationError(f"doubts[{i}].ply", f"a doubt comes from a move before ply {ply}")
    if settle(believed, levels, windows, box).windows != windows:
        raise NotationError("windows", "a chip is in the air: some chip has nothing under it")
    return state


def _windows(data: Any, kit) -> tuple[tuple[int | None, ...], ...]:
    bars = n.array(data, "windows", LEVELS)
    result = []
    for k, raw in enumerate(bars):
        where = f"windows[{k}]"
        raw = n.obj(raw, where)
        cells = kit.levels[k].cells
        bar: list[int | None] = [None] * len(cells)
        for name, owner in raw.items():
            at = f"{where}.{name}"
            if not name.isdigit() or int(name) >= len(cells) or str(int(name)) != name:
                raise NotationError(at, f"expected a cell number from 0 to {len(cells) - 1}")
            if not cells[int(name)]:
                raise NotationError(at, "a chip sits in a window, and this cell is solid")
            bar[int(name)] = n.integer(owner, at, 0, 1)
        result.append(tuple(bar))
    return tuple(result)


def _landed(raw: Any, where: str, kit) -> Landed:
    raw = n.obj(raw, where)
    kind = n.text(raw.get("kind"), f"{where}.kind", ("box", "table"))
    if kind == "table":
        n.keys(raw, where, ("player", "kind", "side"))
        return Landed(
            n.integer(raw["player"], f"{where}.player", 0, 1),
            "table",
            None,
            None,
            n.text(raw["side"], f"{where}.side", SIDES),
            0,
        )
    n.keys(raw, where, ("player", "kind", "column", "row", "value"))
    column = n.integer(raw["column"], f"{where}.column", 0, kit.columns - 1)
    row = n.integer(raw["row"], f"{where}.row", 0, len(kit.box_rows) - 1)
    value = n.integer(raw["value"], f"{where}.value", 0)
    worth = kit.box_rows[row][column]
    if value not in (0, worth):
        problem = f"compartment {column} of row {row} is worth {worth}, or 0 after a fall-through"
        raise NotationError(f"{where}.value", problem, value)
    return Landed(
        n.integer(raw["player"], f"{where}.player", 0, 1), "box", column, row, None, value
    )


def _last(raw: Any, where: str) -> LastMove:
    raw = n.obj(raw, where)
    kind = n.text(raw.get("type"), f"{where}.type", ("insert", "slide", "box"))
    if kind == "slide":
        n.keys(raw, where, ("type", "level"))
        return LastMove("slide", level=n.integer(raw["level"], f"{where}.level", 1, LEVELS))
    if kind == "box":
        n.keys(raw, where, ("type", "from"))
        return LastMove("box", came_from=n.integer(raw["from"], f"{where}.from", 1, BOX_POSITIONS))
    n.keys(raw, where, ("type",))
    return LastMove("insert")


def _doubt(raw: Any, where: str, kit) -> Doubt:
    raw = n.obj(raw, where)
    n.keys(raw, where, ("ply", "field", "seen"))
    field = n.text(raw["field"], f"{where}.field")
    match = _FIELD.fullmatch(field)
    if (
        match is None
        or not 0 <= int(match.group(1)) < LEVELS
        or not 0 <= int(match.group(2)) < len(kit.levels[int(match.group(1))].cells)
    ):
        raise NotationError(f"{where}.field", "expected a kit cell levels[K].cells[I]", field)
    return Doubt(
        n.integer(raw["ply"], f"{where}.ply", 0),
        int(match.group(1)),
        int(match.group(2)),
        n.text(raw["seen"], f"{where}.seen", ("window", "solid")),
    )
