"""imago installed as a package, not used from a checkout: the networks
travel inside it, and shipped networks can be named from any folder."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from importlib.util import find_spec
from pathlib import Path

import pytest

from imago.nn.evaluator import DEFAULT_MODEL, SIZE_MODELS
from imago.nn.modelfile import MODELS_DIR, find_model, read_metadata, shipped_names

REPO = Path(__file__).resolve().parent.parent
PACKAGING = ["pyproject.toml", "setup.py", "README.md", "LICENSE"]


def test_a_shipped_network_is_found_by_its_name_from_any_folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for given in ("soup9", "soup9.keras", "models/soup9.keras", "models/soup9"):
        assert find_model(given) == MODELS_DIR / "soup9.keras", given
    assert "soup9" in shipped_names() and "multi" in shipped_names()
    mine = tmp_path / "models" / "soup9.keras"  # a file of the user's own wins
    mine.parent.mkdir()
    mine.write_bytes(b"")
    assert find_model("models/soup9.keras") == Path("models/soup9.keras")
    for unknown in ("nets/soup9.keras", "no-such-network", "/abs/soup9.keras"):
        assert find_model(unknown) == Path(unknown)
    with pytest.raises(FileNotFoundError, match=r"no model at no-such-network \(or name a "
                                                r"shipped network: .*soup9"):
        read_metadata(find_model("no-such-network"))


def _can_build_wheels() -> bool:
    if find_spec("setuptools") is None:
        return False
    import setuptools

    major, minor = (int(part) for part in setuptools.__version__.split(".")[:2])
    return find_spec("wheel") is not None or (major, minor) >= (70, 1)


@pytest.mark.skipif(not _can_build_wheels(),
                    reason="building a wheel offline needs setuptools with wheel (or 70.1+)")
def test_an_installed_wheel_carries_the_networks_and_plays_with_them(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    for name in PACKAGING:
        shutil.copy2(REPO / name, source / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.tmp*")
    shutil.copytree(REPO / "imago", source / "imago", ignore=ignore)
    shutil.copytree(REPO / "models", source / "models", ignore=ignore)
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps",
                            "--no-build-isolation", "-q", ".", "-w", str(tmp_path / "dist")],
                           cwd=source, capture_output=True, text=True, timeout=300)
    assert build.returncode == 0, build.stderr[-2000:]
    wheel, = (tmp_path / "dist").glob("imago-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for model in [DEFAULT_MODEL, *SIZE_MODELS.values()]:
        assert f"imago/models/{model.name}" in names
        assert f"imago/models/{model.with_suffix('.json').name}" in names
    modules = {str(p.relative_to(REPO)) for p in (REPO / "imago").rglob("*.py")
               if "__pycache__" not in p.parts}
    assert modules <= names, sorted(modules - names)[:5]
    assert any(name.endswith(".dist-info/LICENSE") for name in names)
    top_level = {name.split("/")[0] for name in names if not name.startswith("imago-")}
    assert top_level == {"imago"}  # no go.py or train.py among the user's own modules

    target = tmp_path / "installed"
    install = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q",
                              "--target", str(target), str(wheel)],
                             capture_output=True, text=True, timeout=300)
    assert install.returncode == 0, install.stderr[-2000:]
    probe = ("import imago, imago.nn.evaluator as e, imago.engine.algorithm as a; "
             "print(imago.__file__); print(e.shipped_model(9)); print(a.DEFAULT_ALGORITHM); "
             "from imago.gtp.cli import main; main(['-o', 'visits=8'])")
    env = {**os.environ, "PYTHONPATH": str(target)}
    run = subprocess.run([sys.executable, "-c", probe], input="boardsize 9\ngenmove b\nquit\n",
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    lines = run.stdout.splitlines()
    assert Path(lines[0]).is_relative_to(target), lines[0]  # not the checkout's package
    assert Path(lines[1]) == target / "imago" / "models" / SIZE_MODELS[9].name
    assert lines[2] == "mcts"  # a network plays, not random playouts
    assert any(line.startswith("= ") and len(line) > 2 for line in lines[3:]), run.stdout
    assert "network" in run.stderr and str(target) in run.stderr
    listed = subprocess.run([sys.executable, "-m", "imago", "models", "--json"], cwd=tmp_path,
                            env=env, capture_output=True, text=True, timeout=60)
    assert listed.returncode == 0, listed.stderr[-2000:]
    defaults = {row["name"]: row["default_for"] for row in map(json.loads,
                                                               listed.stdout.splitlines())}
    assert defaults[SIZE_MODELS[9].stem] == "9x9"


def test_the_imago_command_does_what_the_checkouts_scripts_do(monkeypatch, capsys):
    from imago.__main__ import main

    assert main([]) == 2
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()
              if line.startswith("  ")]
    assert listed == ["play", "gtp", "analysis", "review", "train", "match", "models"]
    assert main(["--version"]) == 0 and capsys.readouterr().out.startswith("imago 0.")
    monkeypatch.setattr(sys, "stdin", io.StringIO("e5\nd5\nscore\nquit\n"))
    assert main(["play", "--human-vs-human", "--size", "7", "--komi", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "imago: 7x7, komi 0.5." in out and "Score: " in out
    for argv, usage in ((["play", "--help"], "usage: imago play "),
                        (["train", "--help"], "usage: imago train "),
                        (["train", "stream", "--help"], "usage: imago train stream "),
                        (["train", "rl", "--help"], "usage: imago train rl "),
                        (["match", "--help"], "usage: imago match ")):
        with pytest.raises(SystemExit) as done:
            main(argv)
        assert done.value.code == 0
        assert capsys.readouterr().out.startswith(usage), argv
    with pytest.raises(SystemExit):
        main(["train", "versus"])
    assert "imago train versus: error: the following arguments" in capsys.readouterr().err


def test_the_checkouts_scripts_keep_their_own_names(capsys):
    from imago.training import cli

    with pytest.raises(SystemExit):
        cli.main(["stream", "--help"])
    assert capsys.readouterr().out.startswith("usage: train.py stream ")
    with pytest.raises(SystemExit):
        cli.main(["--help"], prog="imago train")
    assert capsys.readouterr().out.startswith("usage: imago train ")
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert capsys.readouterr().out.startswith("usage: train.py ")


def test_the_analysis_engine_takes_a_shipped_networks_name_too(tmp_path, monkeypatch):
    from imago.analysis.cli import _model

    monkeypatch.chdir(tmp_path)
    assert _model("multi") == _model("models/multi.keras") == str(MODELS_DIR / "multi.keras")
    assert _model("kata1-b18c384.bin.gz") == "default"  # KaTrain's KataGo network: noted
    with pytest.raises(ValueError, match="model not found: mine.keras .shipped networks: "):
        _model("mine.keras")


def test_imago_models_lists_the_shipped_networks_and_the_defaults(capsys, tmp_path,
                                                                  monkeypatch):
    from imago.__main__ import main
    from imago.nn import modelfile

    assert main(["models"]) == 0
    out = capsys.readouterr().out
    lines = {line.split()[0]: line for line in out.splitlines()[1:] if line[2:3] != " "}
    assert set(lines) == set(shipped_names())
    for size, path in SIZE_MODELS.items():
        assert f"[default: {size}x{size}]" in lines[path.stem]
    assert "[default: every other size]" in lines[DEFAULT_MODEL.stem]
    assert "residual 6x64" in lines[DEFAULT_MODEL.stem] and " MB, 20" in lines["multi"]
    assert main(["models", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [row["name"] for row in rows] == shipped_names()

    broken = tmp_path / "models"  # a folder of networks, one without readable metadata
    broken.mkdir()
    for name in ("multi.keras", "multi.json"):
        shutil.copy2(MODELS_DIR / name, broken / name)
    shutil.copy2(MODELS_DIR / "multi.keras", broken / "mine.keras")
    (broken / "mine.json").write_text("{not json")
    monkeypatch.setattr(modelfile, "MODELS_DIR", broken)
    monkeypatch.setattr("imago.models_cli.MODELS_DIR", broken)
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "mine" in out and "not a model's metadata" in out and "multi  residual" in out


def test_training_commands_take_shipped_networks_by_name(tmp_path, monkeypatch, capsys):
    from imago.training import cli

    monkeypatch.chdir(tmp_path)
    out = tmp_path / "mean.keras"
    assert cli.main(["average", str(out), "soup9", "models/soup.keras"]) == 0
    assert out.exists() and "the mean of 2 networks" in capsys.readouterr().out
    meta = json.loads(out.with_suffix(".json").read_text())
    assert meta["averaged_from"][0]["model"] == str(MODELS_DIR / "soup9.keras")
    with pytest.raises(SystemExit):
        cli.main(["heldout", "--model", "no-such-network", str(tmp_path)])
    assert "no model file no-such-network" in capsys.readouterr().err
