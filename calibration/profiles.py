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
  (the piece) give the piece's colour and its share of the square;
- each piece of the set-up is then looked at exactly as a reader looks at a square
  (``calibration.blobs``: its blob on the square-on picture at the reading's scale, the
  blob's colour and shape), so a reader compares what it sees with examples seen the
  same way.

The profile is a versioned JSON file (``docs/calibration.md``); ``Profile.load`` refuses
another kind, version, game or sheet. Thresholds are the named fields of ``Settings``.
"""

from __future__ import annotations

import functools
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

from calibration import blobs, colour, silhouettes, views
from calibration.board_plane import cell_boxes
from calibration.board_plane import rectify as rectify_board
from calibration.registration import Registration, register
from calibration.sheet import Sheet

VERSION = 3
#: The share of the set-up's squares whose piece may be passed over as too like its
#: square; more, and the photo is taken not to show the set-up.
MAY_MISS = 0.25


class ProfileError(ValueError):
    """A profile that cannot be learnt or used; says which photo, square or field."""


@dataclass(frozen=True)
class Settings:
    """How a profile is learnt. ``px_per_mm``: the square-on picture's scale (a 30 mm
    square is 60 px). ``inset_mm``: trimmed off each side of a square (its lines, a
    neighbour's shadow). ``piece_delta_e``: a pixel differs from the empty square by more
    than this (CIE76 Delta E) to count as the piece's. ``least_share``: a square of the
    set-up must be at least this much piece, or the photo does not show the set-up.
    ``margin_mm``: the picture's margin around the grid, wide enough for the markers'
    white quiet zones. ``shape_px_per_mm`` and ``shape_margin_mm``: the square-on picture
    pieces are looked at in, by the profile and by the reader alike (1 px per mm is 30 px
    across a Gimmel square: plenty for colours and outlines, and cheap).
    ``shade_range``: how far a square's own edge may say its light has changed (a
    shadow, a lamp) from the empty photo's. ``blob_delta_e``: once a square holds a
    piece, its pixels this unlike the empty board are the piece's blob (lower than
    ``piece_delta_e``: a white piece's top on a light square differs little).
    ``shadow_carried``: a square's light changes across it (a shadow's edge) where its
    neighbours either side carry the change on, by at least this share of it (0: by any
    amount, the same way; ``blobs.shaded_picture``), and it changes by at least
    ``shadow_least_change`` of its level; None: one level a square."""

    px_per_mm: float = 2.0
    inset_mm: float = 3.0
    piece_delta_e: float = 18.0
    least_share: float = 0.08
    margin_mm: float = 50.0
    shape_px_per_mm: float = 1.0
    shape_margin_mm: float = 2.0
    shade_range: tuple[float, float] = (0.4, 1.3)
    blob_delta_e: float = 18.0
    shadow_carried: float | None = 0.0
    shadow_least_change: float = 0.05


@dataclass(frozen=True)
class SetUp:
    """A game's reference set-up: which piece (``"white beetle"``) stands on which square."""

    game: str
    pieces: dict[str, str]

    @property
    def classes(self) -> tuple[str, ...]:
        return tuple(sorted(set(self.pieces.values())))

    def turned(self, sheet: Sheet) -> SetUp:
        """The set-up turned half a turn about the board's middle: each piece on the
        square opposite its own (a1 and h18 on Gimmel's 8 x 18 board). A tall piece
        looks different near the camera and far from it; the set-up and the set-up
        turned together show every kind at both ends of the board. A square keeps its
        colour when the board has an even number of squares along a side."""
        from rules.grid import Square

        columns = sheet.grid.columns
        turned = {}
        for name, kind in self.pieces.items():
            # The picture's row from the top is the turned square's row from White's edge.
            row, column = square_cell(sheet, name)  # checks the name against the board
            turned[str(Square(columns - 1 - column, row))] = kind
        return SetUp(self.game, turned)


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


