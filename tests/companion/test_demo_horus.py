"""The demo's Horus table: bots grow the kingdom through ``Table.play`` as a table sees
it (the bag tile unseen until laid, the cards played unnamed), legal moves only."""

from __future__ import annotations

import threading
import time

from companion.demo import CONFIGS, DEMO_PIN, Demo, parse_humans
from rules import View


def test_the_demo_has_a_horus_table_of_two_to_four_bots_with_the_demo_pin():
    (config,) = [c for c in CONFIGS if c.game == "horus"]
    assert config.id == "horus" and config.pin == DEMO_PIN
    assert 2 <= len(config.players) <= 4
    assert parse_humans(("horus:1",)) == {"horus": {1}}


def test_the_horus_table_of_the_demo_advances_by_its_bots(tmp_path):
    demo = Demo(tmp_path, pace=0.01, seed=5)
    table = demo.by_id["horus"]
    assert table.state.view is View.TABLE
    worker = threading.Thread(target=demo._horus, daemon=True)
    worker.start()
    try:
        deadline = time.monotonic() + 30
        while (len(table.state.tiles) < 8 or not table.state.stones) and (
            time.monotonic() < deadline
        ):
            time.sleep(0.05)  # the bots play in their own thread
        assert len(table.state.tiles) >= 8 and table.state.stones, table.game.where(table.state)
        entries = demo.journal.entries(table.game_id)
        assert {e.kind for e in entries} == {"move"}  # legal moves only: nothing flagged
        kinds = {e.data["type"] for e in entries}
        assert {"lay", "play-card", "set-stone"} <= kinds, kinds
    finally:
        demo.close()
        worker.join(timeout=5)
    assert not worker.is_alive()
