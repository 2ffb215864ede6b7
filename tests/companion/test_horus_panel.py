"""The Horus panel: the layout with its regions shaded by terrain, the river's ends
ringed, stones in their players' colours, the running count equal to the engine's
breakdown, the places a legal move begins (exactly the engine's legal moves), a held
flag in words with the refused move where it went, and taps that round-trip to moves,
illegal ones left for the rules to judge."""

from __future__ import annotations

import random
import re
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from typing import Any

import pytest
from horus_positions import position
from svg_tree import SVG, of_class, parse, places, texts_in

from companion.app import Service, create_app
from companion.journal import Journal
from companion.panels import TapError, horus, panel_for
from companion.panels.common import colour
from companion.panels.horus.board import TERRAIN_FILL
from companion.tables import Table, TableConfig
from rules import CHANCE, View, new_game
from rules.catalogue import explain as rule_entry
from rules.horus import (
    HORUS,
    Lay,
    MoveStone,
    Pos,
    ReplaceEnd,
    SetStone,
    breakdown,
    count,
)
from rules.playout import choose_move, sample_chance

PIN = {"X-Table-PIN": "4711"}


def marked(root: ET.Element) -> set[str]:
    return {p for p, e in places(root).items() if of_class(e, "next")}


def playout(
    seed: int, players: int = 3, plies: int = 400, view: View = View.TABLE
) -> Iterator[Any]:
    """The states of one seeded game, as a table sees it unless told otherwise."""
    rng = random.Random(f"horus-panel:{seed}")
    state = new_game("horus", players, view=view)
    for _ in range(plies):
        yield state
        if HORUS.is_over(state):
            return
        state = HORUS.play(state, choose_move(HORUS, state, rng))


def midgame(seed: int = 1, plies: int = 150) -> Any:
    """A state some way into a seeded game, a player to act."""
    found = None
    for k, state in enumerate(playout(seed, plies=plies)):
        if HORUS.to_act(state) not in (None, CHANCE):
            found = state
        if k >= plies - 1 and found is not None:
            break
    return found


def first_move(state: Any) -> Any:
    return HORUS.legal_moves(state)[0]


# -- the layout ---------------------------------------------------------------------------


def test_every_tile_is_drawn_shaded_by_its_terrain_and_every_region_outlined_once():
    state = midgame()
    root = parse(horus.svg(state))
    found = places(root)
    drawn = {e.get("data-at"): e for e in of_class(root, "tile")}
    assert set(drawn) == {str(at) for at in state.layout.kind}
    for at, kind in state.layout.kind.items():
        tile = drawn[str(at)]
        assert tile.get("data-kind") == kind
        assert tile in found[str(at)].iter()  # a tile is a place: a stone is set by a tap
        if kind in TERRAIN_FILL:
            assert tile.get("fill") == TERRAIN_FILL[kind]
    regions = count(state)
    shown = of_class(root, "region")
    assert [(e.get("data-terrain"), int(e.get("data-size")), int(e.get("data-value")))
            for e in shown] == [(r.terrain, r.size, r.value) for r in regions]  # fmt: skip
    assert {r.terrain for r in regions} == set(TERRAIN_FILL)  # the playout met all four
    # Each region writes its worth once.
    assert [texts_in(of_class(e, "worth")[0]) for e in shown] == [[str(r.value)] for r in regions]


def test_the_river_ends_are_ringed_and_the_pyramid_and_water_are_drawn():
    state = new_game("horus", 2, view=View.TABLE)
    root = parse(horus.svg(state))
    ends = of_class(root, "end")
    assert sorted(e.get("data-at") for e in ends) == sorted(str(e) for e in state.layout.ends)
    assert len(ends) == 2
    assert "never to be blocked" in ends[0].find(f"{SVG}title").text
    assert len(of_class(root, "pyramid")) == 1
    later = midgame(seed=3)
    ringed = {e.get("data-at") for e in of_class(parse(horus.svg(later)), "end")}
    assert ringed == {str(e) for e in later.layout.ends} and len(ringed) == 2


def test_islands_and_the_temple_are_marked_where_the_count_says():
    islands = temples = 0
    for k, state in enumerate(playout(7, players=4, plies=600)):
        if k % 25:
            continue
        root = parse(horus.svg(state))
        regions = count(state)
        for element, region in zip(of_class(root, "region"), regions, strict=True):
            assert (element.get("data-island") == "1") == region.island
            assert (element.get("data-temple") == "1") == region.temple
            assert bool(of_class(element, "island")) == region.island
        islands += sum(r.island for r in regions)
        temples += sum(r.temple for r in regions)
        kinds = [t.kind for t in state.tiles]
        assert len(of_class(root, "temple")) == kinds.count("temple")
        assert len(of_class(root, "necropolis")) == kinds.count("necropolis")
    assert temples > 0  # the playout laid the temple by some region


