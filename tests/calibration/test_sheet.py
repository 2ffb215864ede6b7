"""Marker sheets: the shipped sheets load, and impossible sheets are refused naming the
field."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from calibration.sheet import (
    Sheet,
    SheetError,
    default_sheet_path,
    load_sheet,
    sheet_from_data,
)
from rules.gimmel.kit import GimmelKit
from rules.kits import load_kit

DOCS = Path(__file__).resolve().parents[2] / "docs" / "calibration.md"


def gimmel_data() -> dict[str, Any]:
    return tomllib.loads(default_sheet_path("gimmel").read_text(encoding="utf-8"))


def test_the_shipped_gimmel_sheet_loads_with_the_kits_grid() -> None:
    sheet = load_sheet("gimmel")
    kit = load_kit("gimmel")
    assert isinstance(sheet, Sheet)
    assert sheet.game == "gimmel" and sheet.dictionary == "DICT_4X4_50"
    assert (sheet.grid.columns, sheet.grid.rows) == (kit.columns, kit.rows) == (8, 18)
    assert sheet.grid.cell_width_mm == sheet.grid.cell_height_mm == 30.0
    assert sheet.ids == (0, 1, 2, 3)
    assert [m.corner for m in sheet.markers] == [
        "top-left",
        "top-right",
        "bottom-right",
        "bottom-left",
    ]
    cut = sheet.marker_mm + 2 * sheet.quiet_zone_mm
    assert sheet.marker(0).centre == (-cut / 2, -cut / 2)
    assert sheet.marker(2).centre == (240 + cut / 2, 540 + cut / 2)
    assert sheet.orientation_en and sheet.orientation_de


def test_markers_touch_the_grid_corners_from_outside() -> None:
    sheet = load_sheet("gimmel")
    grid = sheet.grid.corners()
    for marker, corner in zip(sheet.markers, grid, strict=True):
        outline = marker.outline()
        # One corner of the cut-out square is the grid's corner ...
        assert np.min(np.linalg.norm(outline - corner, axis=1)) < 1e-9
        # ... and the square lies outside the grid.
        inside = (outline > 0) & (outline < [sheet.grid.width_mm, sheet.grid.height_mm])
        assert not np.all(inside, axis=1).any()


def test_marker_geometry_in_board_mm() -> None:
    marker = load_sheet("gimmel").marker(0)
    np.testing.assert_allclose(marker.corners(), [[-36, -36], [-6, -36], [-6, -6], [-36, -6]])
    outer, inner = marker.quiet_zone()
    np.testing.assert_allclose(outer, [[-42, -42], [0, -42], [0, 0], [-42, 0]])
    np.testing.assert_allclose(inner, marker.corners())
    assert marker.cut_mm == 42.0


def test_a_kit_with_another_board_moves_the_corner_markers() -> None:
    sheet = load_sheet("gimmel", kit=GimmelKit("big", "", columns=10, rows=12))
    assert (sheet.grid.columns, sheet.grid.rows) == (10, 12)
    assert sheet.marker(2).centre == (300 + 21, 360 + 21)


def test_a_sheet_that_states_its_grid_must_agree_with_a_kit() -> None:
    data = gimmel_data()
    data["grid"] |= {"columns": 8, "rows": 18}
    assert sheet_from_data(data, game="gimmel").grid.rows == 18
    with pytest.raises(
        SheetError, match=r"'grid\.rows': disagrees with the kit's board\.rows \(12\)"
    ):
        sheet_from_data(data, game="gimmel", kit=GimmelKit("x", "", columns=8, rows=12))


def test_oblong_cells_and_centre_placed_markers() -> None:
    data = gimmel_data()
    data["grid"]["cell_mm"] = [30.0, 28.0]
    data["markers"][1] = {"id": 9, "centre_mm": [120.0, -30.0]}
    sheet = sheet_from_data(data, game="gimmel")
    assert sheet.grid.height_mm == 18 * 28.0
    assert sheet.marker(9).centre == (120.0, -30.0) and sheet.marker(9).corner is None


def test_the_draft_sheets_load() -> None:
    for game in ("nil", "horus"):
        path = default_sheet_path(game)
        assert "DRAFT" in path.read_text(encoding="utf-8")
        sheet = load_sheet(game)
        assert len(sheet.markers) >= 4


def place(data: dict[str, Any], index: int, centre: list[float]) -> None:
    """Place marker ``index`` by its centre instead of a corner."""
    data["markers"][index] = {"id": data["markers"][index]["id"], "centre_mm": centre}


def broken(change) -> dict[str, Any]:
    data = copy.deepcopy(gimmel_data())
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        (lambda d: d["aruco"].pop("marker_mm"), "aruco.marker_mm", "missing"),
        (lambda d: d.pop("grid"), "grid", "missing"),
        (lambda d: d["markers"][2].pop("id"), "markers[2].id", "missing"),
        (lambda d: d["aruco"].update(dictionary="DICT_3X3_9"), "aruco.dictionary", "unknown ArUco"),
        (lambda d: d["markers"][3].update(id=1), "markers[3].id", "duplicate id"),
        (lambda d: place(d, 1, [100, 20]), "markers[1].centre_mm", "overlap the playing grid"),
        (lambda d: place(d, 1, [-30, -20]), "markers[1].centre_mm", "overlaps marker 0"),
        (lambda d: d["markers"][0].update(id=50), "markers[0].id", "from 0 to 49"),
        (lambda d: d["markers"][0].update(id=True), "markers[0].id", "whole number"),
        (lambda d: d["markers"][0].update(corner="middle"), "markers[0].corner", "one of top-left"),
        (
            lambda d: d["markers"][0].update(centre_mm=[1, 2]),
            "markers[0]",
            "either corner or centre_mm",
        ),
        (lambda d: d["markers"][0].update(colour="red"), "markers[0].colour", "unknown field"),
        (lambda d: d["aruco"].update(quiet_zone_mm=3), "aruco.quiet_zone_mm", "one module"),
        (lambda d: d["aruco"].update(marker_mm="30"), "aruco.marker_mm", "number of millimetres"),
        (lambda d: d["grid"].update(cell_mm=0), "grid.cell_mm", "number of millimetres"),
        (lambda d: d["grid"].update(columns=8), "grid.rows", "both columns and rows"),
        (lambda d: d.update(sheet=2), "sheet", "format version 1"),
        (lambda d: d.update(game="uraeus"), "game", "expected 'gimmel'"),
        (lambda d: d.update(extra=1), "extra", "unknown field"),
        (lambda d: d.update(markers=d["markers"][:2]), "markers", "at least 3 markers"),
    ],
)
def test_malformed_sheets_are_refused_naming_the_field(change, field: str, words: str) -> None:
    with pytest.raises(SheetError) as caught:
        sheet_from_data(broken(change), game="gimmel")
    assert caught.value.field == field
    assert f"field {field!r}" in str(caught.value)
    assert words in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_an_unregistered_game_needs_its_grid_in_the_sheet() -> None:
    data = gimmel_data()
    data["game"] = "senet"
    with pytest.raises(SheetError, match=r"'grid\.columns': missing, and no kit of 'senet'"):
        sheet_from_data(data)


def test_unreadable_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SheetError, match="cannot read"):
        load_sheet("gimmel", tmp_path / "none.toml")
    bad = tmp_path / "bad.toml"
    bad.write_text("sheet = [", encoding="utf-8")
    with pytest.raises(SheetError, match="not a readable TOML file"):
        load_sheet("gimmel", bad)


def test_every_sheet_field_is_documented() -> None:
    text = DOCS.read_text(encoding="utf-8")
    section = text[text.index("## Marker sheets and registration") :]
    for name in (
        "sheet",
        "game",
        "name",
        "description",
        "orientation_en",
        "orientation_de",
        "grid.columns",
        "grid.rows",
        "grid.cell_mm",
        "aruco.dictionary",
        "aruco.marker_mm",
        "aruco.quiet_zone_mm",
        "markers[].id",
        "markers[].corner",
        "markers[].centre_mm",
    ):
        assert f"`{name}`" in section, name
