"""``python -m imago.bench regress``: GTP regression suites (GNU Go's ``.tst``
format) read, replayed through imago's GTP commands and counted. The suite
and positions here are made up for the tests."""

from __future__ import annotations

import sys

import pytest

from imago.bench import regress
from imago.engine.algorithm import DecisionAlgorithm
from imago.engine.engine import GameEngine
from imago.game.rulesets import IMAGO_RULES_WORD

NINE = "(;GM[1]FF[4]SZ[9]KM[7.5];B[ee];W[cc];B[gg];W[cg])"
THIRTEEN = "(;GM[1]FF[4]SZ[13]KM[7.5];B[gg])"

SUITE = """\
# a made-up suite
loadsgf games/nine.sgf 3
1 reg_genmove white
#? [A9]
2 reg_genmove black
#? [!A9|B9]*

play white A9
# the numbered test below is not a move test: skipped
3 owl_attack E5
#? [0]
4 gg_genmove black
#? [B9|PASS]
5 reg_genmove black

loadsgf games/thirteen.sgf
6 reg_genmove white
#? [A13]

loadsgf games/missing.sgf
7 reg_genmove white
#? [A9]

loadsgf games/nine.sgf
8 reg_genmove black   # a comment after the command
#? [A9]

boardsize 1
clear_board
9 reg_genmove black
#? [PASS]

loadsgf games/nine.sgf
10 reg_genmove black
#? 1 E5
"""


class FirstEmpty(DecisionAlgorithm):
    """Answers the first empty point from the top left (A9 on an empty corner)."""

    name = "first-empty"

    def choose_move(self, state, color, seconds=None):
        board = state.board
        for row in range(state.size):
            for col in range(state.size):
                point = state.point(col, row)
                if board[point] == 0:
                    return point
        return None


@pytest.fixture
def suite(tmp_path):
    (tmp_path / "games").mkdir()
    (tmp_path / "games" / "nine.sgf").write_text(NINE)
    (tmp_path / "games" / "thirteen.sgf").write_text(THIRTEEN)
    (tmp_path / "made_up.tst").write_text(SUITE)
    (tmp_path / "empty.tst").write_text("# nothing here\n")
    return tmp_path


@pytest.mark.parametrize("answer,expected,passed", [
    ("A9", "[A9]", True), ("a9", "[B2|A9]", True), ("C3", "[B2|A9]", False),
    ("PASS", "[PASS]", True), ("pass", "[!PASS]", False), ("D4", "[!PASS]", True),
    ("A9", "[!A9|B9]*", False), ("C1", "[C1]*", True), ("resign", "[PASS]", False),
])
def test_answers_match_the_expectations(answer, expected, passed):
    assert regress.answer_matches(answer, expected) is passed


def test_an_expectation_that_is_not_a_move_is_refused():
    with pytest.raises(ValueError, match="not a move expectation"):
        regress.answer_matches("A9", "1 E5")


def test_a_suite_reads_as_setup_commands_and_move_tests(suite):
    steps = list(regress.read_suite(suite / "made_up.tst"))
    tests = [(s.number, s.command, s.args, s.expected) for s in steps if s.number is not None]
    assert tests == [(1, "reg_genmove", ["white"], "[A9]"),
                     (2, "reg_genmove", ["black"], "[!A9|B9]*"),
                     (4, "gg_genmove", ["black"], "[B9|PASS]"),
                     (6, "reg_genmove", ["white"], "[A13]"),
                     (7, "reg_genmove", ["white"], "[A9]"),
                     (8, "reg_genmove", ["black"], "[A9]"),
                     (9, "reg_genmove", ["black"], "[PASS]")]
    setup = [(s.command, s.args) for s in steps if s.number is None]
    assert setup[0] == ("loadsgf", [str(suite / "games" / "nine.sgf"), "3"])
    assert ("play", ["white", "A9"]) in setup


