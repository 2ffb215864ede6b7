"""The renderer (``vision/render``): reproducible from a seed, and its ground truth agrees
with what the real calibration and registration find in its frames.

A handful of small series: the board's grid where ``calibration.registration`` finds
it, the rendered pieces on exactly the truth's squares, a hand's hidden squares really
hidden, chessboard photos that calibrate to the true intrinsics, and board photos that
teach an appearance profile."""

from __future__ import annotations

import io
import json

import cv2
import numpy as np
import pytest

from calibration.camera import calibrate, make_pattern
from calibration.profiles import learn, load_setup
from calibration.registration import apply_homography, camera_model, register
from calibration.sheet import load_sheet
from rules import get_game
from vision.render.command import render_command
from vision.render.frame import render_frame
from vision.render.series import (
    PLAY,
    RenderError,
    play_frame,
    play_state,
    render_series,
    series_table,
    stream,
)
from vision.render.truth import central_areas, position_of, square_names

SEED = 3


@pytest.fixture(scope="module")
def table():
    return series_table("gimmel", SEED)


def square_differences(truth: dict, a: np.ndarray, b: np.ndarray, sheet) -> dict[str, int]:
    """Each square's largest grey difference between two frames over its central area,
    placed in the frame by the truth's homography and lens."""
    diff = cv2.cvtColor(cv2.absdiff(a, b), cv2.COLOR_BGR2GRAY)
    homography = np.array(truth["homography"])
    lens = camera_model(truth["camera"])
    out = {}
    for name, box in zip(square_names(sheet), central_areas(sheet), strict=True):
        px = lens.distort(apply_homography(homography, box))
        mask = np.zeros(diff.shape, np.uint8)
        cv2.fillConvexPoly(mask, np.rint(px * 16).astype(np.int32), 1, cv2.LINE_8, 4)
        out[name] = int(diff[mask > 0].max())
    return out


def neighbours(names) -> set[str]:
    from rules.grid import Square

    near = set()
    for name in names:
        square = Square.parse(name)
        for dc in (-1, 0, 1):
            for dr in (-1, 0, 1):
                near.add(str(Square(square.col + dc, square.row + dr)))
    return near


def test_the_same_seed_gives_byte_identical_files(tmp_path):
    outputs = []
    for name in ("a", "b"):
        text = io.StringIO()
        assert (
            render_command("gimmel", seed=11, count=2, out=str(tmp_path / name), stream=text) == 0
        )
        outputs.append(text.getvalue().splitlines())
    assert outputs[0][:2] == outputs[1][:2] and len(outputs[0]) == 3
    assert outputs[0][0].startswith("frame-0001.jpg: ply ")
    assert outputs[0][2].startswith("rendered 2 play frames of gimmel (seed 11) into ")
    files = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert files == ["frame-0001.jpg", "frame-0001.json", "frame-0002.jpg", "frame-0002.json"]
    for file in files:
        assert (tmp_path / "a" / file).read_bytes() == (tmp_path / "b" / file).read_bytes(), file
    truth = json.loads((tmp_path / "a" / "frame-0002.json").read_text(encoding="utf-8"))
    assert truth["image"] == "frame-0002.jpg" and truth["seed"] == 11 and truth["frame"] == 2
    image = cv2.imread(str(tmp_path / "a" / "frame-0002.jpg"))
    assert image.shape == (720, 1280, 3)
    # Another seed is another table and other positions.
    other = io.StringIO()
    render_command("gimmel", seed=12, count=1, out=str(tmp_path / "c"), stream=other)
    assert (tmp_path / "c" / "frame-0001.jpg").read_bytes() != (
        tmp_path / "a" / "frame-0001.jpg"
    ).read_bytes()


def test_render_board_writes_the_empty_board_then_the_set_up_photos(tmp_path, capsys):
    """``companion render --kind board``: by default the two photos calibrating needs
    (as before further set-up photos could be asked for); ``--count 3`` one more."""
    from companion.cli import main

    assert main(["render", "gimmel", "--seed", "11", "--kind", "board", "--out",
                 str(tmp_path / "two")]) == 0  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("frame-0001.jpg: empty board, 0 pieces")
    assert lines[1].startswith("frame-0002.jpg: setup board, 24 pieces") and len(lines) == 3
    assert main(["render", "gimmel", "--seed", "11", "--kind", "board", "--count", "3",
                 "--out", str(tmp_path / "three")]) == 0  # fmt: skip
    assert capsys.readouterr().out.splitlines()[2].startswith("frame-0003.jpg: setup board")
    for name in ("frame-0001.jpg", "frame-0002.jpg"):
        assert (tmp_path / "two" / name).read_bytes() == (tmp_path / "three" / name).read_bytes()


