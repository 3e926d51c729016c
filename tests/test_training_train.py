"""End-to-end training into a temporary folder: a tiny net, one epoch, the
exported model and its metadata, checkpoints and --resume, the time limit,
bad inputs named, symmetry batches, and Keras kept out of the import."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from sgf_fakes import COUNTED
from test_training_data import write_games

pytest.importorskip("tensorflow")

from imago.training.trainer import TrainConfig, learning_rate_at, train  # noqa: E402


@pytest.fixture(scope="module")
def games(tmp_path_factory):
    folder = tmp_path_factory.mktemp("games")
    # the odd games counted out, so that their final ownership is learnt and measured
    write_games(folder, 8, index={f"game-{i:03d}.sgf": 2 for i in range(8)},
                odd_result=COUNTED)
    (folder / "broken.sgf").write_text("(;SZ[9];B[ee];W[ee])")
    return folder


def config(tmp_path, games, **kw) -> TrainConfig:
    base = dict(inputs=[str(games)], output=str(tmp_path / "out" / "tiny.keras"),
                architecture="residual", blocks=1, filters=8, epochs=1, batch_size=64,
                validation=0.25, cache_dir=str(tmp_path / "cache"), verbose=0,
                command="train.py (test)")
    base.update(kw)
    return TrainConfig(**base)


def test_train_end_to_end(tmp_path, games, capsys):
    from imago.nn.networks import NeuralNetwork

    lines = []
    info = train(config(tmp_path, games, logdir=str(tmp_path / "tb")), log=lines.append)
    out = tmp_path / "out" / "tiny.keras"
    assert out.exists() and (tmp_path / "out" / "tiny.json").exists()
    assert any("broken.sgf" in line and line.startswith("skipped") for line in lines)
    text = "\n".join(lines)
    assert "validation: top-1" in text and "ownership accuracy" in text
    m = info["metrics"]
    for key in ("policy_top1", "policy_top3", "value_mse", "ownership_accuracy"):
        assert 0 <= m[key] <= 4
    meta = json.loads((tmp_path / "out" / "tiny.json").read_text())
    assert meta["data"]["files"] == 9 and meta["data"]["skipped_files"] == 1
    assert meta["training"]["epochs"] == 1 and meta["command"] == "train.py (test)"
    assert meta["data"]["train_samples"] + meta["data"]["validation_samples"] == 8 * 28
    net = NeuralNetwork.load(out, board_size=9)
    assert net.plane_set == "history"
    # checkpoint written; the cache (not the repo) holds shards and checkpoints
    checkpoint = tmp_path / "cache" / "checkpoints" / "tiny" / "checkpoint.keras"
    assert checkpoint.exists()
    assert list((tmp_path / "cache" / "shards").glob("*.npz"))
    # resigned games teach no ownership: the loss takes a weight per sample
    assert NeuralNetwork.load(checkpoint, board_size=9, compile=True).ownership_masked


def test_resume_continues_after_the_last_epoch(tmp_path, games):
    lines = []
    train(config(tmp_path, games, epochs=1), log=lines.append)
    lines = []
    info = train(config(tmp_path, games, epochs=2, resume=True), log=lines.append)
    assert any("resuming" in line and "after epoch 1" in line for line in lines)
    assert info["training"]["epochs"] == 2


def test_value_head_alone_trains_from_a_model(tmp_path, games):
    """--init MODEL --train-heads value: every weight outside the value
    head (trunk, policy, ownership, batch-norm statistics) stays as it was."""
    from imago.nn.networks import NeuralNetwork

    first = tmp_path / "out" / "tiny.keras"
    train(config(tmp_path, games), log=lambda *_: None)
    lines: list = []
    second = tmp_path / "out" / "value.keras"
    train(config(tmp_path, games, init=str(first), train_heads=["value"], epochs=2,
                 learning_rate=0.05, output=str(second)), log=lines.append)
    assert any("value head(s) only" in line for line in lines)
    meta = json.loads((tmp_path / "out" / "value.json").read_text())
    assert meta["init"]["model"] == str(first) and meta["init"]["command"] == "train.py (test)"
    assert meta["training"]["config"]["train_heads"] == ["value"]
    before = NeuralNetwork.load(first).model
    after = NeuralNetwork.load(second).model
    value_layers = {"value"}
    changed = {layer.name for a, layer in zip(before.layers, after.layers)
               if any(not np.array_equal(x, y) for x, y in zip(a.get_weights(),
                                                                 layer.get_weights()))}
    assert "value" in changed  # the head moved...
    net = NeuralNetwork.load(second)
    net.train_only(["value"])
    head = {layer.name for layer in net.model.layers if layer.trainable}
    assert value_layers <= head and changed <= head  # ...and nothing else did
    assert "policy" not in head and "ownership" not in head


def test_time_limit_stops_between_epochs(tmp_path, games):
    lines = []
    info = train(config(tmp_path, games, epochs=3, time_limit=1e-6), log=lines.append)
    assert "time limit: stopping after epoch 1" in lines
    assert info["training"]["epochs"] == 1


def test_importing_the_trainer_leaves_keras_out():
    """Keras lives in imago.nn and is imported when training runs."""
    import subprocess
    import sys

    code = ("import sys, imago.training.trainer, imago.training.batches; "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'keras', 'tensorflow'}))")
    repo = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=repo).stdout
    assert out.strip() == "[]"


def test_train_only_names_a_missing_head(tmp_path, games):
    from imago.nn.networks import create_network

    net = create_network("conv", 9, "basic", filters=4)
    with pytest.raises(ValueError, match="no value head"):
        net.train_only(["value"])


def test_policy_only_networks_train(tmp_path, games):
    info = train(config(tmp_path, games, architecture="conv", filters=4, plane_set="basic",
                        output=str(tmp_path / "conv.keras")), log=lambda *_: None)
    assert "value_mse" not in info["metrics"] and "policy_top1" in info["metrics"]


def test_train_py_names_missing_input(tmp_path, capsys):
    import train as train_script

    status = train_script.main([str(tmp_path / "missing"), "--cache", str(tmp_path / "c"),
                                "--output", str(tmp_path / "m.keras"), "--verbose", "0"])
    assert status == 1
    assert "missing" in capsys.readouterr().err


def test_learning_rate_schedule_decays():
    c = TrainConfig(inputs=[], epochs=10, learning_rate=0.1)
    rates = [learning_rate_at(c, e) for e in range(10)]
    assert rates[0] == pytest.approx(0.1) and rates[-1] == pytest.approx(0.001)
    assert all(a >= b for a, b in zip(rates, rates[1:]))


def test_augmented_batches_keep_moves_on_their_stones(tmp_path, games):
    from imago.training.batches import make_batch
    from imago.training.data import load_dataset

    data = load_dataset([str(games)], "basic", 9, tmp_path / "c", 0.0)
    idx = np.arange(len(data.train))
    rng = np.random.default_rng(0)
    x, y = make_batch(data.train, idx, ("policy", "value", "ownership"), rng)
    assert x.dtype == np.float32 and x.shape == (len(idx), 9, 9, 2)
    # the move is never played on an occupied point, whatever the symmetry
    moves = y["policy"]
    on_board = moves < 81
    r, c = np.divmod(moves[on_board], 9)
    assert (x[on_board][np.arange(on_board.sum()), r, c].sum(axis=1) == 0).all()
    assert y["value"].shape == (len(idx), 2)


def test_resigned_games_teach_no_ownership(tmp_path, games):
    from imago.training.batches import make_batch
    from imago.training.data import load_dataset

    data = load_dataset([str(games)], "basic", 9, tmp_path / "c", 0.0)
    train = data.train
    idx = np.arange(len(train))
    heads = ("policy", "value", "ownership")
    resigned = np.array([int(Path(str(g)).stem.split("-")[1]) % 2 == 0 for g in train.games])
    assert resigned.any() and not resigned.all()  # write_games: even games end W+R
    assert train.own_mask[~resigned].any()  # the odd ones counted out
    x, y = make_batch(train, idx, heads, np.random.default_rng(0), masked_ownership=True)
    assert y["ownership"].shape == (len(idx), 82)
    weight = y["ownership"][:, -1]
    assert np.array_equal(weight, train.own_mask) and not weight[resigned].any()
    # unmasked batches (a checkpoint compiled before the mask) keep their old shape
    assert make_batch(train, idx, heads, None)[1]["ownership"].shape == (len(idx), 81)
    # the validation figures measure no point of a game whose ownership is unknown
    known = train.known_ownership()
    assert not known[resigned].any()
    assert np.array_equal(known[~resigned & (train.own_mask == 1)],
                          train.ownership[~resigned & (train.own_mask == 1)])
