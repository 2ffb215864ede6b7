"""Counters flag a doubled or missed chip or roll instead of letting it be scored."""

from __future__ import annotations

from hardware.counters import Counters
from hardware.messages import ChipEntered, DieRolled, DieSnapshot, Hello, RegieSnapshot


def test_a_doubled_or_missed_chip_is_flagged_from_the_counts():
    counters = Counters()
    counters.check(RegieSnapshot(seq=1, levels=(0,) * 6, box=2, comp=(0, 2, 0), table=(0, 0),
                                 inserts=3))  # fmt: skip
    assert counters.check(ChipEntered(seq=2, col=1, count=3)).kind == "ok"
    assert counters.check(ChipEntered(seq=3, col=1, count=3)).kind == "doubled"
    verdict = counters.check(ChipEntered(seq=4, col=0, count=3))
    assert verdict.kind == "missed" and verdict.missed == 2


def test_rolls_count_from_the_boot_and_the_snapshot():
    counters = Counters()
    counters.check(Hello(seq=0, proto=1, kind="die", serial="D", boot="A", fw="1"))
    assert counters.check(DieRolled(seq=1, face=3, rolls=1)).kind == "ok"
    assert counters.check(DieRolled(seq=2, face=3, rolls=1)).kind == "doubled"
    counters.check(DieSnapshot(seq=3, rolls=5, bad=0, last=2))
    assert counters.check(DieRolled(seq=4, face=6, rolls=6)).kind == "ok"
    counters.check(Hello(seq=0, proto=1, kind="die", serial="D", boot="B", fw="1"))
    assert counters.check(DieRolled(seq=1, face=1, rolls=1)).kind == "ok"  # after a reboot
