"""Board registration: where the board is in one camera frame, from its ArUco markers.

Every frame is registered on its own, so a board or camera bumped between frames is
simply found again; video may pass the last frame's registration (``previous``), which
only says where to look first. The markers a sheet lists (``calibration.sheet``) are
detected (``detect_markers``: where they are from the frame shrunk twice, their corners
at full resolution), and the homography from board millimetres to image pixels is
fitted to all four corners of every known marker in view. Its quality is the
reprojection error in millimetres over those corners. Fewer markers than needed, or
markers that disagree, raise ``BoardNotVisible``: a reader waits for the next frame, it
never gets a guessed pose.

With a camera model (intrinsics and distortion from ``companion calibrate camera``) the
detected corners are undistorted first, so that a wide lens's bent lines do not bend the
board; the homography then maps board mm to *undistorted* pixels, and ``to_image``,
``to_board`` and ``calibration.board_plane.rectify`` take the distortion into account.

Detection refines each marker's corners from its outer edges (``calibration.edges``).
What the readers and the camera check make of a registration, the board seen square-on
and its grid, is ``calibration.board_plane``; the camera check prints
``Registration.summary``.
"""

from __future__ import annotations

import functools
import math
import threading
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from calibration.edges import try_refine_edges
from calibration.sheet import Sheet, dictionary_bits

#: ArUco's corner refinement methods by the names ``DetectorSettings`` uses.
CORNER_REFINEMENT = {
    "none": cv2.aruco.CORNER_REFINE_NONE,
    "subpix": cv2.aruco.CORNER_REFINE_SUBPIX,
    "contour": cv2.aruco.CORNER_REFINE_CONTOUR,
    "apriltag": cv2.aruco.CORNER_REFINE_APRILTAG,
}


class FrameError(ValueError):
    """Something that is not a camera frame (wrong type, shape or depth)."""


class BoardNotVisible(ValueError):
    """Too few of the sheet's markers in view, or markers that disagree: no pose.

    ``seen`` and ``missing`` are marker ids of the sheet; ``rms_mm`` is the disagreement
    when that was the reason (else None); ``duplicates`` are ids seen more than once."""

    def __init__(
        self,
        sheet: Sheet,
        seen: Sequence[int],
        needed: int,
        *,
        duplicates: Sequence[int] = (),
        rms_mm: float | None = None,
        max_rms_mm: float | None = None,
        worst: tuple[int, float] | None = None,
    ) -> None:
        self.seen = tuple(sorted(seen))
        self.missing = tuple(i for i in sheet.ids if i not in self.seen)
        self.needed = needed
        self.duplicates = tuple(sorted(duplicates))
        self.rms_mm = rms_mm
        total = len(sheet.ids)
        seen_words = f" (ids {_ids(self.seen)})" if self.seen else ""
        missing_words = f"; missing {_ids(self.missing)}" if self.missing else ""
        if rms_mm is not None and not math.isfinite(rms_mm):
            message = (
                f"board not visible: the {len(self.seen)} markers seen{seen_words} give no "
                f"pose with the board in front of the camera{missing_words}"
            )
        elif rms_mm is None:
            message = (
                f"board not visible: saw {len(self.seen)} of the sheet's {total} markers"
                f"{seen_words}{missing_words}; need at least {needed}"
            )
        else:
            message = (
                f"board not visible: the {len(self.seen)} markers seen{seen_words} disagree "
                f"by {rms_mm:.2f} mm RMS (at most {max_rms_mm:.2f} mm){missing_words}"
            )
            if worst is not None:
                message += (
                    f"; marker {worst[0]} fits worst ({worst[1]:.1f} mm): "
                    "was it moved, or stuck turned?"
                )
        if self.duplicates:
            message += (
                f"; ignored ids seen more than once: {_ids(self.duplicates)}"
                " (a spare copy in view?)"
            )
        super().__init__(message)


def _ids(ids: Iterable[int]) -> str:
    return ", ".join(str(i) for i in ids)


