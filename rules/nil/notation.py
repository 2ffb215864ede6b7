"""Nil states and moves in the JSON notation (``docs/notation.md``)."""

from __future__ import annotations

from collections import Counter
from typing import Any

from rules import notation as n
from rules.core import View
from rules.errors import NotationError
from rules.grid import Square
from rules.nil.geometry import PORT_NAMES, continuations, opposite
from rules.nil.kit import NilKit, kit_from_json
from rules.nil.model import UNKNOWN, Draw, EndTurn, Lay, NilMove, NilState, NoPlay, Step, Tile
from rules.nil.options import OPTION_SPECS

FIELDS = ("notation", "game", "view", "players", "options", "kit", "contenders", "lots",
          "starter", "pending", "racks", "bag", "bag_size", "tiles", "path", "seat", "laid",
          "greens", "reds", "scores", "turns", "no_play_run", "finished", "unchecked")  # fmt: skip
MOVE_TYPES = ("draw", "lay", "end-turn", "no-play")
FINISHED = ("blue", "all-placed", "no-play")


def move_to_json(move: NilMove) -> dict[str, Any]:
    if isinstance(move, Draw):
        return {"type": "draw", "tile": move.kind}
    if isinstance(move, Lay):
        return {
            "type": "lay",
            "player": move.player,
            "to": str(move.to),
            "tile": move.kind,
            "rotation": move.rotation,
            "as": move.declared,
        }
    if isinstance(move, EndTurn):
        return {"type": "end-turn", "player": move.player}
    if isinstance(move, NoPlay):
        shown = None if move.shown is None else list(move.shown)
        return {"type": "no-play", "player": move.player, "shown": shown}
    raise TypeError(f"not a Nil move: {move!r}")


def move_from_json(data: Any, where: str = "move") -> NilMove:
    """Read a move. Tile kinds are read as any name: whether the kit has it is the
    rules' question, as is whether the seat is at the table."""
    data = n.obj(data, where)
    kind = n.text(data.get("type"), n.join(where, "type"), MOVE_TYPES)
    if kind == "draw":
        n.keys(data, where, ("type", "tile"))
        tile = data["tile"]
        return Draw(None if tile is None else n.text(tile, n.join(where, "tile")))
    fields = {
        "lay": ("type", "player", "to", "tile", "rotation", "as"),
        "end-turn": ("type", "player"),
        "no-play": ("type", "player", "shown"),
    }[kind]
    n.keys(data, where, fields)
    player = n.integer(data["player"], n.join(where, "player"), 0)
    if kind == "lay":
        declared = data["as"]
        return Lay(
            player,
            Square.parse(data["to"], n.join(where, "to")),
            n.text(data["tile"], n.join(where, "tile")),
            n.integer(data["rotation"], n.join(where, "rotation"), 0, 3),
            None if declared is None else n.text(declared, n.join(where, "as")),
        )
    if kind == "end-turn":
        return EndTurn(player)
    shown = data["shown"]
    if shown is not None:
        where_shown = n.join(where, "shown")
        shown = tuple(
            n.text(v, n.join(where_shown, i)) for i, v in enumerate(n.array(shown, where_shown))
        )
    return NoPlay(player, shown)


def state_to_json(state: NilState) -> dict[str, Any]:
    kit = state.kit
    return {
        "notation": n.VERSION,
        "game": "nil",
        "view": state.view.value,
        "players": state.players,
        "options": state.options.to_json(),
        "kit": kit.to_json(),
        "contenders": list(state.contenders),
        "lots": [list(lot) for lot in state.lots],
        "starter": state.starter,
        "pending": list(state.pending),
        "racks": [list(rack) for rack in state.racks],
        "bag": None
        if state.bag is None
        else {k.name: c for k, c in zip(kit.kinds, state.bag, strict=True)},
        "bag_size": state.bag_size,
        "tiles": {str(t.cell): {"tile": t.kind, "as": t.declared} for t in state.tiles},
        "path": [[str(s.cell), PORT_NAMES[s.entry], PORT_NAMES[s.exit]] for s in state.path],
        "seat": state.seat,
        "laid": list(state.laid),
        "greens": list(state.greens),
        "reds": list(state.reds),
        "scores": list(state.scores),
        "turns": state.turns,
        "no_play_run": state.no_play_run,
        "finished": state.finished,
        "unchecked": list(state.unchecked),
    }


