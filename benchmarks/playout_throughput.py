"""Random-playout throughput for every registered game: games/s and moves/s.

    python benchmarks/playout_throughput.py [--games N] [--seed S] [--game NAME]

Figures depend on the machine and its load; compare games within one run.
"""

from __future__ import annotations

import argparse
import time

from rules import GAMES, new_game
from rules.playout import game_rng, random_playout


def measure(name: str, games: int, seed: int, ply_limit: int) -> dict[str, float]:
    game = GAMES[name]
    initial = new_game(name)
    moves = finished = 0
    started = time.perf_counter()
    for index in range(games):
        playout = random_playout(game, initial, game_rng(seed, index), ply_limit)
        moves += len(playout.moves)
        finished += playout.finished
    elapsed = time.perf_counter() - started
    return {
        "games": games,
        "finished": finished,
        "moves": moves,
        "seconds": elapsed,
        "games_per_s": games / elapsed,
        "moves_per_s": moves / elapsed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ply-limit", type=int, default=10_000)
    parser.add_argument("--game", action="append", choices=sorted(GAMES))
    args = parser.parse_args()
    header = ("game", "games", "finished", "moves", "s", "games/s", "moves/s")
    print("{:<10} {:>6} {:>8} {:>8} {:>7} {:>8} {:>9}".format(*header))
    for name in args.game or sorted(GAMES):
        r = measure(name, args.games, args.seed, args.ply_limit)
        print(
            f"{name:<10} {r['games']:>6} {r['finished']:>8} {r['moves']:>8} {r['seconds']:>7.2f} "
            f"{r['games_per_s']:>8.1f} {r['moves_per_s']:>9.0f}"
        )


if __name__ == "__main__":
    main()
