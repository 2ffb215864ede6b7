"""A piece as the camera sees it: a small picture looking straight at the piece, upright
and at a fixed scale, and the gradients that describe its shape in that picture.

The square-on board picture (``calibration.board_plane``) smears a tall piece away from
the camera, more the further it stands from under it, so one kind looks different on
every square. Looking at a piece along the line from the camera to its middle instead
(a plane through the piece, square to that line, its up the board's up as the camera
sees it) gives every piece the same size and the same upright stance wherever it stands:
what changes is only how steeply the camera looks down and how the piece is turned. The
view's lightness gradients where the piece differs from the empty board, and the
gradients of that difference itself (histograms of oriented gradients, Dalal and Triggs
2005), describe its shape: a falcon's round top and straight sides, a cat's facets, a
beetle's legs.

Seen from high above, a piece turned about its upright is the view turned in its plane,
so each piece of the set-up also stands for itself turned through a full circle and
mirrored (``example_features``): a few photos of the set-up then cover pieces however
they are turned at the table. On rendered frames (seeds 1-200, profiles from three
set-up photos; measured with a throwaway script when this was built) the nearest such
example named the kind of 98.7 % of the 2,935 visible pieces, where the reader of then
(the blob's outline features, ``calibration.blobs``, and the fit) named 97 %, and the
two erred on different pieces; the reader adds both (``vision.readers.gimmel``). A
model learnt from all the examples at once (``KindModel``) errs on a third as many
pieces as the nearest example does.

One path for both uses: the profile keeps each set-up piece's view (``encode``), and
the reader sees every piece through the same functions.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from calibration.blobs import difference
from calibration.silhouettes import lean


class ViewError(ValueError):
    """A kept view that cannot be used (the profile's field is named by the caller)."""


@dataclass(frozen=True)
class ViewSettings:
    """``size_px``: the view's side in px; ``half_mm``: how far it reaches each way
    from the piece's middle (a 30 mm square's piece and a little board around it);
    ``middle_height_mm``: the height of the point looked at (about half a piece's).
    ``cell_px``: the gradient histograms' cells; ``bins``: their orientations (0-180
    degrees). ``unlike_from``/``unlike_full``: a pixel's difference from the empty board
    (Delta E) at which its lightness gradient starts to count and counts in full (the
    board's own edges count nothing). Low, because a white piece on a light square
    differs from it by little, and its grooves and rim are what tell its kind: the
    model alone (``KindModel``, one model a seed from five set-up photos, every visible
    piece of the reader's benchmark frames of seeds 101-400, 4,282 pieces; throwaway
    script) named the wrong kind for 12 pieces from 4 to 12 (and from 3 to 10), 14 from
    2 to 8, 15 from 8 to 20 and for every difference alike, 16 from 6 to 16, 32 from 12
    to 30. ``difference_cap``: the difference is taken up to
    this. ``thin_out_px``: the difference is opened (eroded, then dilated) with a cross
    this many pixels across before it is used (``thin_out``; 1 or less: not): the empty
    board's lines, a pixel out where the registration is, and the sensor's speckle show
    in the difference as thin bright marks, which a piece's outline is not; left in, their
    gradients and the lightness's along them (which the difference lets count) made
    crisp falcons look like beetles. The model alone (seeds 1-120 and the 36 other seeds
    where it named a visible piece's kind wrong, 2,466 pieces; throwaway script) named 50
    kinds wrong without, 35 with 3 px, 33 with 5 and 32 with 7 (on all 952 read seeds'
    15,167 visible pieces, 43 against 50 with 3 px); the reader
    (``benchmarks/gimmel_reader.py``'s 1000 frames, a throwaway script)
    misread 18 squares with 3 px against 22 without (108 g15, 130 h3, 248 b18, 270 f18
    and 878 a18 put right, 424 f4 newly wrong), and with 5 or 7 px more than with 3 on
    the seeds with an error. ``turns``: the turns each set-up piece stands for (and each
    mirrored).
    ``kernel_width`` and ``ridge``: the kinds learnt from the set-up's views
    (``KindModel``): how fast a view's likeness to an example falls with their distance,
    and how much the model is held back from fitting each example exactly.
    ``kernel_dims``: views and examples are compared on the examples' leading this many
    principal directions (None: on all their features). The product of a frame's views
    with every example turned every way is the biggest single step of reading a piece's
    kind, and its cost is reading the examples from memory: on 256 of the 648 features
    (99.1 % of the examples' energy on one rendered seed) it costs about half. On the
    reader benchmark's 1000 frames (``benchmarks/gimmel_reader.py``, a throwaway
    script), 22 squares misread as with every feature (878 a18 put right, 956 a14 newly
    wrong); on 128, 23 (248 b18 and 878 a18 put right; 385 a14, 424 g8 and 923 g5
    newly wrong). Not the default then: 956 a14 is the white beetle on a light square
    that ``tests/vision/test_covered.py`` keeps the rules' count from emptying, and on
    256 directions its view looked too little like a piece for the fit to find it at all.
    With the difference thinned out, 256 directions read the 1000 frames with the same
    18 squares misread as every feature does, each as the same piece (a throwaway
    script), and 956 a14 is found. Later, with the reader as it is now, the model alone
    (one a seed from five set-up photos, the 3,721 visible pieces the reader looks at in
    the benchmark's frames of seeds 41-300; workbench script) named the wrong kind for
    11 pieces on 256 directions and on 192, every piece as the same kind, scores within
    0.08; on 128, 12 (one piece newly wrong). Scoring 20 views took 0.65 ms on 256
    directions, 0.46 on 192 and 0.30 on 128. Yet 192 is not the default: on the one-photo
    tables of ``tests/vision/test_gimmel_views.py`` it misreads one piece more than 256
    directions do (on e15). Fitting the model to every turn but centring it on every
    second turn only (subset of regressors), or on the unmirrored turns only, halved
    that time again but named 15 to 17 kinds wrong.
    ``side_below_mm``, ``side_across_mm``, ``side_unlike``, ``side_percentile``: the
    piece's side (``side_lightness``): the part of the view from the first to the second
    of these mm below its middle and at most ``side_across_mm`` to either side, its
    pixels that differ from the empty board by more than ``side_unlike``, and the
    percentile of their lightness taken."""

    size_px: int = 32
    half_mm: float = 14.0
    middle_height_mm: float = 6.0
    cell_px: int = 8
    bins: int = 9
    unlike_from: float = 4.0
    unlike_full: float = 12.0
    difference_cap: float = 60.0
    thin_out_px: int = 3
    turns: int = 12
    kernel_width: float = 1.0
    kernel_dims: int | None = 256
    ridge: float = 0.1
    side_below_mm: tuple[float, float] = (2.0, 10.5)
    side_across_mm: float = 5.0
    side_unlike: float = 12.0
    side_percentile: float = 30.0


def view_grid(
    eye: np.ndarray,
    bases_mm: np.ndarray,
    settings: ViewSettings = ViewSettings(),
    size: int | None = None,
) -> np.ndarray:
    """For pieces standing at ``bases_mm`` (N, 2: board mm), where each of their view's
    pixels looks at on the board: (N, size, size, 2) board mm. A view's pixel is a point
    on a plane through the piece's middle square to the camera's line of sight (from
    ``eye``: x, y, height in board mm); the camera sees that point where its line of
    sight meets the board, so sampling the frame (or the empty board) there shows it."""
    bases = np.asarray(bases_mm, np.float64).reshape(-1, 2)
    eye = np.asarray(eye, np.float64)
    middle = np.column_stack([bases, np.full(len(bases), settings.middle_height_mm)])
    sight = middle - eye
    sight /= np.linalg.norm(sight, axis=1, keepdims=True)
    across = _cross(sight, np.array([0.0, 0.0, 1.0]))
    flat = np.linalg.norm(across, axis=1) < 1e-6  # straight down: the board's x is across
    across[flat] = (1.0, 0.0, 0.0)
    across /= np.linalg.norm(across, axis=1, keepdims=True)
    up = _cross(across, sight)
    upside_down = up[:, 2] < 0
    up[upside_down], across[upside_down] = -up[upside_down], -across[upside_down]
    right, above = _view_steps(settings.half_mm, size or settings.size_px)
    points = (middle[:, None, None, :] + right[None, ..., None] * across[:, None, None, :]
              + above[None, ..., None] * up[:, None, None, :])  # fmt: skip
    # Where the line from the eye through each point meets the board.
    return lean(points.reshape(-1, 3), eye).reshape(*points.shape[:-1], 2)


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Rows of ``a`` (N, 3) crossed with ``b`` (N, 3, or one 3-vector): ``np.cross``'s
    values to the bit, in the same products, without its checks and broadcasting
    (timed on 20 rows: 16 against 26 microseconds)."""
    a0, a1, a2 = a[:, 0], a[:, 1], a[:, 2]
    b0, b1, b2 = (b[..., k] for k in range(3))
    return np.column_stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0])


@functools.lru_cache(maxsize=8)
def _view_steps(half_mm: float, size: int) -> tuple[np.ndarray, np.ndarray]:
    """A view's pixels' places across it and up it (mm from its middle; its first row
    is its top): (size, size) each, kept."""
    steps = np.linspace(-half_mm, half_mm, size)
    right, above = np.meshgrid(steps, -steps)
    right.setflags(write=False)
    above.setflags(write=False)
    return right, above


def sample(picture: np.ndarray, where_px: np.ndarray) -> np.ndarray:
    """``picture`` at ``where_px`` (N, size, size, 2: x, y px), bilinear, the picture's
    edge repeated beyond it: (N, size, size, channels...). One remap for all views."""
    n, size = where_px.shape[:2]
    # One two-channel map, as OpenCV keeps it (two maps would be split out of it first).
    stacked = np.ascontiguousarray(where_px.reshape(n * size, size, 2), np.float32)
    out = cv2.remap(picture, stacked, None, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return out.reshape(n, size, size, *picture.shape[2:])


def gradient_histograms(
    picture: np.ndarray, weight: np.ndarray | None, settings: ViewSettings
) -> np.ndarray:
    """Histograms of oriented gradients of each of ``picture`` (N, size, size), each
    pixel's gradient weighted by ``weight`` (same shape) if given: per cell the gradients'
    strength by orientation (0-180 degrees, split between the two nearest bins), each
    2 x 2 block of cells normalised. (N, features)."""
    n, size = picture.shape[:2]
    flat = np.ascontiguousarray(picture, np.float32).ravel()
    # Central differences (OpenCV's 1 x 3 Sobel, its edge reflected: 0 at a view's edge),
    # each along the whole stack at once; a view's edge rows and columns are then set to
    # 0, so that no gradient reaches into the next view.
    across = np.empty((n, size, size), np.float32)
    down = np.empty((n, size, size), np.float32)
    np.subtract(flat[2:], flat[:-2], out=across.reshape(-1)[1:-1])
    across[:, :, 0] = across[:, :, -1] = 0.0
    np.subtract(flat[2 * size :], flat[: -2 * size], out=down.reshape(-1)[size:-size])
    down[:, 0] = down[:, -1] = 0.0
    strength, angle = cv2.cartToPolar(across.reshape(n * size, size), down.reshape(n * size, size),
                                      angleInDegrees=True)  # angle 0-360  # fmt: skip
    strength = strength.ravel()
    if weight is not None:
        strength *= np.ascontiguousarray(weight, np.float32).ravel()
    bins, cell = settings.bins, settings.cell_px
    where = angle.ravel()  # cartToPolar's own array, worked on in place
    # Folded to 0-180 degrees without a masked subtraction (several times slower); each
    # angle less 180 is exact (Sterbenz), so the values are as before.
    where -= (where >= np.float32(180.0)) * np.float32(180.0)
    where *= np.float32(bins / 180.0)
    floor = np.floor(where)
    share = where - floor  # exact: the part past the floor of a float32 under 10
    # Each cell counts two more orientations than ``bins``: the bin past the last (an
    # angle's upper bin, or an angle of 180 degrees itself) and the one past that (the
    # upper bin of the latter), folded onto the first two after counting. Cheaper than
    # wrapping every pixel's bin.
    low = floor.astype(np.intp)  # numpy's own index type: ``bincount`` converts others
    low += _bin_starts(n, size, cell, bins + 2)
    cells = size // cell
    slots = n * cells * cells * (bins + 2)
    upper = strength * share
    strength -= upper
    hist = np.bincount(low, strength, slots)
    low += 1
    hist += np.bincount(low, upper, slots)
    hist = hist.reshape(n, cells, cells, bins + 2)
    hist[..., :2] += hist[..., bins:]
    blocks = hist.reshape(n, -1).take(_block_cells(cells, bins), axis=1)
    blocks = blocks.reshape(n, (cells - 1) ** 2, 4 * bins)
    blocks /= np.sqrt((blocks * blocks).sum(axis=2, keepdims=True)) + 1e-3
    return blocks.reshape(n, -1).astype(np.float32)


@functools.lru_cache(maxsize=16)
def _block_cells(cells: int, bins: int) -> np.ndarray:
    """Where each 2 x 2 block's histograms lie in a view's cells' histograms
    (``gradient_histograms``: cells x cells of ``bins`` + 2 each, the first ``bins``
    kept): the blocks row by row, each's cells row by row."""
    width = bins + 2
    starts = [(i + di) * cells * width + (j + dj) * width
              for i in range(cells - 1) for j in range(cells - 1)
              for di in range(2) for dj in range(2)]  # fmt: skip
    index = (np.array(starts)[:, None] + np.arange(bins)[None]).ravel()
    index.setflags(write=False)
    return index


def features(lightness: np.ndarray, unlike: np.ndarray, settings: ViewSettings) -> np.ndarray:
    """Views (N, size, size: Lab lightness, and Delta E from the empty board) described:
    the lightness's gradients where the piece is (the board's own edges left out) and the
    difference's gradients (the piece's outline, whatever its colour), each half of
    unit length. (N, features)."""
    unlike = thin_out(np.minimum(unlike, settings.difference_cap), settings.thin_out_px)
    spread = cv2.dilate(unlike.reshape(-1, unlike.shape[-1]), np.ones((3, 3), np.uint8))
    span = settings.unlike_full - settings.unlike_from
    weight = np.clip((spread.reshape(unlike.shape) - settings.unlike_from) / span, 0.0, 1.0)
    halves = [gradient_histograms(lightness, weight, settings),
              gradient_histograms(unlike, None, settings)]  # fmt: skip
    return np.concatenate([h / (np.sqrt((h * h).sum(axis=1, keepdims=True)) + 1e-6)
                           for h in halves], axis=1)  # fmt: skip


def thin_out(pictures: np.ndarray, across_px: int) -> np.ndarray:
    """``pictures`` (N, size, size) each opened with a cross reaching ``across_px // 2``
    pixels each way from its middle (1 or less: as they are): the least over the cross,
    then the most, each picture's edge repeated beyond it. Marks narrower than the cross
    go; a piece's outline stays, but for its sharpest corners. The pictures are opened
    as the channels of one image (OpenCV opens each channel alone, up to ``_CHANNELS``
    of them): no picture's edge reaches into the next one's, and one call for them all
    costs about a third of a call for each."""
    if across_px <= 1:
        return pictures
    reach = across_px // 2
    cross = cv2.getStructuringElement(cv2.MORPH_CROSS, (2 * reach + 1, 2 * reach + 1))
    stacked = np.asarray(pictures, np.float32)
    opened = np.empty_like(stacked)
    for start in range(0, len(stacked), _CHANNELS):
        part = np.ascontiguousarray(stacked[start : start + _CHANNELS].transpose(1, 2, 0))
        done = cv2.morphologyEx(part, cv2.MORPH_OPEN, cross, borderType=cv2.BORDER_REPLICATE)
        opened[start : start + _CHANNELS] = done.reshape(part.shape).transpose(2, 0, 1)
    return opened


#: The most channels OpenCV's Python binding takes in one image (5.x: 128).
_CHANNELS = 128


def example_features(
    lightness: np.ndarray, unlike: np.ndarray, settings: ViewSettings
) -> np.ndarray:
    """One set-up piece's view (size, size each) as every turn and its mirror image would
    show it: (2 turns, features)."""
    size = settings.size_px
    middle = (size - 1) / 2.0
    turned_l, turned_u = [], []
    for picture_l, picture_u in ((lightness, unlike), (lightness[:, ::-1], unlike[:, ::-1])):
        for k in range(settings.turns):
            matrix = cv2.getRotationMatrix2D((middle, middle), 360.0 * k / settings.turns, 1.0)
            for source, out in ((picture_l, turned_l), (picture_u, turned_u)):
                flat = np.ascontiguousarray(source, np.float32)
                out.append(cv2.warpAffine(flat, matrix, (size, size),
                                          borderMode=cv2.BORDER_REPLICATE))  # fmt: skip
    return features(np.array(turned_l), np.array(turned_u), settings)


def side_lightness(
    lightness: np.ndarray, unlike: np.ndarray, settings: ViewSettings = ViewSettings()
) -> np.ndarray:
    """How light each view's piece (``piece_views``: (N, size, size) each) is on its side
    facing the camera: a low percentile of the lightness of the view's part just below
    the piece's middle, where the piece differs from the empty board (all of that part
    when too few of its pixels do). A black piece's top that mirrors the lamp looks as
    light as a white one's; its side, lit from above and seen from the side, stays dark.
    (N,)."""
    light = np.asarray(lightness, np.float32)
    size = light.shape[-1]
    steps = np.linspace(-settings.half_mm, settings.half_mm, size)  # as ``view_grid``
    # Row k is ``steps[k]`` below the middle (``view_grid``: the first row is its top).
    low, high = settings.side_below_mm
    rows = (steps >= low) & (steps <= high)
    columns = np.abs(steps) <= settings.side_across_mm
    part = light[:, rows][:, :, columns].reshape(len(light), -1)
    piece = (np.asarray(unlike, np.float32)[:, rows][:, :, columns].reshape(len(light), -1)
             > settings.side_unlike)  # fmt: skip
    found = np.empty(len(light), np.float32)
    for k, (values, mine) in enumerate(zip(part, piece, strict=True)):
        # Too few of the piece's pixels to say: the part as it is.
        found[k] = np.percentile(values[mine] if mine.sum() > SIDE_FEWEST else values,
                                 settings.side_percentile)  # fmt: skip
    return found


#: A view's side (``side_lightness``) needs more of the piece's pixels than this.
SIDE_FEWEST = 5


# -- kept in a profile -------------------------------------------------------------------

#: Lightness (0-100) and difference (0-63.75 Delta E) are kept as bytes in these steps.
LIGHTNESS_STEP = 100.0 / 250.0
UNLIKE_STEP = 0.25


def encode(lightness: np.ndarray, unlike: np.ndarray) -> str:
    """A view (size, size each) as text for a profile: both pictures as bytes, base64."""
    light = np.clip(np.round(lightness / LIGHTNESS_STEP), 0, 255).astype(np.uint8)
    apart = np.clip(np.round(unlike / UNLIKE_STEP), 0, 255).astype(np.uint8)
    return base64.b64encode(np.stack([light, apart]).tobytes()).decode("ascii")


def decode(text: Any, settings: ViewSettings = ViewSettings()) -> tuple[np.ndarray, np.ndarray]:
    """``encode``'s text back to (lightness, difference); ``ViewError`` naming what is
    wrong with it."""
    size = settings.size_px
    if not isinstance(text, str):
        raise ViewError(f"expected a view as base64 text (got {type(text).__name__})")
    try:
        raw = base64.b64decode(text.encode("ascii"), validate=True)
    except (ValueError, UnicodeEncodeError):
        raise ViewError(f"not base64: {text[:24]!r}...") from None
    if len(raw) != 2 * size * size:
        raise ViewError(f"expected {2 * size * size} bytes, a {size} px view (got {len(raw)})")
    light, apart = np.frombuffer(raw, np.uint8).reshape(2, size, size).astype(np.float32)
    return light * LIGHTNESS_STEP, apart * UNLIKE_STEP


@functools.lru_cache(maxsize=4096)
def _kept_features(text: str, settings: ViewSettings) -> np.ndarray:
    features_ = example_features(*decode(text, settings), settings)
    features_.setflags(write=False)
    return features_


@functools.lru_cache(maxsize=8)
def examples_matrix(texts: tuple[str, ...], settings: ViewSettings = ViewSettings()) -> np.ndarray:
    """The kept views ``texts``, each as every turn shows it, stacked: (len, 2 turns,
    features). Worked out once a process for each view (a profile is read every frame)."""
    stacked = np.stack([_kept_features(t, settings) for t in texts])
    stacked.setflags(write=False)
    return stacked


@dataclass(frozen=True)
class KindModel:
    """Which kind of piece a view shows, learnt from the set-up's views: kernel ridge
    regression (a Gaussian kernel on the views' features, one output a kind) over every
    set-up piece turned every way. The nearest example alone lets one odd example
    decide; the model weighs all of them, and learns which parts of a view tell one kind
    from another. On rendered frames (views of seeds 1-60, profiles from
    three set-up photos; a throwaway script) it named the wrong kind for 4 of 913 pieces,
    the nearest example for 13."""

    #: (features, examples x turns): the examples (or their projections) a column each.
    #: Kept so, the product of a frame's few views with them reads the examples in
    #: memory order: on this project's machine (AVX-512) 1.3 ms for 15 views against
    #: 2,856 examples, and 1.75 ms with the examples a row each (the same values).
    columns: np.ndarray
    weights: np.ndarray  # (examples x turns, kinds)
    kernel_width: float
    #: (features, dims): the examples' leading principal directions a view is projected
    #: on before it is compared (``ViewSettings.kernel_dims``); None: compared whole.
    projection: np.ndarray | None = None

    @property
    def examples(self) -> np.ndarray:
        """The examples a row each: (examples x turns, features or dims)."""
        return self.columns.T

    @classmethod
    def learn(
        cls, examples: np.ndarray, kind_of: np.ndarray, kinds: int, settings: ViewSettings
    ) -> KindModel:
        """From ``examples_matrix``'s views (E, T, F) and each example's kind (E: 0 to
        ``kinds`` - 1; a kind no example shows is one no view looks like)."""
        e, t, f = examples.shape
        flat = np.ascontiguousarray(examples.reshape(e * t, f), np.float32)
        # +1 for the example's kind, -1 for the others: one regression a kind.
        wanted = np.where(np.repeat(kind_of, t)[:, None] == np.arange(kinds)[None], 1.0, -1.0)
        projection = None
        if settings.kernel_dims is not None and settings.kernel_dims < f:
            # The examples' leading principal directions (uncentred: the kernel takes
            # dot products), from their f x f second moments.
            _, vectors = np.linalg.eigh(flat.T.astype(np.float64) @ flat)
            projection = np.ascontiguousarray(vectors[:, ::-1][:, : settings.kernel_dims],
                                              np.float32)  # fmt: skip
            flat = np.ascontiguousarray(flat @ projection)
        gram = _kernel(flat, flat.T, settings.kernel_width).astype(np.float64)
        gram[np.diag_indices_from(gram)] += settings.ridge
        weights = np.linalg.solve(gram, wanted)
        return cls(np.ascontiguousarray(flat.T), weights.astype(np.float32),
                   settings.kernel_width, projection)  # fmt: skip

    def scores(self, seen: np.ndarray) -> np.ndarray:
        """Per seen view (``features``, (N, F)), how much it looks like each kind: about
        1 for its kind, -1 for the others; (N, kinds)."""
        if self.projection is not None:
            seen = seen @ self.projection
        return _kernel(seen, self.columns, self.kernel_width) @ self.weights


def _kernel(a: np.ndarray, columns: np.ndarray, width: float) -> np.ndarray:
    """Gaussian kernel between features (``a`` a row each, ``columns`` a column each),
    each of squared length 2 (two unit halves): their squared distance is 4 - 2 a.b."""
    return np.exp(-width * np.maximum(4.0 - 2.0 * (a @ columns), 0.0))


@functools.lru_cache(maxsize=16)
def _bin_starts(n: int, size: int, cell: int, bins: int) -> np.ndarray:
    """Per pixel of ``n`` stacked size x size views, flattened, the index of its cell's
    first orientation bin in the histograms (``gradient_histograms``), each cell
    ``bins`` long."""
    cells = size // cell
    rows = np.arange(size) // cell
    cell_of = (rows[:, None] * cells + rows[None, :])[None] + (np.arange(n) * cells * cells)[
        :, None, None
    ]
    starts = (cell_of * bins).astype(np.intp).ravel()
    starts.setflags(write=False)
    return starts


#: Points a side at which a view's look into the frame is worked out exactly.
COARSE = 9


@functools.lru_cache(maxsize=4)
def _spreading(coarse: int, fine: int) -> np.ndarray:
    """The (fine, coarse) matrix of bilinear weights from a coarse grid's points to a
    fine one's, both spanning the same view corner to corner."""
    at = np.linspace(0, coarse - 1, fine)
    low = np.minimum(np.floor(at).astype(int), coarse - 2)
    share = at - low
    weights = np.zeros((fine, coarse))
    weights[np.arange(fine), low] = 1 - share
    weights[np.arange(fine), low + 1] = share
    weights.setflags(write=False)
    return weights


def _spread(weights: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """A coarse grid (N, c, c, 2) spread over the fine one ``weights`` make."""
    return np.stack([weights @ grid[..., k] @ weights.T for k in range(grid.shape[-1])], axis=-1)


def piece_views(
    image: np.ndarray,
    to_image: Any,
    eye: np.ndarray,
    bases_mm: Sequence[Sequence[float]],
    empty: np.ndarray,
    empty_px_per_mm: float,
    empty_margin_mm: float,
    correct: Any,
    settings: ViewSettings = ViewSettings(),
) -> tuple[np.ndarray, np.ndarray]:
    """The views of pieces standing at ``bases_mm`` in ``image`` (BGR, as the camera gave
    it): their Lab lightness and their Delta E from the empty board, each (N, size,
    size). ``to_image`` maps board mm (M, 2) to image px (a registration's); ``empty``
    is the empty board's square-on Lab picture at ``empty_px_per_mm`` with
    ``empty_margin_mm``; ``correct`` turns BGR pixels to light-corrected Lab (N, size,
    size, 3)."""
    # Where a view looks changes smoothly over it: worked out exactly (lens and all) on a
    # coarse grid, in between by bilinear interpolation (well under a tenth of a pixel
    # off), which costs a small fraction of mapping every pixel.
    coarse = view_grid(eye, np.asarray(bases_mm, np.float64), settings, COARSE)
    n = len(coarse)
    exact = to_image(coarse.reshape(-1, 2)).reshape(n, COARSE, COARSE, 2)
    spread = _spreading(COARSE, settings.size_px)
    where, ground = (_spread(spread, grid) for grid in (exact, coarse))
    lab = correct(sample(image, where))
    board = sample(empty, (ground + empty_margin_mm) * empty_px_per_mm)
    size = settings.size_px
    unlike = difference(lab.reshape(-1, size, 3), board.reshape(-1, size, 3))
    return np.ascontiguousarray(lab[..., 0]), unlike.reshape(n, size, size)
