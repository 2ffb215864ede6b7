"""Device events become moves only through the rules."""

from __future__ import annotations

import random
import time

from companion.claims import RegieSightings, die_claim
from hardware.emulate.regie import RegieEmulator
from hardware.messages import DieInvalid, DieRolled
from rules import get_game, new_game
from rules.regie import Start
from rules.regie.observe import move_from_sightings
from rules.uraeus import Roll


def test_only_a_valid_roll_reaches_the_game():
    uraeus = get_game("uraeus")
    state = new_game("uraeus", players=2)  # the roll-off waits for the die
    assert die_claim(state, DieRolled(seq=3, face=4, rolls=1)).moves == (Roll(4),)
    claim = die_claim(state, DieInvalid(seq=4, why="crooked", bad=1))
    assert claim.moves == () and "roll again" in claim.say
    for face in (5, 2, 3):  # roll-off 5 against 2, then the starter's roll
        state = uraeus.play(state, Roll(face))
    claim = die_claim(state, DieRolled(seq=5, face=6, rolls=2))
    assert claim.moves == () and "no roll is due" in claim.say


def test_the_regie_sensors_of_a_simulated_game_replay_that_game():
    regie = get_game("regie")
    device = RegieEmulator(random.Random(4), serial="T1", clock=time.monotonic)
    try:
        start = device.game_state
        for _ in range(40):  # 40 moves, fewer than a game takes
            device.act()
        played = device.game_state
        gather = RegieSightings()
        moves = []
        for event in device.truth:
            finished = gather.add(event)
            if finished:
                moves.append(finished)
        moves.append(gather.flush())
        # Who begins is settled at the table, not seen by the sensors.
        state = regie.play(start, Start(played.first))
        for sightings in moves:
            state = regie.play(state, move_from_sightings(state, sightings))
        assert state.levels == played.levels and state.box == played.box
        assert state.landed == played.landed and state.windows == played.windows
        assert state.doubts == ()  # the sensors saw just what the kit predicts
    finally:
        device.close()
