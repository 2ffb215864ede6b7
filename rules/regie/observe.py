"""What the Regie sensors see, in the model's words, and what a move's sightings mean.

The sensors in the frame (next to come in ``hardware/``) report physical happenings:
a chip put in at a slot, a level's new position, the box's new position, a chip
entering a compartment, a chip falling off at a side. ``observe`` says which of these
a move will cause, as the kit predicts, so that a device emulator can be driven by a
simulated game and the companion can check what arrives. ``move_from_sightings`` does
the reverse: it turns the sightings of one move into the move, carrying what was seen
so that reality wins over the kit (``reality.py``).
"""

from __future__ import annotations

from typing import NamedTuple

from rules.errors import NotationError
from rules.regie.engine import REGIE
from rules.regie.model import Insert, MoveBox, RegieMove, RegieState, Seen, SeenExit, Slide


class Sighting(NamedTuple):
    """One thing a sensor saw.

    ``kind`` is ``"inserted"`` (a chip put in at frame ``column``), ``"level"`` (level
    ``level`` now at ``position``), ``"box"`` (the box now at ``position``),
    ``"compartment"`` (a chip entered the compartment under frame ``column``) or
    ``"table"`` (a chip fell off on ``side``).
    """

    kind: str
    column: int | None = None
    level: int | None = None
    position: int | None = None
    side: str | None = None


def observe(state: RegieState, move: RegieMove) -> tuple[Sighting, ...]:
    """The sightings a legal ``move`` causes, as the kit predicts: first the action
    (insertion, level or box position), then every chip leaving the levels in order."""
    after = REGIE.play(state, move)
    if isinstance(move, MoveBox):
        return (Sighting("box", position=move.to),)
    if isinstance(move, Insert):
        sightings = [Sighting("inserted", column=move.column)]
    elif isinstance(move, Slide):
        position = after.levels[move.level - 1]
        sightings = [Sighting("level", level=move.level, position=position)]
    else:
        return ()
    for chip in after.landed[len(state.landed) :]:
        if chip.kind == "box":
            sightings.append(Sighting("compartment", column=chip.column))
        else:
            sightings.append(Sighting("table", side=chip.side))
    return tuple(sightings)


def move_from_sightings(state: RegieState, sightings: tuple[Sighting, ...]) -> RegieMove:
    """The move of the seat to act that the sightings of one move describe, carrying the
    chips seen leaving the levels. Sightings that describe no single move are refused
    with a ``NotationError`` naming the first one that does not fit."""
    seat = state.turn
    if not sightings:
        raise NotationError("sightings", "no sighting: no move was seen")
    action, *rest = sightings
    exits = []
    for i, sighting in enumerate(rest, start=1):
        if sighting.kind == "compartment" and sighting.column is not None:
            exits.append(SeenExit("box", column=sighting.column))
        elif sighting.kind == "table" and sighting.side in ("left", "right"):
            exits.append(SeenExit("table", side=sighting.side))
        else:
            raise NotationError(
                f"sightings[{i}]", "after the action only chips leaving the levels", sighting
            )
    seen = Seen(exits=tuple(exits))
    if action.kind == "inserted" and action.column is not None:
        return Insert(seat, action.column, seen)
    if action.kind == "level" and action.level in range(1, 7) and action.position is not None:
        direction = action.position - state.levels[action.level - 1]
        if direction not in (-1, 1):
            raise NotationError(
                "sightings[0]",
                f"level {action.level} was at {state.levels[action.level - 1]}; a move slides "
                "it one click",
                action,
            )
        return Slide(seat, action.level, direction, seen)
    if action.kind == "box" and action.position is not None and not exits:
        return MoveBox(seat, action.position)
    raise NotationError("sightings[0]", "expected an insertion, a level or the box first", action)
