"""The Gimmel reader: a frame to what stands on every square, with a confidence.

The board is registered from its markers, seen square-on, and corrected to the light the
profile was learnt in (from the markers' white margins). Each square is compared with
itself as the profile saw it empty: the pixels that differ by more than the profile's
threshold are the piece's. Too few such pixels: the square is empty. Otherwise the
piece's colour and shape (features that do not depend on how it is turned) are compared
with each kind of piece of each colour the profile learnt; the nearest wins, and its
margin over the next is the confidence. A square whose differing pixels are coloured
like nothing the set-up showed (a hand, a sleeve, a die) is "unknown", never guessed:
the tracker waits or asks.

Appearance reaches the reader only through the profile (``calibration.profiles``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from calibration import colour
from calibration.board_plane import cell_boxes, rectify
from calibration.profiles import (
    SHAPE_SCALES,
    Profile,
    ProfileError,
    delta_e,
    shape_features,
    square_cell,
    square_names,
    to_lab,
    white_patches,
)
from calibration.registration import Registration, register
from calibration.sheet import Sheet

UNKNOWN = "unknown"
EMPTY = "empty"


@dataclass(frozen=True)
class ReaderSettings:
    """``px_per_mm``: the reading's scale; 1 px per mm is 30 px across a Gimmel square,
    plenty for colours and silhouettes, and a quarter of the pixels of the profile's
    scale. ``margin_mm``: the square-on picture's margin around the grid (a little keeps
    the edge squares whole). ``skin_chroma``: a piece whose pixels are this much more
    colourful (CIE chroma) than the most colourful piece the profile knows is not a piece
    (a hand over the square): unknown. ``shape_weight``: how much one unit of shape
    difference (``calibration.profiles.SHAPE_SCALES``) counts against a colour difference
    (Delta E)."""

    px_per_mm: float = 1.0
    margin_mm: float = 2.0
    #: The tallest piece's height (the falcon's), for the lean of tops away from the
    #: camera: a square's band nearest the camera is where a neighbour's top leans in.
    piece_height_mm: float = 14.0
    #: How far a square's own edge may say its light has changed (a shadow, a lamp).
    shade_range: tuple[float, float] = (0.4, 1.3)
    skin_chroma: float = 12.0
    shape_weight: float = 3.0


@dataclass(frozen=True)
class Observation:
    """What a frame shows: ``squares`` maps every square to ``"empty"``, a piece such as
    ``"white falcon"``, or ``"unknown"``; ``confidence`` each reading's margin (0-1);
    ``board`` the registration's quality figures."""

    game: str
    squares: dict[str, str]
    confidence: dict[str, float]
    board: dict[str, Any] = field(default_factory=dict)

    @property
    def pieces(self) -> dict[str, str]:
        """The occupied squares, as the renderer's truth and the tests state positions."""
        return {name: label for name, label in self.squares.items()
                if label not in (EMPTY, UNKNOWN)}  # fmt: skip

    @property
    def unknown(self) -> list[str]:
        return [name for name, label in self.squares.items() if label == UNKNOWN]

    def to_json(self) -> dict[str, Any]:
        return {"game": self.game, "pieces": self.pieces, "unknown": self.unknown,
                "confidence": {k: round(v, 3) for k, v in self.confidence.items()},
                "board": self.board}  # fmt: skip


def read(
    image: np.ndarray,
    sheet: Sheet,
    profile: Profile,
    *,
    camera: Any = None,
    settings: ReaderSettings = ReaderSettings(),
    registration: Registration | None = None,
) -> Observation:
    """Read a frame (BGR). ``BoardNotVisible`` when too few markers are in view; a frame
    too dark or blown out to correct raises ``colour.ColourError``."""
    if registration is None:
        registration = register(image, sheet, camera=camera)
    gains = colour.correction(colour.measure(image, white_patches(registration)))
    px_per_mm = settings.px_per_mm
    square_on = colour.apply(rectify(image, registration, px_per_mm, settings.margin_mm), gains)
    lab = to_lab(square_on)
    boxes = cell_boxes(sheet, px_per_mm, settings.margin_mm, profile.settings.inset_mm)
    kinds = Kinds.of(profile, settings)
    names = square_names(sheet)
    cells = [square_cell(sheet, name) for name in names]
    empty = np.array([profile.squares[name]["lab"] for name in names], np.float32)
    # A shadow (an arm's, the lamp's) darkens a whole square, its edge included; a piece
    # only its middle. Each square's expected lightness follows its own edge.
    whole = cell_boxes(sheet, px_per_mm, settings.margin_mm, 0.0)
    empty = shaded(lab, whole, cells, empty, profile.settings.inset_mm * px_per_mm, settings)
    # Which squares hold anything: every square against its empty self at once, less
    # the band where a nearer neighbour's top leans in (when the camera's place is known).
    bands = lean_bands(registration, sheet, cells, settings, profile.settings.inset_mm)
    shares = kinds.shares(lab, boxes, cells, empty, bands)
    squares, confidence = {}, {}
    for k, name in enumerate(names):
        if shares[k] < kinds.least_share:
            squares[name], confidence[name] = EMPTY, 1.0 - shares[k] / kinds.least_share
            continue
        x0, y0, x1, y1 = (int(v) for v in boxes[cells[k]])
        squares[name], confidence[name] = kinds.classify(lab[y0:y1, x0:x1], empty[k])
    return Observation(profile.game, squares, confidence, registration.summary())


