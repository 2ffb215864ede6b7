"""Seeded random games and their summary, for ``companion simulate``.

The summary is plain data whose fields are a contract (``docs/cli.md``); it holds no
timing, so that the same arguments give the same bytes. Timing is the caller's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any, TextIO

from rules import Game, View
from rules.playout import Playout, game_rng, random_playout


def simulate(
    game: Game,
    players: int,
    options: dict[str, Any],
    kit: Any,
    *,
    view: View,
    games: int,
    seed: int,
    ply_limit: int,
    on_game: Callable[[Playout], None] | None = None,
) -> dict[str, Any]:
    """Play ``games`` seeded random games and summarise them."""
    initial = game.new(players, options, kit, view)
    situations: Counter[str] = Counter()
    outcomes: Counter[str] = Counter()
    wins = [0] * players
    draws = 0
    lengths: list[int] = []
    finals: list[tuple[int, ...]] = []
    finished = 0

    def count(state: Any, move: Any) -> None:
        situations.update(game.situations(state, move))

    for index in range(games):
        playout = random_playout(game, initial, game_rng(seed, index), ply_limit, on_move=count)
        if on_game is not None:
            on_game(playout)
        lengths.append(len(playout.moves))
        if not playout.finished:
            continue  # reported as unfinished; never counted as an ending
        finished += 1
        finals.append(tuple(game.scores(playout.final)))
        outcome = game.outcome(playout.final)
        outcomes[outcome.reason] += 1
        if outcome.is_draw:
            draws += 1
        for seat in outcome.winners:
            wins[seat] += 1

    return {
        "game": game.name,
        "players": players,
        "options": dict(initial.options),
        "kit": game.kit_to_json(kit)["name"],
        "view": view.value,
        "seed": seed,
        "ply_limit": ply_limit,
        "games": games,
        "finished": finished,
        "unfinished": games - finished,
        "length": _spread(lengths),
        "scores": [_score_summary([f[seat] for f in finals]) for seat in range(players)],
        "wins": wins,
        "draws": draws,
        "outcomes": dict(sorted(outcomes.items())),
        "situations": dict(sorted(situations.items())),
    }


def _spread(values: list[int]) -> dict[str, Any]:
    if not values:
        return {"mean": None, "min": None, "max": None, "total": 0}
    return {
        "mean": round(sum(values) / len(values), 2),
        "min": min(values),
        "max": max(values),
        "total": sum(values),
    }


def _score_summary(values: list[int]) -> dict[str, Any]:
    histogram = Counter(values)
    return {
        **_spread(values),
        # [score, games] pairs in score order: JSON object keys would sort as text.
        "histogram": [[score, histogram[score]] for score in sorted(histogram)],
    }


def show_game(
    game: Game,
    initial: Any,
    *,
    seed: int,
    ply_limit: int,
    out: TextIO,
    delay: float = 0.0,
    sleep: Callable[[float], None] | None = None,
) -> Any:
    """Play one seeded random game, printing each move and the board as it goes."""
    playout = random_playout(game, initial, game_rng(seed, 0), ply_limit)
    state = initial
    print(game.diagram(state), file=out)
    for number, move in enumerate(playout.moves, start=1):
        print(f"\n{number:>4}. {game.describe(state, move)}", file=out)
        state = game.play(state, move)
        print(game.diagram(state), file=out, flush=True)
        if delay and sleep is not None:
            sleep(delay)
    plies = len(playout.moves)
    outcome = game.outcome(state)
    if outcome is None:
        print(f"\nStopped after {plies} plies without an ending (ply limit).", file=out)
    elif outcome.is_draw:
        print(f"\nDrawn: {outcome.detail} [{outcome.reason}]", file=out)
    else:
        seats = " and ".join(f"seat {seat}" for seat in outcome.winners)
        print(f"\nWon by {seats}: {outcome.detail} [{outcome.reason}]", file=out)
    return state
