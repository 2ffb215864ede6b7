"""When a picture of the board may be read: the motion gate, settling, and a vote.

The camera sees positions, not moves (DESIGN.md, "From observation to move"): a reading
taken while a hand is over the board is worthless, and one misread frame must not decide
a move. :class:`MotionGate` is fed the board seen square-on (a rectified picture, the
same size every frame) with its capture time and says, per frame, whether something is
moving now, whether the scene has settled (still for ``settle_frames`` frames *and*
``settle_seconds``), and, once settled, whether and in which cells it differs from the
last settled picture that the caller accepted. :class:`Vote` takes the readings of the
last few settled frames and gives each cell's majority, so that one misread is outvoted.

How: every picture is turned into a small blurred grey picture (``scale_width`` wide).
Motion is that picture against the previous one, and against the first picture of the
current still run (``drift``: a hand creeping in more slowly than any one frame shows);
change is the settled picture against the accepted reference. Each comparison first
removes the global light change (a cloud, a lamp dimming, the camera's exposure): the
median ratio of the two pictures (gain), then the median remaining difference (offset).
Then it counts the share of pixels still differing by more than ``pixel_threshold`` grey
levels, over the picture and, given a grid, per cell (a summed-area table, so any number
of cells costs the same). Sensor noise and JPEG artefacts are averaged away by the
downscaling and blur and never reach the threshold; a hand, or a piece put down, does.

A settled picture becomes the reference only through :meth:`MotionGate.accept`: the
caller accepts once the reading is explained (a legal move applied, or no change at
all), so a picture no one could explain never silently becomes the truth, and the
reference follows slow changes of light that the global correction cannot (the sun
moving across the table) each time a quiet reading is accepted.

Limits: grey only, so a piece of its square's grey is not seen here (the reader
compares colour; the vote and the tracker catch what the gate misses), and a light change
that saturates the picture is no gain and may show as changed cells (a reader finds no
move there, and an accepted quiet reading takes the new light). Nothing here knows a
game; time is the frames' capture times, passed in.
"""

from __future__ import annotations

import math
from collections import Counter, deque
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import cv2
import numpy as np

#: The label of a cell a reader could not read (a hand over it); never a vote for anything.
UNKNOWN = "unknown"

Cell = tuple[int, int]


class MotionError(ValueError):
    """A picture, a time, a grid or a setting the gate cannot use; the message says which."""


class NotSettled(MotionError):
    """``accept`` was called for a picture that had not settled."""


