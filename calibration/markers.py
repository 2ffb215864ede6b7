"""Printable marker sheets: a game's ArUco markers at true scale, with instructions.

``write_sheet(game, path)`` writes what ``companion markers GAME --out FILE`` prints: A4
pages as PNG (its ``pHYs`` chunk says the resolution, so printing at 100 % gives true
millimetres) or as a PDF written here (each page one image at its true size; no PDF
library needed). Markers that fit one A4 page at their true positions around the grid are
printed so (``layout="board"``: the page is also a test board for the camera). Markers
stuck at the corners of a board bigger than A4 are printed as cut-out squares
(``layout="cut-out"``), each with its id and where to stick it, a small picture of the
board showing where each goes and which way round, and a 100 mm scale bar to check the
print. Instructions are in English and German.

Text is drawn with ``cv2.putText``. OpenCV 5 draws UTF-8 with its own font; OpenCV 4's
Hershey fonts have no umlauts, so there they are drawn as the vowel with two dots, and ß
as "ss" (``_unicode_text`` tells which).
"""

from __future__ import annotations

import math
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from calibration.sheet import Grid, Sheet, SheetMarker, load_sheet

#: The page: A4 portrait, in mm, and the margin kept free (printers do not print to the edge).
PAGE_MM = (210.0, 297.0)
PAGE_MARGIN_MM = 12.0
#: The scale bar's length and thickness, in mm.
SCALE_BAR_MM = 100.0
SCALE_BAR_HEIGHT_MM = 3.0
#: Resolutions accepted, in dots per inch.
MIN_DPI, MAX_DPI = 72, 1200
MM_PER_INCH = 25.4

#: Text heights (capital letters) in mm, and line spacing as a multiple of that height.
TITLE_MM = 5.0
HEADING_MM = 3.2
TEXT_MM = 2.1
LINE_SPACING = 1.75
#: The cut-out squares' dashed cut line: grey level, width and dash length in mm.
CUT_LINE_GREY = 150
CUT_LINE_MM = 0.25
DASH_MM = 2.0
#: The picture of where the markers go: its largest size, and the least size a marker
#: is drawn at in it (mm), so that its pattern can be compared with the cut-out's.
DIAGRAM_MM = (150.0, 75.0)
DIAGRAM_MARKER_MM = 11.0
DIAGRAM_GRID_GREY = 170
#: Vertical space between blocks, and the width of a cut-out cell (square and text).
GAP_MM = 5.0

_CORNER_WORDS = {
    "top-left": ("top-left", "linke obere"),
    "top-right": ("top-right", "rechte obere"),
    "bottom-right": ("bottom-right", "rechte untere"),
    "bottom-left": ("bottom-left", "linke untere"),
}
_UMLAUTS = {"ä": "a", "ö": "o", "ü": "u", "Ä": "A", "Ö": "O", "Ü": "U"}
_REPLACE = {"ß": "ss", "–": "-", "—": "-", "„": '"', "“": '"', "”": '"', "’": "'", "×": "x"}
_FONT = cv2.FONT_HERSHEY_SIMPLEX


class SheetOutputError(ValueError):
    """A sheet that cannot be written as asked (the file type, the resolution)."""


# --- the words -------------------------------------------------------------------------


def general_instructions(sheet: Sheet, layout: str) -> tuple[str, str]:
    """The sheet's instructions in English and German."""
    if layout == "board":
        en = (
            "Print at 100 % (actual size, not 'fit to page'); the bar must measure 100 mm. "
            "This page shows the playing grid and its markers at true size: point the camera "
            "at it to try registration, or cut out the squares along their dashed lines and "
            "stick them on the board exactly as they lie around the grid here."
        )
        de = (
            "Mit 100 % drucken (Originalgröße, nicht 'an Seite anpassen'); der Balken muss "
            "100 mm lang sein. Diese Seite zeigt das Spielfeld und seine Marker in "
            "Originalgröße: die Kamera darauf richten, um die Erkennung zu prüfen, oder die "
            "Quadrate an der gestrichelten Linie ausschneiden und so auf das Brett kleben, "
            "wie sie hier um das Spielfeld liegen."
        )
    else:
        en = (
            "Print at 100 % (actual size, not 'fit to page'); the bar must measure 100 mm. "
            "Cut out each square along its dashed line, white margin included. Stick it flat "
            "where it says beside it, turned as in the picture. Keep the white margins clean "
            "and uncovered: they are the camera's white reference."
        )
        de = (
            "Mit 100 % drucken (Originalgröße, nicht 'an Seite anpassen'); der Balken muss "
            "100 mm lang sein. Jedes Quadrat an der gestrichelten Linie ausschneiden, mit dem "
            "weißen Rand. Flach dort aufkleben, wo es daneben steht, gedreht wie im Bild. Die "
            "weißen Ränder sauber und frei halten: sie sind der Weißabgleich der Kamera."
        )
    if sheet.orientation_en:
        en += " " + sheet.orientation_en
    if sheet.orientation_de:
        de += " " + sheet.orientation_de
    return en, de


