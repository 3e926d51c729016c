"""The exact solver of the smallest boards (:mod:`imago.search.exact`) and
the engine's use of it on 4x4."""

from __future__ import annotations

import time

import pytest

from imago.engine.algorithm import create_algorithm
from imago.game import BLACK, WHITE, GameState, IllegalMoveError, vertex_to_index
from imago.search.exact import ExactSolver, OutOfTime


def bits(solver: ExactSolver, *vertices: str) -> int:
    """A bitboard of GTP vertices (bit k: row-major from the top-left)."""
    n, mask = solver.size, 0
    for vertex in vertices:
        column, row = "ABCDEFGHJ".index(vertex[0]), n - int(vertex[1:])
        mask |= 1 << (row * n + column)
    return mask


def state_after(size: int, moves: list[str]) -> GameState:
    state = GameState(size, komi=0)
    for move in moves:
        state.play(state.to_move, None if move == "pass" else vertex_to_index(move, size))
    return state


def test_captures_suicide_and_the_area_on_bitboards():
    solver = ExactSolver(3)
    black, white = bits(solver, "A2", "B3"), bits(solver, "A3")
    assert solver.play(black, white, 0) is None  # A3 (bit 0) is occupied
    # Black's B3 takes White's A3, its last liberty
    assert solver.play(bits(solver, "A2"), white, 1) == (black, 0)
    assert solver.play(0, black, 0) is None  # White's A3 would be suicide
    assert solver.area(bits(solver, "B2"), 0) == 9
    assert solver.area(bits(solver, "B2"), bits(solver, "C3")) == 0  # the rest is shared


def test_the_known_values_of_3x3_and_the_first_move():
    solver = ExactSolver(3)
    solution = solver.solve(0, 0, True, False, [(0, 0)])
    assert solution.score == 9 and solution.move == 4  # the centre takes the board


def test_a_game_state_is_solved_for_its_player_to_move():
    """3x3 after Black's centre: White loses the whole board whatever it
    does; the move comes back as a point of the game's board."""
    state = state_after(3, ["B2"])
    solution = ExactSolver(3).solve_game(state)
    assert solution.score == -9
    assert solution.move is None or state.board.illegal_reason(solution.move, WHITE) is None


def test_moves_that_repeat_a_position_are_never_chosen():
    """2x2: White has just taken Black's A2 and holds three points; Black's
    A2 would take them all, but would repeat the position after Black's
    first move, so Black can only pass and lose the board."""
    state = state_after(2, ["A2", "B1", "B2", "A1", "A2", "B2"])
    with pytest.raises(IllegalMoveError):
        state_after(2, ["A2", "B1", "B2", "A1", "A2", "B2", "A2"])
    solution = ExactSolver(2).solve_game(state)
    assert solution.move is None and solution.score == -4


def test_the_solver_gives_up_at_its_deadline_and_keeps_what_it_learnt():
    solver = ExactSolver(4)
    with pytest.raises(OutOfTime):
        solver.solve(0, 0, True, False, [(0, 0)], deadline=time.monotonic() - 1)
    assert solver.nodes >= 4096 and solver.table
    with pytest.raises(ValueError, match="too large"):
        ExactSolver(5)
    with pytest.raises(ValueError, match="4x4 solver"):
        solver.solve_game(GameState(3))


def test_the_engine_falls_back_to_its_search_when_the_solver_runs_out_of_time():
    algorithm = create_algorithm("mcts", seed=1, exact_seconds=0.01, visits=50)
    state = GameState(4, komi=0)
    move = algorithm.choose_move(state, BLACK)
    assert move is not None and algorithm.solved is None and algorithm.searched
    off = create_algorithm("mcts", seed=1, exact_seconds=0, visits=50)
    off.choose_move(state, BLACK)
    assert off.solver is None and off.searched
    # asked for the colour not to move: the search answers
    solving = create_algorithm("mcts", seed=1, visits=50)
    solving.choose_move(state, WHITE)
    assert solving.solver is None


def test_a_solved_move_is_played_and_summarised_with_its_proven_score(monkeypatch, caplog):
    from imago.engine.engine import GameEngine
    from imago.search.exact import Solution

    answer = Solution(2, vertex_to_index("B3", 4))
    monkeypatch.setattr(ExactSolver, "solve_game", lambda self, state, deadline=None: answer)
    engine = GameEngine(create_algorithm("mcts", seed=1), size=4)
    with caplog.at_level("INFO", logger="imago.engine.engine"):
        assert engine.genmove(BLACK) == answer.move
    summary = engine.algorithm.summary()
    assert summary["exact"] == 2 and summary["visits"] == 0 and summary["pv"] == [answer.move]
    assert "mcts chose B3" in caplog.text and "proven +2" in caplog.text


def test_the_benchmark_solves_the_empty_3x3_board():
    from imago.bench.exact import solve_empty

    seconds, nodes, value = solve_empty(3)
    assert value == 9 and nodes > 0 and seconds >= 0


def test_the_engine_searches_when_the_solver_gives_up(monkeypatch):
    from imago.search.exact import Inconsistent

    def give_up(self, state, deadline=None):
        raise Inconsistent("no move keeps the proven value +2")

    monkeypatch.setattr(ExactSolver, "solve_game", give_up)
    algorithm = create_algorithm("mcts", seed=1, visits=50)
    assert algorithm.choose_move(GameState(4, komi=0), BLACK) is not None
    assert algorithm.solved is None and algorithm.searched
