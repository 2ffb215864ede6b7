"""The camera commands a user runs: `companion markers`, `companion calibrate board` and
`companion camera check`, on synthetic photos through the real frame source."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest
from scenes import TOY_SHAPES_TOML, photograph, plane

from calibration.markers import png_dpi
from calibration.profiles import Profile, load_setup, square_cell
from calibration.sheet import load_sheet
from companion.cli import main


@pytest.fixture(scope="module")
def sheet():
    return load_sheet("gimmel")


def photo_file(path, sheet, pieces, seed, covered=()):
    cells = {square_cell(sheet, name): kind for name, kind in pieces.items()}
    frame = photograph(plane(sheet, cells, 4.0, 60.0), np.random.default_rng(seed))
    for x0, y0, x1, y1 in covered:  # a hand over part of the view
        frame[y0:y1, x0:x1] = (60, 80, 120)
    cv2.imwrite(str(path), frame)
    return path


def test_markers_writes_a_true_scale_sheet(tmp_path, capsys):
    assert main(["markers", "gimmel", "--out", str(tmp_path / "sheet.png")]) == 0
    out = capsys.readouterr().out
    assert "written" in out and "100 %" in out
    assert png_dpi((tmp_path / "sheet.png").read_bytes()) == pytest.approx(300, abs=0.5)
    assert main(["markers", "gimmel", "--out", str(tmp_path / "sheet.pdf")]) == 0
    assert (tmp_path / "sheet.pdf").read_bytes().startswith(b"%PDF")
    assert main(["markers", "gimmel", "--out", str(tmp_path / "sheet.gif")]) == 2
    assert ".png or .pdf" in capsys.readouterr().err


def test_calibrate_board_learns_a_profile_from_its_photos(tmp_path, sheet, capsys):
    setup = load_setup("gimmel")
    empty = photo_file(tmp_path / "empty.png", sheet, {}, 1)
    laid = photo_file(tmp_path / "setup.png", sheet, setup.pieces, 2)
    out = tmp_path / "profile.json"
    assert main(["calibrate", "board", "gimmel", str(empty), str(laid), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "empty.png  board found" in printed and "written to" in printed
    profile = Profile.load(out, game="gimmel", sheet=sheet.name)
    assert len(profile.pieces) == 6
    # The photos the other way round: the set-up's squares show no piece.
    assert main(["calibrate", "board", "gimmel", str(laid), str(empty), "--out", str(out)]) == 2
    assert "give the empty board's photo first" in capsys.readouterr().err
    assert main(["calibrate", "board", "gimmel", str(empty), "--out", str(out)]) == 2
    assert "expected the empty board's photo and then one or more" in capsys.readouterr().err
    # Further set-up photos: each adds its pieces as examples.
    again = photo_file(tmp_path / "setup2.png", sheet, setup.pieces, 3)
    assert main(["calibrate", "board", "gimmel", str(empty), str(laid), str(again),
                 "--out", str(out)]) == 0  # fmt: skip
    assert "setup2.png  board found" in capsys.readouterr().out
    more = Profile.load(out, game="gimmel", sheet=sheet.name)
    assert more.photos == ["empty.png", "setup.png", "setup2.png"]
    assert all(len(more.pieces[k]["instances"]) == 2 * len(profile.pieces[k]["instances"])
               for k in profile.pieces)  # fmt: skip
    # A photo of the set-up turned half a turn, said so: its pieces stand on the squares
    # opposite theirs. Given as a photo of the set-up itself, it is refused by its name.
    round_ = photo_file(tmp_path / "turned.png", sheet, setup.turned(sheet).pieces, 4)
    assert main(["calibrate", "board", "gimmel", str(empty), str(laid), "--out", str(out),
                 "--turned", str(round_)]) == 0  # fmt: skip
    assert "turned.png  board found" in capsys.readouterr().out
    turned = Profile.load(out, game="gimmel", sheet=sheet.name)
    assert turned.photos == ["empty.png", "setup.png", "turned.png"]
    assert {e["square"] for e in turned.pieces["black cat"]["instances"]} == {
        "f7", "b16", "a1", "h15", "c12", "g3", "h18", "a4"}  # fmt: skip
    assert main(["calibrate", "board", "gimmel", str(empty), str(laid), str(round_),
                 "--out", str(out)]) == 2  # fmt: skip
    assert "turned.png: no piece seen on" in capsys.readouterr().err
    # A shapes file for the pieces that cannot be used: named, and nothing learnt.
    broken = tmp_path / "pieces.toml"
    broken.write_text('shapes = 1\ngame = "gimmel"\n[falcon]\nform = "sphere"\n')
    out.unlink()
    assert main(["calibrate", "board", "gimmel", str(empty), str(laid), "--out", str(out),
                 "--pieces", str(broken)]) == 2  # fmt: skip
    assert "pieces.toml: [falcon] form" in capsys.readouterr().err and not out.exists()


def test_camera_check_writes_the_board_square_on(tmp_path, sheet, capsys):
    folder = tmp_path / "frames"
    folder.mkdir()
    photo_file(folder / "frame1.png", sheet, {"c3": "white falcon"}, 5)
    picture = tmp_path / "check.png"
    code = main(["camera", "check", "gimmel", "--source", f"folder:{folder}", "--out",
                 str(picture), "--json"])  # fmt: skip
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["board"]["markers_used"] == [0, 1, 2, 3]
    assert report["board"]["rms_mm"] < 1.0
    checked = cv2.imread(str(picture))
    grid = sheet.grid
    # Square-on at 2 px per mm with a 5 mm margin: the board's shape, not the camera's.
    assert checked.shape[:2] == (round((grid.height_mm + 10) * 2), round((grid.width_mm + 10) * 2))


def test_camera_check_says_when_the_board_is_not_visible(tmp_path, sheet, capsys):
    folder = tmp_path / "frames"
    folder.mkdir()
    (folder / "frame1.png").write_bytes(cv2.imencode(".png", np.zeros((720, 1280, 3), np.uint8))[1])
    code = main(["camera", "check", "gimmel", "--source", f"folder:{folder}", "--out",
                 str(tmp_path / "check.png")])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 1 and "board not visible" in out and (tmp_path / "check.png").exists()


def test_camera_check_refuses_a_calibration_of_another_camera(
    tmp_path, sheet, opencv_calib_left, capsys
):
    """A calibration made at 640x480 does not fit 1280x720 frames: said, not guessed."""
    photos = sorted(str(p) for p in opencv_calib_left.glob("left*.jpg"))
    camera_file = tmp_path / "camera.json"
    assert main(["calibrate", "camera", *photos, "--pattern", "9x6", "--square-mm", "25",
                 "--out", str(camera_file), "--json"]) == 0  # fmt: skip
    capsys.readouterr()
    folder = tmp_path / "frames"
    folder.mkdir()
    photo_file(folder / "frame1.png", sheet, {}, 6)
    code = main(["camera", "check", "gimmel", "--source", f"folder:{folder}", "--calibration",
                 str(camera_file), "--out", str(tmp_path / "c.png")])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and "1280x720" in err and "640x480" in err
    camera_file.write_text(camera_file.read_text().replace('"version": 1', '"version": 7'))
    code = main(["camera", "check", "gimmel", "--source", f"folder:{folder}", "--calibration",
                 str(camera_file), "--out", str(tmp_path / "c.png")])  # fmt: skip
    assert code == 2 and "version" in capsys.readouterr().err


def test_read_prints_the_position_of_each_photo(tmp_path, sheet, capsys):
    setup = load_setup("gimmel")
    empty = photo_file(tmp_path / "empty.png", sheet, {}, 1)
    laid = photo_file(tmp_path / "setup.png", sheet, setup.pieces, 2)
    profile = tmp_path / "profile.json"
    pieces = tmp_path / "toy-pieces.toml"  # the shapes of the pieces these photos show
    pieces.write_text(TOY_SHAPES_TOML)
    assert main(["calibrate", "board", "gimmel", str(empty), str(laid), "--out", str(profile),
                 "--pieces", str(pieces)]) == 0  # fmt: skip
    layout = {"a1": "black cat", "h18": "white falcon", "d9": "white beetle"}
    first = photo_file(tmp_path / "one.png", sheet, layout, 21)
    second = photo_file(tmp_path / "two.png", sheet, {"c3": "black falcon"}, 22)
    (tmp_path / "broken.png").write_bytes(b"not a png")
    capsys.readouterr()
    code = main(["read", "gimmel", str(first), str(second), str(tmp_path / "broken.png"),
                 "--calibration", str(profile)])  # fmt: skip
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert code == 1  # one photo could not be read, and says so
    assert [line["image"] for line in lines] == ["one.png", "two.png", "broken.png"]
    assert lines[0]["pieces"] == layout and lines[0]["unknown"] == []
    assert lines[1]["pieces"] == {"c3": "black falcon"}
    assert lines[2]["problem"] == "not a readable image"


def test_read_keeps_to_the_pieces_the_rules_put_on_the_board(tmp_path, sheet, capsys):
    """gimmel.de.txt, "1. Spielvorbereitung" (twelve pieces a player, four of each
    kind) and "SPIELVARIANTE", "1. Spielvorbereitung" (eight of each); NOTES.md, Gimmel
    rules 1 and 6. Five white falcons on one board are no Gimmel position: one of them
    is read otherwise, unless the variant is played."""
    setup = load_setup("gimmel")
    empty = photo_file(tmp_path / "empty.png", sheet, {}, 1)
    laid = photo_file(tmp_path / "setup.png", sheet, setup.pieces, 2)
    profile = tmp_path / "profile.json"
    pieces = tmp_path / "toy-pieces.toml"
    pieces.write_text(TOY_SHAPES_TOML)
    assert main(["calibrate", "board", "gimmel", str(empty), str(laid), "--out", str(profile),
                 "--pieces", str(pieces)]) == 0  # fmt: skip
    five = dict.fromkeys(("a1", "c5", "e9", "g13", "h18"), "white falcon")
    photo = photo_file(tmp_path / "five.png", sheet, five, 23)
    capsys.readouterr()
    assert main(["read", "gimmel", str(photo), "--calibration", str(profile),
                 "--option", "variant=true"]) == 0  # fmt: skip
    assert json.loads(capsys.readouterr().out)["pieces"] == five
    assert main(["read", "gimmel", str(photo), "--calibration", str(profile)]) == 0
    read = json.loads(capsys.readouterr().out)
    assert list(read["pieces"].values()).count("white falcon") == 4
    (other,) = [name for name in five if read["pieces"].get(name) != "white falcon"]
    assert read["confidence"][other] == 0.0  # the count chose it, not its looks
    code = main(["read", "gimmel", str(photo), "--calibration", str(profile),
                 "--option", "pieces=5"])  # fmt: skip
    assert code == 2 and "pieces" in capsys.readouterr().err