def marker_instructions(marker: SheetMarker) -> tuple[str, str]:
    """Where to stick one marker, in English and German."""
    if marker.corner is not None:
        en_corner, de_corner = _CORNER_WORDS[marker.corner]
        return (
            f"Stick at the board's {en_corner} corner, touching it: the square's corner on "
            f"the playing grid's {en_corner} corner, its edges along the grid's edge lines.",
            f"An die {de_corner} Ecke des Spielfelds kleben, Ecke an Ecke: die Kanten des "
            "Quadrats verlängern die Randlinien des Spielfelds.",
        )
    x, y = marker.centre
    en_x = f"{abs(x):g} mm {'left of' if x < 0 else 'right of'}"
    en_y = f"{abs(y):g} mm {'above' if y < 0 else 'below'}"
    de_x = f"{abs(x):g} mm {'links' if x < 0 else 'rechts'}"
    de_y = f"{abs(y):g} mm {'über' if y < 0 else 'unter'}"
    return (
        f"Stick with its centre {en_x} and {en_y} the playing grid's top-left corner.",
        f"Mit der Mitte {de_x} und {de_y} der linken oberen Ecke des Spielfelds aufkleben.",
    )


# --- drawing ---------------------------------------------------------------------------


@dataclass
class _Page:
    """One page being drawn: a white canvas and the px per mm."""

    canvas: np.ndarray
    ppm: float

    @classmethod
    def blank(cls, dpi: int) -> _Page:
        ppm = dpi / MM_PER_INCH
        size = (round(PAGE_MM[1] * ppm), round(PAGE_MM[0] * ppm))
        return cls(np.full(size, 255, np.uint8), ppm)

    def px(self, mm: float) -> int:
        return round(mm * self.ppm)

    def fill(self, x0: float, y0: float, x1: float, y1: float, value: int) -> None:
        self.canvas[self.px(y0) : self.px(y1), self.px(x0) : self.px(x1)] = value

    def line(self, a: Sequence[float], b: Sequence[float], value: int, width_mm: float) -> None:
        thickness = max(1, self.px(width_mm))
        cv2.line(self.canvas, self._pt(a), self._pt(b), value, thickness, cv2.LINE_AA)

    def outline(
        self, x0: float, y0: float, x1: float, y1: float, value: int, width_mm: float
    ) -> None:
        corners = ((x0, y0), (x1, y0), (x1, y1), (x0, y1))
        for a, b in zip(corners, corners[1:] + corners[:1], strict=True):
            self.line(a, b, value, width_mm)

    def grid(
        self,
        x0: float,
        y0: float,
        cell_w: float,
        cell_h: float,
        grid: Grid,
        value: int,
        width_mm: float,
    ) -> None:
        """The grid's lines, its top-left at (x0, y0) mm, cells ``cell_w`` x ``cell_h`` mm."""
        x1, y1 = x0 + grid.columns * cell_w, y0 + grid.rows * cell_h
        for c in range(grid.columns + 1):
            self.line((x0 + c * cell_w, y0), (x0 + c * cell_w, y1), value, width_mm)
        for r in range(grid.rows + 1):
            self.line((x0, y0 + r * cell_h), (x1, y0 + r * cell_h), value, width_mm)

    def _pt(self, p: Sequence[float]) -> tuple[int, int]:
        return self.px(p[0]), self.px(p[1])

    def dashed_square(self, x0: float, y0: float, x1: float, y1: float) -> None:
        """The cut line, on the square's outer edge (outside the quiet zone)."""
        w = CUT_LINE_MM
        edges = (
            ((x0, y0 - w), (x1, y0 - w)),
            ((x0, y1 + w), (x1, y1 + w)),
            ((x0 - w, y0), (x0 - w, y1)),
            ((x1 + w, y0), (x1 + w, y1)),
        )
        for (ax, ay), (bx, by) in edges:
            length = math.hypot(bx - ax, by - ay)
            steps = max(1, round(length / (2 * DASH_MM)))
            for i in range(steps):
                t0, t1 = i / steps, (i + 0.5) / steps
                a = (ax + (bx - ax) * t0, ay + (by - ay) * t0)
                b = (ax + (bx - ax) * t1, ay + (by - ay) * t1)
                self.line(a, b, CUT_LINE_GREY, w)

    def text(self, x: float, y: float, words: str, height_mm: float, value: int = 0) -> float:
        """One line of text, its capitals' baseline at y mm; returns its width in mm."""
        plain, dots = _plain(words)
        scale, thickness = self._font(height_mm)
        org = (self.px(x), self.px(y))
        cv2.putText(self.canvas, plain, org, _FONT, scale, value, thickness, cv2.LINE_AA)
        cap = cv2.getTextSize("H", _FONT, scale, thickness)[0][1]
        for index in dots:
            left = cv2.getTextSize(plain[:index], _FONT, scale, thickness)[0][0] if index else 0
            glyph = cv2.getTextSize(plain[index], _FONT, scale, thickness)[0]
            lower = plain[index].islower()
            top = org[1] - (round(cap * 0.85) if lower else cap) - max(2, thickness * 2)
            for fraction in (0.32, 0.68):
                centre = (org[0] + left + round(glyph[0] * fraction), top)
                cv2.circle(self.canvas, centre, max(1, thickness), value, -1, cv2.LINE_AA)
        return cv2.getTextSize(plain, _FONT, scale, thickness)[0][0] / self.ppm

    def width(self, words: str, height_mm: float) -> float:
        scale, thickness = self._font(height_mm)
        return cv2.getTextSize(_plain(words)[0], _FONT, scale, thickness)[0][0] / self.ppm

    def paragraph(self, x: float, y: float, words: str, height_mm: float, width_mm: float) -> float:
        """Text wrapped to ``width_mm``, first baseline at y; returns the y below it."""
        line = ""
        for word in words.split():
            trial = f"{line} {word}".strip()
            if line and self.width(trial, height_mm) > width_mm:
                self.text(x, y, line, height_mm)
                y += height_mm * LINE_SPACING
                line = word
            else:
                line = trial
        if line:
            self.text(x, y, line, height_mm)
            y += height_mm * LINE_SPACING
        return y

    def _font(self, height_mm: float) -> tuple[float, int]:
        base = cv2.getTextSize("H", _FONT, 1.0, 1)[0][1]
        scale = height_mm * self.ppm / base
        return scale, max(1, round(scale * 1.3))

    def marker(
        self, sheet: Sheet, marker_id: int, x0: float, y0: float, size: float, border: bool = True
    ) -> None:
        """A marker's pattern with its top-left at (x0, y0) mm, each module's edges at
        their true positions (rounded to the nearest pixel, never stretched)."""
        bits = sheet.marker_cells(marker_id)
        n = bits.shape[0]
        module = size / n
        for r in range(n):
            for c in range(n):
                inner = 0 < r < n - 1 and 0 < c < n - 1
                if not bits[r, c] and (border or inner):
                    x, y = x0 + c * module, y0 + r * module
                    self.fill(x, y, x + module, y + module, 0)


