"""Counters in device events tell a missed or doubled event from a good one.

Every counted event carries a running count since the device booted: rolls and bad rolls
for the die; insertions, chips per compartment and per table side for Regie. A count one
more than the last is good; the same count again is a doubled event (never scored
twice); a jump means events were missed (the companion takes the snapshot instead). A
snapshot or a restart sets the counts anew.
"""

from __future__ import annotations

from typing import NamedTuple

from hardware.messages import (
    ChipEntered,
    ChipInserted,
    ChipOffTable,
    DieInvalid,
    DieRolled,
    DieSnapshot,
    Event,
    Hello,
    RegieSnapshot,
)


class Verdict(NamedTuple):
    kind: str  # "ok", "doubled", "missed" or "uncounted"
    missed: int = 0  # how many events the jump skipped


class Counters:
    def __init__(self) -> None:
        self.last: dict[tuple, int] = {}

    def check(self, event: Event) -> Verdict:
        """Judge one event by its count, and remember the count."""
        if isinstance(event, Hello):
            self.last.clear()  # a (re)boot: counts start again from zero
            return Verdict("uncounted")
        if isinstance(event, DieSnapshot):
            self.last = {("rolls",): event.rolls, ("bad",): event.bad}
            return Verdict("uncounted")
        if isinstance(event, RegieSnapshot):
            self.last = {("inserts",): event.inserts}
            self.last.update({("comp", c): n for c, n in enumerate(event.comp)})
            self.last.update(
                {("table", "left"): event.table[0], ("table", "right"): event.table[1]}
            )
            return Verdict("uncounted")
        key_count = _key(event)
        if key_count is None:
            return Verdict("uncounted")
        key, count = key_count
        before = self.last.get(key, 0)
        if count <= before:
            return Verdict("doubled")
        self.last[key] = count
        if count > before + 1:
            return Verdict("missed", count - before - 1)
        return Verdict("ok")


def _key(event: Event) -> tuple[tuple, int] | None:
    if isinstance(event, DieRolled):
        return ("rolls",), event.rolls
    if isinstance(event, DieInvalid):
        return ("bad",), event.bad
    if isinstance(event, ChipInserted):
        return ("inserts",), event.inserts
    if isinstance(event, ChipEntered):
        return ("comp", event.col), event.count
    if isinstance(event, ChipOffTable):
        return ("table", event.side), event.count
    return None