def state_from_json(data: Any) -> NilState:
    data, view, players, options, kit = n.common(
        data, "nil", FIELDS, OPTION_SPECS, kit_from_json, players=(2, 4)
    )
    names = tuple(k.name for k in kit.kinds)
    seat_range = (0, players - 1)

    def seats(value: Any, where: str) -> tuple[int, ...]:
        return tuple(
            n.integer(v, n.join(where, i), *seat_range) for i, v in enumerate(n.array(value, where))
        )

    def kinds(value: Any, where: str, unknown: bool = False) -> tuple[str, ...]:
        allowed = (*names, UNKNOWN) if unknown else names
        return tuple(
            n.text(v, n.join(where, i), allowed) for i, v in enumerate(n.array(value, where))
        )

    contenders = seats(data["contenders"], "contenders")
    if not contenders or list(contenders) != sorted(set(contenders)):
        raise NotationError("contenders", "expected seats in order, each once", data["contenders"])
    lots = tuple(kinds(lot, f"lots[{i}]") for i, lot in enumerate(n.array(data["lots"], "lots")))
    if len(lots) > len(contenders) or any(not 1 <= len(lot) <= 3 for lot in lots):
        raise NotationError("lots", "expected up to 3 tiles for each contender", data["lots"])
    starter = data["starter"]
    if starter is not None:
        starter = n.integer(starter, "starter", *seat_range)
    pending = seats(data["pending"], "pending")
    racks_raw = n.array(data["racks"], "racks", players)
    racks = tuple(
        kinds(rack, f"racks[{i}]", unknown=view is View.TABLE) for i, rack in enumerate(racks_raw)
    )
    for i, rack in enumerate(racks):
        if len(rack) > 5:
            raise NotationError(f"racks[{i}]", "a rack holds at most 5 tiles", len(rack))
        if view is View.TABLE and starter is not None and any(t != UNKNOWN for t in rack):
            raise NotationError(f"racks[{i}]", "the table view does not see a rack's tiles")
    bag = _bag(data["bag"], kit, view)
    bag_size = n.integer(data["bag_size"], "bag_size", 0)
    tiles = _tiles(data["tiles"], kit)
    path = _path(data["path"], kit, {t.cell for t in tiles})
    seat = n.integer(data["seat"], "seat", *seat_range)
    laid = kinds(data["laid"], "laid")
    if len(laid) > 5:
        raise NotationError("laid", "a turn lays at most 5 tiles", len(laid))
    greens = _fields(data["greens"], "greens", kit, "green")
    reds = _fields(data["reds"], "reds", kit, "red")
    scores = tuple(
        n.integer(v, f"scores[{i}]")
        for i, v in enumerate(n.array(data["scores"], "scores", players))
    )
    finished = data["finished"]
    if finished is not None:
        finished = n.text(finished, "finished", FINISHED)
    unchecked = tuple(
        n.text(v, f"unchecked[{i}]") for i, v in enumerate(n.array(data["unchecked"], "unchecked"))
    )
    state = NilState(
        kit=kit,
        options=options,
        view=view,
        players=players,
        contenders=contenders,
        lots=lots,
        starter=starter,
        pending=pending,
        racks=racks,
        bag=bag,
        bag_size=bag_size,
        tiles=tiles,
        path=path,
        seat=seat,
        laid=laid,
        greens=greens,
        reds=reds,
        scores=scores,
        turns=n.integer(data["turns"], "turns", 0),
        no_play_run=n.integer(data["no_play_run"], "no_play_run", 0),
        finished=finished,
        unchecked=unchecked,
    )
    _check_tiles_add_up(state)
    _check_path(state)
    return state


def _check_path(state: NilState) -> None:
    """The river is one line from the start point, each step on a cell across the end
    of the one before, along a line its tile can carry (a crossed cell: two straight
    lines under a universal tile)."""
    kit = state.kit
    diagonal = state.options["corner"] == "diagonal"
    seen: dict[Square, int] = {}
    for i, step in enumerate(state.path):
        where = f"path[{i}]"
        if i == 0:
            joins = step.cell == kit.start and step.entry == kit.start_port
            expected = f"port {PORT_NAMES[kit.start_port]} of the start field {kit.start}"
        else:
            before = state.path[i - 1]
            joins = (step.cell, step.entry) in continuations(
                before.cell, before.exit, kit.columns, kit.rows, diagonal
            )
            expected = f"the end of path[{i - 1}] ({PORT_NAMES[before.exit]} of {before.cell})"
        if not joins:
            raise NotationError(where, f"the line does not continue from {expected}")
        tile = state.board[step.cell]
        line = (min(step.entry, step.exit), max(step.entry, step.exit))
        seen[step.cell] = seen.get(step.cell, 0) + 1
        if seen[step.cell] > 2:
            raise NotationError(where, f"the line passes {step.cell} more than twice")
        if seen[step.cell] == 2 or (kit.kind[tile.kind].universal and tile.declared is None):
            if not kit.kind[tile.kind].universal or step.exit != opposite(step.entry):
                raise NotationError(
                    where, f"the line crosses on {step.cell} only straight, under a universal tile"
                )
            continue
        shapes = {shape for _, shape in kit.kind[tile.declared or tile.kind].shapes}
        if line not in shapes:
            raise NotationError(
                where,
                f"the {tile.declared or tile.kind} on {step.cell} has no line from "
                f"{PORT_NAMES[step.entry]} to {PORT_NAMES[step.exit]}",
            )
    for tile in state.tiles:
        if kit.kind[tile.kind].universal and tile.declared is None and seen[tile.cell] != 2:
            raise NotationError(
                f"tiles.{tile.cell}.as",
                "a universal tile names the kind it stands in for, unless the line crosses there",
            )


