"""The reading at a table (vision/readers/gimmel.py ``MOUNTED``): a table fits every piece
whose kind the blob gives by a margin under 0.8 (its camera is mounted, so the fit's
masks are kept), where a photo from a new place fits those under 0.5 alone."""

from __future__ import annotations

import pytest
from rendered_tables import rendered_table

from vision.readers.gimmel import MOUNTED, ReaderSettings, read

#: Seed 158 of the renderer's tables: a black beetle on h17 whose blob the examples take
#: for a black falcon by 0.62 (found by a throwaway search).
SEED, SQUARE = 158, "h17"


@pytest.fixture(scope="module")
def table():
    return rendered_table(SEED)


def test_a_piece_read_by_a_margin_under_0_8_is_fitted_at_a_table(table):
    plain = read(table.frame, table.sheet, table.profile, camera=table.camera)
    assert table.truth["position"][SQUARE] == "black beetle"
    assert plain.squares[SQUARE] == "black falcon"
    assert ReaderSettings().fit_below <= plain.confidence[SQUARE] < MOUNTED.fit_below
    mounted = read(table.frame, table.sheet, table.profile, camera=table.camera,
                   settings=MOUNTED)  # fmt: skip
    assert mounted.squares[SQUARE] == "black beetle"
    # Only the fit differs: every piece the blob is surer of reads as it did.
    for name, label in plain.squares.items():
        if plain.confidence[name] >= MOUNTED.fit_below and label not in ("empty", "unknown"):
            assert mounted.squares[name] == label, name
            assert mounted.confidence[name] == pytest.approx(plain.confidence[name]), name