@dataclass(frozen=True)
class Kinds:
    """The profile's pieces as arrays, for classifying squares quickly."""

    names: tuple[str, ...]
    colours: np.ndarray
    #: Per kind, the mean of its set-up examples' shape features (``shape_features``).
    features: np.ndarray
    piece_delta_e: float
    least_share: float
    most_chroma: float
    settings: ReaderSettings

    @classmethod
    def of(cls, profile: Profile, settings: ReaderSettings) -> Kinds:
        names = tuple(sorted(profile.pieces))
        colours = np.array([profile.pieces[n]["lab"] for n in names], np.float32)
        instances = [profile.pieces[n].get("instances") or [] for n in names]
        if not names or not all(seen and all("shape" in e for e in seen) for seen in instances):
            raise ProfileError(
                "the profile has no shape features of its pieces: learn the board again "
                "(companion calibrate board)"
            )
        features = np.array(
            [np.mean([e["shape"] for e in seen], axis=0) for seen in instances], np.float32
        )
        chroma = float(np.hypot(colours[:, 1], colours[:, 2]).max())
        s = profile.settings
        return cls(names, colours, features, s.piece_delta_e, s.least_share, chroma, settings)

    def shares(
        self,
        lab: np.ndarray,
        boxes: np.ndarray,
        cells: list[tuple[int, int]],
        empty: np.ndarray,
        bands: np.ndarray | None = None,
    ) -> np.ndarray:
        """Each square's share of pixels unlike its empty self, in one pass when the
        squares are the same size in px (they are, at a whole number of px per square)."""
        sizes = {(int(b[2] - b[0]), int(b[3] - b[1])) for b in boxes.reshape(-1, 4)}
        if len(sizes) != 1:
            return np.array(
                [self._share(lab, boxes[c], e) for c, e in zip(cells, empty, strict=True)]
            )
        ((w, h),) = sizes
        rows = np.array([c[0] for c in cells])
        cols = np.array([c[1] for c in cells])
        x0 = boxes[rows, cols, 0][:, None, None] + np.arange(w)[None, None, :]
        y0 = boxes[rows, cols, 1][:, None, None] + np.arange(h)[None, :, None]
        blocks = lab[y0, x0]  # (squares, h, w, 3)
        difference = np.sqrt(((blocks - empty[:, None, None, :]) ** 2).sum(axis=-1))
        unlike = difference > self.piece_delta_e
        if bands is None:
            return unlike.mean(axis=(1, 2))
        # bands: (squares, 4) px left out at the left, top, right and bottom edges.
        xs, ys = np.arange(w)[None, None, :], np.arange(h)[None, :, None]
        keep = ((xs >= bands[:, 0, None, None]) & (xs < w - bands[:, 2, None, None])
                & (ys >= bands[:, 1, None, None]) & (ys < h - bands[:, 3, None, None]))  # fmt: skip
        return (unlike & keep).sum(axis=(1, 2)) / np.maximum(keep.sum(axis=(1, 2)), 1)

    def _share(self, lab: np.ndarray, box: np.ndarray, empty: np.ndarray) -> float:
        x0, y0, x1, y1 = (int(v) for v in box)
        return float((delta_e(lab[y0:y1, x0:x1], empty[None, None, :]) > self.piece_delta_e).mean())

    def classify(self, square: np.ndarray, empty_lab: Any) -> tuple[str, float]:
        """(label, confidence) of one square's Lab pixels against its empty colour."""
        difference = delta_e(square, np.asarray(empty_lab, np.float32)[None, None, :])
        mask = difference > self.piece_delta_e
        share = float(mask.mean())
        if share < self.least_share:
            return EMPTY, 1.0 - share / self.least_share
        piece = square[mask].mean(0)
        if (
            math.hypot(float(piece[1]), float(piece[2]))
            > self.most_chroma + self.settings.skin_chroma
        ):
            return UNKNOWN, 0.0
        costs = np.linalg.norm(self.colours - piece, axis=1)
        # Turned any way and leaning: compare shapes by features that do not care.
        shape = (np.abs(self.features - shape_features(mask)) / np.asarray(SHAPE_SCALES)).sum(1)
        costs += shape * self.settings.shape_weight
        order = np.argsort(costs)
        best = float(costs[order[0]])
        second = float(costs[order[1]]) if len(order) > 1 else best + 1.0
        return self.names[order[0]], (second - best) / (second + 1e-6)


