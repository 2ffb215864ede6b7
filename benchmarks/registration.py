"""Board registration per 1280x720 frame on one core: marker detection (with the edge
refinement), the homography and its quality, and one perspective warp to the rectified
board; median and 95th percentile over seeded synthetic frames of the Gimmel board seen
by a camera tilted up to 45 degrees. Also the accuracy: the worst error over the grid's
crossings, in mm. Then video: the next frame of the same view (its own noise) registered
from the first one's registration (``previous=``), as a still camera's table reads.

    python benchmarks/registration.py [--frames N] [--seed S] [--px-per-mm F]

Each frame is made before its clock starts (the board plane drawn at 3 px per mm,
warped, blurred, with noise). Figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time

import cv2
import numpy as np

from calibration.board_plane import grid_points, rectify
from calibration.registration import (
    BoardNotVisible,
    Registration,
    detect_markers,
    register_markers,
)
from calibration.sheet import Sheet, load_sheet

FRAME = (1280, 720)
PLANE_PX_PER_MM = 3
TABLE_MM = 60
FOCAL_PX = 1000.0
FILL = 0.85  # the board's share of the frame's larger extent
MAX_TILT_DEG = 45.0


def board_plane(sheet: Sheet) -> tuple[np.ndarray, np.ndarray]:
    """The board plane drawn at PLANE_PX_PER_MM, and the matrix board mm -> plane px."""
    s = PLANE_PX_PER_MM
    left, top, right, bottom = sheet.bounds_mm()
    ox, oy = math.floor(left) - TABLE_MM, math.floor(top) - TABLE_MM
    width = (math.ceil(right) + TABLE_MM - ox) * s
    height = (math.ceil(bottom) + TABLE_MM - oy) * s

    def px(x: float, y: float) -> tuple[int, int]:
        return round((x - ox) * s), round((y - oy) * s)

    plane = np.full((height, width), 70, np.uint8)
    (x0, y0), (x1, y1) = px(left - 5, top - 5), px(right + 5, bottom + 5)
    plane[y0:y1, x0:x1] = 150
    g = sheet.grid
    for r in range(g.rows):
        for c in range(g.columns):
            a = px(c * g.cell_width_mm, r * g.cell_height_mm)
            b = px((c + 1) * g.cell_width_mm, (r + 1) * g.cell_height_mm)
            plane[a[1] : b[1], a[0] : b[0]] = 110 if (r + c) % 2 else 185
    dictionary = sheet.aruco_dictionary()
    for m in sheet.markers:
        (ax, ay), (bx, by) = m.outline().min(axis=0), m.outline().max(axis=0)
        a, b = px(ax, ay), px(bx, by)
        plane[a[1] : b[1], a[0] : b[0]] = 255
        side = round(m.size_mm * s)
        c = px(*m.corners()[0])
        plane[c[1] : c[1] + side, c[0] : c[0] + side] = cv2.aruco.generateImageMarker(
            dictionary, m.id, side
        )
    matrix = np.array([[s, 0, -ox * s - 0.5], [0, s, -oy * s - 0.5], [0, 0, 1]], np.float64)
    return cv2.GaussianBlur(plane, (0, 0), 1.0), matrix


def camera(sheet: Sheet, rng: random.Random) -> np.ndarray:
    """A random view: board mm -> frame px, tilted 0-45 degrees about a random axis."""
    k = np.array([[FOCAL_PX, 0, FRAME[0] / 2], [0, FOCAL_PX, FRAME[1] / 2], [0, 0, 1]])
    left, top, right, bottom = sheet.bounds_mm()
    outline = np.array([[left, top], [right, top], [right, bottom], [left, bottom]])
    centre = outline.mean(axis=0)
    r_yaw, _ = cv2.Rodrigues(np.array([0.0, 0.0, rng.uniform(0, 2 * math.pi)]))
    axis = rng.uniform(0, 2 * math.pi)
    tilt = math.radians(rng.uniform(0, MAX_TILT_DEG))
    r_tilt, _ = cv2.Rodrigues(np.array([math.cos(axis), math.sin(axis), 0.0]) * tilt)
    rotation = r_tilt @ r_yaw
    shift = np.array([[1, 0, -centre[0]], [0, 1, -centre[1]], [0, 0, 1]])

    def view(distance: float) -> np.ndarray:
        extrinsic = np.column_stack([rotation[:, 0], rotation[:, 1], [0, 0, distance]])
        return k @ extrinsic @ shift

    def span(h: np.ndarray) -> np.ndarray:
        return cv2.perspectiveTransform(outline.reshape(-1, 1, 2), h).reshape(-1, 2)

    distance = 800.0
    for _ in range(60):
        pts = span(view(distance))
        extent = pts.max(axis=0) - pts.min(axis=0)
        distance *= max(extent[0] / FRAME[0], extent[1] / FRAME[1]) / FILL
    h = view(distance)
    pts = span(h)
    low, high = pts.min(axis=0), pts.max(axis=0)
    dx = rng.uniform(-low[0], FRAME[0] - high[0])
    dy = rng.uniform(-low[1], FRAME[1] - high[1])
    return np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]]) @ h


def frame(plane: np.ndarray, to_plane: np.ndarray, truth: np.ndarray, seed: int) -> np.ndarray:
    picture = cv2.warpPerspective(plane, truth @ np.linalg.inv(to_plane), FRAME, borderValue=40)
    picture = cv2.GaussianBlur(picture, (0, 0), 0.7)
    noise = np.random.default_rng(seed).normal(0, 3.0, picture.shape)
    picture = np.clip(picture + noise, 0, 255).astype(np.uint8)
    return cv2.cvtColor(picture, cv2.COLOR_GRAY2BGR)  # the camera gives colour


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--px-per-mm", type=float, default=2.0, help="the rectified board's")
    args = parser.parse_args()
    cv2.setNumThreads(1)
    sheet = load_sheet("gimmel")
    plane, to_plane = board_plane(sheet)
    rng = random.Random(args.seed)
    crossings = grid_points(sheet).reshape(-1, 2)

    total: list[float] = []
    detect: list[float] = []
    fit: list[float] = []
    warp: list[float] = []
    errors: list[float] = []
    rms: list[float] = []
    refused = 0
    tracked: list[float] = []
    tracked_errors: list[float] = []
    for index in range(args.frames):
        truth = camera(sheet, rng)
        picture = frame(plane, to_plane, truth, args.seed * 100_000 + index)
        t0 = time.perf_counter()
        markers = detect_markers(picture, sheet)
        t1 = time.perf_counter()
        try:
            registration = register_markers(markers, sheet, image_size=FRAME)
        except BoardNotVisible:
            refused += 1
            continue
        t2 = time.perf_counter()
        rectify(picture, registration, args.px_per_mm)
        t3 = time.perf_counter()
        total.append(t3 - t0)
        detect.append(t1 - t0)
        fit.append(t2 - t1)
        warp.append(t3 - t2)
        seen = cv2.perspectiveTransform(crossings.reshape(-1, 1, 2), truth).reshape(-1, 2)
        errors.append(float(np.linalg.norm(registration.to_board(seen) - crossings, axis=1).max()))
        rms.append(registration.rms_mm)
        # The same view's next frame, registered from this one's registration.
        following = frame(plane, to_plane, truth, args.seed * 100_000 + 50_000 + index)
        t0 = time.perf_counter()
        again = track(following, sheet, registration, args.px_per_mm)
        tracked.append(time.perf_counter() - t0)
        if again is not None:
            tracked_errors.append(
                float(np.linalg.norm(again.to_board(seen) - crossings, axis=1).max())
            )

    def ms(values: list[float]) -> str:
        median, p95 = statistics.median(values) * 1000, percentile(values, 0.95) * 1000
        return f"median {median:.2f} ms, p95 {p95:.2f} ms"

    print(
        f"registration per {FRAME[0]}x{FRAME[1]} frame, one core, OpenCV {cv2.__version__} "
        f"({args.frames} seeded frames of the Gimmel board, tilt 0-{MAX_TILT_DEG:g} degrees; "
        f"rectified at {args.px_per_mm:g} px/mm)"
    )
    if not total:
        print(f"  no frame registered ({refused} refused)")
        return 1
    print(f"  detect + register + warp: {ms(total)}")
    print(f"    marker detection and edge refinement: {ms(detect)}")
    print(f"    homography and quality: {ms(fit)}")
    print(f"    perspective warp: {ms(warp)}")
    print(
        f"  accuracy over the grid's crossings: median {statistics.median(errors):.2f} mm, "
        f"p95 {percentile(errors, 0.95):.2f} mm, worst {max(errors):.2f} mm; "
        f"RMS over the marker corners median {statistics.median(rms):.3f} mm; "
        f"{refused} of {args.frames} frames refused"
    )
    if tracked_errors:
        print(
            f"  the next frame from the last registration (previous=): {ms(tracked)}; "
            f"grid error p95 {percentile(tracked_errors, 0.95):.2f} mm, "
            f"worst {max(tracked_errors):.2f} mm; "
            f"{len(tracked) - len(tracked_errors)} refused"
        )
    return 0


def track(
    picture: np.ndarray, sheet: Sheet, previous: Registration, px_per_mm: float
) -> Registration | None:
    """Detect from the last registration, register, warp: one video frame's work."""
    markers = detect_markers(picture, sheet, previous=previous)
    try:
        registration = register_markers(markers, sheet, image_size=FRAME)
    except BoardNotVisible:
        return None
    rectify(picture, registration, px_per_mm)
    return registration


if __name__ == "__main__":
    raise SystemExit(main())