def test_a_series_frame_is_the_same_whatever_the_count(table):
    first = next(render_series("gimmel", SEED, 3, table=table))
    again = play_frame(table, SEED, 0)
    assert first.jpeg == again.jpeg and first.truth == again.truth


def test_the_truths_homography_is_where_the_registration_finds_the_board(table):
    sheet = table.sheet
    corners = sheet.grid.corners()
    for index in range(3):
        rendered = play_frame(table, SEED, index, hand=False)
        truth = rendered.truth
        assert truth["markers"]["visible"] == [0, 1, 2, 3]
        registration = register(rendered.image, sheet, camera=truth["camera"])
        assert registration.used == (0, 1, 2, 3)
        found = registration.to_image(corners)
        assert np.abs(found - np.array(truth["grid_corners_px"])).max() < 1.0
        undistorted = apply_homography(np.array(truth["homography"]), corners)
        fitted = apply_homography(registration.homography, corners)
        assert np.abs(undistorted - fitted).max() < 1.0
    # Another table: another camera, lens and pose.
    other = series_table("gimmel", 5)
    rendered = play_frame(other, 5, 0, hand=False)
    registration = register(rendered.image, other.sheet, camera=rendered.truth["camera"])
    assert np.abs(registration.to_image(corners) - rendered.truth["grid_corners_px"]).max() < 1.0


def test_the_truths_position_is_the_states_and_the_pieces_stand_there(table):
    game = get_game("gimmel")
    sheet = table.sheet
    for index in range(2):
        rendered = play_frame(table, SEED, index, hand=False)
        truth = rendered.truth
        state = game.state_from_json(truth["state"])
        expected = {}
        for square, piece in zip(state.grid.squares, state.board, strict=True):
            if piece is not None:
                colour = "white" if piece.owner == state.white else "black"
                expected[str(square)] = f"{colour} {piece.kind.value}"
        assert truth["position"] == expected
        assert truth["position"]
        # The same frame with the board cleared differs on every occupied square's
        # centre, and nowhere away from the pieces.
        state_rng, frame_rng = stream(SEED, PLAY, index).spawn(2)
        assert position_of(play_state("gimmel", state_rng)) == expected
        empty = render_frame(table, {}, frame_rng, hand=False)
        changed = square_differences(truth, rendered.image, empty.image, sheet)
        assert min(changed[name] for name in expected) > 25
        away = [name for name in changed if name not in neighbours(expected)]
        assert away and max(changed[name] for name in away) <= 2


def test_the_squares_under_a_hand_are_listed_and_hidden(table):
    sheet = table.sheet
    seen_hands = 0
    for index in range(4):
        with_hand = play_frame(table, SEED, index, hand=True)
        without = play_frame(table, SEED, index, hand=False)
        assert without.truth["unknown"] == [] and without.truth["render"]["hand"] is None
        assert with_hand.truth["position"] == without.truth["position"]
        assert with_hand.truth["camera"] == without.truth["camera"]
        if with_hand.truth["render"]["hand"] is None:
            continue
        seen_hands += 1
        unknown = with_hand.truth["unknown"]
        changed = square_differences(with_hand.truth, with_hand.image, without.image, sheet)
        # Every listed square changed, and most of them clearly: a hand's skin can come
        # out close to the colour of the squares it hides (dark skin over brown squares),
        # so a hidden square need not change much.
        assert all(changed[name] > 2 for name in unknown), {n: changed[n] for n in unknown}
        clearly = [name for name in unknown if changed[name] > 20]
        assert len(clearly) >= 0.5 * len(unknown), {n: changed[n] for n in unknown}
    assert seen_hands >= 3


def test_hands_cover_squares_and_markers_in_some_frames(table):
    covered_squares = covered_markers = 0
    for index in range(12):
        truth = play_frame(table, SEED, index, hand=True).truth
        covered_squares += bool(truth["unknown"])
        covered_markers += bool(truth["markers"]["covered"])
        for marker in truth["markers"]["covered"]:
            assert marker not in truth["markers"]["visible"]
    assert covered_squares >= 4 and covered_markers >= 1


