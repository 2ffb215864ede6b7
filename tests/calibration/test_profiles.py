"""Appearance profiles learnt from two synthetic photos (the empty board, the reference
set-up) under a colour cast: every square's empty look, and each kind of piece of each
colour told apart by colour and silhouette; photos that cannot teach are refused."""

from __future__ import annotations

import json

import numpy as np
import pytest
from scenes import photograph, plane, toy_shapes

from calibration.profiles import (
    Profile,
    ProfileError,
    Settings,
    learn,
    load_setup,
    square_cell,
    square_names,
    view_board,
)
from calibration.sheet import load_sheet

PX_PER_MM, MARGIN_MM = 4.0, 60.0
WARM = (0.75, 0.95, 1.2)  # BGR gains: a warm lamp


@pytest.fixture(scope="module")
def sheet():
    return load_sheet("gimmel")


@pytest.fixture(scope="module")
def setup():
    return load_setup("gimmel")


def photo(sheet, pieces, seed, cast=WARM):
    cells = {square_cell(sheet, name): kind for name, kind in pieces.items()}
    picture = plane(sheet, cells, PX_PER_MM, MARGIN_MM)
    return photograph(picture, np.random.default_rng(seed), cast=cast)


@pytest.fixture(scope="module")
def profile(sheet, setup):
    empty = ("empty.png", photo(sheet, {}, 1))
    laid = ("setup.png", photo(sheet, setup.pieces, 2))
    return learn(empty, laid, sheet, setup, shapes=toy_shapes())


def test_the_setup_fits_the_board_and_names_every_class(sheet, setup):
    assert set(setup.classes) == {f"{c} {k}" for c in ("white", "black")
                                  for k in ("beetle", "cat", "falcon")}  # fmt: skip
    for name in setup.pieces:
        square_cell(sheet, name)  # every square is on the kit's board
    assert len(square_names(sheet)) == sheet.grid.columns * sheet.grid.rows


def test_a_profile_knows_every_square_and_every_kind(profile, sheet, setup):
    assert set(profile.squares) == set(square_names(sheet))
    assert set(profile.pieces) == set(setup.classes)
    # Light and dark squares differ in lightness.
    parity = {name: sum(square_cell(sheet, name)) % 2 for name in profile.squares}
    light = [s["lab"][0] for name, s in profile.squares.items() if parity[name] == 0]
    dark = [s["lab"][0] for name, s in profile.squares.items() if parity[name] == 1]
    assert min(light) > max(dark) + 20  # every square of a shade alike, the shades apart
    # Learnt under a neutral light instead, the squares look the same: the lamp's colour
    # was corrected away by the markers' white.
    plain = (1.0, 1.0, 1.0)
    empty, laid = photo(sheet, {}, 11, cast=plain), photo(sheet, setup.pieces, 12, cast=plain)
    neutral = learn(("e.png", empty), ("s.png", laid), sheet, setup)
    differences = [
        np.linalg.norm(np.subtract(profile.squares[n]["lab"], neutral.squares[n]["lab"]))
        for n in profile.squares
    ]
    assert np.median(differences) < 3 and max(differences) < 6
    whites = [profile.pieces[f"white {k}"]["lab"][0] for k in ("beetle", "cat", "falcon")]
    blacks = [profile.pieces[f"black {k}"]["lab"][0] for k in ("beetle", "cat", "falcon")]
    assert min(whites) > max(blacks) + 40
    # The kinds differ by their share of the square: a falcon's disc covers the most.
    shares = {k: profile.pieces[f"white {k}"]["share"][0] for k in ("beetle", "cat", "falcon")}
    assert shares["falcon"] > shares["cat"] and shares["falcon"] > shares["beetle"]
    # Every set-up piece was also seen as a reader sees it: its blob's colour and shape
    # (calibration/blobs.py), the cat's filling its smallest enclosing triangle best.
    for kind, seen in profile.pieces.items():
        assert [e["square"] for e in seen["instances"]] == [
            n for n, k in load_setup("gimmel").pieces.items() if k == kind
        ]
    fill = {k: np.mean([e["shape"][2] for e in profile.pieces[f"black {k}"]["instances"]])
            for k in ("beetle", "cat", "falcon")}  # fmt: skip
    assert fill["cat"] > fill["beetle"] and fill["cat"] > fill["falcon"]


