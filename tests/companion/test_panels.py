"""The board panels: pictures drawn from the state and its kit, taps that round-trip to
moves, illegal taps left for the rules to judge, and taps that form no move refused."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from svg_tree import SVG, classes, parse, places, words_of

from companion.panels import PANELS, TapError, panel_for
from rules import IllegalMove, get_game, new_game
from rules.gimmel import DrawLots, Kind, Leap, Place
from rules.grid import Square
from rules.kits import load_kit
from rules.playout import choose_move
from rules.regie import Doubt, Insert, MoveBox, Slide, Start
from rules.uraeus import TAIL, Advance, Roll

GAMES = ("gimmel", "uraeus", "regie")


def drawn(root: ET.Element, cls: str) -> int:
    """How many pieces of class ``cls`` the picture shows (a group may stand for several)."""
    return sum(int(e.get("data-count", "1")) for e in root.iter() if cls in classes(e))


def playout(name: str, seed: int, players: int | None = None, plies: int = 400) -> Iterator[Any]:
    """The states of one seeded random game, the initial one first."""
    game = get_game(name)
    rng = random.Random(f"panels:{name}:{seed}")
    state = new_game(name, players)
    for _ in range(plies):
        yield state
        if game.is_over(state):
            return
        state = game.play(state, choose_move(game, state, rng))


def start(name: str, players: int | None = None, *moves: Any) -> Any:
    game = get_game(name)
    state = new_game(name, players)
    for move in moves:
        state = game.play(state, move)
    return state


# -- taps -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "players", "plies"),
    [("gimmel", 2, 100), ("uraeus", 2, 300), ("uraeus", 4, 200), ("regie", 2, 300)],
)
@pytest.mark.parametrize("seed", [1, 2])
def test_the_taps_of_every_legal_move_compose_back_to_it(name, players, plies, seed):
    game, panel = get_game(name), panel_for(name)
    tapped = 0
    for state in playout(name, seed, players, plies):
        shown = set(places(parse(panel.svg(state))))
        for move in game.legal_moves(state):
            taps = panel.taps(state, move)
            if not taps:
                continue
            tapped += 1
            assert set(taps) <= shown, f"{taps} not all drawn"
            for k in range(len(taps)):
                assert panel.compose(state, taps[:k]) is None, f"{taps[:k]} is a beginning"
            assert panel.compose(state, taps) == move
    assert tapped > 50  # the playout reached moves that are tapped


@pytest.mark.parametrize("name", GAMES)
def test_any_move_legal_or_not_has_drawn_taps_that_compose_to_the_same_taps(name):
    game, panel = get_game(name), panel_for(name)
    rng = random.Random(f"panels:random:{name}")
    composed = refused = 0
    messages = []
    for state in playout(name, 8, plies=150):
        shown = set(places(parse(panel.svg(state))))
        actor = game.to_act(state)
        for _ in range(20):
            move = game.random_move(state, rng)
            taps = panel.taps(state, move)
            if not taps:
                continue
            assert set(taps) <= shown, f"{move}: {taps} not all drawn"
            try:
                again = panel.compose(state, taps)
            except TapError as error:
                refused += 1
                messages.append((taps, str(error)))
                continue
            composed += 1
            assert panel.taps(state, again) == taps
            assert type(again) is type(move) and again.player == actor
    assert composed > 50 and refused > 5
    assert all(repr(taps[0]) in message for taps, message in messages)


@pytest.mark.parametrize(
    ("name", "state", "move"),
    [
        ("gimmel", lambda: start("gimmel"), DrawLots(0)),
        ("uraeus", lambda: start("uraeus", 2), Roll(3)),
        ("regie", lambda: start("regie"), Start(1)),
    ],
)
def test_chance_moves_and_buttons_have_no_taps(name, state, move):
    state = state()
    panel = panel_for(name)
    assert panel.taps(state, move) == ()
    with pytest.raises(TapError, match="waiting for"):
        panel.compose(state, ("anything",))
    for after in playout(name, 3, plies=200):
        for choice in get_game(name).legal_moves(after):
            if type(choice).__name__ in ("Pass", "Return", "ClaimDraw"):
                assert panel.taps(after, choice) == ()


def test_an_illegal_gimmel_leap_is_composed_and_the_rules_reject_it():
    gimmel = get_game("gimmel")
    state = start("gimmel", None, DrawLots(0), Place(0, Kind.CAT, Square(2, 2)))
    state = gimmel.play(state, Place(1, Kind.BEETLE, Square(5, 9)))
    move = panel_for("gimmel").compose(state, ("c3", "c4"))  # a cat leaps two, not one
    assert move == Leap(0, Square(2, 2), Square(2, 3))
    with pytest.raises(IllegalMove) as error:
        gimmel.play(state, move)
    assert error.value.rule == "gimmel.full-distance"
    # The opponent's piece is a leap too: the rules say whose it is.
    move = panel_for("gimmel").compose(state, ("f10", "f11"))
    with pytest.raises(IllegalMove) as error:
        gimmel.play(state, move)
    assert error.value.rule == "gimmel.not-own-piece"


def test_a_placement_from_an_empty_reserve_is_composed_for_the_rules():
    gimmel = get_game("gimmel")
    state = start("gimmel", None, DrawLots(1))
    for k in range(4):  # seat 1 places all its falcons, seat 0 beetles in between
        state = gimmel.play(state, Place(1, Kind.FALCON, Square(k, 0)))
        state = gimmel.play(state, Place(0, Kind.BEETLE, Square(k, 17)))
    move = panel_for("gimmel").compose(state, ("reserve:1:falcon", "e5"))
    assert move == Place(1, Kind.FALCON, Square(4, 4))
    with pytest.raises(IllegalMove) as error:
        gimmel.play(state, move)
    assert error.value.rule == "gimmel.no-reserve"


def test_a_blocked_uraeus_path_is_composed_and_the_rules_name_the_block():
    uraeus = get_game("uraeus")
    data = uraeus.state_to_json(start("uraeus", 2, Roll(5), Roll(2), Roll(3)))
    data["track"] = {
        "10": [{"player": 0, "facing": "tail"}],
        "11": [{"player": 1, "facing": "head"}],
    }
    data["border"] = [2, 2]
    state = uraeus.state_from_json(data)
    panel = panel_for("uraeus")
    move = panel.compose(state, ("field:10", "field:13"))
    assert move == Advance(0, 10, None)
    with pytest.raises(IllegalMove) as error:
        uraeus.play(state, move)
    assert error.value.rule == "uraeus.pass-from-front"
    # Turning at the second step ends on 10 again: that path is legal and found.
    assert panel.compose(state, ("field:10", "field:10")) == Advance(0, 10, 2)
    with pytest.raises(TapError, match=r"'field:20'.*no path of 3 steps"):
        panel.compose(state, ("field:10", "field:20"))


def test_an_illegal_regie_box_move_is_composed_for_the_rules():
    regie = get_game("regie")
    state = start("regie", None, Start(0))
    panel = panel_for("regie")
    assert panel.compose(state, ("box:3",)) == MoveBox(0, 3)
    assert panel.compose(state, ("level:6:left",)) == Slide(0, 6, -1)
    assert panel.compose(state, ("insert:0",)) == Insert(0, 0)
    with pytest.raises(IllegalMove) as error:
        regie.play(state, panel.compose(state, ("box:2",)))  # where it stands
    assert error.value.rule == "regie.box-step"


@pytest.mark.parametrize(
    ("name", "taps", "why"),
    [
        ("gimmel", ("z99",), "no place"),
        ("gimmel", ("c3",), "empty"),
        ("gimmel", ("reserve:1:cat",), "seat 1's reserve"),
        ("gimmel", ("reserve:0:dragon",), "no place"),
        ("gimmel", ("reserve:0:cat", "reserve:0:cat"), "a reserve"),
        ("gimmel", ("reserve:0:cat", "c3", "c4"), "at most two taps"),
        ("uraeus", ("field:64",), "no place"),
        ("uraeus", ("field:7",), "empty"),
        ("uraeus", ("border:1",), "seat 1's border"),
        ("uraeus", ("border:0", "bord"), "no place"),
        ("regie", ("insert:7",), "no place"),
        ("regie", ("level:0:left",), "no place"),
        ("regie", ("level:1:up",), "no place"),
        ("regie", ("box:1", "box:2"), "one tap"),
    ],
)
def test_taps_that_form_no_move_are_refused_and_quoted(name, taps, why):
    state = {
        "gimmel": lambda: start("gimmel", None, DrawLots(0)),
        "uraeus": lambda: start("uraeus", 2, Roll(5), Roll(2), Roll(3)),
        "regie": lambda: start("regie", None, Start(0)),
    }[name]()
    with pytest.raises(TapError) as error:
        panel_for(name).compose(state, taps)
    message = str(error.value)
    assert why in message
    assert all(repr(tap) in message for tap in taps)


def test_taps_must_be_a_sequence_of_strings():
    state = start("regie", None, Start(0))
    for bad in ("insert:1", ("insert:1", 3), None):
        with pytest.raises(TapError, match="taps"):
            panel_for("regie").compose(state, bad)


def test_no_taps_while_the_game_is_over():
    state = next(s for s in playout("regie", 5, plies=2000) if get_game("regie").is_over(s))
    with pytest.raises(TapError, match="over"):
        panel_for("regie").compose(state, ("insert:1",))


@pytest.mark.parametrize(("name", "players"), [("uraeus", 2), ("regie", 2)])
def test_a_finished_game_names_its_winner(name, players):
    game = get_game(name)
    *_, final = playout(name, 9, players, plies=5000)
    assert game.is_over(final)
    outcome = game.outcome(final)
    heading = parse(panel_for(name).svg(final, lang="de")).find(f"{SVG}title").text
    if outcome.is_draw:
        assert heading.endswith("Spiel vorbei: unentschieden")
    else:
        (winner,) = outcome.winners
        who = {"uraeus": f"Platz {winner} ", "regie": ("Rot", "Blau")[winner]}[name]
        assert f"Spiel vorbei: {who}" in heading and heading.endswith("gewinnt")


def test_an_unknown_game_or_language_is_a_clear_value_error():
    assert set(PANELS) == {"gimmel", "uraeus", "regie", "nil", "horus"}
    with pytest.raises(ValueError, match=r"'senet'.*gimmel, horus, nil, regie, uraeus"):
        panel_for("senet")
    with pytest.raises(ValueError, match="'fr'"):
        panel_for("gimmel").svg(start("gimmel"), lang="fr")


# -- the pictures -----------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(PANELS))
def test_the_picture_is_one_scalable_svg_with_a_title(name):
    root = parse(panel_for(name).svg(new_game(name)))
    assert root.get("role") == "img"
    assert root.get("width") is None and root.get("height") is None
    assert len(root.get("viewBox").split()) == 4
    assert root.find(f"{SVG}title").text
    for place in places(root).values():  # the outline a hint or a tap restyles
        assert any("cell" in classes(e) for e in place.iter()), place.get("data-place")
        assert place.find(f"{SVG}title").text  # what the place is, for screen readers


def test_gimmel_draws_every_square_and_reserve_of_its_kit():
    for kit in (load_kit("gimmel"), get_game("gimmel").kit_from_json(_gimmel_kit(6, 5))):
        state = get_game("gimmel").new(2, None, kit)
        found = places(parse(panel_for("gimmel").svg(state)))
        squares = {str(Square(c, r)) for c in range(kit.columns) for r in range(kit.rows)}
        reserves = {f"reserve:{s}:{k}" for s in (0, 1) for k in ("beetle", "cat", "falcon")}
        assert set(found) == squares | reserves


def test_gimmel_pieces_stand_where_the_state_has_them():
    gimmel, panel = get_game("gimmel"), panel_for("gimmel")
    state = start("gimmel", None, DrawLots(1))
    before = places(parse(panel.svg(state)))["c3"]
    assert not [e for e in before.iter() if "piece" in classes(e)]
    state = gimmel.play(state, Place(1, Kind.CAT, Square(2, 2)))
    root = parse(panel.svg(state))
    square = places(root)["c3"]
    pieces = [e for e in square.iter() if "piece" in classes(e)]
    assert [(p.get("data-owner"), p.get("data-kind")) for p in pieces] == [("1", "cat")]
    assert pieces[0].find(f"{SVG}polygon") is not None  # the cat goddess is a triangle
    reserve = places(root)["reserve:1:cat"]
    assert [e.get("data-count") for e in reserve.iter() if e.get("data-count")] == ["3"]
    for state in playout("gimmel", 4, plies=150):
        on_board = sum(piece is not None for piece in state.board)
        assert drawn(parse(panel.svg(state)), "piece") == on_board


def test_gimmel_speaks_german():
    state = start("gimmel", None, DrawLots(0))
    german = words_of(parse(panel_for("gimmel").svg(state, lang="de")))
    english = words_of(parse(panel_for("gimmel").svg(state, lang="en")))
    for word in ("Vorrat", "Geschlagen", "Weiß", "Schwarz", "Platz 0"):
        assert word in german and word not in english
    assert "Reserve" in english and "Reserve" not in german


def test_uraeus_draws_the_fields_and_marks_of_its_kit():
    data = load_kit("uraeus").to_json()
    data["track"] = {"tail": 30, "scale": [10, 20], "goose": [27, 28, 29]}
    for kit in (load_kit("uraeus"), get_game("uraeus").kit_from_json(data)):
        state = get_game("uraeus").new(3, None, kit)
        root = parse(panel_for("uraeus").svg(state))
        fields = {f"field:{f}" for f in range(kit.tail + 1)}
        assert set(places(root)) == fields | {f"border:{s}" for s in range(3)}
        marks = {}
        for element in root.iter():
            if element.get("data-mark"):
                marks.setdefault(element.get("data-mark"), []).append(element)
        assert len(marks["scale"]) == len(kit.scale) and len(marks["goose"]) == len(kit.goose)


def test_uraeus_pieces_facings_and_the_die_follow_the_state():
    panel = panel_for("uraeus")
    doubles = 0
    for state in playout("uraeus", 6, players=4, plies=300):
        root = parse(panel.svg(state))
        assert drawn(root, "piece") == sum(len(stones) for stones in state.track)
        found = places(root)
        for field, stones in enumerate(state.track):
            if not stones:
                continue
            here = [e for e in found[f"field:{field}"].iter() if "piece" in classes(e)]
            assert sum(int(e.get("data-count")) for e in here) == len(stones)
            if field:
                facings = [e.get("data-facing") for e in here]
                assert facings == [("tail" if s.facing == TAIL else "head") for s in stones]
            doubles += field > 0 and len(stones) == 2
        die = next(e for e in root.iter() if "die" in classes(e))
        assert die.get("data-face") == (None if state.roll is None else str(state.roll))
        assert len(die.findall(f"{SVG}circle")) == (state.roll or 0)
        text = words_of(root)
        for seat in range(state.players):
            assert f"Border: {state.border[seat]}" in text
            assert f"Home: {state.home[seat]} / 3" in text
    assert doubles  # the playout made doubles


def test_uraeus_draws_a_captured_piece_waiting_for_its_owner():
    uraeus = get_game("uraeus")
    data = uraeus.state_to_json(start("uraeus", 2, Roll(5), Roll(2), Roll(3)))
    data["track"] = {"21": [{"player": 0, "facing": "tail"}]}
    data["border"], data["roll"] = [2, 2], None
    data["pending"] = {"player": 1, "field": 21}
    state = uraeus.state_from_json(data)
    root = parse(panel_for("uraeus").svg(state))
    assert drawn(root, "piece") == 2
    waiting = [e for e in root.iter() if "pending" in classes(e)]
    assert [e.get("data-owner") for e in waiting] == ["1"]
    assert "Seat 1 (blue) decides on the captured piece on field 21" in words_of(root)
    assert uraeus.legal_moves(state) and all(
        panel_for("uraeus").taps(state, move) == () for move in uraeus.legal_moves(state)
    )
    with pytest.raises(TapError, match="use the buttons"):
        panel_for("uraeus").compose(state, ("field:21",))


def test_uraeus_speaks_german_and_escapes_kit_text():
    data = load_kit("uraeus").to_json()
    data["pieces"]["colours"] = ["<b>red</b>", "blue & co", '"green"', "yellow"]
    state = get_game("uraeus").new(4, None, get_game("uraeus").kit_from_json(data))
    root = parse(panel_for("uraeus").svg(state, lang="de"))
    german = words_of(root)
    for word in ("Rand", "Ziel", "Feld", "Schuppenfeld", "Gänsefeld", "Würfel"):
        assert word in german
    assert "<b>red</b>" in german and "blue & co" in german  # shown as text, not markup
    assert "Border" not in german


def test_regie_draws_its_kit_levels_chips_and_box():
    regie, panel = get_game("regie"), panel_for("regie")
    for kit in (load_kit("regie"), regie.kit_from_json(_regie_kit())):
        state = regie.new(2, None, kit)
        root = parse(panel.svg(state))
        expected = {f"insert:{c}" for c in range(kit.columns)}
        expected |= {f"level:{n}:{w}" for n in range(1, 7) for w in ("left", "right")}
        expected |= {"box:1", "box:2", "box:3"}
        assert set(places(root)) == expected
        values = [int(e.get("data-value")) for e in root.iter() if e.get("data-value")]
        assert values == [v for row in kit.box_rows for v in row]
        holes = sum(sum(level.cells) for level in kit.levels)
        assert sum("window" in classes(e) for e in root.iter()) == holes
    for state in playout("regie", 7, plies=400):
        root = parse(panel.svg(state))
        in_windows = sum(owner is not None for bar in state.windows for owner in bar)
        chips = [e for e in root.iter() if classes(e) == {"chip"}]
        assert len(chips) == in_windows
        assert drawn(root, "landed") == len(state.landed)
        box = next(e for e in root.iter() if "box" in classes(e))
        assert box.get("data-position") == str(state.box)


def test_regie_draws_the_kit_as_corrected_by_what_was_seen():
    state = start("regie", None, Start(0))
    assert state.kit.levels[0].cells[2]  # a window of level 1 in the shipped kit
    doubted = replace(state, doubts=(Doubt(ply=0, level=0, cell=2, seen="solid"),))
    before, after = (parse(panel_for("regie").svg(s)) for s in (state, doubted))
    windows = [sum("window" in classes(e) for e in root.iter()) for root in (before, after)]
    assert windows[1] == windows[0] - 1
    assert [sum("doubt" in classes(e) for e in root.iter()) for root in (before, after)] == [0, 1]


def test_regie_speaks_german():
    state = start("regie", None, Start(1))
    german = words_of(parse(panel_for("regie").svg(state, lang="de")))
    for word in ("Ebene 6", "Wertungsbox", "Blau ist am Zug", "8 übrig", "Tisch"):
        assert word in german
    assert "Level" not in german


def _gimmel_kit(columns: int, rows: int) -> dict[str, Any]:
    data = load_kit("gimmel").to_json()
    data["board"] = {"columns": columns, "rows": rows}
    return data


def _regie_kit() -> dict[str, Any]:
    """Five columns, bars of nine cells, four rows of compartments."""
    data = load_kit("regie").to_json()
    data["frame"] = {"columns": 5}
    data["levels"] = [
        {"cells": cells, "travel": travel}
        for cells, travel in (
            ("..o.o.o..", 1),
            ("o..o..o.o", 2),
            (".o.o.o.o.", 2),
            ("..o..o...", 1),
            ("o.o.o...o", 2),
            (".o..o.o..", 2),
        )
    ]
    data["box"] = {
        "rows": [[1, 2, 3, 2, 1], [0, 0, 0, 0, 0], [3, 2, 1, 2, 3], [9, 9, 9, 9, 9]],
        "under_frame": [1, 2, 3],
        "start": 2,
    }
    return data