@dataclass(frozen=True)
class MotionSettings:
    """The gate's thresholds, all documented with why their defaults are what they are.

    ``scale_width`` (320 px): about the width of the working picture: pictures are
    downscaled by the whole factor that comes nearest (a whole factor is OpenCV's fast
    path, three times faster than an exact width). Large enough that a piece on a 19x19
    board still covers dozens of its pixels (a 600x1100 board picture becomes 367x200);
    small enough that a frame costs about a millisecond. A picture narrower than 1.5
    times this is used as it is.

    ``blur`` (3): the Gaussian kernel (odd; 1 for none) after downscaling. Downscaling
    by 3 already averages 9 pixels into one; the blur takes out what is left of noise
    and JPEG's 8x8 block edges, which otherwise flicker along the board's lines.

    ``pixel_threshold`` (14 grey levels): a working pixel differs when, after the light
    correction, it is this far from its counterpart. Sensor noise of sigma 4 and JPEG
    leave at most 3 levels between two frames of one scene after downscaling and blur
    (quality 75; 5 at quality 30; measured in the tests), so noise up to about sigma 10
    stays under it; a hand (about 37 levels on the test board), or a white piece on a
    light square (25 and more), passes it.

    ``motion_share`` (0.002): the share of the working picture's pixels that must differ
    from the previous picture (or from the start of the still run) for the scene to be
    moving: about 150 working pixels (a 36 px square of a 600x1100 picture), less than a
    finger tip over the board's edge.

    ``cell_share`` (0.10): the share of a cell's pixels that must differ for that cell to
    be moving or changed. A piece from above covers a third of its cell or more; a tenth
    leaves room for a piece that barely differs from its square, and for the blur that
    spreads a neighbour's edge a pixel or two into the cell. Any moving cell makes the
    scene moving, so a single stone put on a dense board is never missed.

    ``cell_margin`` (0.10): each side of a cell's box is trimmed by this share of its
    size before counting, so that grid lines and a neighbour's edge do not count.

    ``change_share`` (0.002): without a grid, a settled picture differs from the
    reference when this share of its pixels does (the same size as ``motion_share``).

    ``settle_frames`` (3) and ``settle_seconds`` (0.2): the scene is settled when that many
    consecutive frames were still and that long has passed since the still run began.
    Both: at 30 frames a second three frames are only 0.1 s, not enough for a hand to
    come back for a piece it let go; at 5 frames a second 0.2 s is one frame, too few to
    be sure. Together they cost about 0.2 s of the 0.5 s between a hand leaving and the
    move being committed.
    """

    scale_width: int = 320
    blur: int = 3
    pixel_threshold: float = 14.0
    motion_share: float = 0.002
    cell_share: float = 0.10
    cell_margin: float = 0.10
    change_share: float = 0.002
    settle_frames: int = 3
    settle_seconds: float = 0.2

    def __post_init__(self) -> None:
        problems = []
        if self.scale_width < 16:
            problems.append(f"scale_width: expected at least 16 (got {self.scale_width})")
        if self.blur < 1 or self.blur % 2 == 0:
            problems.append(f"blur: expected an odd kernel size of 1 or more (got {self.blur})")
        if not self.pixel_threshold > 0:
            problems.append(f"pixel_threshold: expected above 0 (got {self.pixel_threshold})")
        for name in ("motion_share", "cell_share", "change_share"):
            value = getattr(self, name)
            if not 0 < value < 1:
                problems.append(f"{name}: expected between 0 and 1 (got {value})")
        if not 0 <= self.cell_margin < 0.5:
            problems.append(f"cell_margin: expected 0 to below 0.5 (got {self.cell_margin})")
        if self.settle_frames < 1:
            problems.append(f"settle_frames: expected 1 or more (got {self.settle_frames})")
        if not self.settle_seconds >= 0:
            problems.append(f"settle_seconds: expected 0 or more (got {self.settle_seconds})")
        if problems:
            raise MotionError("motion settings: " + "; ".join(problems))


@dataclass(frozen=True, eq=False)
class Gate:
    """What the gate says about one frame.

    ``moving``: something is changing now (the frame differs from the previous one, or
    from the start of the still run); ``moving_cells`` the cells where it does (with a
    grid; a reader may call them unknown). ``settled``: still for ``settle_frames`` frames
    and ``settle_seconds`` (and every still frame after); ``just_settled`` only the first
    such frame of a still run, the moment to read. ``changed``: a settled frame differs
    from the accepted reference (always True while there is none); ``changed_cells`` the
    cells that differ, row-major (every cell while there is no reference; empty unless
    settled). ``still_frames``: consecutive still frames; ``still_for``: seconds since
    the still run began. ``motion``, ``drift`` and ``change``: the share of working pixels
    differing from the previous picture, from the start of the still run, and (settled,
    with a reference) from the reference; ``cell_change`` the last per cell, (rows, cols).
    """

    at: float
    moving: bool
    settled: bool
    just_settled: bool
    changed: bool
    still_frames: int
    still_for: float
    motion: float
    drift: float
    change: float | None = None
    moving_cells: tuple[Cell, ...] = ()
    changed_cells: tuple[Cell, ...] = ()
    cell_change: np.ndarray | None = field(default=None, repr=False)
    _small: np.ndarray | None = field(default=None, repr=False)

    @property
    def has_reference(self) -> bool:
        """Whether the change was measured against an accepted reference."""
        return self.change is not None