def test_a_stone_is_drawn_on_its_tile_in_its_players_colour():
    seen = set()
    for state in playout(2, plies=300):
        if state.stones and len({s.player for s in state.stones}) == 3:
            break
    root = parse(horus.svg(state))
    drawn = of_class(root, "stone")
    assert len(drawn) == len(state.stones)
    for element, stone in zip(drawn, state.stones, strict=True):
        assert element.get("data-at") == str(stone.at)
        assert int(element.get("data-seat")) == stone.player
        disc = next(element.iter(f"{SVG}circle"))
        # The kit's colour for the seat (white, yellow, black, blue in the box).
        assert disc.get("fill") == colour(HORUS.seat_colour(state, stone.player))
        assert str(stone.player) in texts_in(element)  # colour is never alone
        seen.add(disc.get("fill"))
    assert len(seen) == 3


# -- hints and the count ------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2])
def test_the_places_marked_are_exactly_where_the_engines_legal_moves_begin(seed):
    phases = set()
    for k, state in enumerate(playout(seed, plies=300)):
        if k % 3:
            continue
        legal = HORUS.legal_moves(state)
        begins = set()
        for move in legal:
            if isinstance(move, Lay | SetStone):
                begins.add(str(move.at))
            elif isinstance(move, ReplaceEnd):
                begins.add(str(move.end))
            elif isinstance(move, MoveStone):
                begins.add(str(move.source))
        assert marked(parse(horus.svg(state))) == begins, HORUS.where(state)
        if begins:
            phases.add(state.phase)
    assert {"bag-tile", "stack-tile", "stone"} <= phases


def test_the_count_shown_is_the_engines_breakdown():
    checked = 0
    for k, state in enumerate(playout(4, plies=400)):
        if k % 20:
            continue
        report = breakdown(state)
        root = parse(horus.svg(state))
        rows = of_class(root, "count")
        assert [int(r.get("data-score")) for r in rows] == report["scores"]
        for row, player in zip(rows, report["players"], strict=True):
            assert f"{player['score']} points" in texts_in(row)
            held = of_class(row, "held")
            listed = player["regions"]  # every one, a long row on further lines
            assert [int(e.get("data-region")) for e in held] == [r["region"] for r in listed]
            assert [int(e.get("data-value")) for e in held] == [r["value"] for r in listed]
            assert [e.get("data-shared") == "1" for e in held] == [r["shared"] for r in listed]
        checked += any(report["scores"])
    assert checked > 5


def _box(element) -> tuple[float, float, float, float]:
    rect = next(element.iter(f"{SVG}rect"))
    x, y = float(rect.get("x")), float(rect.get("y"))
    return x, y, x + float(rect.get("width")), y + float(rect.get("height"))


def test_a_long_row_of_regions_runs_on_over_lines_inside_its_row():
    # Seat 0 holds twelve one-tile regions of alternating terrain above the start tiles
    # (a player may hold any number: the count lists every one, none cut off).
    terrains = ["desert", "hills", "farmland", "swamp"]
    tiles = [(x, 2, terrains[k % 4]) for k, x in enumerate(range(-12, 12, 2))]
    state = position(tiles, [(x, 2, 0) for x, _, _ in tiles], players=2)
    report = breakdown(state)
    root = parse(horus.svg(state))
    row, other = of_class(root, "count")
    held = of_class(row, "held")
    assert [int(e.get("data-region")) for e in held] == [
        r["region"] for r in report["players"][0]["regions"]
    ]
    assert len(held) == 12
    left, top, right, bottom = _box(row)
    boxes = [_box(e) for e in held]
    assert len({b[1] for b in boxes}) >= 2  # more than one line
    for k, (x0, y0, x1, y1) in enumerate(boxes):
        assert left <= x0 and x1 <= right and top <= y0 and y1 <= bottom, k
        for ox0, oy0, ox1, oy1 in boxes[k + 1 :]:
            assert x1 <= ox0 or ox1 <= x0 or y1 <= oy0 or oy1 <= y0  # no two overlap
    assert _box(other)[1] > bottom  # the next player's row starts below
    assert "…" not in " ".join(texts_in(row))


# -- a flag held by the table -------------------------------------------------------------


