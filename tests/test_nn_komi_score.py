"""The komi plane set, the score head and size-aware pooling: the komi
plane's value and sign, a search leaf's komi in the planes, the score head
on several sizes, save/load, weights carried into a bigger network, the
masked losses, and the evaluator turning the score head's lead into the
search's margins."""

from __future__ import annotations

import numpy as np
import pytest

from imago.game import BLACK, WHITE, GameState, vertex_to_index
from imago.nn.features import (BINARY_PLANES, DEFAULT_KOMI, KOMI_SCALE, PLANE_SETS, encode,
                               encode_batch, encode_into, komi_plane_value)
from imago.search import PUCTSearch
from imago.search import Leaf, SearchNode


def played(moves: list[tuple[int, str]], size: int = 9, komi: float = 7.5) -> GameState:
    game = GameState(size, komi)
    for color, vertex in moves:
        game.play(color, vertex_to_index(vertex, size))
    return game


# ------------------------------------------------------------------ features
def test_komi_plane_value_and_sign():
    assert PLANE_SETS["komi"] == 27 and BINARY_PLANES["komi"] == 26
    assert BINARY_PLANES["extended"] == PLANE_SETS["extended"] == 26
    # Black gives the komi, White receives it
    assert komi_plane_value(7.5, BLACK) == pytest.approx(-7.5 / KOMI_SCALE)
    assert komi_plane_value(7.5, WHITE) == pytest.approx(7.5 / KOMI_SCALE)
    assert komi_plane_value(-3, WHITE) == pytest.approx(-3 / KOMI_SCALE)  # reverse komi
    both = komi_plane_value(np.array([6.5, 6.5, 0.0]), np.array([BLACK, WHITE, BLACK]))
    assert both.dtype == np.float32 and np.allclose(both, [-0.325, 0.325, 0.0])


def test_komi_plane_follows_the_mover_and_the_komi_given():
    game = played([(BLACK, "E5"), (WHITE, "C3")])
    node = game.current
    planes = encode(node, "komi")  # a game-tree node without a komi: the default
    assert planes.shape == (9, 9, 27)
    assert np.array_equal(planes[..., :26], encode(node, "extended"))
    assert np.all(planes[..., 26] == komi_plane_value(DEFAULT_KOMI, BLACK))
    white = encode(node, "komi", color=WHITE)
    assert np.all(white[..., 26] == komi_plane_value(DEFAULT_KOMI, WHITE))
    out = np.zeros((9, 9, 27), np.float32)
    encode_into(out, node, "komi", komi=0.5)
    assert np.all(out[..., 26] == np.float32(-0.5 / KOMI_SCALE))
    assert np.array_equal(out[..., :26], planes[..., :26])


def test_binary_planes_only_leave_the_komi_plane_out():
    """A store of the 0/1 planes (uint8, 26 planes) takes the komi set's
    planes without the komi plane (it could not hold the fraction)."""
    node = played([(BLACK, "D4"), (WHITE, "E5"), (BLACK, "F6")]).current
    packed = np.full((9, 9, BINARY_PLANES["komi"]), 7, np.uint8)
    encode_into(packed, node, "komi", komi=6.5)
    assert np.array_equal(packed, encode(node, "extended", dtype=np.uint8))
    assert set(np.unique(packed)) <= {0, 1}


def test_a_search_leaf_brings_its_games_komi():
    game = played([(BLACK, "E5")], komi=0.5)
    leaf = Leaf(game.board, WHITE, 0, [], SearchNode(), [], 0, komi=-4.0)
    planes = encode(leaf, "komi")
    assert np.all(planes[..., 26] == komi_plane_value(-4.0, WHITE))
    # the search fills every leaf's komi with its game's
    seen: list[tuple[float, int, float]] = []

    class Recording:
        def evaluate(self, leaves):
            x = encode_batch(leaves, "komi")
            for leaf, planes in zip(leaves, x):
                seen.append((leaf.komi, leaf.to_move, float(planes[0, 0, 26])))
            size = leaves[0].board.size
            return np.ones((len(leaves), size * size + 1)), np.zeros(len(leaves))

    search = PUCTSearch(Recording(), batch_size=4, seed=1)
    search.run(game, WHITE, visits=12)
    assert len(seen) >= 8 and {k for k, _, _ in seen} == {0.5}
    assert {c for _, c, _ in seen} == {BLACK, WHITE}
    for komi, color, value in seen:
        assert value == pytest.approx(float(komi_plane_value(komi, color)))
    # a game of another komi: the search's leaves carry that one
    seen.clear()
    search.run(played([(BLACK, "E5")], komi=6.5), WHITE, visits=6)
    assert seen and {k for k, _, _ in seen} == {6.5}


# ------------------------------------------------------------------ networks
pytest.importorskip("tensorflow")


