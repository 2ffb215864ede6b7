"""What a piece covers on the square-on board picture, and the shadow it casts: a test of
each kind of piece against the pixels of a square.

A camera above the board sees a piece's top lean away from it; a lamp casts the piece's
shadow away from the lamp. Given where the camera is (``board_eye``, from the frame's
registration), where the lamp is (learnt from the set-up photo: ``learn_lamp``) and each
kind's shape (``calibration.shapes``), every kind of piece, turned any way, covers a
predictable patch of the square-on picture (``cover_masks``), and darkens another. A
kind is then scored by how well that explains the pixels (``fit_scores``): a pixel it
covers should look like a piece of that colour (the profile's palette of piece colours,
``learn_palette``), a pixel in its shadow like the board darkened, and all else like
the empty board, which costs nothing to either kind. The lowest score explains best.

This looks at a piece differently from its blob's outline (``calibration.blobs``): the
outline of what differs from the board mixes the piece with its shadow and loses a white
top on a light square, where the fit weighs each pixel by what it looks like. The two
err on different pieces; the reader adds them up (``vision.readers.gimmel``).
"""

from __future__ import annotations

import contextlib
import functools
import math
import weakref
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from calibration.shapes import PieceShapes


@dataclass(frozen=True)
class FitSettings:
    """``cap``: a pixel's colour difference (Delta E) counts up to this, so that one odd
    pixel (a glint, a neighbour's edge) weighs no more than a clearly wrong one.
    ``angle_step_deg``: the turns tried. ``half_mm``: the patch looked at, this far each
    way from a square's middle (a falcon leaning 12 mm from a square's edge stays in).
    ``search_mm``/``search_step_mm``: how far off its square's middle a piece is looked
    for, and in what steps. ``shadow_range``: a shadow darkens the board's colour to
    between these shares of it (Lab L + 16, a and b alike: the lamp's light is gone, the
    room's still falls there; a pixel nearly as light as the board is no shadow).
    ``palette_size``: colours in a palette. ``erode_px``: the set-up pieces' patches
    are trimmed by this before their colours are taken (the edge blends with the
    board). ``palette_floor``: a pixel of a set-up piece this like the empty board
    (Delta E) does not go into its palette. ``glint_within_deg``: a piece's flat top
    mirrors the lamp into the camera where the direction half-way between the two is
    within this of straight up (``glint_tilt_deg``); there a black top looks as grey as
    a white piece's shaded side, so the top says nothing of the colour and the side
    does (``fit_scores``). ``edge_weight``: what each unit of edge on a hypothesis's
    outline (``outline_masks``) that the empty board had not (``edge_gain``: L* a
    pixel, less ``edge_floor`` for the noise, at most ``edge_cap``) takes off its score
    for whether any piece stands there (``ANY_PIECE``), never for which: a white piece on
    a light square differs little in colour from it, but its outline is sharp all round,
    where a shadow's or a sleeve's edge runs along a side at most (the cap keeps one
    strong straight edge from counting as a whole outline). Set on rendered frames of
    seeds 101-1000 (throwaway scripts): uncapped and counted for which piece too, 19
    squares were read right and 24 newly misread (empty squares with a neighbour's
    shadow's edge read as white cats; black pieces, whose edges are strong, read white
    where another colour's best placement lined up with them better); capped at 4 and
    for whether a piece stands there alone, with ``ReaderSettings.least_textured_fit``
    raised to match, 7 and 3."""

    cap: float = 30.0
    angle_step_deg: float = 10.0
    half_mm: float = 26.0
    search_mm: float = 2.0
    search_step_mm: float = 2.0
    shadow_range: tuple[float, float] = (0.3, 0.85)
    palette_size: int = 8
    erode_px: int = 2
    palette_floor: float = 12.0
    glint_within_deg: float = 12.0
    edge_weight: float = 6.0
    edge_floor: float = 2.0
    edge_cap: float = 4.0


#: The key under which ``fit_scores`` gives, with ``outlines``, the least score of any
#: piece at a square with the outline's edges counted (whether a piece stands there).
ANY_PIECE = "any piece"

#: A piece standing on a square: its kind and how it is turned (radians).
Hypothesis = tuple[str, float]


def hypotheses(
    shapes: PieceShapes, settings: FitSettings = FitSettings()
) -> tuple[Hypothesis, ...]:
    """Every kind, turned through its symmetry in ``angle_step_deg`` steps."""
    found = []
    for solid in shapes.solids:
        turns = max(1, round(solid.symmetry_deg / settings.angle_step_deg))
        if solid.symmetry_deg >= 360.0:
            turns = 1  # round: a turn changes nothing
        found += [(solid.kind, math.radians(k * solid.symmetry_deg / turns)) for k in range(turns)]
    return tuple(found)


