"""The conformance suite: every registered game, played at random, keeps its contract.

In the spirit of OpenSpiel's games_sim_test: seeded random playouts in the full view and
in the table view, for the default options and each single non-default option; at every
step the interface's invariants are checked. A game registered later joins by itself.
"""

from __future__ import annotations

import copy
import random
from fractions import Fraction

import pytest

from rules import CHANCE, GAMES, IllegalMove, View, game_of, new_game, parse_state
from rules.catalogue import catalogue
from rules.notation import dumps, loads
from rules.playout import choose_move, game_rng

PLY_LIMIT = 4000
SEEDS = (1, 2)
RANDOM_MOVES_PER_STEP = 3


def option_sets(game):
    """Each option set to each of its non-default choices, one at a time."""
    return [
        {spec.name: choice}
        for spec in game.option_specs
        for choice in spec.choices
        if choice != spec.default
    ]


def cases():
    """Per game and view: the defaults with the fewest and the most players and two
    seeds; then every non-default option once."""
    for name, game in GAMES.items():
        for view in View:
            for players in sorted({game.min_players, game.max_players}):
                for seed in SEEDS:
                    yield name, view, players, {}, seed
            for options in option_sets(game):
                yield name, view, game.min_players, options, SEEDS[0]


CASES = [
    pytest.param(*case, id=f"{case[0]}-{case[1].value}-{case[2]}p-{dumps(case[3])}-{case[4]}")
    for case in cases()
]


def attempt(game, state, move):
    """Play ``move``: the new state and no error, or no state and the refusal."""
    try:
        return game.play(state, move), None
    except IllegalMove as error:
        return None, error


def check_step(game, state, rng):
    """Check every per-state invariant; return the legal player moves."""
    assert game_of(state) is game
    actor = game.to_act(state)
    over = game.is_over(state)
    assert (actor is None) == over
    assert (game.outcome(state) is not None) == over

    moves = game.legal_moves(state)
    outcomes = game.chance_outcomes(state)
    if over:
        assert moves == ()
        assert outcomes == ()
    elif actor is CHANCE:
        assert moves == ()
        assert outcomes, "chance acts but lists no outcomes"
        chance_moves = [move for move, _ in outcomes]
        assert len(set(chance_moves)) == len(chance_moves), "chance outcomes repeat"
        assert all(isinstance(p, Fraction) and p > 0 for _, p in outcomes)
        assert sum(p for _, p in outcomes) == 1
    else:
        assert moves, f"no legal move although the game is not over: {game.where(state)}"
        assert outcomes == ()
        assert len(set(moves)) == len(moves), "legal moves repeat"

    scores = game.scores(state)
    low, high = game.score_bounds(state)
    assert all(low <= score <= high for score in scores), (scores, (low, high))

    # The notation round-trips, through the game and through the generic reader.
    document = game.state_to_json(state)
    text = dumps(document)
    again = game.state_from_json(loads(text))
    assert again == state
    # A stable order: an equal state read back from its notation lists the same moves.
    assert game.legal_moves(again) == moves, "legal moves are not in a stable order"
    assert parse_state(text) == state
    assert dumps(game.state_to_json(again)) == text

    legal = set(moves) | {move for move, _ in outcomes}
    for move in rng.sample(sorted(legal, key=repr), min(len(legal), 8)):
        assert game.move_from_json(loads(dumps(game.move_to_json(move)))) == move
        assert game.violation(state, move) is None

    # Moves drawn from the whole move space: legal ones play, the others are refused
    # with a catalogued rule id and a message that quotes the move.
    known = catalogue()
    results = None
    for _ in range(RANDOM_MOVES_PER_STEP):
        move = game.random_move(state, rng)
        assert game.move_from_json(game.move_to_json(move)) == move
        if move in legal:
            game.play(state, move)
            continue
        after, refused = attempt(game, state, move)
        if refused is not None:
            assert refused.rule in known, f"rule id {refused.rule!r} not catalogued"
            assert game.move_text(move) in str(refused)
            continue
        if game.is_report(move):
            continue  # what was seen to happen: reality, legal or not
        # Accepted although not listed: another path to a listed move's result (legal
        # moves are the distinct results, each with one path).
        if results is None:
            results = {game.play(state, m) for m in legal}
        assert after in results, f"{game.move_text(move)} is accepted but not legal"
    return moves


@pytest.mark.parametrize(("name", "view", "players", "options", "seed"), CASES)
def test_random_playout_keeps_the_contract(name, view, players, options, seed):
    game = GAMES[name]
    initial = new_game(name, players=players, options=options, view=view)
    rng = game_rng(seed, 0)
    checks = random.Random(seed)
    state = initial
    moves = []
    while not game.is_over(state) and len(moves) < PLY_LIMIT:
        check_step(game, state, checks)
        move = choose_move(game, state, rng)
        before = copy.deepcopy(state)
        before_text = dumps(game.state_to_json(state))
        after = game.play(state, move)
        assert state == before, "play mutated its input"
        assert dumps(game.state_to_json(state)) == before_text
        assert after != state, "a move changed nothing"
        moves.append(move)
        state = after
    check_step(game, state, checks)

    # Replaying the recorded moves from the initial state reproduces the final state.
    replayed = initial
    for move in moves:
        replayed = game.play(replayed, move)
    assert replayed == state

    if not game.is_over(state):
        # Reported as unfinished, never counted as over.
        assert game.outcome(state) is None
        pytest.skip(f"unfinished after {PLY_LIMIT} plies (reported, not a failure)")
    assert game.outcome(state) is not None


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_has_a_default_kit_and_round_trips_it(name):
    from rules.kits import load_kit

    game = GAMES[name]
    kit = load_kit(name)
    assert game.kit_from_json(loads(dumps(game.kit_to_json(kit)))) == kit


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_kit_written_as_a_kit_file_reads_back_the_same(name, tmp_path):
    from rules.kits import kit_toml, load_kit

    game = GAMES[name]
    kit = load_kit(name)
    path = tmp_path / f"{name}.toml"
    path.write_text(kit_toml(game.kit_to_json(kit), 'a copy, "quoted"\nsecond line'))
    assert path.read_text().startswith('# a copy, "quoted"\n# second line\n')
    assert load_kit(name, path) == kit


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_option_default_is_among_its_choices(name):
    game = GAMES[name]
    for spec in game.option_specs:
        assert spec.default in spec.choices
        assert spec.doc and spec.source
