"""A piece's shadow falls on the square beside it, away from the lamp; the reader knows
where the lamp is (``Profile.lamp``, learnt from the set-up photo) and leaves what looks
like a neighbour's shadow there out of whether the square holds a piece
(``gimmel.neighbour_shadows``, ``ReaderSettings.shadow_like``). Frames of the reader
benchmark (``benchmarks/gimmel_reader.py``), rendered with their five set-up photos."""

from __future__ import annotations

import numpy as np
import pytest
from rendered_tables import benchmark_table

from calibration.board_plane import rectified_size
from calibration.profiles import board_squares, square_centre_px
from vision.readers import gimmel

NO_SHADOWS = gimmel.ReaderSettings(shadow_like=None)


@pytest.fixture(scope="module")
def beside_a_falcon():
    """Seed 780: a white falcon on f12 with the lamp low to the board's left (x -375
    mm, 495 mm up), its shadow lying across the light square g12 to its right."""
    return benchmark_table(780)


def test_a_neighbours_shadow_is_not_read_as_a_piece(beside_a_falcon):
    table = beside_a_falcon
    assert table.truth["position"].get("f12") == "white falcon"
    assert "g12" not in table.truth["position"] and "g12" not in table.truth["unknown"]
    assert table.profile.lamp is not None and table.profile.lamp[0] < 0  # to the left
    read = [gimmel.read(table.frame, table.sheet, table.profile, camera=table.camera,
                        settings=s) for s in (gimmel.ReaderSettings(), NO_SHADOWS)]  # fmt: skip
    knowing, not_knowing = read
    # Without the lamp's shadows, the fit finds a white cat (with its own shadow)
    # explains the shadow better than the bare board does.
    assert not_knowing.squares["g12"] == "white cat"
    assert knowing.squares["g12"] == gimmel.EMPTY
    # Every square in view is read as rendered.
    for name, label in knowing.squares.items():
        if name not in table.truth["unknown"]:
            assert label == table.truth["position"].get(name, gimmel.EMPTY), name


def _pictures(profile, sheet):
    """An even empty board and a frame of it to draw on (the reading's picture)."""
    ps = profile.settings
    width, height = rectified_size(sheet, ps.shape_px_per_mm, ps.shape_margin_mm)
    empty = np.zeros((height, width, 3), np.float32)
    empty[...] = (70.0, 8.0, 14.0)
    return empty.copy(), empty


def _spot(profile, sheet, cell, along_mm):
    """A 5x5 px patch's slice in the reading's picture, ``along_mm`` (x, y) from
    ``cell``'s middle."""
    ps = profile.settings
    x, y = square_centre_px(sheet, cell, ps.shape_px_per_mm, ps.shape_margin_mm)
    x, y = round(x + along_mm[0] * ps.shape_px_per_mm), round(y + along_mm[1] * ps.shape_px_per_mm)
    return slice(y - 2, y + 3), slice(x - 2, x + 3)


def test_only_shadow_like_pixels_beside_a_piece_away_from_the_lamp(beside_a_falcon):
    table = beside_a_falcon
    profile, sheet = table.profile, table.sheet
    names, cells = board_squares(sheet)
    settings = gimmel.ReaderSettings()
    caster = cells[names.index("f12")]
    row, col = caster
    lab, empty = _pictures(profile, sheet)
    width = sheet.grid.cell_width_mm
    # The lamp is to the left: a shadow falls right of f12, into g12, near its edge;
    # none can fall left of it, into e12.
    away = _spot(profile, sheet, (row, col + 1), (-width / 2 + 4, 0))
    towards = _spot(profile, sheet, (row, col - 1), (width / 2 - 4, 0))
    own = _spot(profile, sheet, caster, (width / 2 - 4, 0))
    far = _spot(profile, sheet, (row, col - 3), (0, 0))  # c12: on the grid, no neighbour
    shade = empty[0, 0] * 0.5 + np.array([8.0, 0.0, 0.0], np.float32)  # (L+16) halved
    for spot in (away, towards, own, far):
        lab[spot] = shade
    lighter = _spot(profile, sheet, (row, col + 1), (-width / 2 + 4, 6))
    lab[lighter] = (95.0, 0.0, 0.0)  # a white piece's top: unlike the board, but lighter
    unlike = gimmel.difference(lab, empty) > profile.settings.piece_delta_e
    casting = np.zeros(len(cells), bool)
    casting[names.index("f12")] = True
    shadows = gimmel.neighbour_shadows(lab, empty, unlike, casting, sheet, cells,
                                            profile, settings)  # fmt: skip
    found = np.zeros(unlike.shape, bool)
    found.ravel()[shadows.spots] = True
    assert found[away].all()
    assert not found[towards].any() and not found[own].any() and not found[far].any()
    assert not found[lighter].any()
    assert found.sum() == 25  # nothing but the shadow
    assert np.all(shadows.costs <= settings.shadow_like)
    # The fit on a square beside f12 weighs a piece against the board in f12's shadow;
    # the fit on f12 itself against the board as it is (its own piece's shape casts
    # that shadow).
    bare = gimmel.difference(lab, empty)
    shaded = shadows.on_board(bare)
    assert np.all(shaded[away] <= settings.shadow_like)
    assert np.all(bare[away] > profile.settings.piece_delta_e)
    assert np.array_equal(shaded[towards], bare[towards])
    beside = shadows.seen_from(names.index("g12"), shaded, bare)
    assert beside is shaded
    itself = shadows.seen_from(names.index("f12"), shaded, bare)
    assert np.array_equal(itself, bare)
    # Beyond the grid no square is misread for a shadow there (and a piece on the last
    # column fitted against its own shadow's darkness does not lose it).
    edge = cells[names.index("h12")]
    assert edge[1] == sheet.grid.columns - 1
    beyond = _spot(profile, sheet, edge, (width / 2 + 3, 0))
    lab[beyond] = shade
    unlike = gimmel.difference(lab, empty) > profile.settings.piece_delta_e
    casting[names.index("h12")] = True
    shadows = gimmel.neighbour_shadows(lab, empty, unlike, casting, sheet, cells, profile,
                                        settings)  # fmt: skip
    assert set(shadows.spots.tolist()) == set(np.flatnonzero(found).tolist())
    # No piece on f12, no shadow from it.
    casting[:] = False
    nothing = gimmel.neighbour_shadows(lab, empty, unlike, casting, sheet, cells, profile,
                                          settings)  # fmt: skip
    assert len(nothing.spots) == 0 and not nothing.zones