def _bag(value: Any, kit: NilKit, view: View) -> tuple[int, ...] | None:
    if value is None:
        if view is View.FULL:
            raise NotationError("bag", "the full view knows the bag's tiles")
        return None
    if view is View.TABLE:
        raise NotationError("bag", "the table view does not see the bag's tiles: null", value)
    value = n.obj(value, "bag")
    n.keys(value, "bag", tuple(k.name for k in kit.kinds))
    return tuple(n.integer(value[k.name], f"bag.{k.name}", 0) for k in kit.kinds)


def _cell(value: Any, where: str, kit: NilKit) -> Square:
    cell = Square.parse(value, where)
    if not (cell.col < kit.columns and cell.row < kit.rows):
        raise NotationError(where, f"not a cell of the {kit.columns} x {kit.rows} board", value)
    return cell


def _tiles(value: Any, kit: NilKit) -> tuple[Tile, ...]:
    value = n.obj(value, "tiles")
    tiles = []
    for name, entry in value.items():
        where = f"tiles.{name}"
        cell = _cell(name, where, kit)
        entry = n.obj(entry, where)
        n.keys(entry, where, ("tile", "as"))
        kind = n.text(entry["tile"], f"{where}.tile", tuple(kit.kind))
        declared = entry["as"]
        if declared is not None:
            declared = n.text(declared, f"{where}.as", kit.plain_kinds)
            if not kit.kind[kind].universal:
                raise NotationError(f"{where}.as", "only a universal tile stands in for another")
        tiles.append(Tile(cell, kind, declared))
    return tuple(sorted(tiles, key=lambda t: (t.cell.row, t.cell.col)))


def _path(value: Any, kit: NilKit, occupied: set[Square]) -> tuple[Step, ...]:
    steps = []
    for i, raw in enumerate(n.array(value, "path")):
        where = f"path[{i}]"
        raw = n.array(raw, where, 3)
        cell = _cell(raw[0], f"{where}[0]", kit)
        entry, exit = (n.text(raw[j], f"{where}[{j}]", PORT_NAMES) for j in (1, 2))
        if cell not in occupied:
            raise NotationError(where, f"the line passes {cell}, where no tile lies")
        steps.append(Step(cell, PORT_NAMES.index(entry), PORT_NAMES.index(exit)))
    if {s.cell for s in steps} != occupied:
        raise NotationError("path", "every tile on the board lies on the line")
    return tuple(steps)


def _fields(value: Any, where: str, kit: NilKit, colour: str) -> tuple[int, ...]:
    found = tuple(
        n.integer(v, n.join(where, i), 0, len(kit.fields) - 1)
        for i, v in enumerate(n.array(value, where))
    )
    if list(found) != sorted(set(found)) or any(kit.fields[i].colour != colour for i in found):
        raise NotationError(where, f"expected indices of {colour} fields in order", value)
    return found


def _check_tiles_add_up(state: NilState) -> None:
    """Every printed tile is in the bag, on a rack or on the board (a lot's tiles count
    as in the bag: they go back to it)."""
    kit = state.kit
    on_racks = sum(len(rack) for rack in state.racks)
    if state.bag_size + on_racks + len(state.tiles) != kit.printed:
        raise NotationError(
            "bag_size",
            f"the bag's {state.bag_size}, the racks' {on_racks} and the board's "
            f"{len(state.tiles)} tiles do not make the kit's {kit.printed}",
        )
    if state.bag is None:
        return
    if sum(state.bag) != state.bag_size:
        raise NotationError("bag", f"the bag's counts do not add up to bag_size {state.bag_size}")
    held = Counter(kind for rack in state.racks for kind in rack)
    board = Counter(t.kind for t in state.tiles)
    for kind, count in zip(kit.kinds, state.bag, strict=True):
        total = count + held[kind.name] + board[kind.name]
        if total != kind.count:
            raise NotationError(
                f"bag.{kind.name}",
                f"{total} {kind.name} tiles in the bag, on racks and the board; the kit has "
                f"{kind.count}",
            )
