"""The reading at a table (vision/readers/gimmel.py ``MOUNTED``): a table fits every piece
whose kind the blob gives by a margin under 0.8 (its camera is mounted, so the fit's
masks are kept), where a photo from a new place fits those under 0.5, and from 0.5 to
0.8 only those whose kind is in doubt, however sure their colour (``fit_kind_below``)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from rendered_tables import rendered_table

from calibration import views
from calibration.profiles import board_squares, square_cell, square_centre_px
from vision.readers import gimmel
from vision.readers.gimmel import MOUNTED, ReaderSettings, read

#: Seed 158 of the renderer's tables: a black beetle on h17 whose blob the examples take
#: for a black falcon by 0.53 (0.62 before the views' lightness counted from a difference
#: of 4; found by a throwaway search), and a white cat on e18 and a white beetle on b6
#: whose colour they give by 0.68 and 0.69 over the black one's.
SEED, KIND_IN_DOUBT, COLOUR_IN_DOUBT = 158, "h17", ("e18", "b6")


@pytest.fixture(scope="module")
def table():
    return rendered_table(SEED)


def fitted_squares(table, settings, monkeypatch) -> tuple[gimmel.Observation, set[str]]:
    """The reading, and the squares whose pieces were fitted for it."""
    ps = table.profile.settings
    where = {square_centre_px(table.sheet, square_cell(table.sheet, name), ps.shape_px_per_mm,
                              ps.shape_margin_mm): name
             for name in board_squares(table.sheet)[0]}  # fmt: skip
    fitted: set[str] = set()
    weigh = gimmel.Fitter.weigh

    def spy(self, centres, *args, **kwargs):
        fitted.update(where[tuple(c)] for c in centres)
        return weigh(self, centres, *args, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(gimmel.Fitter, "weigh", spy)
        seen = read(table.frame, table.sheet, table.profile, camera=table.camera,
                    settings=settings)  # fmt: skip
    return seen, fitted


#: The readings these squares were found with: a piece's lightness divided by its
#: square's own ratio (with its square's tone, ``board_tone``, b6's colour is surer), and
#: the views' difference not thinned out (``views.ViewSettings.thin_out_px``; thinned,
#: e18's colour is given by 0.82, over the 0.8 a table fits under).
UNTHINNED = views.ViewSettings(thin_out_px=1)
OWN_RATIO = ReaderSettings(board_tone=False, view=UNTHINNED)


def test_a_piece_read_by_a_margin_under_0_8_is_fitted_at_a_table(table, monkeypatch):
    plain, plain_fitted = fitted_squares(table, OWN_RATIO, monkeypatch)
    mounted, mounted_fitted = fitted_squares(
        table, replace(MOUNTED, board_tone=False, view=UNTHINNED), monkeypatch
    )
    assert table.truth["position"][KIND_IN_DOUBT] == "black beetle"
    unfitted = read(table.frame, table.sheet, table.profile, camera=table.camera,
                    settings=replace(OWN_RATIO, fit_kind_below=0.0))  # fmt: skip
    assert unfitted.squares[KIND_IN_DOUBT] == "black falcon"
    assert ReaderSettings().fit_below <= unfitted.confidence[KIND_IN_DOUBT] < MOUNTED.fit_below
    # The kind in doubt is fitted either way, and read right.
    assert KIND_IN_DOUBT in plain_fitted & mounted_fitted
    assert plain.squares[KIND_IN_DOUBT] == mounted.squares[KIND_IN_DOUBT] == "black beetle"
    # The colour in doubt, only at a table.
    for name in COLOUR_IN_DOUBT:
        assert ReaderSettings().fit_below <= plain.confidence[name] < MOUNTED.fit_below, name
        assert name in mounted_fitted - plain_fitted, name
    assert plain_fitted <= mounted_fitted
    # Only the fit differs: every piece the blob is surer of reads as it did.
    for name, label in plain.squares.items():
        if plain.confidence[name] >= MOUNTED.fit_below and label not in ("empty", "unknown"):
            assert mounted.squares[name] == label, name
            assert mounted.confidence[name] == pytest.approx(plain.confidence[name]), name