@functools.lru_cache(maxsize=16)
def board_squares(sheet: Sheet) -> tuple[tuple[str, ...], tuple[tuple[int, int], ...]]:
    """Every square's name and (row, column) cell, in the grid picture's row-major
    order; worked out once a sheet, as every frame asks."""
    names = tuple(square_names(sheet))
    return names, tuple(square_cell(sheet, name) for name in names)


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
    image: np.ndarray,
    sheet: Sheet,
    *,
    camera: Any = None,
    settings: Settings = Settings(),
    shape: bool = False,
    registration: Registration | None = None,
) -> BoardView:
    """Register, correct the light from the markers' quiet zones, and look square-on:
    at ``settings.px_per_mm`` for colours, or at the pieces' scale with ``shape``."""
    if registration is None:
        registration = register(image, sheet, camera=camera)
    patches = white_patches(registration)
    reference = colour.measure(image, patches)
    gains = colour.correction(reference)
    corrected = colour.apply(image, gains)
    if shape:
        px_per_mm, margin_mm = settings.shape_px_per_mm, settings.shape_margin_mm
    else:
        px_per_mm, margin_mm = settings.px_per_mm, settings.margin_mm
    square_on = rectify_board(corrected, registration, px_per_mm, margin_mm)
    return BoardView(to_lab(square_on), registration, gains)


def square_centre_px(
    sheet: Sheet, cell: tuple[int, int], px_per_mm: float, margin_mm: float
) -> tuple[float, float]:
    """A square's middle in a square-on picture (``rectify``'s px)."""
    grid = sheet.grid
    row, col = cell
    return (((col + 0.5) * grid.cell_width_mm + margin_mm) * px_per_mm,
            ((row + 0.5) * grid.cell_height_mm + margin_mm) * px_per_mm)  # fmt: skip


def piece_blob(lab: np.ndarray, parts: np.ndarray, sheet: Sheet, cell: tuple[int, int],
               settings: Settings) -> blobs.Blob | None:  # fmt: skip
    """The blob of the piece on ``cell`` in a square-on picture at the pieces' scale
    (``parts``: ``blobs.blob_parts`` of its unlike pixels), as the profile and every
    reader find it."""
    px = settings.shape_px_per_mm
    centre = square_centre_px(sheet, cell, px, settings.shape_margin_mm)
    cell_px = min(sheet.grid.cell_width_mm, sheet.grid.cell_height_mm) * px
    return blobs.find_blob(lab, parts, centre, cell_px, px)


def white_patches(registration: Registration) -> list[tuple[np.ndarray, np.ndarray]]:
    """The markers' white quiet zones in the photo (image px), each a ring: its outline
    and, as a hole, the black square it surrounds; where the sheet is known to be white."""
    zones = [marker.quiet_zone() for marker in registration.sheet.markers
             if marker.id in registration.used]  # fmt: skip
    if not zones:
        return []
    # Through the lens in one call: a call a ring cost several times the work itself.
    points = registration.to_image(np.concatenate([np.concatenate(zone) for zone in zones]))
    rings = []
    start = 0
    for outer, inner in zones:
        middle, end = start + len(outer), start + len(outer) + len(inner)
        rings.append((points[start:middle], points[middle:end]))
        start = end
    return rings


def to_lab(image: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image.astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB)


def corrected_to_lab(image: np.ndarray, gains: Any) -> np.ndarray:
    """``to_lab(colour.apply(image, gains))``, the same values in fewer steps."""
    return cv2.cvtColor(colour.apply_unit(image, gains), cv2.COLOR_BGR2LAB)


