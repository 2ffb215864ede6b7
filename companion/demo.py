"""The demo table: Uräus, Regie, Gimmel, Nil and Horus played by bots at a human pace,
with the electronic die and the Regie sensors emulated on pseudo-terminals and read
through the real serial driver, so that a newcomer sees live tables within seconds. Only
the sources differ from a real table: the same tables, journal, link and app.

Bots make legal moves through the same ``Table.play`` as a tablet. The die throws when
the Uräus table waits for it; its roll reaches the table as the driver's ``DieRolled``,
a claim of the game's roll (``companion.sources``). The Regie sensors report the moves
of a game their emulator plays; the table's tracker explains them from the sightings.
The Gimmel table is run from a simulated camera over a rendered table, on which the bots
move the pieces by hand (``companion.demo_camera``). At the Nil table three bots lay
tiles as a table sees it (the racks and the bag unseen); the tiles they draw from the bag
come quickly, a few a second, as hands draw them, and each tile laid at the pace. At the
Horus table three bots grow the kingdom as a table sees it (hands and bag unseen, the
cards played unnamed); the tile from the bag comes as quickly as Nil's draws.
"""

from __future__ import annotations

import contextlib
import logging
import random
import threading
import time
from pathlib import Path
from typing import Any

from companion.demo_camera import SPEC, CameraTable
from companion.journal import Journal
from companion.sources import DeviceSource
from companion.tables import Table, TableConfig
from hardware.emulate.die import DieEmulator
from hardware.emulate.regie import RegieEmulator
from rules import CHANCE, IllegalMove
from rules.nil import NoPlay
from rules.playout import choose_move

DEMO_PIN = "1234"
log = logging.getLogger(__name__)
#: Seconds a finished game stays on show before the bots start the next.
GAME_OVER_SHOWN = 8.0
#: Seconds the bots and the die wait after a person changed something on the tablet
#: (so that "take back" takes back the person's move, not the bots' reply).
PERSON_PAUSE = 10.0
CONFIGS = (
    TableConfig("uraeus", "uraeus", ("Ada", "Ben", "Cy"), DEMO_PIN),
    TableConfig("regie", "regie", ("Red", "Blue"), DEMO_PIN),
    TableConfig("gimmel", "gimmel", ("Dee", "Eve"), DEMO_PIN),  # the lot gives colours
    TableConfig("nil", "nil", ("Fay", "Gus", "Hal"), DEMO_PIN),
    TableConfig("horus", "horus", ("Ida", "Jo", "Kim"), DEMO_PIN),
)
#: A draw from the bag takes this share of the pace: a hand draws five tiles in a moment
#: (Nil), a tile comes out of the bag in a moment (Horus).
DRAW_SHARE = 0.2


