"""The renderer's camera: a webcam's intrinsics and lens, its pose over the table, and
projection.

World coordinates are board millimetres: x to the right and y down as the marker sheet
shows the board, and z *into* the table (a right-handed frame), so a point ``h`` mm
above the board has ``z = -h``. The camera follows OpenCV: x right, y down, z forward;
a pose maps world to camera, ``X_c = R (X_w - C)``.

Everything is drawn first by an ideal pinhole camera onto a *canvas* a little larger
than the frame, then the lens's radial distortion is applied to the whole picture in one
remap (``Lens.to_frame``), so pieces, hands and board bend alike, exactly as OpenCV's
model says (``k1, k2``; the calibration recovers them). The canvas is the frame's
undistorted picture shifted by ``Lens.offset``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import cv2
import numpy as np

from calibration.registration import CameraModel

#: The webcam's frame, its horizontal field of view (degrees), and its radial distortion.
FRAME_SIZE = (1280, 720)
HFOV_DEG = (60.0, 70.0)
K1 = (-0.13, -0.01)
K2 = (-0.02, 0.06)


@dataclass(frozen=True)
class Intrinsics:
    """A camera's intrinsics for frames of ``width`` x ``height``: focal lengths and
    principal point in px (OpenCV's convention, pixel centres at whole numbers) and the
    distortion ``(k1, k2, p1, p2, k3)``."""

    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    distortion: tuple[float, float, float, float, float]

    def matrix(self) -> np.ndarray:
        return np.array([[self.fx, 0, self.cx], [0, self.fy, self.cy], [0, 0, 1]], np.float64)

    def hfov_deg(self) -> float:
        return math.degrees(2 * math.atan(self.width / (2 * self.fx)))

    def to_json(self) -> dict:
        """As ``companion calibrate camera`` writes it (``calibration.registration``'s
        ``camera_model`` reads this mapping)."""
        return {
            "image_size": [self.width, self.height],
            "camera_matrix": [[round(float(v), 6) for v in row] for row in self.matrix()],
            "distortion": [round(float(v), 8) for v in self.distortion],
            "hfov_deg": round(self.hfov_deg(), 3),
        }


def random_webcam(rng: np.random.Generator, size: tuple[int, int] = FRAME_SIZE) -> Intrinsics:
    """A typical 720p webcam: 60-70 degrees across, square pixels, the principal point a
    few px off centre, mild barrel distortion."""
    w, h = size
    fx = (w / 2) / math.tan(math.radians(rng.uniform(*HFOV_DEG)) / 2)
    cx = (w - 1) / 2 + rng.normal(0, 5)
    cy = (h - 1) / 2 + rng.normal(0, 5)
    k1, k2 = rng.uniform(*K1), rng.uniform(*K2)
    return Intrinsics(w, h, fx, fx, cx, cy, (float(k1), float(k2), 0.0, 0.0, 0.0))


# -- poses --------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Pose:
    """World -> camera: ``X_c = rotation @ X_w + translation``."""

    rotation: np.ndarray
    translation: np.ndarray

    @property
    def centre(self) -> np.ndarray:
        return -self.rotation.T @ self.translation

    def to_camera(self, points: np.ndarray) -> np.ndarray:
        return np.asarray(points, np.float64).reshape(-1, 3) @ self.rotation.T + self.translation

    def tilt_deg(self) -> float:
        """The optical axis's angle from straight down."""
        return math.degrees(math.acos(float(np.clip(self.rotation[2, 2], -1, 1))))

    def to_json(self) -> dict:
        rvec, _ = cv2.Rodrigues(self.rotation)
        centre = self.centre
        return {
            "rotation": [[round(float(v), 9) for v in row] for row in self.rotation],
            "rvec": [round(float(v), 9) for v in rvec.ravel()],
            "tvec_mm": [round(float(v), 5) for v in self.translation],
            "centre_mm": [
                round(float(centre[0]), 3),
                round(float(centre[1]), 3),
                round(float(centre[2]), 3),
            ],
            "height_mm": round(float(-centre[2]), 3),
            "tilt_deg": round(self.tilt_deg(), 3),
        }


def look_at(target: np.ndarray, azimuth: float, tilt: float, distance: float, roll: float) -> Pose:
    """A camera ``distance`` mm from ``target`` (world, on the board), ``tilt`` radians
    from straight down, standing toward ``azimuth`` (radians from the world's +x toward
    +y), turned by ``roll`` about its axis. Unrolled, the image's bottom is the side the
    camera stands on."""
    side = np.array([math.cos(azimuth), math.sin(azimuth), 0.0])
    down = np.array([0.0, 0.0, 1.0])
    centre = np.asarray(target, np.float64) + distance * (
        math.sin(tilt) * side - math.cos(tilt) * down
    )
    forward = np.asarray(target, np.float64) - centre
    forward /= np.linalg.norm(forward)
    image_down = side - (side @ forward) * forward
    image_down /= np.linalg.norm(image_down)
    right = np.cross(image_down, forward)
    c, s = math.cos(roll), math.sin(roll)
    right, image_down = c * right + s * image_down, -s * right + c * image_down
    rotation = np.stack([right, image_down, forward])
    return Pose(rotation, -rotation @ centre)


def nudge(pose: Pose, rng: np.random.Generator, degrees: float, mm: float) -> Pose:
    """The pose bumped a little: turned by about ``degrees`` and moved by about ``mm``."""
    axis = rng.normal(0, 1, 3)
    angle = math.radians(rng.normal(0, degrees))
    turn, _ = cv2.Rodrigues(axis / np.linalg.norm(axis) * angle)
    rotation = turn @ pose.rotation
    centre = pose.centre + rng.normal(0, mm, 3)
    return Pose(rotation, -rotation @ centre)


def homography(pose: Pose, matrix: np.ndarray) -> np.ndarray:
    """Board mm (the plane z = 0) -> pinhole px through ``matrix``: ``K [r1 r2 t]``."""
    h = matrix @ np.column_stack([pose.rotation[:, 0], pose.rotation[:, 1], pose.translation])
    return h / h[2, 2]


def plane_homography(pose: Pose, matrix: np.ndarray, origin, x_axis, y_axis) -> np.ndarray:
    """A plane's own mm (u, v) -> pinhole px, for the plane ``origin + u x_axis + v
    y_axis`` in the world (unit axes)."""
    rot = pose.rotation
    cols = [rot @ np.asarray(x_axis), rot @ np.asarray(y_axis), pose.to_camera(origin)[0]]
    h = matrix @ np.column_stack(cols)
    return h / h[2, 2]


# -- the lens -----------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Lens:
    """The distortion remap of one camera: the pinhole ``canvas_size`` and its
    ``offset`` (canvas px + offset = undistorted frame px), the remap maps, and a coarse
    grid of normalised undistorted rays (for smooth fields such as light)."""

    intrinsics: Intrinsics
    canvas_size: tuple[int, int]
    offset: tuple[int, int]
    map1: np.ndarray
    map2: np.ndarray
    rays: np.ndarray  # (gh, gw, 2) normalised (x/z, y/z) of every ``step``-th frame px
    step: int
    border: np.ndarray  # (N, 2) canvas px of the frame's outermost px

    def canvas_matrix(self) -> np.ndarray:
        """The camera matrix of the pinhole canvas."""
        k = self.intrinsics.matrix()
        k[0, 2] -= self.offset[0]
        k[1, 2] -= self.offset[1]
        return k

    def to_frame(self, canvas: np.ndarray, interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
        """The pinhole canvas through the lens: the frame."""
        return cv2.remap(
            canvas, self.map1, self.map2, interpolation, borderMode=cv2.BORDER_REPLICATE
        )

    def model(self) -> CameraModel:
        i = self.intrinsics
        return CameraModel(i.matrix(), np.asarray(i.distortion), (i.width, i.height))

    def distort(self, undistorted_px: np.ndarray) -> np.ndarray:
        """Undistorted frame px (N, 2) -> where the lens puts them."""
        return self.model().distort(np.asarray(undistorted_px, np.float64).reshape(-1, 2))


@lru_cache(maxsize=8)
def lens(intrinsics: Intrinsics, step: int = 16) -> Lens:
    """The lens of ``intrinsics`` (computed once per camera: it undistorts every px)."""
    w, h = intrinsics.width, intrinsics.height
    u, v = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    model = CameraModel(intrinsics.matrix(), np.asarray(intrinsics.distortion), (w, h))
    points = model.undistort(np.column_stack([u.ravel(), v.ravel()]))
    ox, oy = math.floor(points[:, 0].min()) - 2, math.floor(points[:, 1].min()) - 2
    cw = math.ceil(points[:, 0].max()) + 3 - ox
    ch = math.ceil(points[:, 1].max()) + 3 - oy
    mx = (points[:, 0] - ox).astype(np.float32).reshape(h, w)
    my = (points[:, 1] - oy).astype(np.float32).reshape(h, w)
    map1, map2 = cv2.convertMaps(mx, my, cv2.CV_16SC2)
    grid = points.reshape(h, w, 2)
    ys = np.r_[np.arange(0, h, step), h - 1]
    xs = np.r_[np.arange(0, w, step), w - 1]
    coarse = grid[np.ix_(ys, xs)]
    rays = np.stack(
        [
            (coarse[..., 0] - intrinsics.cx) / intrinsics.fx,
            (coarse[..., 1] - intrinsics.cy) / intrinsics.fy,
        ],
        axis=-1,
    )
    edge = np.zeros((h, w), bool)
    edge[0, :] = edge[-1, :] = edge[:, 0] = edge[:, -1] = True
    border = np.column_stack([mx[edge], my[edge]]).astype(np.float64)
    return Lens(intrinsics, (cw, ch), (ox, oy), map1, map2, rays, step, border)


# -- projection ---------------------------------------------------------------------------


def project(points: np.ndarray, pose: Pose, matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """World points (N, 3) -> pinhole px (N, 2) through ``matrix`` and their depth (N,)."""
    cam = pose.to_camera(points)
    z = cam[:, 2]
    safe = np.where(z > 1e-6, z, 1e-6)
    px = cam[:, :2] / safe[:, None] * [matrix[0, 0], matrix[1, 1]] + [matrix[0, 2], matrix[1, 2]]
    return px, z


def to_frame_px(points: np.ndarray, pose: Pose, intrinsics: Intrinsics) -> np.ndarray:
    """World points (N, 3) -> px in the frame, through the lens."""
    cam = pose.to_camera(points)
    out, _ = cv2.projectPoints(
        cam.reshape(-1, 1, 3),
        np.zeros(3),
        np.zeros(3),
        intrinsics.matrix(),
        np.asarray(intrinsics.distortion),
    )
    return np.asarray(out, np.float64).reshape(-1, 2)


def fit_distance(
    intrinsics: Intrinsics,
    outline: np.ndarray,
    target: np.ndarray,
    azimuth: float,
    tilt: float,
    roll: float,
    fill: float,
) -> Pose:
    """The pose at ``azimuth``, ``tilt`` and ``roll`` whose distance makes ``outline``
    (world points) reach ``fill`` of the frame's half-size from its centre at most
    (the board filling much of the frame, all of it in view)."""
    w, h = intrinsics.width, intrinsics.height

    def reach(distance: float) -> float:
        pose = look_at(target, azimuth, tilt, distance, roll)
        if (pose.to_camera(outline)[:, 2] < 50).any():
            return math.inf
        px = to_frame_px(outline, pose, intrinsics)
        return float(
            np.max(
                np.maximum(np.abs(px[:, 0] - w / 2) / (w / 2), np.abs(px[:, 1] - h / 2) / (h / 2))
            )
        )

    near, far = 100.0, 20000.0
    for _ in range(50):
        middle = math.sqrt(near * far)
        if reach(middle) > fill:
            near = middle
        else:
            far = middle
    return look_at(target, azimuth, tilt, far, roll)
