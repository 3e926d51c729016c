"""Evaluating positions turned by board symmetries: the answers are turned
back onto the original board, averaging over the 8 symmetries gives an
exactly symmetric answer, and the search asks for it at its roots."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tensorflow")

from imago.search import PUCTSearch, action_of  # noqa: E402
from imago.search.tree import encode_priors  # noqa: E402
from imago.game import BLACK, WHITE, GameState  # noqa: E402
from imago.nn.evaluator import NetworkEvaluator  # noqa: E402
from imago.nn.features import apply_symmetry, encode_batch, transform_move  # noqa: E402
from imago.nn.networks import NeuralNetwork, create_network  # noqa: E402


class EchoNetwork(NeuralNetwork):
    """Answers with its input: policy and ownership are plane 0 (the side to
    move's stones) point by point, so an answer turned back to the wrong
    place shows at once."""

    def __init__(self):
        super().__init__(board_size=9, plane_set="history")

    def evaluate(self, planes):
        n, size = planes.shape[0], planes.shape[1]
        own = planes[..., 0].reshape(n, size * size)
        policy = np.concatenate([own, np.full((n, 1), 0.5, np.float32)], axis=1)
        return {"policy": policy, "value": own.sum(axis=1), "ownership": own.copy()}


def some_positions(n: int = 3) -> list:
    rng = np.random.default_rng(5)
    nodes = []
    for _ in range(n):
        game = GameState(9)
        color = BLACK
        for _ in range(12):
            game.play(color, int(rng.choice(list(game.current.board.legal_moves(color)))))
            color = WHITE if color == BLACK else BLACK
        nodes.append(game.current)
    return nodes


@pytest.fixture(scope="module")
def tiny_residual():
    return create_network("residual", 9, "history", blocks=1, filters=8)


def test_turned_answers_come_back_to_the_original_points():
    net = EchoNetwork()
    planes = encode_batch(some_positions(), "history")
    plain = net.evaluate(planes)
    for k in range(8):
        turned = net.evaluate_turned(planes, [k] * len(planes))
        assert np.array_equal(turned["policy"], plain["policy"]), k
        assert np.array_equal(turned["ownership"], plain["ownership"]), k
    mixed = net.evaluate_turned(planes, [1, 6, 3])
    assert np.array_equal(mixed["policy"], plain["policy"])
    averaged = net.evaluate_averaged(planes)
    assert np.allclose(averaged["policy"], plain["policy"])
    assert np.allclose(averaged["value"], plain["value"])


def test_averaged_answer_of_a_real_network_is_exactly_symmetric(tiny_residual):
    planes = encode_batch(some_positions(1), "history")
    base = tiny_residual.evaluate_averaged(planes)
    plain = tiny_residual.evaluate(planes)
    assert not np.allclose(base["policy"], plain["policy"], atol=1e-6)  # it does average
    for k in range(1, 8):
        turned = tiny_residual.evaluate_averaged(np.ascontiguousarray(apply_symmetry(planes, k)))
        image = [transform_move(m, k, 9) for m in range(82)]
        assert np.allclose(turned["policy"][0, image], base["policy"][0], atol=1e-5), k
        assert np.allclose(turned["ownership"][0, image[:81]], base["ownership"][0], atol=1e-5)
        assert np.isclose(turned["value"][0], base["value"][0], atol=1e-5)


def test_evaluator_symmetry_modes(tiny_residual):
    nodes = some_positions()
    plain = tiny_residual.evaluate_nodes(nodes)
    none = NetworkEvaluator(tiny_residual, symmetries="none")
    priors, values = none.evaluate(nodes)
    assert np.array_equal(priors, plain["policy"]) and np.array_equal(values, plain["value"])
    a = NetworkEvaluator(tiny_residual, seed=3).evaluate(nodes * 4)
    b = NetworkEvaluator(tiny_residual, seed=3).evaluate(nodes * 4)
    assert np.array_equal(a[0], b[0])                  # repeatable with a seed
    assert not np.allclose(a[0][:3], a[0][3:6])        # but not one orientation
    assert np.allclose(a[0].sum(axis=1), 1, atol=1e-4)
    priors, values = NetworkEvaluator(tiny_residual).evaluate_all_symmetries(nodes)
    averaged = tiny_residual.evaluate_averaged(encode_batch(nodes, "history"))
    assert np.allclose(priors, averaged["policy"]) and np.allclose(values, averaged["value"])
    with pytest.raises(ValueError, match="random, none"):
        NetworkEvaluator(tiny_residual, symmetries="all")


def test_search_roots_get_the_averaged_answer(tiny_residual):
    class Recording(NetworkEvaluator):
        def __init__(self):
            super().__init__(tiny_residual, seed=1)
            self.roots = 0

        def evaluate_all_symmetries(self, nodes):
            self.roots += len(nodes)
            return super().evaluate_all_symmetries(nodes)

    evaluator = Recording()
    search = PUCTSearch(evaluator, batch_size=4, seed=1)
    root = search.run(GameState(9), BLACK, visits=24)
    assert evaluator.roots == 1
    _, value = evaluator.evaluate_all_symmetries([GameState(9).current])
    assert root.value == pytest.approx(float(value[0]), abs=1e-5)


def test_a_reused_root_gets_the_averaged_priors_and_keeps_its_visits(tiny_residual):
    evaluator = NetworkEvaluator(tiny_residual, seed=2)
    search = PUCTSearch(evaluator, batch_size=4, seed=1)
    game = GameState(9)
    root = search.run(game, BLACK, visits=400)
    # the reply searched deepest (an untrained network's priors are nearly
    # flat, so the most visited root move may have no visits below it)
    reply = max(range(len(root.children)), key=lambda i: root.children[i].total_visits())
    game.play(BLACK, search.point_of(int(root.moves[reply])))
    child = root.children[reply]
    visits_before = child.total_visits()
    assert visits_before > 0 and not child.careful       # searched as a leaf
    again = search.run(game, WHITE, visits=visits_before + 8)
    assert again is child and again.careful and again.total_visits() >= visits_before
    policy, _ = evaluator.evaluate_all_symmetries([game.current])
    legal = np.zeros(82, dtype=bool)
    legal[[action_of(p, 9) for p in game.board.legal_moves(WHITE)]] = True
    legal[-1] = True
    expected = np.where(legal, policy[0].astype(np.float64), 0.0)
    assert again.priors == encode_priors(expected / expected.sum(), legal).tobytes()


def test_a_batch_of_mixed_sizes_is_answered_size_by_size(tiny_residual):
    """Leaves of 9x9 and 13x13 searches may share one call (an analysis
    engine with queries of both sizes): each size is evaluated on its own
    and the answers come back in the leaves' order, as each size alone
    would give them."""
    small = some_positions(2)
    game = GameState(13)
    game.play(BLACK, game.current.board.legal_moves(BLACK).pop())
    mixed = [small[0], game.current, small[1]]
    evaluator = NetworkEvaluator(tiny_residual, symmetries="none")
    answer = evaluator.evaluate(mixed)
    alone_small = evaluator.evaluate(small)
    alone_large = evaluator.evaluate([game.current])
    assert [len(row) for row in answer[0]] == [82, 170, 82]
    assert np.allclose(answer[0][0], alone_small[0][0])
    assert np.allclose(answer[0][2], alone_small[0][1])
    assert np.allclose(answer[0][1], alone_large[0][0])
    assert np.allclose(answer[1], [alone_small[1][0], alone_large[1][0], alone_small[1][1]])
    assert answer.margins is not None and np.isclose(answer.margins[1], alone_large.margins[0])
    averaged = evaluator.evaluate_all_symmetries(mixed)
    assert [len(row) for row in averaged[0]] == [82, 170, 82]