def test_the_suites_are_played_on_one_size_through_the_gtp_commands(suite, capsys):
    seen = []
    tally = regress.run_suites(suite, lambda: GameEngine(FirstEmpty(), 9), 9,
                               report=seen.append)
    played = [(o.number, o.answer, o.passed) for o in tally.outcomes]
    # 1-2: A9 is empty; after "play white A9" B9 is the first empty point (4);
    # 6 is on 13x13, 7's file is missing, 5 has no expectation; 8 loads the
    # whole game, whose A9 is empty again; reg_genmove plays nothing; the
    # 1x1 board is refused, so 9 is not played on the 9x9 board left standing
    assert played == [(1, "A9", True), (2, "A9", False), (4, "B9", True), (8, "A9", True)]
    assert seen == tally.outcomes
    assert tally.passed == 3 and tally.per_suite == {"made_up.tst": (3, 4)}
    err = capsys.readouterr().err
    assert "made_up.tst:20: loadsgf refused" in err and "made_up.tst:28: boardsize refused" in err
    assert "made_up.tst:35: test skipped: not a move expectation: '1 E5'" in err
    assert regress.pass_tests(tally) == []


def test_an_unreadable_suite_is_named_and_skipped(suite, capsys):
    (suite / "unreadable.tst").mkdir()  # a folder named like a suite: reading it fails
    tally = regress.run_suites(suite, lambda: GameEngine(FirstEmpty(), 9), 9)
    assert "unreadable.tst: cannot read" in capsys.readouterr().err
    assert tally.per_suite == {"made_up.tst": (3, 4)}


def test_a_suite_counts_the_same_alone_as_after_other_suites(suite, tmp_path):
    """Each suite gets a fresh engine: the random state that the suites
    before it used up does not change its answers."""
    from imago.engine.algorithm import create_algorithm

    (suite / "a_first.tst").write_text("loadsgf games/nine.sgf\n1 reg_genmove black\n#? [A9]\n"
                                       "2 reg_genmove white\n#? [A9]\n")
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "games").symlink_to(suite / "games")
    (alone / "made_up.tst").write_text(SUITE)

    def answers(folder):
        tally = regress.run_suites(
            folder, lambda: GameEngine(create_algorithm("random", seed=5), 9), 9)
        return [(o.number, o.answer) for o in tally.outcomes if o.suite == "made_up.tst"]

    assert answers(suite) == answers(alone) != []


def test_with_a_seed_each_test_answers_alike_whatever_ran_before_it(suite, tmp_path):
    """With a seed each move test starts afresh from a seed of its own: the
    random draws of the tests before it (here test 1's) leave its answer
    as it is."""
    from imago.engine.algorithm import create_algorithm

    def answers(folder, seed):
        tally = regress.run_suites(
            folder, lambda: GameEngine(create_algorithm("random", seed=5), 9), 9, seed=seed)
        return {o.number: o.answer for o in tally.outcomes}

    both = "loadsgf games/nine.sgf\n1 reg_genmove black\n#? [A9]\n2 reg_genmove white\n#? [A9]\n"
    second = "loadsgf games/nine.sgf\n2 reg_genmove white\n#? [A9]\n"
    folders = []
    for name, text in (("both", both), ("second", second)):
        folder = tmp_path / name
        folder.mkdir()
        (folder / "games").symlink_to(suite / "games")
        (folder / "tests.tst").write_text(text)
        folders.append(folder)
    assert answers(folders[0], 1)[2] == answers(folders[1], 1)[2]
    assert regress.test_seed(1, "tests.tst", 2) != regress.test_seed(2, "tests.tst", 2)


def test_the_limit_stops_the_run(suite):
    tally = regress.run_suites(suite, lambda: GameEngine(FirstEmpty(), 9), 9, limit=2)
    assert [o.number for o in tally.outcomes] == [1, 2]


def test_on_thirteen_only_its_tests_are_played(suite):
    tally = regress.run_suites(suite, lambda: GameEngine(FirstEmpty(), 9), 13)
    assert [(o.number, o.answer) for o in tally.outcomes] == [(6, "A13")]