def board_eye(registration: Any) -> np.ndarray | None:
    """Where the camera is, in board mm: (x, y, height above the board). From the
    registration's homography and the camera's matrix; without a calibrated camera, the
    focal length is worked out from the homography itself (square pixels, the principal
    point at the image's middle), or a common webcam's assumed when the board is seen
    too squarely for that. ``None`` without an image size to assume from. Read-only;
    worked out once a registration (a frame's reading asks for it several times)."""
    try:
        return _EYES[registration]
    except (KeyError, TypeError):  # not yet, or a registration that cannot be kept
        pass
    eye = _board_eye(registration)
    if eye is not None:
        eye.setflags(write=False)
    with contextlib.suppress(TypeError):  # one that cannot be kept is worked out again
        _EYES[registration] = eye
    return eye


#: ``board_eye`` of each registration still in use.
_EYES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _board_eye(registration: Any) -> np.ndarray | None:
    camera = registration.camera
    if camera is not None:
        matrix = np.asarray(camera.matrix, np.float64)
    elif registration.image_size is not None:
        matrix = _assumed_matrix(registration.homography, registration.image_size)
    else:
        return None
    m = np.linalg.inv(matrix) @ registration.homography
    scale = 1.0 / np.linalg.norm(m[:, 0])
    if m[2, 2] * scale < 0:
        scale = -scale  # the board in front of the camera
    r1, r2, t = m[:, 0] * scale, m[:, 1] * scale, m[:, 2] * scale
    rotation = np.column_stack([r1, r2, np.cross(r1, r2)])
    centre = -rotation.T @ t
    return np.array([centre[0], centre[1], abs(centre[2])])


#: Without a calibrated camera and with a board seen nearly square-on, a webcam's usual
#: horizontal field of view is assumed (degrees).
ASSUMED_FOV_DEG = 65.0


def _assumed_matrix(homography: np.ndarray, image_size: Sequence[int]) -> np.ndarray:
    width, height = image_size
    shift = np.array([[1.0, 0, -width / 2], [0, 1.0, -height / 2], [0, 0, 1.0]])
    h = shift @ homography
    (a, b), (c, d), (e, f) = h[0, :2], h[1, :2], h[2, :2]
    # A homography of a plane seen through K = diag(f, f, 1) makes its two columns, once
    # K is undone, as long as each other and at right angles: two estimates of f squared.
    estimates = []
    if abs(e * f) > 1e-12:
        estimates.append(-(a * b + c * d) / (e * f))
    if abs(e * e - f * f) > 1e-12:
        estimates.append(-(a * a + c * c - b * b - d * d) / (e * e - f * f))
    focals = [math.sqrt(v) for v in estimates if v > 0]
    plausible = [found for found in focals if 0.3 * width < found < 4 * width]
    focal = float(np.median(plausible)) if plausible else (
        width / 2 / math.tan(math.radians(ASSUMED_FOV_DEG) / 2))  # fmt: skip
    return np.array([[focal, 0, width / 2], [0, focal, height / 2], [0, 0, 1.0]])


def lean(points: np.ndarray, source: np.ndarray) -> np.ndarray:
    """Points (N, 3: x, y mm, height mm) onto the board as seen from ``source`` (x, y,
    height: the camera's eye, or a lamp): along the line from the source through each
    point to where it meets the board. (N, 2) mm."""
    return _leaned(points[:, :2], points[:, 2], source)


def cover_masks(
    shapes: PieceShapes,
    hyps: Sequence[Hypothesis],
    centre_mm: np.ndarray,
    eye: np.ndarray | None,
    lamp: np.ndarray | None,
    px_per_mm: float,
    half_px: int,
    *,
    top: bool = False,
) -> tuple[np.ndarray, np.ndarray | None] | tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """For a piece at ``centre_mm`` as each hypothesis: what it covers as the camera at
    ``eye`` sees it, and (with a ``lamp``) its shadow outside that, each a 0/1 patch of
    (2 half_px + 1)^2 picture px centred on ``centre_mm``, flattened: (H, P) float32,
    read-only. With ``top``, also the part of the cover that is the piece's top (its
    outline at its full height: a falcon's disc, a cat's triangle), the rest being its
    side. Worked out once for a camera, lamp and square (a mounted camera stays put)."""
    key = _masks_key(centre_mm, eye, lamp)
    found = _float_masks(_cover_masks, shapes, tuple(hyps), key, px_per_mm, half_px)
    if not top:
        return found
    return (*found, *_float_masks(_top_masks, shapes, tuple(hyps), key, px_per_mm, half_px))


#: Masks also kept as floats (``_float_masks``: a square's cover and shadow, its outline,
#: its top, each one): a frame's fit asks for a few squares, a frame with a hand over the
#: board for a dozen or more, and a table's moves come back to the same ones. Read in
#: turn, more squares than are kept would each be made again every time. At most about
#: 90 MB (128 covers with their shadows; the bytes kept, ``_cover_masks`` and its kin,
#: up to about 150 MB).
FLOAT_MASKS_KEPT = 128


