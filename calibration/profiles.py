"""Appearance profiles: what a user's own copy of a game looks like under their lamp and
through their camera, learnt from two photos, the only way appearance reaches a reader.

The user photographs the empty board, then the game's documented reference set-up
(``calibration/setups/GAME.toml``: each kind of piece of each colour on known squares),
both with the markers in view. For each photo the board is registered from its markers,
seen square-on (``board_plane.rectify``) and corrected to neutral light from the markers'
white quiet zones. Then:

- every square's empty appearance (its mean colour and texture in CIE Lab) is kept, so a
  reader compares a square with itself rather than with a guess at "light" and "dark";
- for every kind of piece of every colour, the pixels that differ from the empty square
  (the piece) give the piece's colour, its share of the square, and its silhouette (the
  mean mask on a small grid), which tell the kinds apart by shape.

The profile is a versioned JSON file (``docs/calibration.md``); ``Profile.load`` refuses
another kind, version, game or sheet. Thresholds are the named fields of ``Settings``.
"""

from __future__ import annotations

import json
import math
import os
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration import colour
from calibration.board_plane import cell_boxes
from calibration.board_plane import rectify as rectify_board
from calibration.registration import Registration, register
from calibration.sheet import Sheet

VERSION = 1


class ProfileError(ValueError):
    """A profile that cannot be learnt or used; says which photo, square or field."""


@dataclass(frozen=True)
class Settings:
    """How a profile is learnt. ``px_per_mm``: the square-on picture's scale (a 30 mm
    square is 60 px). ``inset_mm``: trimmed off each side of a square (its lines, a
    neighbour's shadow). ``piece_delta_e``: a pixel differs from the empty square by more
    than this (CIE76 Delta E) to count as the piece's. ``least_share``: a square of the
    set-up must be at least this much piece, or the photo does not show the set-up.
    ``silhouette``: the side of the silhouette grid. ``margin_mm``: the picture's margin
    around the grid, wide enough for the markers' white quiet zones."""

    px_per_mm: float = 2.0
    inset_mm: float = 3.0
    piece_delta_e: float = 18.0
    least_share: float = 0.08
    silhouette: int = 12
    margin_mm: float = 50.0


@dataclass(frozen=True)
class SetUp:
    """A game's reference set-up: which piece (``"white beetle"``) stands on which square."""

    game: str
    pieces: dict[str, str]

    @property
    def classes(self) -> tuple[str, ...]:
        return tuple(sorted(set(self.pieces.values())))


def load_setup(game: str, path: str | Path | None = None) -> SetUp:
    if path is None:
        resource = resources.files("calibration.setups").joinpath(f"{game}.toml")
        if not resource.is_file():
            raise ProfileError(f"{game} has no reference set-up to learn its pieces from")
        text = resource.read_text(encoding="utf-8")
    else:
        text = Path(path).read_text(encoding="utf-8")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ProfileError(f"the {game} set-up is not readable: {error}") from None
    pieces = data.get("pieces")
    if data.get("game") != game or not isinstance(pieces, dict) or not pieces:
        raise ProfileError(f"the {game} set-up needs game = {game!r} and a [pieces] table")
    return SetUp(game, {str(k): str(v) for k, v in pieces.items()})


def square_cell(sheet: Sheet, name: str) -> tuple[int, int]:
    """A square's (row, column) index in the sheet's grid picture, whose top-left is the
    last row's column a (``board_plane.cell_centres``)."""
    from rules.grid import Square

    try:
        square = Square.parse(name, "square")
    except ValueError:
        raise ProfileError(f"{name!r} is not a square name") from None
    grid = sheet.grid
    if not (square.col < grid.columns and square.row < grid.rows) or str(square) != name:
        raise ProfileError(f"{name!r} is not a square of the {grid.columns} x {grid.rows} board")
    return grid.rows - 1 - square.row, square.col


def square_names(sheet: Sheet) -> list[str]:
    """Every square's name, in the grid picture's row-major order."""
    from rules.grid import Square

    grid = sheet.grid
    return [str(Square(col, grid.rows - 1 - i)) for i in range(grid.rows)
            for col in range(grid.columns)]  # fmt: skip


# -- one photo, seen square-on in neutral light --------------------------------------------


@dataclass(frozen=True)
class BoardView:
    """A photo's board, square-on, light corrected, in CIE Lab (float32; L 0-100)."""

    lab: np.ndarray
    registration: Registration
    gains: Any


def view_board(
    image: np.ndarray, sheet: Sheet, *, camera: Any = None, settings: Settings = Settings()
) -> BoardView:
    """Register, correct the light from the markers' quiet zones, and look square-on."""
    registration = register(image, sheet, camera=camera)
    patches = white_patches(registration)
    reference = colour.measure(image, patches)
    gains = colour.correction(reference)
    corrected = colour.apply(image, gains)
    square_on = rectify_board(corrected, registration, settings.px_per_mm, settings.margin_mm)
    return BoardView(to_lab(square_on), registration, gains)


