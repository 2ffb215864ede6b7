"""Printable marker sheets: true scale, readable resolution, markers the camera finds."""

from __future__ import annotations

import re
import struct
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.markers import (
    SCALE_BAR_MM,
    SheetOutputError,
    choose_layout,
    general_instructions,
    marker_instructions,
    pdf_bytes,
    png_bytes,
    png_dpi,
    sheet_image,
    sheet_pages,
    write_sheet,
)
from calibration.registration import detect_markers, register
from calibration.sheet import Sheet, load_sheet, sheet_from_data


@pytest.fixture(scope="module")
def sheet() -> Sheet:
    return load_sheet("gimmel")


@pytest.fixture(scope="module")
def page(sheet: Sheet) -> np.ndarray:
    return sheet_image(sheet, dpi=300)


def small_sheet() -> Sheet:
    """A board small enough for one A4 page at true scale."""
    corners = ("top-left", "top-right", "bottom-right", "bottom-left")
    return sheet_from_data(
        {
            "sheet": 1,
            "game": "test",
            "name": "small",
            "grid": {"columns": 4, "rows": 5, "cell_mm": 25.0},
            "aruco": {"dictionary": "DICT_4X4_50", "marker_mm": 20.0, "quiet_zone_mm": 4.0},
            "markers": [{"id": 5 + i, "corner": c} for i, c in enumerate(corners)],
        }
    )


def test_the_png_says_300_dpi(tmp_path: Path) -> None:
    written = write_sheet("gimmel", tmp_path / "gimmel.png")
    assert written == [tmp_path / "gimmel.png"]
    data = written[0].read_bytes()
    assert png_dpi(data) == pytest.approx(300, abs=0.01)
    # The chunk by hand: 11811 px per metre both ways, unit 1 (metre), before the pixels.
    at = data.index(b"pHYs")
    assert struct.unpack(">IIB", data[at + 4 : at + 13]) == (11811, 11811, 1)
    assert at < data.index(b"IDAT")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    assert image.shape == (3508, 2480)  # A4 at 300 dpi


def test_other_resolutions_and_a_bad_crc_is_caught() -> None:
    image = np.full((10, 10), 255, np.uint8)
    assert png_dpi(png_bytes(image, 150)) == pytest.approx(150, abs=0.02)  # whole px a metre
    data = bytearray(png_bytes(image, 600))
    data[data.index(b"pHYs") + 5] ^= 1
    with pytest.raises(ValueError, match="bad CRC"):
        png_dpi(bytes(data))
    _, plain = cv2.imencode(".png", image)
    assert png_dpi(plain.tobytes()) is None


def test_the_printed_markers_are_found_with_their_ids(sheet: Sheet, page: np.ndarray) -> None:
    found = detect_markers(page, sheet)
    assert sorted(m.id for m in found) == [0, 1, 2, 3]  # once each: the picture is not found
    px_per_mm = 300 / 25.4
    for m in found:
        sides = np.linalg.norm(m.corners - np.roll(m.corners, 1, axis=0), axis=1)
        assert sides == pytest.approx(sheet.marker_mm * px_per_mm, abs=1.5)
        # Printed upright: ArUco's first corner is the top-left one.
        assert np.argmin(m.corners.sum(axis=1)) == 0


def test_the_scale_bar_is_100_mm_at_the_declared_dpi(page: np.ndarray) -> None:
    dark = page < 128
    longest = 0
    for row in dark:
        edges = np.flatnonzero(np.diff(np.concatenate([[0], row.astype(np.int8), [0]])))
        runs = edges[1::2] - edges[::2]
        longest = max(longest, int(runs.max(initial=0)))
    assert longest == pytest.approx(SCALE_BAR_MM * 300 / 25.4, abs=1.0)  # 1181 px


def test_a_board_that_fits_a4_is_printed_at_its_true_positions() -> None:
    sheet = small_sheet()
    assert choose_layout(sheet) == "board"
    page = sheet_image(sheet, dpi=200)
    px_per_mm = 200 / 25.4
    found = {m.id: m.corners.mean(axis=0) for m in detect_markers(page, sheet)}
    assert sorted(found) == [5, 6, 7, 8]
    for a in sheet.markers:
        for b in sheet.markers:
            true_mm = np.linalg.norm(np.subtract(a.centre, b.centre))
            seen_px = np.linalg.norm(found[a.id] - found[b.id])
            assert seen_px == pytest.approx(true_mm * px_per_mm, abs=1.0)
    # The page is a test board: it registers, and the grid is where the sheet says.
    registration = register(page, sheet)
    assert registration.rms_mm < 0.2
    assert registration.px_per_mm() == pytest.approx(px_per_mm, rel=0.002)


def test_a_big_board_gets_cut_out_squares(sheet: Sheet) -> None:
    assert choose_layout(sheet) == "cut-out"
    with pytest.raises(SheetOutputError, match="do not fit one A4 page"):
        choose_layout(sheet, "board")
    assert choose_layout(small_sheet(), "cut-out") == "cut-out"
    assert len(sheet_pages(small_sheet(), 100, "cut-out")) == 1


