"""The PUCT search driven by a real network (the shipped models)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

tf = pytest.importorskip("tensorflow")

from imago.engine.algorithm import create_algorithm  # noqa: E402
from imago.search import PUCTSearch  # noqa: E402
from imago.game import BLACK, WHITE, GameState  # noqa: E402
from imago.nn.evaluator import NetworkEvaluator  # noqa: E402

MODELS = Path(__file__).resolve().parent.parent / "models"


@pytest.fixture(scope="module")
def conv_evaluator():
    path = MODELS / "conv9.keras"
    if not path.exists():
        pytest.skip("models/conv9.keras is not there")
    return NetworkEvaluator(path)


def test_evaluator_answers_a_batch(conv_evaluator):
    nodes = [GameState(9).current for _ in range(5)]
    priors, values = conv_evaluator.evaluate(nodes)
    assert priors.shape == (5, 82) and values.shape == (5,)
    assert np.allclose(priors.sum(axis=1), 1, atol=1e-3)


def test_search_follows_the_network_and_plays_legal_moves(conv_evaluator):
    game = GameState(9, komi=7.5)
    search = PUCTSearch(conv_evaluator, batch_size=8, seed=1)
    color = BLACK
    for _ in range(4):
        root = search.run(game, color, visits=64)
        move = search.point_of(root.best_action())
        assert game.board.illegal_reason(move, color) is None
        game.play(color, move)
        color = 3 - color
    assert search.evaluations > 0


def test_mcts_algorithm_with_a_model_path():
    path = MODELS / "conv9.keras"
    if not path.exists():
        pytest.skip("models/conv9.keras is not there")
    alg = create_algorithm("mcts", model=str(path), visits=32, seed=2)
    game = GameState(9)
    move = alg.choose_move(game, BLACK)
    assert move is not None and game.board.illegal_reason(move, BLACK) is None
    assert alg.summary()["visits"] >= 1
    game.play(BLACK, move)
    assert alg.choose_move(game, WHITE) is not None
