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


def test_the_battery_is_off_by_default_and_the_wireless_build_turns_it_on():
    assert config("die")["battery"] is None
    assert '`"battery": (26, 2.0)`' in PAGE


def test_the_uart_baud_rate_the_page_names_is_a_port_the_firmware_opens():
    assert '`("uart", 0, 0, 1, 9600)`' in PAGE
    assert "AT+BAUD8" in PAGE and "AT+UART=115200,0,0" in PAGE


def test_the_service_the_page_stops_is_the_units():
    unit = REPO / "docs" / "systemd" / "table-companion.service"
    assert unit.exists()
    assert "sudo systemctl stop table-companion" in PAGE
    assert "sudo systemctl start table-companion" in PAGE


def test_the_udev_rule_matches_a_micropython_pico():
    (rule,) = re.findall(r"^SUBSYSTEM==.*$", PAGE, flags=re.M)
    assert 'ATTRS{idVendor}=="2e8a"' in rule and 'ATTRS{idProduct}=="0005"' in rule
    assert 'SYMLINK+="table-die"' in rule


def test_the_bench_check_reads_the_configured_bus_and_the_hall_switches():
    assert "I2C(1, sda=Pin(6), scl=Pin(7))" in PAGE  # the XIAO's (1, 6, 7)
    assert "MCP23017(i2c, a) for a in (0x20, 0x21)" in PAGE
    assert "for p in (19, 20, 21)" in PAGE and config("regie")["box_pins"] == (19, 20, 21)
