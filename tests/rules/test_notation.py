"""The notation (docs/notation.md): its examples parse and agree with the engine, states
and moves round-trip, and malformed documents are refused with the path of the fault."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from rules import (
    GAMES,
    IllegalMove,
    NotationError,
    View,
    format_state,
    get_game,
    new_game,
    parse_state,
)
from rules.notation import dumps, loads
from rules.playout import game_rng, random_playout

DOC = Path(__file__).resolve().parents[2] / "docs" / "notation.md"
GIMMEL = get_game("gimmel")


def examples(kind: str) -> list:
    blocks = re.findall(r"```json (\S+)\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    return [json.loads(body) for tag, body in blocks if tag == kind]


def test_the_documented_moves_lead_to_the_documented_state():
    moves = [GIMMEL.move_from_json(m) for m in examples("gimmel-move")]
    (documented,) = examples("gimmel-state")
    assert len(moves) == 4
    state = new_game("gimmel")
    for move in moves:
        state = GIMMEL.play(state, move)
    assert GIMMEL.state_to_json(state) == documented
    assert parse_state(documented) == state
    assert GIMMEL.scores(state) == (1, 0)


def test_the_documented_uraeus_moves_lead_to_the_documented_state():
    uraeus = get_game("uraeus")
    moves = [uraeus.move_from_json(m) for m in examples("uraeus-move")]
    (documented,) = examples("uraeus-state")
    state = new_game("uraeus", players=2)
    for move in moves:
        state = uraeus.play(state, move)
    assert uraeus.state_to_json(state) == documented
    assert parse_state(documented) == state


def test_every_documented_example_round_trips():
    for document in examples("gimmel-move"):
        assert GIMMEL.move_to_json(GIMMEL.move_from_json(document)) == document
    for document in examples("gimmel-state"):
        state = parse_state(json.dumps(document))
        assert loads(format_state(GIMMEL, state)) == document


def test_canonical_text_is_byte_stable():
    state = parse_state(examples("gimmel-state")[0])
    text = format_state(GIMMEL, state)
    assert text == format_state(GIMMEL, parse_state(text))
    assert text.startswith('{"board":')  # sorted keys, no spaces
    assert " " not in text.replace("Hexagames 1983", "").split('"description"')[0]


def test_a_table_view_game_is_played_and_replayed_from_its_notation():
    initial = new_game("gimmel", view=View.TABLE)
    playout = random_playout(GIMMEL, initial, game_rng(7, 0), ply_limit=5000)
    assert playout.finished
    # What a journal would keep: the initial state and each move, as JSON text.
    record = [format_state(GIMMEL, initial)] + [
        dumps(GIMMEL.move_to_json(move)) for move in playout.moves
    ]
    state = parse_state(record[0])
    assert state.view is View.TABLE
    for line in record[1:]:
        state = GIMMEL.play(state, GIMMEL.move_from_json(loads(line)))
    assert state == playout.final
    assert format_state(GIMMEL, state) == format_state(GIMMEL, playout.final)
    assert GIMMEL.outcome(state) == GIMMEL.outcome(playout.final) is not None


@pytest.mark.parametrize(
    ("document", "fragment"),
    [
        ({"type": "jump", "player": 0}, "move.type: expected one of lot, place"),
        ({"type": "place", "player": 0, "piece": "dragon", "to": "a1"}, "move.piece"),
        ({"type": "place", "player": 0, "piece": "cat", "to": "z0"}, "move.to: expected a square"),
        ({"type": "place", "player": 0, "piece": "cat"}, "move.to: missing"),
        ({"type": "leap", "player": -1, "from": "a1", "to": "a2"}, "move.player"),
        ({"type": "leap", "player": True, "from": "a1", "to": "a2"}, "expected a whole number"),
        ({"type": "pass", "player": 0, "extra": 1}, "move.extra: unknown field"),
        (["place"], "move: expected a JSON object"),
    ],
)
def test_malformed_moves_name_the_bad_field(document, fragment):
    with pytest.raises(NotationError) as error:
        GIMMEL.move_from_json(document)
    assert fragment in str(error.value)
    assert not isinstance(error.value, IllegalMove)


def mutated(**changes):
    document = json.loads(json.dumps(examples("gimmel-state")[0]))
    for path, value in changes.items():
        target = document
        *parents, last = path.split("__")
        for key in parents:
            target = target[int(key)] if isinstance(target, list) else target[key]
        if value is KeyError:
            del target[last]
        else:
            target[int(last) if isinstance(target, list) else last] = value
    return document


@pytest.mark.parametrize(
    ("document", "fragment"),
    [
        (mutated(notation=2), "notation: this companion reads notation version 1"),
        (mutated(notation=KeyError), "notation: missing"),
        (mutated(game="chess"), "game: unknown game 'chess'"),
        (mutated(view="secret"), "view: expected one of full, table"),
        (mutated(players=3), "players: Gimmel is played by 2"),
        (mutated(options__draw="never"), "options: gimmel: option 'draw' must be one of"),
        (mutated(options__speed=1), "options.speed: unknown field"),
        (mutated(kit__board__columns=0), "field 'board.columns'"),
        (mutated(board={"i1": {"player": 0, "piece": "cat"}}), "board.i1: not a square"),
        (mutated(board={"a1": {"player": 0, "piece": "cat", "x": 1}}), "board.a1.x"),
        (mutated(reserve__0__falcon=4), "reserve[0].falcon: seat 0 has more falcons"),
        (mutated(reserve__1__cat=-1), "reserve[1].cat: expected a whole number from 0"),
        (mutated(white=None), "white: no piece moves before the colour lot"),
        (mutated(draw_claimed_by=0), "draw_claimed_by: a draw is claimed only with"),
        (mutated(ply="3"), "ply: expected a whole number"),
        (mutated(extra=1), "extra: unknown field"),
        (mutated(options={"draw": "automatic"}), "options.variant: missing"),
        (mutated(ply=0), "ply: 2 pieces were placed and 0 passes made in fewer turns"),
        (mutated(passes=3), "passes: expected a whole number from 0 to 2"),
        (
            mutated(reserve=[{"beetle": 0, "cat": 0, "falcon": 0}] * 2, ply=99, board={}),
            "reserve: both seats cannot have reached 30 points",
        ),
        (
            mutated(options={"draw": "claim", "variant": False}, draw_claimed_by=1),
            "draw_claimed_by: no draw can be claimed at scores (1, 0)",
        ),
    ],
)
def test_malformed_states_name_the_bad_field(document, fragment):
    with pytest.raises(NotationError) as error:
        parse_state(document)
    assert fragment in str(error.value)


def test_json_syntax_errors_name_the_position():
    with pytest.raises(NotationError, match="line 1 column"):
        parse_state('{"notation": 1,')
    with pytest.raises(NotationError, match="byte 0: not UTF-8 text"):
        parse_state(b"\xff")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_new_states_round_trip_in_both_views(name):
    game = GAMES[name]
    for view in View:
        state = new_game(name, view=view)
        assert parse_state(format_state(game, state)) == state


def uraeus_mutated(**changes):
    document = json.loads(json.dumps(examples("uraeus-state")[0]))
    document.update(changes)
    return document


STONE = {"player": 0, "facing": "tail"}


@pytest.mark.parametrize(
    ("document", "fragment"),
    [
        (uraeus_mutated(players=5), "players: expected a whole number from 2 to 4"),
        (uraeus_mutated(track={"63": [STONE]}), "track.63: expected a field number from 0 to 62"),
        (uraeus_mutated(track={"06": [STONE]}), "track.06: expected a field number"),
        (uraeus_mutated(track={"6": [STONE] * 3}), "track.6: a field holds one piece or a double"),
        (uraeus_mutated(track={"6": []}), "track.6: an empty field is left out"),
        (
            uraeus_mutated(track={"0": [{"player": 0, "facing": "head"}]}),
            "track.0: pieces on the head field face the tail",
        ),
        (
            uraeus_mutated(track={"6": [{"player": 0, "facing": "up"}]}),
            "track.6[0].facing: expected one of tail, head",
        ),
        (
            uraeus_mutated(border=[3, 2]),
            "track: seat 0 has 3 on the border, 0 home and 1 on the track",
        ),
        (uraeus_mutated(roll=7), "roll: expected a whole number from 1 to 6"),
        (uraeus_mutated(turn=2), "turn: expected a whole number from 0 to 1"),
        (uraeus_mutated(finished=[0]), "finished: expected each seat with every piece home"),
        (
            uraeus_mutated(rolloff={"contenders": [0, 1], "rolls": [4]}),
            "rolloff: nothing moves before the roll-off has decided",
        ),
        (
            uraeus_mutated(rolloff={"contenders": [1, 0], "rolls": []}),
            "rolloff.contenders: expected two or more seats in order",
        ),
        (
            uraeus_mutated(pending={"player": 0, "field": 21}, roll=3, border=[1, 2]),
            "pending: a captured piece waits only after the move",
        ),
        (uraeus_mutated(options={"chain": "choose"}), "options.past_head: missing"),
    ],
)
def test_malformed_uraeus_states_name_the_bad_field(document, fragment):
    with pytest.raises(NotationError) as error:
        parse_state(document)
    assert fragment in str(error.value)


@pytest.mark.parametrize(
    ("document", "fragment"),
    [
        ({"type": "advance", "player": 0, "from": "nowhere", "turn": None}, "move.from: expected"),
        ({"type": "advance", "player": 0, "from": 4}, "move.turn: missing"),
        ({"type": "advance", "player": 0, "from": 4, "turn": "2"}, "move.turn: expected a whole"),
        ({"type": "roll", "face": "six"}, "move.face: expected a whole number"),
        ({"type": "return", "player": 0, "engage": "yes"}, "move.engage: expected true or false"),
    ],
)
def test_malformed_uraeus_moves_name_the_bad_field(document, fragment):
    with pytest.raises(NotationError) as error:
        get_game("uraeus").move_from_json(document)
    assert fragment in str(error.value)


def test_the_documented_regie_moves_lead_to_the_documented_state():
    regie = get_game("regie")
    moves = [regie.move_from_json(m) for m in examples("regie-move")]
    (documented,) = examples("regie-state")
    state = new_game("regie")
    for move in moves:
        state = regie.play(state, move)
    assert regie.state_to_json(state) == documented
    assert parse_state(documented) == state


def test_the_documented_regie_reports_are_read_and_round_trip():
    regie = get_game("regie")
    for document in examples("regie-report"):
        move = regie.move_from_json(document)
        assert regie.is_report(move)
        assert regie.move_to_json(move) == document


KITS_DOC = DOC.with_name("kits.md")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_the_kit_format_is_documented_with_the_default_kit_as_example(name):
    import tomllib

    from rules.kits import read_kit_file

    blocks = re.findall(r"```toml (\S+)\n(.*?)```", KITS_DOC.read_text(encoding="utf-8"), re.S)
    (example,) = [tomllib.loads(body) for tag, body in blocks if tag == f"{name}-kit"]
    assert example == read_kit_file(name)
