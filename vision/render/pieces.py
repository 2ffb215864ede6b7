"""Gimmel's pieces in three dimensions: their shapes as small meshes, and their materials.

Sizes are the pieces' shapes file's (``calibration/pieces/gimmel.toml``, read through
``calibration.shapes``), the one the readers fit, so that the two cannot disagree: the
falcon (Horus) a cylinder with a bevelled top; the cat goddess (Bastet) a three-sided
block tapering upward, a triangle seen from above; the beetle (scarab) an oval dome
with six legs. White pieces are an off-white, slightly glossy material; black
ones near-black and shinier (their highlight is most of what shows their shape).

A mesh is a list of flat faces with outward normals in the piece's own frame (x, y on
the board, z into the board, so heights are negative z, as in ``vision.render.camera``).
Each body is convex, so once the faces turned away from the camera are dropped the rest
never overlap: ``vision.render.paint`` draws them in any order.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from calibration.shapes import Solid, load_shapes


@dataclass(frozen=True)
class Material:
    """A piece's surface: ``albedo`` linear BGR, and its gloss: ``specular`` strength
    (added light, 0-1) and the highlight's tightness ``power``."""

    albedo: tuple[float, float, float]
    specular: float
    power: float


def material(colour: str, rng: np.random.Generator) -> Material:
    """The material of a set of pieces of ``colour``, varied a little per set."""
    if colour == "white":
        level = rng.uniform(0.72, 0.86)
        warm = rng.uniform(0.0, 0.06)
        return Material((level * (1 - warm), level * (1 - warm / 2), level), 0.06, 18.0)
    level = rng.uniform(0.025, 0.05)
    return Material((level * 1.05, level, level), rng.uniform(0.25, 0.4), rng.uniform(25, 45))


@dataclass(frozen=True, eq=False)
class Face:
    """A flat convex face: ``vertices`` (n, 3) and its outward ``normal`` (3,)."""

    vertices: np.ndarray
    normal: np.ndarray


@dataclass(frozen=True, eq=False)
class Mesh:
    """A piece's shape: the convex ``body``, the ``legs`` (thin quads close to the
    board, drawn apart from the body), and ``lines`` drawn on the body (the beetle's
    wing line), each in the piece's own frame. The arrays stack every face's vertices
    (body first, then legs), their counts, and the body faces' normals and centres."""

    body: tuple[Face, ...]
    legs: tuple[Face, ...] = ()
    lines: tuple[np.ndarray, ...] = ()
    height_mm: float = 0.0

    @cached_property
    def vertices(self) -> np.ndarray:
        return np.vstack([f.vertices for f in (*self.body, *self.legs)])

    @cached_property
    def counts(self) -> tuple[int, ...]:
        return tuple(len(f.vertices) for f in (*self.body, *self.legs))

    @cached_property
    def normals(self) -> np.ndarray:
        n = np.array([f.normal for f in self.body], np.float64)
        return n / np.linalg.norm(n, axis=1, keepdims=True)

    @cached_property
    def centres(self) -> np.ndarray:
        return np.array([f.vertices.mean(0) for f in self.body], np.float64)

    def points(self) -> np.ndarray:
        """Every vertex of the body and legs, (N, 3)."""
        return self.vertices


def _ring(radius_x: float, radius_y: float, height: float, n: int) -> np.ndarray:
    a = np.linspace(0, 2 * math.pi, n, endpoint=False)
    return np.column_stack([radius_x * np.cos(a), radius_y * np.sin(a), np.full(n, -height)])


