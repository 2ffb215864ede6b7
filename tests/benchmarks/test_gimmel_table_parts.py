"""The table benchmark's long run split in parts (``benchmarks/gimmel_table.py``): each
part's games recorded with ``--per-game``, the figures of all of them printed with
``--merge``. The benchmark is run as a user runs it, in a process of its own."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "gimmel_table.py"


def tally(**counts: int) -> dict[str, int]:
    keys = ("games", "plies", "board_moves", "correct", "false", "missed", "asked",
            "hands_passing", "taught")  # fmt: skip
    return {key: counts.get(key, 0) for key in keys}


def record(seed: int, delays: list[float], fps: float = 10.0, **counts: int) -> str:
    played = {"plies": 40, "fps": fps, "patience": 3.0, "passing": 0.1, "margin": None}
    return json.dumps({"seed": seed, "played": played, "tally": tally(games=1, **counts),
                       "delays": delays, "work": [0.01] * len(delays)})  # fmt: skip


def merge(*paths: Path, json_out: bool = True) -> subprocess.CompletedProcess:
    command = [sys.executable, str(SCRIPT), "--merge", *map(str, paths)]
    return subprocess.run(command + (["--json"] if json_out else []), capture_output=True,
                          text=True, cwd=ROOT, timeout=120)  # fmt: skip


def test_the_parts_games_are_counted_together_if_played_alike(tmp_path):
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    games = [record(1, [0.2, 0.4], fps=12.0, board_moves=2, correct=2),
             record(2, [0.3], fps=12.0, board_moves=2, correct=1, missed=1, asked=1)]  # fmt: skip
    first.write_text("\n".join(games) + "\n")
    second.write_text(record(51, [1.5], fps=10.0, board_moves=1, correct=1) + "\n")
    done = merge(first, second)
    assert done.returncode == 2  # another frame rate: another game, not a part of this one
    assert f"{second} line 1: seed 51 played with" in done.stderr
    # Five frames of 0.1 s as a clock summing its steps counted them: 0.5 s, late.
    second.write_text(record(51, [1.5, 0.4999999999999716], fps=12.0, board_moves=2,
                             correct=2) + "\n")  # fmt: skip
    done = merge(first, second)
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    assert (figures["games"], figures["board_moves"], figures["correct"]) == (3, 6, 5)
    assert (figures["missed"], figures["asked"]) == (1, 1)
    # The delays of all the parts' games, not a part's: 0.2, 0.3, 0.4, 0.5, 1.5.
    assert figures["delay_s_median"] == 0.4
    assert figures["delay_s_max"] == 1.5
    assert figures["late"] == 2  # 0.5 s and 1.5 s: not under the 0.5 s
    printed = merge(first, second, json_out=False).stdout
    assert "3 games (seeds 1-2, 51)" in printed
    assert "12 frames/s" in printed  # the recorded games' rate, not the default 10
    assert "committed correctly by the camera: 5 of 6" in printed
    assert "committed 0.5 s or more after the hand left: 2" in printed


def test_a_seed_recorded_twice_or_a_broken_line_is_named(tmp_path):
    first, second = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    first.write_text(record(7, [0.2]) + "\n")
    second.write_text(record(7, [0.3]) + "\n")
    done = merge(first, second)
    assert done.returncode == 2
    assert f"{second} line 1: seed 7 recorded twice" in done.stderr
    second.write_text(record(8, [0.3]) + "\n" + '{"seed": 9, "tally": {}}\n')
    done = merge(first, second)
    assert done.returncode == 2
    assert f"{second} line 2: not a game's record" in done.stderr