class Demo:
    """Builds the demo's tables and runs its devices and bots in daemon threads."""

    def __init__(
        self, instance: Path, *, pace: float, seed: int, humans: tuple[str, ...] = ()
    ) -> None:
        self.pace = pace
        #: Seats the bots leave to people at the tablet, by table id.
        self.humans = parse_humans(humans)
        self.rng = random.Random(seed)
        self.stop = threading.Event()
        # The emulators' links live in the instance folder: replaced at the next start,
        # never left behind in /tmp.
        self.folder = instance / "devices"
        self.folder.mkdir(parents=True, exist_ok=True)
        self.over_at: dict[str, float] = {}
        self.journal = Journal(instance / "journal.sqlite")
        self.tables = [Table(config, self.journal) for config in CONFIGS]
        self.by_id = {table.config.id: table for table in self.tables}
        self.threads: list[threading.Thread] = []
        # The Gimmel table's camera is set up once the service answers (``_gimmel``).
        self.instance = instance
        self.camera: CameraTable | None = None
        self.camera_rng = random.Random(self.rng.random())
        self.by_id["gimmel"].sources["camera"] = setting_up

    def start(self) -> None:
        for target in (self._uraeus, self._regie, self._gimmel, self._nil, self._horus):
            thread = threading.Thread(target=target, daemon=True)
            thread.start()
            self.threads.append(thread)

    def close(self) -> None:
        self.stop.set()

    # -- Uräus: bots, and the emulated die through the real driver --------------------

    def _device(self, table: Table, name: str, emulator) -> tuple[threading.Lock, DeviceSource]:
        """Run ``emulator`` on its pseudo-terminal and read it as the table's device
        ``name`` through the real link. Returns the lock that guards the emulator."""
        lock = threading.Lock()
        source = DeviceSource(table, name, str(emulator.port.link), stop=self.stop,
                              settle=self.pace / 2)  # fmt: skip

        def serve() -> None:
            while not self.stop.is_set():
                with lock:
                    emulator.serve(timeout=0.0)
                self.stop.wait(0.01)

        threading.Thread(target=serve, name=f"{name}-emulator", daemon=True).start()
        source.start()
        return lock, source

    # -- Uräus: bots, and the emulated die through the real driver --------------------

    def _uraeus(self) -> None:
        table = self.by_id["uraeus"]
        die = DieEmulator(random.Random(self.rng.random()), serial="DEMO-DIE", clock=time.monotonic,
                          link=self.folder / "die")  # fmt: skip
        die.bad_roll_rate = 0.05
        lock, _ = self._device(table, "die", die)
        while not self.stop.wait(self.pace):
            with self._carrying_on(table):
                if self._waiting(table):
                    continue
                if table.game.name != "uraeus" or table.game.is_over(table.state):
                    self._step(table)  # a tablet may start another game here
                elif table.game.to_act(table.state) is CHANCE:
                    with lock:
                        die.act()  # a player throws the real die
                else:
                    self._bot_move(table)

    # -- Regie: the sensors report the moves the bots make ----------------------------

    def _regie(self) -> None:
        table = self.by_id["regie"]
        sensors = RegieEmulator(random.Random(self.rng.random()), serial="DEMO-REGIE",
                                clock=time.monotonic, link=self.folder / "regie")  # fmt: skip
        lock, source = self._device(table, "sensors", sensors)
        while not self.stop.wait(self.pace):
            with self._carrying_on(table):
                if self._waiting(table):
                    continue
                if (
                    table.game.name != "regie"
                    or table.game.is_over(table.state)
                    or table.game.to_act(table.state) is CHANCE  # who begins: settled, not sensed
                ):
                    self._step(table)
                    continue
                with lock:
                    sensors.game_state = table.state  # the frame is as the table knows it
                    sensors.act()  # a bot's move, reported by the sensors
                self.stop.wait(self.pace / 2)
                source.flush()  # the frame is still: the move is complete

    # -- Gimmel: the bots move pieces by hand, the camera reports the moves -------------

    def _gimmel(self) -> None:
        table = self.by_id["gimmel"]
        # As a user would: the board's photos, the profile learnt from them, the camera.
        # A second or three (the rendered table and its lens made once), so it is done
        # here rather than before the service answers; if it fails, the bots play on.
        with self._carrying_on(table):
            self.camera = CameraTable.build(table, self.instance / "camera",
                                            rng=self.camera_rng, stop=self.stop,
                                            humans=self.humans.get("gimmel", set()))  # fmt: skip
            self.camera.start()
        if self.camera is None:
            table.sources.pop("camera", None)
        while not self.stop.wait(self.pace):
            with self._carrying_on(table):
                person = self._waiting(table)  # the bots wait; the board follows the tablet
                handled = self.camera is not None and self.camera.step(person)
                if not handled and not person:
                    self._step(table)  # the colour lot, the next game

    # -- Nil: the bots lay tiles, drawing from the bag quickly ---------------------------

    def _nil(self) -> None:
        self._quick_draws(self.by_id["nil"])

    # -- Horus: the bots lay tiles and set stones, drawing from the bag quickly -----------

    def _horus(self) -> None:
        self._quick_draws(self.by_id["horus"])

    def _quick_draws(self, table: Table) -> None:
        """Bots at the pace; chance (a draw from the bag) at a share of it."""
        wait = self.pace
        while not self.stop.wait(wait):
            wait = self.pace
            with self._carrying_on(table):
                if self._waiting(table):
                    continue
                if table.game.to_act(table.state) is CHANCE:
                    wait = self.pace * DRAW_SHARE
                self._step(table)

    # -- shared -------------------------------------------------------------------------

    def _step(self, table: Table) -> None:
        """A step of a table without its devices: the next game (once the finished one
        has been on show a while), or the bots' move."""
        if table.game.is_over(table.state):
            ended = self.over_at.setdefault(table.config.id, time.monotonic())
            if time.monotonic() - ended >= max(GAME_OVER_SHOWN, 5 * self.pace):
                del self.over_at[table.config.id]
                table.new_game()
        else:
            self._bot_move(table)

    def _waiting(self, table: Table) -> bool:
        """Bots and the die wait while a person uses the table's tablet."""
        return time.time() - table.touched < PERSON_PAUSE

    @contextlib.contextmanager
    def _carrying_on(self, table: Table):
        """A demo table's thread never dies of one bad step: it says so and goes on."""
        try:
            yield
        except Exception:
            log.exception("demo table %s: a step failed", table.config.id)

    def _bot_move(self, table: Table) -> None:
        if table.game.to_act(table.state) in self.humans.get(table.config.id, ()):
            return  # a person plays this seat: the tablet brings the move
        move = bot_choice(table.game, table.state, self.rng)
        self._play(table, table.game.move_to_json(move))

    def _play(self, table: Table, document: dict) -> None:
        # An illegal move is flagged and journalled by the table, as at a real table.
        with contextlib.suppress(IllegalMove, ValueError):
            table.play(document, source="bot")


def bot_choice(game: Any, state: Any, rng: random.Random) -> Any:
    """A bot's move: as a random playout chooses, except that where the table cannot see
    the racks (Nil), whose rules then allow showing the rack at any time, a bot shows it
    only when no tile fits, as a player would."""
    if game.name == "nil" and game.to_act(state) is not CHANCE:
        moves = tuple(m for m in game.legal_moves(state) if not isinstance(m, NoPlay))
        if moves:
            weights = game.playout_weights(state, moves) or (1.0,) * len(moves)
            return rng.choices(moves, weights=weights)[0]
    return choose_move(game, state, rng)


def setting_up() -> dict[str, object]:
    """The health the demo's camera reports while it is being set up."""
    return {"source": SPEC, "up": False, "board": None, "frames": 0,
            "problem": "setting up: the board's photos, its appearance learnt"}  # fmt: skip


def parse_humans(specs: tuple[str, ...]) -> dict[str, set[int]]:
    """``TABLE:SEAT`` specs as seats by table, checked against the demo's tables."""
    seats: dict[str, set[int]] = {}
    players = {config.id: len(config.players) for config in CONFIGS}
    for spec in specs:
        table, _, seat = spec.partition(":")
        if table not in players or table == "regie":
            playable = ", ".join(t for t in players if t != "regie")
            raise ValueError(f"--human {spec!r}: the demo's tables with bots are {playable}")
        if not seat.isdigit() or int(seat) >= players[table]:
            raise ValueError(f"--human {spec!r}: a seat of {table} is 0 to {players[table] - 1}")
        seats.setdefault(table, set()).add(int(seat))
    return seats
