"""A blob too small to describe a piece (``gimmel.ReaderSettings.least_blob``): a few
pixels of a white piece on a light square that differ from the board say that something
may stand there, not its colour or its outline; the square is read as one with no blob
at its middle, and the fit of each kind's shape and the piece's view say what stands
there. Frame 9 of the reader benchmark (``benchmarks/gimmel_reader.py``), rendered
with its five set-up photos: a white beetle on h7 whose blob is between a quarter and
three fifths of the smallest blob among the set-up's examples."""

from __future__ import annotations

import numpy as np
import pytest
from rendered_tables import benchmark_table, rendered_table

from calibration.blobs import SHAPE_FEATURES
from vision.readers import gimmel

SQUARE = "h7"
#: The reader's settings as shipped.
SHIPPED = gimmel.ReaderSettings()


@pytest.fixture(scope="module")
def table():
    return benchmark_table(9)


def _read(table, settings: gimmel.ReaderSettings = SHIPPED):
    return gimmel.read(table.frame, table.sheet, table.profile, camera=table.camera,
                       settings=settings)  # fmt: skip


def test_the_least_area_is_the_smallest_examples_blob(table):
    kinds = gimmel.Kinds.of(table.profile, gimmel.ReaderSettings())
    area = SHAPE_FEATURES.index("area")
    examples = [e["shape"][area] for piece in table.profile.pieces.values()
                for e in piece["instances"] if not e.get("turned")]  # fmt: skip
    assert kinds.least_area == pytest.approx(min(examples), rel=1e-6)


def test_a_blob_under_the_share_is_read_as_no_blob_and_the_fit_and_view_say(table):
    assert table.truth["position"][SQUARE] == "white beetle"
    assert SQUARE not in table.truth["unknown"]
    kinds = gimmel.Kinds.of(table.profile, gimmel.ReaderSettings())
    as_blob = _read(table)
    # Read from its blob (its look is kept, what a table teaches from), and the blob is
    # between a quarter and three fifths of the smallest example's.
    look = as_blob.looks[SQUARE]
    share = look[1][SHAPE_FEATURES.index("area")] / kinds.least_area
    assert gimmel.ReaderSettings().least_blob < share < 0.6
    assert as_blob.squares[SQUARE] == "white beetle"
    no_blob = _read(table, gimmel.ReaderSettings(least_blob=0.6))
    # No blob: no look to teach from; the fit found a piece and the view its kind.
    assert SQUARE not in no_blob.looks
    assert no_blob.squares[SQUARE] == "white beetle"
    assert no_blob.confidence[SQUARE] != pytest.approx(as_blob.confidence[SQUARE], abs=1e-3)
    # Every other square read as it was: the share decides for the small blob alone.
    others = [n for n in as_blob.squares if n != SQUARE]
    assert [as_blob.squares[n] for n in others] == [no_blob.squares[n] for n in others]
    assert np.isfinite(no_blob.occupied[SQUARE]) and no_blob.occupied[SQUARE] > 0.5


#: Rendered tables with a white cat on a light square whose blob is a fifth and a tenth
#: of the smallest set-up example's (see test_gimmel_texture.py): (seed, square).
SMALL_BLOBS = ((461, "h5"), (747, "f9"))


@pytest.mark.parametrize(("seed", "square"), SMALL_BLOBS)
def test_a_white_cat_whose_blob_is_a_few_pixels_is_read_more_surely_without_it(seed, square):
    table = rendered_table(seed)
    assert table.truth["position"][square] == "white cat"
    as_blob = _read(table, gimmel.ReaderSettings(least_blob=0.0))
    no_blob = _read(table)
    assert square in as_blob.looks and square not in no_blob.looks
    assert as_blob.squares[square] == no_blob.squares[square] == "white cat"
    assert no_blob.confidence[square] > as_blob.confidence[square] + 0.1
