"""Camera intrinsics: the camera matrix and lens distortion, from photos of a flat pattern.

Everything the companion measures on the table goes through the camera's geometry: a
board's pose from its markers, the rectified picture the readers classify, the grid drawn
in ``companion camera check``. Cheap webcams and the Raspberry Pi camera bend straight
lines near the frame's edges enough to put a stone on the neighbouring cell, so the
camera is calibrated once, from 10 to 20 photos of a printed chessboard or ChArUco board,
and the result is a versioned JSON file in the instance folder (``docs/calibration.md``).

The procedure is OpenCV's own (``samples/cpp/calibration.cpp``): ``findChessboardCorners``,
``cornerSubPix`` with an 11x11 window (EPS+COUNT 30 / 0.1), ``calibrateCamera``, optionally
with ``CALIB_FIX_ASPECT_RATIO``; per-view errors are computed as that sample does
(the root mean square of each view's reprojection distances, in pixels). On OpenCV's
sample photos it reproduces OpenCV's published ``left_intrinsics.yml``; a test checks it.

Bad input never crashes and is never guessed past: a file that is not an image, a corrupt
or truncated one, a photo without the pattern are reported per photo and skipped; too few
usable photos, photos of different sizes, a calibration file of another kind, version or
camera raise a :class:`CalibrationError` (a ``ValueError``) that quotes the input.

OpenCV 5 returns chessboard corners shaped (N, 2) and ArUco ids shaped (N,), 4.10 returns
(N, 1, 2) and (N, 1): every array that comes back from OpenCV is reshaped here, with a
check of its size, before anything else looks at it.
"""

from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, TypeAlias

import cv2
import numpy as np

#: The ``calibration`` field of a camera calibration file, and the version this code writes
#: and reads.
KIND = "camera"
VERSION = 1

#: ``cornerSubPix`` stops after 30 iterations or when a corner moves less than 0.1 px, as in
#: OpenCV's calibration sample.
SUBPIX_CRITERIA = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_COUNT, 30, 0.1)

#: ``findChessboardCorners`` flags of OpenCV's calibration sample.
CHESSBOARD_FLAGS = (
    cv2.CALIB_CB_ADAPTIVE_THRESH | cv2.CALIB_CB_NORMALIZE_IMAGE | cv2.CALIB_CB_FAST_CHECK
)

#: The ``calibrateCamera`` flags a calibration file may name.
KNOWN_FLAGS = (
    "CALIB_FIX_ASPECT_RATIO",
    "CALIB_FIX_PRINCIPAL_POINT",
    "CALIB_ZERO_TANGENT_DIST",
    "CALIB_FIX_K1",
    "CALIB_FIX_K2",
    "CALIB_FIX_K3",
    "CALIB_RATIONAL_MODEL",
)

#: Numbers of distortion coefficients OpenCV's camera model accepts.
DISTORTION_LENGTHS = (4, 5, 8, 12, 14)

Size: TypeAlias = tuple[int, int]
ImageSource: TypeAlias = "np.ndarray | str | os.PathLike[str]"
Progress: TypeAlias = Callable[[str, str], None]


# --------------------------------------------------------------------------------------
# Errors


class CalibrationError(ValueError):
    """A camera calibration that cannot be made, or a calibration file that cannot be used."""


class PatternError(CalibrationError):
    """A pattern description that does not describe a board (``"9by6"``, a negative size)."""