def _unicode_text() -> bool:
    """Whether this OpenCV's ``putText`` draws UTF-8 (OpenCV 5's own font) rather than
    only ASCII (OpenCV 4's Hershey fonts, which draw "?" for an umlaut)."""
    return int(cv2.__version__.split(".")[0]) >= 5


def _plain(words: str) -> tuple[str, list[int]]:
    """Text as ``putText`` can draw it, and the letters that need two dots, by index."""
    if _unicode_text():
        return words, []
    out: list[str] = []
    dots: list[int] = []
    for ch in words:
        if ch in _UMLAUTS:
            dots.append(len(out))
            out.append(_UMLAUTS[ch])
        elif ch in _REPLACE:
            out.extend(_REPLACE[ch])
        elif ord(ch) < 128:
            out.append(ch)
        else:
            out.append("?")
    return "".join(out), dots


# --- the layouts -----------------------------------------------------------------------


def fits_on_page(sheet: Sheet, header_mm: float = 0.0) -> bool:
    """Whether the grid and all cut-out squares fit one A4 page at true scale below a
    header of ``header_mm`` (portrait, inside the margins)."""
    left, top, right, bottom = sheet.bounds_mm()
    width = PAGE_MM[0] - 2 * PAGE_MARGIN_MM
    height = PAGE_MM[1] - 2 * PAGE_MARGIN_MM - header_mm
    return right - left <= width and bottom - top <= height


