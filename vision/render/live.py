"""A live camera over a rendered table: the demo's simulated camera.

A :class:`LiveTable` is one table set-up (``vision.render.table``) as it stands in front
of a camera mounted over it: the pieces stay where they were set down, frame after
frame, and only what really happens changes the picture. A move is a *gesture*: a hand
comes in from a player's side over a few frames, the pieces change while it is over the
board, and it goes again; now and then a hand passes over without changing anything.
Between gestures the frames of the still board differ only by the sensor's noise and
the auto-exposure's slight wander, as a webcam's do.

:class:`SimulatedCamera` films it at a frame rate: it has the three methods of OpenCV's
``VideoCapture`` that a live source uses (``read``, ``isOpened``, ``release``), so
:func:`open_live` hands it to the same ``vision.sources.LiveSource`` as a USB camera's
capture: the newest frame kept, frames dropped when the reader is slower, health
reported. Everything above it reads the frames exactly as a real camera's.

The camera stands still (``FrameOptions.camera == "fixed"``: mounted, not bumped), and
its effects are drawn once, from milder ranges than the test bed's (no motion blur, no
exposure jumps): a good webcam on a stand. Randomness comes from the generator passed
in, split into independent streams (where pieces stand, the hands, the camera's
settings, the noise, the passing hands); time comes from the clock passed in.

Rendering is cached: the table, board and pieces are drawn once per position, and the
lens, blur and light once more; a still frame costs only its noise and its JPEG, a frame
with a hand its own drawing and developing.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.render import hands
from vision.render.camera import lens
from vision.render.degrade import EffectRanges, add_noise, blur, expose, jpeg, random_effects
from vision.render.frame import VIGNETTING, Rendered, add_hand, board_planes, compose
from vision.render.light import light_field
from vision.render.scene import PlacedPiece, place_pieces, square_centre
from vision.render.table import Table
from vision.sources import LiveSource

#: A good webcam on a stand: slight defocus, modest noise, MJPG at a good quality; no
#: motion blur and no exposure jumps (a mounted camera does not shake).
LIVE_EFFECTS = EffectRanges(
    exposure_drift=0.0,
    exposure_jump=0.0,
    defocus_px=(0.4, 0.8),
    motion_chance=0.0,
    read_noise=(0.8, 1.6),
    shot_noise=(0.01, 0.03),
    chroma_noise=(0.2, 0.4),
    jpeg_quality=(80, 90),
)


@dataclass(frozen=True)
class LiveOptions:
    """How the live table behaves. ``effects``: the ranges the camera's settings are
    drawn from, once. ``exposure_wander``: the auto-exposure's change from frame to
    frame (a share of the light, up and down). A gesture: the hand ``approach`` (mm
    short of its goal, frame by frame, as it comes in), ``hold`` frames at its goal (the
    pieces change after the first), and ``retreat`` (mm back, frame by frame, as it
    goes). ``passing_chance``: per frame of a still board, the chance that a hand
    passes over without changing anything."""

    effects: EffectRanges = field(default_factory=lambda: LIVE_EFFECTS)
    exposure_wander: float = 0.01
    approach: tuple[float, ...] = (520.0, 260.0, 90.0)
    hold: int = 2
    retreat: tuple[float, ...] = (140.0, 360.0, 700.0)
    passing_chance: float = 0.02


@dataclass
class Gesture:
    """A hand over the board, frame by frame (None: no hand could be found that enters
    from the frame's edge; the change then happens unseen, between two frames), and the
    position it leaves (None: it changes nothing; ``reseat``: the squares whose pieces
    it lifts and sets down again)."""

    frames: list[hands.Hand | None]
    change_at: int
    position: dict[str, str] | None = None
    reseat: tuple[str, ...] = ()


class LiveTable:
    """The physical table in front of the camera (see the module's words)."""

    def __init__(
        self,
        table: Table,
        position: Mapping[str, str],
        rng: np.random.Generator,
        options: LiveOptions | None = None,
    ) -> None:
        self.table = table
        self.options = options or LiveOptions()
        self.pose = table.pose  # mounted: the set-up's pose exactly
        placing, hand_rng, effect_rng, noise_rng, passing_rng = rng.spawn(5)
        self._placing, self._hands, self._noise, self._passing = (
            placing,
            hand_rng,
            noise_rng,
            passing_rng,
        )
        self.effects = dataclasses.replace(
            random_effects(effect_rng, self.options.effects), exposure=1.0
        )
        self._lock = threading.Lock()
        self._placed: dict[str, PlacedPiece] = {}
        self._words: dict[str, str] = {}
        self._queue: deque[Gesture] = deque()
        self._current: Gesture | None = None
        self._step = 0
        self._still: tuple[np.ndarray, np.ndarray] | None = None  # canvas, lit frame
        self._light: np.ndarray | None = None
        self.frames = 0
        self._set(dict(position))

    # -- what stands on the board ----------------------------------------------------

    @property
    def position(self) -> dict[str, str]:
        """What stands on the board now (``{"c8": "white falcon", ...}``)."""
        with self._lock:
            return dict(self._words)

    @property
    def busy(self) -> bool:
        """Whether a hand is over the board or about to come."""
        with self._lock:
            return self._current is not None or bool(self._queue)

    def move_to(self, position: Mapping[str, str]) -> None:
        """A person changes the board to ``position`` by hand (one gesture, after those
        already under way): the hand reaches for the squares that change."""
        wanted = dict(position)
        with self._lock:
            before = self._queue[-1].position if self._queue else None
            before = self._words if before is None else before
            changed = sorted(
                set(before) ^ set(wanted)
                | {name for name in set(before) & set(wanted) if before[name] != wanted[name]}
            )
            goals = [name for name in changed if name in wanted] or changed
            self._queue.append(self._gesture(goals, position=wanted))

    def reseat(self, squares: list[str] | tuple[str, ...]) -> None:
        """A person lifts the pieces on ``squares`` and sets them down again (a little
        differently: a piece read wrongly may read rightly now)."""
        with self._lock:
            self._queue.append(self._gesture(list(squares), reseat=tuple(squares)))

    def pass_hand(self) -> None:
        """A hand passes over the board and changes nothing."""
        with self._lock:
            self._queue.append(self._gesture([]))

    # -- frames ----------------------------------------------------------------------

    def frame(self) -> Rendered:
        """The next frame the camera takes: the gesture under way goes on by a frame."""
        with self._lock:
            hand = self._advance()
            if self._still is None:
                self._still = self._draw_still()
            canvas, lit = self._still
            if hand is not None:
                canvas = canvas.copy()
                add_hand(canvas, self.table, self.pose, hand)
                lit = self._develop(canvas)
            wander = self.options.exposure_wander
            gain = 1.0 + float(self._noise.uniform(-wander, wander))
            image = add_noise(cv2.multiply(lit, gain ** (1 / 2.2)), self.effects, self._noise)
            data, decoded = jpeg(image, self.effects.jpeg_quality)
            self.frames += 1
            truth = {
                "kind": "live",
                "frame": self.frames,
                "position": dict(self._words),
                "hand": None if hand is None else hand.to_json(),
            }
        return Rendered(decoded, data, truth)

    # -- inside, under the lock ------------------------------------------------------

    def _set(self, position: dict[str, str], fresh: tuple[str, ...] = ()) -> None:
        """Stand the pieces of ``position``: those already standing stay where they are,
        new ones (and those in ``fresh``) are set down anew."""
        keep = {name: placed for name, placed in self._placed.items()
                if position.get(name) == self._words.get(name) and name not in fresh}  # fmt: skip
        new = {name: words for name, words in position.items() if name not in keep}
        for placed in place_pieces(new, self.table.sheet, self._placing, self.table.materials):
            keep[placed.square] = placed
        self._placed, self._words = keep, dict(position)
        self._still = None

    def _advance(self) -> hands.Hand | None:
        """The hand of this frame, the gesture under way taken a frame further (its
        change made at its moment); a passing hand may start on a still board."""
        if self._current is None:
            if not self._queue and self._passing.random() < self.options.passing_chance:
                self._queue.append(self._gesture([]))
            if not self._queue:
                return None
            self._current, self._step = self._queue.popleft(), 0
        gesture = self._current
        if self._step == gesture.change_at:
            if gesture.position is not None:
                self._set(gesture.position)
            elif gesture.reseat:
                self._set(self._words, fresh=gesture.reseat)
        hand = gesture.frames[self._step]
        self._step += 1
        if self._step >= len(gesture.frames):
            self._current = None
        return hand

    def _gesture(
        self,
        goals: list[str],
        *,
        position: dict[str, str] | None = None,
        reseat: tuple[str, ...] = (),
    ) -> Gesture:
        """A hand reaching for the middle of ``goals`` (squares; a random square when
        none), coming in and going again along its arm."""
        sheet = self.table.sheet
        if goals:
            goal = np.mean([square_centre(sheet, name) for name in goals], axis=0)
        else:
            grid = sheet.grid
            goal = np.array(
                [self._hands.uniform(0, grid.width_mm), self._hands.uniform(0, grid.height_mm)]
            )
        hand = self._hand_toward(goal)
        options = self.options
        reach = [*options.approach, *([0.0] * options.hold), *options.retreat]
        frames: list[hands.Hand | None] = []
        for back in reach:
            frames.append(
                None
                if hand is None
                else dataclasses.replace(hand, tip=hand.tip + back * hand.direction)
            )
        return Gesture(frames, len(options.approach) + 1, position, reseat)

    def _hand_toward(self, goal: np.ndarray) -> hands.Hand | None:
        """A hand over ``goal`` (board mm) that enters from the frame's edge (a few
        tries), as ``vision.render.frame.choose_hand`` finds one."""
        lens_ = lens(self.table.intrinsics)
        matrix = lens_.canvas_matrix()
        centre = self.pose.centre
        middle = self.table.centre()
        camera_side = math.atan2(centre[1] - middle[1], centre[0] - middle[0])
        for _ in range(6):
            hand = hands.random_hand(self._hands, goal[None, :], camera_side)
            mask = hands.silhouette(hand, self.pose, matrix, lens_.canvas_size)
            if hands.reaches_edge(mask, lens_.border):
                return hand
        return None

    def _draw_still(self) -> tuple[np.ndarray, np.ndarray]:
        """The board as it stands: the canvas (table, board, pieces) and the frame
        developed from it before the noise."""
        pieces = list(self._placed.values())
        canvas = compose(self.table, self.pose, board_planes(self.table), pieces, None).canvas
        return canvas, self._develop(canvas)

    def _develop(self, canvas: np.ndarray) -> np.ndarray:
        """The canvas through the lens, the optics' blur and the light: the lit frame
        (float32) the sensor's noise is added to."""
        lens_ = lens(self.table.intrinsics)
        if self._light is None:
            self._light = light_field(lens_, self.pose, self.table.lamp, self.table.centre(),
                                      self.effects.exposure, VIGNETTING)  # fmt: skip
        return expose(blur(lens_.to_frame(canvas), self.effects), self._light)


class SimulatedCamera:
    """A camera filming a :class:`LiveTable` at ``fps`` frames a second, with the
    methods of OpenCV's ``VideoCapture`` that ``vision.sources.LiveSource`` uses.
    ``clock`` and ``sleep`` pace it (the real ones by default)."""

    def __init__(
        self,
        live: LiveTable,
        fps: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Any] = time.sleep,
    ) -> None:
        if not fps > 0:
            raise ValueError(f"fps: expected a rate above 0 (got {fps!r})")
        self.live, self.period, self.clock, self.sleep = live, 1.0 / fps, clock, sleep
        self._next: float | None = None
        self._open = True

    def read(self) -> tuple[bool, np.ndarray | None]:
        if not self._open:
            return False, None
        now = self.clock()
        if self._next is not None and self._next > now:
            self.sleep(self._next - now)
        # The next frame one period after this one was due; a late frame does not make
        # the camera hurry to catch up.
        due = now if self._next is None else max(self._next, now)
        self._next = due + self.period
        return True, self.live.frame().image

    def isOpened(self) -> bool:
        return self._open

    def release(self) -> None:
        self._open = False


def open_live(
    live: LiveTable,
    *,
    fps: float,
    spec: str = "simulated",
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], Any] = time.sleep,
) -> LiveSource:
    """A frame source filming ``live``: a ``LiveSource`` over a :class:`SimulatedCamera`,
    read by its own thread as a USB camera is (``spec`` names it in the health report)."""
    return LiveSource(
        spec,
        lambda: SimulatedCamera(live, fps, clock=clock, sleep=sleep),
        origin="simulated camera",
        kind="simulated",
        clock=clock,
    )