@pytest.fixture(scope="module")
def score_net():
    from imago.nn.networks import create_network

    net = create_network("residual", 9, "komi", blocks=1, filters=8, score=True,
                         pooling="sized")
    score = net.model.get_layer("score")
    kernel, bias = score.get_weights()
    score.set_weights([kernel * 5, bias + 0.3])  # leads of a few points, not ~0
    return net


def batch(size: int, n: int = 3, seed: int = 0, planes: int = 27) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = (rng.random((n, size, size, planes)) < 0.3).astype(np.float32)
    if planes == 27:
        x[..., 26] = rng.uniform(-0.5, 0.5, (n, 1, 1))
    return x


def test_score_head_on_three_sizes(score_net):
    from imago.nn.networks import SCORE_SCALE

    assert score_net.heads == ("policy", "value", "ownership", "score")
    for size in (9, 13, 19):
        x = batch(size, seed=size)
        out = score_net.evaluate(x)
        assert out["policy"].shape == (3, size * size + 1) and out["value"].shape == (3,)
        assert out["ownership"].shape == (3, size * size) and out["score"].shape == (3,)
        raw = score_net.model(x, training=False)["score"].numpy().reshape(-1)
        assert np.allclose(out["score"], raw * SCORE_SCALE, atol=1e-4)  # in points
        assert np.all(np.isfinite(out["score"])) and np.ptp(out["score"]) > 0


def test_sized_pooling_knows_the_board_size():
    from imago.nn.networks import SizedPooling

    rng = np.random.default_rng(1)
    for size in (9, 19):
        x = rng.random((2, size, size, 4)).astype(np.float32)
        out = np.asarray(SizedPooling()(x))
        mean = x.mean(axis=(1, 2))
        want = np.concatenate([mean, mean * (size - 14) / 10, x.max(axis=(1, 2))], axis=1)
        assert out.shape == (2, 12) and np.allclose(out, want, atol=1e-5)


@pytest.mark.filterwarnings("ignore:Skipping variable loading for optimizer")
def test_save_and_load_keep_the_outputs(tmp_path, score_net):
    from imago.nn.networks import NeuralNetwork

    score_net.compile("sgd", 0.01, masked_ownership=True)
    path = score_net.save(tmp_path / "score.keras", include_optimizer=True)
    loaded = NeuralNetwork.load(path, board_size=13, compile=True)
    assert loaded.params["pooling"] == "sized" and loaded.params["score"] is True
    assert loaded.heads == score_net.heads and loaded.plane_set == "komi"
    for size in (9, 13):
        x = batch(size, seed=3)
        a, b = score_net.evaluate(x), loaded.evaluate(x)
        for head in a:
            assert np.allclose(a[head], b[head], atol=1e-5), head
    # the compiled losses came back by name (masked ownership, Huber score)
    losses = loaded.model.loss
    names = {h: getattr(f, "__name__", str(f)) for h, f in losses.items()} \
        if isinstance(losses, dict) else {}
    assert names.get("ownership") == "masked_ownership_mse"
    assert names.get("score") == "masked_score_huber"


def test_masked_losses_ignore_weight_zero_samples():
    from keras import ops

    from imago.nn.losses import masked_ownership_mse, masked_score_huber

    own_true = np.array([[1, -1, 0, 1], [1, 1, 1, 0]], np.float32)  # last: the weight
    own_pred = np.array([[0.5, -1, 0], [-1, -1, -1]], np.float32)
    loss = ops.convert_to_numpy(masked_ownership_mse(own_true, own_pred))
    assert np.allclose(loss, [0.25 / 3, 0.0])
    score_true = np.array([[0.5, 1], [-3.0, 1], [9.0, 0]], np.float32)
    score_pred = np.array([[0.0], [0.0], [0.0]], np.float32)
    loss = ops.convert_to_numpy(masked_score_huber(score_true, score_pred))
    assert np.allclose(loss, [0.125, 2.5, 0.0])  # quadratic within 1, then linear


