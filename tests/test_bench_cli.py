"""``python -m imago.bench``: its help lists every benchmark with a sentence
and every option with the benchmarks that read it; options reach the topics
as they read them; what no chosen benchmark reads is refused."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from imago import bench
from imago.bench import __main__ as cli
from conftest import run_main

REPO = Path(__file__).resolve().parent.parent


def run(argv, capsys) -> tuple[int, str, str]:
    return run_main(cli.main, argv, capsys)


def test_help_lists_the_benchmarks_and_their_options():
    text = subprocess.run([sys.executable, "-m", "imago.bench", "--help"], capture_output=True,
                          text=True, check=True, cwd=REPO).stdout
    flat = " ".join(text.split())
    for topic in bench.TOPICS:
        assert f"{topic} {' '.join(cli.describe(topic).split())}" in flat
    assert "--batch N mcts: positions per network call (default: 16)" in flat
    assert "--dir FOLDER sgf, regress, ownership, count, local: " in flat
    assert "--model PATH mcts, analysis, regress, ownership: " in flat
    assert "--visits N ownership: visits of each position's search (default: 50)" in flat
    assert "--quick shorter runs" in flat and "benchmarks (default: board):" in flat


@pytest.fixture
def calls(monkeypatch):
    """Stand-in topic modules recording the arguments their main gets."""
    seen: list[tuple[str, list[str]]] = []

    class Topic:
        def __init__(self, name):
            self.name = name

        def main(self, argv):
            seen.append((self.name, argv))
            return 0

    monkeypatch.setattr(cli.importlib, "import_module",
                        lambda module: Topic(module.rsplit(".", 1)[1]))
    return seen


def test_options_reach_the_topics_that_read_them(calls, capsys, tmp_path):
    status, _, _ = run(["board", "--quick", "mcts", "--batch", "8", "--model", "none",
                        "sgf", f"--dir={tmp_path}"], capsys)
    assert status == 0
    assert calls == [("board", ["--quick"]),
                     ("mcts", ["--quick", "--batch=8", "--model=none"]),
                     ("sgf", ["--quick", f"--dir={tmp_path}"])]


def test_no_topic_runs_board(calls, capsys):
    assert run([], capsys)[0] == 0 and calls == [("board", [])]


@pytest.mark.parametrize("argv,message", [
    (["16"], "unknown benchmark '16'; choose from board, sgf, nn, mcts, arch, analysis, startup, "
              "exact, regress, ownership, count, local"),
    (["board", "--batch", "8"], "--batch is an option of mcts, which is not among the "
                                "benchmarks asked for (board)"),
    (["mcts", "--batch", "0"], "argument --batch: must be at least 1, not 0"),
    (["mcts", "--model", "missing.keras"],
     "--model: no model file missing.keras (none: random playouts)"),
    (["sgf", "--dir", "no/such/folder"], "--dir: no folder no/such/folder"),
    (["board", "--fast"], "unrecognized arguments: --fast"),
])
def test_what_no_benchmark_reads_is_refused(calls, capsys, argv, message):
    status, _, err = run(argv, capsys)
    assert status == 2 and not calls
    assert err.strip().splitlines()[-1] == f"python -m imago.bench: error: {message}"


def test_a_model_file_without_its_metadata_is_refused_before_any_benchmark(
        calls, capsys, tmp_path):
    import shutil

    lonely, junk = tmp_path / "lonely.keras", tmp_path / "junk.keras"
    shutil.copyfile(Path(__file__).resolve().parent.parent / "models" / "residual5.keras", lonely)
    junk.write_bytes(b"not a model")
    for model, reason in ((lonely, "has no metadata file lonely.json"),
                          (junk, "is not a Keras model file (NAME.keras, a zip archive)")):
        status, _, err = run(["regress", "--model", str(model), "--dir", str(tmp_path)], capsys)
        assert status == 2 and not calls
        assert err.strip().splitlines()[-1].endswith(reason), err
