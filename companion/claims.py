"""Device events are claims; the rules decide what they mean (``companion.tracker``).

The die's ``DieRolled`` claims Uräus's ``Roll`` when the game waits for the die; a bad
roll asks the table to roll again and never reaches the game. The Regie sensors report a
move as an action (a chip in, a level's or the box's new position) followed by the chips
that left the levels; ``RegieSightings`` gathers them into one move's sightings, which
``rules.regie.observe`` turns into the move they claim, carrying what was seen.
"""

from __future__ import annotations

from companion.tracker import Claim
from hardware.messages import (
    BoxMoved,
    ChipEntered,
    ChipInserted,
    ChipOffTable,
    DieInvalid,
    DieRolled,
    Event,
    LevelMoved,
)
from rules import CHANCE, NotationError, game_of, get_game
from rules.regie.observe import Sighting, move_from_sightings
from rules.uraeus import Roll

#: The devices each game can have, by name, and the device kind their hello must name.
DEVICES: dict[str, dict[str, str]] = {"uraeus": {"die": "die"}, "regie": {"sensors": "regie"}}


def die_claim(state, event: Event, source: str = "die") -> Claim | None:
    """What a die event claims at an Uräus table in ``state`` (``None``: nothing, as
    for a heartbeat, or at a table that now plays another game)."""
    uraeus = get_game("uraeus")
    if game_of(state) is not uraeus:
        return None
    if isinstance(event, DieInvalid):
        say = f"That roll does not count ({event.why}): roll again."
        return Claim(source, seen={"invalid": event.why}, say=say)
    if not isinstance(event, DieRolled):
        return None
    if uraeus.to_act(state) is not CHANCE:
        say = f"The die shows {event.face}, but no roll is due now."
        return Claim(source, seen={"face": event.face}, say=say)
    return Claim(source, seen={"face": event.face}, moves=(Roll(event.face),))


def regie_claim(state, sightings: tuple[Sighting, ...], source: str = "sensors") -> Claim | None:
    """What one move's sightings claim at a Regie table in ``state`` (``None`` at a table
    that now plays another game)."""
    if game_of(state) is not get_game("regie"):
        return None
    seen = [{k: v for k, v in s._asdict().items() if v is not None} for s in sightings]
    try:
        move = move_from_sightings(state, sightings)
    except NotationError as error:
        return Claim(source, seen=seen, say=f"The sensors saw no single move: {error}")
    return Claim(source, seen=seen, moves=(move,))


class RegieSightings:
    """Gathers one move's sightings: an action, then the chips that left the levels."""

    def __init__(self) -> None:
        self.pending: list[Sighting] = []

    def add(self, event: Event) -> tuple[Sighting, ...] | None:
        """Add an event; when it starts the next move, return the finished one's."""
        sighting = _sighting(event)
        if sighting is None:
            return None
        if sighting.kind in ("compartment", "table"):
            self.pending.append(sighting)
            return None
        finished, self.pending = tuple(self.pending), [sighting]
        return finished or None

    def flush(self) -> tuple[Sighting, ...] | None:
        """The last move's sightings, once the frame is still (no more chips falling)."""
        finished, self.pending = tuple(self.pending), []
        return finished or None


def _sighting(event: Event) -> Sighting | None:
    if isinstance(event, ChipInserted):
        return Sighting("inserted", column=event.col)
    if isinstance(event, LevelMoved):
        return Sighting("level", level=event.level, position=event.pos)
    if isinstance(event, BoxMoved):
        return Sighting("box", position=event.pos)
    if isinstance(event, ChipEntered):
        return Sighting("compartment", column=event.col)
    if isinstance(event, ChipOffTable):
        return Sighting("table", side=event.side)
    return None
