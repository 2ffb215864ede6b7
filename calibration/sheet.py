"""Marker sheets: which ArUco markers a game's board carries, and where, in millimetres.

A *sheet* (``calibration/sheets/<game>.toml``, or a user's own file) is the physical
contract between the printed markers and the registration that finds the board in every
frame: the ArUco dictionary, the marker size, the white quiet zone around each marker,
the board's playing grid, and each marker's id and position. All positions are in *board
millimetres*: the origin is the playing grid's top-left corner as the sheet shows it, x
runs to the right and y down. The layout and its fields are documented in
``docs/calibration.md`` ("Marker sheets and registration").

Like a kit, a sheet is data with a documented best guess (the Gimmel board's cell size is
a physical fact the rulebook's pictures would hold): a user measures their own board and
writes their own sheet. A sheet is checked when it is read; an impossible sheet is refused
with a ``SheetError`` that names the field and quotes the value.

Where a game's kit knows the grid (Gimmel's ``board.columns`` and ``board.rows``), the
sheet may leave ``grid.columns`` and ``grid.rows`` out and take them from the kit, and its
markers may be placed by ``corner`` ("diagonally outside that corner of the grid, the
cut-out square's corner touching it"), so that a kit with another board size moves the
markers with it.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import cv2
import numpy as np

#: The sheet file format version this module reads.
SHEET_VERSION = 1

#: Where a marker placed by ``corner`` sits: the grid corner it touches, as (x, y)
#: fractions of the grid's width and height, and the direction (sign of x, sign of y)
#: from that corner to the marker's centre.
CORNERS: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {
    "top-left": ((0, 0), (-1, -1)),
    "top-right": ((1, 0), (1, -1)),
    "bottom-right": ((1, 1), (1, 1)),
    "bottom-left": ((0, 1), (-1, 1)),
}

#: Limits on a sheet's sizes, in millimetres: anything outside is a typing mistake.
MIN_MARKER_MM = 5.0
MAX_MARKER_MM = 500.0
MIN_CELL_MM = 1.0
MAX_CELL_MM = 500.0
MAX_GRID_CELLS = 100
#: How far a marker may lie from the grid, in millimetres (a mat around a play area).
MAX_REACH_MM = 5000.0
#: Two squares closer than this (in mm) count as touching, not overlapping.
TOUCH_TOLERANCE_MM = 1e-6

_TOP_FIELDS = (
    "sheet",
    "game",
    "name",
    "description",
    "orientation_en",
    "orientation_de",
    "grid",
    "aruco",
    "markers",
)


class SheetError(ValueError):
    """A marker sheet that is malformed or impossible. ``field`` names the field, such
    as ``markers[2].id``; the message quotes the value."""

    def __init__(self, where: str, field: str, problem: str, value: Any = None) -> None:
        self.where = where
        self.field = field
        self.problem = problem
        self.value = value
        shown = "" if value is None else f" (got {value!r})"
        super().__init__(f"{where}, field {field!r}: {problem}{shown}")


@dataclass(frozen=True)
class Grid:
    """The board's playing grid: ``columns`` x ``rows`` cells of ``cell_width_mm`` x
    ``cell_height_mm``, its top-left corner at the origin of board millimetres."""

    columns: int
    rows: int
    cell_width_mm: float
    cell_height_mm: float

    @property
    def width_mm(self) -> float:
        return self.columns * self.cell_width_mm

    @property
    def height_mm(self) -> float:
        return self.rows * self.cell_height_mm

    def corners(self) -> np.ndarray:
        """The grid's outline in board mm, shape (4, 2): top-left, top-right,
        bottom-right, bottom-left."""
        w, h = self.width_mm, self.height_mm
        return np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]])


@dataclass(frozen=True)
class SheetMarker:
    """One marker of a sheet: its ArUco ``id``, its ``centre`` in board mm, the side of
    its black square (``size_mm``) and the width of the white quiet zone around it
    (``quiet_zone_mm``). ``corner`` names the grid corner it is stuck at, or is None for
    a marker placed by ``centre_mm``. Markers are printed and stuck upright: their top
    edge faces the board's top edge (y decreasing)."""

    id: int
    centre: tuple[float, float]
    size_mm: float
    quiet_zone_mm: float
    corner: str | None = None

    @property
    def cut_mm(self) -> float:
        """The side of the cut-out square: the marker and its quiet zone."""
        return self.size_mm + 2 * self.quiet_zone_mm

    def corners(self) -> np.ndarray:
        """The black square's corners in board mm, shape (4, 2), in ArUco's order:
        top-left, top-right, bottom-right, bottom-left (as the marker is printed)."""
        return _square(self.centre, self.size_mm)

    def quiet_zone(self) -> tuple[np.ndarray, np.ndarray]:
        """The white quiet zone as a polygon with a hole, in board mm: (outer, inner),
        each shape (4, 2). ``cv2.fillPoly(mask, [outer, inner], 255)`` on points mapped to
        the image fills the ring only, the white reference for colour correction."""
        return _square(self.centre, self.cut_mm), self.corners()

    def outline(self) -> np.ndarray:
        """The cut-out square (marker and quiet zone) in board mm, shape (4, 2)."""
        return _square(self.centre, self.cut_mm)


