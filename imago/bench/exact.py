"""Exact-solver benchmark: the smallest boards solved from a fresh table.

Prints, for the empty 3x3 and 4x4 boards, the median seconds and positions
searched of :class:`imago.search.exact.ExactSolver` with a fresh table, the
positions per second, and then a whole 4x4 game of the engine's defaults
(the solver choosing every move, its table kept): seconds for the first
move and for all the others together, and their ratio.
"""

from __future__ import annotations

import statistics
import time

from imago.game import GameState
from imago.search.exact import ExactSolver


def solve_empty(size: int) -> tuple[float, int, int]:
    """Seconds, positions searched and value of the empty board, fresh table."""
    solver = ExactSolver(size)
    started = time.perf_counter()
    solution = solver.solve(0, 0, True, False, [(0, 0)])
    return time.perf_counter() - started, solver.nodes, solution.score


def self_play_4x4() -> tuple[list[float], str]:
    """Seconds per move of a 4x4 game of the engine's defaults, and its result."""
    from imago.engine.algorithm import create_algorithm

    algorithm = create_algorithm("mcts", seed=1)
    state = GameState(4, komi=0)
    seconds = []
    while not state.is_over and len(seconds) < 100:
        started = time.perf_counter()
        point = algorithm.choose_move(state, state.to_move)
        seconds.append(time.perf_counter() - started)
        state.play(state.to_move, point)
    return seconds, state.count().result


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    for size, runs in ((3, 5), (4, 1 if quick else 3)):
        measured = [solve_empty(size) for _ in range(runs)]
        seconds = statistics.median(m[0] for m in measured)
        nodes = statistics.median(m[1] for m in measured)
        print(f"exact {size}x{size} ({runs} runs, medians): value {measured[0][2]:+d} for "
              f"Black, {seconds:.2f} s, {nodes:,.0f} positions, "
              f"{nodes / max(seconds, 1e-9):,.0f} positions/s")
    seconds, result = self_play_4x4()
    rest = sum(seconds[1:])
    print(f"exact 4x4 self-play ({len(seconds)} moves, {result}): first move "
          f"{seconds[0]:.2f} s, the other {len(seconds) - 1} together {rest:.3f} s "
          f"(first / rest {seconds[0] / max(rest, 1e-9):,.0f}x)")
    return 0