FAKE_ENGINE = """\
import sys
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    if words[0] == "quit":
        print("=\\n", flush=True)
        break
    if words[0] == "reg_genmove":
        print("= B9\\n", flush=True)
    elif words[0] == "loadsgf" and words[1].endswith("missing.sgf"):
        print("? cannot open\\n", flush=True)
    else:
        print("=\\n", flush=True)
"""


def _play_beside(suite, command: str, rules=None) -> regress.Tally:
    """The suites answered by the external engine ``command``, imago keeping
    the position beside it."""
    ask, close = regress.external_engine(command)
    try:
        return regress.run_suites(suite, lambda: GameEngine(FirstEmpty(), 9), 9,
                                  external=ask, rules=rules)
    finally:
        close()


def test_another_gtp_engine_answers_the_tests(suite, tmp_path, capsys):
    """--engine: the tests go to another engine (here a script answering B9),
    imago keeping the position beside it to know its size."""
    script = tmp_path / "fake_engine.py"
    script.write_text(FAKE_ENGINE)
    tally = _play_beside(suite, f"{sys.executable} {script}")
    assert [(o.number, o.answer, o.passed) for o in tally.outcomes] == [
        (1, "B9", False), (2, "B9", False), (4, "B9", True), (8, "B9", False)]
    assert "made_up.tst:20: loadsgf refused" in capsys.readouterr().err


def test_an_engine_that_cannot_start_is_named(suite, capsys):
    status = regress.main([f"--dir={suite}", "--engine=/no/such/engine --mode gtp"])
    assert status == 2
    assert "cannot start '/no/such/engine --mode gtp'" in capsys.readouterr().err


def test_the_command_needs_a_folder_of_suites(tmp_path, capsys):
    assert regress.main([]) == 2
    assert "regress needs --dir FOLDER" in capsys.readouterr().err
    assert regress.main([f"--dir={tmp_path}"]) == 2
    assert f"no .tst files in {tmp_path}" in capsys.readouterr().err


@pytest.fixture
def made(monkeypatch):
    """The ``(name, options)`` of every algorithm the bench creates (each a
    :class:`FirstEmpty`)."""
    created = []

    def create_algorithm(name, **options):
        created.append((name, options))
        return FirstEmpty()

    monkeypatch.setattr("imago.engine.algorithm.create_algorithm", create_algorithm)
    return created


def test_model_chooses_the_network_imago_answers_with(suite, made, capsys):
    assert regress.main([f"--dir={suite}", "--model=models/multi.keras", "--seed=3"]) == 0
    assert len(made) == 2  # a fresh engine for each suite, one network file for all
    assert all((name, options["seed"], str(options["model"])) == ("mcts", 3, "models/multi.keras")
               for name, options in made)
    assert made[0][1]["model"] is made[1][1]["model"]
    assert "(imago, multi.keras, seed 3): 3 of 4 move tests" in capsys.readouterr().out
    made.clear()
    assert regress.main([f"--dir={suite}"]) == 0
    from imago.nn.evaluator import default_model_path

    assert made and all((name, options["seed"], str(options["model"]))
                        == ("mcts", 1, str(default_model_path(9))) for name, options in made)