def shaded(
    lab: np.ndarray,
    whole: np.ndarray,
    cells: list[tuple[int, int]],
    empty: np.ndarray,
    inset_px: float,
    settings: ReaderSettings,
) -> np.ndarray:
    """The empty colours with each square's lightness scaled as its edge band (the part
    of the square outside the inset, which pieces seldom cover) is lit now."""
    band = max(1, int(inset_px))
    adjusted = empty.copy()
    for k, (row, col) in enumerate(cells):
        x0, y0, x1, y1 = (int(v) for v in whole[row, col])
        square = lab[y0:y1, x0:x1, 0]
        middle = square[band:-band]
        ring = np.concatenate([square[:band].ravel(), square[-band:].ravel(),
                               middle[:, :band].ravel(), middle[:, -band:].ravel()])  # fmt: skip
        ratio = float(np.median(ring)) / max(float(empty[k, 0]), 1.0)
        low, high = settings.shade_range
        adjusted[k, 0] = empty[k, 0] * min(max(ratio, low), high)
    return adjusted


def camera_centre(registration: Registration) -> np.ndarray | None:
    """The camera's centre in board mm (x, y, height), from the homography and the
    camera's matrix; ``None`` without a calibrated camera."""
    if registration.camera is None:
        return None
    m = np.linalg.inv(registration.camera.matrix) @ registration.homography
    scale = 1.0 / np.linalg.norm(m[:, 0])
    if m[2, 2] * scale < 0:
        scale = -scale  # the board in front of the camera
    r1, r2, t = m[:, 0] * scale, m[:, 1] * scale, m[:, 2] * scale
    rotation = np.column_stack([r1, r2, np.cross(r1, r2)])
    centre = -rotation.T @ t
    return np.array([centre[0], centre[1], abs(centre[2])])


def lean_bands(
    registration: Registration,
    sheet: Sheet,
    cells: list[tuple[int, int]],
    settings: ReaderSettings,
    inset_mm: float,
) -> np.ndarray | None:
    """Per square, the px to leave out at its left, top, right and bottom edges: on the
    sides facing the camera, as far as a neighbour's top leans in past the inset."""
    centre = camera_centre(registration)
    if centre is None or centre[2] <= settings.piece_height_mm:
        return None
    grid = sheet.grid
    spots = np.array([((c + 0.5) * grid.cell_width_mm, (r + 0.5) * grid.cell_height_mm)
                      for r, c in cells])  # fmt: skip
    lean = (spots - centre[:2]) * settings.piece_height_mm / (centre[2] - settings.piece_height_mm)
    reach = np.clip(np.abs(lean) - inset_mm, 0, None) * settings.px_per_mm
    bands = np.zeros((len(cells), 4), np.int64)
    # A top leans away from the camera: into this square from the side facing it.
    bands[:, 0] = np.where(lean[:, 0] > 0, np.ceil(reach[:, 0]), 0)
    bands[:, 2] = np.where(lean[:, 0] < 0, np.ceil(reach[:, 0]), 0)
    bands[:, 1] = np.where(lean[:, 1] > 0, np.ceil(reach[:, 1]), 0)
    bands[:, 3] = np.where(lean[:, 1] < 0, np.ceil(reach[:, 1]), 0)
    return bands


def position(state: Any) -> dict[str, str]:
    """What a Gimmel state shows on its squares, in the reader's words (``"white cat"``):
    the observation a perfect reading of that position gives. Before the colour lot no
    piece is on the board."""
    labels = {}
    for index, piece in enumerate(state.board):
        if piece is None:
            continue
        colour_name = "white" if piece.owner == state.white else "black"
        labels[str(state.grid.squares[index])] = f"{colour_name} {piece.kind.value}"
    return labels


def mismatch(observation: Observation, state: Any) -> float:
    """How far ``state`` is from ``observation``: the confidence of each square read that
    disagrees with it (a doubtful misread costs little, a sure one a whole square)."""
    expected = position(state)
    return sum(
        max(observation.confidence.get(name, 1.0), 0.05)
        for name, label in observation.squares.items()
        if label != UNKNOWN and label != expected.get(name, EMPTY)
    )


def shows(observation: Observation, state: Any) -> bool:
    """Whether ``state`` looks like ``observation`` on every square it could read."""
    expected = position(state)
    return all(
        label == expected.get(name, EMPTY)
        for name, label in observation.squares.items()
        if label != UNKNOWN
    )