def frame_pixels(view: BoardView, sheet: Sheet, settings: Settings) -> np.ndarray:
    """The Lab pixels of the band just outside the grid, as wide as the reading's
    margin (``shape_margin_mm``): the board's frame, where an edge piece may lean."""
    px, margin, band = settings.px_per_mm, settings.margin_mm, settings.shape_margin_mm
    grid = sheet.grid
    x0, y0 = round((margin - band) * px), round((margin - band) * px)
    x1 = round((margin + grid.width_mm + band) * px)
    y1 = round((margin + grid.height_mm + band) * px)
    inner = round(band * px)
    ring = np.zeros(view.lab.shape[:2], bool)
    ring[y0:y1, x0:x1] = True
    ring[y0 + inner : y1 - inner, x0 + inner : x1 - inner] = False
    return view.lab[ring].reshape(-1, 3)


def square_pixels(view: BoardView, sheet: Sheet, cell: tuple[int, int], settings: Settings):
    boxes = cell_boxes(sheet, settings.px_per_mm, settings.margin_mm, settings.inset_mm)
    x0, y0, x1, y1 = (int(v) for v in boxes[cell])
    return view.lab[y0:y1, x0:x1]


# -- the profile -------------------------------------------------------------------------


@dataclass
class Profile:
    """What a copy looks like: ``squares`` each square's empty Lab mean and spread;
    ``pieces`` for each class its colour (Lab mean and spread of its pixels), its share
    of the square (mean, spread) and ``instances``: each set-up piece of the class as a
    reader sees it (its square, its blob's Lab colour and shape features,
    ``calibration.blobs.SHAPE_FEATURES``, its view, and ``"turned": true`` for a piece of
    a photo of the set-up turned)."""

    game: str
    sheet: str
    settings: Settings
    squares: dict[str, dict[str, list[float]]]
    pieces: dict[str, dict[str, Any]]
    photos: list[str] = field(default_factory=list)
    #: The Lab colour of the board's frame just outside the grid, where a piece on an
    #: edge square may lean over.
    frame: list[float] | None = None
    #: Per colour of piece (``"white"``), the Lab colours its pieces show, without their
    #: shadows (``calibration.silhouettes.learn_palette``); empty for a game whose
    #: pieces' shapes are not known.
    palettes: dict[str, list[list[float]]] = field(default_factory=dict)
    #: Where the lamp was (board mm: x, y, height), from the set-up pieces' shadows;
    #: None when the light was too even to say.
    lamp: list[float] | None = None
    #: The pieces' shapes the profile was learnt with (a shapes file's contents,
    #: ``calibration.shapes``), so that a reader fits the same; None for a game whose
    #: pieces' shapes are not known.
    shapes: dict[str, Any] | None = None
    #: Where the camera was when the set-up was photographed (board mm: x, y, height);
    #: None for a profile learnt before it was kept. A mounted camera stays put, so what
    #: depends only on where it is (each kind's outline on each square) is worked out
    #: once a profile (``vision.readers.gimmel.prepare``).
    eye: list[float] | None = None
    #: Per colour of piece, the Lab colours its pieces' sides show (``learn_palette``
    #: with ``sides``): where a top mirrors the lamp, its side says its colour (see
    #: ``calibration.silhouettes.fit_scores``). Empty for a profile learnt before they
    #: were kept: the fit then compares sides with the whole palettes.
    side_palettes: dict[str, list[list[float]]] = field(default_factory=dict)

    @functools.cached_property
    def piece_shapes(self) -> Any:
        """``shapes`` as a ``calibration.shapes.PieceShapes``, or None."""
        from calibration.shapes import shapes_from_data

        return None if self.shapes is None else shapes_from_data(self.shapes, self.game)

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
            "frame": self.frame,
            "palettes": self.palettes,
            "lamp": self.lamp,
            "shapes": self.shapes,
            "eye": self.eye,
            "side_palettes": self.side_palettes,
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
        for name in ("game", "sheet", "settings", "squares", "pieces", "frame", "palettes", "lamp",
                     "shapes"):  # fmt: skip
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
        palettes = data["palettes"]
        side_palettes = data.get("side_palettes", {})  # absent before they were kept
        for name, found in (("palettes", palettes), ("side_palettes", side_palettes)):
            if not isinstance(found, dict) or not all(
                isinstance(p, list) and p and all(isinstance(c, list) and len(c) == 3 for c in p)
                for p in found.values()
            ):
                raise ProfileError(f"{source}: {name}: expected lists of Lab colours by colour")
        lamp = data["lamp"]
        if lamp is not None and (not isinstance(lamp, list) or len(lamp) != 3):
            raise ProfileError(f"{source}: lamp: expected [x, y, height] or null (got {lamp!r})")
        eye = data.get("eye")  # absent from profiles learnt before it was kept
        if eye is not None and (
            not isinstance(eye, list) or len(eye) != 3
            or not all(isinstance(v, (int, float)) and math.isfinite(v) for v in eye)
        ):  # fmt: skip
            raise ProfileError(f"{source}: eye: expected [x, y, height] or null (got {eye!r})")
        shapes = data["shapes"]
        if shapes is not None:
            from calibration.shapes import ShapesError, shapes_from_data

            try:
                shapes_from_data(shapes, data["game"], f"{source}: shapes")
            except ShapesError as error:
                raise ProfileError(str(error)) from None
        return cls(data["game"], data["sheet"], settings, data["squares"], data["pieces"],
                   list(data.get("photos", [])), data["frame"], palettes, lamp,
                   shapes, eye, side_palettes)  # fmt: skip

    def difference(self, lab: np.ndarray, sheet: Sheet) -> np.ndarray:
        """Each pixel's Delta E from the empty board as this profile knows it, on a
        square-on Lab picture at ``settings.shape_px_per_mm`` (``view_board`` with
        ``shape=True``); each square's lightness follows its own edge now."""
        return blobs.difference(lab, self.empty_board(lab, sheet))

    def square_colours(self, names: Sequence[str]) -> np.ndarray:
        """The empty squares' Lab colours as the empty photo showed them, in ``names``'
        order."""
        return np.array([self.squares[name]["lab"] for name in names], np.float32)

    def empty_board(
        self,
        lab: np.ndarray,
        sheet: Sheet,
        *,
        shadow_edges: bool = True,
        colours: np.ndarray | None = None,
    ) -> np.ndarray:
        """The square-on picture (as ``difference`` takes it) as the empty board would
        look now: each square its empty colour, its lightness following its own edge
        band, and changing across it where a shadow's edge crosses it
        (``blobs.shaded_picture``; not with ``shadow_edges`` False). ``colours``: the
        squares' ``square_colours`` in ``board_squares`` order, when the caller has them."""
        s = self.settings
        names, cells = board_squares(sheet)
        empty = self.square_colours(names) if colours is None else colours
        whole = cell_boxes(sheet, s.shape_px_per_mm, s.shape_margin_mm, 0.0)
        outside = np.asarray(self.frame if self.frame is not None else (0.0, 0.0, 0.0), np.float32)
        return blobs.shaded_picture(lab, whole, cells, empty, s.inset_mm * s.shape_px_per_mm,
                                    tuple(s.shade_range), outside,
                                    s.shadow_carried if shadow_edges else None,
                                    s.shadow_least_change)  # fmt: skip

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
    shapes: Any = None,
    more_setups: Sequence[tuple[str, np.ndarray]] = (),
    turned_setups: Sequence[tuple[str, np.ndarray]] = (),
) -> Profile:
    """Learn a profile from a photo of the empty board and one of the reference set-up
    (each a (name, BGR image) pair). A photo whose board is not visible, or whose set-up
    squares show no piece, is refused naming the photo and the squares. ``shapes``: the
    pieces' shapes (``calibration.shapes.PieceShapes``; the game's shipped file by
    default). ``more_setups``: more photos of the set-up, its pieces turned or nudged on
    their squares between photos: each piece of each is one more example of its kind (a
    reader compares a piece with the nearest example of each kind, so examples standing
    every way teach more than one way repeated); the palettes (the pieces' colours apart
    from their shadows) and where the lamp is come from the first set-up photo alone.
    ``turned_setups``: photos of the set-up turned half a turn (``SetUp.turned``), its
    pieces on the squares opposite theirs: examples of every kind at both ends of the
    board."""
    report = progress or (lambda _name, _word: None)
    views = []
    for name, image in (empty, setup_photo):
        views.append(_view(name, image, sheet, camera, settings, report))
    bare, laid = views
    check_bare(bare, empty[0], sheet, setup, settings)
    squares = {}
    for name in square_names(sheet):
        pixels = square_pixels(bare, sheet, square_cell(sheet, name), settings).reshape(-1, 3)
        squares[name] = {"lab": _round(pixels.mean(0)), "spread": _round(pixels.std(0))}
    frame = _round(frame_pixels(bare, sheet, settings).mean(0))
    # The set-up's pieces as a reader sees them: at the reading's scale, each square
    # against the empty board this profile knows.
    partial = Profile(setup.game, sheet.name, settings, squares, {}, frame=frame)
    first = _setup_examples(setup_photo, laid, bare, partial, sheet, setup, settings)
    examples = [first]
    turned = setup.turned(sheet)
    later = [(photo, setup) for photo in more_setups] + [(p, turned) for p in turned_setups]
    for (name, image), layout in later:
        view = _view(name, image, sheet, camera, settings, report)
        examples.append(_setup_examples((name, image), view, bare, partial, sheet, layout,
                                        settings, turned=layout is turned))  # fmt: skip
    pieces: dict[str, dict[str, Any]] = {}
    for kind in setup.classes:
        colours = [c for e in examples for c in e.colours.get(kind, [])]
        shares = [s for e in examples for s in e.shares.get(kind, [])]
        if not shares:
            continue
        stacked = np.concatenate(colours)
        pieces[kind] = {
            "lab": _round(stacked.mean(0)),
            "spread": _round(stacked.std(0)),
            "share": [round(float(np.mean(shares)), 4), round(float(np.std(shares)), 4)],
            # Each piece as it stood: a tall piece leans away from the camera, more the
            # further it is from the view's centre, so a reader compares a square with
            # the nearest example of each kind.
            "instances": [i for e in examples for i in e.instances.get(kind, [])],
        }
    unseen = [kind for kind in setup.classes if not pieces.get(kind, {}).get("instances")]
    if unseen:  # a kind not seen at all: the set-up is not what the photos show
        squares_of = sorted(n for n, k in setup.pieces.items() if k in unseen)
        raise ProfileError(
            f"{setup_photo[0]}: no piece seen on {', '.join(squares_of)} ({', '.join(unseen)}): "
            f"lay out the reference set-up (docs/calibration.md) and photograph it again"
        )
    for ((name, _), _), found in zip([(setup_photo, setup), *later], examples, strict=True):
        if found.missing:
            report(name, f"passed over {', '.join(sorted(found.missing))}: the piece there "
                   "differs too little from its square to learn from")  # fmt: skip
    on = len(setup.pieces) - len(first.missing)
    said = f"learnt {len(pieces)} kinds of piece on {on} squares"
    if later:
        taught = sum(len(p["instances"]) for p in pieces.values())
        said += f", {taught} examples from {len(examples)} photos of the set-up"
        if turned_setups:
            said += f", {len(turned_setups)} of them turned"
    report(setup_photo[0], said)
    shown = {name: kind for name, kind in setup.pieces.items() if name not in first.missing}
    if shapes is None:
        from calibration.shapes import ShapesError, load_shapes

        try:
            shapes = load_shapes(setup.game)
        except ShapesError:
            shapes = None  # a game whose pieces' shapes are not known
    palettes, side_palettes, lamp = ({}, {}, None) if shapes is None else learn_light(
        first.shape_view, first.empty_view, first.unlike, sheet, shapes, shown,
        settings)  # fmt: skip
    if palettes:
        where = "too even to place the lamp" if lamp is None else (
            f"the lamp {lamp[2] / 1000:.1f} m above the board")  # fmt: skip
        report(setup_photo[0], f"learnt the pieces' colours apart from their shadows; {where}")
    photos = [empty[0], setup_photo[0], *(name for (name, _), _ in later)]
    eye = silhouettes.board_eye(laid.registration)
    return Profile(setup.game, sheet.name, settings, squares, pieces, photos, frame,
                   palettes, lamp, None if shapes is None else shapes.data,
                   None if eye is None else _round(eye), side_palettes)  # fmt: skip