class UnreadableImage(CalibrationError):
    """A file that is not an image, a corrupt or truncated one, or one that cannot be read."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name}: unreadable: {reason}")
        self.name = name
        self.reason = reason


class PatternNotFound(CalibrationError):
    """A photo in which the pattern is not (entirely) visible."""

    def __init__(self, name: str, pattern: Pattern, detail: str = "") -> None:
        why = f" ({detail})" if detail else ""
        super().__init__(f"{name}: pattern not found: no {pattern.describe()}{why}")
        self.name = name
        self.pattern = pattern
        self.detail = detail


class MixedImageSizes(CalibrationError):
    """Photos of different sizes: from different cameras, or one camera at two resolutions."""


class CalibrationFileError(CalibrationError):
    """A calibration file of another kind or version, or with a malformed field."""


class ImageSizeMismatch(CalibrationFileError):
    """A calibration made for images of another size: most likely another camera."""


# --------------------------------------------------------------------------------------
# Patterns

_GRID = re.compile(r"^\s*(\d+)\s*[xX×]\s*(\d+)\s*$")


def parse_grid(text: str) -> tuple[int, int]:
    """``"9x6"`` -> ``(9, 6)``: columns by rows (also ``9X6`` and ``9×6``)."""
    match = _GRID.match(text) if isinstance(text, str) else None
    if match is None:
        raise PatternError(f"pattern size {text!r}: expected COLUMNSxROWS, such as '9x6'")
    return int(match.group(1)), int(match.group(2))


def _check_positive(what: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not value > 0:
        raise PatternError(f"{what} {value!r}: expected a positive number of millimetres")
    if not math.isfinite(value):
        raise PatternError(f"{what} {value!r}: expected a finite number of millimetres")
    return float(value)


def _check_count(what: str, value: int, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise PatternError(f"{what} {value!r}: expected a whole number of at least {least}")


@dataclass(frozen=True)
class ChessboardPattern:
    """A printed chessboard, counted in *inner corners* (where four squares meet): OpenCV's
    sample board of 10 by 7 squares is ``9x6``. Sizes in millimetres."""

    columns: int
    rows: int
    square_mm: float

    kind: ClassVar[str] = "chessboard"

    def __post_init__(self) -> None:
        _check_count("chessboard columns (inner corners)", self.columns, 3)
        _check_count("chessboard rows (inner corners)", self.rows, 3)
        object.__setattr__(self, "square_mm", _check_positive("square size", self.square_mm))

    @classmethod
    def parse(cls, grid: str, square_mm: float) -> ChessboardPattern:
        columns, rows = parse_grid(grid)
        return cls(columns, rows, square_mm)

    @property
    def grid(self) -> str:
        return f"{self.columns}x{self.rows}"

    def describe(self) -> str:
        return f"{self.grid} chessboard (inner corners), {self.square_mm:g} mm squares"

    def object_points(self) -> np.ndarray:
        """The inner corners on the board, row by row, in millimetres: (N, 3) float32, in
        the order ``findChessboardCorners`` returns them."""
        ys, xs = np.mgrid[0 : self.rows, 0 : self.columns]
        points = np.zeros((self.rows * self.columns, 3), np.float32)
        points[:, 0] = xs.ravel() * self.square_mm
        points[:, 1] = ys.ravel() * self.square_mm
        return points

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "columns": self.columns,
            "rows": self.rows,
            "square_mm": self.square_mm,
        }


@dataclass(frozen=True)
class CharucoPattern:
    """A ChArUco board (a chessboard with ArUco markers in its white squares), counted in
    *squares*: ``7x5`` has 7 by 5 squares and 6 by 4 inner corners. Sizes in millimetres;
    ``dictionary`` is the name of an OpenCV predefined ArUco dictionary. Partly hidden
    views still count: every corner between two identified markers is used."""

    columns: int
    rows: int
    square_mm: float
    marker_mm: float
    dictionary: str = "DICT_5X5_100"

    kind: ClassVar[str] = "charuco"

    def __post_init__(self) -> None:
        _check_count("ChArUco columns (squares)", self.columns, 3)
        _check_count("ChArUco rows (squares)", self.rows, 3)
        square = _check_positive("square size", self.square_mm)
        marker = _check_positive("marker size", self.marker_mm)
        if marker >= square:
            raise PatternError(
                f"marker size {self.marker_mm!r} mm: must be smaller than the square "
                f"({self.square_mm!r} mm)"
            )
        object.__setattr__(self, "square_mm", square)
        object.__setattr__(self, "marker_mm", marker)
        if not (
            isinstance(self.dictionary, str)
            and self.dictionary.startswith("DICT_")
            and isinstance(getattr(cv2.aruco, self.dictionary, None), int)
        ):
            raise PatternError(
                f"ArUco dictionary {self.dictionary!r}: expected an OpenCV name such as "
                "'DICT_5X5_100'"
            )
        needed = self.columns * self.rows // 2
        available = self._dictionary().bytesList.shape[0]
        if needed > available:
            raise PatternError(
                f"a {self.grid} ChArUco board needs {needed} markers; {self.dictionary} has "
                f"only {available}"
            )

    @classmethod
    def parse(
        cls, grid: str, square_mm: float, marker_mm: float, dictionary: str = "DICT_5X5_100"
    ) -> CharucoPattern:
        columns, rows = parse_grid(grid)
        return cls(columns, rows, square_mm, marker_mm, dictionary)

    @property
    def grid(self) -> str:
        return f"{self.columns}x{self.rows}"

    def describe(self) -> str:
        return (
            f"{self.grid} ChArUco board (squares), {self.square_mm:g} mm squares, "
            f"{self.marker_mm:g} mm markers, {self.dictionary}"
        )

    def _dictionary(self) -> Any:
        return cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, self.dictionary))

    def board(self) -> Any:
        """The OpenCV ``CharucoBoard`` (its coordinates in millimetres)."""
        return cv2.aruco.CharucoBoard(
            (self.columns, self.rows), self.square_mm, self.marker_mm, self._dictionary()
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "columns": self.columns,
            "rows": self.rows,
            "square_mm": self.square_mm,
            "marker_mm": self.marker_mm,
            "dictionary": self.dictionary,
        }


Pattern: TypeAlias = ChessboardPattern | CharucoPattern


def make_pattern(
    grid: str,
    square_mm: float,
    *,
    charuco: bool = False,
    marker_mm: float | None = None,
    dictionary: str = "DICT_5X5_100",
) -> Pattern:
    """The pattern that ``--pattern GRID --square-mm S [--charuco --marker-mm M]`` names."""
    if charuco:
        if marker_mm is None:
            raise PatternError("a ChArUco board needs its marker size (marker_mm)")
        return CharucoPattern.parse(grid, square_mm, marker_mm, dictionary)
    if marker_mm is not None:
        raise PatternError(
            f"marker size {marker_mm!r} mm: only a ChArUco board has markers "
            "(a chessboard is counted in inner corners)"
        )
    return ChessboardPattern.parse(grid, square_mm)


def pattern_from_json(data: Any) -> Pattern:
    """The pattern of a calibration file's ``settings.pattern``; :class:`PatternError`
    when it is not one."""
    if not isinstance(data, Mapping):
        raise PatternError(f"pattern {data!r}: expected an object")
    kind = data.get("kind")
    try:
        if kind == ChessboardPattern.kind:
            return ChessboardPattern(data["columns"], data["rows"], data["square_mm"])
        if kind == CharucoPattern.kind:
            return CharucoPattern(
                data["columns"],
                data["rows"],
                data["square_mm"],
                data["marker_mm"],
                data["dictionary"],
            )
    except KeyError as missing:
        raise PatternError(f"pattern {dict(data)!r}: missing {missing}") from None
    raise PatternError(f"pattern kind {kind!r}: expected 'chessboard' or 'charuco'")


# --------------------------------------------------------------------------------------
# Reading photos and finding the pattern


def _looks_truncated(data: bytes) -> bool:
    """A JPEG without any end-of-image marker, a PNG without its end chunk. OpenCV 5
    refuses such files itself; 4.x decodes a truncated JPEG with a grey bottom and a
    warning, which would then be reported as "pattern not found" instead."""
    if data.startswith(b"\xff\xd8"):
        return b"\xff\xd9" not in data
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return b"IEND" not in data
    return False


def read_image(path: str | os.PathLike[str], name: str | None = None) -> np.ndarray:
    """A photo as an 8-bit greyscale array; :class:`UnreadableImage` (naming it) for a file
    that cannot be read, is empty, is not an image, or is corrupt or truncated."""
    label = name if name is not None else str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise UnreadableImage(label, error.strerror or str(error)) from None
    if not data:
        raise UnreadableImage(label, "empty file")
    if _looks_truncated(data):
        raise UnreadableImage(label, "truncated or corrupt image")
    try:
        image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_GRAYSCALE)
    except cv2.error:
        image = None
    if image is None or image.size == 0:
        raise UnreadableImage(label, "not an image, or a corrupt one")
    return image


def _grey(image: np.ndarray, name: str) -> np.ndarray:
    """An image array as 8-bit greyscale (BGR and BGRA arrive as OpenCV gives them)."""
    if not isinstance(image, np.ndarray):
        raise UnreadableImage(name, f"expected an image array or a path, got {type(image)!r}")
    if image.dtype != np.uint8:
        raise UnreadableImage(name, f"expected 8-bit pixels, got {image.dtype}")
    if image.ndim == 3 and image.shape[2] == 1:
        image = image[:, :, 0]
    if image.ndim == 3 and image.shape[2] == 3:
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2GRAY)
    if image.ndim != 2 or image.size == 0:
        raise UnreadableImage(name, f"expected an image array, got shape {image.shape}")
    return image


def _load(source: ImageSource, name: str) -> np.ndarray:
    if isinstance(source, np.ndarray):
        return _grey(source, name)
    if isinstance(source, str | os.PathLike):
        return read_image(source, name)
    raise UnreadableImage(name, f"expected an image array or a path, got {type(source)!r}")


def _points(array: Any, columns: int, what: str) -> np.ndarray:
    """An OpenCV result as a contiguous (N, columns) float32 array: OpenCV 5 gives (N, 2),
    4.x (N, 1, 2); anything whose size is not a multiple of ``columns`` is a bug."""
    values = np.asarray(array, dtype=np.float32)
    if values.size % columns:
        raise CalibrationError(f"{what}: OpenCV returned an array shaped {values.shape}")
    return np.ascontiguousarray(values.reshape(-1, columns))


@dataclass(frozen=True)
class Detection:
    """One view of the pattern: the corners found in the photo (``image_points``, (N, 2)
    pixels) and where they are on the board (``object_points``, (N, 3) millimetres, z = 0);
    ``image_size`` is (width, height)."""

    image_points: np.ndarray
    object_points: np.ndarray
    image_size: Size

    @property
    def corners(self) -> int:
        return len(self.image_points)


def find_pattern(
    image: ImageSource,
    pattern: Pattern,
    *,
    subpix_window: int = 11,
    min_charuco_corners: int = 6,
    name: str | None = None,
) -> Detection:
    """Find ``pattern`` in a photo (an array or a path); :class:`PatternNotFound` naming the
    photo when it is not there, or not entirely (a chessboard must be whole).

    A chessboard is found as OpenCV's sample finds it: ``findChessboardCorners`` then
    ``cornerSubPix`` with a ``subpix_window`` half-size (11 means a 23x23 search window,
    OpenCV's "11x11"; 0 skips the refinement; make it smaller than about half a square's
    width in pixels). A ChArUco board is found by OpenCV's ``CharucoDetector``, which
    refines its corners itself; at least ``min_charuco_corners`` corners, not all on one
    line, are needed.
    """
    label = (
        name if name is not None else (str(image) if not isinstance(image, np.ndarray) else "image")
    )
    grey = _load(image, label)
    size = (int(grey.shape[1]), int(grey.shape[0]))
    if isinstance(pattern, ChessboardPattern):
        return _find_chessboard(grey, size, pattern, subpix_window, label)
    if isinstance(pattern, CharucoPattern):
        return _find_charuco(grey, size, pattern, min_charuco_corners, label)
    raise PatternError(f"pattern {pattern!r}: expected a ChessboardPattern or a CharucoPattern")


def _check_window(window: int) -> None:
    if isinstance(window, bool) or not isinstance(window, int) or window < 0:
        raise CalibrationError(f"sub-pixel window {window!r}: expected a whole number >= 0")


def _find_chessboard(
    grey: np.ndarray, size: Size, pattern: ChessboardPattern, window: int, name: str
) -> Detection:
    _check_window(window)
    found, corners = cv2.findChessboardCorners(
        grey, (pattern.columns, pattern.rows), flags=CHESSBOARD_FLAGS
    )
    if not found or corners is None:
        raise PatternNotFound(name, pattern)
    points = _points(corners, 2, "chessboard corners")
    expected = pattern.columns * pattern.rows
    if len(points) != expected:
        raise PatternNotFound(name, pattern, f"{len(points)} of {expected} corners")
    if window:
        refined = cv2.cornerSubPix(
            grey, points.reshape(-1, 1, 2).copy(), (window, window), (-1, -1), SUBPIX_CRITERIA
        )
        points = _points(refined, 2, "refined chessboard corners")
    return Detection(points, pattern.object_points(), size)


def _find_charuco(
    grey: np.ndarray, size: Size, pattern: CharucoPattern, least: int, name: str
) -> Detection:
    board = pattern.board()
    detector = cv2.aruco.CharucoDetector(board)
    corners, ids, _marker_corners, _marker_ids = detector.detectBoard(grey)
    if corners is None or ids is None or np.asarray(ids).size == 0:
        raise PatternNotFound(name, pattern)
    points = _points(corners, 2, "ChArUco corners")
    numbers = np.asarray(ids, dtype=np.int64).reshape(-1)
    if len(numbers) != len(points):
        raise CalibrationError(
            f"ChArUco corners: OpenCV returned {len(points)} corners but {len(numbers)} ids"
        )
    if len(points) < least:
        raise PatternNotFound(name, pattern, f"only {len(points)} corners, {least} needed")
    if board.checkCharucoCornersCollinear(numbers.reshape(-1, 1).astype(np.int32)):
        raise PatternNotFound(name, pattern, f"the {len(points)} corners found lie on one line")
    board_corners = _points(board.getChessboardCorners(), 3, "ChArUco board corners")
    return Detection(points, np.ascontiguousarray(board_corners[numbers]), size)


# --------------------------------------------------------------------------------------
# Calibration


@dataclass(frozen=True)
class CalibrationSettings:
    """How a calibration was made: the pattern, the ``calibrateCamera`` flags by name, the
    sub-pixel window (``None`` for ChArUco, whose detector refines its corners itself) and
    the OpenCV version."""

    pattern: Pattern
    flags: tuple[str, ...] = ()
    subpix_window: int | None = 11
    opencv: str = cv2.__version__

    def flag_value(self) -> int:
        value = 0
        for flag in self.flags:
            value |= int(getattr(cv2, flag))
        return value

    def to_json(self) -> dict[str, Any]:
        return {
            "pattern": self.pattern.to_json(),
            "flags": list(self.flags),
            "subpix_window": self.subpix_window,
            "opencv": self.opencv,
        }


@dataclass(frozen=True)
class CameraCalibration:
    """A camera's intrinsics: ``camera_matrix`` (3x3, pixels), ``distortion`` (OpenCV's
    k1, k2, p1, p2, k3), valid for images of ``image_size`` (width, height); ``rms`` is the
    root mean square reprojection error over all corners in pixels, ``per_view`` the same
    per photo, and ``settings`` how it was made."""

    image_size: Size
    camera_matrix: list[list[float]]
    distortion: list[float]
    rms: float
    per_view: list[tuple[str, float]]
    settings: CalibrationSettings

    @property
    def fx(self) -> float:
        return self.camera_matrix[0][0]

    @property
    def fy(self) -> float:
        return self.camera_matrix[1][1]

    @property
    def cx(self) -> float:
        return self.camera_matrix[0][2]

    @property
    def cy(self) -> float:
        return self.camera_matrix[1][2]

    def matrix(self) -> np.ndarray:
        """The camera matrix as a 3x3 float64 array, for OpenCV."""
        return np.array(self.camera_matrix, dtype=np.float64)

    def coefficients(self) -> np.ndarray:
        """The distortion coefficients as a float64 array, for OpenCV."""
        return np.array(self.distortion, dtype=np.float64)

    def summary(self) -> str:
        """A few lines for a person: focal lengths, principal point, errors."""
        lines = [
            f"image size {self.image_size[0]}x{self.image_size[1]} px, "
            f"{self.settings.pattern.describe()}",
            f"fx {self.fx:.2f}  fy {self.fy:.2f}  cx {self.cx:.2f}  cy {self.cy:.2f}  (px)",
            "distortion " + " ".join(f"{value:.5f}" for value in self.distortion),
            f"rms {self.rms:.4f} px over {len(self.per_view)} photos",
        ]
        if self.per_view:
            worst_name, worst = max(self.per_view, key=lambda view: view[1])
            lines.append(f"worst photo {worst_name}: {worst:.4f} px")
        return "\n".join(lines)

    def check_size(self, size: Size, source: str = "the camera") -> None:
        """:class:`ImageSizeMismatch` unless images of ``size`` (width, height) fit."""
        width, height = (int(size[0]), int(size[1]))
        if (width, height) != tuple(self.image_size):
            raise ImageSizeMismatch(
                f"the camera calibration is for {self.image_size[0]}x{self.image_size[1]} "
                f"images, but {source} gives {width}x{height}: another camera or another "
                "resolution; calibrate this one (companion calibrate camera)"
            )

    def to_json(self) -> dict[str, Any]:
        return {
            "calibration": KIND,
            "version": VERSION,
            "image_size": list(self.image_size),
            "camera_matrix": [list(row) for row in self.camera_matrix],
            "distortion": list(self.distortion),
            "rms": self.rms,
            "per_view": [{"image": name, "rms": error} for name, error in self.per_view],
            "settings": self.settings.to_json(),
        }

    @classmethod
    def from_json(
        cls, data: Any, source: str = "calibration", *, expect_size: Size | None = None
    ) -> CameraCalibration:
        """A calibration from its JSON form. :class:`CalibrationFileError` naming ``source``
        and the field for another kind or version or a malformed field;
        :class:`ImageSizeMismatch` when ``expect_size`` is given and differs."""
        calibration = _from_json(data, source)
        if expect_size is not None:
            calibration.check_size(expect_size)
        return calibration

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], *, expect_size: Size | None = None
    ) -> CameraCalibration:
        """Read a calibration file (see :meth:`from_json`)."""
        try:
            raw = Path(path).read_bytes()
        except OSError as error:
            reason = error.strerror or str(error)
            raise CalibrationFileError(f"{path}: cannot read the calibration: {reason}") from None
        try:
            data = json.loads(raw.decode("utf-8"))
        except UnicodeDecodeError:
            raise CalibrationFileError(f"{path}: not a calibration file (not text)") from None
        except json.JSONDecodeError as error:
            raise CalibrationFileError(
                f"{path}: not a calibration file (not JSON: {error})"
            ) from None
        return cls.from_json(data, str(path), expect_size=expect_size)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the calibration as indented JSON; an existing file is replaced whole, never
        left half written."""
        target = Path(path)
        temporary = target.with_name(target.name + ".tmp")
        temporary.write_text(json.dumps(self.to_json(), indent=2) + "\n", encoding="utf-8")
        os.replace(temporary, target)
        return target


