"""The demo's Gimmel table, run from a simulated camera.

At start-up the demo sets the table up as a user would (docs/calibration.md): it takes
the photos ``companion calibrate board`` learns from (the empty board, the reference
set-up five times) with the demo table's camera, learns the appearance profile from them
(``calibration.profiles.learn``) and saves photos and profile in the instance folder
(``camera/``). The camera is a rendered one (``vision.render.live``) mounted over one
fixed table set-up (the renderer's seed :data:`TABLE_SEED`), filmed at :data:`FPS`
frames a second and read by the table's ``CameraSource`` through the same threaded
frame source as a USB camera.

Bots decide Gimmel's moves, but a move that changes the board reaches the table only
through the camera: a bot's hand moves the piece on the rendered table, the camera sees
the hand come and go and the board settle, and the tracker explains the new position
(the journal records the camera's input, with what it saw, and then the move). What no
camera sees goes in through ``Table.play`` as at every other demo table: the colour lot,
a pass, a draw claimed. Hands also pass over the board now and then, changing nothing.

People at the table: a seat left to the tablet (``--human gimmel:N``) enters its moves
there, and a take-back, a new game or a position set on the tablet changes the table
without the camera. The person who tapped then sets the pieces on the rendered board by
hand at once (never while the tablet shows a flag or a question: people are looking at
it), so that the camera sees what the table holds; the bots wait while the tablet is in
use, as at the other demo tables. Nobody moves before the camera has first looked at
the board.

When the camera misreads (the reader is right on about 97 % of squares per frame, less
on crowded boards), the table flags the change or takes another move. The demo does
what a person would: one looking at the camera's view re-seats the pieces it shows
wrongly; if that does not do after :data:`RESEATS` tries, they dismiss the flag and
enter the move on the tablet; a wrong move taken is taken back on the tablet and the
right one entered. A game never stalls on a misread.
"""

from __future__ import annotations

import contextlib
import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from companion.camera_source import CameraConfig, CameraSource
from companion.tables import Table
from rules import CHANCE, IllegalMove

log = logging.getLogger(__name__)

#: The renderer's table set-up of the demo's camera (board, lamp, webcam, its pose):
#: one fixed table, as a real camera is mounted once: 6 degrees from straight down, 76 cm
#: above the board. Of the set-ups where the camera looks nearly straight down, the one
#: the reader read best in a played game (docs/calibration.md, "The demo's camera").
TABLE_SEED = 31
#: Frames a second: a rendered still frame costs about 35 ms, one with a hand about 60
#: ms, and reading one about 60 to 90 ms more; three a second keep one core well under
#: half busy and still see a hand come and go.
FPS = 3.0
#: Still readings that must agree before the camera claims a position: one more than a
#: real table's default, so that a square flickering between two readings is not taken.
CONFIRM = 3
#: How far the camera's reading may disagree with the move that explains it best, and
#: by how much less than with the next (``tracker.Claim``: a whole confident square by
#: default). Looser here: a square misread anywhere on a crowded board would otherwise
#: block every placement whose piece the reader tells apart with less than full
#: confidence; re-seating and the tablet catch the few wrong moves this lets through.
TOLERANCE = 1.5
MARGIN = 0.5
#: Frames the bots wait, after their hand has left, for the camera to report the move
#: before they look at what went wrong.
PATIENCE = 15
#: Times a person re-seats misread pieces before entering the move on the tablet.
RESEATS = 2
#: The frame source's spec, as the health report and the journal name it.
SPEC = "simulated:gimmel"


@dataclass
class Expected:
    """A bot's move made by hand, which the camera should report: the move, the state
    it was made from, the position it leaves, and the frame it was made at."""

    move: Any
    before: Any
    position: dict[str, str]
    frame: int
    #: The table's journal sequence number when the move was made.
    seq: int = 0
    #: The squares the move changes.
    moved: tuple[str, ...] = ()
    reseats: int = 0


#: Chessboard photos the demo's camera is calibrated from (as ``companion calibrate
#: camera`` does from a user's): enough for a steady fit, few enough to render quickly.
CARD_PHOTOS = 12


def calibrate_camera(folder: Path, render_table: Any, seed: int) -> Path:
    """Calibrate the table's camera from rendered chessboard photos as ``companion
    calibrate camera`` does (9x6 inner corners, 25 mm squares); write the calibration
    into ``folder`` and return its path. The readers need it to know where the camera
    is, and so how the pieces lean."""
    from calibration.camera import calibrate, make_pattern
    from vision.render.series import render_series

    folder.mkdir(parents=True, exist_ok=True)
    photos = []
    for index, rendered in enumerate(
        render_series("gimmel", seed, CARD_PHOTOS, "calibration", table=render_table)
    ):
        image = cv2.imdecode(np.frombuffer(rendered.jpeg, np.uint8), cv2.IMREAD_COLOR)
        photos.append((f"card-{index + 1:02d}.jpg", image))
    path = folder / "camera.json"
    calibrate(photos, make_pattern("9x6", 25.0)).save(path)
    return path


