"""The trainer stage of the self-play loop: a tiny residual network continued
on a replay window of random legal games, the candidate written atomically
with its metadata, the policy learnt from visit distributions (weight-0
positions ignored), and readable refusals."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("tensorflow")

from imago.game import BLACK, WHITE, GameState  # noqa: E402
from imago.game.coords import point_to_move  # noqa: E402
from imago.nn.features import encode  # noqa: E402
from imago.training.replay import GameRecord, ReplayBuffer  # noqa: E402
from imago.training.rl_trainer import RLTrainConfig, train_candidate  # noqa: E402

PLANES = "extended"
FIXED_MOVE = 40  # the centre point of 9x9: the one target of the learnability buffer


def random_game(seed: int, size: int = 9, moves: int = 30, fixed: bool = False,
                plane_set: str = PLANES) -> GameRecord:
    """A game of random legal moves with its real encoded planes; the policy
    target is a random distribution over the legal moves (or all on
    ``FIXED_MOVE`` with ``fixed``), every fifth position a fast search."""
    rng = np.random.default_rng(seed)
    game = GameState(size, 7.5)
    area = size * size
    planes, to_move, played, policy = [], [], [], []
    for _ in range(moves):
        board, color = game.board, game.to_move
        legal = [p for p in board.empties if board.illegal_reason(p, color) is None]
        planes.append(encode(game.current, plane_set, dtype=np.uint8))
        to_move.append(color)
        target = np.zeros(area + 1, np.float32)
        if fixed:
            target[FIXED_MOVE] = 1.0
        else:
            index = [point_to_move(p, size) for p in legal] + [area]
            target[index] = rng.dirichlet(np.ones(len(index)))
        policy.append(target)
        point = legal[rng.integers(len(legal))] if legal else None
        played.append(area if point is None else point_to_move(point, size))
        game.play(color, point)
    full = np.arange(moves) % 5 != 4
    policy = np.array(policy)
    policy[~full] = 0.0
    winner = BLACK if seed % 2 else WHITE
    return GameRecord(size=size, komi=7.5, planes=np.array(planes), to_move=np.array(to_move, np.int8),
                      moves=np.array(played, np.int16), policy=policy, full=full,
                      searched=rng.uniform(-1, 1, moves).astype(np.float32), winner=winner,
                      score=4.5 if winner == BLACK else -4.5,
                      ownership=rng.integers(-1, 2, area).astype(np.int8),
                      plane_set=plane_set, name=f"random-{seed}")


@pytest.fixture(scope="module")
def best(tmp_path_factory):
    from imago.nn.networks import create_network

    net = create_network("residual", 9, PLANES, blocks=1, filters=8)
    return net.save(tmp_path_factory.mktemp("models") / "best.keras",
                    note="what the parent is", heldout={"top1": {"ai19": 0.4}})


@pytest.fixture(scope="module")
def buffer(tmp_path_factory):
    buf = ReplayBuffer(tmp_path_factory.mktemp("replay"), window=1000)
    buf.add([random_game(seed) for seed in range(4)], generation=0)
    buf.add([random_game(seed) for seed in range(4, 6)], generation=1)
    return buf


def test_weighted_loss_ignores_weight_zero_samples():
    from keras import ops

    from imago.nn.losses import policy_distribution_targets, weighted_policy_crossentropy

    target = np.array([[0.5, 0.5, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], np.float32)
    pred = np.array([[0.25, 0.5, 0.25], [0.9, 0.05, 0.05], [0.5, 0.25, 0.25]], np.float32)
    weighted = policy_distribution_targets(target, [1.0, 0.0, 1.0])
    loss = ops.convert_to_numpy(weighted_policy_crossentropy(weighted, pred))
    expected = [-(0.5 * np.log(0.25) + 0.5 * np.log(0.5)), 0.0, -np.log(0.5)]
    assert np.allclose(loss, expected, atol=1e-5)
    # the weight-0 sample's prediction changes nothing
    other = pred.copy()
    other[1] = [0.05, 0.05, 0.9]
    assert np.allclose(ops.convert_to_numpy(weighted_policy_crossentropy(weighted, other)), loss)


def test_train_candidate_writes_a_loadable_candidate(tmp_path, best, buffer):
    from imago.nn.networks import NeuralNetwork

    reports, lines = [], []
    output = tmp_path / "cand" / "gen-0001.keras"
    summary = train_candidate(best, buffer, output, RLTrainConfig(steps=30, batch_size=32),
                              progress=lambda *a: reports.append(a), log=lines.append,
                              metadata={"generation": 1})
    assert output.is_file() and output.with_suffix(".json").is_file()
    assert sorted(p.name for p in output.parent.iterdir()) == ["gen-0001.json", "gen-0001.keras"]
    assert [(step, steps) for step, steps, _ in reports] == [(20, 30), (30, 30)]
    assert set(reports[-1][2]) >= {"policy", "value", "ownership", "total", "top1"}
    for key in ("policy", "value", "ownership", "total"):
        assert np.isfinite(summary["losses"][key])
    assert summary["samples"] == 30 * 32 and summary["samples_per_second"] > 0
    assert summary["window"]["positions"] == 6 * 30
    assert summary["window"]["generations"] == [0, 1]
    assert "training a candidate from best.keras" in lines[0]

    meta = json.loads(output.with_suffix(".json").read_text())
    assert meta["parent"]["name"] == "best.keras" and meta["parent"]["path"] == str(best)
    rl = meta["rl_training"]
    assert rl["steps"] == 30 and rl["total_steps"] == 30 and rl["samples"] == 960
    assert rl["config"]["batch_size"] == 32 and rl["replay"]["positions"] == 180
    assert set(rl["losses"]) >= {"policy", "value", "ownership", "total"}
    assert meta["generation"] == 1 and "date" in meta and meta["plane_set"] == PLANES
    # the parent's own description and figures are not the candidate's
    assert "note" not in meta and "heldout" not in meta
    assert meta["parent_heldout"] == {"top1": {"ai19": 0.4}}

    cand = NeuralNetwork.load(output, board_size=9)
    parent = NeuralNetwork.load(best)
    x = buffer.sample(4, np.random.default_rng(0))["planes"]
    assert cand.evaluate(x)["policy"].shape == (4, 82)
    assert not np.allclose(cand.evaluate(x)["policy"], parent.evaluate(x)["policy"])
    assert getattr(cand.model, "optimizer", None) is None  # saved without optimizer state


def test_candidate_of_a_candidate(tmp_path, best, buffer):
    first = train_candidate(best, buffer, tmp_path / "a.keras",
                            RLTrainConfig(steps=2, batch_size=32), log=lambda _: None)
    train_candidate(first["output"], buffer, tmp_path / "b.keras",
                    RLTrainConfig(steps=3, batch_size=32, optimizer="adam",
                                  learning_rate=1e-3), log=lambda _: None)
    meta = json.loads((tmp_path / "b.json").read_text())
    assert meta["parent"]["name"] == "a.keras" and meta["parent"]["parent"] == "best.keras"
    assert meta["rl_training"]["total_steps"] == 5
    assert meta["rl_training"]["config"]["optimizer"] == "adam"


def test_distribution_training_checkpoint_loads_compiled(tmp_path):
    """The loss and the top1 metric are registered: a checkpoint saved with
    its optimizer after distribution training loads compiled."""
    from imago.nn.fitting import train_steps
    from imago.nn.networks import NeuralNetwork, create_network

    net = create_network("dense", 9, "basic", units=8)
    net.compile(policy_target="distribution")
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, (8, 9, 9, 2)).astype(np.float32)
    policy = rng.dirichlet(np.ones(82), 8).astype(np.float32)
    y = net.distribution_targets(policy, np.ones(8))
    assert set(y) == {"policy"} and y["policy"].shape == (8, 83)
    history = train_steps(net, lambda step: (x, y), 2)
    assert len(history) == 2 and "loss" in history[0]
    ckpt = NeuralNetwork.load(net.save(tmp_path / "ckpt.keras", include_optimizer=True),
                              compile=True)
    assert int(ckpt.model.optimizer.iterations) == 2
    logs = ckpt.model.train_on_batch(x, y, return_dict=True)
    assert np.isfinite(float(logs["loss"]))


def test_policy_learns_a_fixed_move(tmp_path, best):
    buf = ReplayBuffer(tmp_path / "fixed", window=1000)
    buf.add([random_game(seed, fixed=True) for seed in range(4)], generation=0)
    # the rate AlphaGo Zero starts from (the loop's default, 0.001, suits a
    # trained network; this one is fresh and has 60 steps)
    summary = train_candidate(best, buf, tmp_path / "fixed.keras",
                              RLTrainConfig(steps=60, batch_size=32, report_every=10,
                                            learning_rate=0.01),
                              log=lambda _: None)
    first, last = summary["first_losses"], summary["losses"]
    assert last["policy"] < 0.5 * first["policy"], (first, last)
    assert last["top1"] > max(first["top1"], 0.5), (first, last)


def test_refusals_are_readable(tmp_path, best, buffer):
    small = ReplayBuffer(tmp_path / "small", window=10)
    small.add([random_game(7, moves=20)], generation=0)
    with pytest.raises(ValueError, match=r"holds 20 positions, fewer than one batch of 32"):
        train_candidate(best, small, tmp_path / "c.keras", RLTrainConfig(batch_size=32))

    history = ReplayBuffer(tmp_path / "history")
    history.add([random_game(s, plane_set="history") for s in range(2)], generation=0)
    with pytest.raises(ValueError, match=r"takes the 'extended' planes.*'history'"):
        train_candidate(best, history, tmp_path / "c.keras", RLTrainConfig(batch_size=8))

    with pytest.raises(ValueError, match=r"made for 9x9 boards, not the 7x7"):
        train_candidate(best, buffer, tmp_path / "c.keras", size=7)

    with pytest.raises(ValueError, match=r"would overwrite the best network"):
        train_candidate(best, buffer, best)
    with pytest.raises(ValueError, match=r"steps must be at least 1"):
        train_candidate(best, buffer, tmp_path / "c.keras", RLTrainConfig(steps=0))
    assert not list(tmp_path.glob("*.keras")) and not list(tmp_path.glob(".*"))


def test_no_temporary_files_left_when_saving_fails(tmp_path, best, buffer, monkeypatch):
    import keras

    def broken_save(self, path, *args, **kwargs):  # Keras's write stops half-way
        with open(path, "wb") as half:
            half.write(b"partial")
        raise OSError("disk full")

    monkeypatch.setattr(keras.Model, "save", broken_save)
    with pytest.raises(OSError, match="disk full"):
        train_candidate(best, buffer, tmp_path / "d.keras",
                        RLTrainConfig(steps=1, batch_size=32), log=lambda _: None)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("mix", [0.0, 0.5, 1.0])
def test_value_targets_mix_outcomes_and_searched_values(tmp_path, best, buffer, monkeypatch,
                                                        mix):
    from imago.nn.networks import NeuralNetwork

    batches, values = [], []
    sample = buffer.sample
    monkeypatch.setattr(buffer, "sample", lambda *a, **k: batches.append(sample(*a, **k))
                        or batches[-1])
    targets = NeuralNetwork.distribution_targets
    monkeypatch.setattr(NeuralNetwork, "distribution_targets",
                        lambda self, policy, weight, value=None, *rest: values.append(value)
                        or targets(self, policy, weight, value, *rest))
    train_candidate(best, buffer, tmp_path / "c.keras",
                    RLTrainConfig(steps=2, batch_size=16, value_mix=mix), log=lambda _: None)
    assert len(values) == len(batches) == 2
    for b, value in zip(batches, values):
        assert np.allclose(value, (1 - mix) * b["value"] + mix * b["searched"])
    assert RLTrainConfig(value_mix=1.5).problems() == ["value_mix must be from 0 to 1, not 1.5"]


def test_candidate_command_trains_on_a_selfplay_folder(tmp_path, best, capsys):
    """`train.py candidate` continues a network on a self-play folder's
    replay/ (or a replay folder itself) with the loop's trainer and its
    options; a model of another size is refused in words, rc 1."""
    from imago.nn.modelfile import read_metadata
    from imago.training.candidate_cli import candidate_main

    games = ReplayBuffer(tmp_path / "sp" / "replay", window=1000)
    games.add([random_game(seed) for seed in range(3)], generation=0)
    out = tmp_path / "try.keras"
    assert candidate_main(["--model", str(best), "--replay", str(tmp_path / "sp"),
                           "--out", str(out), "--steps", "3", "--batch-size", "16",
                           "--policy-weight", "0.5", "--lr", "0.002", "--no-progress"]) == 0
    assert "3 steps of 16 on 90 positions" in capsys.readouterr().out
    config = read_metadata(out)["rl_training"]["config"]
    assert (config["steps"], config["policy_weight"], config["learning_rate"]) == (3, 0.5, 0.002)
    assert candidate_main(["--model", str(out), "--replay", str(tmp_path / "sp" / "replay"),
                           "--out", str(tmp_path / "again.keras"), "--steps", "1",
                           "--batch-size", "16", "--no-progress"]) == 0
    assert candidate_main(["--model", str(best), "--replay", str(tmp_path / "sp"),
                           "--out", str(tmp_path / "x.keras"), "--size", "13",
                           "--no-progress"]) == 1
    assert "made for 9x9 boards, not the 13x13 positions" in capsys.readouterr().err
    assert not (tmp_path / "x.keras").exists()


def test_candidate_command_names_bad_options(tmp_path, capsys):
    from imago.training.candidate_cli import candidate_main

    with pytest.raises(SystemExit):
        candidate_main(["--model", str(tmp_path / "none.keras"), "--replay",
                        str(tmp_path / "nowhere"), "--out", "x.keras", "--lr", "0",
                        "--value-mix", "2"])
    err = capsys.readouterr().err
    for words in ("--lr must be positive", "--value-mix must be from 0 to 1",
                  "no model file", "no folder"):
        assert words in err


def test_a_share_of_each_batch_comes_from_expert_games(tmp_path, best, buffer, monkeypatch):
    """``mix_share`` of every batch (rounded) is drawn from the expert
    games, the rest from the replay window; the candidate's metadata names
    both; a share without expert games, or a window of expert games smaller
    than its part of a batch, is refused in words."""
    from imago.nn.modelfile import read_metadata

    expert = ReplayBuffer(tmp_path / "expert", window=10 ** 9)
    expert.add([random_game(seed, fixed=True) for seed in range(10, 12)], generation=0)
    drawn = {"window": [], "expert": []}
    for name, buf in (("window", buffer), ("expert", expert)):
        monkeypatch.setattr(buf, "sample", lambda n, *a, _s=buf.sample, _k=name, **k:
                            drawn[_k].append(n) or _s(n, *a, **k))
    lines = []
    out = tmp_path / "mixed.keras"
    train_candidate(best, buffer, out, RLTrainConfig(steps=3, batch_size=32, mix_share=0.25),
                    log=lines.append, mix=expert)
    assert drawn == {"window": [24, 24, 24], "expert": [8, 8, 8]}
    assert "8 of each batch from 60 positions of expert games" in lines[0]
    meta = read_metadata(out)["rl_training"]
    assert meta["expert"]["positions"] == 60 and meta["config"]["mix_share"] == 0.25

    with pytest.raises(ValueError, match="mix_share is 0.25 but no expert games were given"):
        train_candidate(best, buffer, tmp_path / "c.keras",
                        RLTrainConfig(steps=1, batch_size=32, mix_share=0.25))
    with pytest.raises(ValueError, match="holds 60 positions, fewer than one batch of 64"):
        train_candidate(best, buffer, tmp_path / "c.keras",
                        RLTrainConfig(steps=1, batch_size=128, mix_share=0.5), mix=expert)
    assert not (tmp_path / "c.keras").exists()


def test_a_share_of_the_steps_keeps_the_networks_other_sizes(tmp_path, best, buffer,
                                                              monkeypatch):
    """Given expert games of other sizes (an any-size network's),
    ``other_sizes_share`` of the steps train on a whole batch of one of
    them, spread evenly and the sizes in turn; the log and the candidate's
    metadata say how many; a network not made for such a size is refused."""
    from imago.nn.modelfile import read_metadata
    from imago.nn.networks import create_network
    from imago.training.rl_trainer import other_size_steps

    assert other_size_steps(8, 0.25, [13, 19]) == {3: 13, 7: 19}
    assert other_size_steps(8, 0.0, [13]) == {} == other_size_steps(8, 0.5, [])
    net = create_network("residual", 9, PLANES, blocks=1, filters=8)
    net.metadata["board_sizes"] = [9, 13]
    model = net.save(tmp_path / "multi.keras")
    big = ReplayBuffer(tmp_path / "big", window=10 ** 9)
    big.add([random_game(seed, size=13) for seed in range(20, 22)], generation=0)
    drawn = []
    for buf in (buffer, big):
        monkeypatch.setattr(buf, "sample", lambda n, *a, _s=buf.sample, **k:
                            drawn.append((n, k["size"])) or _s(n, *a, **k))
    lines = []
    out = tmp_path / "kept.keras"
    train_candidate(model, buffer, out,
                    RLTrainConfig(steps=4, batch_size=16, other_sizes_share=0.5),
                    log=lines.append, others={13: big})
    assert drawn == [(16, 9), (16, 13), (16, 9), (16, 13)]
    assert "2 steps on 13x13 expert games (60 positions)" in lines[0]
    meta = read_metadata(out)["rl_training"]
    assert meta["other_sizes"]["13"]["positions"] == 60
    assert meta["config"]["other_sizes_share"] == 0.5

    with pytest.raises(ValueError, match="made for 9x9 boards, not the 13x13"):
        train_candidate(best, buffer, tmp_path / "c.keras",
                        RLTrainConfig(steps=2, batch_size=16, other_sizes_share=0.5),
                        others={13: big})
    assert RLTrainConfig(other_sizes_share=1.0).problems() == [
        "other_sizes_share must be from 0 up to (not including) 1, not 1.0"]


def test_candidate_command_mixes_sgf_games(tmp_path, best, capsys, monkeypatch):
    from imago.nn.modelfile import read_metadata
    from imago.training.candidate_cli import candidate_main

    monkeypatch.setenv("IMAGO_CACHE", str(tmp_path / "cache"))
    # GNU Go reads an unfinished game's dead stones for seconds (a finished one's in ms)
    monkeypatch.setattr("imago.training.expert.gnugo_dead_stones", lambda cache: None)
    games = ReplayBuffer(tmp_path / "sp" / "replay", window=1000)
    games.add([random_game(seed) for seed in range(3)], generation=0)
    data = tmp_path / "data"
    data.mkdir()
    for k in range(12):
        (data / f"g{k}.sgf").write_text(
            "(;GM[1]FF[4]SZ[9]KM[7.5]RE[W+2.5];B[ee];W[cc];B[gg];W[cg];B[gc];W[gf])")
    out = tmp_path / "try.keras"
    assert candidate_main(["--model", str(best), "--replay", str(tmp_path / "sp"),
                           "--out", str(out), "--steps", "2", "--batch-size", "16",
                           "--mix", str(data), "--mix-share", "0.5", "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert "expert games: importing" in err and "8 of each batch from" in err
    assert read_metadata(out)["rl_training"]["config"]["mix_share"] == 0.5
    with pytest.raises(SystemExit):
        candidate_main(["--model", str(best), "--replay", str(tmp_path / "sp"),
                        "--out", str(out), "--mix", str(tmp_path / "nowhere")])
    assert "no such file or folder" in capsys.readouterr().err