def test_train_on_batch_ignores_weight_zero_targets(score_net):
    from imago.nn.networks import create_network

    net = create_network("residual", 9, "komi", blocks=1, filters=8, score=True,
                         pooling="sized")
    net.compile("sgd", 0.0, momentum=0.0, masked_ownership=True)  # no step: same weights
    rng = np.random.default_rng(4)
    x = batch(9, n=8, seed=4)
    own = np.sign(rng.normal(size=(8, 81))).astype(np.float32)
    weight = np.array([1, 0, 1, 0, 1, 0, 1, 0], np.float32)
    lead = rng.normal(size=8).astype(np.float32)

    def targets(own, lead):
        return {"policy": np.arange(8, dtype=np.int32),
                "value": np.stack([np.sign(lead), np.ones(8, np.float32)], axis=1),
                "ownership": np.concatenate([own, weight[:, None]], axis=1),
                "score": np.stack([lead, weight], axis=1)}

    def losses(y):
        logs = net.model.train_on_batch(x, y, return_dict=True)
        return logs["ownership_loss"], logs["score_loss"]

    base = losses(targets(own, lead))
    hidden_own, hidden_lead = own.copy(), lead.copy()
    hidden_own[weight == 0] *= -1
    hidden_lead[weight == 0] += 50
    assert np.allclose(losses(targets(hidden_own, hidden_lead)), base, rtol=1e-5)
    shown_own, shown_lead = own.copy(), lead.copy()
    shown_own[0] *= -1
    shown_lead[0] += 50
    changed = losses(targets(shown_own, shown_lead))
    assert changed[0] != pytest.approx(base[0]) and changed[1] > base[1] + 1


def test_transfer_weights_from_a_small_network():
    """An extended-plane network without a score head, mean pooling, into a
    komi-plane score-head network with sized pooling: the same policy,
    value and ownership where the komi plane is 0; the new score head and
    the komi plane's kernel start as they would."""
    from imago.nn.networks import create_network, transfer_weights

    source = create_network("residual", 9, "extended", blocks=1, filters=8)
    rng = np.random.default_rng(7)
    for layer in source.model.layers:  # "trained": every weight and statistic moved
        values = [w + rng.normal(0, 0.2, w.shape).astype(w.dtype) for w in layer.get_weights()]
        if type(layer).__name__ == "BatchNormalization":
            values[-1] = np.abs(values[-1]) + 0.5  # the moving variance
        layer.set_weights(values)
    target = create_network("residual", 9, "komi", blocks=1, filters=8, score=True,
                            pooling="sized")
    score_before = [w.copy() for w in target.model.get_layer("score").get_weights()]
    copied = transfer_weights(source, target)
    assert copied == len([layer for layer in source.model.layers if layer.weights])
    for a, b in zip(score_before, target.model.get_layer("score").get_weights()):
        assert np.array_equal(a, b)
    stem = next(layer for layer in target.model.layers if layer.weights).get_weights()[0]
    assert stem.shape[2] == 27 and not stem[:, :, 26].any()
    for size in (9, 13):
        x = batch(size, n=4, seed=size)
        x[..., 26] = 0.0
        old, new = source.evaluate(x[..., :26]), target.evaluate(x)
        for head in ("policy", "value", "ownership"):
            assert np.allclose(old[head], new[head], atol=1e-5), (size, head)
        assert "score" in new and "score" not in old
    # networks that do not pair up are refused
    with pytest.raises(ValueError):
        transfer_weights(create_network("conv", 9, "extended"), target)


# ------------------------------------------------------------------ evaluator
def test_evaluator_margins_are_the_score_heads_lead_without_komi(score_net):
    from imago.nn.evaluator import NetworkEvaluator

    evaluator = NetworkEvaluator(score_net, symmetries="none")
    game = played([(BLACK, "E5"), (WHITE, "D4")])
    leaves = [Leaf(game.board, color, 0, [], SearchNode(), [], 0, komi=komi)
              for color in (BLACK, WHITE) for komi in (7.5, 0.5, -3.0)]
    answer = evaluator.evaluate(leaves)
    lead = score_net.evaluate(encode_batch(leaves, "komi"))["score"]
    assert answer.margins is not None and answer.margins.shape == (6,)
    komi_given = np.array([leaf.komi if leaf.to_move == BLACK else -leaf.komi
                           for leaf in leaves])
    assert np.allclose(answer.margins - komi_given, lead, atol=1e-4)
    assert np.ptp(lead) > 0  # the komi plane changes the lead
    assert np.allclose(answer[1], score_net.evaluate(encode_batch(leaves, "komi"))["value"])
    # the search scores each leaf with the lead (its komi added back)
    asked: list = []

    class Recording:
        def evaluate(self, leaves):
            asked.extend(leaves)
            return evaluator.evaluate(leaves)

    search = PUCTSearch(Recording(), batch_size=4, seed=2)
    # more visits than White has moves: some reply is searched twice, so leaves of both
    # colours are asked whatever the random network prefers
    search.run(played([(BLACK, "E5")], komi=5.5), WHITE, visits=100)
    assert {leaf.komi for leaf in asked} == {5.5}
    leaves = [leaf for leaf in asked if leaf.path]  # the root's answer gives no node score
    assert search.scored and len(leaves) >= 6
    assert {leaf.to_move for leaf in leaves} == {BLACK, WHITE}
    want = score_net.evaluate(encode_batch(leaves, "komi"))["score"]
    assert np.allclose([leaf.node.score for leaf in leaves], want, atol=1e-3)
