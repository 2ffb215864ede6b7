"""The Nil panel: the kit's fields with their numbers, the river through the tiles laid,
the cells where the next tile may go (exactly the engine's legal placements), the running
turn by the engine's parts, a held flag in words with the refused tile on the board, and
taps that round-trip to tiles, illegal ones left for the rules to judge."""

from __future__ import annotations

import random
import re
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from svg_tree import SVG, classes, of_class, parse, places, texts_in, words_of

from companion.app import Service, create_app
from companion.journal import Journal
from companion.panels import TapError, nil, panel_for
from companion.tables import Table, TableConfig
from rules import CHANCE, View, get_game, new_game
from rules.catalogue import explain as rule_entry
from rules.grid import Square
from rules.nil import NIL, Lay, Step, Tile, turn_parts
from rules.nil.geometry import PORT_NAMES
from rules.playout import choose_move, sample_chance

PIN = {"X-Table-PIN": "4711"}


def opened(players: int = 3, view: View = View.TABLE, seed: int = 0) -> Any:
    """A new game after the lot and the racks: the first seat is to lay its first tile."""
    rng = random.Random(f"nil-panel:open:{seed}")
    state = new_game("nil", players, view=view)
    while NIL.to_act(state) is CHANCE:
        state = NIL.play(state, sample_chance(NIL, state, rng))
    return state


def playout(
    seed: int, players: int = 3, plies: int = 400, view: View = View.TABLE
) -> Iterator[Any]:
    """The states of one seeded game, as a table sees it unless told otherwise."""
    rng = random.Random(f"nil-panel:{seed}")
    state = new_game("nil", players, view=view)
    for _ in range(plies):
        yield state
        if NIL.is_over(state):
            return
        state = NIL.play(state, choose_move(NIL, state, rng))


def position(path: str, racks: list[list[str]]) -> Any:
    """Seat 0 to lay, two players, every tile seen, the river as ``cell:ENTRY-EXIT``
    steps, each laid as the first plain kind with that line."""
    state = new_game("nil", 2)
    kit = state.kit
    steps, tiles = [], {}
    for token in path.split():
        name, ports = token.split(":")
        entry, exit = (PORT_NAMES.index(p) for p in ports.split("-"))
        line = (min(entry, exit), max(entry, exit))
        kind = next(k for k in kit.kinds if any(shape == line for _, shape in k.shapes))
        cell = Square.parse(name)
        steps.append(Step(cell, entry, exit))
        tiles[cell] = Tile(cell, kind.name)
    used = Counter(t.kind for t in tiles.values()) + Counter(k for rack in racks for k in rack)
    order = [k.name for k in kit.kinds]
    return replace(
        state,
        starter=0,
        seat=0,
        racks=tuple(tuple(sorted(rack, key=order.index)) for rack in racks),
        bag=tuple(k.count - used[k.name] for k in kit.kinds),
        bag_size=kit.printed - sum(used.values()),
        tiles=tuple(sorted(tiles.values(), key=lambda t: (t.cell.row, t.cell.col))),
        path=tuple(steps),
    )


def first_lay(state: Any) -> Lay:
    return next(m for m in NIL.legal_moves(state) if isinstance(m, Lay))


def numbers(path: str) -> list[float]:
    return [float(v) for v in re.findall(r"-?\d+(?:\.\d+)?", path)]


# -- the board --------------------------------------------------------------------------


def test_every_cell_is_a_place_and_every_field_shows_its_colour_and_number_once():
    state = opened()
    kit = state.kit
    root = parse(nil.svg(state))
    found = places(root)
    cells = {str(Square(c, r)) for c in range(kit.columns) for r in range(kit.rows)}
    assert cells <= set(found)
    for field in kit.fields:
        shown = []
        for cell in field.cells:
            outline = next(e for e in found[str(cell)].iter() if "cell" in classes(e))
            assert outline.get("data-field") == field.colour
            shown += [t for e in of_class(found[str(cell)], "number") for t in texts_in(e)]
        # A field of five cells (the U-shaped red ones) charges once and says so once.
        assert shown == [str(field.value)], (field, shown)
    outlined = sorted(int(e.get("data-value")) for e in of_class(root, "field-outline"))
    assert outlined == sorted(f.value for f in kit.fields if len(f.cells) > 1)
    assert outlined  # the shipped kit has U-shaped red fields
    plain = next(e for e in found["a2"].iter() if "cell" in classes(e))
    assert plain.get("data-field") is None
    assert "start" in " ".join(texts_in(root)).lower()