def white_patches(registration: Registration) -> list[tuple[np.ndarray, np.ndarray]]:
    """The markers' white quiet zones in the photo (image px), each a ring: its outline
    and, as a hole, the black square it surrounds; where the sheet is known to be white."""
    rings = []
    for marker in registration.sheet.markers:
        if marker.id not in registration.used:
            continue
        outer, inner = marker.quiet_zone()
        rings.append((registration.to_image(outer), registration.to_image(inner)))
    return rings


def to_lab(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image.astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB)


def square_pixels(view: BoardView, sheet: Sheet, cell: tuple[int, int], settings: Settings):
    boxes = cell_boxes(sheet, settings.px_per_mm, settings.margin_mm, settings.inset_mm)
    x0, y0, x1, y1 = (int(v) for v in boxes[cell])
    return view.lab[y0:y1, x0:x1]


# -- the profile -------------------------------------------------------------------------


@dataclass
class Profile:
    """What a copy looks like: ``squares`` each square's empty Lab mean and spread;
    ``pieces`` for each class its colour (Lab mean and spread of its pixels), its share
    of the square (mean, spread) and its silhouette (``settings.silhouette`` squared
    values in 0-1, row-major)."""

    game: str
    sheet: str
    settings: Settings
    squares: dict[str, dict[str, list[float]]]
    pieces: dict[str, dict[str, Any]]
    photos: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "calibration": "appearance",
            "version": VERSION,
            "game": self.game,
            "sheet": self.sheet,
            "settings": asdict(self.settings),
            "photos": self.photos,
            "squares": self.squares,
            "pieces": self.pieces,
            "opencv": cv2.__version__,
        }

    @classmethod
    def from_json(
        cls, data: Any, source: str = "profile", *, game: str | None = None,
        sheet: str | None = None,
    ) -> Profile:  # fmt: skip
        if not isinstance(data, dict) or data.get("calibration") != "appearance":
            raise ProfileError(f"{source}: not an appearance profile")
        if data.get("version") != VERSION:
            raise ProfileError(
                f"{source}: profile version {data.get('version')!r}; this companion reads "
                f"{VERSION}: learn the board again (companion calibrate board)"
            )
        for name in ("game", "sheet", "settings", "squares", "pieces"):
            if name not in data:
                raise ProfileError(f"{source}: the field {name!r} is missing")
        if game is not None and data["game"] != game:
            raise ProfileError(f"{source}: a profile of {data['game']}, not {game}")
        if sheet is not None and data["sheet"] != sheet:
            raise ProfileError(
                f"{source}: learnt with the marker sheet {data['sheet']!r}, not {sheet!r}"
            )
        try:
            settings = Settings(**data["settings"])
        except TypeError as error:
            raise ProfileError(f"{source}: settings: {error}") from None
        return cls(data["game"], data["sheet"], settings, data["squares"], data["pieces"],
                   list(data.get("photos", [])))  # fmt: skip

    def save(self, path: str | Path) -> None:
        path = Path(path)
        temporary = path.with_name(path.name + ".new")
        temporary.write_text(json.dumps(self.to_json(), indent=1), encoding="utf-8")
        os.replace(temporary, path)

    @classmethod
    def load(cls, path: str | Path, **expect: Any) -> Profile:
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise ProfileError(f"{path}: not a readable profile: {error}") from None
        return cls.from_json(data, str(path), **expect)


def learn(
    empty: tuple[str, np.ndarray],
    setup_photo: tuple[str, np.ndarray],
    sheet: Sheet,
    setup: SetUp,
    *,
    camera: Any = None,
    settings: Settings = Settings(),
    progress: Callable[[str, str], None] | None = None,
) -> Profile:
    """Learn a profile from a photo of the empty board and one of the reference set-up
    (each a (name, BGR image) pair). A photo whose board is not visible, or whose set-up
    squares show no piece, is refused naming the photo and the squares."""
    report = progress or (lambda _name, _word: None)
    views = []
    for name, image in (empty, setup_photo):
        try:
            view = view_board(image, sheet, camera=camera, settings=settings)
        except ValueError as error:  # BoardNotVisible, a black frame, ...
            raise ProfileError(f"{name}: {error}") from None
        report(name, f"board found ({view.registration.rms_mm:.2f} mm), light corrected")
        views.append(view)
    bare, laid = views
    check_bare(bare, empty[0], sheet, setup, settings)
    squares = {}
    for name in square_names(sheet):
        pixels = square_pixels(bare, sheet, square_cell(sheet, name), settings).reshape(-1, 3)
        squares[name] = {"lab": _round(pixels.mean(0)), "spread": _round(pixels.std(0))}
    pieces: dict[str, dict[str, Any]] = {}
    missing = []
    for kind in setup.classes:
        colours, shares, silhouettes, instances = [], [], [], []
        for name in (n for n, k in setup.pieces.items() if k == kind):
            cell = square_cell(sheet, name)
            before = square_pixels(bare, sheet, cell, settings)
            after = square_pixels(laid, sheet, cell, settings)
            mask = delta_e(before, after) > settings.piece_delta_e
            share = float(mask.mean())
            if share < settings.least_share:
                missing.append(name)
                continue
            colours.append(after[mask])
            shares.append(share)
            silhouettes.append(silhouette(mask, settings.silhouette))
            instances.append({"square": name, "share": round(share, 4),
                              "silhouette": _round(silhouettes[-1].ravel()),
                              "shape": _round(shape_features(mask))})  # fmt: skip
        if not shares:
            continue
        stacked = np.concatenate(colours)
        pieces[kind] = {
            "lab": _round(stacked.mean(0)),
            "spread": _round(stacked.std(0)),
            "share": [round(float(np.mean(shares)), 4), round(float(np.std(shares)), 4)],
            "silhouette": _round(np.mean(silhouettes, axis=0).ravel()),
            # Each piece as it stood: a tall piece leans away from the camera, more the
            # further it is from the view's centre, so a reader compares a square with
            # the nearest example of each kind.
            "instances": instances,
        }
    if missing:
        raise ProfileError(
            f"{setup_photo[0]}: no piece seen on {', '.join(sorted(missing))}: lay out the "
            f"reference set-up (docs/calibration.md) and photograph it again"
        )
    report(setup_photo[0], f"learnt {len(pieces)} kinds of piece on {len(setup.pieces)} squares")
    return Profile(setup.game, sheet.name, settings, squares, pieces, [empty[0], setup_photo[0]])