def test_the_calibration_photos_give_the_true_intrinsics(table):
    photos = list(render_series("gimmel", SEED, 12, "calibration", table=table))
    truth = photos[0].truth
    assert truth["kind"] == "calibration" and len(truth["corners_px"]) == 54
    result = calibrate(
        [(f"card-{k}.jpg", p.image) for k, p in enumerate(photos)],
        make_pattern("9x6", 25),
        fix_aspect=True,
    )
    true = np.array(truth["camera"]["camera_matrix"])
    found = np.array(result.camera_matrix)
    assert abs(found[0, 0] - true[0, 0]) / true[0, 0] < 0.02
    assert abs(found[1, 1] - true[1, 1]) / true[1, 1] < 0.02
    assert abs(found[0, 2] - true[0, 2]) < 0.01 * 1280
    assert abs(found[1, 2] - true[1, 2]) < 0.01 * 720
    assert result.rms < 0.5


def test_the_board_photos_teach_a_profile(table):
    empty, laid = render_series("gimmel", SEED, 0, "board", table=table)
    assert empty.truth["photo"] == "empty" and empty.truth["position"] == {}
    setup = load_setup("gimmel")
    assert laid.truth["photo"] == "setup" and laid.truth["position"] == setup.pieces
    profile = learn(
        ("empty.jpg", empty.image),
        ("setup.jpg", laid.image),
        table.sheet,
        setup,
        camera=empty.truth["camera"],
    )
    assert set(profile.pieces) == set(setup.classes)


def test_further_board_photos_show_the_set_up_placed_anew(table):
    """``count`` board photos: the empty board, then the set-up ``count - 1`` times, the
    first two as a series of two has them (each frame its own stream), each further
    one with its pieces placed anew on the same squares."""
    two = list(render_series("gimmel", SEED, 2, "board", table=table))
    four = list(render_series("gimmel", SEED, 4, "board", table=table))
    assert [r.truth["photo"] for r in four] == ["empty", "setup", "setup", "setup"]
    assert [r.jpeg for r in four[:2]] == [r.jpeg for r in two]
    setup = load_setup("gimmel")
    assert all(r.truth["position"] == setup.pieces for r in four[1:])
    assert four[2].jpeg != four[1].jpeg and four[3].jpeg != four[2].jpeg


def test_the_last_board_photos_can_show_the_set_up_turned(table, tmp_path, capsys):
    """``companion render --kind board --count 4 --turned 1``: the last set-up photo
    shows the set-up turned half a turn (``SetUp.turned``), its truth saying so; the
    photos before it are those of an unturned series. Turning every set-up photo, or a
    play frame, is refused before anything is written."""
    from companion.cli import main

    setup = load_setup("gimmel")
    plain = list(render_series("gimmel", SEED, 4, "board", table=table))
    turned = list(render_series("gimmel", SEED, 4, "board", table=table, turned=1))
    assert [r.jpeg for r in turned[:3]] == [r.jpeg for r in plain[:3]]
    assert turned[3].truth["position"] == setup.turned(load_sheet("gimmel")).pieces
    assert turned[3].truth["turned"] is True and "turned" not in turned[2].truth
    assert main(["render", "gimmel", "--seed", "11", "--kind", "board", "--count", "3",
                 "--turned", "1", "--out", str(tmp_path / "t")]) == 0  # fmt: skip
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].startswith("frame-0002.jpg: setup board, 24 pieces")
    assert lines[2].startswith("frame-0003.jpg: setup board, the set-up turned, 24 pieces")
    with pytest.raises(RenderError, match=r"turned: expected 0 to 1 of the 2 set-up photos"):
        render_command("gimmel", seed=1, count=3, out=str(tmp_path / "x"),
                       stream=io.StringIO(), kind="board", turned=2)  # fmt: skip
    with pytest.raises(RenderError, match="only board photos"):
        render_command("gimmel", seed=1, count=3, out=str(tmp_path / "y"),
                       stream=io.StringIO(), turned=1)  # fmt: skip
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()


def test_play_positions_mix_openings_and_middle_games():
    plies, pieces = [], []
    for index in range(24):
        state = play_state("gimmel", stream(SEED, PLAY, index).spawn(2)[0])
        plies.append(state.ply)
        pieces.append(sum(p is not None for p in state.board))
    assert min(plies) <= 16 < max(plies)
    assert min(pieces) <= 8 and max(pieces) >= 18


def test_unknown_games_and_kinds_are_refused(tmp_path):
    with pytest.raises(RenderError, match="uraeus"):
        render_command("uraeus", seed=1, count=1, out=str(tmp_path / "x"), stream=io.StringIO())
    with pytest.raises(RenderError, match="kind"):
        render_command(
            "gimmel", seed=1, count=1, out=str(tmp_path / "y"), stream=io.StringIO(), kind="movie"
        )
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()