def test_a_laid_tile_stands_on_its_cell_and_the_river_runs_from_the_start_to_its_end():
    state = opened()
    before = parse(nil.svg(state))
    assert not of_class(before, "tile") and not of_class(before, "river")
    assert not of_class(before, "end")
    move = first_lay(state)
    after = NIL.play(state, move)
    root = parse(nil.svg(after))
    tiles = of_class(root, "tile")
    assert [t.get("data-kind") for t in tiles] == [move.kind]
    assert tiles[0] in places(root)[str(move.to)].iter()
    (river,) = of_class(root, "river")
    assert river.get("data-steps") == "1"
    # The river's line begins at the start point's mark and ends at the ring of its end.
    start = next(e for e in of_class(root, "start")[0].iter(f"{SVG}circle"))
    (end,) = of_class(root, "end")
    ring = next(end.iter(f"{SVG}circle"))
    drawn = numbers(river.get("d"))
    assert drawn[:2] == [float(start.get("cx")), float(start.get("cy"))]
    assert drawn[-2:] == [float(ring.get("cx")), float(ring.get("cy"))]
    assert end.get("data-cell") == str(after.end.cell) == str(move.to)
    # The tile was laid this turn: it says so.
    assert "laid this turn" in places(root)[str(move.to)].find(f"{SVG}title").text


def test_the_river_has_a_step_for_every_tile_laid():
    for state in playout(11, players=2, plies=600):
        if NIL.to_act(state) is CHANCE:
            continue
        root = parse(nil.svg(state))
        assert len(of_class(root, "tile")) == len(state.tiles)
        river = of_class(root, "river")
        assert (int(river[0].get("data-steps")) if river else 0) == len(state.path)


def test_a_crossing_due_is_said_in_words_and_the_crossing_shows_on_the_board():
    # The rulebook's Abb. 13-16 (tests/rules/test_nil.py): up column k and back round; a
    # straight on l3 leads the river to k3, which a universal tile must cross this turn.
    path = "k1:S-N k2:S-N k3:S-N k4:S-E l4:W-E m4:W-S m3:N-W"
    state = position(path, racks=[["straight", "universal", "curve"], ["curve"]])
    led = NIL.play(state, Lay(0, Square.parse("l3"), "straight", 1))
    root = parse(nil.svg(led))
    (note,) = of_class(root, "note")
    assert note.get("data-rule") == "nil.crossing-unfinished"
    assert rule_entry("nil.crossing-unfinished").rule in words_of(note)
    marked = {p for p, e in places(root).items() if of_class(e, "next")}
    assert marked == {"k3"}  # the one legal tile: the universal across k3's straight
    crossing = Lay(0, Square.parse("k3"), "universal")
    assert nil.taps(led, crossing) == ("k3", "tile:universal")
    assert nil.compose(led, ("k3", "tile:universal")) == crossing
    crossed = parse(nil.svg(NIL.play(led, crossing)))
    (tile,) = [t for t in of_class(crossed, "tile") if t.get("data-crossing")]
    assert tile.get("data-kind") == "universal" and tile in places(crossed)["k3"].iter()
    assert of_class(crossed, "river")[0].get("data-steps") == "9"
    assert "crossing" in places(crossed)["k3"].find(f"{SVG}title").text


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_cells_marked_for_the_next_tile_are_exactly_the_engines_legal_placements(seed):
    marked_some = empty = 0
    for k, state in enumerate(playout(seed, plies=300)):
        if k % 3:
            continue  # every third state: the hints, not the time, are under test
        legal = {str(m.to) for m in NIL.legal_moves(state) if isinstance(m, Lay)}
        root = parse(nil.svg(state))
        marked = {p for p, e in places(root).items() if of_class(e, "next")}
        assert marked == legal, NIL.where(state)
        marked_some += bool(marked)
        empty += not marked
    assert marked_some > 10 and empty > 10  # chance steps mark nothing