def test_a_refused_river_end_block_is_shown_with_its_rule_in_words_where_it_went():
    for state in playout(5, plies=600):
        if HORUS.to_act(state) not in (None, CHANCE) and state.phase == "bag-tile":
            refused = HORUS.refused_blocks(state)
            if refused:
                break
    else:
        pytest.fail("the playout met no refused river-end block")
    move = Lay(state.seat, "desert", refused[0])
    violation = HORUS.violation(state, move)
    assert violation.rule == "horus.river-end-blocked"
    flag = {"rule": violation.rule, "detail": violation.detail,
            "move": HORUS.move_to_json(move)}  # fmt: skip
    for lang, words in (("en", rule_entry(violation.rule).rule),
                        ("de", rule_entry(violation.rule).german)):  # fmt: skip
        root = parse(horus.svg(state, lang=lang, flag=flag))
        (band,) = of_class(root, "flag")
        assert band.get("data-rule") == "horus.river-end-blocked"
        assert words[:50] in " ".join(texts_in(band))
        (ghost,) = of_class(root, "flagged")
        assert ghost.get("data-at") == str(refused[0])
        assert str(refused[0]) in texts_in(of_class(root, "status")[0])[0]
    plain = parse(horus.svg(state))
    assert not of_class(plain, "flag") and not of_class(plain, "flagged")
    assert of_class(plain, "note")[0].get("data-rule") == "horus.river-end-blocked"


@pytest.fixture
def horus_table(tmp_path):
    """A Horus table behind the API, the first bag tile drawn."""
    journal = Journal(tmp_path / "journal.sqlite")
    table = Table(TableConfig("horus-1", "horus", ("Ada", "Ben", "Cy"), "4711"), journal)
    rng = random.Random("horus-panel:table")
    while table.game.to_act(table.state) is CHANCE:
        table.play(table.game.move_to_json(sample_chance(table.game, table.state, rng)))
    return table, create_app(Service([table], time.monotonic)).test_client()


def test_an_illegal_tile_tapped_is_flagged_and_the_panel_shows_the_rule(horus_table):
    table, client = horus_table
    # The end at 2,0 and a tile at 4,2 meet at a corner only: no contact.
    answer = client.post("/api/tables/horus-1/taps", json={"taps": ["4,2", "tile:desert"]},
                         headers=PIN)  # fmt: skip
    assert answer.status_code == 422
    rule = answer.get_json()["flag"]["rule"]
    assert rule == "horus.corner-contact"
    assert len(table.state.tiles) == 3  # refused: the layout is as it was
    for lang, words in (("en", rule_entry(rule).rule), ("de", rule_entry(rule).german)):
        root = parse(client.get(f"/api/tables/horus-1/panel?lang={lang}").get_json()["svg"])
        (band,) = of_class(root, "flag")
        assert band.get("data-rule") == rule
        assert words[:50] in " ".join(texts_in(band))
        assert of_class(root, "flagged")[0].get("data-at") == "4,2"
    client.post("/api/tables/horus-1/dismiss", json={}, headers=PIN)
    root = parse(client.get("/api/tables/horus-1/panel").get_json()["svg"])
    assert not of_class(root, "flag") and not of_class(root, "flagged")


def test_a_game_in_progress_is_joined_from_its_notation(horus_table):
    # Horus has no board editor: "Edit the position" gives the position in the notation,
    # and the table takes it back changed, checked as any state document is.
    table, client = horus_table
    edit = client.post("/api/tables/horus-1/edit", json={}, headers=PIN).get_json()
    assert edit["editor"] is False and edit["draft"] == HORUS.state_to_json(table.state)
    before = table.seq
    document = HORUS.state_to_json(midgame(seed=3))
    answer = client.post("/api/tables/horus-1/games", json={"position": document}, headers=PIN)
    assert answer.status_code == 200, answer.get_json()
    assert client.get("/api/tables/horus-1/state").get_json()["state"] == document
    root = parse(client.get("/api/tables/horus-1/panel").get_json()["svg"])
    assert len(of_class(root, "tile")) == len(document["tiles"]) > 3
    # A river end carried away from the river is refused with its rule and field, and
    # the table keeps its position.
    end = next(t for t in document["tiles"] if t[2] == "end")
    far = max(y for _, y, _ in document["tiles"]) + 40
    moved = dict(document, tiles=[[x, far, k] if [x, y, k] == end else [x, y, k]
                                  for x, y, k in document["tiles"]])  # fmt: skip
    moved["tiles"].sort(key=lambda t: (t[1], t[0]))
    seq = table.seq
    refused = client.post("/api/tables/horus-1/games", json={"position": moved}, headers=PIN)
    assert refused.status_code == 400
    error = refused.get_json()["error"]
    assert "position: tiles[" in error and "[horus." in error, error
    assert table.seq == seq > before
    assert client.get("/api/tables/horus-1/state").get_json()["state"] == document