@dataclass(frozen=True)
class DetectorSettings:
    """The ArUco detector's parameters (``cv2.aruco.DetectorParameters``), explicit.

    The defaults are OpenCV's, except corner refinement: sub-pixel refinement makes the
    corners, and so the board, several times more precise for a fraction of a millisecond.

    - ``adaptive_thresh_win_size_min``/``_max``/``_step``: the window sizes (px) of the
      adaptive thresholds tried; a bigger maximum finds bigger markers in uneven light.
    - ``adaptive_thresh_constant``: subtracted from the local mean when thresholding.
    - ``min_marker_perimeter_rate``/``max_marker_perimeter_rate``: a marker's perimeter
      relative to the frame's larger side; 0.03 of 1280 px is a marker of 10 px a side.
    - ``polygonal_approx_accuracy_rate``: how square a candidate must be.
    - ``min_distance_to_border``: px between a candidate and the frame's edge. OpenCV's
      default of 3 loses a whole marker near the edge when its white quiet zone's outline
      runs into a dark table at the edge (the two outlines are grouped and both dropped).
    - ``error_correction_rate``: share of the dictionary's correctable bits used.
    - ``corner_refinement``: ``none``, ``subpix``, ``contour`` or ``apriltag``, with its
      window (px), iterations and accuracy (px).

    Where markers are looked for (``detect_markers``):

    - ``downscale``: the first search, for where the markers are, looks at the frame
      shrunk this many times (2 or 4; ``cv2.pyrDown``): the dark quadrilaterals of the
      adaptive threshold with a window of ``coarse_window`` px and a constant of
      ``coarse_constant`` (and the perimeter rates and polygon accuracy above), each read
      at full resolution as a marker would be. Each of the sheet's markers it finds is
      refined at full resolution where it was found (``cv2.cornerSubPix``, then its
      edges); where its edges cannot be read, the detector looks again at full
      resolution in a region ``locate_margin`` marker sides wider each way. 1: no first
      search.
    - ``coarse_constant``: the shrunk search's threshold constant, apart from the
      detector's (``adaptive_thresh_constant``), though the same by default. A higher one
      leaves fewer faint dark patches (a piece's shading, the board's lines) to trace as
      outlines, and a marker's border is far darker than its quiet zone: on the rendered
      frames of ``benchmarks/gimmel_reader.py`` (seeds 1-200, workbench script), 10
      took the registration from 3.23 to 2.89 ms (median), with the same markers found
      in every frame and the board's corners and middle within 0.03 px of where they
      were (12 and 15 saved no more; 15 moved a frame's corners by 0.28 px). Not the
      default: on the reader's 1000 frames, every profile learnt again, 13 squares were
      misread against 12, the one more 956 a14, the white beetle on a light square that
      ``tests/vision/test_covered.py`` keeps: its profile, learnt through registrations
      a few hundredths of a pixel apart, no longer finds it (with the profile of before,
      the new search reads it as before).
    - ``search_margin``: a marker the sheet lists but the first search missed is looked
      for at full resolution where the others put it, this many marker sides around.
    - ``track_margin``: with the last frame's registration, a marker that does not read
      as itself where it was is looked for by the detector this many marker sides around.
    - ``enough_markers``: the whole frame is searched at full resolution (the quick
      window, then every window) only while fewer of the sheet's markers than this are
      found (a marker under a hand is missing wherever it is looked for).

    Then, ours: ``edge_refinement`` fits a straight line to each of a marker's four outer
    edges and takes the corners where they meet (``calibration.edges.refine_edges``, which
    says why: about ten times more precise than ArUco's corners, which matters most when
    one marker is covered).

    - ``edge_span``: the middle share of each side sampled (the ends are rounded).
    - ``edge_depth_modules``: how far across the edge each profile reaches, in marker
      modules (the black border is one module wide).
    - ``edge_min_contrast``: grey levels needed between the border and the quiet zone.
    - ``edge_max_shift_modules``: a refined corner further than this from the corners
      refined from is trusted only up to twice as far, when a second refinement from it
      agrees; else the marker keeps the corners it had.
    """

    adaptive_thresh_win_size_min: int = 3
    adaptive_thresh_win_size_max: int = 23
    adaptive_thresh_win_size_step: int = 10
    adaptive_thresh_constant: float = 7.0
    min_marker_perimeter_rate: float = 0.03
    max_marker_perimeter_rate: float = 4.0
    polygonal_approx_accuracy_rate: float = 0.03
    min_distance_to_border: int = 1
    error_correction_rate: float = 0.6
    corner_refinement: str = "subpix"
    corner_refinement_win_size: int = 5
    corner_refinement_max_iterations: int = 30
    corner_refinement_min_accuracy: float = 0.1
    edge_refinement: bool = True
    #: A first, quick pass with this one adaptive-threshold window (px); the full set of
    #: windows runs only when the quick pass misses some of the sheet's markers (a hand
    #: over one, a marker in deep shadow). ``None``: always the full set.
    quick_window: int | None = 13
    downscale: int = 2
    coarse_window: int = 9
    coarse_constant: float = 7.0
    locate_margin: float = 0.5
    search_margin: float = 1.0
    track_margin: float = 1.5
    enough_markers: int = 3
    edge_span: float = 0.7
    edge_depth_modules: float = 0.8
    edge_min_contrast: float = 20.0
    edge_max_shift_modules: float = 0.5

    def parameters(self) -> Any:
        """These settings as ``cv2.aruco.DetectorParameters``."""
        if self.corner_refinement not in CORNER_REFINEMENT:
            raise ValueError(
                f"corner_refinement: expected one of {', '.join(CORNER_REFINEMENT)} "
                f"(got {self.corner_refinement!r})"
            )
        p = cv2.aruco.DetectorParameters()
        p.adaptiveThreshWinSizeMin = self.adaptive_thresh_win_size_min
        p.adaptiveThreshWinSizeMax = self.adaptive_thresh_win_size_max
        p.adaptiveThreshWinSizeStep = self.adaptive_thresh_win_size_step
        p.adaptiveThreshConstant = self.adaptive_thresh_constant
        p.minMarkerPerimeterRate = self.min_marker_perimeter_rate
        p.maxMarkerPerimeterRate = self.max_marker_perimeter_rate
        p.polygonalApproxAccuracyRate = self.polygonal_approx_accuracy_rate
        p.minDistanceToBorder = self.min_distance_to_border
        p.errorCorrectionRate = self.error_correction_rate
        p.cornerRefinementMethod = CORNER_REFINEMENT[self.corner_refinement]
        p.cornerRefinementWinSize = self.corner_refinement_win_size
        p.cornerRefinementMaxIterations = self.corner_refinement_max_iterations
        p.cornerRefinementMinAccuracy = self.corner_refinement_min_accuracy
        return p

    def check(self) -> None:
        """``ValueError`` naming the search setting that cannot be used."""
        if self.downscale not in (1, 2, 4):
            raise ValueError(f"downscale: expected 1, 2 or 4 (got {self.downscale!r})")
        for name in ("locate_margin", "search_margin", "track_margin"):
            if not getattr(self, name) >= 0:
                raise ValueError(
                    f"{name}: expected marker sides >= 0 (got {getattr(self, name)!r})"
                )
        if self.enough_markers < 1:
            raise ValueError(f"enough_markers: expected at least 1 (got {self.enough_markers!r})")


@dataclass(frozen=True, eq=False)
class Marker:
    """One detected marker: its id and its four corners in image pixels, shape (4, 2),
    in ArUco's order (the printed marker's top-left, top-right, bottom-right,
    bottom-left)."""

    id: int
    corners: np.ndarray


@dataclass(frozen=True, eq=False)
class CameraModel:
    """A camera's intrinsics: the 3x3 ``matrix`` and the ``distortion`` coefficients
    (4, 5, 8, 12 or 14 of them, OpenCV's order), and the frame size they belong to."""

    matrix: np.ndarray
    distortion: np.ndarray
    image_size: tuple[int, int] | None = None

    def undistort(self, points: np.ndarray) -> np.ndarray:
        """Distorted image px (N, 2) -> undistorted px in the same camera matrix."""
        src = np.asarray(points, np.float64).reshape(-1, 1, 2)
        criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, UNDISTORT_ITERATIONS, 1e-9)
        if hasattr(cv2, "undistortPointsIter"):  # OpenCV 4.x
            out = cv2.undistortPointsIter(
                src, self.matrix, self.distortion, None, self.matrix, criteria
            )
        else:  # OpenCV 5: criteria joined undistortPoints
            out = cv2.undistortPoints(
                src, self.matrix, self.distortion, None, None, self.matrix, criteria
            )
        return np.asarray(out, np.float64).reshape(-1, 2)

    def distort(self, points: np.ndarray) -> np.ndarray:
        """Undistorted px (N, 2) -> where the lens puts them in the frame. Many points
        (``LENS_IN_NUMPY_FROM`` or more) go through ``lens``, the same model in numpy
        (the same places to about 1e-12 px): on the 1,500 points of a frame's piece views
        it costs a seventh of ``cv2.projectPoints``, which costs less on a handful."""
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        if len(pts) >= LENS_IN_NUMPY_FROM:
            return lens(pts, self.matrix, np.asarray(self.distortion, np.float64))
        inv = np.linalg.inv(self.matrix)
        rays = np.column_stack([pts, np.ones(len(pts))]) @ inv.T
        zero = np.zeros(3)
        out, _ = cv2.projectPoints(rays.reshape(-1, 1, 3), zero, zero, self.matrix, self.distortion)
        return np.asarray(out, np.float64).reshape(-1, 2)