def _view(name: str, image: np.ndarray, sheet: Sheet, camera: Any, settings: Settings,
          report: Callable[[str, str], None]) -> BoardView:  # fmt: skip
    """A photo seen square-on (``view_board``), said so; refused by its name."""
    try:
        view = view_board(image, sheet, camera=camera, settings=settings)
    except ValueError as error:  # BoardNotVisible, a black frame, ...
        raise ProfileError(f"{name}: {error}") from None
    report(name, f"board found ({view.registration.rms_mm:.2f} mm), light corrected")
    return view


@dataclass
class _Examples:
    """What one photo of the set-up teaches: per class, its pieces' pixels, their shares
    of their squares and the pieces as a reader sees them (``instances``); the squares
    where no piece was seen; and the photo at the reading's scale with the empty board
    and their difference (for ``learn_light``)."""

    colours: dict[str, list[np.ndarray]]
    shares: dict[str, list[float]]
    instances: dict[str, list[dict[str, Any]]]
    missing: list[str]
    shape_view: BoardView
    empty_view: np.ndarray
    unlike: np.ndarray


def _setup_examples(
    photo: tuple[str, np.ndarray],
    laid: BoardView,
    bare: BoardView,
    partial: Profile,
    sheet: Sheet,
    setup: SetUp,
    settings: Settings,
    *,
    turned: bool = False,
) -> _Examples:
    """The pieces one photo of the set-up shows (``laid``, its view for colours), each
    against the empty board (``bare``); refused, naming the photo and the squares, when
    many squares show none (the photo is not of the set-up). ``turned``: a photo of the
    set-up turned (``SetUp.turned``), each of its instances marked so (``"turned"``)."""
    shape_view = view_board(photo[1], sheet, settings=settings, shape=True,
                            registration=laid.registration)  # fmt: skip
    # A set-up photo has no hand over the board; the change across a square there is its
    # piece's shadow or a neighbour's, which the pieces' examples are learnt with. (Drawn
    # as a shadow's edge, it cost two kinds misread on rendered seed 42.)
    empty_view = partial.empty_board(shape_view.lab, sheet, shadow_edges=False)
    unlike = blobs.difference(shape_view.lab, empty_view)
    parts = blobs.blob_parts(unlike > settings.blob_delta_e)
    found = _Examples({}, {}, {}, [], shape_view, empty_view, unlike)
    for name, kind in setup.pieces.items():
        cell = square_cell(sheet, name)
        before = square_pixels(bare, sheet, cell, settings)
        after = square_pixels(laid, sheet, cell, settings)
        apart = blobs.difference(np.ascontiguousarray(before), np.ascontiguousarray(after))
        mask = apart > settings.piece_delta_e
        share = float(mask.mean())
        if share < settings.least_share:
            found.missing.append(name)
            continue
        found.colours.setdefault(kind, []).append(after[mask])
        found.shares.setdefault(kind, []).append(share)
        blob = piece_blob(shape_view.lab, parts, sheet, cell, settings)
        if blob is None:  # too like its square at the reading's scale to teach a shape
            continue
        found.instances.setdefault(kind, []).append(
            {"square": name, "share": round(share, 4), "lab": _round(blob.colour),
             "shape": _round(blob.features)} | ({"turned": True} if turned else {}))  # fmt: skip
    _add_views(photo[1], laid, empty_view, found.instances, sheet, settings)
    # A piece or two much like its square (a white beetle on a light square in a dim
    # corner) teaches nothing and is passed over; many squares bare mean the photo is
    # not of the set-up.
    if len(found.missing) > len(setup.pieces) * MAY_MISS:
        raise ProfileError(
            f"{photo[0]}: no piece seen on {', '.join(sorted(found.missing))}: lay out the "
            f"reference set-up (docs/calibration.md) and photograph it again"
        )
    return found