#: Photos of the set-up the demo's profile is learnt from, as docs/calibration.md
#: advises (each adds examples of every kind, standing another way).
SETUP_PHOTOS = 5


def learn_profile(
    folder: Path, render_table: Any, rng: np.random.Generator, camera: Path | None = None
) -> Path:
    """Take the board photos with the demo table's camera (the empty board, then the
    set-up :data:`SETUP_PHOTOS` times, its pieces placed anew each time) and learn its
    appearance profile, as ``companion calibrate board`` does (with the camera's
    calibration file, when given); write photos and profile into ``folder`` and return
    the profile's path."""
    from calibration.profiles import learn, load_setup
    from vision.render.frame import FrameOptions, render_frame
    from vision.render.live import LIVE_EFFECTS

    setup = load_setup("gimmel")
    folder.mkdir(parents=True, exist_ok=True)
    photos = []
    shots = [("empty", {}), ("setup", setup.pieces)]
    shots += [(f"setup{k}", setup.pieces) for k in range(2, SETUP_PHOTOS + 1)]
    for name, position in shots:
        options = FrameOptions(camera="fixed", effects=LIVE_EFFECTS)
        rendered = render_frame(render_table, position, rng, options=options, hand=False)
        path = folder / f"board-{name}.jpg"
        path.write_bytes(rendered.jpeg)
        photos.append((path.name, cv2.imread(str(path), cv2.IMREAD_COLOR)))
    intrinsics = None
    if camera is not None:
        from calibration.camera import CameraCalibration

        intrinsics = CameraCalibration.load(camera).to_json()
    profile = learn(photos[0], photos[1], render_table.sheet, setup, camera=intrinsics,
                    more_setups=photos[2:])  # fmt: skip
    path = folder / "gimmel-profile.json"
    profile.save(path)
    return path