def lens(undistorted: np.ndarray, matrix: np.ndarray, distortion: np.ndarray) -> np.ndarray:
    """Undistorted px (N, 2) -> distorted px through OpenCV's lens model (radial,
    tangential and thin prism terms): the inverse of ``cv2.undistortPoints`` in the same
    camera matrix, as ``cv2.projectPoints`` works it out but in numpy: many times faster
    on a map's thousands of points (on a handful, ``CameraModel.distort``'s
    ``projectPoints`` costs less). Both use fx, fy, cx and cy (a skew term is not part of
    OpenCV's model). A tilted sensor (14 coefficients, the tilt not zero) goes to
    ``projectPoints``."""
    d = np.zeros(14)
    d[: distortion.size] = np.asarray(distortion, np.float64).reshape(-1)
    fx, fy, cx, cy = matrix[0, 0], matrix[1, 1], matrix[0, 2], matrix[1, 2]
    x = (undistorted[:, 0] - cx) / fx
    y = (undistorted[:, 1] - cy) / fy
    if d[12] or d[13]:
        rays = np.column_stack([x, y, np.ones(len(x))]).reshape(-1, 1, 3)
        zero = np.zeros(3)
        out, _ = cv2.projectPoints(rays, zero, zero, matrix, d)
        return np.asarray(out, np.float64).reshape(-1, 2)
    k1, k2, p1, p2, k3, k4, k5, k6, s1, s2, s3, s4 = d[:12]
    r2 = x * x + y * y
    radial = 1 + r2 * (k1 + r2 * (k2 + r2 * k3))
    # The terms a lens's coefficients leave at zero are left out (most lenses have no
    # rational or thin prism terms): dividing by 1 and adding 0 change no value, and a
    # map's points cost a third less.
    if k4 or k5 or k6:
        radial /= 1 + r2 * (k4 + r2 * (k5 + r2 * k6))
    xy2 = 2 * x * y
    xd = x * radial
    xd += p1 * xy2
    xd += p2 * (r2 + 2 * x * x)
    yd = y * radial
    yd += p1 * (r2 + 2 * y * y)
    yd += p2 * xy2
    if s1 or s2 or s3 or s4:  # added one by one, in the order of the sum they were in
        r4 = r2 * r2
        xd += s1 * r2
        xd += s2 * r4
        yd += s3 * r2
        yd += s4 * r4
    out = np.empty((len(x), 2))
    np.multiply(xd, fx, out=out[:, 0])
    np.multiply(yd, fy, out=out[:, 1])
    out[:, 0] += cx
    out[:, 1] += cy
    return out


#: ``CameraModel.distort`` takes ``lens`` from this many points (timed: on 150 points
#: ``cv2.projectPoints`` costs less, on 300 half as much again, on 1,500 seven times).
LENS_IN_NUMPY_FROM = 200

#: Iterations when undistorting marker corners (OpenCV's default 5 is short for wide lenses).
UNDISTORT_ITERATIONS = 40