def _field_error(source: str, name: str, value: Any, expected: str) -> CalibrationFileError:
    shown = repr(value)
    if len(shown) > 80:
        shown = shown[:77] + "..."
    return CalibrationFileError(f"{source}: field {name!r} is {shown}: expected {expected}")


def _number(value: Any) -> bool:
    return not isinstance(value, bool) and isinstance(value, int | float) and math.isfinite(value)


def _from_json(data: Any, source: str) -> CameraCalibration:
    if not isinstance(data, Mapping):
        raise CalibrationFileError(f"{source}: not a calibration file (expected a JSON object)")
    kind = data.get("calibration")
    if kind != KIND:
        raise CalibrationFileError(
            f"{source}: a {kind!r} calibration, not a camera calibration"
            if kind is not None
            else f"{source}: not a calibration file (no 'calibration' field)"
        )
    version = data.get("version")
    if version != VERSION or isinstance(version, bool):
        raise CalibrationFileError(
            f"{source}: camera calibration version {version!r} is not supported "
            f"(this companion reads version {VERSION}); calibrate again"
        )
    for name in ("image_size", "camera_matrix", "distortion", "rms", "per_view", "settings"):
        if name not in data:
            raise CalibrationFileError(f"{source}: field {name!r} is missing")

    size = data["image_size"]
    if not (
        isinstance(size, list)
        and len(size) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in size)
    ):
        raise _field_error(source, "image_size", size, "[width, height] in pixels")

    matrix = data["camera_matrix"]
    if not (
        isinstance(matrix, list)
        and len(matrix) == 3
        and all(isinstance(row, list) and len(row) == 3 for row in matrix)
        and all(_number(v) for row in matrix for v in row)
        and matrix[0][0] > 0
        and matrix[1][1] > 0
    ):
        raise _field_error(source, "camera_matrix", matrix, "3x3 numbers with fx, fy > 0")

    distortion = data["distortion"]
    if not (
        isinstance(distortion, list)
        and len(distortion) in DISTORTION_LENGTHS
        and all(_number(v) for v in distortion)
    ):
        raise _field_error(source, "distortion", distortion, "a list of 4, 5, 8, 12 or 14 numbers")

    rms = data["rms"]
    if not (_number(rms) and rms >= 0):
        raise _field_error(source, "rms", rms, "a reprojection error in pixels, >= 0")

    views = data["per_view"]
    if not (
        isinstance(views, list)
        and all(
            isinstance(view, Mapping)
            and isinstance(view.get("image"), str)
            and _number(view.get("rms"))
            and view["rms"] >= 0
            for view in views
        )
    ):
        raise _field_error(source, "per_view", views, 'a list of {"image": name, "rms": px}')

    settings = data["settings"]
    if not isinstance(settings, Mapping):
        raise _field_error(source, "settings", settings, "an object")
    try:
        pattern = pattern_from_json(settings.get("pattern"))
    except PatternError as error:
        raise CalibrationFileError(f"{source}: field 'settings.pattern': {error}") from None
    flags = settings.get("flags", [])
    if not (isinstance(flags, list) and all(flag in KNOWN_FLAGS for flag in flags)):
        raise _field_error(source, "settings.flags", flags, f"names among {list(KNOWN_FLAGS)}")
    window = settings.get("subpix_window")
    if not (window is None or (isinstance(window, int) and not isinstance(window, bool))):
        raise _field_error(source, "settings.subpix_window", window, "a whole number or null")
    opencv = settings.get("opencv", "")
    if not isinstance(opencv, str):
        raise _field_error(source, "settings.opencv", opencv, "a version string")

    return CameraCalibration(
        image_size=(size[0], size[1]),
        camera_matrix=[[float(v) for v in row] for row in matrix],
        distortion=[float(v) for v in distortion],
        rms=float(rms),
        per_view=[(view["image"], float(view["rms"])) for view in views],
        settings=CalibrationSettings(pattern, tuple(flags), window, opencv),
    )


