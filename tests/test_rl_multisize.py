"""The self-play loop with a multi-size network (the ``komi`` plane set and a
score head): 13x13 games through the real search, shards that keep only the
0/1 planes and rebuild the komi plane on sampling, score targets (weight 0
for resigned games), a candidate trained with all four heads, the size
checks, and ``train.py rl`` end to end on 13x13."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("tensorflow")

from imago.game import BLACK, WHITE  # noqa: E402
from imago.nn.features import BINARY_PLANES, PLANE_SETS, komi_plane_value  # noqa: E402
from imago.training.replay import GameRecord, ReplayBuffer  # noqa: E402

SIZE = 13
KOMI = 6.5


@pytest.fixture(scope="module")
def komi_model(tmp_path_factory):
    from imago.nn.fitting import set_random_seed
    from imago.nn.networks import create_network

    set_random_seed(5)
    net = create_network("residual", 13, "komi", blocks=1, filters=8, score=True,
                         pooling="sized")
    net.metadata["board_sizes"] = [9, 13, 19]
    return net.save(tmp_path_factory.mktemp("model") / "komi.keras")


@pytest.fixture(scope="module")
def played(komi_model):
    from imago.nn.evaluator import NetworkEvaluator
    from imago.training.search_play import SelfPlaySettings, play_games

    settings = SelfPlaySettings(size=SIZE, komi=KOMI, visits=3, cheap_visits=2,
                                full_share=0.5, parallel=3, search_batch=2,
                                resign_value=-1.0, max_moves=8)
    return list(play_games(NetworkEvaluator(str(komi_model)), settings, 3, seed=1, name="m"))


def test_komi_games_record_binary_planes_and_sample_the_komi_plane(tmp_path, played):
    assert len(played) == 3
    for game in played:
        record = game.record
        assert record.plane_set == "komi" and record.problems() == []
        assert record.planes.shape[1:] == (SIZE, SIZE, BINARY_PLANES["komi"])
        assert record.planes.dtype == np.uint8 and record.komi == KOMI
    buffer = ReplayBuffer(tmp_path)
    buffer.add([g.record for g in played], generation=0)
    batch = buffer.sample(64, np.random.default_rng(0), size=SIZE)
    planes = batch["planes"]
    assert planes.shape == (64, SIZE, SIZE, PLANE_SETS["komi"]) == (64, 13, 13, 27)
    color = np.where(planes[:, 0, 0, 16] == 1, BLACK, WHITE)  # the black-to-move plane
    assert set(color) == {BLACK, WHITE}
    expected = komi_plane_value(KOMI, color)
    assert np.allclose(planes[..., 26], expected[:, None, None])
    assert np.allclose(planes[planes[..., 16] == 1][:, 26], -KOMI / 20)  # Black gives it
    assert np.isin(planes[..., :26], (0, 1)).all()
    assert (batch["komi"] == KOMI).all() and (batch["score_weight"] == 1).all()
    # the score is the mover's lead (Black's, komi included, turned for White)
    sign = np.where(color == BLACK, 1, -1)
    leads = {round(g.record.score, 3) for g in played}
    assert set(np.round(batch["score"] * sign, 3)) <= leads


def test_a_komi_spread_gives_each_game_its_komi(komi_model, tmp_path):
    from imago.nn.evaluator import NetworkEvaluator
    from imago.training.search_play import SelfPlaySettings, play_games

    settings = SelfPlaySettings(size=5, komi=12, komi_spread=12.5, visits=2, cheap_visits=2,
                                parallel=6, search_batch=2, resign_value=-1.0, max_moves=6)
    games = list(play_games(NetworkEvaluator(str(komi_model)), settings, 6, seed=2))
    komis = [g.record.komi for g in games]
    assert len(set(komis)) > 1 and all(-0.5 <= k <= 24.5 and k * 2 == int(k * 2) for k in komis)
    assert all(g.state.komi == g.record.komi for g in games)
    buffer = ReplayBuffer(tmp_path)
    buffer.add([g.record for g in games], generation=0)
    batch = buffer.sample(32, np.random.default_rng(0), size=5)
    black_to_move = batch["planes"][..., 16] == 1
    assert black_to_move.any()  # Black gives the komi: its plane holds -komi / 20
    assert set(np.round(batch["planes"][..., 26][black_to_move] * -20, 2)) <= set(komis)
    assert SelfPlaySettings(komi_spread=-1).problems() == [
        "komi-spread must be from 0 to 100 points, not -1"]


def test_a_komi_spread_is_refused_for_a_network_blind_to_komi(tmp_path, capsys):
    from imago.training import rl_cli

    with pytest.raises(SystemExit):
        rl_cli.selfplay_main(["--model", "models/residual9.keras", "--games", "1",
                              "--out", str(tmp_path), "--komi-spread", "3"])
    assert "--komi-spread needs a network that sees the komi" in capsys.readouterr().err


def test_extended_shards_are_written_and_read_as_before(tmp_path):
    rng = np.random.default_rng(3)
    n, size = 6, 5
    record = GameRecord(size=size, komi=7.5,
                        planes=rng.integers(0, 2, (n, size, size, 26)).astype(np.uint8),
                        to_move=np.array([BLACK, WHITE] * 3, np.int8),
                        moves=np.arange(n, dtype=np.int16),
                        policy=np.full((n, size * size + 1), 1 / 26, np.float32),
                        full=np.ones(n, bool), searched=np.zeros(n, np.float32), winner=BLACK,
                        score=2.5, ownership=np.ones(size * size, np.int8), name="old")
    path = ReplayBuffer(tmp_path).add([record], generation=0)
    with np.load(path) as z:
        assert int(z["version"]) == 1 and "packed_planes" not in z.files
        assert int(z["plane_count"]) == 26 and z["planes"].shape == (n, (25 * 26 + 7) // 8)
    batch = ReplayBuffer(tmp_path).sample(32, np.random.default_rng(0), size=size,
                                          symmetries=False)
    assert batch["planes"].shape == (32, size, size, 26)
    assert np.array_equal(batch["planes"], record.planes[batch["moves"]].astype(np.float32))
    assert set(batch["score"]) == {2.5, -2.5} and (batch["score_weight"] == 1).all()


def test_a_komi_plane_record_of_full_width_is_stored_as_its_binary_planes(tmp_path, played):
    record = played[0].record
    full = np.concatenate([record.planes.astype(np.float32),
                           np.full(record.planes.shape[:3] + (1,), 0.3, np.float32)], axis=3)
    wide = GameRecord(**{**record.__dict__, "planes": full})
    assert wide.problems() == []
    bad = GameRecord(**{**record.__dict__, "planes": record.planes[..., :20]})
    assert "not (" in " ".join(bad.problems())
    buffer = ReplayBuffer(tmp_path)
    path = buffer.add([wide], generation=0)
    with np.load(path) as z:
        assert int(z["packed_planes"]) == 26 and int(z["plane_count"]) == 27
        assert int(z["version"]) == 2
    batch = buffer.sample(8, np.random.default_rng(1), size=SIZE, symmetries=False)
    stored = np.array([record.planes[i] for i in range(len(record))], np.float32)
    assert any(np.array_equal(batch["planes"][0, ..., :26], p) for p in stored)


def test_resigned_games_weigh_nothing_for_the_score(tmp_path, played):
    from imago.nn.networks import SCORE_SCALE, NeuralNetwork

    record = played[0].record
    resigned = GameRecord(**{**record.__dict__, "resigned": True, "name": "resigned"})
    buffer = ReplayBuffer(tmp_path)
    buffer.add([resigned], generation=0)
    batch = buffer.sample(16, np.random.default_rng(2), size=SIZE)
    assert (batch["score_weight"] == 0).all()

    net = NeuralNetwork.__new__(NeuralNetwork)
    net.heads = ("policy", "value", "ownership", "score")
    y = net.distribution_targets(batch["policy"], batch["policy_weight"], batch["value"],
                                 batch["ownership"], batch["score"], batch["score_weight"])
    assert y["score"].shape == (16, 2)
    assert np.allclose(y["score"][:, 0], batch["score"] / SCORE_SCALE)
    assert (y["score"][:, 1] == 0).all()
    assert (net.distribution_targets(batch["policy"], batch["policy_weight"], batch["value"],
                                     batch["ownership"], batch["score"])["score"][:, 1] == 1).all()


def test_a_candidate_trains_all_four_heads_on_13x13(tmp_path, played, komi_model):
    from imago.nn.networks import NeuralNetwork
    from imago.training.rl_trainer import RLTrainConfig, train_candidate

    buffer = ReplayBuffer(tmp_path / "replay")
    buffer.add([g.record for g in played], generation=0)
    reports = []
    output = tmp_path / "cand.keras"
    summary = train_candidate(komi_model, buffer, output, RLTrainConfig(steps=2, batch_size=8,
                              report_every=1), size=SIZE,
                              progress=lambda *a: reports.append(a), log=lambda _: None)
    assert set(summary["losses"]) >= {"policy", "value", "ownership", "score", "total"}
    assert all(np.isfinite(v) for v in summary["losses"].values())
    cand = NeuralNetwork.load(output, board_size=SIZE)
    assert cand.board_sizes == [9, 13, 19] and cand.plane_set == "komi"
    assert "score" in cand.heads
    with pytest.raises(ValueError, match="not the 7x7"):
        train_candidate(komi_model, buffer, tmp_path / "other.keras",
                        RLTrainConfig(steps=1, batch_size=8), size=7, log=lambda _: None)


def test_rl_refuses_a_size_the_model_was_not_made_for(tmp_path, komi_model, capsys):
    from imago.training import rl_cli

    args = ["--dir", str(tmp_path / "run"), "--model", str(komi_model), "--size", "7",
            "--iterations", "1", "--no-progress"]
    assert rl_cli.rl_main(args) == 1
    err = capsys.readouterr().err
    assert "9x9, 13x13, 19x19 boards, not 7x7" in err and "--size 9 or 13 or 19" in err
    assert "--new-size to teach it 7x7" in err
    assert not (tmp_path / "run" / "run.json").exists()


def test_rl_new_size_teaches_a_network_a_size_it_was_not_trained_on(tmp_path, komi_model):
    from imago.nn.modelfile import read_metadata
    from imago.training import rl_cli

    run = tmp_path / "run"
    args = ["--dir", str(run), "--model", str(komi_model), "--size", "5", "--komi", "0",
            "--new-size", "--iterations", "1", "--games", "2", "--gate-games", "2",
            "--train-steps", "1", "--batch-size", "2", "--rate-games", "0",
            "--resign-value", "-1", "--visits", "2", "--cheap-visits", "2", "--parallel", "2",
            "--no-progress"]
    assert rl_cli.rl_main(args) == 0
    assert read_metadata(komi_model)["board_sizes"] == [9, 13, 19]  # the source is left
    assert read_metadata(run / "models" / "gen-0000.keras")["board_sizes"] == [5, 9, 13, 19]
    assert read_metadata(run / "candidates" / "cand-0001.keras")["board_sizes"] == [5, 9, 13, 19]
    assert ReplayBuffer(run / "replay").games(5, 0) == 2
    # the run goes on without the option: its networks are made for 5x5 now
    assert rl_cli.rl_main(["--dir", str(run), "--iterations", "1", "--no-progress"]) == 0


def test_train_py_rl_runs_a_13x13_iteration(tmp_path, komi_model):
    from imago.training import rl_cli

    run = tmp_path / "run"
    args = ["--dir", str(run), "--model", str(komi_model), "--size", "13", "--komi", "6.5",
            "--iterations", "1", "--games", "2", "--gate-games", "2", "--train-steps", "1",
            "--batch-size", "2", "--rate-games", "0", "--resign-value", "-1",
            "--visits", "2", "--cheap-visits", "2", "--parallel", "2", "--no-progress"]
    assert rl_cli.rl_main(args) == 0
    state = json.loads((run / "state.json").read_text())
    assert (state["iteration"], state["stage"]) == (1, "selfplay")
    assert (run / "candidates" / "cand-0001.keras").exists()
    buffer = ReplayBuffer(run / "replay")
    assert buffer.games(13, 0) == 2
    assert buffer.sample(4, np.random.default_rng(0), size=13)["planes"].shape[-1] == 27
