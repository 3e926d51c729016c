"""The ``uct`` decision algorithm: legal, sensible, repeatable."""

from __future__ import annotations

from imago.engine.algorithm import RESIGN, create_algorithm
from imago.game import BLACK, GameState, index_to_vertex, vertex_to_index


def test_opens_at_the_centre_on_3x3():
    game = GameState(3, komi=0)
    move = create_algorithm("uct", visits=2000, seed=1).choose_move(game, BLACK)
    assert index_to_vertex(move, 3) == "B2"


def test_finds_the_centre_opening_on_5x5():
    game = GameState(5, komi=0)
    move = create_algorithm("uct", visits=10000, seed=3, exploration=0.7).choose_move(game, BLACK)
    assert index_to_vertex(move, 5) == "C3"


def test_same_seed_same_move():
    game = GameState(7, komi=7.5)
    a = create_algorithm("uct", visits=300, seed=9).choose_move(game, BLACK)
    b = create_algorithm("uct", visits=300, seed=9).choose_move(game, BLACK)
    assert a == b


def test_respects_the_time_budget_and_plays_legal_moves():
    import time
    game = GameState(9, komi=7.5)
    alg = create_algorithm("uct", seed=4)
    color = BLACK
    for _ in range(6):
        start = time.perf_counter()
        move = alg.choose_move(game, color, seconds=0.2)
        assert time.perf_counter() - start < 1.0
        assert move != RESIGN
        assert game.board.illegal_reason(move, color) is None
        game.play(color, move)
        color = 3 - color


def test_passes_when_the_game_is_won_and_settled():
    game = GameState(5, komi=0.5)
    # black owns everything but two eyes; white has nothing: passing wins
    stones = [vertex_to_index(v, 5) for v in
              ("A4", "B4", "C4", "D4", "E4", "B5", "D5", "A3", "B3", "C3", "D3", "E3",
               "A2", "B2", "C2", "D2", "E2", "A1", "B1", "C1", "D1", "E1")]
    game.root.add_setup(black=stones)
    move = create_algorithm("uct", visits=300, seed=1).choose_move(game, BLACK)
    assert move is None