def _name_and_source(item: Any) -> tuple[str, ImageSource]:
    if isinstance(item, str | os.PathLike):
        return str(item), item
    if isinstance(item, tuple) and len(item) == 2:
        return str(item[0]), item[1]
    raise TypeError(f"expected (name, image or path) or a path, got {item!r}")


def calibrate(
    images: Iterable[tuple[str, ImageSource] | str | os.PathLike[str]],
    pattern: Pattern,
    *,
    fix_aspect: bool = False,
    subpix_window: int = 11,
    min_views: int = 3,
    min_charuco_corners: int = 6,
    progress: Progress | None = None,
) -> CameraCalibration:
    """Calibrate a camera from photos of ``pattern``.

    ``images`` are ``(name, image array or path)`` pairs (a bare path names itself).
    ``progress(name, word)`` hears about every photo: ``"found N corners"``, ``"pattern
    not found"``, or ``"unreadable: REASON"``; the last two are skipped. At least
    ``min_views`` usable photos are needed (:class:`CalibrationError` says how many were
    usable and why the others were not), all of one size (:class:`MixedImageSizes` names
    the odd one). ``fix_aspect`` keeps fx = fy (``CALIB_FIX_ASPECT_RATIO`` with an initial
    aspect ratio of 1, as OpenCV's sample does with ``-a=1``); distortion is k1, k2, p1,
    p2, k3.
    """
    _check_window(subpix_window)
    if isinstance(min_views, bool) or not isinstance(min_views, int) or min_views < 1:
        raise CalibrationError(f"min_views {min_views!r}: expected a whole number >= 1")
    report = progress or (lambda _name, _word: None)
    detections: list[tuple[str, Detection]] = []
    rejected: list[str] = []
    size: Size | None = None
    first: str | None = None
    window = subpix_window if isinstance(pattern, ChessboardPattern) else None

    for item in images:
        name, source = _name_and_source(item)
        try:
            grey = _load(source, name)
        except UnreadableImage as error:
            report(name, f"unreadable: {error.reason}")
            rejected.append(f"{name}: unreadable ({error.reason})")
            continue
        this = (int(grey.shape[1]), int(grey.shape[0]))
        if size is None:
            size, first = this, name
        elif this != size:
            raise MixedImageSizes(
                f"{name} is {this[0]}x{this[1]} but {first} is {size[0]}x{size[1]}: "
                "all photos must come from one camera at one resolution"
            )
        try:
            detection = find_pattern(
                grey,
                pattern,
                subpix_window=subpix_window,
                min_charuco_corners=min_charuco_corners,
                name=name,
            )
        except PatternNotFound as error:
            report(name, "pattern not found")
            rejected.append(
                f"{name}: pattern not found" + (f" ({error.detail})" if error.detail else "")
            )
            continue
        report(name, f"found {detection.corners} corners")
        detections.append((name, detection))

    if len(detections) < min_views or size is None:
        usable = len(detections)
        why = "; ".join(rejected) if rejected else "no photos given"
        raise CalibrationError(
            f"{usable} usable photo{'s' if usable != 1 else ''} of the {pattern.describe()}, "
            f"at least {min_views} needed: {why}"
        )

    flags = ("CALIB_FIX_ASPECT_RATIO",) if fix_aspect else ()
    settings = CalibrationSettings(pattern, flags, window, cv2.__version__)
    return _solve(detections, size, settings)


