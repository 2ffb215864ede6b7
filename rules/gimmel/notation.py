"""Gimmel states and moves in the JSON notation (``docs/notation.md``)."""

from __future__ import annotations

from typing import Any

from rules import notation as n
from rules.errors import NotationError
from rules.gimmel.kit import kit_from_json
from rules.gimmel.model import (
    KINDS,
    ClaimDraw,
    DrawLots,
    GimmelMove,
    GimmelState,
    Kind,
    Leap,
    Pass,
    Piece,
    Place,
)
from rules.gimmel.options import OPTION_SPECS
from rules.grid import Square

FIELDS = ("notation", "game", "view", "players", "options", "kit", "white", "ply", "board",
          "reserve", "draw_claimed_by", "passes")  # fmt: skip
MOVE_TYPES = ("lot", "place", "leap", "claim-draw", "pass")


def move_to_json(move: GimmelMove) -> dict[str, Any]:
    if isinstance(move, DrawLots):
        return {"type": "lot", "white": move.white}
    if isinstance(move, Place):
        return {
            "type": "place",
            "player": move.player,
            "piece": move.kind.value,
            "to": str(move.to),
        }
    if isinstance(move, Leap):
        return {"type": "leap", "player": move.player, "from": str(move.src), "to": str(move.dst)}
    if isinstance(move, ClaimDraw):
        return {"type": "claim-draw", "player": move.player}
    if isinstance(move, Pass):
        return {"type": "pass", "player": move.player}
    raise TypeError(f"not a Gimmel move: {move!r}")


def move_from_json(data: Any, where: str = "move") -> GimmelMove:
    """Read a move. Seat numbers are read as any whole number: whether that seat is at
    the table, and whether it is its turn, are the rules' questions."""
    data = n.obj(data, where)
    kind = n.text(data.get("type"), n.join(where, "type"), MOVE_TYPES)
    if kind == "lot":
        n.keys(data, where, ("type", "white"))
        return DrawLots(white=n.integer(data["white"], n.join(where, "white"), 0))
    fields = {
        "place": ("type", "player", "piece", "to"),
        "leap": ("type", "player", "from", "to"),
        "claim-draw": ("type", "player"),
        "pass": ("type", "player"),
    }[kind]
    n.keys(data, where, fields)
    player = n.integer(data["player"], n.join(where, "player"), 0)
    if kind == "place":
        piece = n.text(data["piece"], n.join(where, "piece"), tuple(k.value for k in KINDS))
        return Place(player, Kind(piece), Square.parse(data["to"], n.join(where, "to")))
    if kind == "leap":
        return Leap(
            player,
            Square.parse(data["from"], n.join(where, "from")),
            Square.parse(data["to"], n.join(where, "to")),
        )
    if kind == "claim-draw":
        return ClaimDraw(player)
    return Pass(player)


def state_to_json(state: GimmelState) -> dict[str, Any]:
    board = {
        str(state.grid.squares[i]): {"player": piece.owner, "piece": piece.kind.value}
        for i, piece in enumerate(state.board)
        if piece is not None
    }
    return {
        "notation": n.VERSION,
        "game": "gimmel",
        "view": state.view.value,
        "players": 2,
        "options": state.options.to_json(),
        "kit": state.kit.to_json(),
        "white": state.white,
        "ply": state.ply,
        "board": board,
        "reserve": [
            {kind.value: count for kind, count in zip(KINDS, state.reserve[seat], strict=True)}
            for seat in (0, 1)
        ],
        "draw_claimed_by": state.draw_claimed_by,
        "passes": state.passes,
    }


def state_from_json(data: Any) -> GimmelState:
    data, view, _, options, kit = n.common(
        data, "gimmel", FIELDS, OPTION_SPECS, kit_from_json, players=(2, 2)
    )
    white = data["white"]
    if white is not None:
        white = n.integer(white, "white", 0, 1)
    ply = n.integer(data["ply"], "ply", 0)
    passes = n.integer(data["passes"], "passes", 0, 2)
    claimed = data["draw_claimed_by"]
    if claimed is not None:
        claimed = n.integer(claimed, "draw_claimed_by", 0, 1)
        if options["draw"] != "claim":
            raise NotationError("draw_claimed_by", "a draw is claimed only with draw = 'claim'")

    state = GimmelState(
        kit=kit,
        options=options,
        view=view,
        white=white,
        board=_board(data["board"], kit.columns, kit.rows),
        reserve=_reserve(data["reserve"]),
        ply=ply,
        draw_claimed_by=claimed,
        passes=passes,
    )
    if white is None and (ply or any(state.board)):
        raise NotationError("white", "no piece moves before the colour lot", white)
    for seat in (0, 1):
        for kind, count in zip(KINDS, state.captured[seat], strict=True):
            if count < 0:
                raise NotationError(
                    f"reserve[{seat}].{kind.value}",
                    f"seat {seat} has more {kind.value}s on the board and in reserve "
                    f"than the {state.terms.per_kind} a player starts with",
                )
    _check_reachable(state)
    return state


def _check_reachable(state: GimmelState) -> None:
    """Refuse positions that no game reaches: the notation reads what play can make."""
    terms = state.terms
    placed = sum(terms.per_kind * 3 - sum(state.reserve[seat]) for seat in (0, 1))
    if state.ply < placed + state.passes:
        raise NotationError(
            "ply", f"{placed} pieces were placed and {state.passes} passes made in fewer turns"
        )
    if min(state.scores) >= terms.target:
        raise NotationError("reserve", f"both seats cannot have reached {terms.target} points")
    if state.draw_claimed_by is not None:
        low, high = sorted(state.scores)
        if low < terms.draw_minimum or high - low > terms.draw_margin:
            raise NotationError(
                "draw_claimed_by", f"no draw can be claimed at scores {state.scores}"
            )


def _board(data: Any, columns: int, rows: int) -> tuple[Piece | None, ...]:
    data = n.obj(data, "board")
    cells: list[Piece | None] = [None] * (columns * rows)
    for name, entry in data.items():
        where = f"board.{name}"
        square = Square.parse(name, where)
        if not (square.col < columns and square.row < rows):
            raise NotationError(where, f"not a square of the {columns} x {rows} board")
        entry = n.obj(entry, where)
        n.keys(entry, where, ("player", "piece"))
        owner = n.integer(entry["player"], f"{where}.player", 0, 1)
        kind = n.text(entry["piece"], f"{where}.piece", tuple(k.value for k in KINDS))
        cells[square.row * columns + square.col] = Piece(owner, Kind(kind))
    return tuple(cells)


def _reserve(data: Any) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    seats = n.array(data, "reserve", 2)
    result = []
    for seat, entry in enumerate(seats):
        where = f"reserve[{seat}]"
        entry = n.obj(entry, where)
        n.keys(entry, where, tuple(k.value for k in KINDS))
        result.append(tuple(n.integer(entry[k.value], f"{where}.{k.value}", 0) for k in KINDS))
    return (result[0], result[1])  # type: ignore[return-value]
