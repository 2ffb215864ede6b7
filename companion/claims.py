"""Device events are claims; the rules decide what they mean.

The die's ``DieRolled`` becomes Uräus's ``Roll`` when the game waits for the die; a bad
roll asks the table to roll again and never reaches the game. The Regie sensors report a
move as an action (a chip in, a level's or the box's new position) followed by the chips
that left the levels; ``RegieSightings`` gathers them into one move's sightings, which
``rules.regie.observe`` turns into the move, carrying what was seen.
"""

from __future__ import annotations

from typing import NamedTuple

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
from rules import CHANCE, get_game
from rules.regie.observe import Sighting
from rules.uraeus import Roll


class Claim(NamedTuple):
    """What an event means for the game: a move to play, or words for the table."""

    move: object | None
    say: str | None = None


def die_claim(state, event: Event) -> Claim:
    """A die event at an Uräus table in ``state``."""
    uraeus = get_game("uraeus")
    if isinstance(event, DieInvalid):
        return Claim(None, f"That roll does not count ({event.why}): roll again.")
    if not isinstance(event, DieRolled):
        return Claim(None)
    if uraeus.to_act(state) is not CHANCE:
        return Claim(None, "The die was rolled, but no roll is due now.")
    return Claim(Roll(event.face))


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