def test_a_legal_tile_tapped_is_laid(horus_table):
    table, client = horus_table
    panel = client.get("/api/tables/horus-1/panel").get_json()
    tapped = [m for m in panel["moves"] if m["taps"]]
    assert tapped
    choice = tapped[0]
    answer = client.post("/api/tables/horus-1/taps", json={"taps": choice["taps"]}, headers=PIN)
    assert answer.status_code == 200 and answer.get_json()["complete"]
    assert len(table.state.tiles) == 4
    root = parse(client.get("/api/tables/horus-1/panel").get_json()["svg"])
    assert len(of_class(root, "tile")) == 4


# -- taps ---------------------------------------------------------------------------------


@pytest.mark.parametrize("view", [View.TABLE, View.FULL])
def test_the_taps_of_every_legal_move_are_drawn_and_compose_back_to_it(view):
    kinds = set()
    for k, state in enumerate(playout(6, plies=400, view=view)):
        if HORUS.to_act(state) in (None, CHANCE) or k % 2:
            continue
        shown = set(places(parse(horus.svg(state))))
        for move in HORUS.legal_moves(state):
            taps = horus.taps(state, move)
            if not isinstance(move, Lay | ReplaceEnd | SetStone | MoveStone):
                assert taps == ()  # cards, the Nile card, setting aside, skipping: buttons
                continue
            assert taps and set(taps) <= shown, (move, taps)
            for n in range(len(taps)):
                assert horus.compose(state, taps[:n]) is None, taps[:n]
            assert horus.compose(state, taps) == move
            kinds.add(type(move).__name__)
    assert {"Lay", "SetStone"} <= kinds


def test_illegal_moves_are_composed_for_the_rules_to_judge():
    state = next(s for s in playout(1) if s.phase == "bag-tile" and HORUS.to_act(s) == 0)
    temple = horus.compose(state, ("0,2", "tile:temple"))
    assert temple == Lay(0, "temple", Pos(0, 2))  # beside the pyramid: river only
    corner = horus.compose(state, ("4,2", "tile:hills"))
    assert HORUS.violation(state, corner).rule == "horus.corner-contact"
    far = horus.compose(state, ("-20,7", "tile:swamp"))
    assert HORUS.violation(state, far).rule == "horus.touch"
    moved = horus.compose(state, ("2,0", "4,0"))  # a tap on an end moves it
    assert moved == ReplaceEnd(0, Pos(2, 0), Pos(4, 0))


@pytest.mark.parametrize(
    ("taps", "why"),
    [
        (("tile:desert",), "tap the place first"),
        (("0,2", "0,4"), "is a place: after the place, tap the tile"),
        (("0,2", "tile:pyramid"), "no tile of this kit"),
        (("a1",), "no place of this layout"),
        (("01,2",), "no place of this layout"),
        (("0,2", "tile:desert", "0,4"), "at most two taps"),
    ],
)
def test_taps_that_form_no_move_are_refused_and_quoted(taps, why):
    state = next(s for s in playout(1) if s.phase == "bag-tile" and HORUS.to_act(s) == 0)
    with pytest.raises(TapError, match=re.escape(why)) as refused:
        horus.compose(state, taps)
    assert repr(taps[0]) in str(refused.value)


def test_no_taps_while_a_card_is_due_a_tile_is_drawn_or_the_game_is_over():
    state = new_game("horus", 2, view=View.TABLE)
    with pytest.raises(TapError, match="waiting for"):
        horus.compose(state, ("0,2",))
    card = next(s for s in playout(1) if s.phase == "card" and HORUS.to_act(s) is not CHANCE)
    with pytest.raises(TapError, match="play it with a button"):
        horus.compose(card, ("0,2",))
    final = None
    for final in playout(2, plies=3000):  # noqa: B007 - the last state is wanted
        pass
    assert HORUS.is_over(final)
    with pytest.raises(TapError, match="game is over"):
        horus.compose(final, ("0,2",))
    root = parse(horus.svg(final))
    assert root.find(f"{SVG}title").text.startswith("Horus layout: Game over")
    assert of_class(root, "note")[0].get("data-rule") == HORUS.outcome(final).reason
    assert not marked(root)
    assert "final: yes" in " ".join(texts_in(root))


def test_the_panel_speaks_german():
    state = midgame()
    root = parse(horus.svg(state, lang="de"))
    words = " ".join(texts_in(root))
    assert "Wertung der Auslage" in words and "Punkte" in words
    for terrain in state.kit.terrains:
        assert terrain.german in words  # the stacks and the tiles to tap
    assert "Nekropolenplättchen" in words
    assert "Plättchen anlegen" in words


def test_horus_is_a_registered_panel():
    assert panel_for("horus") is horus
