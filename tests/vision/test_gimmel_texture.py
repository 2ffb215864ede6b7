"""The Gimmel reader weighs a square's texture as well as its colour
(``gimmel.relative_textures``): a white beetle on a light square differs little in
colour from it but has sharp edges, so it is looked at rather than called empty; a
sleeve's smooth cloth or a soft shadow unlike the empty square is no piece."""

from __future__ import annotations

import functools

import cv2
import numpy as np
import pytest
from rendered_tables import rendered_table

from calibration.board_plane import cell_boxes
from calibration.profiles import board_squares
from calibration.sheet import load_sheet
from calibration.silhouettes import FitSettings
from vision.readers import gimmel

#: Rendered tables (profile from one set-up photo): (seed, squares the colour alone gets
#: wrong and the texture gets right, what stands there).
TABLES = (
    # And b9, a white beetle read as a white falcon since the light is read changing
    # across squares (``blobs.shaded_picture``: a sleeve's shadow runs by): its margin
    # over the falcon was 0.1 before.
    (82, {"b15": "white beetle"}),
    (104, {"b5": "white beetle", "c12": "white beetle"}),
    # A grey sleeve along the a and b files: its edge and cloth read as pieces.
    (117, {"a10": "empty", "a12": "empty", "b7": "empty", "b9": "empty", "c6": "empty"}),
)
#: Colour alone: nor does a doubtful blob's view weigh whether a piece stands there (it
#: also finds no piece in 117's b9, the sleeve's cloth).
WITHOUT = gimmel.ReaderSettings(least_texture=0.0, texture_doubt=float("inf"),
                                view_presence_with_blob=False)  # fmt: skip


@pytest.mark.parametrize(("seed", "expected"), TABLES)
def test_texture_reads_what_colour_alone_misreads(seed, expected):
    table = rendered_table(seed)
    sheet, profile, frame, camera = table.sheet, table.profile, table.frame, table.camera
    truth = table.truth
    assert {n: truth["position"].get(n, gimmel.EMPTY) for n in expected} == expected
    assert not set(expected) & set(truth["unknown"])  # visible: a reader must read them
    gimmel.prepare(profile)
    grouped = gimmel._fellows.cache_info().hits
    seen = gimmel.read(frame, sheet, profile, camera=camera)
    # Which squares are alike was worked out by prepare, not in the frame's time.
    assert gimmel._fellows.cache_info().hits == grouped + 1
    colour_only = gimmel.read(frame, sheet, profile, camera=camera, settings=WITHOUT)
    for name, label in expected.items():
        assert seen.squares[name] == label, (seed, name)
        assert colour_only.squares[name] != label, (seed, name)


#: Rendered tables with a white cat on a light square whose blob is found, but which
#: the fit explains by less than ``least_fit``: (seed, square). Their blobs are small
#: (a fifth and a tenth of the smallest set-up example's), so the reader now reads them
#: as no blob (``ReaderSettings.least_blob``, see test_gimmel_small_blob.py); read
#: here with every blob kept, as the texture's rule for a square with a blob is tested.
TEXTURED_BLOBS = ((461, "h5"), (747, "f9"))
#: Every blob kept, however small.
EVERY_BLOB = 0.0


@pytest.mark.parametrize(("seed", "square"), TEXTURED_BLOBS)
def test_a_textured_square_with_a_blob_needs_no_more_of_the_fit_than_one_without(seed, square):
    table = rendered_table(seed)
    assert table.truth["position"][square] == "white cat"
    assert square not in table.truth["unknown"]
    read = functools.partial(gimmel.read, table.frame, table.sheet, table.profile,
                             camera=table.camera)  # fmt: skip
    seen = read(settings=gimmel.ReaderSettings(least_blob=EVERY_BLOB))
    assert seen.squares[square] == "white cat"
    assert square in seen.looks  # it had a blob (what the table would teach from)
    # Were texture never sure enough to ease the fit's demand, the fit's colours would
    # empty it (its outline's edges find it even so: see the next test; so does its view,
    # ``view_presence_with_blob``, left out here).
    edgeless = FitSettings(edge_weight=0.0)
    fit_alone = functools.partial(gimmel.ReaderSettings, fit=edgeless,
                                  view_presence_with_blob=False,
                                  least_blob=EVERY_BLOB)  # fmt: skip
    unsure = read(settings=fit_alone(texture_sure=float("inf")))
    assert unsure.squares[square] == gimmel.EMPTY
    assert read(settings=fit_alone()).squares[square] == "white cat"


def test_an_empty_frame_is_as_textured_as_itself_and_a_piece_stands_out():
    sheet = load_sheet("gimmel")
    _, cells = board_squares(sheet)
    boxes = cell_boxes(sheet, 1.0, 2.0, 3.0)
    whole = cell_boxes(sheet, 1.0, 2.0, 0.0)
    height, width = int(whole[-1, -1, 3]) + 2, int(whole[-1, -1, 2]) + 2
    rng = np.random.default_rng(5)
    # A checkered board (two colours) with grain, lightness only.
    lightness = np.zeros((height, width), np.float32)
    colours = np.zeros((len(cells), 3), np.float32)
    for k, (row, col) in enumerate(cells):
        x0, y0, x1, y1 = (int(v) for v in whole[row, col])
        level = 80.0 if (row + col) % 2 else 35.0
        lightness[y0:y1, x0:x1] = level
        colours[k] = (level, 0.0, 20.0 if level > 50 else -20.0)
    lightness += rng.normal(0, 1.5, lightness.shape).astype(np.float32)
    flat = gimmel.relative_textures(lightness, boxes, cells, None, colours)
    assert np.median(flat) == pytest.approx(1.0, abs=0.05)
    assert flat.max() < 1.6
    # A white ring (a beetle's rim) on a light square: much more texture there alone.
    k = next(k for k, (row, col) in enumerate(cells) if (row + col) % 2)
    x0, y0, x1, y1 = (int(v) for v in whole[cells[k]])
    cv2.circle(lightness, ((x0 + x1) // 2, (y0 + y1) // 2), 8, 95.0, 2)
    ringed = gimmel.relative_textures(lightness, boxes, cells, None, colours)
    assert ringed[k] > 3 * flat[k]
    others = np.delete(np.arange(len(cells)), k)
    assert np.allclose(ringed[others], flat[others], rtol=0.05)


#: Rendered tables with a white cat on a light square that the fit's colours alone call
#: empty (too like the square): (seed, square). 354's frame is smeared by motion and is
#: read as it is: sharpened (``ReaderSettings.blur``), the board's grain sharpens with the
#: cat, its square is then less textured than its fellows by a hair under
#: ``texture_doubt`` (2.9 against 3.1), is not fitted, and the cat is missed.
OUTLINED = ((736, "b7"), (157, "b1"), (354, "h17"))
AS_IS = gimmel.ReaderSettings(blur=None)


@pytest.mark.parametrize(("seed", "square"), OUTLINED)
def test_a_white_cat_on_a_light_square_is_found_by_its_outlines_edges(seed, square):
    table = rendered_table(seed)
    assert table.truth["position"][square] == "white cat"
    assert square not in table.truth["unknown"]
    seen = gimmel.read(table.frame, table.sheet, table.profile, camera=table.camera,
                       settings=AS_IS)  # fmt: skip
    edgeless = gimmel.ReaderSettings(fit=FitSettings(edge_weight=0.0), blur=None)
    unseen = gimmel.read(table.frame, table.sheet, table.profile, camera=table.camera,
                         settings=edgeless)  # fmt: skip
    assert seen.squares[square] == "white cat"
    assert unseen.squares[square] == gimmel.EMPTY
