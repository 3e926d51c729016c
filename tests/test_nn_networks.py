"""Networks: build, batch inference through the compiled function, save and
load with metadata, wrong-size refusal, masking; the ``policy`` algorithm."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("tensorflow")

from imago.game import BLACK, WHITE, GameState  # noqa: E402
from imago.nn.features import encode_batch, legal_mask, point_to_move  # noqa: E402
from imago.nn.networks import (ModelSizeError, NeuralNetwork, create_network,  # noqa: E402
                               metadata_path, padded_batch_size)


@pytest.fixture(scope="module")
def tiny_residual():
    net = create_network("residual", 9, "history", blocks=1, filters=8)
    return net


def test_architectures_heads_and_shapes(tiny_residual):
    x = np.random.default_rng(0).random((5, 9, 9, 18)).astype(np.float32)
    for net in (create_network("dense", 9, "history"), create_network("conv", 9, "history")):
        out = net.evaluate(x)
        assert set(out) == {"policy"} and out["policy"].shape == (5, 82)
        assert np.allclose(out["policy"].sum(axis=1), 1, atol=1e-4)
    out = tiny_residual.evaluate(x)
    assert out["policy"].shape == (5, 82) and out["value"].shape == (5,)
    assert out["ownership"].shape == (5, 81)
    assert (np.abs(out["value"]) <= 1).all() and (np.abs(out["ownership"]) <= 1).all()


def test_inference_is_one_compiled_function_for_any_batch(tiny_residual):
    import tensorflow as tf

    tiny_residual.evaluate(np.zeros((1, 9, 9, 18), np.float32))
    fn = tiny_residual._compiled(9)
    assert isinstance(fn, tf.types.experimental.PolymorphicFunction)
    for n in (1, 3, 32):
        assert tiny_residual.evaluate(np.zeros((n, 9, 9, 18), np.float32))["policy"].shape == (n, 82)
    assert fn.experimental_get_tracing_count() == 1


def test_batches_pad_to_a_few_sizes_where_each_shape_compiles():
    sizes = [padded_batch_size(n) for n in range(1, 1001)]
    assert sizes[:17] == [1, 2, 4, 4, 8, 8, 8, 8] + [16] * 8 + [24]
    assert all(s >= n for n, s in zip(range(1, 1001), sizes)) and sizes == sorted(sizes)
    assert all(s - n <= s / 3 for n, s in zip(range(17, 1001), sizes))
    assert len(set(sizes)) <= 18


def test_padded_evaluation_answers_as_the_plain_one(tiny_residual, monkeypatch):
    import imago.nn.networks as networks

    x = np.random.default_rng(1).random((5, 9, 9, 18)).astype(np.float32)
    plain = tiny_residual.evaluate(x)
    monkeypatch.setattr(networks, "SHAPE_COMPILING_BACKENDS", ("tensorflow", "jax"))
    padded = tiny_residual.evaluate(x)  # 5 positions run as 8, answered as 5
    assert set(padded) == set(plain)
    for head, values in plain.items():
        assert padded[head].shape == values.shape
        assert np.allclose(padded[head], values, atol=1e-5)


def test_residual_plays_other_sizes(tiny_residual):
    out = tiny_residual.evaluate(np.zeros((2, 13, 13, 18), np.float32))
    assert out["policy"].shape == (2, 170) and out["ownership"].shape == (2, 169)


def test_save_load_round_trip_with_metadata(tmp_path, tiny_residual):
    state = GameState(9)
    state.play(BLACK, state.point(4, 4))
    x = encode_batch([state.current], "history")
    before = tiny_residual.evaluate(x)
    path = tiny_residual.save(tmp_path / "net.keras", data={"inputs": ["x"]},
                              metrics={"policy_top1": 0.5})
    meta = json.loads(metadata_path(path).read_text())
    assert meta["architecture"] == "residual" and meta["plane_set"] == "history"
    assert meta["board_sizes"] == [9] and meta["metrics"]["policy_top1"] == 0.5
    assert meta["params"] == {"blocks": 1, "filters": 8} and "date" in meta
    loaded = NeuralNetwork.load(path, board_size=9)
    assert type(loaded).__name__ == "ResidualNeuralNetwork"
    after = loaded.evaluate(x)
    for head in before:
        assert np.allclose(before[head], after[head], atol=1e-5)


def test_export_drops_the_optimizer_and_checkpoint_keeps_it(tmp_path):
    net = create_network("dense", 9, "basic")
    net.compile()
    x = np.zeros((4, 9, 9, 2), np.float32)
    net.train(x, net.targets(np.arange(4)), epochs=1, verbose=0)
    export = NeuralNetwork.load(net.save(tmp_path / "export.keras"))
    assert getattr(export.model, "optimizer", None) is None
    ckpt = NeuralNetwork.load(net.save(tmp_path / "ckpt.keras", include_optimizer=True),
                              compile=True)
    assert ckpt.model.optimizer is not None and int(ckpt.model.optimizer.iterations) == 1


def test_wrong_board_size_is_refused_clearly(tmp_path):
    net = create_network("conv", 9, "basic")
    path = net.save(tmp_path / "conv9.keras")
    with pytest.raises(ModelSizeError, match=r"9x9 boards, not 13x13"):
        NeuralNetwork.load(path, board_size=13)
    loaded = NeuralNetwork.load(path)
    with pytest.raises(ModelSizeError):
        loaded.evaluate(np.zeros((1, 13, 13, 2), np.float32))
    with pytest.raises(ValueError, match="planes"):
        loaded.evaluate(np.zeros((1, 9, 9, 18), np.float32))


def test_missing_metadata_is_named(tmp_path):
    net = create_network("dense", 9, "basic")
    path = net.save(tmp_path / "d.keras")
    metadata_path(path).unlink()
    with pytest.raises(FileNotFoundError, match="metadata"):
        NeuralNetwork.load(path)


def test_mask_policy_removes_illegal_moves():
    policy = np.full(82, 1 / 82)
    policy[0] = 0.5
    mask = np.ones(82, bool)
    mask[0] = False
    masked = NeuralNetwork.mask_policy(policy, mask)
    assert masked[0] == 0 and np.isclose(masked.sum(), 1)
    none = NeuralNetwork.mask_policy(policy, np.zeros(82, bool))
    assert none[81] == 1


def test_best_legal_moves_are_legal(tiny_residual):
    state = GameState(9)
    rng = __import__("random").Random(3)
    color = BLACK
    for _ in range(30):
        state.play(color, state.board.random_move(color, rng))
        color = 3 - color
    moves = tiny_residual.best_legal_moves([state.current], [color])
    mask = legal_mask(state.board, color)
    assert mask[moves[0]]


# ------------------------------------------------------------------ policy algorithm
class FixedNetwork:
    """A stand-in network whose policy is given (to test the algorithm's
    choices, not a model's)."""

    any_size = True

    def __init__(self, policy, ownership=None):
        self.policy = np.asarray(policy, np.float32)
        self.ownership = ownership

    def check_size(self, size):
        pass

    def evaluate_nodes(self, nodes, colors):
        out = {"policy": np.tile(self.policy, (len(nodes), 1))}
        if self.ownership is not None:
            out["ownership"] = np.tile(self.ownership, (len(nodes), 1))
        return out

    mask_policy = staticmethod(NeuralNetwork.mask_policy)


def policy_with(best: int, p_best: float, p_pass: float) -> np.ndarray:
    p = np.full(82, (1 - p_best - p_pass) / 80)
    p[best] = p_best
    p[81] = p_pass
    return p


def test_policy_algorithm_plays_best_legal_move():
    from imago.engine.policy_algorithm import PolicyAlgorithm

    state = GameState(9)
    state.play(BLACK, state.point(4, 4))
    occupied = point_to_move(state.point(4, 4), 9)
    algo = PolicyAlgorithm(network=FixedNetwork(policy_with(occupied, 0.9, 0.0001)))
    move = algo.choose_move(state, WHITE)
    assert move is not None and move != state.point(4, 4)
    assert state.board.is_legal(move, WHITE)
    target = state.point(2, 6)
    algo = PolicyAlgorithm(network=FixedNetwork(policy_with(point_to_move(target, 9), 0.5, 0.1)))
    assert algo.choose_move(state, WHITE) == target


def test_policy_algorithm_passes_when_pass_is_rated_higher():
    from imago.engine.policy_algorithm import PolicyAlgorithm

    state = GameState(9)
    algo = PolicyAlgorithm(network=FixedNetwork(policy_with(40, 0.2, 0.7)))
    assert algo.choose_move(state, BLACK) is None


def test_policy_algorithm_passes_when_only_own_eyes_remain():
    from imago.engine.policy_algorithm import PolicyAlgorithm

    state = GameState(5, komi=0.5)
    # black fills the 5x5 board but for two one-point eyes
    black = [state.point(c, r) for r in range(5) for c in range(5)
             if (c, r) not in ((1, 1), (3, 3))]
    state.root.add_setup(black=black)
    eye = point_to_move(state.point(1, 1), 5)
    p = np.full(26, 0.001)
    p[eye] = 0.9
    algo = PolicyAlgorithm(network=FixedNetwork(p / p.sum()))
    assert algo.choose_move(state, BLACK) is None


def test_policy_algorithm_samples_only_legal_moves():
    from imago.engine.policy_algorithm import PolicyAlgorithm

    state = GameState(9)
    for c in range(9):
        state.play(BLACK, state.point(c, 0))
    algo = PolicyAlgorithm(network=FixedNetwork(np.full(82, 1 / 82)), temperature=1.0, seed=1)
    for _ in range(20):
        move = algo.choose_move(state, WHITE)
        assert move is None or state.board.is_legal(move, WHITE)


def test_policy_algorithm_ends_a_won_game_after_a_pass():
    from imago.engine.policy_algorithm import PolicyAlgorithm

    state = GameState(9, komi=0.5)
    for r in range(9):
        state.play(BLACK, state.point(4, r))
        state.play(WHITE, state.point(5, r))
    state.play(BLACK, None)
    # White owns columns 5-8 (36) vs Black's 0-4 (45): Black wins, White keeps playing
    algo = PolicyAlgorithm(network=FixedNetwork(policy_with(point_to_move(state.point(7, 7), 9),
                                                            0.6, 0.01)))
    assert algo.choose_move(state, WHITE) == state.point(7, 7)
    state.play(WHITE, state.point(7, 7))
    state.play(BLACK, None)
    state.play(WHITE, None)
    assert algo.choose_move(state, BLACK) is None


def test_policy_algorithm_does_not_pass_when_its_dead_stones_would_lose():
    from imago.engine.policy_algorithm import PolicyAlgorithm

    state = GameState(9, komi=9.5)
    for r in range(9):
        state.play(BLACK, state.point(4, r))
        state.play(WHITE, state.point(5, r))
    invader = state.point(7, 7)
    state.play(BLACK, invader)  # a lone black stone in White's area
    state.play(WHITE, None)
    # counted as it stands Black wins (46 - 9 - 9.5); without the dead stone it loses
    assert state.score() > 0 and state.score([invader]) < 0
    ownership = np.ones(81, np.float32)  # from Black's side
    ownership.reshape(9, 9)[:, 5:] = -1
    reply = point_to_move(state.point(2, 2), 9)
    dead_invader = PolicyAlgorithm(network=FixedNetwork(policy_with(reply, 0.5, 0.1), ownership))
    assert dead_invader.choose_move(state, BLACK) == state.point(2, 2)
    alive = ownership.copy()
    alive[point_to_move(invader, 9)] = 1
    trusting = PolicyAlgorithm(network=FixedNetwork(policy_with(reply, 0.5, 0.1), alive))
    assert trusting.choose_move(state, BLACK) is None


def test_policy_algorithm_with_a_saved_model(tmp_path, tiny_residual):
    from imago.engine.algorithm import create_algorithm

    path = tiny_residual.save(tmp_path / "net.keras")
    algo = create_algorithm("policy", model=str(path), temperature="0")
    state = GameState(9)
    move = algo.choose_move(state, BLACK)
    assert move is None or state.board.is_legal(move, BLACK)


@pytest.mark.parametrize("name", ["residual9", "conv9", "dense9"])
def test_shipped_models_load_and_play_legal_moves(name):
    from imago.engine.algorithm import create_algorithm
    from imago.nn.evaluator import MODELS_DIR

    path = MODELS_DIR / f"{name}.keras"
    if not path.exists():
        pytest.skip(f"{path} is not shipped yet")
    meta = json.loads(metadata_path(path).read_text())
    assert meta["board_sizes"] == [9] and meta["metrics"]["policy_top1"] > 0.15
    assert path.stat().st_size < 20_000_000
    algo = create_algorithm("policy", model=str(path))
    state = GameState(9)
    color = BLACK
    for _ in range(12):
        move = algo.choose_move(state, color)
        assert move is None or state.board.is_legal(move, color)
        state.play(color, move)
        color = 3 - color
    # a strong first move is not on the edge
    first = state.root.children[0].point
    assert first is not None
    col, row = state.colrow(first)
    assert 1 <= col <= 7 and 1 <= row <= 7
