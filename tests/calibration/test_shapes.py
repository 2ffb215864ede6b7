"""The pieces' shapes file (calibration/pieces/gimmel.toml, calibration/shapes.py): the
shipped reconstruction loads, and a file a user writes for their own pieces is refused
with the field and the value named when it cannot be used."""

from __future__ import annotations

import math

import numpy as np
import pytest

from calibration.shapes import ShapesError, load_shapes, shapes_from_data


def test_the_shipped_gimmel_pieces_are_a_falcon_a_cat_and_a_beetle():
    shapes = load_shapes("gimmel")
    assert set(shapes.kinds) == {"falcon", "cat", "beetle"}
    falcon, cat, beetle = shapes["falcon"], shapes["cat"], shapes["beetle"]
    # A round falcon looks the same turned any way; a three-sided cat every 120 degrees;
    # a beetle every half turn.
    assert (falcon.symmetry_deg, cat.symmetry_deg, beetle.symmetry_deg) == (360, 120, 180)
    # Its outline spans its size: 18 mm across, 12 mm high.
    spread = falcon.points[:, :2].max(0) - falcon.points[:, :2].min(0)
    assert spread == pytest.approx([18.0, 18.0], abs=0.2)
    assert falcon.points[:, 2].max() == falcon.height_mm == 12.0
    # The cat's top is a smaller triangle than its base, 13 mm up.
    top = cat.points[cat.points[:, 2] == 13.0]
    assert len(top) == 3 and np.hypot(*top[0, :2]) == pytest.approx(8.208)
    # The beetle's legs reach past its sides.
    assert beetle.points[:, 1].max() == pytest.approx(15.0 / 2 + 2.1)
    assert beetle.points[:, 0].max() == pytest.approx(20.4 / 2)


def document(**changes):
    data = {"shapes": 1, "game": "gimmel",
            "falcon": {"form": "cylinder", "diameter_mm": 18.0, "height_mm": 12.0}}  # fmt: skip
    for key, value in changes.items():
        if value is None:
            del data[key]
        else:
            data[key] = value
    return data


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"shapes": 2}, r"shapes = 1 expected \(got 2\)"),
        ({"game": "nil"}, r"game = 'gimmel' expected \(got 'nil'\)"),
        ({"falcon": None}, "no piece's shape is given"),
        ({"falcon": "round"}, r"\[falcon\] expected a table"),
        ({"falcon": {"form": "sphere", "height_mm": 1}}, "form: one of cylinder, prism, dome"),
        ({"falcon": {"form": "cylinder", "height_mm": 12}}, "diameter_mm: a number expected"),
        ({"falcon": {"form": "cylinder", "diameter_mm": -3, "height_mm": 12}},
         r"diameter_mm: more than 0 and at most 1000 expected \(-3\)"),
        ({"falcon": {"form": "cylinder", "diameter_mm": 18, "height_mm": 12, "colour": "red"}},
         "colour: not a size of a cylinder"),
        ({"cat": {"form": "prism", "sides": 2.5, "base_circumradius_mm": 11,
                  "top_circumradius_mm": 8, "height_mm": 13}}, "sides: a whole number"),
        ({"cat": {"form": "prism", "sides": 3, "base_circumradius_mm": 8,
                  "top_circumradius_mm": 11, "height_mm": 13}}, "top is no wider than its base"),
    ],
)  # fmt: skip
def test_a_shapes_file_that_cannot_be_used_is_refused_naming_the_field(changes, message):
    with pytest.raises(ShapesError, match=message):
        shapes_from_data(document(**changes), "gimmel", "my-pieces.toml")


def test_a_users_own_file_is_read_and_a_broken_one_named(tmp_path):
    mine = tmp_path / "pieces.toml"
    mine.write_text('shapes = 1\ngame = "gimmel"\n[falcon]\nform = "cylinder"\n'
                    "diameter_mm = 20\nheight_mm = 15\n")  # fmt: skip
    falcon = load_shapes("gimmel", str(mine))["falcon"]
    assert falcon.size("diameter_mm") == 20.0 and falcon.height_mm == 15.0
    ring = falcon.points[falcon.points[:, 2] == 0.0]
    assert np.hypot(ring[:, 0], ring[:, 1]) == pytest.approx(np.full(len(ring), 10.0))
    broken = tmp_path / "broken.toml"
    broken.write_text("shapes = [")
    with pytest.raises(ShapesError, match=r"broken\.toml: not a TOML file"):
        load_shapes("gimmel", str(broken))
    with pytest.raises(ShapesError, match=r"missing\.toml: not readable"):
        load_shapes("gimmel", str(tmp_path / "missing.toml"))
    assert math.isclose(load_shapes("gimmel")["falcon"].size("diameter_mm"), 18.0)