def test_a_profile_reads_another_photo_under_another_light(profile, sheet):
    """The use a reader makes of it: a new layout under a cold light, read by the Gimmel
    reader against the profile, every piece and every empty square right."""
    from vision.readers import gimmel

    layout = {"a1": "black cat", "h18": "white falcon", "d9": "white beetle", "e10": "black beetle",
              "c2": "white cat", "f3": "black falcon", "g12": "white cat"}  # fmt: skip
    seen = gimmel.read(photo(sheet, layout, 7, cast=(1.2, 1.0, 0.8)), sheet, profile)
    assert seen.pieces == layout
    assert not seen.unknown


def test_a_profile_round_trips_and_refuses_another(profile, tmp_path):
    path = tmp_path / "gimmel-profile.json"
    profile.save(path)
    again = Profile.load(path, game="gimmel", sheet=profile.sheet)
    assert again.squares == profile.squares and again.pieces == profile.pieces
    with pytest.raises(ProfileError, match="a profile of gimmel, not nil"):
        Profile.load(path, game="nil")
    data = profile.to_json() | {"version": 99}
    with pytest.raises(ProfileError, match="profile version 99"):
        Profile.from_json(data)
    (tmp_path / "bad.json").write_text("{")
    with pytest.raises(ProfileError, match="not a readable profile"):
        Profile.load(tmp_path / "bad.json")
    # The pieces' shapes it was learnt with come back, and a reader fits the same.
    assert again.shapes == profile.shapes and again.piece_shapes.kinds == (
        "falcon",
        "cat",
        "beetle",
    )
    assert again.piece_shapes["falcon"].height_mm == 0.5  # the test photos' flat pieces
    assert again.palettes == profile.palettes and again.lamp == profile.lamp
    broken = profile.to_json()
    broken["shapes"] = {"shapes": 1, "game": "gimmel", "falcon": {"form": "cube"}}
    with pytest.raises(ProfileError, match=r"profile: shapes: \[falcon\] form"):
        Profile.from_json(broken)
    broken = profile.to_json() | {"lamp": [1, 2]}
    with pytest.raises(ProfileError, match=r"lamp: expected \[x, y, height\] or null"):
        Profile.from_json(broken)
    # Where the camera stood for the photos comes back; a profile learnt before it was
    # kept loads without it; a malformed one is refused by name.
    assert again.eye == profile.eye and len(profile.eye) == 3 and profile.eye[2] > 0
    older = profile.to_json()
    del older["eye"]
    assert Profile.from_json(older).eye is None
    for eye in ([1, 2], [1, 2, "high"], [1, 2, float("nan")], "above"):
        broken = profile.to_json() | {"eye": eye}
        with pytest.raises(ProfileError, match=r"eye: expected \[x, y, height\] or null"):
            Profile.from_json(broken)
    # So do the pieces' sides' colours (the fit's colour where a top mirrors the lamp);
    # a profile learnt before they were kept loads without them, the fit then comparing
    # sides with the whole palettes; malformed ones are refused by name.
    # (These flat test pieces are all top: they show no side to learn from.)
    assert profile.side_palettes == {} == again.side_palettes
    sides = {"white": [[60.0, 0.5, 3.0]], "black": [[18.0, 0.2, -0.4], [24.0, 0.0, 0.1]]}
    kept = Profile.from_json(json.loads(json.dumps(profile.to_json() | {"side_palettes": sides})))
    assert kept.side_palettes == sides
    del older["side_palettes"]
    assert Profile.from_json(older).side_palettes == {}
    for sides in ([[1, 2, 3]], {"white": [[1, 2]]}, {"white": []}):
        broken = profile.to_json() | {"side_palettes": sides}
        with pytest.raises(ProfileError, match="side_palettes: expected lists of Lab colours"):
            Profile.from_json(broken)


