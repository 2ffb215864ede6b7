"""A piece whose kind is in doubt between a falcon and another kind is asked whether
its top is a disc with a rim (``vision/readers/rims.py``, ``gimmel.ReaderSettings``'
``rim_gain``): a falcon, a round column (``calibration/pieces/gimmel.toml``), has one
all round; a beetle and a cat goddess do not. The rulebook names the three pieces of
each colour (rulebooks/gimmel.de.txt, "1. Spielvorbereitung"; NOTES.md, Gimmel rule 1:
the falcon a cylinder). Frames of the reader benchmark (``benchmarks/gimmel_reader.py``),
rendered with their five set-up photos."""

from __future__ import annotations

import numpy as np
import pytest
from rendered_tables import benchmark_table

from calibration import silhouettes
from calibration.profiles import square_centre_px
from vision.readers import gimmel, rims

WITHOUT = gimmel.ReaderSettings(rim_gain=0.0)
WITH = gimmel.ReaderSettings()


def _read(table, settings: gimmel.ReaderSettings = WITH):
    """The table's frame read with ``settings`` (the rim weighed, by default)."""
    return gimmel.read(table.frame, table.sheet, table.profile, camera=table.camera,
                       settings=settings)  # fmt: skip


@pytest.fixture(scope="module")
def low_falcon():
    """Seed 494: a white falcon on c16, far from the camera, its side showing more than
    any set-up falcon's; its blob and view took it for a white beetle by 0.43."""
    return benchmark_table(494)


def _white_pieces(table):
    return {name: label for name, label in table.truth["position"].items()
            if label.startswith("white") and name not in table.truth["unknown"]}  # fmt: skip


def test_a_falcons_rim_steps_across_it_as_no_other_pieces_top_does(low_falcon):
    table = low_falcon
    white = _white_pieces(table)
    assert {label.split()[1] for label in white.values()} == {"falcon", "beetle", "cat"}
    registration = gimmel.register(table.frame, table.sheet, camera=table.camera)
    eye = silhouettes.board_eye(registration)
    names, cells = gimmel.board_squares(table.sheet)
    order = sorted(white)
    centres = [square_centre_px(table.sheet, cells[names.index(n)], 1.0, 0.0) for n in order]
    column = table.profile.piece_shapes["falcon"]
    scores = dict(zip(order, rims.rim_scores(table.frame, registration, eye, centres,
                                             column.size("diameter_mm") / 2,
                                             column.height_mm), strict=True))  # fmt: skip
    falcons = [scores[n] for n in order if white[n] == "white falcon"]
    others = [scores[n] for n in order if white[n] != "white falcon"]
    settings = WITH
    assert min(falcons) > dict(settings.rim_from)["white"] > max(others)
    # One at a time as all at once.
    alone = rims.rim_scores(table.frame, registration, eye, centres[:1],
                            column.size("diameter_mm") / 2, column.height_mm)  # fmt: skip
    assert alone[0] == pytest.approx(scores[order[0]], abs=1e-6)


def test_a_low_falcon_read_as_a_beetle_is_read_by_its_rim(low_falcon):
    table = low_falcon
    assert table.truth["position"]["c16"] == "white falcon"
    assert "c16" not in table.truth["unknown"]
    rim, without = _read(table), _read(table, WITHOUT)
    assert without.squares["c16"] == "white beetle"
    assert rim.squares["c16"] == "white falcon"
    assert rim.margins["c16"]["white beetle"] > 0.0
    # Nothing else changes.
    assert {n: v for n, v in rim.squares.items() if n != "c16"} == {
        n: v for n, v in without.squares.items() if n != "c16"
    }


def test_no_pieces_have_no_rim_scores(low_falcon):
    table = low_falcon
    registration = gimmel.register(table.frame, table.sheet, camera=table.camera)
    eye = silhouettes.board_eye(registration)
    assert rims.rim_scores(table.frame, registration, eye, np.zeros((0, 2)), 9.0,
                           12.0).shape == (0,)  # fmt: skip


