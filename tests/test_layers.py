"""The layers of DESIGN.md hold: imports point down only. ``rules`` needs the standard
library alone; ``hardware`` and ``calibration`` know ``rules`` only; ``vision`` uses
``calibration`` and ``rules``; nothing below ``companion`` imports it; no reader imports
the renderer. The device firmware (``firmware/``, MicroPython) imports only itself and
modules MicroPython has, and only the tests import it."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ("rules", "hardware", "calibration", "vision", "companion")
#: What each layer may import from the project, and from outside the standard library.
ALLOWED = {
    "rules": (set(), set()),
    "hardware": ({"rules"}, {"serial"}),
    "calibration": ({"rules"}, {"cv2", "numpy"}),
    "vision": ({"rules", "calibration"}, {"cv2", "numpy", "picamera2"}),
    "companion": (
        set(PROJECT),
        {"flask", "werkzeug", "waitress", "segno", "serial", "cv2", "numpy"},
    ),
}


def imports(path: Path) -> set[str]:
    """The top-level names a module imports (relative imports are its own package)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module.split(".")[0])
    return found


def modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("package", PROJECT)
def test_imports_point_down_only(package):
    project, outside = ALLOWED[package]
    stdlib = set(sys.stdlib_module_names) | {"__future__"}
    for path in modules(package):
        for name in imports(path) - stdlib - {package}:
            where = path.relative_to(ROOT)
            if name in PROJECT:
                assert name in project, f"{where} imports {name}: {package} may not"
            else:
                assert name in outside, f"{where} imports {name}, outside what {package} uses"


#: What the firmware may import: itself, and modules MicroPython has on a board.
FIRMWARE_MAY_IMPORT = {
    "firmware", "sys", "time", "os", "io", "struct", "select", "machine", "rp2"
}  # fmt: skip


def test_the_firmware_imports_only_itself_and_micropythons_modules():
    paths = modules("firmware")
    assert paths
    for path in paths:
        extra = imports(path) - FIRMWARE_MAY_IMPORT
        where = path.relative_to(ROOT)
        assert not extra, f"{where} imports {', '.join(sorted(extra))}: not on the device"


def test_nothing_but_the_tests_imports_the_firmware():
    for package in (*PROJECT, "benchmarks"):
        for path in modules(package):
            assert "firmware" not in imports(path), f"{path.relative_to(ROOT)} imports firmware"


def test_no_reader_imports_the_renderer():
    render = ROOT / "vision" / "render"
    for path in modules("vision"):
        if render in path.parents:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                assert not node.module.startswith("vision.render"), path
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("vision.render") for a in node.names), path