#: The resolution at which the board layout's header is measured before it is drawn.
_MEASURE_DPI = 72


def _board_header_mm(sheet: Sheet) -> float:
    """The height the board layout's header and scale bar take, in mm."""
    return _header(_Page.blank(_MEASURE_DPI), sheet, "board") - PAGE_MARGIN_MM


def choose_layout(sheet: Sheet, layout: str = "auto") -> str:
    """``board`` when the grid and the markers fit one page at true scale (or when
    asked and they do), else ``cut-out``."""
    if layout not in ("auto", "board", "cut-out"):
        raise SheetOutputError(f"layout: expected auto, board or cut-out (got {layout!r})")
    if layout == "cut-out":
        return layout
    fits = fits_on_page(sheet, _board_header_mm(sheet))
    if layout == "auto":
        return "board" if fits else "cut-out"
    if not fits:
        raise SheetOutputError(
            f"layout 'board': the {sheet.game} sheet's grid and markers do not fit one A4 "
            "page at true scale; use the cut-out layout"
        )
    return layout


def sheet_pages(sheet: Sheet, dpi: int = 300, layout: str = "auto") -> list[np.ndarray]:
    """The sheet as A4 pages (grey uint8 images, ``dpi`` px per inch, true scale)."""
    _check_dpi(dpi)
    chosen = choose_layout(sheet, layout)
    return [_board_page(sheet, dpi)] if chosen == "board" else _cut_out_pages(sheet, dpi)


def sheet_image(sheet: Sheet, dpi: int = 300, layout: str = "auto") -> np.ndarray:
    """The sheet as one A4 page (grey uint8, ``dpi`` px per inch). A sheet with more
    markers than one page holds raises ``SheetOutputError``: use ``sheet_pages``."""
    pages = sheet_pages(sheet, dpi, layout)
    if len(pages) > 1:
        raise SheetOutputError(f"the {sheet.game} sheet takes {len(pages)} pages; use sheet_pages")
    return pages[0]


def _check_dpi(dpi: Any) -> None:
    if isinstance(dpi, bool) or not isinstance(dpi, int) or not MIN_DPI <= dpi <= MAX_DPI:
        raise SheetOutputError(
            f"dpi: expected a whole number from {MIN_DPI} to {MAX_DPI} (got {dpi!r})"
        )


