"""`companion calibrate camera` on OpenCV's own sample photos prints a line a photo and
the figures OpenCV published, and writes the calibration file (docs/calibration.md)."""

from __future__ import annotations

import json

from companion.cli import main


def test_calibrate_camera_prints_and_writes_opencvs_figures(opencv_calib_left, tmp_path, capsys):
    published = json.loads((opencv_calib_left / "published_ground_truth.json").read_text())
    truth = published["left_intrinsics"]
    photos = [str(opencv_calib_left / name) for name in published["image_list"]]
    out = tmp_path / "camera.json"
    code = main(["calibrate", "camera", *photos, "--pattern", "9x6", "--square-mm", "25",
                 "--fix-aspect", "--out", str(out)])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0
    lines = printed.splitlines()
    assert [line.split()[0] for line in lines[: len(photos)]] == published["image_list"]
    assert all(line.endswith("found 54 corners") for line in lines[: len(photos)])
    fx = float(printed.split("fx ")[1].split()[0])
    cx = float(printed.split("cx ")[1].split()[0])
    cy = float(printed.split("cy ")[1].split()[0])
    rms = float(printed.split("rms ")[1].split()[0])
    matrix = truth["camera_matrix"]
    assert abs(fx - matrix[0][0]) < 1 and abs(cx - matrix[0][2]) < 1 and abs(cy - matrix[1][2]) < 1
    assert abs(rms - truth["avg_reprojection_error"]) < 0.02
    written = json.loads(out.read_text())
    assert written["calibration"] == "camera" and abs(written["rms"] - rms) < 1e-3


def test_calibrate_camera_names_what_it_cannot_use(opencv_calib_left, tmp_path, capsys):
    text = tmp_path / "notes.txt"
    text.write_text("not a photo")
    photo = str(opencv_calib_left / "left01.jpg")
    code = main(["calibrate", "camera", str(text), photo, "--pattern", "9x6", "--square-mm", "25",
                 "--out", str(tmp_path / "c.json")])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 2 and "notes.txt   unreadable" in out
    assert "1 usable photo" in err and "at least 3 needed" in err
    assert not (tmp_path / "c.json").exists()
