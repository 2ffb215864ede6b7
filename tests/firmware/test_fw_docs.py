"""docs/hardware.md and the firmware agree: the pins drawn are the pins the boards'
``main.py`` use, the sensors' order is the firmware's, the files named exist."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from firmware.die.roll import DEFAULT_FACES
from firmware.regie.regie import Layout

REPO = Path(__file__).resolve().parents[2]
PAGE = (REPO / "docs" / "hardware.md").read_text(encoding="utf-8")


def config(device: str) -> dict:
    tree = ast.parse((REPO / "firmware" / device / "main.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "CONFIG":
            return ast.literal_eval(node.value)
    raise AssertionError(f"no CONFIG in firmware/{device}/main.py")


def test_the_regie_pins_drawn_are_the_boards():
    regie = config("regie")
    layout = Layout(regie["columns"], regie["insert_columns"], regie["travels"])
    for pin, name in zip(regie["beam_pins"], layout.beams(), strict=True):
        assert re.search(rf"GP{pin} +\|-+ {name}(?!\d)", PAGE), f"GP{pin} is {name}"
    for pin, position in zip(regie["box_pins"], (1, 2, 3), strict=True):
        assert re.search(rf"GP{pin} +\|-+ box {position}(?!\d)", PAGE)
    assert regie["i2c"] == (0, 4, 5) and "GP4 (SDA)" in PAGE and "GP5 (SCL)" in PAGE
    assert [f"0x{a:02X}".replace("X", "x") for a in regie["expanders"]] == ["0x20", "0x21"]
    assert f'`CONFIG["beam_blocked"] = {regie["beam_blocked"]}`' in PAGE


def test_the_level_table_follows_the_sensor_order():
    rows = re.findall(r"\| level (\d): ([-\d, ]+) \|", PAGE)
    drawn = [f"level {level} {p.strip()}" for level, ps in rows for p in ps.split(",")]
    assert drawn == Layout().sensors()[:-3]


def test_the_die_defaults_are_the_pages():
    die = config("die")
    assert die["i2c"] == (0, 4, 5) and "`(0, 4, 5)`" in PAGE
    assert tuple(die["faces"]) == DEFAULT_FACES
    assert "default " + ", ".join(str(f) for f in DEFAULT_FACES) in PAGE


def test_the_files_the_page_names_exist():
    for name in set(re.findall(r"`((?:firmware|docs|tests|rules)/[\w./]+)`", PAGE)):
        assert (REPO / name).exists(), name
