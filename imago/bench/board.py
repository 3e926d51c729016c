"""Board benchmark: random-game moves per second on 9x9 and 19x19.

A random game is what a playout does: each move is drawn uniformly among the
legal moves that do not fill the mover's own eyes (legality fully checked,
positional superko included), then played with captures and hash updates,
until two passes. Figures are medians over several runs.
"""

from __future__ import annotations

import random
import statistics
import sys
import time

from imago.game import BLACK, GameBoard, GameState


def random_game(size: int, rng: random.Random) -> int:
    """Play one random game (``GameBoard.playout``); return the number of
    stones played."""
    return GameBoard(size).playout(BLACK, rng)


def checked_game(size: int, rng: random.Random) -> int:
    """A random game through ``GameBoard.play`` (legality checked again on
    play, as GTP ``play`` does)."""
    board = GameBoard(size)
    color, passes, moves = BLACK, 0, 0
    limit = 3 * size * size
    while passes < 2 and moves < limit:
        point = board.random_move(color, rng)
        board.play(point, color)
        passes = passes + 1 if point is None else 0
        moves += point is not None
        color = 3 - color
    return moves


def tree_game(size: int, rng: random.Random) -> int:
    """A random game through ``GameState.play``: a tree node and a board copy
    per move, as the engine keeps its game."""
    game = GameState(size)
    color, moves = BLACK, 0
    limit = 3 * size * size
    while game.consecutive_passes() < 2 and moves < limit:
        point = game.board.random_move(color, rng)
        game.play(color, point)
        moves += point is not None
        color = 3 - color
    return moves


def moves_per_second(play, size: int, seconds: float, seed: int) -> float:
    rng = random.Random(seed)
    moves, start = 0, time.perf_counter()
    while True:
        moves += play(size, rng)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return moves / elapsed


def median_rate(play, size: int, runs: int, seconds: float) -> tuple[float, float, float]:
    rates = [moves_per_second(play, size, seconds, seed) for seed in range(runs)]
    return statistics.median(rates), min(rates), max(rates)


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    runs, seconds = (3, 0.3) if quick else (7, 1.0)
    print(f"imago board benchmark: Python {sys.version.split()[0]}, {runs} runs x {seconds:g} s, "
          "median (min-max)")
    goal = 17000
    for label, play in (("random game (random_move + place)", random_game),
                        ("random game via GameBoard.play", checked_game),
                        ("random game via GameState.play (tree)", tree_game)):
        for size in (9, 19):
            med, low, high = median_rate(play, size, runs, seconds)
            line = f"  {label:<40} {size:>2}x{size:<2} {med:>10,.0f} moves/s ({low:,.0f}-{high:,.0f})"
            if play is random_game and size == 9:
                line += f"   goal {goal:,}: ratio {med / goal:.1f}x"
            print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