def test_many_markers_continue_on_a_second_page() -> None:
    horus = load_sheet("horus")
    pages = sheet_pages(horus, dpi=100)
    assert len(pages) == 2
    found = [m.id for p in pages for m in detect_markers(p, horus)]
    assert sorted(found) == list(range(20, 28))
    with pytest.raises(SheetOutputError, match="takes 2 pages"):
        sheet_image(horus, dpi=100)


def test_pngs_of_several_pages_are_numbered(tmp_path: Path) -> None:
    written = write_sheet("horus", tmp_path / "horus.png", dpi=100)
    assert [p.name for p in written] == ["horus.png", "horus-2.png"]
    assert all(png_dpi(p.read_bytes()) == pytest.approx(100, abs=0.01) for p in written)


def test_the_pdf_holds_each_page_at_true_size(tmp_path: Path) -> None:
    written = write_sheet("gimmel", tmp_path / "gimmel.pdf", dpi=150)
    data = written[0].read_bytes()
    assert data.startswith(b"%PDF-1.4") and data.rstrip().endswith(b"%%EOF")
    assert re.search(rb"/Type /Pages /Kids \[\d+ 0 R\] /Count 1", data)
    box = [float(v) for v in re.search(rb"/MediaBox \[0 0 ([\d.]+) ([\d.]+)\]", data).groups()]
    assert box == pytest.approx([595.2756, 841.8898], abs=0.001)  # A4 in points
    width, height = (int(v) for v in re.search(rb"/Width (\d+) /Height (\d+)", data).groups())
    drawn = re.search(rb"q ([\d.]+) 0 0 ([\d.]+) 0 ([-\d.]+) cm /Im0 Do Q", data).groups()
    # Drawn at width / dpi inches: 1 px = 25.4 / 150 mm on paper.
    assert float(drawn[0]) == pytest.approx(width / 150 * 72, abs=0.001)
    assert float(drawn[1]) == pytest.approx(height / 150 * 72, abs=0.001)
    length = int(re.search(rb"/FlateDecode /Length (\d+)", data).group(1))
    start = data.index(b"stream\n") + len(b"stream\n")
    pixels = np.frombuffer(zlib.decompress(data[start : start + length]), np.uint8)
    expected = sheet_image(load_sheet("gimmel"), dpi=150)
    np.testing.assert_array_equal(pixels.reshape(height, width), expected)
    # The cross-reference table points at each object.
    xref = int(re.search(rb"startxref\n(\d+)", data).group(1))
    offsets = [int(o) for o in re.findall(rb"(\d{10}) 00000 n", data[xref:])]
    for number, offset in enumerate(offsets, start=1):
        assert data[offset:].startswith(b"%d 0 obj" % number)


def test_a_pdf_of_two_pages() -> None:
    pages = [np.full((35, 25), 255, np.uint8), np.zeros((35, 25), np.uint8)]
    data = pdf_bytes(pages, 10)
    assert re.search(rb"/Count 2", data)
    assert len(re.findall(rb"/Type /Page ", data)) == 2


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("sheet.jpg", r"'.*sheet\.jpg': expected a file name ending in \.png or \.pdf"),
        ("sheet", "ending in"),
    ],
)
def test_unknown_file_types_are_refused(tmp_path: Path, name: str, message: str) -> None:
    with pytest.raises(SheetOutputError, match=message):
        write_sheet("gimmel", tmp_path / name)


@pytest.mark.parametrize("dpi", [0, 50, 5000, 300.0, True])
def test_impossible_resolutions_are_refused(tmp_path: Path, dpi) -> None:
    with pytest.raises(SheetOutputError, match="dpi"):
        write_sheet("gimmel", tmp_path / "sheet.png", dpi=dpi)


def test_instructions_in_english_and_german(sheet: Sheet) -> None:
    en, de = marker_instructions(sheet.marker(0))
    assert "Stick at the board's top-left corner, touching it" in en
    assert "linke obere Ecke" in de
    en, de = marker_instructions(load_sheet("horus").marker(24))
    assert "315 mm right of and 28 mm above" in en and "315 mm rechts und 28 mm über" in de
    en, de = general_instructions(sheet, "cut-out")
    assert "100 %" in en and "100 mm" in en and "White's edge" in en
    assert "Originalgröße" in de and "Weiß" in de


def test_umlauts_without_a_unicode_font(monkeypatch: pytest.MonkeyPatch, sheet: Sheet) -> None:
    """OpenCV 4's Hershey fonts are ASCII: umlauts become the vowel with two dots."""
    from calibration import markers

    monkeypatch.setattr(markers, "_unicode_text", lambda: False)
    assert markers._plain("Größe „Weiß“ – über") == ('Grosse "Weiss" - uber', [2, 17])
    assert sheet_image(sheet, dpi=72).shape == (842, 595)
