"""A table's camera: frames become position claims once the board is still.

Each frame is registered from the board's markers (a bumped board or camera is found
again in the next frame) and seen square-on. A motion gate (``vision.motion``) waits while
anything moves over the board (a hand) and until the picture has been still for a few
frames; only then is the board read (``vision.readers``), and only a reading that differs
from the last one the table accepted, and that the next still frame confirms (its
reading means the same to the rules), becomes a claim: "the board shows this". A still
scene's latest frames are averaged, and its latest readings are read together
(``gimmel.vote``: each square what they say most, weighed by how sure each was); a
question the next still frame settles (one of its moves, surely) is answered, whether
it was asked on the tablet yet or not. A still scene's first frame is read again with
the squares its reading has otherwise than the board last agreed to fitted
(``gimmel.read``'s ``fit_also``), as the next frames are read. The tracker asks the
rules what explains it: one move (played), a take-back, nothing (the table is as it
was), several moves (asked on the tablet), or none (flagged and held until the table is
put right). A misread never blocks the game: the next still frames
are read again, and what the rules allow is preferred.

Like the serial devices (``companion.sources``), a camera reports its health: the frame
source's, whether the board is in view, and the last reading, which the tablet can show.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from companion.tables import Table
from companion.tracker import Claim, Verdict

log = logging.getLogger(__name__)

#: The square-on picture the motion gate compares: coarse, so that it costs little.
MOTION_PX_PER_MM = 0.5
#: How far the explanation taken may disagree with a reading (``tracker.Claim.tolerance``):
#: doubtful misreads, never a square read surely otherwise (a piece that surely stands
#: where the explanation has none is another board, not a misread).
TOLERANCE = 0.75
#: How much less the explanation taken must disagree with a reading than the next
#: (``tracker.Claim.margin``). A piece set down differs from another kind set down there
#: on that square alone, by the reader's margin of the kind read over that kind
#: (``gimmel.Observation.margins``: relative to that kind's distance); 0.7 means that
#: kind is more than three times as far. Nearer than that, the tablet asks which piece it
#: was. At 0.5 (twice as far), ``benchmarks/gimmel_table.py --games 20 --plies 30``
#: committed 1 wrong piece of 600 moves and asked 10 times; at 0.7, none wrong and 61
#: asked. Weighed by the margin over the kind the rules would have there rather than
#: over the nearest class (often the other colour, which the mover cannot set down),
#: ``--games 20``: 796 of 800 committed, none wrong, 4 asked (770, none wrong, 30 asked
#: before). Still 0.7 with the reader of late 2026: on the reader benchmark's frames of
#: seeds 1-882, read as a table reads (``gimmel.MOUNTED``; a throwaway script), of the
#: 13,765 pieces read in their right colour, 241 of the right kind had a margin under 0.7
#: over the colour's other kinds and 1 of a wrong kind 0.7 or more (0.80); at 0.6, 120
#: and 3. A table's late commits were such margins (0.68 in rendered games 51 and 58).
#: Between a cat and a falcon, which the reader seldom takes for each other, a margin
#: weighs 1.4 times (``gimmel.KINDS_APART``), so 0.5 suffices there: all 100 games of
#: ``benchmarks/gimmel_table.py`` (with ``ReaderSettings.side_light_below`` too), 3990
#: of 4000 committed correctly against 3989, none falsely, 10 asked against 11, and 4
#: commits 0.5 s or more after the hand left against 6, the latest 0.8 s against 1.5 s
#: (counted in whole frames: said as 3 and 5 at first, a delay of five frames of 0.1 s
#: summed to 0.49999999999997 s).
MARGIN = 0.7


#: How many squares read surely otherwise than the table has them (a piece where there
#: is none or another piece: a shadow's edge, a neighbour's top) a still board may have
#: and still be agreed to once the table moved on without the camera (``learn``).
MISREAD_KEPT = 2

#: How many of a still scene's latest frames are read together (``gimmel.vote``).
VOTED = 5
#: How many of a still scene's latest frames are averaged, pixel by pixel, into the
#: picture that is read: a still board's pixels differ between frames by the sensor's
#: noise alone, and a reader's confidence in a piece it reads right wanders with it
#: (0.55 to 0.76 on one piece, on frames of the rendered table a tenth of a second
#: apart), so a table asked, then took the move when the confidence happened to rise.
#: ``benchmarks/gimmel_table.py --games 8``: the latest commit 0.9 s after the hand left,
#: against 2.2 s reading each frame alone; 306 of 320 moves right, none false and 14
#: asked either way.
AVERAGED = 5


def agrees(before: Verdict, latest: Verdict) -> bool:
    """Whether a still frame's verdict confirms the one before: the same, or a move the
    one before asked about (the earlier frame could not tell it from another; this one
    can, and nothing contradicts it)."""
    if before == latest:
        return True
    return before.kind == "question" and latest.kind == "move" and latest.move in before.choices


@dataclass(frozen=True)
class CameraConfig:
    """A table's camera: the frame source's spec, the appearance profile, and optionally
    the camera calibration and a marker sheet (the game's shipped one by default)."""

    source: str
    profile: str
    calibration: str | None = None
    sheet: str | None = None


class CameraSource:
    """Reads a table's board from its camera and makes claims for its tracker."""

    def __init__(
        self,
        table: Table,
        config: CameraConfig,
        *,
        stop: threading.Event,
        open_frames: Callable[[str], Any] | None = None,
        clock: Callable[[], float] = time.monotonic,
        confirm: int = 2,
        tolerance: float | None = None,
        margin: float | None = None,
        averaged: int | None = None,
    ) -> None:
        from calibration.camera import CameraCalibration
        from calibration.profiles import Profile
        from calibration.sheet import load_sheet
        from vision.motion import MotionGate
        from vision.readers import gimmel
        from vision.still import StillMean

        game = table.config.game
        readers = {
            "gimmel": (
                gimmel.read,
                gimmel.shows,
                gimmel.mismatch,
                gimmel.teach,
                gimmel.prepare,
                gimmel.vote,
                gimmel.most_of_each,
                gimmel.disagreements,
                gimmel.MOUNTED,
            )
        }
        if game not in readers:
            raise ValueError(f"table {table.config.id!r}: no camera reader for {game} yet")
        (self.read, self.shows, self.mismatch, self.teach, prepare, self.vote,
         self.most_of_each, self.disagreements, self.settings) = readers[game]  # fmt: skip
        self.table, self.config, self.stop, self.clock = table, config, stop, clock
        self.sheet = load_sheet(game, config.sheet)
        self.profile = Profile.load(config.profile, game=game, sheet=self.sheet.name)
        # The first frame reads as fast as the others.
        prepare(self.profile, self.settings, sheet=self.sheet)
        self.camera = (
            CameraCalibration.load(config.calibration).to_json() if config.calibration else None
        )
        if open_frames is None:
            from vision.sources import open_source as open_frames
        self.open_frames = open_frames
        self.gate = MotionGate()
        self.confirm = confirm
        #: How far the nearest explanation of a reading may disagree with it, and by how
        #: much less than the next (``tracker.Claim``; its defaults when None).
        self.tolerance = TOLERANCE if tolerance is None else tolerance
        self.margin = MARGIN if margin is None else margin
        #: What the rules made of the still scene's readings awaiting confirmation: per
        #: reading, the state it was explained against and the verdict.
        self.pending: list[tuple[Any, Verdict]] = []
        #: The still scene's readings, the last ``VOTED`` of which are voted on.
        self.still: list[Any] = []
        #: The still scene's latest frames, read as their mean.
        self.mean = StillMean(AVERAGED if averaged is None else averaged)
        #: The reading the table last agreed to, and its state then: what changed since
        #: is the evidence for a move (a square misread the same way before and after is
        #: none).
        self.agreed: tuple[dict[str, str], Any] | None = None
        self.registration: Any = None  # the last frame's, where its markers are looked for
        self.claimed: dict[str, str] | None = None  # the reading last claimed
        self.claimed_verdict: Verdict | None = None  # and what the rules made of it
        self.taught: set[tuple[str, str]] = set()  # (square, piece) the reader was taught
        self.last_reading: Any = None
        #: ``taught``: how many pieces, misread or read unsurely, the table has taught the
        #: reader (in memory, from boards it agreed to: ``learn``).
        self.state: dict[str, Any] = {"source": config.source, "up": False, "board": None,
                                      "problem": None, "frames": 0, "taught": 0}  # fmt: skip
        self.frames: Any = None
        self.seen: tuple[np.ndarray, Any] | None = None  # the last frame read and its pose
        table.sources["camera"] = self.health
        table.camera = self

    def health(self) -> dict[str, Any]:
        found = dict(self.state)
        if self.frames is not None:
            found["frames_health"] = self.frames.health()
        return found

    def start(self) -> None:
        threading.Thread(target=self._run, name="camera", daemon=True).start()

    def _run(self) -> None:
        from vision.frame import EndOfSource, NoFrame

        try:
            self.frames = self.open_frames(self.config.source)
        except ValueError as error:
            self.state.update(up=False, problem=str(error))
            self.table.on_change()
            return
        with self.frames:
            while not self.stop.is_set():
                try:
                    frame = self.frames.latest(timeout=1.0)
                except NoFrame:
                    self.state.update(up=False)
                    continue
                except EndOfSource:
                    self.state.update(up=False, problem="the frames ended")
                    break
                self.state.update(up=True)
                try:
                    self.step(frame.image, frame.captured)
                except Exception as error:  # a bug or a full disk: keep watching, say it
                    log.exception("table %s: a camera frame was not taken", self.table.config.id)
                    self.state.update(problem=f"a frame was not taken: {error}")
        self.table.on_change()

    def step(self, image: np.ndarray, at: float) -> Verdict | None:
        """One frame. Returns the tracker's verdict when a reading was claimed."""
        from calibration.board_plane import rectify
        from calibration.registration import BoardNotVisible

        self.state["frames"] += 1
        game = self.table.game
        if game.name != self.table.config.game:
            # A tablet started another game at this table: this camera cannot read it.
            if self.state["board"] != "another game":
                problem = f"the table plays {game.title}; the camera reads {self.table.config.game}"
                self.state.update(board="another game", problem=problem)
                self.table.on_change()
            return None
        try:
            registration = self.read_registration(image)
        except BoardNotVisible as error:
            if self.state["board"] != "not visible":
                self.state.update(board="not visible", problem=str(error))
                self.table.on_change()
            return None
        if self.state["board"] != "found":
            self.state.update(board="found", problem=None)
            self.table.on_change()
        picture = rectify(image, registration, MOTION_PX_PER_MM, 0.0)
        gate = self.gate.feed(picture, at)
        if gate.moving:
            self.pending.clear()  # a hand: what was read before it proves nothing
            self._forget_still()
            return None
        # Still, if not yet for long enough to read: the frames the gate waits through
        # show the scene that will be read, so they count toward its mean, and the first
        # reading is of several frames (read on one frame alone, a piece read 0.68 over
        # another kind was asked about, then taken when a later mean read 0.72). Nothing
        # is pending then: the frame that last moved cleared it.
        picture = self.mean.add(image)
        if not gate.settled:
            return None

        def read_fitted(squares: frozenset[str]) -> Any:
            return self.read(picture, self.sheet, self.profile, registration=registration,
                             settings=self.settings, fit_also=squares)  # fmt: skip

        try:
            read = read_fitted(self.in_question())
            if not self.still:
                # A still scene's first frame: the squares it reads otherwise than the
                # board agreed to are what a move hangs on, read again fitted, so that
                # the first reading is as sure as the next (a white piece set down on a
                # light square, whose blob alone says only "maybe something", is not
                # asked about and then confirmed a frame later).
                changed = self.in_question(read)
                if changed:
                    read = read_fitted(changed)
        except ValueError as error:  # the light too dark or blown out
            self.state.update(problem=str(error))
            return None
        # The still scene's frames read together: a doubtful square read one way, then
        # another, is what the frames say most, not what the last one said.
        self.still = [*self.still[-(VOTED - 1) :], read] if VOTED > 1 else [read]
        # Kept to the rules' count of pieces once voted (``gimmel.vote``), not frame by
        # frame: each frame might read another square otherwise.
        reading = self.vote(self.still, self.most_of_each(self.table.state))
        self.last_reading, self.seen = reading, (image, registration)
        squares = reading.squares
        held = (self.table.attention or {}).get("source") == "camera"
        state = self.table.state
        # The table moved on without the camera: a person entered a move, answered the
        # table's question or took one back. A still board that shows it now is agreed,
        # and teaches the reader the pieces it misread.
        moved_on = self.agreed is not None and not held and state is not self.agreed[1]
        if moved_on and self.learn(reading, state):
            self.pending.clear()
            self._forget_still()  # agreed: the next frames are read afresh
            self.gate.accept()
            return None
        if self.agreed is not None and squares == self.agreed[0] and not held:
            self._forget_still()  # as agreed: what changes next is read afresh
            self.gate.accept()
            return None
        since = self.agreed
        claim = Claim("camera", seen=reading.to_json(),
                      matches=lambda state: self.shows(reading, state, since),
                      mismatch=lambda state: self.mismatch(reading, state, since),
                      tolerance=self.tolerance, margin=self.margin)  # fmt: skip
        state, expected = self.table.explain(claim)
        self.pending.append((state, expected))
        recent = self.pending[-self.confirm :]
        # Confirmed when the last still frames mean the same to the rules (the same
        # move, the same question), or the last settles the question the one before
        # asked (one of its moves, now surely): a doubtful square read one way, then
        # another, that the explanation does not hang on, does not hold the move back.
        if len(recent) < self.confirm or any(
            then is not state or not agrees(verdict, expected) for then, verdict in recent
        ):
            return None  # one still frame is not enough: the next must say the same
        # A question stays pending, asked or not: the next still frame that reads one of
        # its moves surely answers it (``agrees``), as it would have before it was asked.
        self.pending = self.pending[-1:] if expected.kind == "question" else []
        if self.claimed_verdict == expected and (squares == self.claimed or held):
            # Already said; the table holds its flag or question. The same squares read
            # more surely may say more (the move it asked about): that is claimed.
            return None
        self.claimed, self.claimed_verdict = squares, expected
        verdict = self.table.claim(claim)
        if verdict is not None and verdict.kind in ("move", "take-back", "unchanged"):
            with self.table.lock:
                state = self.table.state
            self.agreed = (squares, state)
            self.learn(reading, state)
            self._forget_still()  # agreed: the next frames are read afresh
            self.gate.accept()
        return verdict

    def in_question(self, reading: Any = None) -> frozenset[str]:
        """The squares ``reading`` (by default the still scene's latest) has otherwise
        than the reading the table last agreed to: whether a move was made hangs on them,
        so the reader fits a piece's shape there to say how surely one stands there
        (``gimmel.read``'s ``fit_also``: a white piece on a light square is little unlike
        the board), which costs too much for every square of every frame."""
        if reading is None:
            reading = self.still[-1] if self.still else None
        if reading is None or self.agreed is None:
            return frozenset()
        then = self.agreed[0]
        return frozenset(name for name, label in reading.squares.items()
                         if label != then.get(name))  # fmt: skip

    def _forget_still(self) -> None:
        """What was read of the still scene proves nothing now (a hand came, or the table
        agreed to it): the next frames are read afresh."""
        self.still.clear()
        self.mean.clear()

    def learn(self, reading: Any, state: Any) -> bool:
        """Take ``state`` as what ``reading`` shows, if it does but for which kind some
        pieces are: those pieces' looks teach the reader (``gimmel.teach``), and the
        reading becomes the one the table agreed to. Agreed too, teaching nothing, when it
        misses no piece ``state`` has (but doubtfully) and differs otherwise only by
        doubtful misreads (read less surely than the tolerance) or by at most
        ``MISREAD_KEPT`` pieces read where there is none or another piece: a misread
        the reader keeps making (a neighbour's shadow or leaning top read as a piece)
        would otherwise count against every later move, which a person would then enter
        on the tablet one by one; judged from it, what changes next is seen. False when
        the board does not show ``state`` (a person entered a move not made yet: a piece
        missing, say)."""
        taught = self.teach(self.profile, reading, state, unsure=self.margin, taught=self.taught)
        if taught is None:
            differing = self.disagreements(reading, state)
            sure = [name for name, (_, _, how) in differing.items() if how >= self.tolerance]
            missing = [name for name in sure if differing[name][0] == "empty"]
            if missing or len(sure) > MISREAD_KEPT:
                return False
            self.agreed = (reading.squares, state)
            log.info("table %s: the camera agreed to the board, misread on %s",
                     self.table.config.id, ", ".join(sorted(differing)))  # fmt: skip
            return True
        self.agreed = (reading.squares, state)
        if taught:
            self.state["taught"] += len(taught)
            log.info("table %s: the camera learnt the pieces on %s",
                     self.table.config.id, ", ".join(taught))  # fmt: skip
        return True

    def view(self, px_per_mm: float = 2.0) -> np.ndarray | None:
        """The last frame read, square-on, each square outlined and labelled with what was
        read there (red: unknown), for the tablet: the board as the camera understands it."""
        import cv2

        from calibration.board_plane import cell_boxes, draw_grid, rectify
        from calibration.profiles import square_cell

        if self.seen is None or self.last_reading is None:
            return None
        image, registration = self.seen
        picture = draw_grid(rectify(image, registration, px_per_mm, 5.0), self.sheet,
                            px_per_mm, 5.0, colour=(80, 200, 80))  # fmt: skip
        boxes = cell_boxes(self.sheet, px_per_mm, 5.0)
        for name, label in self.last_reading.squares.items():
            if label == "empty":
                continue
            x0, y0, x1, y1 = (int(v) for v in boxes[square_cell(self.sheet, name)])
            short = "?" if label == "unknown" else "".join(w[0] for w in label.split()).upper()
            ink = (40, 40, 230) if label == "unknown" else (230, 120, 20)
            cv2.rectangle(picture, (x0 + 2, y0 + 2), (x1 - 2, y1 - 2), ink, 2)
            cv2.putText(picture, short, (x0 + 5, y1 - 6), cv2.FONT_HERSHEY_SIMPLEX, 0.5, ink, 2)
        return picture

    def read_registration(self, image: np.ndarray):
        """The frame's registration; the markers are looked for first where the last
        frame had them (a mounted camera's board stays put)."""
        from calibration.registration import register

        self.registration = register(
            image, self.sheet, camera=self.camera, previous=self.registration
        )
        return self.registration