def _solve(
    detections: Sequence[tuple[str, Detection]], size: Size, settings: CalibrationSettings
) -> CameraCalibration:
    object_points = [detection.object_points for _name, detection in detections]
    image_points = [detection.image_points for _name, detection in detections]
    initial = np.eye(3, dtype=np.float64)  # fx / fy = 1: the aspect ratio FIX_ASPECT keeps
    try:
        rms, matrix, distortion, rotations, translations = cv2.calibrateCamera(
            object_points, image_points, size, initial, None, flags=settings.flag_value()
        )
    except cv2.error as error:
        message = str(error).strip().splitlines()[-1] if str(error).strip() else "failed"
        raise CalibrationError(
            f"OpenCV could not calibrate from these {len(detections)} photos ({message}): "
            "take photos with the pattern tilted in different directions"
        ) from None
    matrix = np.asarray(matrix, dtype=np.float64).reshape(3, 3)
    distortion = np.asarray(distortion, dtype=np.float64).reshape(-1)
    if not (np.all(np.isfinite(matrix)) and np.all(np.isfinite(distortion))):
        raise CalibrationError(
            f"the calibration from these {len(detections)} photos did not converge: "
            "take photos with the pattern tilted in different directions"
        )

    per_view: list[tuple[str, float]] = []
    for (name, detection), rotation, translation in zip(
        detections, rotations, translations, strict=True
    ):
        projected, _jacobian = cv2.projectPoints(
            detection.object_points, rotation, translation, matrix, distortion
        )
        difference = _points(projected, 2, "projected points") - detection.image_points
        per_view.append((name, float(np.sqrt(np.sum(difference**2) / len(difference)))))

    return CameraCalibration(
        image_size=size,
        camera_matrix=[[float(v) for v in row] for row in matrix],
        distortion=[float(v) for v in distortion],
        rms=float(rms),
        per_view=per_view,
        settings=settings,
    )


