"""The demo's Nil table: bots lay tiles through ``Table.play`` as a table sees them,
draw from the bag quickly, and show the rack only when no tile fits."""

from __future__ import annotations

import random
import threading
import time

from companion.demo import CONFIGS, DEMO_PIN, Demo, bot_choice
from rules import CHANCE, View, new_game
from rules.nil import NIL, Lay, NoPlay


def test_the_demo_has_a_nil_table_of_two_to_four_bots_with_the_demo_pin():
    (config,) = [c for c in CONFIGS if c.game == "nil"]
    assert config.id == "nil" and config.pin == DEMO_PIN
    assert 2 <= len(config.players) <= 4


def test_a_nil_bot_shows_its_rack_only_when_no_tile_fits():
    rng = random.Random("demo-nil:bots")
    shown = laid = 0
    for _ in range(4):
        state = new_game("nil", 3, view=View.TABLE)
        while not NIL.is_over(state):
            move = bot_choice(NIL, state, rng)
            if NIL.to_act(state) is not CHANCE:
                fits = any(isinstance(m, Lay) for m in NIL.legal_moves(state))
                # The table cannot see the rack, so the rules allow showing it any time.
                assert NoPlay(state.seat) in NIL.legal_moves(state) or state.laid
                if isinstance(move, NoPlay):
                    assert not fits, NIL.where(state)
                    shown += 1
                laid += isinstance(move, Lay)
            state = NIL.play(state, move)
    assert laid > 100 and shown > 0  # some game met a river no tile could go on


def test_the_nil_table_of_the_demo_advances_by_its_bots(tmp_path):
    demo = Demo(tmp_path, pace=0.01, seed=5)
    table = demo.by_id["nil"]
    worker = threading.Thread(target=demo._nil, daemon=True)
    worker.start()
    try:
        deadline = time.monotonic() + 30
        while len(table.state.tiles) < 3 and time.monotonic() < deadline:
            time.sleep(0.05)  # the bots play in their own thread
        assert len(table.state.tiles) >= 3, table.game.where(table.state)
        entries = demo.journal.entries(table.game_id)
        assert {e.kind for e in entries} == {"move"}  # legal moves only: nothing flagged
        assert sum(e.data["type"] == "lay" for e in entries) == len(table.state.path)
    finally:
        demo.close()
        worker.join(timeout=5)
    assert not worker.is_alive()