def test_the_running_turn_shows_the_engines_parts_and_total():
    seen = set()
    for state in playout(4, plies=500):
        if not state.laid:
            continue
        parts = turn_parts(state)
        root = parse(nil.svg(state))
        (turn,) = of_class(root, "turn")
        shown = {e.get("data-part"): int(e.get("data-value")) for e in of_class(turn, "part")}
        assert shown == parts
        assert turn.get("data-laid") == str(len(state.laid))
        total = next(e for e in of_class(turn, "part") if e.get("data-part") == "total")
        assert texts_in(total)[-1] == f"= {parts['total']}"
        seen |= {key for key, value in parts.items() if value}
    assert {"tiles", "green", "red", "total"} <= seen  # the playout met green and red fields


def test_the_panel_speaks_german():
    state = NIL.play(opened(), first_lay(opened()))
    root = parse(nil.svg(state, lang="de"))
    words = words_of(root)
    assert f"Platz {NIL.to_act(state)} legt Steine" in words
    assert "Zug von Platz" in words and "Dieser Zug" in words
    for kind in state.kit.kinds:  # the tiles to tap by their German names
        assert kind.german.split()[0] in words
    assert "grün: + Zahl" in words
    assert "Stein setzen" in words


# -- a flag held by the table -----------------------------------------------------------


@pytest.fixture
def nil_table(tmp_path):
    """A Nil table behind the API, drawn up to the first seat's first tile."""
    journal = Journal(tmp_path / "journal.sqlite")
    table = Table(TableConfig("nil-1", "nil", ("Ada", "Ben", "Cy"), "4711"), journal)
    rng = random.Random("nil-panel:table")
    while table.game.to_act(table.state) is CHANCE:
        move = sample_chance(table.game, table.state, rng)
        table.play(table.game.move_to_json(move))
    return table, create_app(Service([table], time.monotonic)).test_client()


def test_an_illegal_tile_tapped_is_flagged_and_the_panel_shows_the_rule_and_the_tile(nil_table):
    table, client = nil_table
    seat = table.game.to_act(table.state)
    # A straight far from the start field: it joins no line's end.
    answer = client.post("/api/tables/nil-1/taps", json={"taps": ["c12", "tile:straight:0"]},
                         headers=PIN)  # fmt: skip
    assert answer.status_code == 422
    rule = answer.get_json()["flag"]["rule"]
    assert rule == "nil.opening"
    for lang, words in (("en", rule_entry(rule).rule), ("de", rule_entry(rule).german)):
        root = parse(client.get(f"/api/tables/nil-1/panel?lang={lang}").get_json()["svg"])
        (band,) = of_class(root, "flag")
        assert band.get("data-rule") == rule
        assert words[:60] in " ".join(texts_in(band))
        assert "c12" in " ".join(texts_in(band))
        (ghost,) = of_class(root, "flagged")
        assert ghost.get("data-cell") == "c12"
    # Dismissed, the flag goes: the band says what the position needs again.
    client.post("/api/tables/nil-1/dismiss", json={}, headers=PIN)
    root = parse(client.get("/api/tables/nil-1/panel").get_json()["svg"])
    assert not of_class(root, "flag") and not of_class(root, "flagged")
    assert of_class(root, "note")[0].get("data-rule") == "nil.opening"
    assert table.game.to_act(table.state) == seat


def test_a_legal_tile_tapped_is_laid_and_its_moves_carry_taps(nil_table):
    table, client = nil_table
    panel = client.get("/api/tables/nil-1/panel").get_json()
    tapped = [m for m in panel["moves"] if m["taps"]]
    assert tapped and all(m["taps"][0] == "k1" for m in tapped)  # the start field
    choice = tapped[0]
    answer = client.post("/api/tables/nil-1/taps", json={"taps": choice["taps"]}, headers=PIN)
    assert answer.status_code == 200 and answer.get_json()["complete"]
    assert table.game.state_to_json(table.state)["tiles"]
    root = parse(client.get("/api/tables/nil-1/panel").get_json()["svg"])
    assert [t.get("data-kind") for t in of_class(root, "tile")] == [choice["move"]["tile"]]


# -- taps -------------------------------------------------------------------------------


