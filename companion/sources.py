"""A table's serial devices: each runs its link in a thread and turns what it reports
into claims for the table's tracker. The demo and a real table use the same code; only
the port differs (a pseudo-terminal with an emulator, or a USB device).

Which devices a game has, and what their events claim:

- Uräus: ``die``, the electronic die. A roll claims the game's roll.
- Regie: ``sensors``, the frame's sensors. One move's sightings (an action, then the
  chips leaving the levels) claim a move once the frame is still: when the next action
  starts, or when nothing has been seen for ``settle`` seconds.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from companion.claims import DEVICES, RegieSightings, die_claim, regie_claim
from companion.tables import Table
from hardware.link import DeviceReset, Link, LinkDown, LinkUp, Problem, Received
from hardware.messages import Event

#: Seconds without a sighting after which the Regie frame counts as still.
REGIE_SETTLE = 0.8

log = logging.getLogger(__name__)


class DeviceSource:
    """One serial device of a table, read through the real link in daemon threads."""

    def __init__(
        self,
        table: Table,
        name: str,
        port: str,
        *,
        stop: threading.Event,
        link: Link | None = None,
        clock: Callable[[], float] = time.monotonic,
        settle: float = REGIE_SETTLE,
    ) -> None:
        game = table.config.game
        if name not in DEVICES.get(game, {}):
            known = ", ".join(DEVICES.get(game, {})) or "none"
            raise ValueError(f"table {table.config.id!r}: {game} has no device {name!r} ({known})")
        self.table, self.name, self.port = table, name, port
        self.stop = stop
        self.clock = clock
        self.settle = settle
        self.link = link or Link(port, kind=DEVICES[game][name])
        self.state: dict[str, Any] = {"port": port, "up": False, "boot": None, "problem": None}
        self.gather = RegieSightings()
        self.gathering = threading.Lock()
        self.last_sighting = 0.0
        table.sources[name] = self.health

    def health(self) -> dict[str, Any]:
        """What the tablet shows: the port, whether the link is up, the device's boot id,
        the seconds since its last heartbeat, and the last problem seen."""
        beat = self.link.health.last_heartbeat
        return {
            **self.state,
            "heartbeat_age": None if beat is None else round(self.clock() - beat, 1),
        }

    def start(self) -> None:
        threading.Thread(target=self._listen, name=f"{self.name}-link", daemon=True).start()
        if self.name == "sensors":
            threading.Thread(target=self._settle, name=f"{self.name}-settle", daemon=True).start()

    def _listen(self) -> None:
        for happening in self.link.run(stop=self.stop.is_set):
            if isinstance(happening, LinkUp):
                self.state.update(up=True, boot=happening.hello.boot, problem=None)
            elif isinstance(happening, LinkDown):
                self.state.update(up=False, problem=happening.reason)
            elif isinstance(happening, DeviceReset):
                self.state.update(boot=happening.after.boot)
            elif isinstance(happening, Problem):
                self.state.update(problem=happening.reason)
            elif isinstance(happening, Received):
                try:
                    self.event(happening.event)
                except Exception as error:  # a bug or a full disk: keep listening, say it
                    log.exception("table %s: %s event not taken", self.table.config.id, self.name)
                    self.state.update(problem=f"an event was not taken: {error}")
                    self.table.on_change()
                continue
            self.table.on_change()  # the tablets show the link's health live

    def event(self, event: Event) -> None:
        """One device event, as the table's claim."""
        if self.name == "die":
            self.table.claim(lambda state: die_claim(state, event, self.name))
            return
        # Claims are made under the gatherer's lock, so that moves reach the table in the
        # order they were seen, whichever thread finishes them.
        with self.gathering:
            self.last_sighting = self.clock()
            finished = self.gather.add(event)
            if finished:
                self.table.claim(lambda state: regie_claim(state, finished, self.name))

    def flush(self, quiet_for: float = 0.0) -> None:
        """The frame is still (nothing seen for ``quiet_for`` seconds): the move
        gathered so far is complete."""
        with self.gathering:
            if self.gather.pending and self.clock() - self.last_sighting >= quiet_for:
                finished = self.gather.flush()
                if finished:
                    self.table.claim(lambda state: regie_claim(state, finished, self.name))

    def _settle(self) -> None:
        while not self.stop.wait(0.1):
            try:
                self.flush(quiet_for=self.settle)
            except Exception as error:
                log.exception("table %s: a settled move was not taken", self.table.config.id)
                self.state.update(problem=f"a move was not taken: {error}")
