"""train.py against what a user may give it: inputs without samples beside
good ones, unreadable files, nonsense option values, a model file that is no
model or was made for other planes or sizes, --resume of another run, a
missing output folder, an interrupted run. Each gets a one-line reason, and
nothing already made is lost."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest

from imago.training import cli as train_script
from imago.training import data as D
from imago.training.options import TrainConfig
from imago.training.start import Checkpoint, plan_start
from test_training_data import write_games

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def folders(tmp_path):
    """A folder of good games, one whose games are all shorter than the
    opening its index.tsv skips, and one holding a file that is no SGF."""
    good = tmp_path / "good"
    write_games(good, 4)
    short = tmp_path / "short"
    write_games(short, 2, index={"game-000.sgf": 40, "game-001.sgf": 30})
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "notes.sgf").write_bytes(b"\x00\x01 not a game record")
    return good, short, junk


# ------------------------------------------------------------------ inputs
def test_an_input_without_samples_beside_good_ones(tmp_path, folders):
    """Issue 15.7: one input without samples and another with them used to
    end in KeyError: 'game'."""
    good, short, junk = folders
    for inputs in ([short, good], [junk, good], [good, short, junk]):
        data = D.load_dataset(list(map(str, inputs)), "basic", 9, tmp_path / "cache", 0.0)
        assert len(data.train) == 4 * 30
        assert set(map(str, data.train.games)) == {str(p) for p in sorted(good.glob("*.sgf"))}
    problems = "\n".join(data.problems)
    assert "short/game-000.sgf: no moves after the 40 opening moves" in problems
    assert "short/game-001.sgf: no moves after the 30 opening moves" in problems
    assert "junk/notes.sgf" in problems


def test_unreadable_files_are_named_skipped_and_read_once_they_can_be(tmp_path):
    folder = tmp_path / "games"
    write_games(folder, 2)
    dangling = folder / "dangling.sgf"
    dangling.symlink_to(tmp_path / "elsewhere.sgf")
    fifo = folder / "fifo.sgf"
    os.mkfifo(fifo)  # opening it would wait for a writer for ever
    cache = tmp_path / "cache"
    data = D.load_dataset([str(folder)], "basic", 9, cache, 0.0)
    assert len(data.train) == 60
    assert f"{dangling}: cannot read it (No such file or directory)" in data.problems
    assert f"{fifo}: not a regular file" in data.problems
    # not cached as skipped: once the file is there, it is read
    (tmp_path / "elsewhere.sgf").write_text((folder / "game-000.sgf").read_text())
    again = D.load_dataset([str(folder)], "basic", 9, cache, 0.0)
    assert len(again.train) == 90 and len(again.problems) == 1


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_a_file_without_read_permission_is_named(tmp_path):
    folder = tmp_path / "games"
    paths = write_games(folder, 2)
    paths[0].chmod(0)
    data = D.load_dataset([str(folder)], "basic", 9, tmp_path / "cache", 0.0)
    assert len(data.train) == 30
    assert data.problems == [f"{paths[0]}: cannot read it (permission denied)"]


# ------------------------------------------------------------------ option values
def run_script(argv, capsys) -> tuple[int, str]:
    """``train.py ARGV``'s exit status and stderr (argparse exits too)."""
    try:
        status = train_script.main(argv)
    except SystemExit as exit_:
        status = exit_.code
    return status, capsys.readouterr().err


@pytest.mark.parametrize("option,message", [
    (["--epochs", "-1"], "--epochs must be at least 1, not -1"),
    (["--epochs", "0"], "--epochs must be at least 1, not 0"),
    (["--batch-size", "0"], "--batch-size must be at least 1, not 0"),
    (["--lr", "-0.1"], "--lr must be a positive number, not -0.1"),
    (["--lr", "nan"], "--lr must be a positive number, not nan"),
    (["--momentum", "1"], "--momentum must be from 0 up to (not including) 1"),
    (["--l2", "-1"], "--l2 must be zero or more"),
    (["--value-weight", "-2"], "--value-weight must be zero or more"),
    (["--policy-weight", "0", "--value-weight", "0", "--ownership-weight", "0"],
     "the loss weights are all 0"),
    (["--validation", "1"], "--validation must be a fraction from 0 up to (not including) 1"),
    (["--board-size", "1"], "--board-size must be 2 to 25, not 1"),
    (["--board-size", "26"], "--board-size must be 2 to 25, not 26"),
    (["--blocks", "0"], "--blocks must be at least 1, not 0"),
    (["--filters", "-8"], "--filters must be at least 1, not -8"),
    (["--max-games", "0"], "--max-games must be at least 1, not 0"),
    (["--time-limit", "-5"], "--time-limit must be a positive number of minutes"),
    (["--seed", "-1"], "--seed must be from 0 to 2**32 - 1, not -1"),
    (["--epochs", "ten"], "argument --epochs: invalid int value: 'ten'"),
])
def test_nonsense_option_values_are_refused_before_any_work(tmp_path, capsys, option, message):
    status, err = run_script(["games/", "--cache", str(tmp_path / "c")] + option, capsys)
    assert status == 2
    last = err.splitlines()[-1]  # argparse's usage, then one line
    assert last.startswith("train.py: error: ") and message in last and "Traceback" not in err
    assert not (tmp_path / "c").exists()