def camera_model(camera: Any) -> CameraModel | None:
    """A ``CameraModel`` from ``camera``: None, a model, a mapping with ``camera_matrix``
    and ``distortion`` (and perhaps ``image_size`` [width, height]), or an object with
    those attributes (as a calibration file loads)."""
    if camera is None or isinstance(camera, CameraModel):
        return camera

    def get(key: str) -> Any:
        if isinstance(camera, Mapping):
            return camera.get(key)
        return getattr(camera, key, None)

    matrix, distortion, size = get("camera_matrix"), get("distortion"), get("image_size")
    try:
        m = np.asarray(matrix, np.float64)
        d = np.asarray(distortion if distortion is not None else [], np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise ValueError(
            f"camera: camera_matrix and distortion must be numbers (got {camera!r})"
        ) from None
    if m.shape != (3, 3) or not np.isfinite(m).all() or m[0, 0] <= 0 or m[1, 1] <= 0:
        raise ValueError(f"camera: camera_matrix must be a 3x3 intrinsic matrix (got {matrix!r})")
    if d.size not in (0, 4, 5, 8, 12, 14) or not np.isfinite(d).all():
        raise ValueError(
            f"camera: distortion must hold 4, 5, 8, 12 or 14 numbers (got {distortion!r})"
        )
    image_size = None
    if size is not None:
        try:
            w, h = (int(v) for v in size)
        except (TypeError, ValueError):
            raise ValueError(f"camera: image_size must be [width, height] (got {size!r})") from None
        image_size = (w, h)
    return CameraModel(m, d if d.size else np.zeros(5), image_size)


# --- detection -------------------------------------------------------------------------

_local = threading.local()


def _detector(dictionary: str, settings: DetectorSettings) -> Any:
    """One ArucoDetector per thread, dictionary and settings (built once, reused)."""
    cache = getattr(_local, "detectors", None)
    if cache is None:
        cache = _local.detectors = {}
    key = (dictionary, settings)
    if key not in cache:
        d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
        cache[key] = cv2.aruco.ArucoDetector(d, settings.parameters())
    return cache[key]


def grey(image: Any) -> np.ndarray:
    """A frame as one 8-bit channel: grey (H, W), BGR or BGRA (H, W, 3|4) uint8."""
    if not isinstance(image, np.ndarray):
        raise FrameError(f"expected an image as a numpy array (got {type(image).__name__})")
    if image.dtype != np.uint8 or image.size == 0:
        raise FrameError(f"expected an 8-bit image (got dtype {image.dtype}, shape {image.shape})")
    if image.ndim == 2:
        return image
    if image.ndim == 3 and image.shape[2] == 1:
        return image[:, :, 0]
    if image.ndim == 3 and image.shape[2] == 3:
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    if image.ndim == 3 and image.shape[2] == 4:
        return cv2.cvtColor(image, cv2.COLOR_BGRA2GRAY)
    raise FrameError(f"expected a grey, BGR or BGRA image (got shape {image.shape})")


def markers_from_opencv(corners: Any, ids: Any) -> list[Marker]:
    """Normalise what ``ArucoDetector.detectMarkers`` returns into markers.

    OpenCV 5 gives corners as a tuple of (1, 4, 2) or (4, 2) arrays and ids as (N,);
    OpenCV 4.10 gives ids as (N, 1); no detection is ids None and corners empty. Any other
    shape raises ``ValueError`` rather than being guessed at."""
    if ids is None:
        if corners is not None and len(corners):
            raise ValueError(f"detector returned {len(corners)} corner sets but no ids")
        return []
    id_array = np.asarray(ids)
    if id_array.ndim > 2 or (id_array.ndim == 2 and id_array.shape[1] != 1):
        raise ValueError(f"detector ids have shape {id_array.shape}; expected (N,) or (N, 1)")
    id_list = [int(i) for i in id_array.reshape(-1)]
    corner_list = list(corners) if corners is not None else []
    if len(corner_list) != len(id_list):
        raise ValueError(f"detector returned {len(corner_list)} corner sets for {len(id_list)} ids")
    markers = []
    for marker_id, quad in zip(id_list, corner_list, strict=True):
        array = np.asarray(quad, np.float64)
        if array.shape not in ((1, 4, 2), (4, 2), (4, 1, 2)):
            raise ValueError(
                f"marker {marker_id}: corners have shape {array.shape}; "
                "expected (1, 4, 2) or (4, 2)"
            )
        markers.append(Marker(marker_id, array.reshape(4, 2)))
    return markers


def detect_markers(
    image: Any,
    sheet: Sheet,
    settings: DetectorSettings | None = None,
    *,
    previous: Registration | None = None,
) -> list[Marker]:
    """The sheet's markers in ``image`` (grey or BGR uint8), ids the sheet does not list
    left out. An id seen twice is returned twice; ``register`` refuses to choose.

    Looked for, cheapest first, until ``settings.enough_markers`` of the sheet's are
    found. With ``previous`` (the last frame's registration, of the same camera): each
    marker refined at full resolution where it was and read there, the detector looking
    around its last place for those that do not read as themselves. Then the frame
    shrunk ``settings.downscale`` times (``_locate``), each marker found there refined at
    full resolution where it was found (the detector looking again around those whose
    edges cannot be read), and those missing looked for where the others put them. At
    last the whole frame at full resolution. Every marker's corners are refined from its
    edges (``calibration.edges``) unless the settings say not to: then they are the
    detector's at full resolution."""
    settings = settings or DetectorSettings()
    settings.check()
    frame = grey(image)
    known = set(sheet.ids)
    enough = min(settings.enough_markers, len(known))
    bits = dictionary_bits(sheet.dictionary)
    found: list[Marker] = []  # corners from the detector, to be refined from the edges
    ready: list[Marker] = []  # corners refined from the edges already
    if previous is not None:
        expected = [(m.id, previous.to_image(m.corners())) for m in sheet.markers]
        if settings.edge_refinement:
            # Where they were, refined and read there; the detector looks around only
            # for those that do not read as themselves (moved, or under a hand).
            ready = _refine_in_place(frame, sheet, settings, expected, bits, still=True)
            expected = [(i, quad) for i, quad in expected if i not in _seen(ready)]
        if expected:
            found = _look_around(frame, sheet, settings, expected, settings.track_margin)
    if len(_seen([*found, *ready])) < enough:
        located = _locate(frame, sheet, settings) if settings.downscale > 1 else []
        located = [(i, quad) for i, quad in located if i not in _seen([*found, *ready])]
        if settings.edge_refinement and located:
            # Corners to a quarter pixel at full resolution, then from the edges; the
            # detector looks again only where the edges could not be read.
            more = _refine_in_place(frame, sheet, settings, located, bits, still=False)
            ready += more
            located = [(i, quad) for i, quad in located if i not in _seen(more)]
        found += _look_around(frame, sheet, settings, located, settings.locate_margin)
        # Those still missing where the markers found put them; again when that found
        # some (more markers put the rest more precisely).
        while (missing := known - _seen([*found, *ready])) and len(known - missing) >= 2:
            expected = _expected(sheet, [*found, *ready], sorted(missing))
            more = _look_around(frame, sheet, settings, expected, settings.search_margin)
            if not more:
                break
            found += more
    if len(_seen([*found, *ready])) < enough:
        # The full passes decide; what was found before only adds a marker they missed.
        full = _full_frame(frame, sheet, settings)
        found = full + [m for m in found if m.id not in _seen(full)]
        ready = [m for m in ready if m.id not in _seen(found)]
    if settings.edge_refinement and found:
        refined = try_refine_edges(frame, [m.corners for m in found], bits, settings)
        # A marker whose edges cannot be read (small, blurred) keeps the detector's
        # corners, which may be whole pixels out: made good to a fraction of one where
        # they can be (a 20 px marker two pixels out put a far corner of the board 9 px
        # out, rendered seed 215).
        failed = [k for k, corners in enumerate(refined) if corners is None]
        if failed:
            limit = (frame.shape[1] - 4, frame.shape[0] - 4)
            inside = [k for k in failed
                      if np.all((found[k].corners >= 4) & (found[k].corners < limit))]  # fmt: skip
            better = _sub_pixel(frame, [found[k].corners for k in inside], bits) if inside else []
            for k, corners in zip(inside, better, strict=True):
                refined[k] = corners
        found = [Marker(m.id, m.corners if corners is None else corners)
                 for m, corners in zip(found, refined, strict=True)]  # fmt: skip
    return found + ready


def _seen(markers: Iterable[Marker]) -> set[int]:
    """The ids of ``markers``."""
    return {m.id for m in markers}


def _known(
    corners: Any, ids: Any, known: Iterable[int], offset: tuple[float, float] = (0.0, 0.0)
) -> list[Marker]:
    """``markers_from_opencv`` less the ids not in ``known``, shifted by ``offset`` px."""
    wanted = set(known)
    shift = np.asarray(offset, np.float64)
    found = markers_from_opencv(corners, ids)
    return [Marker(m.id, m.corners + shift) for m in found if m.id in wanted]


def _quick(settings: DetectorSettings) -> DetectorSettings | None:
    """The settings with the one quick window, or None when there is none."""
    window = settings.quick_window
    if window is None:
        return None
    return replace(settings, adaptive_thresh_win_size_min=window,
                   adaptive_thresh_win_size_max=window, quick_window=None)  # fmt: skip


def _full_frame(frame: np.ndarray, sheet: Sheet, settings: DetectorSettings) -> list[Marker]:
    """The whole frame at full resolution: the quick window, then every window when the
    quick pass misses some of the sheet's markers (what it found only adds to theirs)."""
    known = set(sheet.ids)
    found: list[Marker] = []
    quick = _quick(settings)
    if quick is not None:
        found = _known(*_detector(sheet.dictionary, quick).detectMarkers(frame)[:2], known)
    if _seen(found) != known:
        full = _known(*_detector(sheet.dictionary, settings).detectMarkers(frame)[:2], known)
        found = full + [m for m in found if m.id not in _seen(full)]
    return found


def _locate(
    frame: np.ndarray, sheet: Sheet, settings: DetectorSettings
) -> list[tuple[int, np.ndarray]]:
    """Where the sheet's markers are, to a pixel or two: (id, corners in frame px).

    Not ArUco's detector on the shrunk frame: it spends about a tenth of a millisecond
    on every marker-like quadrilateral it reads (a checker board shows a hundred), and
    it reads the bits of a marker 15 px across badly (it missed one marker in ten of the
    rendered frames, one in three of the registration benchmark's). Here the shrunk
    frame's dark quadrilaterals are found as ArUco finds them (adaptive threshold,
    contours, polygons) and all read at once at full resolution (``_read``)."""
    scale = settings.downscale
    small = frame
    for _ in range(scale.bit_length() - 1):
        small = cv2.pyrDown(small)
    window = settings.coarse_window | 1
    dark = cv2.adaptiveThreshold(small, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV,
                                 max(window, 3), settings.coarse_constant)  # fmt: skip
    contours, _ = cv2.findContours(dark, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    larger = max(small.shape)
    low = settings.min_marker_perimeter_rate * larger
    high = settings.max_marker_perimeter_rate * larger
    quads = []
    rate = settings.polygonal_approx_accuracy_rate
    for contour in contours:
        length = len(contour)
        if not low <= length <= high:
            continue
        polygon = cv2.approxPolyDP(contour, length * rate, True)
        if len(polygon) == 4 and cv2.isContourConvex(polygon):
            quads.append(polygon.reshape(4, 2))
    if not quads:
        return []
    # Clockwise as the frame shows it (y down), as the squared-up marker reads.
    quad = np.array(quads, np.float64) * scale
    first, second = quad[:, 1] - quad[:, 0], quad[:, 2] - quad[:, 1]
    turned = first[:, 0] * second[:, 1] - first[:, 1] * second[:, 0] < 0
    quad[turned] = quad[turned][:, ::-1]
    # Read as the marker turned ``turn`` quarter turns: its first corner (the printed
    # marker's top-left) is the quadrilateral's corner ``-turn``. One marker may show as
    # two outlines a pixel or two apart (its own and its quiet zone's inner one): once.
    located: list[tuple[int, np.ndarray]] = []
    for corners, reading in zip(quad, _read(frame, quad, sheet, settings), strict=True):
        if reading is None:
            continue
        marker_id, turn = reading
        corners = corners[_ROLLED[turn]]  # as np.roll(corners, turn, axis=0), in less time
        side = float(np.linalg.norm(corners - corners[_ROLLED[1]], axis=1).mean())
        if not any(
            j == marker_id and np.abs(corners - other).max() < 0.25 * side for j, other in located
        ):
            located.append((marker_id, corners))
    return located


#: A quadrilateral's corners rolled ``turn`` places (``np.roll(corners, turn, axis=0)``).
_ROLLED = tuple(np.roll(np.arange(4), turn) for turn in range(4))


def _read(
    frame: np.ndarray, quads: np.ndarray, sheet: Sheet, settings: DetectorSettings
) -> list[tuple[int, int] | None]:
    """Each quadrilateral (N, 4, 2) read as one of the sheet's markers, all at once at
    full resolution: (its id, quarter turns), or None. The middle of each module, Otsu's
    split of those values, a border black and a quiet zone around it white but for
    ``MAX_BORDER_ERRORS`` of their modules, and the inner bits those of one of the
    sheet's markers turned (within the error correction the settings allow)."""
    quads = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    if not len(quads):
        return []
    homographies = _square_to_quads(quads)
    usable = np.isfinite(homographies).all(axis=(1, 2))
    homographies[~usable] = np.eye(3)
    codes, ids, bits, correctable = _codes(sheet.dictionary, tuple(sheet.ids))
    modules = bits + 2
    # Each module's middle, and a ring of module-sized places just outside the marker
    # (its quiet zone), through the homography of the unit square onto each
    # quadrilateral (the frame's blur averages each place enough).
    mapped = homographies @ _module_places(modules)
    # A quadrilateral whose homography sends some of these places to infinity or past it
    # (a crossed or degenerate one) is no marker a camera sees: not read.
    depth = mapped[:, 2:3]
    usable &= (depth > 1e-9).all(axis=(1, 2)) | (depth < -1e-9).all(axis=(1, 2))
    depth = np.where(usable[:, None, None], depth, 1.0)
    where = (mapped[:, :2] / depth).astype(np.float32)
    count = len(quads)
    read = cv2.remap(frame, where[:, 0], where[:, 1], cv2.INTER_LINEAR).astype(np.float64)
    read = read.reshape(count, modules + 2, modules + 2)
    means = read[:, 1:-1, 1:-1].reshape(count, -1)
    around = read.copy()
    around[:, 1:-1, 1:-1] = np.inf
    around = around.reshape(count, -1)
    # Otsu's threshold over each candidate's module means.
    ordered = np.sort(means, axis=1)
    n = ordered.shape[1]
    k = np.arange(1, n)
    below = np.cumsum(ordered, axis=1)[:, :-1]
    total = ordered.sum(axis=1, keepdims=True)
    share = k / n
    spread = share * (1 - share) * (below / k - (total - below) / (n - k)) ** 2
    split = spread.argmax(axis=1)
    rows = np.arange(count)
    level = (ordered[rows, split] + ordered[rows, split + 1]) / 2
    white = (means > level[:, None]).reshape(count, modules, modules)
    ring = white.copy()
    ring[:, 1:-1, 1:-1] = False
    inner = white[:, 1:-1, 1:-1].reshape(count, 1, -1)
    distance = (inner != codes[None]).sum(axis=2)  # (N, ids x 4 turns)
    best = distance.argmin(axis=1)
    good = (
        usable
        & (distance[rows, best] <= int(correctable * settings.error_correction_rate))
        & (ring.sum(axis=(1, 2)) <= MAX_BORDER_ERRORS * 4 * (modules - 1))
        & (means.std(axis=1) >= MIN_MARKER_STD)
        # The quiet zone white (not a dark outline that happens to read as a marker).
        & ((around <= level[:, None]).sum(axis=1) <= MAX_BORDER_ERRORS * 4 * (modules + 1))
    )
    return [(int(ids[best[i]]), int(best[i] % 4)) if good[i] else None for i in range(count)]


@functools.lru_cache(maxsize=8)
def _module_places(modules: int) -> np.ndarray:
    """The middles of a marker's ``modules`` x ``modules`` modules and of the ring of
    module-sized places around it, on the unit square: homogeneous columns (3, places),
    row by row. The same for every frame: worked out once (read-only)."""
    along = (np.arange(-1, modules + 1) + 0.5) / modules
    u, v = np.meshgrid(along, along)
    places = np.stack([u.ravel(), v.ravel(), np.ones(u.size)])
    places.setflags(write=False)
    return places


#: ``_locate``'s reading: at most this share of a marker's border modules may read white
#: (ArUco's ``maxErroneousBitsInBorderRate``), and as many of the places in its quiet
#: zone dark; its modules must differ by this standard deviation in grey levels at least
#: (``minOtsuStdDev``).
MAX_BORDER_ERRORS = 0.35
MIN_MARKER_STD = 5.0

_CODES: dict[tuple[str, tuple[int, ...]], tuple[np.ndarray, np.ndarray, int, int]] = {}


def _codes(dictionary: str, ids: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray, int, int]:
    """The inner bits (True: white) of markers ``ids`` in each of their four turns, as
    rows (4 x len(ids), bits x bits), the id of each row, the bits a side and the bits
    the dictionary can correct."""
    key = (dictionary, ids)
    if key not in _CODES:
        d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
        rows, owners = [], []
        for i in ids:
            bits = np.asarray(d.getBitsFromByteList(d.bytesList[i : i + 1], d.markerSize))
            for turn in range(4):
                rows.append(np.rot90(bits.astype(bool), turn).ravel())
                owners.append(i)
        _CODES[key] = (np.array(rows), np.array(owners), int(d.markerSize), d.maxCorrectionBits)
    return _CODES[key]


def _square_to_quads(quads: np.ndarray) -> np.ndarray:
    """Homographies (N, 3, 3) taking the unit square's corners (0, 0), (1, 0), (1, 1),
    (0, 1) to each quadrilateral's four corners (N, 4, 2) (Heckbert's closed form)."""
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = quads.transpose(1, 2, 0)
    dx1, dx2, dy1, dy2 = x1 - x2, x3 - x2, y1 - y2, y3 - y2
    sx, sy = x0 - x1 + x2 - x3, y0 - y1 + y2 - y3
    with np.errstate(divide="ignore", invalid="ignore"):
        den = dx1 * dy2 - dx2 * dy1
        g = (sx * dy2 - dx2 * sy) / den
        h = (dx1 * sy - sx * dy1) / den
    one = np.ones_like(g)
    return np.stack(
        [
            np.stack([x1 - x0 + g * x1, x3 - x0 + h * x3, x0], axis=1),
            np.stack([y1 - y0 + g * y1, y3 - y0 + h * y3, y0], axis=1),
            np.stack([g, h, one], axis=1),
        ],
        axis=1,
    )


def _refine_in_place(
    frame: np.ndarray,
    sheet: Sheet,
    settings: DetectorSettings,
    expected: Sequence[tuple[int, np.ndarray]],
    bits: int,
    *,
    still: bool,
) -> list[Marker]:
    """The markers of ``expected`` (id, corners a pixel or two out, in ArUco's order)
    whose corners refine at full resolution (``_sub_pixel``, then the edges); with
    ``still``, only those that then read as themselves, unturned (``_read``): what was
    where a marker was in the last frame may be a hand now."""
    height, width = frame.shape
    inside = [
        (i, quad)
        for i, quad in expected
        if np.isfinite(quad).all() and np.all((quad >= 1) & (quad < (width - 1, height - 1)))
    ]
    if not inside:
        return []
    quads = _sub_pixel(frame, [quad for _, quad in inside], bits)
    refined = try_refine_edges(frame, quads, bits, settings)
    ready = [(i, c) for (i, _), c in zip(inside, refined, strict=True) if c is not None]
    if still and ready:
        readings = _read(frame, np.array([c for _, c in ready]), sheet, settings)
        ready = [each for each, r in zip(ready, readings, strict=True) if r == (each[0], 0)]
    return [Marker(i, c) for i, c in ready]


def _sub_pixel(frame: np.ndarray, quads: Sequence[np.ndarray], bits: int) -> list[np.ndarray]:
    """Corners (N, 4, 2) a pixel or two out made good to a quarter pixel
    (``cv2.cornerSubPix``, its window at most 3 px and within the marker's border), the
    markers that take the same window in one call."""
    criteria = (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 30, 0.01)
    corners = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    sides = np.linalg.norm(corners - np.roll(corners, 1, axis=1), axis=2).mean(axis=1)
    windows = np.clip(np.rint(0.75 * sides / (bits + 2)), 2, 3).astype(int)
    out = corners.copy()
    for win in np.unique(windows):
        chosen = windows == win
        points = corners[chosen].astype(np.float32).reshape(-1, 1, 2)
        points = cv2.cornerSubPix(frame, points, (int(win), int(win)), (-1, -1), criteria)
        out[chosen] = points.reshape(-1, 4, 2)
    return list(out)


def _expected(
    sheet: Sheet, found: Sequence[Marker], ids: Iterable[int]
) -> list[tuple[int, np.ndarray]]:
    """Where the markers found put the sheet's markers ``ids`` (corners in frame px): a
    homography board mm -> frame px fitted to the markers found (the lens left out)."""
    board = np.vstack([sheet.marker(m.id).corners() for m in found])
    image = np.vstack([m.corners for m in found])
    homography, _ = cv2.findHomography(board, image, 0)
    if homography is None or not np.isfinite(homography).all():
        return []
    return [(i, apply_homography(homography, sheet.marker(i).corners())) for i in ids]


def _look_around(
    frame: np.ndarray,
    sheet: Sheet,
    settings: DetectorSettings,
    expected: Iterable[tuple[int, np.ndarray]],
    margin: float,
) -> list[Marker]:
    """Each (id, corners in frame px) of ``expected`` looked for at full resolution in
    the frame's region around those corners, ``margin`` marker sides more each way: the
    quick window, then every window. Only that id is taken from its region; a region
    whose middle is outside the frame is not looked at."""
    height, width = frame.shape
    found: list[Marker] = []
    for marker_id, corners in expected:
        quad = np.asarray(corners, np.float64).reshape(4, 2)
        if not np.isfinite(quad).all():
            continue
        side = float(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1).mean())
        middle = quad.mean(axis=0)
        if not (0 <= middle[0] < width and 0 <= middle[1] < height) or side < 4:
            continue
        pad = margin * side + 2
        x0, y0 = (int(v) for v in np.maximum(np.floor(quad.min(axis=0) - pad), 0))
        x1, y1 = (int(v) for v in np.minimum(np.ceil(quad.max(axis=0) + pad) + 1, (width, height)))
        region = frame[y0:y1, x0:x1]
        zoom = max(width, height) / max(region.shape)
        here: list[Marker] = []
        for each in (_quick(settings), settings):
            if each is not None and not here:
                detector = _region_detector(sheet.dictionary, each, zoom)
                here = _known(*detector.detectMarkers(region)[:2], [marker_id], (x0, y0))
        # Regions may overlap: a marker found again in another's region is one marker.
        found += [m for m in here if not any(_same(m, other) for other in found)]
    return found


def _same(a: Marker, b: Marker) -> bool:
    """The same marker found twice: its id, and corners within a pixel."""
    return a.id == b.id and float(np.abs(a.corners - b.corners).max()) < 1.0


def _region_detector(dictionary: str, settings: DetectorSettings, zoom: float) -> Any:
    """A detector for a region of the frame ``zoom`` times smaller than the frame (its
    larger side): the perimeter rates, relative to the image's larger side, scaled so
    that they mean what they mean for the whole frame."""
    p = settings.parameters()
    p.minMarkerPerimeterRate = settings.min_marker_perimeter_rate * zoom
    p.maxMarkerPerimeterRate = settings.max_marker_perimeter_rate * zoom
    cache = getattr(_local, "region_detectors", None)
    if cache is None:
        cache = _local.region_detectors = {}
    if dictionary not in cache:
        d = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, dictionary))
        cache[dictionary] = cv2.aruco.ArucoDetector(d, p)
    else:
        cache[dictionary].setDetectorParameters(p)
    return cache[dictionary]