def check_bare(view: BoardView, name: str, sheet: Sheet, setup: SetUp, settings: Settings) -> None:
    """Refuse an "empty" photo that shows pieces on the set-up's squares (the photos
    given the wrong way round, or the set-up not cleared): on a bare board each set-up
    square looks like some square the set-up leaves free."""
    means = {n: square_pixels(view, sheet, square_cell(sheet, n), settings).reshape(-1, 3)
             .mean(0) for n in square_names(sheet)}  # fmt: skip
    free = np.array([m for n, m in means.items() if n not in setup.pieces])
    limit = settings.piece_delta_e / 2
    odd = [n for n in setup.pieces if np.sqrt(((free - means[n]) ** 2).sum(1)).min() > limit]
    if len(odd) > len(setup.pieces) / 2:
        raise ProfileError(
            f"{name}: the empty board's photo shows something on {', '.join(sorted(odd))}: "
            "give the empty board's photo first, then the set-up's"
        )


def delta_e(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """CIE76 colour difference, per pixel, of two Lab pictures of one shape."""
    return np.sqrt(((a.astype(np.float32) - b.astype(np.float32)) ** 2).sum(axis=-1))


#: ``shape_features``' names, and the spread of each that counts as one unit of difference
#: (measured on rendered pieces: what separates the kinds, beyond the noise within one).
SHAPE_FEATURES = ("share", "circle_fill", "triangle_fill", "elongation")
SHAPE_SCALES = (0.08, 0.05, 0.05, 0.15)


def shape_features(mask: np.ndarray) -> np.ndarray:
    """A piece's outline described without regard to how it is turned: its share of the
    square, how much of its smallest enclosing circle and triangle it fills (a disc fills
    the circle, a triangle the triangle), and how elongated it is (an oval beetle)."""
    binary = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(binary, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return np.zeros(len(SHAPE_FEATURES), np.float32)
    outline = max(contours, key=cv2.contourArea)
    area = max(cv2.contourArea(outline), 1.0)
    radius = cv2.minEnclosingCircle(outline)[1]
    triangle = cv2.minEnclosingTriangle(outline)[0]
    width, height = cv2.minAreaRect(outline)[1]
    return np.array([
        area / mask.size,
        area / max(math.pi * radius * radius, 1.0),
        area / max(triangle, 1.0),
        max(width, height) / max(min(width, height), 1.0),
    ], np.float32)  # fmt: skip


def silhouette(mask: np.ndarray, side: int) -> np.ndarray:
    """A mask resampled to ``side`` x ``side`` values in 0-1 (the share of piece in each)."""
    return cv2.resize(mask.astype(np.float32), (side, side), interpolation=cv2.INTER_AREA)


def _round(values: Any) -> list[float]:
    return [round(float(v), 3) for v in np.asarray(values).ravel()]


def nearest_kind(profile: Profile, empty_lab: Sequence[float], square: np.ndarray) -> str:
    """The class a square's Lab pixels look most like: ``"empty"`` or a piece class. The
    simple use of a profile, for checking one (the readers do more)."""
    settings = profile.settings
    empty = np.asarray(empty_lab, np.float32)
    mask = np.sqrt(((square - empty) ** 2).sum(axis=-1)) > settings.piece_delta_e
    share = float(mask.mean())
    if share < settings.least_share:
        return "empty"
    shape = silhouette(mask, settings.silhouette).ravel()
    piece_colour = square[mask].mean(0)
    best, best_cost = "empty", math.inf
    for kind, seen in profile.pieces.items():
        colour_cost = float(np.linalg.norm(piece_colour - np.asarray(seen["lab"])))
        shape_cost = float(np.abs(shape - np.asarray(seen["silhouette"])).mean()) * 100
        cost = colour_cost + shape_cost
        if cost < best_cost:
            best, best_cost = kind, cost
    return best
