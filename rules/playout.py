"""Random playouts: the simulation loop that the conformance suite, ``companion simulate``
and the benchmarks share.

Randomness is passed in as a seeded ``random.Random``; chance moves are drawn from
``chance_outcomes`` with their probabilities, player moves uniformly from ``legal_moves``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rules.core import CHANCE, Game, Move


@dataclass(frozen=True)
class Playout:
    initial: Any
    moves: tuple[Move, ...]
    final: Any
    #: True when the game ended by its rules; False when the ply limit stopped it.
    finished: bool


def sample_chance(game: Game, state: Any, rng: random.Random) -> Move:
    """Draw a chance move with exactly the listed probabilities."""
    outcomes = game.chance_outcomes(state)
    if not outcomes:
        raise ValueError(f"{game.name}: chance is to act but lists no outcomes")
    # One draw from [0, 1) compared against exact cumulative fractions.
    point = Fraction(rng.random())
    total = Fraction(0)
    for move, probability in outcomes:
        total += probability
        if point < total:
            return move
    return outcomes[-1][0]


def choose_move(game: Game, state: Any, rng: random.Random) -> Move:
    """A chance move with its probability, or a physical move (a legal one, or a mishap
    the rules define) at random: uniformly, or by the game's playout weights."""
    if game.to_act(state) is CHANCE:
        return sample_chance(game, state, rng)
    moves = game.physical_moves(state)
    if not moves:
        raise ValueError(f"{game.name}: no legal move in {game.where(state)}")
    weights = game.playout_weights(state, moves)
    if weights is None:
        return moves[rng.randrange(len(moves))]
    point = rng.random() * sum(weights)
    for move, weight in zip(moves, weights, strict=True):
        point -= weight
        if point < 0:
            return move
    return moves[-1]


def random_playout(
    game: Game,
    initial: Any,
    rng: random.Random,
    ply_limit: int,
    on_move: Callable[[Any, Move], None] | None = None,
) -> Playout:
    """Play random moves from ``initial`` until the game ends or ``ply_limit`` moves."""
    state = initial
    moves: list[Move] = []
    while not game.is_over(state) and len(moves) < ply_limit:
        move = choose_move(game, state, rng)
        if on_move is not None:
            on_move(state, move)
        state = game.play(state, move)
        moves.append(move)
    return Playout(initial, tuple(moves), state, game.is_over(state))


def game_rng(seed: int, index: int) -> random.Random:
    """The generator for game ``index`` of a run seeded ``seed``: each game replays alone."""
    return random.Random(f"companion:{seed}:{index}")
