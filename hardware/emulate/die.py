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

    script: list[str] | None = None  # faces ("4") or bad rolls ("crooked") to throw in order

    def act(self) -> None:
        """One throw: the next scripted one, else a seeded random one; now and then the
        battery."""
        if self.script:
            self.throw(self.script.pop(0))
        elif self.rng.random() < self.bad_roll_rate:
            self.throw(self.rng.choice(BAD_ROLLS))
        else:
            self.throw(str(self.rng.randint(1, 6)))
        if self.rng.random() < 0.05:
            self.emit(
                Battery(seq=0, mv=3700 + self.rng.randrange(500), pct=self.rng.randrange(101))
            )

    def throw(self, outcome: str) -> None:
        """Throw the die to ``outcome``: a face ``"1"`` to ``"6"``, or a bad roll's reason."""
        if outcome in BAD_ROLLS:
            self.emit(DieRolling(seq=0))
            self.bad += 1
            self.emit(DieInvalid(seq=0, why=outcome, bad=self.bad))
        elif outcome in ("1", "2", "3", "4", "5", "6"):
            self.emit(DieRolling(seq=0))
            self.rolls += 1
            self.last = int(outcome)
            self.emit(DieRolled(seq=0, face=self.last, rolls=self.rolls))
        else:
            raise ValueError(
                f"a throw is a face 1 to 6 or one of {', '.join(BAD_ROLLS)}: {outcome!r}"
            )