@pytest.fixture(scope="module")
def blurred_falcons():
    """Seed 980: a blurred frame, white falcons on e12 and g6; the examples took e12 for
    a white beetle by 0.29, and read g6 a falcon by 0.55 only."""
    return benchmark_table(980)


def _lead(seen, name):
    """How far ``name``'s piece leads its colour's other kinds (``Observation.margins``)."""
    label = seen.squares[name]
    colour = label.split()[0]
    return min(m for c, m in seen.margins[name].items() if c.startswith(colour) and c != label)


def test_a_falcon_read_as_one_is_surer_by_its_rim_and_of_no_other_colour(blurred_falcons):
    table = blurred_falcons
    assert table.truth["position"]["g6"] == table.truth["position"]["e12"] == "white falcon"
    rim, without = _read(table), _read(table, WITHOUT)
    assert without.squares["g6"] == rim.squares["g6"] == "white falcon"
    # Under the 0.7 a table asks of a piece set down (``companion.camera_source.MARGIN``),
    # then over it.
    assert _lead(without, "g6") < 0.7 <= _lead(rim, "g6")
    # Its lead over a black falcon is what it was: a rim says nothing of colour.
    assert rim.margins["g6"]["black falcon"] == pytest.approx(
        without.margins["g6"]["black falcon"], abs=1e-6
    )
    assert without.squares["e12"] == "white beetle"
    assert rim.squares["e12"] == "white falcon"


@pytest.fixture(scope="module")
def cat_in_doubt():
    """Seed 130: a white cat goddess on h3 whose blob and view lead the white falcon by
    0.15 only."""
    return benchmark_table(130)


def test_a_piece_without_a_rim_is_surer_not_a_falcon(cat_in_doubt):
    table = cat_in_doubt
    assert table.truth["position"]["h3"] == "white cat"
    assert "h3" not in table.truth["unknown"]
    rim, without = _read(table), _read(table, WITHOUT)
    assert without.squares["h3"] == rim.squares["h3"] == "white cat"
    # Under the 0.7 a table asks of a piece set down, then over it: no rim where a
    # falcon's would show is evidence against a falcon, as one all round is for it.
    assert without.margins["h3"]["white falcon"] < 0.7 <= rim.margins["h3"]["white falcon"]
    # Its lead over the beetle is what it was: a missing rim does not tell a beetle from a cat.
    assert rim.margins["h3"]["white beetle"] == pytest.approx(
        without.margins["h3"]["white beetle"], abs=1e-6
    )
    # A rim score under ``rim_against`` only: unchanged with the threshold lowered.
    lower = gimmel.ReaderSettings(rim_against=(("white", 0.5),))
    below = _read(table, lower)
    assert below.margins["h3"] == pytest.approx(without.margins["h3"], abs=1e-6)


@pytest.fixture(scope="module")
def black_falcons():
    """Seed 340: black falcons on f7 and a5 whose blobs and views lead the black beetle
    and cat by 0.51 and 0.35 only."""
    return benchmark_table(340)


def test_a_black_falcons_rim_makes_it_surer_over_black_rim_from(black_falcons):
    table = black_falcons
    assert table.truth["position"]["f7"] == "black falcon"
    assert "f7" not in table.truth["unknown"]
    rim, without = _read(table), _read(table, WITHOUT)
    assert without.squares["f7"] == rim.squares["f7"] == "black falcon"
    assert _lead(without, "f7") < 0.7 <= _lead(rim, "f7")
    assert rim.margins["f7"]["white falcon"] == pytest.approx(
        without.margins["f7"]["white falcon"], abs=1e-6
    )
    # Black's threshold is further out than white's: at white's, a black top's rim
    # (which steps less from its side) would count as much as a white one's.
    thresholds = dict(WITH.rim_from)
    assert thresholds["black"] > thresholds["white"]
    only_white = gimmel.ReaderSettings(rim_from=(("white", thresholds["white"]),))
    unasked = _read(table, only_white)
    assert unasked.margins["f7"] == pytest.approx(without.margins["f7"], abs=1e-6)