@pytest.mark.parametrize("view", [View.TABLE, View.FULL])
def test_the_taps_of_every_legal_tile_are_drawn_and_compose_back_to_it(view):
    universal = plain = 0
    for k, state in enumerate(playout(6, players=2, plies=500, view=view)):
        if NIL.to_act(state) is CHANCE or k % 2:
            continue
        shown = set(places(parse(nil.svg(state))))
        for move in NIL.legal_moves(state):
            taps = nil.taps(state, move)
            if not isinstance(move, Lay):
                assert taps == ()  # ending the turn, showing the rack: buttons
                continue
            assert taps and set(taps) <= shown, (move, taps)
            for n in range(len(taps)):
                assert nil.compose(state, taps[:n]) is None, taps[:n]
            assert nil.compose(state, taps) == move
            universal += move.declared is not None
            plain += move.declared is None and move.to not in state.board
    # Crossings are rare in playouts: the crossing's taps are shown in a scenario above.
    assert plain > 100 and universal > 20


def test_a_tile_turned_to_a_look_it_shares_is_tapped_as_that_look():
    state = opened()
    assert nil.taps(state, Lay(0, Square(10, 0), "straight", 2)) == ("k1", "tile:straight:0")
    assert nil.taps(state, Lay(0, Square(10, 0), "curve", 2)) == ("k1", "tile:curve:2")
    # Tiles the picture cannot show have no taps.
    for move in (
        Lay(0, Square(10, 0), "straight", 4),
        Lay(0, Square(30, 0), "straight", 0),
        Lay(0, Square(10, 0), "pyramid", 0),
        Lay(0, Square(10, 0), "universal", 0),  # on an empty cell, standing in for nothing
        Lay(0, Square(10, 0), "curve", 0, "straight"),  # only a universal stands in
    ):
        assert nil.taps(state, move) == (), move


def test_illegal_tiles_are_composed_for_the_rules_to_judge():
    state = opened()
    seat = NIL.to_act(state)
    far = nil.compose(state, ("c12", "tile:curve:1"))
    assert far == Lay(seat, Square(2, 11), "curve", 1)
    assert NIL.violation(state, far).rule == "nil.opening"
    stand_in = nil.compose(state, ("k1", "tile:universal", "tile:hook-left:0"))
    assert stand_in == Lay(seat, Square(10, 0), "universal", 0, "hook-left")
    assert NIL.violation(state, stand_in) is not None  # a hook cannot open
    after = NIL.play(state, first_lay(state))
    # A universal onto the tile just laid: a crossing, judged by the rules (no lead).
    cross = nil.compose(after, ("k1", "tile:universal"))
    assert cross == Lay(seat, Square(10, 0), "universal")
    assert NIL.violation(after, cross) is not None


@pytest.mark.parametrize(
    ("taps", "why"),
    [
        (("tile:curve:1",), "tap the cell first"),
        (("k1", "k2"), "is a cell: after the cell, tap the tile"),
        (("k1", "tile:straight:2"), "no tile of this kit"),
        (("k1", "tile:pyramid:0"), "no tile of this kit"),
        (("z99",), "no place of this board"),
        (("v1",), "no place of this board"),
        (("k1", "tile:curve:1", "tile:curve:0"), "only a universal tile stands in"),
        (("k1", "tile:universal", "tile:universal"), "stands in for a plain tile"),
        (("k1", "tile:universal", "tile:curve:0", "k2"), "at most three taps"),
    ],
)
def test_taps_that_form_no_tile_are_refused_and_quoted(taps, why):
    state = opened()
    with pytest.raises(TapError, match=re.escape(why)) as refused:
        nil.compose(state, taps)
    assert repr(taps[0]) in str(refused.value)


def test_no_taps_while_tiles_are_drawn_or_the_game_is_over():
    state = new_game("nil", 2, view=View.TABLE)
    with pytest.raises(TapError, match="waiting for"):
        nil.compose(state, ("k1",))
    final = None
    for final in playout(2, players=2, plies=3000):  # noqa: B007 - the last state is wanted
        pass
    assert NIL.is_over(final)
    with pytest.raises(TapError, match="game is over"):
        nil.compose(final, ("k1",))
    root = parse(nil.svg(final))
    assert root.find(f"{SVG}title").text.startswith("Nil board: Game over")
    (note,) = of_class(root, "note")
    assert note.get("data-rule") == NIL.outcome(final).reason
    assert not of_class(root, "next")


def test_nil_is_a_registered_panel():
    assert panel_for("nil") is nil
    assert get_game("nil").name == "nil"