@functools.lru_cache(maxsize=FLOAT_MASKS_KEPT)
def _float_masks(work, shapes, hyps, key, px_per_mm, half_px) -> tuple[np.ndarray | None, ...]:
    """``work``'s masks (one 0/1 uint8 array, or a tuple of them or None) as float32,
    read-only: a square's cover as floats is about a third of a megabyte, and making it
    from the bytes kept (``_cover_masks``) at every fit cost a frame about 0.4 ms under
    cProfile (the covers' and the outlines', seeds 1-40)."""
    found = work(shapes, hyps, key, px_per_mm, half_px)
    found = found if isinstance(found, tuple) else (found,)
    floats = tuple(None if mask is None else mask.astype(np.float32) for mask in found)
    for mask in floats:
        if mask is not None:
            mask.setflags(write=False)
    return floats


def _masks_key(centre_mm: np.ndarray, eye: np.ndarray | None, lamp: np.ndarray | None):
    """Where a square's masks are kept: its middle to half a mm, the camera to 5 mm and
    the lamp to 20 mm (nearer than that, the masks are the same)."""
    return (
        tuple(np.round(np.asarray(centre_mm) * 2).astype(int)),
        None if eye is None else tuple(np.round(eye / 5.0).astype(int)),
        None if lamp is None else tuple(np.round(lamp / 20.0).astype(int)),
    )


# Kept as bytes (a quarter of floats): a board's squares' masks are about 25 MB.
@functools.lru_cache(maxsize=512)
def _cover_masks(shapes, hyps, key, px_per_mm, half_px):
    centre = np.array(key[0], np.float64) / 2
    eye = None if key[1] is None else np.array(key[1], np.float64) * 5.0
    lamp = None if key[2] is None else np.array(key[2], np.float64) * 20.0
    covers = _fill_hulls(shapes, hyps, centre, eye, px_per_mm, half_px)
    flat = covers.reshape(len(hyps), -1)
    if lamp is None:
        return flat, None
    shadows = _fill_hulls(shapes, hyps, centre, lamp, px_per_mm, half_px).reshape(len(hyps), -1)
    return flat, shadows * (1 - flat)


def outline_masks(
    shapes: PieceShapes,
    hyps: Sequence[Hypothesis],
    centre_mm: np.ndarray,
    eye: np.ndarray | None,
    lamp: np.ndarray | None,
    px_per_mm: float,
    half_px: int,
) -> np.ndarray:
    """Each hypothesis's outline as the camera at ``eye`` sees it: the pixels at the
    edge of its cover (``cover_masks``, whose work for that ``lamp`` it shares), inside
    and out (a 3x3 morphological gradient), (H, P) float32, read-only. Worked out once
    for a camera and square."""
    key = _masks_key(centre_mm, eye, lamp)
    return _float_masks(_outline_masks, shapes, tuple(hyps), key, px_per_mm, half_px)[0]


@functools.lru_cache(maxsize=512)
def _outline_masks(shapes, hyps, key, px_per_mm, half_px):
    covers = _cover_masks(shapes, hyps, key, px_per_mm, half_px)[0]
    side = 2 * half_px + 1
    kernel = np.ones((3, 3), np.uint8)
    return np.stack([cv2.morphologyEx(c.reshape(side, side), cv2.MORPH_GRADIENT, kernel)
                     for c in covers]).reshape(len(hyps), -1)  # fmt: skip


@functools.lru_cache(maxsize=128)
def _top_masks(shapes, hyps, key, px_per_mm, half_px):
    centre = np.array(key[0], np.float64) / 2
    eye = None if key[1] is None else np.array(key[1], np.float64) * 5.0
    tops = _fill_hulls(shapes, hyps, centre, eye, px_per_mm, half_px, top_only=True)
    return tops.reshape(len(hyps), -1) * _cover_masks(shapes, hyps, key, px_per_mm, half_px)[0]


def shadow_zone(
    shapes: PieceShapes,
    hyps: Sequence[Hypothesis],
    centre_mm: np.ndarray,
    lamp: np.ndarray,
    px_per_mm: float,
    half_px: int,
    grow_px: int,
) -> np.ndarray:
    """Where a piece standing at ``centre_mm`` may darken the board, whichever
    hypothesis it is: the union of every hypothesis's outline leaned from the ``lamp``
    onto the board (its shadow and its own foot), grown by ``grow_px`` for the shadow's
    soft edge and a lamp placed only roughly; a (2 half_px + 1)^2 bool patch centred on
    ``centre_mm``. Worked out once for a lamp and square."""
    key = _masks_key(centre_mm, None, lamp)
    return _shadow_zone(shapes, tuple(hyps), key, px_per_mm, half_px, grow_px)


@functools.lru_cache(maxsize=512)
def _shadow_zone(shapes, hyps, key, px_per_mm, half_px, grow_px):
    centre = np.array(key[0], np.float64) / 2
    lamp = np.array(key[2], np.float64) * 20.0
    zone = _fill_hulls(shapes, hyps, centre, lamp, px_per_mm, half_px).max(axis=0)
    if grow_px > 0:
        disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * grow_px + 1, 2 * grow_px + 1))
        zone = cv2.dilate(zone, disc)
    zone = zone.astype(bool)
    zone.flags.writeable = False  # kept: shared by every frame
    return zone


