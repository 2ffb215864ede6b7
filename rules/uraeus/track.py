"""Walking a piece along the track step by step, and setting captured pieces back.

These are the mechanics of ``uraeus.de.txt`` "Zugrichtungen", "Überspringen", "Besetzen",
"Schlagen", "Vertreiben" and "Blockieren", as NOTES.md §5 reads them: a piece T facing
``d_T`` is entered by a mover moving ``d_M``

- from behind when ``d_M == d_T``: the mover may pass over it, or end on it (a double);
- from the front when ``d_M == -d_T``: only with the last step, and that captures it.

A double is a wall from both sides, except that its upper piece may be captured from
its front with the last step. The head field 0 cannot be attacked and stops a piece that
reaches it; the tail field must be reached with the last step.
"""

from __future__ import annotations

from typing import NamedTuple

from rules.core import Violation
from rules.uraeus.kit import UraeusKit
from rules.uraeus.model import HEAD, TAIL, Pending, Stone

Track = list[tuple[Stone, ...]]


class Walk(NamedTuple):
    """Where a path ends and what it does there."""

    end: int | None  # the final field; None when the piece left the track
    facing: int
    home: bool = False  # reached the tail field
    left_track: bool = False  # driven past the head with option past_head = "leave"
    pips_lost: bool = False  # stopped at the head field with steps left over
    captured: Stone | None = None  # the piece taken on the last step
    occupied: bool = False  # ended on a single piece from behind: now a double
    steps: int = 0  # the steps walked: fewer than the roll when stopped at the head field


def lift(track: Track, field: int, player: int) -> Stone:
    """Take ``player``'s movable piece off ``field`` (the top one; any of his on the head
    field) and return it. The caller has checked that there is one."""
    stones = track[field]
    if field == 0:
        index = next(i for i, s in enumerate(stones) if s.owner == player)
        track[0] = stones[:index] + stones[index + 1 :]
        return stones[index]
    track[field] = stones[:-1]
    return stones[-1]


def walk(
    track: Track,
    kit: UraeusKit,
    start: int,
    facing: int,
    roll: int,
    turn: int | None,
    past_head: str,
) -> Walk | Violation:
    """Follow one path: ``roll`` steps from ``start`` (the mover already lifted off),
    turning at step ``turn``. Returns where it ends, or the rule the path breaks."""
    pos = start
    direction = TAIL if start == 0 else facing
    for step in range(1, roll + 1):
        last = step == roll
        if step == turn:
            if pos == 0:
                return Violation(
                    "uraeus.head-field", "a piece on the head field 0 cannot turn there"
                )
            direction = -direction
            continue
        ahead = pos + direction
        if ahead == kit.tail:
            if not last:
                return Violation(
                    "uraeus.tail-exact",
                    f"the tail field {kit.tail} is reached at step {step} of {roll}; "
                    "it must be reached exactly with the last step",
                )
            return Walk(end=None, facing=direction, home=True, steps=step)
        if ahead == 0:
            if last or past_head == "stop":
                return Walk(end=0, facing=TAIL, pips_lost=not last, steps=step)
            return Walk(end=None, facing=TAIL, left_track=True, pips_lost=True, steps=step)
        stones = track[ahead]
        if not stones:
            pos = ahead
            continue
        top = stones[-1]
        if len(stones) == 1:
            if top.facing == direction:
                pos = ahead  # from behind: pass over it, or end on it
                continue
            if last:
                return Walk(end=ahead, facing=direction, captured=top, steps=step)
            return Violation(
                "uraeus.pass-from-front",
                f"the piece on field {ahead} faces this one at step {step} of {roll}; "
                "a piece is passed only from behind, and entered from the front only "
                "with the last step, capturing it",
            )
        if last and top.facing == -direction:
            return Walk(end=ahead, facing=direction, captured=top, steps=step)
        return Violation(
            "uraeus.double-wall",
            f"the double on field {ahead} stops this piece at step {step} of {roll}; "
            "a double can be passed from neither side",
        )
    # The last step moved onto ``pos`` from behind, or turned where the piece stands.
    return Walk(end=pos, facing=direction, occupied=bool(pos and track[pos]), steps=roll)


def settle(
    track: Track,
    kit: UraeusKit,
    owner: int,
    field: int,
    chain: str,
    engage: bool | None,
    events: list[str],
) -> Pending | None:
    """Set a captured piece of ``owner`` back on the scale field ``field``, head first
    toward the head field. There, and only there ("Dort kann er ... sofort besetzen oder
    schlagen"), it may occupy or capture the piece it meets: ``engage`` says whether it
    does; ``None`` means its owner has not decided yet, which with ``chain = "choose"`` is
    returned as pending. A piece it captures is set back in turn (a chain). Declined, or
    meeting a double it cannot capture, it is set on the field ahead ("auf das
    Rückenfeld davor", 31 for 30), or the next free one, without engaging there."""
    while True:
        if field == 0:
            track[0] = _sorted_head(track[0] + (Stone(owner, TAIL),))
            return None
        stones = track[field]
        arriving = Stone(owner, HEAD)
        if not stones:
            track[field] = (arriving,)
            return None
        top = stones[-1]
        if len(stones) == 1 or top.facing == TAIL:  # it can occupy or capture here
            if chain == "always":
                engage = True
            if engage is None:
                return Pending(owner, field)
            if engage:
                if len(stones) == 1 and top.facing == HEAD:
                    track[field] = (top, arriving)  # from behind: a double
                    events.append("double")
                    return None
                # From the front: capture the single piece, or the upper of the double.
                track[field] = (*stones[:-1], arriving)
                events.extend(("capture", "capture-chain"))
                owner, field, engage = top.owner, kit.return_field(field), None
                continue
        ahead = next((f for f in range(field + 1, kit.tail) if not track[f]), None)
        if ahead is None:  # pragma: no cover - needs more pieces than a game has
            raise AssertionError("no free field for a captured piece")
        track[ahead] = (arriving,)
        return None


def _sorted_head(stones: tuple[Stone, ...]) -> tuple[Stone, ...]:
    return tuple(sorted(stones))


def place(track: Track, mover: Stone, result: Walk) -> None:
    """Put the mover where its walk ended, facing as it ended (the caller handles
    captures' returns and sets ``renewed``)."""
    if result.end is None:
        return
    stone = Stone(mover.owner, result.facing, mover.renewed)
    if result.end == 0:
        track[0] = _sorted_head(track[0] + (Stone(mover.owner, TAIL),))
        return
    stones = track[result.end]
    if result.captured is not None:
        track[result.end] = (*stones[:-1], stone)
    elif stones:
        track[result.end] = (stones[0], stone)
    else:
        track[result.end] = (stone,)
