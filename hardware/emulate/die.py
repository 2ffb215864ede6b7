"""The electronic die's emulator: throws a seeded die, now and then a bad roll."""

from __future__ import annotations

from hardware.emulate.device import Emulator
from hardware.messages import BAD_ROLLS, Battery, DieInvalid, DieRolled, DieRolling, DieSnapshot


class DieEmulator(Emulator):
    kind = "die"
    bad_roll_rate = 0.1

    def reset_counters(self) -> None:
        self.rolls = 0
        self.bad = 0
        self.last = 0

    def snapshot(self) -> DieSnapshot:
        return DieSnapshot(seq=0, rolls=self.rolls, bad=self.bad, last=self.last)

    def act(self) -> None:
        """One throw: rolling, then a valid roll or a bad one; now and then the battery."""
        self.emit(DieRolling(seq=0))
        if self.rng.random() < self.bad_roll_rate:
            self.bad += 1
            self.emit(DieInvalid(seq=0, why=self.rng.choice(BAD_ROLLS), bad=self.bad))
        else:
            self.rolls += 1
            self.last = self.rng.randint(1, 6)
            self.emit(DieRolled(seq=0, face=self.last, rolls=self.rolls))
        if self.rng.random() < 0.05:
            self.emit(
                Battery(seq=0, mv=3700 + self.rng.randrange(500), pct=self.rng.randrange(101))
            )
