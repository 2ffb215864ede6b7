"""`companion read gimmel` on rendered frames prints the position that was rendered: the
whole path a user takes, through the commands, from rendered photos only (chessboard
photos for the camera, the board's two photos for the profile, then a play frame)."""

from __future__ import annotations

import json

import pytest

from companion.cli import main
from vision.render.series import render_series, series_table

#: Tables whose play frame has no hand over it and many pieces.
SEEDS = (10, 12)


@pytest.mark.parametrize("seed", SEEDS)
def test_read_prints_the_rendered_position(seed, tmp_path, capsys):
    table = series_table("gimmel", seed)
    cards = []
    for index, rendered in enumerate(render_series("gimmel", seed, 12, "calibration", table=table)):
        path = tmp_path / f"card-{index:02d}.jpg"
        path.write_bytes(rendered.jpeg)
        cards.append(str(path))
    camera = tmp_path / "camera.json"
    assert main(["calibrate", "camera", *cards, "--pattern", "9x6", "--square-mm", "25",
                 "--out", str(camera)]) == 0  # fmt: skip
    photos = []
    for rendered in render_series("gimmel", seed, 2, "board", table=table):
        path = tmp_path / f"board-{rendered.truth['photo']}.jpg"
        path.write_bytes(rendered.jpeg)
        photos.append(str(path))
    profile = tmp_path / "profile.json"
    assert main(["calibrate", "board", "gimmel", *photos, "--out", str(profile),
                 "--camera", str(camera)]) == 0  # fmt: skip
    (play,) = render_series("gimmel", seed, 1, "play", table=table)
    frame = tmp_path / "play.jpg"
    frame.write_bytes(play.jpeg)
    capsys.readouterr()
    assert main(["read", "gimmel", str(frame), "--calibration", str(profile),
                 "--camera", str(camera)]) == 0  # fmt: skip
    (line,) = [json.loads(text) for text in capsys.readouterr().out.splitlines()]
    assert not play.truth["unknown"] and len(play.truth["position"]) > 20
    assert line["image"] == "play.jpg"
    assert line["pieces"] == play.truth["position"] and line["unknown"] == []