# --------------------------------------------------------------------------------------
# Using a calibration


def undistort_points(points: Any, calibration: CameraCalibration) -> np.ndarray:
    """Pixel positions in a distorted photo -> where an ideal (distortion-free) camera with
    the same camera matrix would see them: (N, 2) float64 pixels. Accepts (N, 2) or
    (N, 1, 2) and a single (2,) point."""
    values = np.asarray(points, dtype=np.float64)
    if values.size % 2 or values.size == 0:
        raise ValueError(f"points shaped {values.shape}: expected (N, 2) pixel positions")
    matrix = calibration.matrix()
    result = cv2.undistortPoints(
        values.reshape(-1, 1, 2), matrix, calibration.coefficients(), P=matrix
    )
    return np.asarray(result, dtype=np.float64).reshape(-1, 2)


def undistort(image: np.ndarray, calibration: CameraCalibration) -> np.ndarray:
    """A photo with the lens distortion removed, keeping the camera matrix (so pixel
    positions stay comparable); :class:`ImageSizeMismatch` for a photo of another size."""
    if not isinstance(image, np.ndarray) or image.ndim not in (2, 3) or image.size == 0:
        raise ValueError(f"expected an image array, got {type(image).__name__}")
    calibration.check_size((image.shape[1], image.shape[0]), "the image")
    return cv2.undistort(image, calibration.matrix(), calibration.coefficients())
