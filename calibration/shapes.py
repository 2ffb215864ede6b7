"""The pieces of a game in three dimensions, from a shapes file (``calibration/pieces/``).

A camera sees a tall piece lean away from it and its shadow fall away from the lamp; to
tell a falcon from a beetle by what it covers on the board, a reader needs each kind's
shape and size. Those are physical facts of a copy, so they are data: a documented file
per game with defaults fitted to the shipped board, which a user whose pieces differ
replaces with their own (``load_shapes(game, path)``). The renderer draws its pieces
from the same file, so the two cannot disagree.

Each kind is a convex solid standing on the board, given by points on its outline
(``Solid.points``: x, y in mm about its foot's centre, its first corner or its length
along +x; height in mm up from the board), and how far it turns before it looks the same
from above (``Solid.symmetry_deg``: a round falcon never changes, a three-sided cat every
120 degrees, a beetle every 180).
"""

from __future__ import annotations

import functools
import math
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

SHAPES_VERSION = 1
#: The forms a shapes file may give and the sizes each needs.
FORMS = {
    "cylinder": ("diameter_mm", "height_mm"),
    "prism": ("sides", "base_circumradius_mm", "top_circumradius_mm", "height_mm"),
    "dome": ("length_mm", "width_mm", "height_mm", "legs_mm"),
}
#: Points round a circle or an ellipse's outline: enough that the polygon's outline is
#: within a tenth of a millimetre of the curve's at these sizes.
ROUND = 24
#: Heights at which a dome's outline is taken (share of its height).
DOME_LAYERS = (0.0, 0.45, 0.75, 0.95)


class ShapesError(ValueError):
    """A shapes file that cannot be used; says which file and field, and what it held."""


@dataclass(frozen=True, eq=False)
class Solid:
    """One kind's shape: its ``form`` and ``sizes`` as the file gives them, the
    ``points`` (N, 3) of its outline, its ``height_mm`` and ``symmetry_deg``."""

    kind: str
    form: str
    sizes: tuple[tuple[str, float], ...]
    points: np.ndarray
    height_mm: float
    symmetry_deg: float

    def size(self, name: str) -> float:
        return dict(self.sizes)[name]


@dataclass(frozen=True, eq=False)
class PieceShapes:
    """A game's pieces: a ``Solid`` per kind (``"falcon"``, ...), and the file's ``data``
    as read (an appearance profile keeps it: ``calibration.profiles``)."""

    game: str
    solids: tuple[Solid, ...]
    data: dict[str, Any]

    def __getitem__(self, kind: str) -> Solid:
        for solid in self.solids:
            if solid.kind == kind:
                return solid
        raise KeyError(kind)

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(solid.kind for solid in self.solids)


@functools.lru_cache(maxsize=8)
def load_shapes(game: str, path: str | None = None) -> PieceShapes:
    """The shapes of ``game``'s pieces: the shipped file, or the one at ``path``."""
    if path is None:
        resource = resources.files("calibration.pieces").joinpath(f"{game}.toml")
        if not resource.is_file():
            raise ShapesError(f"{game} has no shapes file for its pieces")
        source, text = f"calibration/pieces/{game}.toml", resource.read_text(encoding="utf-8")
    else:
        source = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise ShapesError(f"{source}: not readable: {error}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ShapesError(f"{source}: not a TOML file: {error}") from None
    return shapes_from_data(data, game, source)


def shapes_from_data(data: Any, game: str, source: str = "shapes") -> PieceShapes:
    """Validate a parsed shapes file and build each kind's solid."""
    if not isinstance(data, dict):
        raise ShapesError(f"{source}: expected a table of pieces (got {type(data).__name__})")
    if data.get("shapes") != SHAPES_VERSION:
        found = data.get("shapes")
        raise ShapesError(f"{source}: shapes = {SHAPES_VERSION} expected (got {found!r})")
    if data.get("game") != game:
        raise ShapesError(f"{source}: game = {game!r} expected (got {data.get('game')!r})")
    solids = []
    for kind, table in data.items():
        if kind in ("shapes", "game"):
            continue
        if not isinstance(table, dict):
            raise ShapesError(f"{source}: [{kind}] expected a table of its form and sizes")
        solids.append(_solid(kind, table, f"{source}: [{kind}]"))
    if not solids:
        raise ShapesError(f"{source}: no piece's shape is given")
    return PieceShapes(game, tuple(solids), data)


def _solid(kind: str, table: dict[str, Any], where: str) -> Solid:
    form = table.get("form")
    if form not in FORMS:
        raise ShapesError(f"{where} form: one of {', '.join(FORMS)} expected (got {form!r})")
    sizes = {}
    for name in FORMS[form]:
        value = table.get(name)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise ShapesError(f"{where} {name}: a number expected (got {value!r})")
        if not (0 < value <= 1000) and not (name == "legs_mm" and value == 0):
            raise ShapesError(f"{where} {name}: more than 0 and at most 1000 expected ({value!r})")
        sizes[name] = float(value)
    for name in table:
        if name != "form" and name not in FORMS[form]:
            raise ShapesError(f"{where} {name}: not a size of a {form} ({', '.join(FORMS[form])})")
    if form == "prism":
        if int(sizes["sides"]) != sizes["sides"] or sizes["sides"] < 3:
            sides = sizes["sides"]
            raise ShapesError(f"{where} sides: a whole number of at least 3 (got {sides!r})")
        if sizes["top_circumradius_mm"] > sizes["base_circumradius_mm"]:
            raise ShapesError(f"{where}: a prism's top is no wider than its base")
    points, symmetry = OUTLINES[form](sizes)
    return Solid(kind, form, tuple(sizes.items()), points, sizes["height_mm"], symmetry)


def _ring(radius_x: float, radius_y: float, height: float, n: int) -> np.ndarray:
    angles = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.column_stack(
        [radius_x * np.cos(angles), radius_y * np.sin(angles), np.full(n, height)]
    )


def _cylinder(sizes: dict[str, float]) -> tuple[np.ndarray, float]:
    r, h = sizes["diameter_mm"] / 2, sizes["height_mm"]
    return np.vstack([_ring(r, r, 0.0, ROUND), _ring(r, r, h, ROUND)]), 360.0


def _prism(sizes: dict[str, float]) -> tuple[np.ndarray, float]:
    n = int(sizes["sides"])
    base, top = sizes["base_circumradius_mm"], sizes["top_circumradius_mm"]
    h = sizes["height_mm"]
    return np.vstack([_ring(base, base, 0.0, n), _ring(top, top, h, n)]), 360.0 / n


def _dome(sizes: dict[str, float]) -> tuple[np.ndarray, float]:
    a, b, h = sizes["length_mm"] / 2, sizes["width_mm"] / 2, sizes["height_mm"]
    layers = []
    for share in DOME_LAYERS:
        across = math.sqrt(max(0.0, 1.0 - share * share))
        layers.append(_ring(a * across, b * across, h * share, ROUND))
    legs = sizes["legs_mm"]
    if legs:  # the leg tips, three a side, just above the board
        tips = [(x * a, side * (b + legs), 0.5) for x in (-0.6, 0.05, 0.65) for side in (-1, 1)]
        layers.append(np.array(tips))
    return np.vstack(layers), 180.0


OUTLINES = {"cylinder": _cylinder, "prism": _prism, "dome": _dome}