class MotionGate:
    """Decides, frame by frame, when the board may be read. Feed every frame in order with
    :meth:`feed`; when a settled frame's reading is explained, :meth:`accept` it.

    ``cells``: optionally each cell's box (x0, y0, x1, y1) in the picture, shape (rows,
    cols, 4), ends exclusive (``calibration.board_plane.cell_boxes``), for motion and
    change per cell.
    """

    def __init__(
        self, settings: MotionSettings | None = None, cells: np.ndarray | None = None
    ) -> None:
        self.settings = settings or MotionSettings()
        self._cells_px: np.ndarray | None = None
        if cells is not None:
            boxes = np.asarray(cells)
            if boxes.ndim != 3 or boxes.shape[2] != 4 or boxes.shape[0] * boxes.shape[1] == 0:
                raise MotionError(f"cells: expected shape (rows, cols, 4) (got {boxes.shape})")
            if np.any(boxes[..., 2] <= boxes[..., 0]) or np.any(boxes[..., 3] <= boxes[..., 1]):
                raise MotionError("cells: every box needs x1 > x0 and y1 > y0")
            self._cells_px = boxes.astype(np.float64)
        self._all_cells: tuple[Cell, ...] = ()
        if self._cells_px is not None:
            rows, cols = self._cells_px.shape[:2]
            self._all_cells = tuple((r, c) for r in range(rows) for c in range(cols))
        self.reset()

    def reset(self) -> None:
        """Forget everything: the pictures, the still run and the reference."""
        self._work: tuple[int, int] | None = None  # working picture (height, width)
        self._size: tuple[int, int] | None = None  # fed pictures (height, width)
        self._factor = 1  # fed pictures are downscaled by this whole factor
        self._boxes: np.ndarray | None = None  # cells in working pixels, trimmed
        self._previous: np.ndarray | None = None
        self._anchor: np.ndarray | None = None
        self._anchor_at = 0.0
        self._last_at: float | None = None
        self._still = 0
        self._was_settled = False
        self._reference: np.ndarray | None = None
        self._last: Gate | None = None

    @property
    def has_reference(self) -> bool:
        """Whether a settled picture was accepted (since the start or the last reset)."""
        return self._reference is not None

    def feed(self, picture: np.ndarray, at: float) -> Gate:
        """One frame: ``picture`` the board square-on (uint8, grey or BGR, the size of
        every other), ``at`` its capture time in seconds (never earlier than the last)."""
        small = self._working(picture)
        at = float(at)
        if not math.isfinite(at):
            raise MotionError(f"at: expected a finite capture time (got {at})")
        if self._last_at is not None and at < self._last_at:
            raise MotionError(
                f"at: frames must come in capture order (got {at} after {self._last_at})"
            )
        s = self.settings
        if self._previous is None:
            motion_mask = np.zeros(small.shape, bool)
            drift_mask = motion_mask
            self._anchor, self._anchor_at = small, at
        else:
            motion_mask = self._differs(small, self._previous)
            # The first picture of the still run; this one, if it is the first.
            anchor = self._anchor if self._anchor is not None else small
            drift_mask = motion_mask if anchor is small else self._differs(small, anchor)
        motion, drift = float(motion_mask.mean()), float(drift_mask.mean())
        moving_cells = self._cells_over(motion_mask | drift_mask)
        moving = motion > s.motion_share or drift > s.motion_share or bool(moving_cells)
        if moving:
            self._still = 0
            # The drift is measured from the next still picture, not this one: a hand
            # leaving is in this picture, and every still one would differ from it. The
            # still run's time counts from here, when the motion stopped, as before.
            self._anchor, self._anchor_at = None, at
        elif self._previous is not None:
            self._still += 1
            if self._anchor is None:
                self._anchor = small
        self._previous, self._last_at = small, at
        still_for = at - self._anchor_at
        settled = self._still >= s.settle_frames and still_for >= s.settle_seconds
        just_settled = settled and not self._was_settled
        self._was_settled = settled
        change: float | None = None
        cell_change = None
        changed_cells: tuple[Cell, ...] = ()
        changed = False
        if settled:
            if self._reference is None:
                changed, changed_cells = True, self._all_cells
            else:
                change_mask = self._differs(small, self._reference)
                change = float(change_mask.mean())
                if self._boxes is not None:
                    cell_change = self._cell_shares(change_mask)
                    changed_cells = self._over(cell_change)
                    changed = bool(changed_cells)
                else:
                    changed = change > s.change_share
        gate = Gate(
            at=at,
            moving=moving,
            settled=settled,
            just_settled=just_settled,
            changed=changed,
            still_frames=self._still,
            still_for=still_for,
            motion=motion,
            drift=drift,
            change=change,
            moving_cells=moving_cells,
            changed_cells=changed_cells,
            cell_change=cell_change,
            _small=small if settled else None,
        )
        self._last = gate
        return gate

    def accept(self, gate: Gate | None = None) -> None:
        """Make a settled picture the reference that later ones are compared with: the
        given ``gate``'s (the frame whose reading was explained), or the last frame fed.
        Raises :class:`NotSettled` if that frame had not settled."""
        chosen = self._last if gate is None else gate
        if chosen is None:
            raise NotSettled("accept: no frame was fed yet")
        if not chosen.settled or chosen._small is None:
            raise NotSettled(
                f"accept: the frame at {chosen.at} had not settled (moving={chosen.moving},"
                f" still for {chosen.still_frames} frames, {chosen.still_for:.3f} s)"
            )
        if self._work is None or chosen._small.shape != self._work:
            raise MotionError("accept: that frame is not from this gate's pictures")
        self._reference = chosen._small

    # -- the working picture and the comparisons --------------------------------------

    def _working(self, picture: np.ndarray) -> np.ndarray:
        image = np.asarray(picture)
        if image.dtype != np.uint8 or not (
            image.ndim == 2 or (image.ndim == 3 and image.shape[2] in (1, 3))
        ):
            raise MotionError(
                f"picture: expected uint8 grey or BGR (got {image.dtype} {image.shape})"
            )
        if self._size is None:
            self._start(image.shape[0], image.shape[1])
        elif image.shape[:2] != self._size:
            raise MotionError(
                f"picture: expected every picture {self._size[1]}x{self._size[0]}"
                f" (got {image.shape[1]}x{image.shape[0]})"
            )
        if image.ndim == 3 and image.shape[2] == 3:
            image = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        elif image.ndim == 3:
            image = image[..., 0]
        if self._factor > 1:
            # A whole factor given as fx, fy takes OpenCV's fast path for INTER_AREA
            # (0.3 ms for 1100x600 where 320 wide exactly costs 1.7 ms).
            scale = 1.0 / self._factor
            image = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        if image.shape != self._work:
            raise MotionError(f"working picture: expected {self._work} (got {image.shape})")
        if self.settings.blur > 1:
            image = cv2.GaussianBlur(image, (self.settings.blur, self.settings.blur), 0)
        return image.astype(np.float32)

    def _start(self, height: int, width: int) -> None:
        """Fix the working size from the first picture and place the cells in it."""
        self._factor = max(1, round(width / self.settings.scale_width))
        f = self._factor
        blank = np.zeros((height, width), np.uint8)
        if f > 1:  # the size cv2.resize gives for fx = fy = 1/f, exactly as it rounds
            blank = cv2.resize(blank, None, fx=1.0 / f, fy=1.0 / f, interpolation=cv2.INTER_AREA)
        h, w = blank.shape
        self._size, self._work = (height, width), (h, w)
        if self._cells_px is None:
            return
        boxes = self._cells_px
        if boxes[..., :2].min() < 0 or boxes[..., 2].max() > width or boxes[..., 3].max() > height:
            raise MotionError(
                f"cells: boxes reach outside the {width}x{height} picture"
                f" (x {boxes[..., 0].min():g}..{boxes[..., 2].max():g},"
                f" y {boxes[..., 1].min():g}..{boxes[..., 3].max():g})"
            )
        m = self.settings.cell_margin
        dx = (boxes[..., 2] - boxes[..., 0]) * m
        dy = (boxes[..., 3] - boxes[..., 1]) * m
        x0 = np.ceil((boxes[..., 0] + dx) / f)
        y0 = np.ceil((boxes[..., 1] + dy) / f)
        x1 = np.floor((boxes[..., 2] - dx) / f)
        y1 = np.floor((boxes[..., 3] - dy) / f)
        # A cell smaller than a working pixel still keeps one.
        x1, y1 = np.maximum(x1, x0 + 1), np.maximum(y1, y0 + 1)
        x0, y0 = np.minimum(x0, w - 1), np.minimum(y0, h - 1)
        x1, y1 = np.minimum(x1, w), np.minimum(y1, h)
        self._boxes = np.stack([x0, y0, x1, y1], axis=-1).astype(np.intp)

    def _differs(self, picture: np.ndarray, other: np.ndarray) -> np.ndarray:
        """The pixels of ``picture`` that differ from ``other`` beyond the threshold once
        the global light change between them (gain, then offset) is taken out."""
        a, b = picture[::4, ::4], other[::4, ::4]
        lit = b > 8.0
        gain = float(np.median(a[lit] / b[lit])) if np.count_nonzero(lit) > 16 else 1.0
        gain = min(4.0, max(0.25, gain))
        difference = picture - gain * other
        difference -= float(np.median(difference[::4, ::4]))
        return np.abs(difference) > self.settings.pixel_threshold

    def _cell_shares(self, mask: np.ndarray) -> np.ndarray:
        """Each cell's share of differing pixels, (rows, cols)."""
        assert self._boxes is not None
        total = cv2.integral(mask.view(np.uint8))
        x0, y0, x1, y1 = (self._boxes[..., i] for i in range(4))
        counts = total[y1, x1] - total[y0, x1] - total[y1, x0] + total[y0, x0]
        return counts / ((x1 - x0) * (y1 - y0))

    def _over(self, shares: np.ndarray) -> tuple[Cell, ...]:
        rows, cols = np.nonzero(shares > self.settings.cell_share)
        return tuple(zip(rows.tolist(), cols.tolist(), strict=True))

    def _cells_over(self, mask: np.ndarray) -> tuple[Cell, ...]:
        if self._boxes is None or not mask.any():
            return ()
        return self._over(self._cell_shares(mask))