def test_help_shows_every_default():
    """Issue 15.11: every option's help says its default (on/off flags aside)."""
    from imago.training.options import HelpFormatter

    parser, _ = train_script.parse_args(["x"])
    text = parser.format_help()
    assert "(default: 10)" in text and "(default: 256)" in text and "(default: 0.001)" in text
    assert "(default: models/model.keras)" in text and "(default: residual," in text
    formatter = HelpFormatter("train.py")
    for action in parser._actions:
        if action.option_strings and not isinstance(action.default, bool) \
                and action.dest != "help":
            assert "default" in formatter._get_help_string(action), action.dest


def test_config_defaults_are_the_command_line_defaults():
    _, args = train_script.parse_args(["x"])
    defaults = TrainConfig.defaults()
    for name, value in vars(args).items():
        if name != "inputs":
            assert defaults[name] == value, name


# ------------------------------------------------------------------ --resume, --init
def fake_model(path: Path, architecture="residual", plane_set="history", sizes=(9,),
               any_size=True, **params) -> Path:
    """A model file and its sidecar as train.py writes them (the sidecar is
    all :func:`plan_start` reads)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:  # a .keras file is a zip archive
        archive.writestr("config.json", "{}")
    path.with_suffix(".json").write_text(json.dumps({
        "architecture": architecture, "plane_set": plane_set, "board_sizes": list(sizes),
        "any_size": any_size, "params": params}))
    return path


def fake_checkpoint(cache: Path, output: Path, epochs_done=1, train_heads=None, **net) -> None:
    ckpt = cache / "checkpoints" / output.stem
    fake_model(ckpt / "checkpoint.keras", **net)
    (ckpt / "checkpoint-state.json").write_text(json.dumps({
        "epochs_done": epochs_done, "logs": {},
        "run": {"output": str(output.resolve()), "board_size": 9, "train_heads": train_heads}}))


def plan(tmp_path, **kw):
    lines: list[str] = []
    config = TrainConfig(inputs=["games"], output=str(tmp_path / "out" / "x.keras"),
                         cache_dir=str(tmp_path / "cache"), command="test", **kw)
    config, start = plan_start(config, Checkpoint.of_run(config, tmp_path / "cache"),
                               lines.append)
    return config, start, lines


def test_resume_refuses_a_run_made_with_other_options(tmp_path):
    """Issue 15.7: --resume used to go on with an unrelated run."""
    fake_checkpoint(tmp_path / "cache", tmp_path / "out" / "x.keras", blocks=6, filters=64)
    with pytest.raises(ValueError, match=r"^--resume: the run in \S+/checkpoints/x was made "
                                         r"with --blocks 6 \(not 10\); leave those options out"):
        plan(tmp_path, resume=True, blocks=10)
    with pytest.raises(ValueError, match=r"--planes history \(not extended\), "
                                         r"--filters 64 \(not 32\)"):
        plan(tmp_path, resume=True, plane_set="extended", filters=32)
    with pytest.raises(ValueError, match=r"--train-heads all heads \(not value\)"):
        plan(tmp_path, resume=True, train_heads=["value"])
    # what the command line leaves out comes from the checkpoint
    config, start, _ = plan(tmp_path, resume=True, epochs=3)
    assert (config.blocks, config.filters, config.plane_set) == (6, 64, "history")
    assert start.kind == "resume" and start.epochs_done == 1


def test_resume_refuses_the_checkpoint_of_another_output(tmp_path):
    fake_checkpoint(tmp_path / "cache", tmp_path / "elsewhere" / "x.keras", blocks=6, filters=64)
    with pytest.raises(ValueError, match=r"--resume: the checkpoint in \S+ belongs to the run "
                                         r"that writes \S+/elsewhere/x.keras, not \S+/out/x.keras"):
        plan(tmp_path, resume=True)
    # a new run would overwrite it: refused too
    with pytest.raises(ValueError, match="give --checkpoint-dir"):
        plan(tmp_path)
    config, start, _ = plan(tmp_path, checkpoint_dir=str(tmp_path / "mine"))
    assert start.kind == "new" and config.blocks == 6


def test_a_new_run_over_its_own_old_checkpoint_says_so(tmp_path):
    fake_checkpoint(tmp_path / "cache", tmp_path / "out" / "x.keras", blocks=6, filters=64)
    _, start, lines = plan(tmp_path, blocks=2)
    assert start.kind == "new"
    assert any(line.startswith("replacing the checkpoint in") for line in lines)


def test_resume_of_a_finished_run_asks_for_more_epochs(tmp_path):
    fake_checkpoint(tmp_path / "cache", tmp_path / "out" / "x.keras", epochs_done=10)
    with pytest.raises(ValueError, match="has done 10 epochs already; ask for more with --epochs"):
        plan(tmp_path, resume=True)


def test_init_refuses_options_its_model_contradicts(tmp_path):
    model = fake_model(tmp_path / "m.keras", "conv", "extended", any_size=False, filters=32)
    config, start, _ = plan(tmp_path, init=str(model))
    assert (config.architecture, config.plane_set, config.filters) == ("conv", "extended", 32)
    with pytest.raises(ValueError, match=r"^--init: \S+m.keras is a network with --planes "
                                         r"extended \(not basic\); leave those options out"):
        plan(tmp_path, init=str(model), plane_set="basic")
    with pytest.raises(ValueError, match=r"made for 9x9 boards, not 13x13 \(--board-size\)"):
        plan(tmp_path, init=str(model), board_size=13)


@pytest.mark.parametrize("sidecar,message", [
    (None, "has no metadata file m.json"),
    ("", "not a model's metadata"),
    ("not json", "not a model's metadata"),
    ('{"architecture": "transformer", "plane_set": "basic"}', "unknown architecture"),
    ('{"architecture": "conv", "plane_set": "colour"}', "unknown plane set 'colour'"),
])
def test_init_names_a_file_that_is_no_model(tmp_path, capsys, sidecar, message):
    model = fake_model(tmp_path / "m.keras")
    model.with_suffix(".json").unlink()
    if sidecar is not None:
        model.with_suffix(".json").write_text(sidecar)
    status, err = run_script(["games", "--init", str(model), "--cache", str(tmp_path / "c")],
                             capsys)
    assert status == 1
    assert err.startswith("train.py: --init: ") and message in err and err.count("\n") == 1


def test_train_heads_need_a_trained_network(tmp_path):
    with pytest.raises(ValueError, match="--train-heads trains part of a trained network"):
        plan(tmp_path, train_heads=["value"])


# ------------------------------------------------------------------ output
def test_output_folder_is_checked_and_made_by_the_first_write(tmp_path, capsys):
    """The output's folder is checked before the long work and made only
    when the model is written: a run that stops before (no data) leaves no
    empty folder behind."""
    from imago.training.start import check_output

    made = check_output(tmp_path / "new" / "deeper" / "m.keras")
    assert made == tmp_path / "new" / "deeper" / "m.keras"
    assert not (tmp_path / "new").exists()
    (tmp_path / "new").mkdir()
    with pytest.raises(ValueError, match="is a folder; give a file name such as"):
        check_output(tmp_path / "new")
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match=r"^--output: \S+/file is a file, not a folder"):
        check_output(tmp_path / "file" / "sub" / "m.keras")
    status, err = run_script(["games", "--output", str(tmp_path / "file" / "m.keras"),
                              "--cache", str(tmp_path / "c")], capsys)
    assert status == 1
    assert err == f"train.py: --output: {tmp_path / 'file'} is a file, not a folder\n"
    status, err = run_script([str(tmp_path / "no-records"), "--output",
                              str(tmp_path / "models" / "m.keras"), "--checkpoint-dir",
                              str(tmp_path / "checkpoints"), "--cache", str(tmp_path / "c")],
                             capsys)
    assert status == 1 and "no training data" in err
    assert not (tmp_path / "models").exists() and not (tmp_path / "checkpoints").exists()


# ------------------------------------------------------------------ with Keras (tiny runs)
def tiny(tmp_path, inputs, **kw) -> TrainConfig:
    base = dict(inputs=list(map(str, inputs)), output=str(tmp_path / "out" / "tiny.keras"),
                blocks=1, filters=4, epochs=1, batch_size=64, validation=0.0,
                cache_dir=str(tmp_path / "cache"), verbose=0, command="test")
    base.update(kw)
    return TrainConfig(**base)


def test_train_py_trains_beside_inputs_without_samples(tmp_path, folders, capsys):
    pytest.importorskip("tensorflow")
    good, short, junk = folders
    status = train_script.main([str(short), str(junk), str(good), str(tmp_path / "missing"),
                                "--output", str(tmp_path / "new" / "m.keras"), "--blocks", "1",
                                "--filters", "4", "--epochs", "1", "--verbose", "0",
                                "--cache", str(tmp_path / "cache")])
    out = capsys.readouterr().out
    assert status == 0 and (tmp_path / "new" / "m.keras").is_file()
    assert "skipped: " + str(short / "game-000.sgf") in out and "notes.sgf" in out
    assert f"skipped: {tmp_path / 'missing'}: no such file or folder" in out


def test_resume_of_another_run_leaves_its_checkpoint_alone(tmp_path, folders):
    pytest.importorskip("tensorflow")
    from imago.training.trainer import train

    good = folders[0]
    train(tiny(tmp_path, [good]), log=lambda *_: None)
    ckpt = tmp_path / "cache" / "checkpoints" / "tiny" / "checkpoint.keras"
    before = ckpt.stat().st_mtime_ns
    with pytest.raises(ValueError, match=r"made with --blocks 1 \(not 2\)"):
        train(tiny(tmp_path, [good], blocks=2, epochs=2, resume=True), log=lambda *_: None)
    other = str(tmp_path / "other" / "tiny.keras")
    with pytest.raises(ValueError, match="belongs to the run that writes"):
        train(tiny(tmp_path, [good], epochs=2, resume=True, output=other), log=lambda *_: None)
    assert ckpt.stat().st_mtime_ns == before
    lines: list[str] = []
    info = train(tiny(tmp_path, [good], blocks=None, filters=None, epochs=2, resume=True),
                 log=lines.append)
    assert "resuming from" in "\n".join(lines) and info["training"]["epochs"] == 2


@pytest.mark.parametrize("content,planes,message", [
    (b"not a model", "history", "--init: .* is not a Keras model file"),
    ("zip", "history", "--init: cannot load .*m.keras: "),      # a zip, but no Keras model
    ("conv9", "extended", "--init: .*18 input planes"),          # a model for other planes
])
def test_init_model_that_does_not_load_is_named(tmp_path, folders, content, planes, message):
    pytest.importorskip("tensorflow")
    from imago.training.trainer import train

    model = fake_model(tmp_path / "m.keras")
    meta = json.loads((REPO / "models" / "conv9.json").read_text())
    meta["plane_set"] = planes
    model.with_suffix(".json").write_text(json.dumps(meta))
    if content == "conv9":
        model.write_bytes((REPO / "models" / "conv9.keras").read_bytes())
    elif content != "zip":
        model.write_bytes(content)
    with pytest.raises(ValueError, match=message) as caught:
        train(tiny(tmp_path, [folders[0]], init=str(model), blocks=None, filters=None),
              log=lambda *_: None)
    assert "\n" not in str(caught.value) and str(model) in str(caught.value)


def fake_fit(epochs_before_interrupt: int):
    """A stand-in for :func:`imago.nn.fitting.fit` that checkpoints some
    epochs without training, then is interrupted (or returns)."""
    def fit(net, *args, on_epoch_end, initial_epoch=0, epochs, **kw):
        for epoch in range(initial_epoch, initial_epoch + epochs_before_interrupt):
            on_epoch_end(epoch, {"loss": 1.0})
        if epochs_before_interrupt < epochs - initial_epoch:
            raise KeyboardInterrupt
        return {"loss": [1.0] * epochs_before_interrupt}
    return fit


def test_an_interrupted_run_keeps_its_checkpoint(tmp_path, folders, monkeypatch):
    pytest.importorskip("tensorflow")
    import imago.nn.fitting
    from imago.training.trainer import train

    monkeypatch.setattr(imago.nn.fitting, "fit", fake_fit(2))
    lines: list[str] = []
    with pytest.raises(KeyboardInterrupt):
        train(tiny(tmp_path, [folders[0]], epochs=5), log=lines.append)
    ckpt = tmp_path / "cache" / "checkpoints" / "tiny"
    assert lines[-1] == (f"interrupted: the network after epoch 2 is in "
                         f"{ckpt / 'checkpoint.keras'} (--resume goes on from it)")
    assert json.loads((ckpt / "checkpoint-state.json").read_text())["epochs_done"] == 2


def test_a_model_that_cannot_be_written_names_the_checkpoint(tmp_path, folders, monkeypatch):
    pytest.importorskip("tensorflow")
    import imago.nn.fitting
    from imago.nn.networks import NeuralNetwork
    from imago.training.trainer import train

    monkeypatch.setattr(imago.nn.fitting, "fit", fake_fit(1))
    save = NeuralNetwork.save

    def refuse_the_output(net, path, include_optimizer=False, **meta):
        if "checkpoint" not in str(path):
            raise PermissionError(13, "Permission denied")
        return save(net, path, include_optimizer, **meta)

    monkeypatch.setattr(NeuralNetwork, "save", refuse_the_output)
    with pytest.raises(OSError, match=r"^cannot write \S+tiny.keras \(Permission denied\); the "
                                      r"network after epoch 1 is in \S+checkpoint.keras"):
        train(tiny(tmp_path, [folders[0]]), log=lambda *_: None)