def _fill_hulls(shapes, hyps, centre, source, px_per_mm, half_px, top_only=False) -> np.ndarray:
    """Each hypothesis's outline (``top_only``: its points at its full height) leaned
    from ``source`` (or straight down without one), its convex hull filled: (H, side,
    side) 0/1 patches centred on ``centre``."""
    side = 2 * half_px + 1
    patches = np.zeros((len(hyps), side, side), np.uint8)
    for rows, points, heights in _turned(shapes, hyps):
        if top_only:
            at_top = heights >= heights.max()
            points, heights = points[:, at_top], heights[at_top]
        leaned = (_leaned(points + centre, heights, source) - centre) * px_per_mm + half_px
        for j, i in enumerate(rows):
            hull = cv2.convexHull(np.ascontiguousarray(leaned[j], np.float32))
            cv2.fillConvexPoly(patches[i], np.round(hull.reshape(-1, 2)).astype(np.int32), 1)
    return patches


@functools.lru_cache(maxsize=16)
def _turned(shapes, hyps):
    """Per kind: the hypotheses' rows, their outline points turned about the foot
    (turns, N, 2 mm) and the points' heights: the same wherever the piece stands."""
    groups = []
    for kind in dict.fromkeys(k for k, _ in hyps):
        rows = [i for i, (k, _) in enumerate(hyps) if k == kind]
        points = shapes[kind].points
        turns = []
        for i in rows:
            c, s = math.cos(hyps[i][1]), math.sin(hyps[i][1])
            turns.append(points[:, :2] @ np.array([[c, s], [-s, c]]))
        groups.append((rows, np.array(turns), points[:, 2]))
    return groups


def _leaned(xy: np.ndarray, heights: np.ndarray, source: np.ndarray | None) -> np.ndarray:
    """``lean`` for points (..., N, 2) of ``heights`` (N)."""
    if source is None:
        return xy
    return xy + (xy - source[:2]) * lean_reach(heights, source)[:, None]


def lean_reach(heights: Any, source: np.ndarray) -> Any:
    """How much further from the foot of ``source`` (x, y, height) a point at ``heights``
    lands on the board than it stands (``lean``): a share of its distance from the foot,
    the same for every point at one height, so that at one height ``lean`` scales about
    the foot by 1 plus it."""
    return heights / np.maximum(source[2] - heights, 1e-6)


def glint_tilt_deg(eye: np.ndarray, lamp: np.ndarray, point: np.ndarray) -> float:
    """How far from straight up (degrees) the direction half-way between the camera at
    ``eye`` and the lamp at ``lamp`` is, from ``point`` (board mm: x, y, height): a flat
    top facing up at ``point`` mirrors the lamp into the camera as this nears 0 (its
    gloss falls off with the cosine of it to a power: Blinn-Phong)."""
    point = np.asarray(point, np.float64)
    to_eye, to_lamp = np.asarray(eye, np.float64) - point, np.asarray(lamp, np.float64) - point
    half = to_eye / np.linalg.norm(to_eye) + to_lamp / np.linalg.norm(to_lamp)
    return math.degrees(math.acos(float(np.clip(half[2] / np.linalg.norm(half), -1.0, 1.0))))


# -- what pixels look like ---------------------------------------------------------------