@dataclass(frozen=True)
class Sheet:
    """A validated marker sheet. ``dictionary`` is an OpenCV ArUco dictionary name such
    as ``DICT_4X4_50``; ``markers`` are in the file's order."""

    game: str
    name: str
    description: str
    dictionary: str
    marker_mm: float
    quiet_zone_mm: float
    grid: Grid
    markers: tuple[SheetMarker, ...]
    orientation_en: str = ""
    orientation_de: str = ""

    @property
    def ids(self) -> tuple[int, ...]:
        return tuple(m.id for m in self.markers)

    def marker(self, marker_id: int) -> SheetMarker:
        for m in self.markers:
            if m.id == marker_id:
                return m
        raise KeyError(marker_id)

    def aruco_dictionary(self) -> Any:
        """The OpenCV dictionary object (``cv2.aruco.Dictionary``)."""
        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))

    def marker_cells(self, marker_id: int) -> np.ndarray:
        """The marker's cells including its black border, 1 = white, shape (n + 2, n + 2)
        (uint8), as the sheet prints it."""
        dictionary = self.aruco_dictionary()
        cells = int(dictionary.markerSize) + 2
        image = cv2.aruco.generateImageMarker(dictionary, marker_id, cells, borderBits=1)
        return (np.asarray(image).reshape(cells, cells) > 127).astype(np.uint8)

    def bounds_mm(self) -> tuple[float, float, float, float]:
        """(left, top, right, bottom) of the grid and every cut-out square, in mm."""
        points = np.vstack([self.grid.corners(), *(m.outline() for m in self.markers)])
        low, high = points.min(axis=0), points.max(axis=0)
        return float(low[0]), float(low[1]), float(high[0]), float(high[1])


def _square(centre: tuple[float, float], side: float) -> np.ndarray:
    x, y = centre
    h = side / 2
    return np.array([[x - h, y - h], [x + h, y - h], [x + h, y + h], [x - h, y + h]])


def dictionary_names() -> tuple[str, ...]:
    """The predefined ArUco dictionaries this OpenCV offers, by name."""
    return tuple(sorted(n for n in dir(cv2.aruco) if n.startswith("DICT_")))


def dictionary_bits(name: str) -> int:
    """Bits across a marker of the dictionary ``name`` (4 for DICT_4X4_50)."""
    return int(cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, name)).markerSize)


def default_sheet_path(game: str) -> Path:
    return Path(str(resources.files("calibration").joinpath("sheets", f"{game}.toml")))


