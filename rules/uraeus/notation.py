"""Uräus states and moves in the JSON notation (``docs/notation.md``)."""

from __future__ import annotations

from typing import Any

from rules import notation as n
from rules.errors import NotationError
from rules.uraeus.kit import kit_from_json
from rules.uraeus.model import (
    BORDER,
    DIE_FACES,
    FACING_NAMES,
    TAIL,
    Advance,
    Pass,
    Pending,
    Return,
    Roll,
    Stone,
    UraeusMove,
    UraeusState,
)
from rules.uraeus.options import OPTION_SPECS

FIELDS = ("notation", "game", "view", "players", "options", "kit", "rolloff", "turn", "roll",
          "track", "border", "home", "finished", "pending")  # fmt: skip
MOVE_TYPES = ("roll", "advance", "pass", "return")
FACINGS = {name: value for value, name in FACING_NAMES.items()}


def move_to_json(move: UraeusMove) -> dict[str, Any]:
    if isinstance(move, Roll):
        return {"type": "roll", "face": move.face}
    if isinstance(move, Advance):
        src = BORDER if move.src is None else move.src
        return {"type": "advance", "player": move.player, "from": src, "turn": move.turn}
    if isinstance(move, Pass):
        return {"type": "pass", "player": move.player}
    if isinstance(move, Return):
        return {"type": "return", "player": move.player, "engage": move.engage}
    raise TypeError(f"not an Uräus move: {move!r}")


def move_from_json(data: Any, where: str = "move") -> UraeusMove:
    """Read a move. Any whole number is read as a die face, a seat, a field or a turn
    step: whether it is possible here is the rules' question."""
    data = n.obj(data, where)
    kind = n.text(data.get("type"), n.join(where, "type"), MOVE_TYPES)
    if kind == "roll":
        n.keys(data, where, ("type", "face"))
        return Roll(face=n.integer(data["face"], n.join(where, "face")))
    fields = {
        "advance": ("type", "player", "from", "turn"),
        "pass": ("type", "player"),
        "return": ("type", "player", "engage"),
    }[kind]
    n.keys(data, where, fields)
    player = n.integer(data["player"], n.join(where, "player"), 0)
    if kind == "pass":
        return Pass(player)
    if kind == "return":
        return Return(player, n.boolean(data["engage"], n.join(where, "engage")))
    raw = data["from"]
    if raw == BORDER:
        src = None
    elif isinstance(raw, int) and not isinstance(raw, bool):
        src = n.integer(raw, n.join(where, "from"), 0)
    else:
        raise NotationError(n.join(where, "from"), "expected a field number or 'border'", raw)
    turn = data["turn"]
    if turn is not None:
        turn = n.integer(turn, n.join(where, "turn"))
    return Advance(player, src, turn)


def state_to_json(state: UraeusState) -> dict[str, Any]:
    track = {
        str(field): [_stone_to_json(stone) for stone in stones]
        for field, stones in enumerate(state.track)
        if stones
    }
    rolloff = (
        {"contenders": list(state.contenders), "rolls": list(state.rolloff)}
        if state.contenders
        else None
    )
    pending = state.pending
    return {
        "notation": n.VERSION,
        "game": "uraeus",
        "view": state.view.value,
        "players": state.players,
        "options": state.options.to_json(),
        "kit": state.kit.to_json(),
        "rolloff": rolloff,
        "turn": state.turn,
        "roll": state.roll,
        "track": track,
        "border": list(state.border),
        "home": list(state.home),
        "finished": list(state.finished),
        "pending": None if pending is None else {"player": pending.owner, "field": pending.field},
    }


def _stone_to_json(stone: Stone) -> dict[str, Any]:
    data: dict[str, Any] = {"player": stone.owner, "facing": FACING_NAMES[stone.facing]}
    if stone.renewed:
        data["renewed"] = True
    return data