def test_compare_lists_the_tests_whose_verdict_changed_since_an_earlier_log(
        suite, monkeypatch, capsys, tmp_path):
    monkeypatch.setattr("imago.engine.algorithm.create_algorithm",
                        lambda name, **options: FirstEmpty())
    assert regress.main([f"--dir={suite}"]) == 0
    log = capsys.readouterr().out
    assert "made_up.tst:1 A9 [A9] ok" in log and "made_up.tst:2 A9 [!A9|B9]* FAIL" in log
    earlier = tmp_path / "earlier.txt"  # as if test 1 had failed, 2 passed, 4 errored
    earlier.write_text(log.replace("made_up.tst:1 A9 [A9] ok", "made_up.tst:1 B2 [A9] FAIL")
                       .replace("made_up.tst:2 A9 [!A9|B9]* FAIL", "made_up.tst:2 C3 [!A9|B9]* ok")
                       .replace("made_up.tst:4 B9 [B9|PASS] ok",
                                "made_up.tst:4 ? engine said no [B9|PASS] FAIL"))
    assert regress.read_log(earlier)[("made_up.tst", 4)] == ("? engine said no", False)
    assert regress.main([f"--dir={suite}", f"--compare={earlier}"]) == 0
    out = capsys.readouterr().out
    assert f"against {earlier}: 2 turned right, 1 turned wrong (net +1)" in out
    assert "turned right: made_up:1 B2 -> A9, made_up:4 ? engine said no -> B9" in out
    assert "turned wrong: made_up:2 C3 -> A9" in out
    assert regress.main([f"--dir={suite}", f"--compare={tmp_path / 'none.txt'}"]) == 2
    assert "cannot read --compare" in capsys.readouterr().err
    (tmp_path / "empty.txt").write_text("regress 9x9 (imago, seed 1): 0 of 0\n")
    assert regress.main([f"--dir={suite}", f"--compare={tmp_path / 'empty.txt'}"]) == 2
    assert "no logged answers" in capsys.readouterr().err


def test_suites_plays_only_the_files_named(suite, monkeypatch, capsys):
    (suite / "other.tst").write_text("loadsgf games/nine.sgf 3\n1 reg_genmove white\n#? [B9]\n")
    monkeypatch.setattr("imago.engine.algorithm.create_algorithm",
                        lambda name, **options: FirstEmpty())
    assert regress.main([f"--dir={suite}", "--suites=other"]) == 0
    out = capsys.readouterr().out
    assert "other.tst:1 A9 [B9] FAIL" in out and "made_up.tst" not in out
    assert "0 of 1 move tests" in out
    assert regress.main([f"--dir={suite}", "--suites=made_up.tst, other"]) == 0
    assert "3 of 5 move tests" in capsys.readouterr().out
    assert regress.main([f"--dir={suite}", "--suites=other,seki"]) == 2
    assert f"--suites: no seki.tst in {suite}" in capsys.readouterr().err
    assert regress.main([f"--dir={suite}", "--suites=,"]) == 2
    assert "--suites: no suite named" in capsys.readouterr().err


def test_rules_are_set_on_each_fresh_engine(suite, monkeypatch, capsys):
    engines = []

    def make_engine():
        engines.append(GameEngine(FirstEmpty(), 9))
        return engines[-1]

    (suite / "other.tst").write_text("loadsgf games/nine.sgf 3\n1 reg_genmove white\n#? [B9]\n")
    regress.run_suites(suite, make_engine, 9, rules="japanese")
    # an engine a suite, each counting by territory after its loadsgf commands
    assert len(engines) == 3 and all(e.state.scoring == "territory" for e in engines)
    # without rules, imago's own, whatever the records' RU says
    (suite / "games" / "nine.sgf").write_text(
        (suite / "games" / "nine.sgf").read_text().replace("(;", "(;RU[Japanese]", 1))
    engines.clear()
    regress.run_suites(suite, make_engine, 9)
    assert len(engines) == 3 and all(e.state.scoring == "area" for e in engines)
    monkeypatch.setattr("imago.engine.algorithm.create_algorithm",
                        lambda name, **options: FirstEmpty())
    assert regress.main([f"--dir={suite}", "--suites=other", "--rules=japanese"]) == 0
    assert "(imago, seed 1, rules japanese): 0 of 1" in capsys.readouterr().out
    assert regress.main([f"--dir={suite}", "--rules=chess"]) == 2
    assert "--rules chess: unknown rules" in capsys.readouterr().err


def test_options_set_the_search_of_every_fresh_engine(suite, made, capsys):
    assert regress.main([f"--dir={suite}", "--options=score_utility=0.5, lcb_z=0"]) == 0
    engines = [options for name, options in made if options.get("model") != "none"]
    assert len(engines) == 2 and all(
        (options["score_utility"], options["lcb_z"]) == (0.5, 0) for options in engines)
    assert "(imago, seed 1, score_utility=0.5, lcb_z=0): 3 of 4" in capsys.readouterr().out