def _header(page: _Page, sheet: Sheet, layout: str, continued: bool = False) -> float:
    """Title, the sheet's facts, instructions and the scale bar; returns the y below."""
    x = PAGE_MARGIN_MM
    width = PAGE_MM[0] - 2 * PAGE_MARGIN_MM
    y = PAGE_MARGIN_MM + TITLE_MM
    title = f"{sheet.game.capitalize()}: board markers / Spielbrett-Marker"
    page.text(x, y, title + (" (continued / Fortsetzung)" if continued else ""), TITLE_MM)
    y += TITLE_MM * 1.2 + TEXT_MM * LINE_SPACING
    g = sheet.grid
    cell = (
        f"{g.cell_width_mm:g}"
        if g.cell_width_mm == g.cell_height_mm
        else f"{g.cell_width_mm:g} x {g.cell_height_mm:g}"
    )
    facts = (
        f"Sheet {sheet.name}: {sheet.dictionary}, markers {sheet.marker_mm:g} mm, white margin "
        f"{sheet.quiet_zone_mm:g} mm, grid {g.columns} x {g.rows} squares of {cell} mm"
    )
    y = page.paragraph(x, y, facts, TEXT_MM, width)
    if not continued:
        en, de = general_instructions(sheet, layout)
        y = page.paragraph(x, y + TEXT_MM * 0.5, en, TEXT_MM, width)
        y = page.paragraph(x, y + TEXT_MM * 0.5, de, TEXT_MM, width)
    return _scale_bar(page, x, y + GAP_MM * 0.6)


