"""``imago review`` on the command line: the files it writes, and one clear
line (never a traceback) for every file or option it cannot use."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import REPO, run_main
from imago.review import cli
from review_fakes import FakeAnalyzer

GAME = "(;GM[1]FF[4]SZ[9]KM[7.5]PB[Alice]PW[Bob]RE[W+R];B[ee];W[cc];B[gc];W[cg];B[gg])"
LEADS = {0: 0.5, 1: 0.5, 2: 0.5, 3: -4.0, 4: -4.0, 5: -4.0}


@pytest.fixture
def game(tmp_path):
    path = tmp_path / "game.sgf"
    path.write_text(GAME)
    return path


def never(query, on_response=None):
    raise AssertionError("no analysis should start")


def one_error_line(status, out, err):
    assert status not in (0, None)
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err


def test_review_writes_the_sgf_beside_the_game_and_a_summary(game, capsys):
    fake = FakeAnalyzer(LEADS)
    status, out, err = run_main(lambda argv: cli.main(argv, analyze=fake),
                                [str(game), "--visits", "7"], capsys)
    assert status == 0, err
    written = game.with_name("game-review.sgf")
    assert written.exists() and f"wrote {written}" in out
    assert fake.queries[0]["maxVisits"] == 7
    assert "Alice (B) vs Bob (W), 9x9, komi 7.5, result W+R, 5 moves analysed" in out
    assert "move   3  B G7    mistake    -4.5 points" in out
    assert "analysing: 6/6 positions" in err
    text = written.read_text()
    assert "BM[1]" in text and "SBKV[" in text and "Move 3 B G7: mistake" in text


def test_rules_are_the_querys_and_named_in_the_review(game, tmp_path, capsys):
    """imago's rules by default; --rules NAME (or its JSON object) goes into the
    query as given; --rules record takes the record's RU, imago's without one."""
    fake = FakeAnalyzer(LEADS)
    assert run_main(lambda a: cli.main(a, analyze=fake), [str(game), "-q"], capsys)[0] == 0
    assert fake.queries[-1]["rules"]["scoring"] == "AREA"
    assert "area scoring, positional superko." in game.with_name("game-review.sgf").read_text()
    assert run_main(lambda a: cli.main(a, analyze=fake), [str(game), "-q", "--rules",
                                                          "japanese"], capsys)[0] == 0
    assert fake.queries[-1]["rules"] == "japanese"
    assert "komi 7.5, territory scoring, positional superko (japanese rules)." in \
        game.with_name("game-review.sgf").read_text()
    assert run_main(lambda a: cli.main(a, analyze=fake),
                    [str(game), "-q", "--rules", '{"scoring": "TERRITORY"}'], capsys)[0] == 0
    assert fake.queries[-1]["rules"] == {"scoring": "TERRITORY"}
    assert run_main(lambda a: cli.main(a, analyze=fake), [str(game), "-q", "--rules",
                                                          "record"], capsys)[0] == 0
    assert fake.queries[-1]["rules"]["scoring"] == "AREA"  # the record names none
    chinese = tmp_path / "chinese.sgf"
    chinese.write_text(GAME.replace("KM[7.5]", "KM[7.5]RU[Chinese]"))
    assert run_main(lambda a: cli.main(a, analyze=fake), [str(chinese), "-q", "--rules",
                                                          "record"], capsys)[0] == 0
    assert fake.queries[-1]["rules"] == "Chinese"
    assert "area scoring, White's handicap bonus N, positional superko (Chinese rules)." \
        in chinese.with_name("chinese-review.sgf").read_text()


def test_plot_and_report_are_written(game, tmp_path, capsys):
    pytest.importorskip("matplotlib", reason="plots need matplotlib (pip install "
                        "'imago[review]')")
    out_sgf, png, page = tmp_path / "r.sgf", tmp_path / "r.png", tmp_path / "r.html"
    status, out, err = run_main(
        lambda argv: cli.main(argv, analyze=FakeAnalyzer(LEADS)),
        [str(game), "-o", str(out_sgf), "--plot", str(png), "--report", str(page), "-q"],
        capsys)
    assert status == 0, err
    assert err == ""
    assert out_sgf.exists() and png.read_bytes().startswith(b"\x89PNG")
    html = page.read_text()
    assert "data:image/png;base64," in html and "<td>G7</td>" in html


def test_plot_without_matplotlib_is_refused_before_the_analysis(game, tmp_path, capsys,
                                                                 monkeypatch):
    from imago.review import plot
    monkeypatch.setattr(plot, "matplotlib_problem", lambda: "plots need matplotlib")
    status, out, err = run_main(lambda argv: cli.main(argv, analyze=never),
                                [str(game), "--plot", str(tmp_path / "p.png")], capsys)
    assert "plots need matplotlib" in one_error_line(status, out, err)
    # a report is still written, without the plot
    status, out, err = run_main(lambda argv: cli.main(argv, analyze=FakeAnalyzer(LEADS)),
                                [str(game), "--report", str(tmp_path / "r.html"), "-q"], capsys)
    assert status == 0 and "<img" not in (tmp_path / "r.html").read_text()


@pytest.mark.parametrize("case, expected", [
    ("missing", "cannot read {path}: No such file or directory"),
    ("directory", "cannot read {path}: Is a directory"),
    ("bad", "{path}:1:9: expected ']'"),
    ("huge", "cannot read {path}: larger than"),
    ("no-game", "has 1 game, no game 2"),
])
def test_unreadable_games_get_one_line(case, expected, tmp_path, capsys):
    path = tmp_path / "game.sgf"
    argv = [str(path)]
    if case == "directory":
        path.mkdir()
    elif case == "bad":
        path.write_text("(;SZ[9]B[ee)")
    elif case == "huge":
        path.write_bytes(b"(;SZ[9]" + b" " * (2 << 20) + b")")
    elif case == "no-game":
        path.write_text(GAME)
        argv += ["--game", "2", "-o", str(tmp_path / "out.sgf")]
    status, out, err = run_main(lambda a: cli.main(a, analyze=never), argv, capsys)
    err = one_error_line(status, out, err)
    assert status == 1 and err.startswith("imago review: ")
    assert expected.format(path=path) in err


@pytest.mark.parametrize("option", ["-o", "--plot", "--report"])
def test_unwritable_outputs_are_refused_before_the_analysis(option, game, tmp_path, capsys):
    target = tmp_path / "no" / "such" / "out"
    status, out, err = run_main(lambda a: cli.main(a, analyze=never),
                                [str(game), option, str(target)], capsys)
    assert f"cannot write {target}: no folder" in one_error_line(status, out, err)
    status, out, err = run_main(lambda a: cli.main(a, analyze=never),
                                [str(game), option, str(tmp_path)], capsys)
    assert "Is a directory" in one_error_line(status, out, err)


def test_the_game_itself_is_not_overwritten(game, capsys):
    status, out, err = run_main(lambda a: cli.main(a, analyze=never),
                                [str(game), "-o", str(game)], capsys)
    assert "it is the game being reviewed" in one_error_line(status, out, err)


@pytest.mark.parametrize("argv, words", [
    (["--visits", "0"], "expected a whole number >= 1"),
    (["--thresholds", "3,2,1"], "increasing order"),
    (["--komi", "nan"], "expected a number from -150 to 150"),
    (["--rules", "chess"], "argument --rules: unknown rules"),
    (["--rules", "{scoring"], "argument --rules: not a JSON object of rule options"),
])
def test_bad_options_are_usage_errors(argv, words, game, capsys):
    status, out, err = run_main(lambda a: cli.main(a, analyze=never), [str(game)] + argv,
                                capsys)
    assert status == 2 and words in err and "Traceback" not in err


def test_an_engine_refusal_is_one_line(game, capsys):
    def refuse(query, on_response=None):
        return [{"error": "bad komi", "field": "komi", "id": query["id"]}]
    status, out, err = run_main(lambda a: cli.main(a, analyze=refuse), [str(game), "-q"],
                                capsys)
    assert "refused the game: bad komi (field komi)" in one_error_line(status, out, err)


def test_module_help_and_errors_run_without_a_traceback(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-m", "imago.review", "--help"], capture_output=True,
                          text=True, cwd=tmp_path, env=env, timeout=60)
    assert done.returncode == 0 and "--thresholds" in done.stdout and "examples:" in done.stdout
    done = subprocess.run([sys.executable, "-m", "imago.review", "missing.sgf"],
                          capture_output=True, text=True, cwd=tmp_path, env=env, timeout=60)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr == ("python -m imago.review: cannot read missing.sgf: "
                           "No such file or directory\n")


def _engine_missing() -> bool:
    try:
        from imago.analysis import AnalysisEngine  # noqa: F401
    except ImportError:
        return True
    return False


@pytest.mark.skipif(_engine_missing(), reason="imago.analysis.AnalysisEngine is not there yet")
def test_review_with_imagos_engine(game, tmp_path, capsys):
    out_sgf = tmp_path / "real.sgf"
    status, out, err = run_main(cli.main, [str(game), "-o", str(out_sgf), "--model", "none",
                                           "--visits", "8", "-q"], capsys)
    assert status == 0, err
    sgfmill_sgf = pytest.importorskip("sgfmill.sgf")
    game_read = sgfmill_sgf.Sgf_game.from_bytes(out_sgf.read_bytes())
    nodes = game_read.get_main_sequence()[1:]
    assert len(nodes) == 5
    for number, node in enumerate(nodes, 1):
        assert node.get("C").startswith(f"Move {number} ")
        assert 0 <= float(node.get_raw("SBKV")) <= 100
    assert "moves graded" in out