def _add_views(
    image: np.ndarray,
    laid: BoardView,
    empty_view: np.ndarray,
    instances: dict[str, list[dict[str, Any]]],
    sheet: Sheet,
    settings: Settings,
) -> None:
    """Each set-up piece's view as the camera saw it (``calibration.views``), kept with
    its instance for readers to compare pieces with; none when the camera's place cannot
    be worked out from the photo."""
    eye = silhouettes.board_eye(laid.registration)
    found = [i for kind in instances.values() for i in kind]
    if eye is None or not found:
        return
    bases = [square_centre_px(sheet, square_cell(sheet, i["square"]), 1.0, 0.0) for i in found]
    lightness, unlike = views.piece_views(
        image, laid.registration.to_image, eye, bases, empty_view,
        settings.shape_px_per_mm, settings.shape_margin_mm, corrected_lab(laid.gains),
    )  # fmt: skip
    for instance, light, apart in zip(found, lightness, unlike, strict=True):
        instance["view"] = views.encode(light, apart)


def corrected_lab(gains: Any) -> Callable[[np.ndarray], np.ndarray]:
    """BGR pixels of any shape (..., 3) to Lab, their light corrected by ``gains``."""

    def convert(pixels: np.ndarray) -> np.ndarray:
        # One row: OpenCV converts row by row, and a column of one-pixel rows costs
        # about four times as much (the same values).
        flat = np.ascontiguousarray(pixels.reshape(1, -1, 3))
        return corrected_to_lab(flat, gains).reshape((*pixels.shape[:-1], 3))

    return convert