# --- registration ----------------------------------------------------------------------

#: A registration's default quality bound: the RMS disagreement, in mm over the marker
#: corners, beyond which the pose is refused. Marker corners are found to a fraction of a
#: pixel (about half a millimetre on a 1280x720 view of a Gimmel board); a marker moved or
#: stuck turned disagrees by several millimetres.
MAX_RMS_MM = 2.0


@dataclass(frozen=True, eq=False)
class Registration:
    """The board in one frame: ``homography`` maps board mm to image px (undistorted px
    when there is a ``camera``). ``used`` are the marker ids it was fitted to, ``missing``
    the sheet's ids not in view, ``rejected`` ids seen but left out (seen twice, or
    disagreeing with the others); ``rms_mm`` is the quality figure, the RMS distance in
    mm between the markers' corners on the board and where the fit puts them."""

    sheet: Sheet
    homography: np.ndarray
    used: tuple[int, ...]
    missing: tuple[int, ...]
    rejected: tuple[int, ...]
    rms_mm: float
    marker_rms_mm: Mapping[int, float]
    markers: tuple[Marker, ...]
    camera: CameraModel | None = None
    image_size: tuple[int, int] | None = None
    inverse: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "inverse", np.linalg.inv(self.homography))

    def to_image(self, points_mm: Any) -> np.ndarray:
        """Board mm (N, 2) -> image px (N, 2) in the frame as the camera gave it."""
        pts = as_points(points_mm, "points_mm")
        out = apply_homography(self.homography, pts)
        return self.camera.distort(out) if self.camera is not None else out

    def to_board(self, points_px: Any) -> np.ndarray:
        """Image px (N, 2) in the frame as the camera gave it -> board mm (N, 2)."""
        pts = as_points(points_px, "points_px")
        if self.camera is not None:
            pts = self.camera.undistort(pts)
        return apply_homography(self.inverse, pts)

    def px_per_mm(self) -> float:
        """The frame's scale at the grid's centre: image px per board mm (geometric mean
        of the two directions). A cell is about ``cell_mm * px_per_mm()`` px wide."""
        grid = self.sheet.grid
        centre = np.array([grid.width_mm / 2, grid.height_mm / 2])
        step = 1.0
        a, bx, by = self.to_image(centre + np.array([[0, 0], [step, 0], [0, step]]))
        jacobian = np.column_stack([bx - a, by - a]) / step
        return math.sqrt(abs(float(np.linalg.det(jacobian))))

    def summary(self) -> dict[str, Any]:
        """The quality figures as JSON-ready data (for ``companion camera check``)."""
        return {
            "rms_mm": round(self.rms_mm, 3),
            "markers_used": list(self.used),
            "markers_missing": list(self.missing),
            "markers_rejected": list(self.rejected),
            "marker_rms_mm": {str(k): round(v, 3) for k, v in sorted(self.marker_rms_mm.items())},
            "px_per_mm": round(self.px_per_mm(), 3),
            "undistorted": self.camera is not None,
        }