def falcon(solid: Solid) -> Mesh:
    """A cylinder with a small bevel round its top."""
    n = 32
    r = solid.size("diameter_mm") / 2
    h = solid.height_mm
    bevel = min(1.0, r * 0.1)
    bottom, shoulder = _ring(r, r, 0, n), _ring(r, r, h - bevel, n)
    top = _ring(r - bevel, r - bevel, h, n)
    faces = []
    for k in range(n):
        j = (k + 1) % n
        mid = (k + 0.5) * 2 * math.pi / n
        side = np.array([math.cos(mid), math.sin(mid), 0.0])
        faces.append(Face(np.array([bottom[k], bottom[j], shoulder[j], shoulder[k]]), side))
        slope = side * math.sqrt(0.5) + np.array([0, 0, -math.sqrt(0.5)])
        faces.append(Face(np.array([shoulder[k], shoulder[j], top[j], top[k]]), slope))
    faces.append(Face(top, np.array([0.0, 0.0, -1.0])))
    return Mesh(tuple(faces), height_mm=h)


def cat(solid: Solid) -> Mesh:
    """A block of ``sides`` (three) tapering upward; its first corner points along +x."""
    n = int(solid.size("sides"))
    r, top_r = solid.size("base_circumradius_mm"), solid.size("top_circumradius_mm")
    h = solid.height_mm
    base = _ring(r, r, 0, n)
    top = _ring(top_r, top_r, h, n)
    faces = []
    for k in range(n):
        j = (k + 1) % n
        quad = np.array([base[k], base[j], top[j], top[k]])
        normal = np.cross(quad[1] - quad[0], quad[3] - quad[0])
        centre = quad.mean(0)
        if normal @ np.array([centre[0], centre[1], 0.0]) < 0:
            normal = -normal
        faces.append(Face(quad, normal / np.linalg.norm(normal)))
    faces.append(Face(top, np.array([0.0, 0.0, -1.0])))
    return Mesh(tuple(faces), height_mm=h)


def beetle(solid: Solid) -> Mesh:
    """Half an ellipsoid (longer along +x, the way it crawls) on six short legs, with
    the line between its wing cases along the top."""
    a = solid.size("length_mm") / 2
    b = solid.size("width_mm") / 2
    c = solid.height_mm
    n, layers = 20, 5
    lat = np.linspace(0, math.radians(78), layers + 1)
    rings = [_ring(a * math.cos(t), b * math.cos(t), c * math.sin(t), n) for t in lat]
    faces = []

    def normal_at(p: np.ndarray) -> np.ndarray:
        g = np.array([p[0] / a**2, p[1] / b**2, p[2] / c**2])
        return g / np.linalg.norm(g)

    for i in range(layers):
        low, high = rings[i], rings[i + 1]
        for k in range(n):
            j = (k + 1) % n
            quad = np.array([low[k], low[j], high[j], high[k]])
            faces.append(Face(quad, normal_at(quad.mean(0))))
    faces.append(Face(rings[-1], np.array([0.0, 0.0, -1.0])))
    legs = []
    for sx in (-0.5, 0.05, 0.55):
        for sy in (-1, 1):
            root = np.array([sx * a, sy * b * 0.8, -1.0])
            reach = solid.size("legs_mm")
            tip = root + np.array([0.35 * sx * reach * 2, sy * (b * 0.2 + reach), 0.6])
            along = tip - root
            across = np.cross(along, [0, 0, 1.0])
            across = across / np.linalg.norm(across) * 0.45
            quad = np.array([root - across, root + across, tip + across, tip - across])
            legs.append(Face(quad, np.array([0.0, 0.0, -1.0])))
    t = np.linspace(-0.75, 0.75, 9)
    line = np.column_stack([a * t, np.zeros_like(t), -c * np.sqrt(np.clip(1 - t**2, 0, 1)) - 0.05])
    return Mesh(tuple(faces), tuple(legs), (line,), height_mm=c)


#: How each form of the shapes file is drawn.
FORMS = {"cylinder": falcon, "prism": cat, "dome": beetle}


@lru_cache(maxsize=32)
def mesh(kind: str, game: str = "gimmel") -> Mesh:
    """The mesh of a kind of piece (``falcon``, ``cat``, ``beetle``) as the game's shapes
    file gives it; a piece's own size differs by a uniform scale (``PlacedPiece.scale``)."""
    try:
        solid = load_shapes(game)[kind]
    except KeyError:
        raise ValueError(f"no shape for a piece of kind {kind!r}") from None
    return FORMS[solid.form](solid)