def test_photos_that_cannot_teach_are_refused(sheet, setup):
    empty = ("empty.png", photo(sheet, {}, 1))
    with pytest.raises(ProfileError, match=r"setup\.png: no piece seen on .*b3"):
        learn(empty, ("setup.png", photo(sheet, {}, 3)), sheet, setup)  # forgot the set-up
    black = ("dark.png", np.zeros((720, 1280, 3), np.uint8))
    with pytest.raises(ProfileError, match=r"dark\.png: "):
        learn(black, ("setup.png", photo(sheet, setup.pieces, 2)), sheet, setup)


def test_learning_reports_each_photo(sheet, setup):
    said = []
    learn(("e.png", photo(sheet, {}, 4)), ("s.png", photo(sheet, setup.pieces, 5)), sheet, setup,
          settings=Settings(), progress=lambda name, word: said.append((name, word)))  # fmt: skip
    assert [name for name, _ in said] == ["e.png", "s.png", "s.png", "s.png"]
    assert "board found" in said[0][1] and "learnt 6 kinds" in said[-2][1]
    # The pieces' shapes are known: their colours are learnt apart from their shadows,
    # and the lamp placed (or said to be too even to place).
    assert "colours apart from their shadows" in said[-1][1]
    assert "lamp" in said[-1][1]


