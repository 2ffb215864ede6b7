"""Synthetic photos of a Gimmel board for the calibration tests: the board plane drawn
from the sheet (squares, markers with their white quiet zones, pieces as simple shapes of
their kind), seen by a camera through a homography, under a colour cast, with seeded
noise. Not the renderer (``vision/render``, which draws what a camera really sees): just
enough of a photo to test learning from one."""

from __future__ import annotations

import cv2
import numpy as np

from calibration.sheet import Sheet

LIGHT, DARK, FRAME, TABLE = (170, 205, 225), (60, 105, 150), (35, 60, 90), (90, 110, 120)
WHITE, BLACK = (215, 218, 220), (28, 26, 25)
PAPER = 195  # the sheet's white, as a camera exposes it (not clipped)


def plane(sheet: Sheet, pieces: dict[tuple[int, int], str], px_per_mm: float, margin_mm: float):
    """The board plane as a BGR picture: board mm (x, y) at ((x + margin) * px_per_mm, ...).
    ``pieces`` maps a (row, column) cell of the grid picture to "white beetle" etc."""
    grid = sheet.grid
    width = int((grid.width_mm + 2 * margin_mm) * px_per_mm)
    height = int((grid.height_mm + 2 * margin_mm) * px_per_mm)
    picture = np.full((height, width, 3), TABLE, np.uint8)

    def px(x_mm: float, y_mm: float) -> tuple[int, int]:
        return round((x_mm + margin_mm) * px_per_mm), round((y_mm + margin_mm) * px_per_mm)

    cv2.rectangle(picture, px(-12, -12), px(grid.width_mm + 12, grid.height_mm + 12), FRAME, -1)
    cw, ch = grid.cell_width_mm, grid.cell_height_mm
    for i in range(grid.rows):
        for j in range(grid.columns):
            shade = LIGHT if (i + j) % 2 == 0 else DARK
            cv2.rectangle(picture, px(j * cw, i * ch), px((j + 1) * cw, (i + 1) * ch), shade, -1)
    dictionary = sheet.aruco_dictionary()
    for marker in sheet.markers:
        outline = (marker.outline() + margin_mm) * px_per_mm
        cv2.fillConvexPoly(picture, np.rint(outline).astype(np.int32), (PAPER,) * 3)
        side = round(marker.size_mm * px_per_mm)
        code = cv2.aruco.generateImageMarker(dictionary, marker.id, side)
        code = np.where(code > 127, PAPER, 20).astype(np.uint8)
        x0, y0 = px(marker.centre[0] - marker.size_mm / 2, marker.centre[1] - marker.size_mm / 2)
        picture[y0 : y0 + side, x0 : x0 + side] = code[:, :, None]
    for (i, j), kind in pieces.items():
        centre = px((j + 0.5) * cw, (i + 0.5) * ch)
        draw_piece(picture, centre, min(cw, ch) * px_per_mm, kind)
    return picture


def draw_piece(picture: np.ndarray, centre: tuple[int, int], cell_px: float, kind: str) -> None:
    colour_name, shape = kind.split()
    fill = WHITE if colour_name == "white" else BLACK
    edge = (90, 90, 90) if colour_name == "white" else (120, 120, 120)
    cx, cy = centre
    r = int(cell_px * 0.36)
    if shape == "falcon":
        cv2.circle(picture, centre, r, fill, -1, cv2.LINE_AA)
        cv2.circle(picture, centre, int(r * 0.6), edge, max(1, r // 10), cv2.LINE_AA)
    elif shape == "cat":
        points = np.array([[cx, cy - r], [cx + r, cy + int(r * 0.8)], [cx - r, cy + int(r * 0.8)]])
        cv2.fillConvexPoly(picture, points.astype(np.int32), fill, cv2.LINE_AA)
    else:  # beetle: an oval body and legs
        cv2.ellipse(picture, centre, (int(r * 0.55), int(r * 0.85)), 0, 0, 360, fill, -1)
        for dy in (-0.4, 0.0, 0.4):
            y = cy + int(dy * r)
            cv2.line(picture, (cx - r, y), (cx + r, y), fill, max(1, r // 8), cv2.LINE_AA)


def photograph(
    picture: np.ndarray,
    rng: np.random.Generator,
    *,
    tilt: float = 0.25,
    size: tuple[int, int] = (1280, 720),
    cast: tuple[float, float, float] = (1.0, 1.0, 1.0),
    noise: float = 3.0,
    pose: np.random.Generator | None = None,
) -> np.ndarray:
    """The plane as a camera sees it: a random perspective (``tilt``: how far the far
    corners come in, as a share of the width; drawn from ``pose``, or from ``rng`` when
    the camera moves between photos), a colour cast (BGR gains) and noise (``rng``)."""
    pose = pose if pose is not None else rng
    if picture.shape[0] > picture.shape[1]:  # a long board lies across the camera's view
        picture = np.ascontiguousarray(np.rot90(picture, -1))
    h, w = picture.shape[:2]
    width, height = size
    scale = min(width / w, height / h) * 0.92
    cx, cy = width / 2, height / 2
    half_w, half_h = w * scale / 2, h * scale / 2
    shrink = tilt * half_w * pose.uniform(0.5, 1.0)
    top, bottom = cy - half_h, cy + half_h
    quad = np.array([[cx - half_w + shrink, top], [cx + half_w - shrink, top],
                     [cx + half_w, bottom], [cx - half_w, bottom]], np.float32)  # fmt: skip
    quad += pose.normal(0, 6, quad.shape).astype(np.float32)
    source = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    matrix = cv2.getPerspectiveTransform(source, quad)
    frame = cv2.warpPerspective(picture, matrix, size, borderValue=TABLE, flags=cv2.INTER_LINEAR)
    frame = frame.astype(np.float32) * np.asarray(cast, np.float32)
    frame += rng.normal(0, noise, frame.shape)
    return np.clip(frame, 0, 255).astype(np.uint8)


#: The pieces ``draw_piece`` draws, as a shapes file gives them (``calibration.shapes``):
#: flat on the board, about as wide as drawn. A real copy's pieces stand tall
#: (``calibration/pieces/gimmel.toml``); a reader fits the shapes its profile was learnt
#: with, so a profile of these photos is learnt with these.
TOY_SHAPES_TOML = """shapes = 1
game = "gimmel"

[falcon]
form = "cylinder"
diameter_mm = 21.6
height_mm = 0.5

[cat]
form = "prism"
sides = 3
base_circumradius_mm = 10.8
top_circumradius_mm = 10.8
height_mm = 0.5

[beetle]
form = "dome"
length_mm = 18.4
width_mm = 11.9
height_mm = 0.5
legs_mm = 4.9
"""


def toy_shapes():
    import tomllib

    from calibration.shapes import shapes_from_data

    return shapes_from_data(tomllib.loads(TOY_SHAPES_TOML), "gimmel", "toy pieces")