class CameraTable:
    """The demo's Gimmel table with its simulated camera, and the bots and people who
    move its pieces by hand (see the module's words). ``live`` is the rendered table,
    ``source`` the table's camera reading it; :meth:`build` makes both."""

    def __init__(
        self,
        table: Table,
        live: Any,
        source: Any,
        *,
        rng: random.Random,
        humans: set[int] | frozenset[int] = frozenset(),
    ) -> None:
        self.table, self.live, self.source, self.rng, self.humans = table, live, source, rng, humans
        self.expected: Expected | None = None
        #: Re-seats done for a flag or question with no move of a bot behind it.
        self.tries = 0
        #: The table's journal sequence number when the board last showed what it holds.
        self.agreed = table.seq

    @classmethod
    def build(
        cls,
        table: Table,
        folder: Path,
        *,
        rng: random.Random,
        stop: threading.Event,
        humans: set[int] | frozenset[int] = frozenset(),
        fps: float = FPS,
        clock: Callable[[], float] = time.monotonic,
    ) -> CameraTable:
        """Set the camera up as a user would (the board's photos, the profile learnt in
        ``folder``), stand the pieces the table holds on the rendered table, and give
        the table its camera."""
        from vision.render.live import LiveTable, open_live
        from vision.render.series import series_table
        from vision.render.truth import position_of

        render_table = series_table("gimmel", TABLE_SEED)
        world = np.random.default_rng(rng.getrandbits(64))
        camera = calibrate_camera(folder, render_table, TABLE_SEED)
        profile = learn_profile(folder, render_table, world, camera)
        with table.lock:
            standing = position_of(table.state) if table.game.name == "gimmel" else {}
        live = LiveTable(render_table, standing, world)

        def open_frames(spec: str) -> Any:
            return open_live(live, fps=fps, spec=spec, clock=clock)

        source = CameraSource(table, CameraConfig(SPEC, str(profile), str(camera)), stop=stop,
                              open_frames=open_frames, clock=clock, confirm=CONFIRM,
                              tolerance=TOLERANCE, margin=MARGIN)  # fmt: skip
        return cls(table, live, source, rng=rng, humans=humans)

    def start(self) -> None:
        self.source.start()

    # -- a step of the bots and the people -------------------------------------------

    def step(self, person: bool = False) -> bool:
        """One step of the people at the table, every ``pace`` seconds; ``person``: a
        person is using the tablet, so the bots wait (a change made there is still set
        on the board at once: the person moves the piece as they tap). Returns False
        when the demo's usual step should be taken instead (the colour lot, a finished
        game, another game than Gimmel, which no camera reads here)."""
        from vision.render.truth import position_of

        table = self.table
        with table.lock:
            game, state, attention = table.game, table.state, table.attention
        if game.name != "gimmel":
            return False
        if self.live.busy or self.source.claimed is None:
            return True  # a hand is over the board, or the camera has not looked yet
        if self.expected is not None:
            if not person:
                self._follow(state, attention)
            return True
        if attention is not None:
            if attention.get("source") == "camera" and not person:
                self._put_right(attention)
            return True  # a person's flag or question: people look at the tablet
        self.tries = 0
        if self.live.position != position_of(state):
            if self._by_camera(self.agreed):
                if not person:
                    # The camera took a move nobody made (a misread): a person takes it
                    # back on the tablet.
                    log.info("demo camera: a move nobody made taken back on the tablet")
                    with contextlib.suppress(ValueError):
                        self.table.undo()
                    self.agreed = self.table.seq
            else:
                self.live.move_to(position_of(state))  # a tablet changed it: set the board so
            return True
        self.agreed = self.table.seq
        if person:
            return True
        actor = game.to_act(state)
        if actor is CHANCE or game.is_over(state):
            return False
        if actor in self.humans:
            return True  # a person plays this seat: the tablet brings the move
        from rules.playout import choose_move

        move = choose_move(game, state, self.rng)
        after = position_of(game.play(state, move))
        if after == position_of(state):
            self._enter(move)  # a pass, a draw claimed: nothing on the board to see
            return True
        now = position_of(state)
        moved = tuple(
            sorted(name for name in set(now) | set(after) if now.get(name) != after.get(name))
        )
        self.expected = Expected(move, state, after, self.live.frames, seq=table.seq, moved=moved)
        self.live.move_to(after)
        return True

    def _follow(self, state: Any, attention: dict[str, Any] | None) -> None:
        """A bot's move is on the board: has the camera reported it?"""
        from vision.render.truth import position_of

        expected = self.expected
        assert expected is not None
        game = self.table.game
        if state is not expected.before:
            self.expected = None
            if position_of(state) == expected.position:
                return  # seen and played: the camera's move
            if self._by_camera(expected.seq):
                # The camera took another move than the one made (or took it back): put
                # it right on the tablet, as a person would.
                log.info("demo camera: %s not what the camera took; entered on the tablet",
                         game.move_text(expected.move))  # fmt: skip
                with contextlib.suppress(ValueError):
                    if position_of(self.table.state) != position_of(expected.before):
                        self.table.undo()
                    if position_of(self.table.state) == position_of(expected.before):
                        self._enter(expected.move)
            return  # else a person changed the table meanwhile: the next step sets the board
        options = self.live.options
        gesture = len(options.approach) + options.hold + len(options.retreat)
        flagged = attention is not None and attention.get("source") == "camera"
        if self.live.frames - expected.frame < gesture + PATIENCE and not flagged:
            return  # give the camera its frames
        if expected.reseats < RESEATS:
            expected.reseats += 1
            expected.frame = self.live.frames
            self.live.reseat(self._misread(expected.position, expected.moved))
            return
        # Re-seating did not do: tell the companion on the tablet what happened.
        self.expected = None
        log.info("demo camera: %s entered on the tablet", game.move_text(expected.move))
        with contextlib.suppress(ValueError):
            if self.table.attention is not None:
                self.table.dismiss()
            self._enter(expected.move)

    def _put_right(self, attention: dict[str, Any]) -> None:
        """The camera flagged a change or asked a question with no bot's move behind it
        (a misread after a passing hand): re-seat what it shows wrongly, then dismiss."""
        if self.tries < RESEATS:
            self.tries += 1
            self.live.reseat(self._misread(self.live.position))
            return
        self.tries = 0
        with contextlib.suppress(ValueError):
            self.table.dismiss()

    def _misread(self, position: dict[str, str], moved: tuple[str, ...] = ()) -> list[str]:
        """The pieces of ``position`` on the squares the camera last read wrongly and on
        ``moved``: a person re-seats what the camera's view shows wrong, and what they
        have just moved."""
        reading = self.source.last_reading
        squares = set(moved)
        if reading is not None:
            squares |= {name for name, label in reading.squares.items()
                        if label != "unknown" and label != position.get(name, "empty")}  # fmt: skip
        return sorted(name for name in squares if name in position)

    def _by_camera(self, since: int) -> bool:
        """Whether the camera, and only the camera, changed the table's game since the
        journal's entry ``since``: its claims, a move or take-back among them."""
        changed = False
        previous = None
        for entry in self.table.journal.entries(self.table.game_id, since=since):
            source = entry.data.get("source") if isinstance(entry.data, dict) else None
            if entry.kind == "move":
                if (
                    previous is None
                    or previous.kind != "input"
                    or previous.data.get("source") != "camera"
                ):
                    return False  # a move entered on a tablet
                changed = True
            elif entry.kind in ("input", "flag", "undo") and source == "camera":
                changed = changed or entry.kind == "undo"
            else:
                return False  # a tablet's change, a new game, a dismissal
            previous = entry
        return changed

    def _enter(self, move: Any) -> None:
        """Enter a move as at the other demo tables (an illegal one is flagged)."""
        with contextlib.suppress(IllegalMove, ValueError):
            self.table.play(self.table.game.move_to_json(move), source="bot")