# -- the vote ----------------------------------------------------------------------------

C = TypeVar("C", bound=Hashable)


@dataclass(frozen=True)
class Majority:
    """One cell's verdict over the held readings: ``label`` the most frequent (UNKNOWN on a
    tie, or when unreadable readings are the most frequent), ``share`` its votes over the
    readings of that cell, ``votes`` and ``readings`` the counts, ``tied`` the labels that
    tied for the most votes (empty when one led)."""

    label: str
    share: float
    votes: int
    readings: int
    tied: tuple[str, ...] = ()


class Vote(Generic[C]):
    """The per-cell majority of the last ``k`` settled readings, so one misread frame does
    not decide. A reading maps cells to labels (UNKNOWN for a cell that could not be
    read); a cell missing from a reading is not counted for it. Clear it when the scene
    moves: the readings of one still scene only."""

    def __init__(self, k: int = 3) -> None:
        if k < 1:
            raise MotionError(f"Vote: k expected 1 or more (got {k})")
        self.k = k
        self._readings: deque[dict[C, str]] = deque(maxlen=k)

    def add(self, reading: Mapping[C, str]) -> None:
        """Hold one reading; the oldest goes when ``k`` are held."""
        self._readings.append(dict(reading))

    def clear(self) -> None:
        self._readings.clear()

    def __len__(self) -> int:
        return len(self._readings)

    @property
    def full(self) -> bool:
        """Whether ``k`` readings are held."""
        return len(self._readings) == self.k

    def result(self) -> dict[C, Majority]:
        """Each cell seen in any held reading, with its majority."""
        counts: dict[C, Counter[str]] = {}
        for reading in self._readings:
            for cell, label in reading.items():
                counts.setdefault(cell, Counter())[label] += 1
        verdicts: dict[C, Majority] = {}
        for cell, counter in counts.items():
            readings = sum(counter.values())
            ranked = counter.most_common()
            top = ranked[0][1]
            leaders = tuple(sorted(label for label, n in ranked if n == top))
            if len(leaders) == 1:
                verdicts[cell] = Majority(leaders[0], top / readings, top, readings)
            else:
                verdicts[cell] = Majority(UNKNOWN, top / readings, top, readings, leaders)
        return verdicts