def as_points(points: Any, name: str) -> np.ndarray:
    """``points`` as a float array (N, 2); ``ValueError`` naming ``name`` otherwise."""
    array = np.asarray(points, np.float64)
    if array.size % 2 or array.ndim == 0:
        raise ValueError(f"{name}: expected points (N, 2) (got shape {array.shape})")
    return array.reshape(-1, 2)


def apply_homography(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    """A 3x3 homography applied to points (N, 2)."""
    if len(points) < HOMOGRAPHY_BY_PARTS_FROM:
        homog = np.column_stack([points, np.ones(len(points))]) @ matrix.T
        return homog[:, :2] / homog[:, 2:3]
    m = np.asarray(matrix, np.float64)
    x, y = points[:, 0], points[:, 1]
    depth = m[2, 0] * x + m[2, 1] * y + m[2, 2]
    out = np.empty((len(points), 2))
    np.divide(m[0, 0] * x + m[0, 1] * y + m[0, 2], depth, out=out[:, 0])
    np.divide(m[1, 0] * x + m[1, 1] * y + m[1, 2], depth, out=out[:, 1])
    return out


#: ``apply_homography`` works coordinate by coordinate from this many points: a matrix
#: product of (N, 3) by 3 x 3 is not one BLAS does fast (28,000 points, a frame's rims:
#: 0.78 ms against 0.15), though on a few points it costs less. The two agree to a few
#: units in the last place.
HOMOGRAPHY_BY_PARTS_FROM = 512


def register(
    image: Any,
    sheet: Sheet,
    *,
    camera: Any = None,
    min_markers: int = 3,
    max_rms_mm: float = MAX_RMS_MM,
    settings: DetectorSettings | None = None,
    previous: Registration | None = None,
) -> Registration:
    """The board's registration in ``image``, or ``BoardNotVisible``.

    ``camera``: None, or intrinsics (see ``camera_model``); the frame's size must match
    the calibration's when it names one. ``min_markers``: the fewest of the sheet's
    markers that may register the board (three of four by default; two would fit a pose
    with nothing left to check it). ``max_rms_mm``: the worst quality accepted.
    ``previous``: the last frame's registration from the same camera, if any: the markers
    are looked for first where they were (video; a board that moved is found all the
    same, by the search every frame without it gets)."""
    frame = grey(image)
    model = camera_model(camera)
    size = (frame.shape[1], frame.shape[0])
    if model is not None and model.image_size is not None and model.image_size != size:
        raise FrameError(
            f"frame is {size[0]}x{size[1]} px but the camera calibration is for "
            f"{model.image_size[0]}x{model.image_size[1]}: calibrate this camera mode"
        )
    found = detect_markers(frame, sheet, settings, previous=previous)
    return register_markers(
        found, sheet, camera=model, min_markers=min_markers, max_rms_mm=max_rms_mm, image_size=size
    )


def register_markers(
    markers: Sequence[Marker],
    sheet: Sheet,
    *,
    camera: Any = None,
    min_markers: int = 3,
    max_rms_mm: float = MAX_RMS_MM,
    image_size: tuple[int, int] | None = None,
) -> Registration:
    """``register`` from markers already detected (unknown ids ignored, ids seen twice
    left out). When the markers disagree and more than ``min_markers`` are in view, the
    one that fits worst is left out (a marker moved or peeled off) while the rest agree."""
    if min_markers < 1:
        raise ValueError(f"min_markers: expected at least 1 (got {min_markers})")
    model = camera_model(camera)
    known = set(sheet.ids)
    counts = Counter(m.id for m in markers if m.id in known)
    duplicates = sorted(i for i, n in counts.items() if n > 1)
    chosen = {m.id: m for m in markers if counts.get(m.id) == 1}
    if len(chosen) < min_markers:
        raise BoardNotVisible(sheet, list(chosen), min_markers, duplicates=duplicates)
    image_pts = {i: m.corners for i, m in chosen.items()}
    if model is not None:
        # All the corners through the lens in one call (each point is undone alone).
        corners = [np.reshape(c, (-1, 2)) for c in image_pts.values()]
        flat, start = model.undistort(np.concatenate(corners)), 0
        for i, each in zip(list(image_pts), corners, strict=True):
            image_pts[i], start = flat[start : start + len(each)], start + len(each)

    ids = sorted(chosen)
    left_out: list[int] = []
    fit = _fit(sheet, ids, image_pts)
    while (fit is None or fit[1] > max_rms_mm) and len(ids) > min_markers:
        trials = [(_fit(sheet, [j for j in ids if j != i], image_pts), i) for i in ids]
        trials = [(f, i) for f, i in trials if f is not None]
        if not trials:
            break
        best, worst_id = min(trials, key=lambda t: t[0][1])
        ids = [j for j in ids if j != worst_id]
        left_out.append(worst_id)
        fit = best
    if fit is None:
        raise BoardNotVisible(
            sheet,
            list(chosen),
            min_markers,
            duplicates=duplicates,
            rms_mm=math.inf,
            max_rms_mm=max_rms_mm,
        )
    homography, rms, per_marker = fit
    if rms > max_rms_mm:
        worst = max(per_marker.items(), key=lambda kv: kv[1])
        raise BoardNotVisible(
            sheet,
            list(chosen),
            min_markers,
            duplicates=duplicates,
            rms_mm=rms,
            max_rms_mm=max_rms_mm,
            worst=worst,
        )
    return Registration(
        sheet=sheet,
        homography=homography,
        used=tuple(ids),
        missing=tuple(i for i in sheet.ids if i not in chosen),
        rejected=tuple(sorted([*duplicates, *left_out])),
        rms_mm=rms,
        marker_rms_mm=per_marker,
        markers=tuple(chosen[i] for i in ids),
        camera=model,
        image_size=image_size,
    )


def _fit(
    sheet: Sheet, ids: Sequence[int], image_pts: Mapping[int, np.ndarray]
) -> tuple[np.ndarray, float, dict[int, float]] | None:
    """Least-squares homography board mm -> px over the corners of ``ids``, its RMS error
    in mm and each marker's; None when degenerate or folding the grid over the horizon."""
    board = np.vstack([sheet.marker(i).corners() for i in ids])
    image = np.vstack([image_pts[i] for i in ids])
    homography, _ = cv2.findHomography(board, image, 0)
    if homography is None or not np.isfinite(homography).all():
        return None
    try:
        inverse = np.linalg.inv(homography)
    except np.linalg.LinAlgError:
        return None
    w = np.column_stack([sheet.grid.corners(), np.ones(4)]) @ homography[2]
    if not (np.all(w > 0) or np.all(w < 0)):
        return None
    back = apply_homography(inverse, image)
    squared = np.sum((back - board) ** 2, axis=1)
    per_marker = {i: float(math.sqrt(squared[4 * k : 4 * k + 4].mean())) for k, i in enumerate(ids)}
    return homography, float(math.sqrt(squared.mean())), per_marker
