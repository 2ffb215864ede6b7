"""Fitting the squares a move hangs on (vision/readers/gimmel.py ``read``'s ``fit_also``).

A table asks the reader to fit each kind's shape on the squares its still reading has
otherwise than the board it last agreed to (``CameraSource.in_question``): a white piece
on a light square is little unlike the board, so its blob's share of unlike pixels says
only "maybe something", and the table asked whether the move was made at all. The fit
looks at the whole piece; what it says there is only how surely a piece stands there,
and only where it finds the kind the blob says, surely."""

from __future__ import annotations

from dataclasses import replace

import pytest
from rendered_tables import rendered_table

from vision.readers.gimmel import ReaderSettings, read

#: Seed 7 of the renderer's tables: a white beetle on e12 whose blob gives its kind by
#: a margin above ``fit_below`` (so it is not fitted unasked) and whose share of unlike
#: pixels leaves some doubt that anything stands there; found by a throwaway search.
SEED, SQUARE = 7, "e12"


@pytest.fixture(scope="module")
def table():
    return rendered_table(SEED)


def reading(table, **options):
    return read(table.frame, table.sheet, table.profile, camera=table.camera, **options)


def test_the_fit_says_how_surely_a_piece_stands_there_not_which_it_is(table):
    base = reading(table)
    assert table.truth["position"][SQUARE] == base.squares[SQUARE] == "white beetle"
    assert base.confidence[SQUARE] >= ReaderSettings().fit_below  # not fitted unasked
    assert base.occupied[SQUARE] < 0.95
    fitted = reading(table, fit_also=frozenset({SQUARE}))
    assert fitted.occupied[SQUARE] > base.occupied[SQUARE] + 0.05
    # Which piece stands where, and how surely, stays the blobs' on every square.
    for name in base.squares:
        assert fitted.squares[name] == base.squares[name], name
        assert fitted.confidence[name] == pytest.approx(base.confidence[name]), name
        assert fitted.margins.get(name) == base.margins.get(name), name
        if name != SQUARE:
            assert fitted.occupied[name] == pytest.approx(base.occupied[name]), name


def test_a_kind_the_fit_is_unsure_of_leaves_the_blob_to_say_how_surely(table):
    # A neighbour's top and shadow, read as a piece, are explained better by a piece
    # than by the empty board too, but by no one kind clearly.
    base = reading(table)
    raised = reading(table, fit_also=frozenset({SQUARE}))
    assert raised.occupied[SQUARE] > base.occupied[SQUARE]
    doubting = replace(ReaderSettings(), fit_also_sure=1.01)  # no margin is that wide
    held = reading(table, fit_also=frozenset({SQUARE}), settings=doubting)
    assert held.occupied[SQUARE] == pytest.approx(base.occupied[SQUARE])
