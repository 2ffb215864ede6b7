"""The tablet's view of what a table's camera read (``/api/tables/ID/camera.jpg``): the
last frame read, square-on, each occupied square outlined and labelled; and the table's
page links it when the table has a camera. Frames from the demo's rendered table, read
through the real registration, motion gate and reader."""

from __future__ import annotations

import threading

import cv2
import numpy as np
import pytest

from calibration.board_plane import cell_boxes
from calibration.profiles import square_cell
from companion.app import Service, create_app
from companion.camera_source import CameraConfig, CameraSource
from companion.demo_camera import SPEC, TABLE_SEED, learn_profile
from companion.journal import Journal
from companion.tables import Table, TableConfig
from rules.gimmel import DrawLots
from vision.render.live import LiveOptions, LiveTable
from vision.render.series import series_table

PIECES = {"c3": "white beetle", "f9": "black cat", "d14": "black falcon"}
#: What ``CameraSource.view`` draws a piece's outline with (BGR), at its scale and margin.
INK = np.array([230, 120, 20])
PX_PER_MM, MARGIN_MM = 2.0, 5.0


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    table = series_table("gimmel", TABLE_SEED)
    folder = tmp_path_factory.mktemp("camera")
    return table, learn_profile(folder, table, np.random.default_rng(1))


@pytest.fixture
def service(tmp_path):
    journal = Journal(tmp_path / "journal.sqlite")
    gimmel = Table(TableConfig("g", "gimmel", ("Dee", "Eve"), "1"), journal)
    gimmel.play(gimmel.game.move_to_json(DrawLots(white=0)))
    uraeus = Table(TableConfig("u", "uraeus", ("Ada", "Ben", "Cy"), "1"), journal)
    return gimmel, create_app(Service([gimmel, uraeus], lambda: 0.0)).test_client()


def test_the_camera_view_outlines_and_labels_what_was_read(service, rendered):
    gimmel, client = service
    render_table, profile = rendered
    missing = client.get("/api/tables/u/camera.jpg")
    assert missing.status_code == 404 and "has no camera" in missing.get_json()["error"]
    source = CameraSource(gimmel, CameraConfig(SPEC, str(profile)), stop=threading.Event())
    early = client.get("/api/tables/g/camera.jpg")
    assert early.status_code == 404 and "not read the board yet" in early.get_json()["error"]

    live = LiveTable(render_table, PIECES, np.random.default_rng(2), LiveOptions(passing_chance=0))
    for i in range(6):  # still frames: the gate settles and the board is read
        source.step(live.frame().image, i * 0.4)
    reading = source.last_reading
    assert reading is not None and reading.pieces.keys() == PIECES.keys()

    answer = client.get("/api/tables/g/camera.jpg")
    assert answer.status_code == 200 and answer.mimetype == "image/jpeg"
    assert answer.headers["Cache-Control"] == "no-store"
    picture = cv2.imdecode(np.frombuffer(answer.data, np.uint8), cv2.IMREAD_COLOR)
    sheet = source.sheet
    width = (sheet.grid.width_mm + 2 * MARGIN_MM) * PX_PER_MM
    height = (sheet.grid.height_mm + 2 * MARGIN_MM) * PX_PER_MM
    assert abs(picture.shape[1] - width) <= 2 and abs(picture.shape[0] - height) <= 2
    boxes = cell_boxes(sheet, PX_PER_MM, MARGIN_MM)
    inked = np.abs(picture.astype(int) - INK).max(axis=2) < 60
    for name, label in reading.squares.items():
        x0, y0, x1, y1 = boxes[square_cell(sheet, name)]
        marked = int(inked[y0:y1, x0:x1].sum())
        if label == "empty":
            assert marked < 10, name
        else:
            assert marked > 100, (name, label)  # outlined, and its short name written


def test_a_tables_page_links_its_camera_view_when_it_has_a_camera(service, rendered):
    gimmel, client = service
    link = 'href="/api/tables/g/camera.jpg"'
    assert link not in client.get("/tables/g").get_data(as_text=True)
    CameraSource(gimmel, CameraConfig(SPEC, str(rendered[1])), stop=threading.Event())
    assert link in client.get("/tables/g").get_data(as_text=True)
    assert "camera.jpg" not in client.get("/tables/u").get_data(as_text=True)