@pytest.mark.parametrize("options, problem", [
    ("bogus=1", "the mcts algorithm has no option 'bogus'"),
    ("score_utility", "expected KEY=VALUE"),
    ("score_utility=x", "score_utility must be a finite number"),
    ("c_puct=-1", "c_puct must be above 0"),
    ("seed=3", "seed has an option of its own here (--seed)"),
])
def test_bad_options_are_named_before_any_suite_runs(suite, capsys, options, problem):
    assert regress.main([f"--dir={suite}", f"--options={options}"]) == 2
    captured = capsys.readouterr()
    assert f"regress: --options: {problem}" in captured.err and not captured.out


def test_options_with_another_engine_are_refused(suite, capsys):
    assert regress.main([f"--dir={suite}", "--options=lcb_z=0",
                         "--engine=/usr/games/gnugo --mode gtp"]) == 2
    assert "--options: they set imago's search" in capsys.readouterr().err


def test_model_and_engine_together_are_refused(suite, capsys):
    assert regress.main([f"--dir={suite}", "--model=models/multi.keras",
                         "--engine=/usr/games/gnugo --mode gtp"]) == 2
    assert "give one of them" in capsys.readouterr().err



KATAGO_LIKE = """\
import sys
log = open(sys.argv[1], "a")
for line in sys.stdin:
    words = line.split()
    if not words:
        continue
    log.write(line)
    log.flush()
    if words[0] == "quit":
        print("=\\n", flush=True)
        break
    if words[0] in ("loadsgf", "reg_genmove"):
        print("? not this engine's\\n", flush=True)
    elif words[0] == "genmove":
        print("= B9\\n", flush=True)
    else:
        print("=\\n", flush=True)
"""


def test_an_engine_without_loadsgf_or_reg_genmove_gets_the_position_and_genmove(
        suite, tmp_path):
    """KataGo loads no SGF with setup stones after the root and has no
    reg_genmove: it is given imago's position (``set_position``, komi) and
    asked ``genmove`` then ``undo``."""
    script, log = tmp_path / "katago_like.py", tmp_path / "commands.log"
    script.write_text(KATAGO_LIKE)
    tally = _play_beside(suite, f"{sys.executable} {script} {log}")
    assert [(o.number, o.answer) for o in tally.outcomes] == [
        (1, "B9"), (2, "B9"), (4, "B9"), (8, "B9")]
    commands = log.read_text().splitlines()
    first = commands.index("set_position w C7 b E5")  # nine.sgf before its move 3
    assert commands[first - 2:first + 4] == [
        "boardsize 9", "komi 7.5", "set_position w C7 b E5", "reg_genmove white",
        "genmove white", "undo"]




def test_another_engine_is_given_imagos_rules_unless_others_are_asked_for(suite, tmp_path,
                                                                          capsys):
    """An external imago would otherwise follow the records' RU (Japanese in
    GNU Go's suites) while the local one counts by area: both get the same
    rules, and an engine without ``kata-set-rules`` (GNU Go) keeps its own
    without a word, unless rules were asked for."""
    script, log = tmp_path / "katago_like.py", tmp_path / "commands.log"
    script.write_text(KATAGO_LIKE)
    for rules, sent in ((None, IMAGO_RULES_WORD), ("japanese", "japanese")):
        log.write_text("")
        _play_beside(suite, f"{sys.executable} {script} {log}", rules)
        commands = log.read_text().splitlines()
        # once a suite file (two here), before its first setup command
        assert commands.count(f"kata-set-rules {sent}") == 2
        assert commands.index(f"kata-set-rules {sent}") < commands.index("boardsize 9")
    capsys.readouterr()
    refusing = tmp_path / "refusing.py"
    refusing.write_text(KATAGO_LIKE.replace('("loadsgf", "reg_genmove")',
                                            '("loadsgf", "reg_genmove", "kata-set-rules")'))
    for rules, said in ((None, False), ("japanese", True)):
        _play_beside(suite, f"{sys.executable} {refusing} {log}", rules)
        assert ("kata-set-rules japanese refused" in capsys.readouterr().err) is said