def test_a_piece_or_two_too_like_its_square_are_passed_over_and_named(sheet, setup):
    """A set-up photo with one piece missing still teaches every kind (each has other
    examples), and the report names the square passed over; a quarter of the squares
    missing is a photo that does not show the set-up."""
    said = []
    one_short = {name: kind for name, kind in setup.pieces.items() if name != "b3"}
    profile = learn(("e.png", photo(sheet, {}, 4)), ("s.png", photo(sheet, one_short, 5)),
                    sheet, setup, progress=lambda name, word: said.append(word))  # fmt: skip
    assert "b3" not in [e["square"] for e in profile.pieces["white beetle"]["instances"]]
    assert any("passed over b3" in word for word in said)
    assert "learnt 6 kinds of piece on 23 squares" in said[-2]
    gone = sorted(setup.pieces)[: len(setup.pieces) // 4 + 1]
    sparse = {name: kind for name, kind in setup.pieces.items() if name not in gone}
    with pytest.raises(ProfileError, match="no piece seen on " + ", ".join(gone)):
        learn(("e.png", photo(sheet, {}, 4)), ("s.png", photo(sheet, sparse, 5)), sheet, setup)


def test_more_set_up_photos_add_their_pieces_as_examples(sheet, setup):
    """Each further photo of the set-up (its pieces nudged between photos) adds an
    example of every piece it shows; the first alone teaches the palettes and the lamp,
    and a further photo that is not of the set-up is refused by its name."""
    empty = ("e.png", photo(sheet, {}, 4))
    first = ("s1.png", photo(sheet, setup.pieces, 5))
    said = []
    one = learn(empty, first, sheet, setup, shapes=toy_shapes())
    three = learn(empty, first, sheet, setup, shapes=toy_shapes(),
                  more_setups=[("s2.png", photo(sheet, setup.pieces, 6)),
                               ("s3.png", photo(sheet, setup.pieces, 7))],
                  progress=lambda name, word: said.append((name, word)))  # fmt: skip
    for kind in setup.classes:
        before = one.pieces[kind]["instances"]
        after = three.pieces[kind]["instances"]
        assert after[: len(before)] == before and len(after) == 3 * len(before)
        assert {e["square"] for e in after} == {e["square"] for e in before}
    assert three.palettes == one.palettes and three.lamp == one.lamp
    assert three.photos == ["e.png", "s1.png", "s2.png", "s3.png"]
    assert [name for name, _ in said][:4] == ["e.png", "s1.png", "s2.png", "s3.png"]
    assert any("72 examples from 3 photos of the set-up" in word for _, word in said)
    with pytest.raises(ProfileError, match=r"bare\.png: no piece seen on"):
        learn(empty, first, sheet, setup, shapes=toy_shapes(),
              more_setups=[("bare.png", photo(sheet, {}, 8))])  # fmt: skip


def test_the_setup_turned_puts_each_piece_on_the_opposite_square_of_its_own_colour(sheet, setup):
    """The set-up turned half a turn about the board's middle (docs/calibration.md,
    "Appearance profiles"): every piece on the square opposite its own, so that the two
    layouts show every kind near the camera's end of the board and far from it."""
    turned = setup.turned(sheet)
    assert turned.pieces["a1"] == setup.pieces["h18"] == "black beetle"
    assert turned.pieces["h18"] == setup.pieces["a1"] == "black cat"
    assert turned.pieces["g16"] == setup.pieces["b3"] == "white beetle"
    assert sorted(turned.pieces.values()) == sorted(setup.pieces.values())
    assert turned.turned(sheet) == setup
    names, columns, rows = square_names(sheet), sheet.grid.columns, sheet.grid.rows
    for name, kind in setup.pieces.items():
        row, column = square_cell(sheet, name)
        opposite = names[(rows - 1 - row) * columns + (columns - 1 - column)]
        assert turned.pieces[opposite] == kind
        # Light stays light, dark stays dark: 8 x 18 squares, even along both sides.
        assert sum(square_cell(sheet, opposite)) % 2 == (row + column) % 2


def test_photos_of_the_setup_turned_teach_the_pieces_where_the_turned_layout_has_them(sheet, setup):
    """A photo of the set-up turned (``turned_setups``, ``companion calibrate board
    --turned``) adds each piece as an example standing on its turned square; the same
    photo given as a photo of the set-up itself is refused, naming its bare squares."""
    empty = ("e.png", photo(sheet, {}, 4))
    first = ("s1.png", photo(sheet, setup.pieces, 5))
    turned = setup.turned(sheet)
    round_ = ("t1.png", photo(sheet, turned.pieces, 6))
    said = []
    both = learn(empty, first, sheet, setup, shapes=toy_shapes(), turned_setups=[round_],
                 progress=lambda name, word: said.append((name, word)))  # fmt: skip
    for kind in setup.classes:
        squares = [e["square"] for e in both.pieces[kind]["instances"]]
        own = sorted(n for n, k in setup.pieces.items() if k == kind)
        opposite = sorted(n for n, k in turned.pieces.items() if k == kind)
        assert sorted(squares[: len(own)]) == own and sorted(squares[len(own) :]) == opposite
    assert both.photos == ["e.png", "s1.png", "t1.png"]
    assert any("48 examples from 2 photos of the set-up, 1 of them turned" in word
               for _, word in said)  # fmt: skip
    with pytest.raises(ProfileError, match=r"t1\.png: no piece seen on"):
        learn(empty, first, sheet, setup, shapes=toy_shapes(), more_setups=[round_])


def test_the_frame_around_the_grid_is_known_so_an_edge_piece_is_not_joined_to_it(profile, sheet):
    """The reading's picture has a margin around the grid (where a piece on an edge
    square may lean over): the profile knows the frame's colour there, so on the bare
    board nothing differs from the empty board, neither in the squares nor around them."""
    settings = profile.settings
    view = view_board(photo(sheet, {}, 21), sheet, settings=settings, shape=True)
    difference = profile.difference(view.lab, sheet)
    # The frame's band left and right of the grid, short of the grid's own edge line and
    # of the corners (where the markers' white paper is).
    band = int(settings.shape_margin_mm * settings.shape_px_per_mm) - 1
    rows = slice(10, difference.shape[0] - 10)
    frame = np.concatenate([difference[rows, :band].ravel(), difference[rows, -band:].ravel()])
    assert profile.frame is not None and frame.size > 500
    assert float(np.median(frame)) < settings.piece_delta_e / 2
    # A profile that did not know the frame would see it as a piece all round.
    blind = Profile.from_json(profile.to_json() | {"frame": [0.0, 0.0, 0.0]})
    assert float(np.median(blind.difference(view.lab, sheet)[rows, :band])) > settings.piece_delta_e