def learn_light(
    view: BoardView,
    empty: np.ndarray,
    unlike: np.ndarray,
    sheet: Sheet,
    shapes: Any,
    shown: dict[str, str],
    settings: Settings,
) -> tuple[dict[str, list[list[float]]], dict[str, list[list[float]]], list[float] | None]:
    """The pieces' colours apart from their shadows, their sides' alone, and where the
    lamp is, from the set-up photo (``view`` at the reading's scale, the ``empty``
    board's picture and the ``unlike`` difference): each set-up piece in ``shown`` is
    fitted with its kind's shape (``shapes``, ``calibration.silhouettes``)."""
    px, margin = settings.shape_px_per_mm, settings.shape_margin_mm
    grid = sheet.grid
    eye = silhouettes.board_eye(view.registration)

    def middle(name: str) -> np.ndarray:
        row, col = square_cell(sheet, name)
        return np.array([(col + 0.5) * grid.cell_width_mm, (row + 0.5) * grid.cell_height_mm])

    known = [(kind, middle(name)) for name, kind in shown.items()]
    seen = silhouettes.fit_known(unlike, known, shapes, eye, px, margin)

    def palettes(sides: bool) -> dict[str, list[list[float]]]:
        learnt = silhouettes.learn_palette(view.lab, unlike, seen, px, margin, sides=sides)
        return {colour: [_round(c) for c in palette] for colour, palette in learnt.items()}

    centre = np.array([grid.width_mm / 2, grid.height_mm / 2])
    lamp = silhouettes.learn_lamp(view.lab, empty, unlike, seen, shapes, eye, centre, px, margin)
    return palettes(sides=False), palettes(sides=True), None if lamp is None else _round(lamp)


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


def _round(values: Any) -> list[float]:
    return [round(float(v), 3) for v in np.asarray(values).ravel()]