def delta_e(lab: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """Each pixel's CIE76 Delta E from one colour."""
    return np.sqrt(((lab - np.asarray(colour, np.float32)) ** 2).sum(-1))


def palette_costs(lab: np.ndarray, palettes: Sequence[np.ndarray], cap: float) -> list[np.ndarray]:
    """Each pixel's Delta E from the nearest colour of each palette (K, 3), at most
    ``cap``: one picture a palette (the palettes padded with their first colour to the
    longest)."""
    pixels = np.ascontiguousarray(lab, np.float32).reshape(-1, 3)
    longest = max(len(p) for p in palettes)
    padded = [np.vstack([p, np.repeat(np.asarray(p[:1]), longest - len(p), 0)])
              for p in (np.asarray(p, np.float32) for p in palettes)]  # fmt: skip
    colours = np.concatenate(padded)
    # |p - c|^2 = |p|^2 - 2 p.c + |c|^2: one matrix product for every pixel and colour,
    # a row a colour, so that the nearest of each palette's colours is a minimum over
    # whole rows: under half the time of a minimum over each pixel's few colours, and
    # the same values to the bit (every call of the reader on seeds 1-30's frames).
    apart = colours @ pixels.T
    apart *= -2.0
    apart += (colours * colours).sum(1)[:, None]
    nearest = np.minimum.reduce(apart.reshape(len(palettes), longest, len(pixels)), axis=1)
    nearest += np.einsum("pc,pc->p", pixels, pixels)[None]
    costs = np.minimum(np.sqrt(np.maximum(nearest, 0.0)), cap)
    return [costs[k].reshape(lab.shape[:-1]) for k in range(len(palettes))]


def shadow_cost(lab: np.ndarray, empty: np.ndarray, shade_range: tuple[float, float],
                cap: float) -> np.ndarray:  # fmt: skip
    """Each pixel's Delta E from its empty colour darkened as a shadow darkens it, by
    the share in ``shade_range`` that fits best (Lab L + 16, a and b all scale alike as
    the light falling on a surface does), at most ``cap``. A pixel as light as the board
    is no shadow, and costs."""
    lift = np.array([16.0, 0.0, 0.0], np.float32)
    seen, board = lab + lift, empty + lift
    share = np.einsum("...c,...c->...", seen, board) / np.maximum(
        np.einsum("...c,...c->...", board, board), 1e-3
    )
    np.clip(share, *shade_range, out=share)
    seen -= board * share[..., None]
    return np.minimum(np.sqrt(np.einsum("...c,...c->...", seen, seen)), cap)


def offsets(settings: FitSettings, px_per_mm: float) -> list[tuple[int, int]]:
    reach = round(settings.search_mm * px_per_mm)
    step = max(1, round(settings.search_step_mm * px_per_mm))
    along = range(-reach, reach + 1, step)
    return [(dx, dy) for dy in along for dx in along]


def fit_scores(
    lab: np.ndarray,
    empty: np.ndarray,
    difference: np.ndarray | Sequence[np.ndarray],
    centres_px: Sequence[tuple[float, float]],
    masks: Sequence[tuple[np.ndarray, np.ndarray | None]],
    hyps: Sequence[Hypothesis],
    palettes: dict[str, np.ndarray],
    px_per_mm: float,
    settings: FitSettings = FitSettings(),
    *,
    side_palettes: dict[str, np.ndarray] | None = None,
    outlines: Sequence[np.ndarray] | None = None,
) -> list[dict[str, float]]:
    """Each class's (``"white falcon"``) best score at each square whose middle is at
    ``centres_px`` of the square-on picture (``lab``, the ``empty`` board's picture and
    their ``difference``), each square with its own ``masks`` (``cover_masks``): the
    least, over the hypotheses of its kind and the offsets searched, of what its cover
    and shadow cost more than the empty board there. Lower explains better; the units
    are Delta E times pixels. ``difference`` may also be one picture a square: what
    the board should look like differs from square to square (a neighbour's shadow on
    the board is part of it, the square's own piece's is not). ``hyps`` come kind by
    kind (``hypotheses``' order). All squares go through one pass of array work, which
    costs much less than one a square.

    A square whose masks hold a third, the pieces' tops (``cover_masks(top=True)``),
    is one where a top mirrors the lamp (``glint_tilt_deg``): there a top costs what
    the palette of whichever colour it is nearest says, the same for every colour, and
    the side (the cover less the top) is compared with its colour's ``side_palettes``
    (the sides' colours alone: a black piece's side is black where its palette also
    holds its tops' greys) or, without them, with its palette.

    Given ``outlines`` (each square's ``outline_masks``), each square's scores also hold
    ``ANY_PIECE``, which is no class: the least score of any piece there with its
    outline's edges counted (``FitSettings.edge_weight``), whether a piece stands there."""
    return _fit(lab, empty, difference, centres_px, masks, hyps, palettes, px_per_mm,
                settings, None, side_palettes, outlines)[0]  # fmt: skip


def fit_scores_lit(
    lab: np.ndarray,
    empty: np.ndarray,
    difference: np.ndarray | Sequence[np.ndarray],
    centres_px: Sequence[tuple[float, float]],
    masks: Sequence[tuple[np.ndarray, np.ndarray | None]],
    hyps: Sequence[Hypothesis],
    palettes: dict[str, np.ndarray],
    px_per_mm: float,
    lit: Sequence[float],
    settings: FitSettings = FitSettings(),
    *,
    side_palettes: dict[str, np.ndarray] | None = None,
    outlines: Sequence[np.ndarray] | None = None,
) -> list[tuple[dict[str, float], dict[str, float]]]:
    """``fit_scores`` twice in one pass, per square: as it scores, and with the
    pixels' lightness (Lab L) divided by the square's ``lit`` (how much lighter or darker
    the square is lit now than in the photos the palettes were learnt from) before they
    are compared with the palettes. A white piece in an arm's shadow is then as light as
    the set-up showed it, and scores white; the shadow and the board are scored as they
    are. The windows and the shadows' costs are worked out once for both."""
    if len(lit) != len(centres_px):
        raise ValueError(f"expected a lit share for each of the {len(centres_px)} squares "
                         f"(got {len(lit)})")  # fmt: skip
    plain, followed = _fit(lab, empty, difference, centres_px, masks, hyps, palettes,
                           px_per_mm, settings, lit, side_palettes, outlines)  # fmt: skip
    return list(zip(plain, followed, strict=True))


def _fit(
    lab: np.ndarray,
    empty: np.ndarray,
    difference: np.ndarray | Sequence[np.ndarray],
    centres_px: Sequence[tuple[float, float]],
    masks: Sequence[tuple[np.ndarray, ...]],
    hyps: Sequence[Hypothesis],
    palettes: dict[str, np.ndarray],
    px_per_mm: float,
    settings: FitSettings,
    lit: Sequence[float] | None,
    side_palettes: dict[str, np.ndarray] | None = None,
    outlines: Sequence[np.ndarray] | None = None,
) -> list[list[dict[str, float]]]:
    """``fit_scores``' work, for the windows as they are and, given ``lit``, also with
    their lightness divided by it: one list of scores each; given ``outlines`` (each
    square's ``outline_masks``), the first list's also hold ``ANY_PIECE``."""
    side = round(math.sqrt(masks[0][0].shape[1]))
    half = (side - 1) // 2
    shifts = offsets(settings, px_per_mm)
    reach = max(max(abs(dx), abs(dy)) for dx, dy in shifts)
    box = half + reach
    spots = [(round(x), round(y)) for x, y in centres_px]
    lab_w = np.stack([_window(lab, x, y, box) for x, y in spots])
    per_square = [difference] * len(spots) if isinstance(difference, np.ndarray) else difference
    board = np.minimum(np.stack([_window(d, x, y, box) for d, (x, y) in zip(per_square, spots,
                                                                           strict=True)]),
                       settings.cap)  # fmt: skip
    covers = [cover for cover, *_ in masks]  # each (H, P)
    glints = [n for n, (_, _, *top) in enumerate(masks) if top and top[0] is not None]
    colours = list(palettes)
    chosen = [palettes[c] for c in colours]
    views = [lab_w]
    if lit is not None:
        relit = lab_w.astype(np.float32, copy=True)
        relit[..., 0] /= np.maximum(np.asarray(lit, np.float32), 1e-3)[:, None, None]
        views.append(relit)
    costs = [cost for view in views for cost in palette_costs(view, chosen, settings.cap)]
    # One small matrix product a square and map: (H, P) by (P, shifts), which BLAS does
    # fast; a stacked product over squares of strided patches does not.
    total = np.empty((len(costs), len(spots), covers[0].shape[0], len(shifts)), np.float32)
    plain = [n for n in range(len(spots)) if n not in glints]
    for c, cost in enumerate(costs):
        patches = _shifted_many(cost - board, shifts, side, reach)
        for n in plain:
            total[c, n] = covers[n] @ patches[n].T
    if glints:
        # A top mirroring the lamp: as costly for every colour (the nearest's cost), and
        # the side says which colour.
        sides = [chosen[k] if side_palettes is None or c not in side_palettes
                 else np.asarray(side_palettes[c], np.float32)
                 for k, c in enumerate(colours)]  # fmt: skip
        shown = board[glints]
        below = {n: covers[n] - masks[n][2] for n in glints}  # each cover less its top
        for v, view in enumerate(views):
            mine = costs[v * len(colours) : (v + 1) * len(colours)]
            blind = _shifted_many(np.minimum.reduce(mine)[glints] - shown, shifts, side, reach)
            for c, cost in enumerate(palette_costs(view[glints], sides, settings.cap)):
                patches = _shifted_many(cost - shown, shifts, side, reach)
                for j, n in enumerate(glints):
                    total[v * len(colours) + c, n] = (
                        masks[n][2] @ blind[j].T + below[n] @ patches[j].T
                    )
    edges = None  # (N, H, shifts): what each outline's edges take off each score
    weigh_edges = outlines is not None and settings.edge_weight > 0
    if weigh_edges or masks[0][1] is not None:
        empty_w = np.stack([_window(empty, x, y, box) for x, y in spots])
    if weigh_edges:
        # An outline where the board had no edge says a piece stands there, not which
        # colour (every colour alike), so it goes into ``ANY_PIECE`` alone.
        sharper = edge_gain(lab_w[..., 0], empty_w[..., 0], settings.edge_floor, settings.edge_cap)
        patches = _shifted_many(-settings.edge_weight * sharper, shifts, side, reach)
        edges = np.stack([outline @ patch.T for outline, patch in zip(outlines, patches,
                                                                      strict=True)])  # fmt: skip
    if masks[0][1] is not None:
        dark = shadow_cost(lab_w, empty_w, settings.shadow_range, settings.cap)
        patches = _shifted_many(dark - board, shifts, side, reach)
        for n, (_, shade, *_) in enumerate(masks):
            total[:, n] += shade @ patches[n].T
    best = total.min(axis=3)  # (colours, N, H)
    kinds = [kind for kind, _ in hyps]
    starts = [i for i, kind in enumerate(kinds) if i == 0 or kinds[i - 1] != kind]
    per_kind = np.minimum.reduceat(best, starts, axis=2)  # (variants x colours, N, kinds)
    found = [
        [{f"{colour} {kinds[start]}": float(per_kind[v * len(colours) + c, n, j])
          for c, colour in enumerate(colours) for j, start in enumerate(starts)}
         for n in range(len(spots))]
        for v in range(len(views))
    ]  # fmt: skip
    if edges is not None:  # any piece, as the pixels are (the first view), edges and all
        edged = (total[: len(colours)] + edges[None]).min(axis=(0, 2, 3))  # (N,)
        for n, scores in enumerate(found[0]):
            scores[ANY_PIECE] = float(edged[n])
    return found


def edge_gain(light: np.ndarray, empty: np.ndarray, floor: float, cap: float) -> np.ndarray:
    """How much sharper each pixel's lightness edge is than the empty board's anywhere
    within a pixel of it (Sobel magnitude, L* a pixel: the board's own edges a pixel off
    are none), less ``floor`` (the sensor's noise), 0 to ``cap``: (N, box, box) for N
    windows."""
    found = np.empty(light.shape, np.float32)
    near = np.ones((3, 3), np.uint8)
    for n in range(len(light)):
        seen = [cv2.Sobel(light[n], cv2.CV_32F, dx, 1 - dx, ksize=3, scale=0.125) for dx in (0, 1)]
        was = [cv2.Sobel(empty[n], cv2.CV_32F, dx, 1 - dx, ksize=3, scale=0.125) for dx in (0, 1)]
        found[n] = cv2.magnitude(*seen) - cv2.dilate(cv2.magnitude(*was), near)
    return np.clip(found - floor, 0.0, cap)


def _shifted_many(values: np.ndarray, shifts: list[tuple[int, int]], side: int, reach: int):
    """For each square's map in ``values`` (N, box, box), the side x side patch at each
    shift from its middle, flattened one a row: (N, shifts, P)."""
    # A slice a shift, copied whole: half the time of indexing a sliding window's view.
    patches = np.empty((len(values), len(shifts), side, side), values.dtype)
    for k, (dx, dy) in enumerate(shifts):
        patches[:, k] = values[:, reach + dy : reach + dy + side, reach + dx : reach + dx + side]
    return patches.reshape(len(values), len(shifts), -1)


def _window(picture: np.ndarray, x: int, y: int, half: int) -> np.ndarray:
    """The (2 half + 1)^2 px around (x, y), padded by repeating the picture's edge."""
    height, width = picture.shape[:2]
    x0, y0, x1, y1 = x - half, y - half, x + half + 1, y + half + 1
    if x0 >= 0 and y0 >= 0 and x1 <= width and y1 <= height:
        return picture[y0:y1, x0:x1]
    rows = np.clip(np.arange(y0, y1), 0, height - 1)
    cols = np.clip(np.arange(x0, x1), 0, width - 1)
    return picture[rows[:, None], cols[None, :]]


# -- learnt from the set-up photo --------------------------------------------------------


@dataclass(frozen=True)
class Seen:
    """A set-up piece as the set-up photo shows it: its class, where it stands (board
    mm, the best fit's) and how it is turned, and its cover patch there, and the part
    of that which is its top."""

    label: str
    centre_mm: np.ndarray
    hypothesis: Hypothesis
    cover: np.ndarray
    top: np.ndarray


def fit_known(
    difference: np.ndarray,
    pieces: Iterable[tuple[str, np.ndarray]],
    shapes: PieceShapes,
    eye: np.ndarray | None,
    px_per_mm: float,
    margin_mm: float,
    settings: FitSettings = FitSettings(),
) -> list[Seen]:
    """Where each known piece (its class ``"white cat"`` and its square's middle in board
    mm) stands and how it is turned, by what differs from the empty board (no colours
    known yet): the hypothesis of its kind covering the most pixels unlike the board and
    the fewest like it, at offsets up to twice the reader's search, one px apart."""
    half = round(settings.half_mm * px_per_mm)
    hyps = hypotheses(shapes, settings)
    unlike = settings.cap / 2 - np.minimum(difference, settings.cap)
    reach = round(2 * settings.search_mm * px_per_mm)
    shifts = [(dx, dy) for dy in range(-reach, reach + 1) for dx in range(-reach, reach + 1)]
    found = []
    for label, centre_mm in pieces:
        kind = label.split()[-1]
        mine = [i for i, (k, _) in enumerate(hyps) if k == kind]
        covers, _ = cover_masks(shapes, hyps, centre_mm, eye, None, px_per_mm, half)
        x, y = ((np.asarray(centre_mm) + margin_mm) * px_per_mm).round().astype(int)
        patches = _shifted_many(_window(unlike, x, y, half + reach)[None], shifts, 2 * half + 1,
                                reach)[0]  # fmt: skip
        scores = covers[mine] @ patches.T
        i, k = np.unravel_index(int(np.argmin(scores)), scores.shape)
        dx, dy = shifts[k]
        # Its top, as its cover: worked out at the square's middle, taken where it stands.
        _, _, top = cover_masks(shapes, (hyps[mine[i]],), centre_mm, eye, None, px_per_mm, half,
                                top=True)  # fmt: skip
        found.append(Seen(label, np.asarray(centre_mm) + np.array([dx, dy]) / px_per_mm,
                          hyps[mine[i]], covers[mine[i]], top[0]))  # fmt: skip
    return found


def learn_palette(
    lab: np.ndarray,
    difference: np.ndarray,
    seen: Sequence[Seen],
    px_per_mm: float,
    margin_mm: float,
    settings: FitSettings = FitSettings(),
    *,
    sides: bool = False,
) -> dict[str, np.ndarray]:
    """Per colour (the classes' first word), the ``palette_size`` colours its pieces
    show: the pixels well inside each set-up piece's cover (not its shadow, not the
    board beside it), grouped (k-means, started from spread-out pixels so that the same
    photo always gives the same palette). With ``sides``, of the pieces' sides alone
    (their covers less their tops, kept well apart from the tops)."""
    half = round(settings.half_mm * px_per_mm)
    side = 2 * half + 1
    kernel = np.ones((2 * settings.erode_px + 1,) * 2, np.uint8)
    pixels: dict[str, list[np.ndarray]] = {}
    for piece in seen:
        cover = cv2.erode(piece.cover.reshape(side, side).astype(np.uint8), kernel) > 0
        if sides:
            cover &= cv2.dilate(piece.top.reshape(side, side).astype(np.uint8), kernel) == 0
        x, y = ((piece.centre_mm + margin_mm) * px_per_mm).round().astype(int)
        keep = cover & (_window(difference, x, y, half) > settings.palette_floor)
        pixels.setdefault(piece.label.split()[0], []).append(_window(lab, x, y, half)[keep])
    return {colour: kmeans(np.concatenate(found), settings.palette_size)
            for colour, found in pixels.items() if sum(len(f) for f in found)}  # fmt: skip


def kmeans(points: np.ndarray, k: int, rounds: int = 12) -> np.ndarray:
    """``k`` centres of ``points`` (N, 3), deterministically: started from the point
    farthest from those chosen, first from the mean."""
    points = np.asarray(points, np.float32)
    k = min(k, len(points))
    centres = [points.mean(0)]
    nearest = delta_e(points, centres[0])
    for _ in range(1, k):
        centres.append(points[int(np.argmax(nearest))])
        nearest = np.minimum(nearest, delta_e(points, centres[-1]))
    centres = np.array(centres)
    for _ in range(rounds):
        apart = ((points[:, None, :] - centres[None]) ** 2).sum(-1)
        owner = apart.argmin(1)
        for j in range(k):
            mine = points[owner == j]
            if len(mine):
                centres[j] = mine.mean(0)
    return centres


#: The lamps tried when learning where it is: distances (mm) from the board's middle,
#: heights above the horizon (degrees) and directions round it (degrees, steps).
LAMP_DISTANCES_MM = (700.0, 1000.0, 1400.0)
LAMP_ELEVATIONS_DEG = tuple(range(25, 90, 10))
LAMP_AZIMUTH_STEP_DEG = 15
#: A lamp is taken only if its shadows explain the set-up photo at least this much
#: better than no shadows, per piece (Delta E times px): else the light is too even to
#: say, and the fit goes without shadows.
LEAST_SHADOW_GAIN = 10.0


def learn_lamp(
    lab: np.ndarray,
    empty: np.ndarray,
    difference: np.ndarray,
    seen: Sequence[Seen],
    shapes: PieceShapes,
    eye: np.ndarray | None,
    board_middle_mm: np.ndarray,
    px_per_mm: float,
    margin_mm: float,
    settings: FitSettings = FitSettings(),
) -> np.ndarray | None:
    """Where the lamp is (board mm: x, y, height), as the one whose shadows of the
    set-up pieces, as they stand (``fit_known``), best explain the darkened board
    beside them; ``None`` when no lamp tried does much better than none."""
    half = round(settings.half_mm * px_per_mm)
    shade = shadow_cost(lab, empty, settings.shadow_range, settings.cap)
    gain = shade - np.minimum(difference, settings.cap)
    patches = []
    for piece in seen:
        x, y = ((piece.centre_mm + margin_mm) * px_per_mm).round().astype(int)
        patches.append(_window(gain, x, y, half).ravel())
    best, where = -LEAST_SHADOW_GAIN * len(seen), None
    for lamp in _lamps(board_middle_mm):
        total = 0.0
        for piece, patch in zip(seen, patches, strict=True):
            _, shadows = cover_masks(shapes, (piece.hypothesis,), piece.centre_mm, eye, lamp,
                                     px_per_mm, half)  # fmt: skip
            total += float(shadows[0] @ patch)
        if total < best:
            best, where = total, lamp
    return where


def _lamps(middle: np.ndarray) -> Iterable[np.ndarray]:
    for distance in LAMP_DISTANCES_MM:
        for elevation in LAMP_ELEVATIONS_DEG:
            up, out = math.sin(math.radians(elevation)), math.cos(math.radians(elevation))
            for azimuth in range(0, 360, LAMP_AZIMUTH_STEP_DEG):
                a = math.radians(azimuth)
                x = middle[0] + distance * out * math.cos(a)
                y = middle[1] + distance * out * math.sin(a)
                yield np.array([x, y, distance * up])