def _scale_bar(page: _Page, x: float, y: float) -> float:
    """A 100 mm bar with a tick every 10 mm; returns the y below it."""
    tick = SCALE_BAR_HEIGHT_MM
    for i in range(int(SCALE_BAR_MM // 10) + 1):
        length = tick * (1.0 if i % 5 == 0 else 0.6)
        tx = x + i * 10
        page.fill(tx - 0.15, y, tx + 0.15, y + length, 0)
    top = y + tick
    page.fill(x, top, x + SCALE_BAR_MM, top + SCALE_BAR_HEIGHT_MM, 0)
    page.text(
        x + SCALE_BAR_MM + 3, top + SCALE_BAR_HEIGHT_MM, "100 mm: measure it / nachmessen", TEXT_MM
    )
    return top + SCALE_BAR_HEIGHT_MM + GAP_MM


def _cut_out(page: _Page, sheet: Sheet, marker: SheetMarker, x: float, y: float) -> None:
    """One cut-out square (marker and quiet zone) with its top-left at (x, y) mm."""
    cut = marker.cut_mm
    page.dashed_square(x, y, x + cut, y + cut)
    q = marker.quiet_zone_mm
    page.marker(sheet, marker.id, x + q, y + q, marker.size_mm)


def _diagram(page: _Page, sheet: Sheet, y: float) -> float:
    """A picture of the board (not to scale) with each marker's pattern where it goes,
    turned as it must be stuck; returns the y below it."""
    x_mid = PAGE_MM[0] / 2
    page.text(PAGE_MARGIN_MM, y + HEADING_MM, "Where they go / Wo sie hinkommen", HEADING_MM)
    y += HEADING_MM * 2
    left, top, right, bottom = sheet.bounds_mm()
    scale = min(DIAGRAM_MM[0] / (right - left), DIAGRAM_MM[1] / (bottom - top))
    grow = max(1.0, DIAGRAM_MARKER_MM / (sheet.markers[0].cut_mm * scale))
    # Room for the enlarged markers around the grid.
    pad = (grow - 1) * max(m.cut_mm for m in sheet.markers) * scale
    scale = min(
        (DIAGRAM_MM[0] - 2 * pad) / (right - left), (DIAGRAM_MM[1] - 2 * pad) / (bottom - top)
    )
    g = sheet.grid
    gw, gh = g.width_mm * scale, g.height_mm * scale
    ox = x_mid - ((left + right) / 2) * scale
    oy = y + pad + HEADING_MM * 1.5 - top * scale
    page.text(
        ox + gw / 2 - page.width("top / oben", TEXT_MM) / 2,
        oy - pad - HEADING_MM * 0.6 + top * scale,
        "top / oben",
        TEXT_MM,
    )
    page.grid(ox, oy, g.cell_width_mm * scale, g.cell_height_mm * scale, g, DIAGRAM_GRID_GREY, 0.2)
    page.outline(ox, oy, ox + gw, oy + gh, 0, 0.35)
    for m in sheet.markers:
        cut = m.cut_mm * scale * grow
        # Enlarged away from the grid: an edge outside the grid's span stays where it is.
        (tx0, ty0), (tx1, ty1) = (m.outline().min(axis=0), m.outline().max(axis=0))
        x0 = _anchor(ox + tx0 * scale, ox + tx1 * scale, ox, ox + gw, cut)
        y0 = _anchor(oy + ty0 * scale, oy + ty1 * scale, oy, oy + gh, cut)
        px_, py_ = x0 + cut / 2, y0 + cut / 2
        page.outline(x0, y0, x0 + cut, y0 + cut, 0, 0.2)
        # Only the inner bits, no black border: a picture, not a marker the camera finds.
        q = m.quiet_zone_mm * scale * grow
        page.marker(sheet, m.id, x0 + q, y0 + q, m.size_mm * scale * grow, border=False)
        label = str(m.id)
        side = -1 if px_ < ox + gw / 2 else 1
        lx = x0 + cut + 1.5 if side > 0 else x0 - 1.5 - page.width(label, HEADING_MM)
        page.text(lx, py_ + HEADING_MM / 2, label, HEADING_MM)
    bottom_y = oy + bottom * scale + pad + GAP_MM
    return bottom_y


def _anchor(low: float, high: float, grid_low: float, grid_high: float, size: float) -> float:
    """Where an enlarged square of ``size`` starts along one axis, given where it was
    (``low``..``high``): its edge facing the grid stays put; else it grows about its middle."""
    if high <= grid_low + 1e-9:
        return high - size
    if low >= grid_high - 1e-9:
        return low
    return (low + high) / 2 - size / 2


def _cut_out_pages(sheet: Sheet, dpi: int) -> list[np.ndarray]:
    pages: list[np.ndarray] = []
    page = _Page.blank(dpi)
    y = _header(page, sheet, "cut-out")
    y = _diagram(page, sheet, y)
    column_width = (PAGE_MM[0] - 2 * PAGE_MARGIN_MM) / 2
    limit = PAGE_MM[1] - PAGE_MARGIN_MM
    column = 0
    for marker in sheet.markers:
        cut = marker.cut_mm
        row_height = max(cut, HEADING_MM * 2 + 8 * TEXT_MM * LINE_SPACING) + GAP_MM
        if column == 0 and y + row_height - GAP_MM > limit:
            pages.append(page.canvas)
            page = _Page.blank(dpi)
            y = _header(page, sheet, "cut-out", continued=True)
        x = PAGE_MARGIN_MM + column * column_width
        _cut_out(page, sheet, marker, x, y)
        tx = x + cut + 4
        text_width = column_width - cut - 6
        page.text(tx, y + HEADING_MM, f"Marker {marker.id}", HEADING_MM)
        en, de = marker_instructions(marker)
        ty = page.paragraph(tx, y + HEADING_MM * 2 + TEXT_MM, en, TEXT_MM, text_width)
        page.paragraph(tx, ty + TEXT_MM * 0.4, de, TEXT_MM, text_width)
        column = 1 - column
        if column == 0:
            y += row_height
    pages.append(page.canvas)
    return pages


def _board_page(sheet: Sheet, dpi: int) -> np.ndarray:
    page = _Page.blank(dpi)
    y = _header(page, sheet, "board")
    left, top, right, _ = sheet.bounds_mm()
    ox = PAGE_MM[0] / 2 - (left + right) / 2
    oy = y - top
    g = sheet.grid
    page.grid(ox, oy, g.cell_width_mm, g.cell_height_mm, g, 0, 0.3)
    for marker in sheet.markers:
        x0, y0 = marker.outline().min(axis=0)
        _cut_out(page, sheet, marker, ox + x0, oy + y0)
    return page.canvas


# --- files -----------------------------------------------------------------------------


def png_bytes(image: np.ndarray, dpi: int) -> bytes:
    """The image as PNG with a ``pHYs`` chunk saying ``dpi`` (in px per metre, rounded),
    so that printing at 100 % gives true size."""
    ok, encoded = cv2.imencode(".png", image)
    if not ok:
        raise SheetOutputError(f"OpenCV could not encode a {image.shape} image as PNG")
    data = encoded.tobytes()
    per_metre = round(dpi / MM_PER_INCH * 1000)
    payload = struct.pack(">IIB", per_metre, per_metre, 1)  # unit 1: the metre
    chunk = struct.pack(">I", len(payload)) + b"pHYs" + payload
    chunk += struct.pack(">I", zlib.crc32(b"pHYs" + payload) & 0xFFFFFFFF)
    # Signature (8 bytes), then IHDR: length, type, 13 bytes, CRC = 25 bytes. pHYs must
    # come before the first IDAT; OpenCV writes none of its own.
    end_of_ihdr = 8 + 25
    if data[12:16] != b"IHDR" or b"pHYs" in data[: end_of_ihdr + 64]:
        raise SheetOutputError("unexpected PNG layout from OpenCV")
    return data[:end_of_ihdr] + chunk + data[end_of_ihdr:]


def png_dpi(data: bytes) -> float | None:
    """The resolution a PNG's ``pHYs`` chunk states, in dots per inch (None without one,
    or when its unit is not the metre). Checks every chunk's CRC on the way."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    offset = 8
    while offset + 8 <= len(data):
        (length,) = struct.unpack(">I", data[offset : offset + 4])
        kind = data[offset + 4 : offset + 8]
        payload = data[offset + 8 : offset + 8 + length]
        (crc,) = struct.unpack(">I", data[offset + 8 + length : offset + 12 + length])
        if zlib.crc32(kind + payload) & 0xFFFFFFFF != crc:
            raise ValueError(f"PNG chunk {kind!r} at byte {offset} has a bad CRC")
        if kind == b"pHYs":
            x, y, unit = struct.unpack(">IIB", payload)
            return x * MM_PER_INCH / 1000 if unit == 1 and x == y else None
        if kind == b"IEND":
            break
        offset += 12 + length
    return None


def pdf_bytes(pages: Sequence[np.ndarray], dpi: int) -> bytes:
    """A PDF of A4 pages, each one grey image (Flate-compressed) drawn at its true size
    (``width / dpi`` inches) from the page's top-left corner."""
    page_w, page_h = (v / MM_PER_INCH * 72 for v in PAGE_MM)
    objects: list[bytes] = [b"", b""]  # 1: catalogue, 2: page tree, filled in below
    kids: list[int] = []
    for image in pages:
        h, w = image.shape[:2]
        pixels = zlib.compress(np.ascontiguousarray(image, np.uint8).tobytes(), 6)
        objects.append(
            b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
            b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n"
            % (w, h, len(pixels))
            + pixels
            + b"\nendstream"
        )
        image_ref = len(objects)
        draw_w, draw_h = w / dpi * 72, h / dpi * 72
        content = b"q %.4f 0 0 %.4f 0 %.4f cm /Im0 Do Q" % (draw_w, draw_h, page_h - draw_h)
        objects.append(b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream")
        content_ref = len(objects)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.4f %.4f] "
            b"/Resources << /XObject << /Im0 %d 0 R >> >> /Contents %d 0 R >>"
            % (page_w, page_h, image_ref, content_ref)
        )
        kids.append(len(objects))
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
        b" ".join(b"%d 0 R" % k for k in kids),
        len(kids),
    )
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def write_sheet(
    game: str,
    path: str | Path,
    dpi: int = 300,
    *,
    sheet_path: str | Path | None = None,
    kit: Any = None,
    layout: str = "auto",
) -> list[Path]:
    """Write ``game``'s marker sheet (the shipped one, or ``sheet_path``; the grid from
    ``kit`` or the shipped kit) to ``path``: a PDF when the name ends in ``.pdf``, else
    PNG (``.png``), one file a page (``name-2.png``, ... after the first). Returns the
    files written."""
    target = Path(path)
    suffix = target.suffix.lower()
    if suffix not in (".png", ".pdf"):
        raise SheetOutputError(f"{str(path)!r}: expected a file name ending in .png or .pdf")
    _check_dpi(dpi)
    sheet = load_sheet(game, sheet_path, kit=kit)
    pages = sheet_pages(sheet, dpi, layout)
    if suffix == ".pdf":
        target.write_bytes(pdf_bytes(pages, dpi))
        return [target]
    written = []
    for number, page in enumerate(pages, start=1):
        file = target if number == 1 else target.with_name(f"{target.stem}-{number}{target.suffix}")
        file.write_bytes(png_bytes(page, dpi))
        written.append(file)
    return written
