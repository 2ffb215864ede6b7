"""The Regie sensors' emulator, driven by a game simulated with the Regie engine, so that
everything it reports is physically consistent: levels, box, insertions, compartments,
chips off the table, each with its running count."""

from __future__ import annotations

from hardware.emulate.device import Emulator
from hardware.messages import (
    BoxMoved,
    ChipEntered,
    ChipInserted,
    ChipOffTable,
    LevelMoved,
    RegieSnapshot,
)


class RegieEmulator(Emulator):
    kind = "regie"

    def __init__(self, *args, **kwargs) -> None:
        from rules import new_game

        self.game_state = new_game("regie")
        super().__init__(*args, **kwargs)

    def reset_counters(self) -> None:
        # The counters are the sensors' own, from boot; the frame itself keeps its chips.
        columns = self.game_state.kit.columns
        self.comp = [0] * columns
        self.table = [0, 0]
        self.inserts = 0

    def snapshot(self) -> RegieSnapshot:
        state = self.game_state
        return RegieSnapshot(
            seq=0,
            levels=tuple(state.levels),
            box=state.box,
            comp=tuple(self.comp),
            table=(self.table[0], self.table[1]),
            inserts=self.inserts,
        )

    def act(self) -> None:
        """One move of the simulated game, reported as the sensors would see it."""
        from rules import CHANCE, get_game, new_game
        from rules.playout import choose_move
        from rules.regie.observe import observe

        game = get_game("regie")
        state = self.game_state
        if game.is_over(state):
            state = self.game_state = new_game("regie")
        while game.to_act(state) is CHANCE:
            state = game.play(state, choose_move(game, state, self.rng))
        move = choose_move(game, state, self.rng)
        colour = ("red", "blue")[state.turn]
        for sighting in observe(state, move):
            if sighting.kind == "inserted":
                self.inserts += 1
                self.emit(ChipInserted(seq=0, col=sighting.column, colour=colour,
                                       inserts=self.inserts))  # fmt: skip
            elif sighting.kind == "level":
                self.emit(LevelMoved(seq=0, level=sighting.level, pos=sighting.position))
            elif sighting.kind == "box":
                self.emit(BoxMoved(seq=0, pos=sighting.position))
            elif sighting.kind == "compartment":
                self.comp[sighting.column] += 1
                self.emit(ChipEntered(seq=0, col=sighting.column, count=self.comp[sighting.column]))
            else:
                side = 0 if sighting.side == "left" else 1
                self.table[side] += 1
                self.emit(ChipOffTable(seq=0, side=sighting.side, count=self.table[side]))
        self.game_state = game.play(state, move)