def state_from_json(data: Any) -> UraeusState:
    data, view, players, options, kit = n.common(
        data, "uraeus", FIELDS, OPTION_SPECS, kit_from_json, players=(2, 4)
    )

    contenders: tuple[int, ...] = ()
    rolls: tuple[int, ...] = ()
    if data["rolloff"] is not None:
        rolloff = n.obj(data["rolloff"], "rolloff")
        n.keys(rolloff, "rolloff", ("contenders", "rolls"))
        contenders = tuple(
            n.integer(s, f"rolloff.contenders[{i}]", 0, players - 1)
            for i, s in enumerate(n.array(rolloff["contenders"], "rolloff.contenders"))
        )
        if len(contenders) < 2 or list(contenders) != sorted(set(contenders)):
            raise NotationError("rolloff.contenders", "expected two or more seats in order")
        rolls = tuple(
            n.integer(f, f"rolloff.rolls[{i}]", 1, 6)
            for i, f in enumerate(n.array(rolloff["rolls"], "rolloff.rolls"))
        )
        if len(rolls) >= len(contenders):
            raise NotationError("rolloff.rolls", "expected fewer rolls than contenders")

    turn = n.integer(data["turn"], "turn", 0, players - 1)
    roll = data["roll"]
    if roll is not None:
        roll = n.integer(roll, "roll", min(DIE_FACES), max(DIE_FACES))
    track = _track(data["track"], kit.tail, players)
    border = _counts(data["border"], "border", players, kit.per_player)
    home = _counts(data["home"], "home", players, kit.per_player)
    finished = tuple(
        n.integer(s, f"finished[{i}]", 0, players - 1)
        for i, s in enumerate(n.array(data["finished"], "finished"))
    )
    pending = None
    if data["pending"] is not None:
        raw = n.obj(data["pending"], "pending")
        n.keys(raw, "pending", ("player", "field"))
        pending = Pending(
            n.integer(raw["player"], "pending.player", 0, players - 1),
            n.integer(raw["field"], "pending.field", 1, kit.tail - 1),
        )

    for seat in range(players):
        on_track = sum(stone.owner == seat for stones in track for stone in stones)
        pending_here = int(pending is not None and pending.owner == seat)
        if border[seat] + home[seat] + on_track + pending_here != kit.per_player:
            raise NotationError(
                "track",
                f"seat {seat} has {border[seat]} on the border, {home[seat]} home and "
                f"{on_track + pending_here} on the track, not the {kit.per_player} it owns",
            )
    done = {seat for seat in range(players) if home[seat] == kit.per_player}
    if set(finished) != done or len(finished) != len(done):
        raise NotationError("finished", "expected each seat with every piece home, once")
    if contenders and (roll is not None or pending is not None or any(track) or finished):
        raise NotationError("rolloff", "nothing moves before the roll-off has decided")
    if turn in finished and len(finished) < players - 1:
        raise NotationError("turn", f"seat {turn} has finished and no longer moves")
    if pending is not None and roll is not None:
        raise NotationError("pending", "a captured piece waits only after the move")
    return UraeusState(
        kit=kit,
        options=options,
        view=view,
        players=players,
        contenders=contenders,
        rolloff=rolls,
        turn=turn,
        roll=roll,
        track=track,
        border=border,
        home=home,
        finished=finished,
        pending=pending,
    )


def _track(data: Any, tail: int, players: int) -> tuple[tuple[Stone, ...], ...]:
    data = n.obj(data, "track")
    fields: list[tuple[Stone, ...]] = [()] * (tail + 1)
    for name, entry in data.items():
        where = f"track.{name}"
        if not name.isdigit() or int(name) >= tail or str(int(name)) != name:
            raise NotationError(where, f"expected a field number from 0 to {tail - 1}")
        field = int(name)
        stones = []
        for i, raw in enumerate(n.array(entry, where)):
            at = f"{where}[{i}]"
            raw = n.obj(raw, at)
            n.keys(raw, at, ("player", "facing"), ("renewed",))
            owner = n.integer(raw["player"], f"{at}.player", 0, players - 1)
            facing = FACINGS[n.text(raw["facing"], f"{at}.facing", tuple(FACINGS))]
            renewed = n.boolean(raw.get("renewed", False), f"{at}.renewed")
            if renewed and (field == 0 or i != 1):
                raise NotationError(f"{at}.renewed", "only the upper piece of a double is renewed")
            stones.append(Stone(owner, facing, renewed))
        if not stones:
            raise NotationError(where, "an empty field is left out")
        if field == 0:
            if any(stone.facing != TAIL for stone in stones):
                raise NotationError(where, "pieces on the head field face the tail")
            if stones != sorted(stones):
                raise NotationError(where, "pieces on the head field are listed by seat")
        elif len(stones) > 2:
            raise NotationError(where, "a field holds one piece or a double, never three")
        fields[field] = tuple(stones)
    return tuple(fields)


def _counts(data: Any, where: str, players: int, most: int) -> tuple[int, ...]:
    return tuple(
        n.integer(v, f"{where}[{i}]", 0, most) for i, v in enumerate(n.array(data, where, players))
    )