def load_sheet(game: str, path: str | Path | None = None, *, kit: Any = None) -> Sheet:
    """The validated sheet for ``game``: from ``path``, or the shipped one.

    ``kit`` (a kit object with ``columns`` and ``rows``, as ``rules.kits.load_kit``
    returns) gives the grid when the sheet leaves it out; None means the game's shipped
    kit, where the game is registered. A sheet that states its grid must agree with a
    kit that is passed."""
    file = Path(path) if path is not None else default_sheet_path(game)
    where = f"{game} marker sheet {file.name}"
    try:
        raw = file.read_bytes()
    except OSError as error:
        raise SheetError(where, "(file)", f"cannot read {file}: {error.strerror}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise SheetError(where, "(file)", f"{file} is not a readable TOML file: {error}") from None
    return sheet_from_data(data, game=game, kit=kit, where=where)


def sheet_from_data(
    data: Any, *, game: str | None = None, kit: Any = None, where: str | None = None
) -> Sheet:
    """A sheet from its parsed TOML (a dict), validated; ``game`` if given must match."""
    return _Reader(where or f"{game or 'the'} marker sheet").sheet(data, game, kit)


class _Reader:
    """Reads one sheet document, every error naming its field."""

    def __init__(self, where: str) -> None:
        self.where = where

    def fail(self, field: str, problem: str, value: Any = None) -> SheetError:
        return SheetError(self.where, field, problem, value)

    def table(
        self, value: Any, field: str, required: tuple[str, ...], optional: tuple[str, ...] = ()
    ) -> Mapping[str, Any]:
        """A table with the ``required`` keys and perhaps ``optional`` ones, no others."""
        if not isinstance(value, dict):
            raise self.fail(field or "(top)", "expected a table", value)
        prefix = f"{field}." if field else ""
        for key in value:
            if key not in required and key not in optional:
                known = ", ".join((*required, *optional))
                raise self.fail(f"{prefix}{key}", f"unknown field; expected {known}")
        for key in required:
            if key not in value:
                raise self.fail(f"{prefix}{key}", "missing")
        return value

    def number(self, value: Any, field: str, low: float, high: float) -> float:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise self.fail(field, f"expected a number of millimetres from {low} to {high}", value)
        if not low <= value <= high:
            raise self.fail(field, f"expected a number of millimetres from {low} to {high}", value)
        return float(value)

    def whole(self, value: Any, field: str, low: int, high: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise self.fail(field, f"expected a whole number from {low} to {high}", value)
        return value

    def text(self, value: Any, field: str, *, empty: bool = True) -> str:
        if not isinstance(value, str) or (not empty and not value.strip()):
            raise self.fail(field, "expected text" if empty else "expected a non-empty name", value)
        return value

    def sheet(self, data: Any, game: str | None, kit: Any) -> Sheet:
        top = self.table(
            data, "", ("sheet", "game", "name", "aruco", "grid", "markers"), _TOP_FIELDS
        )
        if top["sheet"] != SHEET_VERSION:
            raise self.fail("sheet", f"expected sheet format version {SHEET_VERSION}", top["sheet"])
        sheet_game = self.text(top["game"], "game", empty=False)
        if game is not None and sheet_game != game:
            raise self.fail("game", f"expected {game!r}", sheet_game)
        name = self.text(top["name"], "name", empty=False)
        description = self.text(top.get("description", ""), "description")
        orientation_en = self.text(top.get("orientation_en", ""), "orientation_en")
        orientation_de = self.text(top.get("orientation_de", ""), "orientation_de")

        dictionary, marker_mm, quiet_mm, limit = self.aruco(top)
        grid = self.grid(top, sheet_game, kit)
        markers = self.markers(top, grid, marker_mm, quiet_mm, limit)
        return Sheet(
            game=sheet_game,
            name=name,
            description=description,
            dictionary=dictionary,
            marker_mm=marker_mm,
            quiet_zone_mm=quiet_mm,
            grid=grid,
            markers=markers,
            orientation_en=orientation_en,
            orientation_de=orientation_de,
        )

    def aruco(self, top: Mapping[str, Any]) -> tuple[str, float, float, int]:
        aruco = self.table(top["aruco"], "aruco", ("dictionary", "marker_mm", "quiet_zone_mm"))
        dictionary = aruco["dictionary"]
        known = dictionary_names()
        if not isinstance(dictionary, str) or dictionary not in known:
            raise self.fail(
                "aruco.dictionary",
                "unknown ArUco dictionary; OpenCV offers " + ", ".join(known),
                dictionary,
            )
        marker_mm = self.number(aruco["marker_mm"], "aruco.marker_mm", MIN_MARKER_MM, MAX_MARKER_MM)
        quiet_mm = self.number(aruco["quiet_zone_mm"], "aruco.quiet_zone_mm", 0.0, MAX_MARKER_MM)
        module = marker_mm / (dictionary_bits(dictionary) + 2)
        if quiet_mm < module:
            raise self.fail(
                "aruco.quiet_zone_mm",
                f"must be at least one module of the marker ({module:g} mm for a "
                f"{marker_mm:g} mm {dictionary} marker), or the marker is not found",
                aruco["quiet_zone_mm"],
            )
        size = int(
            cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary)).bytesList.shape[0]
        )
        return dictionary, marker_mm, quiet_mm, size

    def grid(self, top: Mapping[str, Any], game: str, kit: Any) -> Grid:
        grid = self.table(top["grid"], "grid", ("cell_mm",), ("columns", "rows"))
        cell = grid["cell_mm"]
        if isinstance(cell, list):
            if len(cell) != 2:
                raise self.fail("grid.cell_mm", "expected a number or [width, height]", cell)
            width = self.number(cell[0], "grid.cell_mm[0]", MIN_CELL_MM, MAX_CELL_MM)
            height = self.number(cell[1], "grid.cell_mm[1]", MIN_CELL_MM, MAX_CELL_MM)
        else:
            width = height = self.number(cell, "grid.cell_mm", MIN_CELL_MM, MAX_CELL_MM)
        stated = {
            k: self.whole(grid[k], f"grid.{k}", 1, MAX_GRID_CELLS)
            for k in ("columns", "rows")
            if k in grid
        }
        if len(stated) == 1:
            missing = "rows" if "columns" in stated else "columns"
            raise self.fail(
                f"grid.{missing}", "state both columns and rows, or neither (then the kit's)"
            )
        if kit is None and not stated:
            kit = _shipped_kit(game)
            if kit is None:
                raise self.fail("grid.columns", f"missing, and no kit of {game!r} knows its grid")
        if kit is not None:
            from_kit = {}
            for key in ("columns", "rows"):
                value = getattr(kit, key, None)
                if not isinstance(value, int):
                    raise self.fail(f"grid.{key}", f"missing, and the kit has no board {key}")
                from_kit[key] = value
            for key, value in stated.items():
                if value != from_kit[key]:
                    raise self.fail(
                        f"grid.{key}",
                        f"disagrees with the kit's board.{key} ({from_kit[key]})",
                        value,
                    )
            stated = from_kit
        return Grid(stated["columns"], stated["rows"], width, height)

    def markers(
        self, top: Mapping[str, Any], grid: Grid, marker_mm: float, quiet_mm: float, limit: int
    ) -> tuple[SheetMarker, ...]:
        entries = top["markers"]
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise self.fail("markers", "expected an array of tables ([[markers]])", entries)
        if len(entries) < 3:
            raise self.fail(
                "markers", "at least 3 markers: registration needs three in view", len(entries)
            )
        markers: list[SheetMarker] = []
        for index, entry in enumerate(entries):
            field = f"markers[{index}]"
            self.table(entry, field, ("id",), ("corner", "centre_mm"))
            marker_id = self.whole(entry["id"], f"{field}.id", 0, limit - 1)
            if any(m.id == marker_id for m in markers):
                raise self.fail(
                    f"{field}.id", "duplicate id: each marker's id appears once", marker_id
                )
            cut = marker_mm + 2 * quiet_mm
            if ("corner" in entry) == ("centre_mm" in entry):
                raise self.fail(field, "give either corner or centre_mm")
            if "corner" in entry:
                corner = entry["corner"]
                if corner not in CORNERS:
                    raise self.fail(
                        f"{field}.corner", "expected one of " + ", ".join(CORNERS), corner
                    )
                (fx, fy), (sx, sy) = CORNERS[corner]
                centre = (fx * grid.width_mm + sx * cut / 2, fy * grid.height_mm + sy * cut / 2)
            else:
                corner = None
                value = entry["centre_mm"]
                if not isinstance(value, list) or len(value) != 2:
                    raise self.fail(f"{field}.centre_mm", "expected [x, y] in millimetres", value)
                centre = (
                    self.number(value[0], f"{field}.centre_mm", -MAX_REACH_MM, MAX_REACH_MM),
                    self.number(value[1], f"{field}.centre_mm", -MAX_REACH_MM, MAX_REACH_MM),
                )
            marker = SheetMarker(marker_id, centre, marker_mm, quiet_mm, corner)
            what = f"{field}.corner" if corner else f"{field}.centre_mm"
            shown = corner if corner else entry["centre_mm"]
            if _overlap(marker.outline(), grid.corners()):
                raise self.fail(
                    what,
                    "the marker and its quiet zone overlap the playing grid "
                    f"(0..{grid.width_mm:g} x 0..{grid.height_mm:g} mm)",
                    shown,
                )
            for other in markers:
                if _overlap(marker.outline(), other.outline()):
                    raise self.fail(
                        what, f"overlaps marker {other.id} with their quiet zones", shown
                    )
            markers.append(marker)
        return tuple(markers)


def _overlap(a: np.ndarray, b: np.ndarray) -> bool:
    """Whether two axis-aligned rectangles (4, 2) overlap by more than a touch."""
    (ax0, ay0), (ax1, ay1) = a.min(axis=0), a.max(axis=0)
    (bx0, by0), (bx1, by1) = b.min(axis=0), b.max(axis=0)
    tol = TOUCH_TOLERANCE_MM
    return ax0 < bx1 - tol and bx0 < ax1 - tol and ay0 < by1 - tol and by0 < ay1 - tol


def _shipped_kit(game: str) -> Any:
    """The game's shipped kit, or None when the game is not registered (yet)."""
    from rules import GAMES
    from rules.kits import load_kit

    return load_kit(game) if game in GAMES else None
