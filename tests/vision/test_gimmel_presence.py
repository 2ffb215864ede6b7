"""A square with no blob that the fit says a piece explains is looked at straight on
before it is said to hold one (``gimmel.ReaderSettings.view_presence``), and so is a
piece whose blob leaves its class in doubt (``view_presence_with_blob``): a view like a
piece of some kind adds to the fit's evidence, a view like none takes from it. Frames of
the reader benchmark (``benchmarks/gimmel_reader.py``), rendered with their five set-up
photos."""

from __future__ import annotations

import numpy as np
import pytest
from rendered_tables import benchmark_table

from calibration import views
from vision.readers import gimmel

FIT_ALONE = gimmel.ReaderSettings(view_presence=0.0)


@pytest.fixture(scope="module")
def smeared():
    """Seed 769: a far board smeared by motion, two pieces on it. Sharpened, its light
    squares' grain is as textured as a white piece on them, and the fit finds a piece
    explains four of them better than the empty board."""
    return benchmark_table(769)


def test_a_blurred_boards_grain_is_not_read_as_pieces(smeared):
    table = smeared
    grain = ("a16", "c16", "c18", "f17")
    assert not set(grain) & set(table.truth["position"])  # empty
    assert not set(grain) & set(table.truth["unknown"])  # and in view
    read = [gimmel.read(table.frame, table.sheet, table.profile, camera=table.camera,
                        settings=s) for s in (gimmel.ReaderSettings(), FIT_ALONE)]  # fmt: skip
    looked, fit_alone = read
    assert all(fit_alone.squares[n] not in (gimmel.EMPTY, gimmel.UNKNOWN) for n in grain)
    assert all(looked.squares[n] == gimmel.EMPTY for n in grain)
    # The two pieces on the board are read either way.
    for name, label in table.truth["position"].items():
        assert looked.squares[name] == fit_alone.squares[name] == label


def test_a_doubtful_blob_whose_view_is_like_no_piece_is_empty(smeared):
    """Motion smear gives seed 769's empty f3 a blob of doubtful class; the fit finds a
    white cat explains it a little better than the empty board, but its view, looked at
    for its kind already, is like no piece (``view_presence_with_blob``)."""
    table = smeared
    assert "f3" not in table.truth["position"] and "f3" not in table.truth["unknown"]
    fit_alone = gimmel.ReaderSettings(view_presence_with_blob=False)
    read = [gimmel.read(table.frame, table.sheet, table.profile, camera=table.camera,
                        settings=s) for s in (gimmel.ReaderSettings(), fit_alone)]  # fmt: skip
    looked, fitted = read
    assert fitted.squares["f3"] == "white cat"
    assert looked.squares["f3"] == gimmel.EMPTY
    # Emptied, it keeps no view or look for the table to teach from.
    assert "f3" not in looked.views and "f3" not in looked.looks
    assert {n: v for n, v in looked.squares.items() if n != "f3"} == {
        n: v for n, v in fitted.squares.items() if n != "f3"
    }


@pytest.fixture(scope="module")
def crowded():
    """Seed 852: 24 pieces, white ones on light squares among them."""
    return benchmark_table(852)


def test_a_white_cat_on_a_light_square_is_found_by_its_view(crowded):
    table = crowded
    assert table.truth["position"]["a6"] == "white cat"
    assert "a6" not in table.truth["unknown"]
    read = [gimmel.read(table.frame, table.sheet, table.profile, camera=table.camera,
                        settings=s) for s in (gimmel.ReaderSettings(), FIT_ALONE)]  # fmt: skip
    looked, fit_alone = read
    assert fit_alone.squares["a6"] == gimmel.EMPTY
    assert looked.squares["a6"] == "white cat"
    # Found by its view, which is kept for teaching as any piece's.
    assert "a6" in looked.views
    # Nothing else changes.
    assert {n: v for n, v in looked.squares.items() if n != "a6"} == {
        n: v for n, v in fit_alone.squares.items() if n != "a6"
    }


def test_a_views_likeness_is_its_score_for_the_kind_it_looks_most_like(crowded):
    table = crowded
    seen = gimmel.read(table.frame, table.sheet, table.profile, camera=table.camera)
    kinds = gimmel.Kinds.of(table.profile, gimmel.ReaderSettings())
    pieces = sorted(n for n in table.truth["position"] if n not in table.truth["unknown"])
    light, apart = (np.array([seen.views[n][i] for n in pieces]) for i in (0, 1))
    likeness = kinds.view_likeness(light, apart)
    assert likeness.shape == (len(pieces),)
    scores = kinds.view_model.scores(views.features(light, apart, kinds.settings.view))
    assert np.allclose(likeness, scores.max(axis=1))
    # Most pieces' views look plainly like a kind (the kind model's targets are 1 and -1).
    assert np.median(likeness) > 0.5
