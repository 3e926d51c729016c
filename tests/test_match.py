"""The match tool and the GTP client, with real and deliberately bad engines."""

from __future__ import annotations

import sys
import textwrap

import pytest

from imago import match
from conftest import run_main
from imago.match.client import EngineDied, GTPClient, GTPError, GTPTimeout
from imago.match.tool import Referee
from imago.game.rulesets import parse_rules

IMAGO = f"{sys.executable} imagocli.py --algorithm random --seed 3"


def fake_engine(tmp_path, name, genmove_body):
    """A tiny GTP engine whose genmove does ``genmove_body``."""
    script = tmp_path / f"{name}.py"
    script.write_text(textwrap.dedent(f"""
        import sys, time
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            cmd = words[0]
            if cmd == "quit":
                print("=\\n", flush=True)
                break
            if cmd == "name":
                print("= {name}\\n", flush=True)
            elif cmd == "genmove":
        {textwrap.indent(textwrap.dedent(genmove_body), ' ' * 16)}
            else:
                print("=\\n", flush=True)
    """))
    return f"{sys.executable} {script}"


def test_client_talks_to_imago(tmp_path):
    with GTPClient(IMAGO.split(), cwd=None) as engine:
        assert engine.send("protocol_version") == "2"
        assert engine.send("name") == "imago"
        with pytest.raises(GTPError, match="unknown command"):
            engine.send("no_such_command")
        assert "=" not in engine.send("showboard")


def test_wilson_interval():
    low, high = match.wilson_interval(45, 50)
    assert 0.78 < low < 0.80 and 0.95 < high < 0.97
    assert match.wilson_interval(0, 0) == (0.0, 1.0)


def test_a_short_match_between_two_imagos(tmp_path, capsys):
    sgf_dir = tmp_path / "games"
    status = match.main(["--engine1", IMAGO, "--engine2", IMAGO, "--games", "2", "--size", "5",
                         "--referee", "imago", "--sgf-dir", str(sgf_dir)])
    out = capsys.readouterr().out
    assert status == 0
    assert "game 1:" in out and "game 2:" in out
    assert "95% CI" in out and "seconds per move" in out
    pytest.importorskip("imago.sgf")
    assert len(list(sgf_dir.glob("*.sgf"))) == 2


@pytest.mark.parametrize("body,reason", [
    ('print("= A1\\n", flush=True)', "illegal"),          # plays A1 twice: occupied
    ('sys.exit(3)', "crash"),
    ('time.sleep(30)', "time"),
    ('print("? no\\n", flush=True)', "crash"),
])
def test_bad_engines_lose_the_game(tmp_path, capsys, body, reason):
    bad = fake_engine(tmp_path, "bad", body)
    status = match.main(["--engine1", bad, "--engine2", IMAGO, "--games", "1", "--size", "5",
                         "--time", "0.2", "--referee", "imago"])
    out = capsys.readouterr().out
    assert status == 0
    assert f"losses by {reason} 1" in out.splitlines()[-2]
    assert "losses by" not in out.splitlines()[-1]  # the winner lost nothing


def test_client_reports_a_dead_engine(tmp_path):
    bad = fake_engine(tmp_path, "dead", "sys.exit(1)")
    client = GTPClient(bad)
    with pytest.raises(EngineDied):
        client.send("genmove b", timeout=10)
    client.close()


def test_client_times_out(tmp_path):
    slow = fake_engine(tmp_path, "slow", "time.sleep(5)")
    client = GTPClient(slow)
    with pytest.raises(GTPTimeout):
        client.send("genmove b", timeout=0.3)
    client.process.kill()


def test_game_number_is_substituted_in_engine_commands(tmp_path, capsys):
    seen = tmp_path / "seen.txt"
    body = f'open(r"{seen}", "a").write(sys.argv[-1] + "\\n"); print("= pass\\n", flush=True)'
    engine = fake_engine(tmp_path, "echoer", body)
    status = match.main(["--engine1", f"{engine} {{game}}", "--engine2", IMAGO, "--games", "2",
                         "--size", "5", "--referee", "imago", "--name1", "a", "--name2", "b"])
    assert status == 0
    assert "game 2:" in capsys.readouterr().out
    assert sorted(set(seen.read_text().split())) == ["1", "2"]


def test_a_match_resumed_in_its_sgf_folder_numbers_games_and_colours_on(tmp_path, capsys):
    seen = tmp_path / "seen.txt"
    body = f'open(r"{seen}", "a").write(sys.argv[-1] + "\\n"); print("= pass\\n", flush=True)'
    engine = fake_engine(tmp_path, "echoer", body)
    games = tmp_path / "games"
    games.mkdir()
    (games / "game-001.sgf").write_text("(;GM[1]SZ[5])")
    status = match.main(["--engine1", f"{engine} {{game}}", "--engine2", IMAGO, "--games", "1",
                         "--size", "5", "--referee", "imago", "--name1", "a", "--name2", "b",
                         "--sgf-dir", str(games)])
    out = capsys.readouterr().out
    assert status == 0
    assert "start at game-002.sgf" in out
    assert "game 2: B b - W a:" in out
    assert set(seen.read_text().split()) == {"2"}
    assert (games / "game-002.sgf").exists()


# ------------------------------------------------------------------ what a user may type
def run_match(argv, capsys) -> tuple[int, str, str]:
    """``python -m imago.match ARGV``'s exit status, stdout and stderr."""
    return run_main(match.main, argv, capsys)


def refused(err: str) -> str:
    """The one line after argparse's usage."""
    last = err.strip().splitlines()[-1]
    assert last.startswith("python -m imago.match: error: ") and "Traceback" not in err
    return last.split(": error: ", 1)[1]


@pytest.mark.parametrize("options,message", [
    (["--games", "0"], "--games must be at least 1, not 0"),
    (["--games", "-2"], "--games must be at least 1, not -2"),
    (["--size", "1"], "--size must be 2 to 25, not 1"),
    (["--size", "26"], "--size must be 2 to 25, not 26"),
    (["--komi", "nan"], "--komi must be a number from -81 to 81 on 9x9, not nan"),
    (["--size", "5", "--komi", "-30"], "--komi must be a number from -25 to 25 on 5x5, not -30"),
    (["--time", "0"], "--time must be a positive number of seconds, not 0"),
    (["--max-moves", "0"], "--max-moves must be at least 1, not 0"),
    (["--engine2", ""], "--engine2 is empty: give the engine's command line"),
    (["--engine2", "'gnugo --mode gtp"], "--engine2: cannot read \"'gnugo --mode gtp\" as a "
                                         "command line (No closing quotation)"),
])
def test_nonsense_options_are_refused_before_any_engine_starts(capsys, options, message):
    argv = ["--engine1", "no-such-engine", "--engine2", "no-such-engine"] + options
    status, out, err = run_match(argv, capsys)
    assert status == 2 and not out
    assert refused(err).startswith(message)


@pytest.mark.parametrize("engine,message", [
    ("missing", "cannot start '{command}' (No such file or directory)"),
    ("exits", "'{command}' stopped before answering 'name'; it exited with code 3; its last "
              "words: 'no weights file here'"),
    ("garbage", "'{command}' does not speak GTP: malformed answer from "),
    ("small", "'{command}' cannot play 9x9 (unacceptable size)"),
])
def test_an_engine_that_cannot_play_is_named_before_the_first_game(tmp_path, capsys, engine,
                                                                   message):
    script = tmp_path / f"{engine}.py"
    script.write_text({
        "exits": "import sys\nprint('no weights file here', file=sys.stderr)\nsys.exit(3)\n",
        "garbage": "import sys\nfor line in sys.stdin:\n    print('hello there', flush=True)\n",
        "small": textwrap.dedent("""
            import sys
            for line in sys.stdin:
                words = line.split() or ['']
                if words[0] == 'boardsize':
                    print('? unacceptable size\\n', flush=True)
                elif words[0] == 'quit':
                    break
                else:
                    print('= small\\n', flush=True)
        """)}.get(engine, ""))
    command = str(tmp_path / "no-such-engine") if engine == "missing" else \
        f"{sys.executable} {script}"
    sgf_dir = tmp_path / "games"
    status, out, err = run_match(["--engine1", IMAGO, "--engine2", command, "--games", "2",
                                  "--sgf-dir", str(sgf_dir), "--referee", "imago"], capsys)
    assert status == 2 and "game 1" not in out
    assert refused(err).startswith("--engine2: " + message.format(command=command))
    assert not list(sgf_dir.glob("*.sgf"))


def test_sgf_dir_that_is_a_file_is_refused(tmp_path, capsys):
    (tmp_path / "games").write_text("a file")
    status, _, err = run_match(["--engine1", IMAGO, "--engine2", IMAGO,
                                "--sgf-dir", str(tmp_path / "games")], capsys)
    assert status == 2
    assert refused(err) == f"--sgf-dir: {tmp_path / 'games'} is a file, not a folder"


def test_a_second_match_keeps_the_first_ones_sgf_files(tmp_path, capsys):
    sgf_dir = tmp_path / "games"
    sgf_dir.mkdir()
    (sgf_dir / "game-001.sgf").write_text("(;GM[1]C[an earlier match])")
    (sgf_dir / "game-007.sgf").write_text("(;GM[1]C[an earlier match])")
    status, out, _ = run_match(["--engine1", IMAGO, "--engine2", IMAGO, "--games", "1",
                                "--size", "5", "--referee", "imago", "--sgf-dir", str(sgf_dir)],
                               capsys)
    assert status == 0
    assert "start at game-008.sgf" in out
    assert (sgf_dir / "game-001.sgf").read_text() == "(;GM[1]C[an earlier match])"
    assert "PB[" in (sgf_dir / "game-008.sgf").read_text()
    index = (sgf_dir / "index.tsv").read_text().splitlines()   # every match lists its games
    assert len(index) == 2 and index[1].startswith("game-008.sgf\t0\t")


def test_an_interrupted_match_reports_the_games_it_finished(tmp_path, capsys, monkeypatch):
    from imago.match import tool

    games = []

    def play_then_interrupt(*args, **kw):
        if games:
            raise KeyboardInterrupt
        games.append(1)
        return real_play_game(*args, **kw)

    real_play_game = tool.play_game
    monkeypatch.setattr(tool, "play_game", play_then_interrupt)
    sgf_dir = tmp_path / "games"
    status, out, err = run_match(["--engine1", IMAGO, "--engine2", IMAGO, "--games", "3",
                                  "--size", "5", "--referee", "imago", "--sgf-dir",
                                  str(sgf_dir)], capsys)
    assert status == 130
    assert "interrupted after 1 of 3 games" in err
    assert "game 1:" in out and "\n1 games\n" in out and "95% CI" in out
    assert [p.name for p in sgf_dir.glob("*.sgf")] == ["game-001.sgf"]


def test_an_engine_that_cannot_start_mid_match_keeps_the_games_played(tmp_path, capsys):
    engine = tmp_path / "bin1" / "engine"
    engine.parent.mkdir()
    engine.write_text(f"#!{sys.executable}\nimport os, sys\n"
                      f"os.execv(sys.executable, {IMAGO.split()!r})\n")
    engine.chmod(0o755)
    command = str(tmp_path / "bin{game}" / "engine")  # bin2 is not there
    status, out, err = run_match(["--engine1", command, "--engine2", IMAGO, "--games", "3",
                                  "--size", "5", "--referee", "imago"], capsys)
    assert status == 1
    assert "game 1:" in out and "\n1 games\n" in out
    assert (f"match stopped after 1 of 3 games: cannot start engine 1 for game 2: "
            f"'{tmp_path / 'bin2' / 'engine'}' (No such file or directory)") in err


def test_a_forfeit_says_what_went_wrong(tmp_path, capsys):
    bad = fake_engine(tmp_path, "quitter", "sys.exit(3)")
    status, out, _ = run_match(["--engine1", bad, "--engine2", IMAGO, "--games", "1",
                                "--size", "5", "--referee", "imago"], capsys)
    assert status == 0
    assert "W+F (crash, 0 moves: quitter exited (code 3))" in out


def test_help_shows_the_defaults(capsys):
    with pytest.raises(SystemExit):
        match.main(["--help"])
    text = capsys.readouterr().out
    assert "(default: 2)" in text and "(default: 9)" in text and "(default: 7.5)" in text
    assert "(default: no limit)" in text and "example:" in text


# ------------------------------------------------------------------ games at once
def test_concurrent_games_overlap_and_keep_their_numbers_colours_and_seeds(tmp_path, capsys):
    log = tmp_path / "moves.txt"
    body = (f'open(r"{log}", "a").write(f"{{sys.argv[-1]}} {{time.time()}} start\\n"); '
            f'time.sleep(0.4); '
            f'open(r"{log}", "a").write(f"{{sys.argv[-1]}} {{time.time()}} end\\n"); '
            f'print("= pass\\n", flush=True)')
    engine = fake_engine(tmp_path, "sleeper", body)
    sgf_dir = tmp_path / "games"
    status, out, err = run_match(["--engine1", f"{engine} {{game}}", "--engine2", IMAGO,
                                  "--games", "4", "--concurrent", "4", "--size", "5",
                                  "--referee", "imago", "--name1", "a", "--name2", "b",
                                  "--sgf-dir", str(sgf_dir)], capsys)
    assert status == 0, err
    assert "4 games, 4 at once" in out and "\n4 games\n" in out
    for number in (1, 3):
        assert f"game {number}: B a - W b:" in out
    for number in (2, 4):
        assert f"game {number}: B b - W a:" in out
    assert sorted(p.name for p in sgf_dir.glob("*.sgf")) == [
        f"game-00{n}.sgf" for n in (1, 2, 3, 4)]
    spans: dict = {}
    for line in log.read_text().split("\n"):
        if line:
            game, moment, what = line.split()
            spans.setdefault((game, what), []).append(float(moment))
    assert {game for game, _ in spans} == {"1", "2", "3", "4"}
    first_end = min(min(spans[g, "end"]) for g in "1234")
    started_before = [g for g in "1234" if min(spans[g, "start"]) < first_end]
    assert len(started_before) >= 2  # a second game was under way before any move ended


def test_ctrl_c_in_a_concurrent_match_stops_the_games_in_play_uncounted(tmp_path):
    import os
    import signal
    import subprocess
    import time

    pids = tmp_path / "pids.txt"
    # game 1 ends at once (its engine passes); the others hang in their first move
    body = (f'open(r"{pids}", "a").write(f"{{__import__(\'os\').getpid()}}\\n"); '
            f'time.sleep(0 if sys.argv[-1] == "1" else 300); print("= pass\\n", flush=True)')
    engine = fake_engine(tmp_path, "hanger", body)
    sgf_dir = tmp_path / "games"
    match_process = subprocess.Popen(
        [sys.executable, "-m", "imago.match", "--engine1", f"{engine} {{game}}",
         "--engine2", f"{engine} {{game}}", "--games", "3", "--concurrent", "3",
         "--size", "5", "--referee", "imago", "--sgf-dir", str(sgf_dir)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        # a suite started in the background of a shell ignores Ctrl-C, and its children with it
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 60
    while time.time() < deadline and not (sgf_dir / "game-001.sgf").exists():
        time.sleep(0.1)
    while time.time() < deadline and len(pids.read_text().split()) < 4:
        time.sleep(0.1)  # games 2 and 3 hang in their engines' first moves
    match_process.send_signal(signal.SIGINT)
    out, err = match_process.communicate(timeout=30)
    assert match_process.returncode == 130, err
    assert "interrupted after 1 of 3 games" in err
    assert "game 1:" in out and "\n1 games\n" in out
    assert [p.name for p in sgf_dir.glob("*.sgf")] == ["game-001.sgf"]
    time.sleep(0.5)
    for pid in map(int, pids.read_text().split()):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        with open(f"/proc/{pid}/stat") as stat:  # a zombie awaits its reaper only
            assert stat.read().split(")")[-1].split()[0] == "Z", f"engine {pid} still runs"


@pytest.mark.parametrize("value", ["0", "-1"])
def test_concurrent_below_one_is_refused(capsys, value):
    status, out, err = run_match(["--engine1", "x", "--engine2", "y", "--concurrent", value],
                                 capsys)
    assert status == 2 and refused(err) == f"--concurrent must be at least 1, not {value}"


def test_a_game_counted_as_the_match_is_stopped_keeps_its_line(tmp_path):
    """Ctrl-C between a game's count and its line (the race a concurrent
    match has) still shows that game's line: every game counted is shown."""
    from imago.match.tool import Match, MatchSettings

    engine = fake_engine(tmp_path, "passer", 'print("= pass\\n", flush=True)')
    match = Match(MatchSettings(commands=(engine, engine), names=("a", "b"), games=2,
                                size=5, concurrent=2), Referee("imago"))
    lines: list[str] = []
    interrupted: list[str] = []

    def interrupted_once(line: str) -> None:
        if not interrupted:  # Ctrl-C as the first line is about to show
            interrupted.append(line)
            raise KeyboardInterrupt
        lines.append(line)

    with pytest.raises(KeyboardInterrupt):
        match.play(out=interrupted_once)
    assert match.played >= 1
    assert sorted(line.split(":")[0] for line in lines) == sorted(
        f"game {record.number}" for record in match.records)


def scripted_engine(tmp_path, name, body):
    """A tiny GTP engine that runs ``body`` for each command (``cmd``, the
    command's first word, ``words`` all of them; the command is logged to
    NAME.log first) before the default answer: ``= pass`` to genmove, ``=``
    to anything else; ``body`` may answer itself and ``continue``."""
    head = textwrap.dedent(f"""\
        import os, sys
        log = open(r"{tmp_path / (name + '.log')}", "a")
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            cmd = words[0]
            log.write(line)
            log.flush()
    """)
    tail = textwrap.indent(textwrap.dedent("""\
        if cmd == "quit":
            print("=\\n", flush=True)
            break
        print("= pass\\n" if cmd == "genmove" else "=\\n", flush=True)
    """), " " * 4)
    script = tmp_path / f"{name}.py"
    script.write_text(head + textwrap.indent(textwrap.dedent(body).strip("\n") + "\n", " " * 4)
                      + tail)
    return f"{sys.executable} {script}"


TAKES_KATAGOS_RULES = '''
    if cmd == "known_command":
        print("= " + ("true" if words[1] == "kata-set-rules" else "false") + "\\n",
              flush=True)
        continue
'''
"""A scripted engine's body that knows kata-set-rules (and nothing else)."""


def test_an_engine_that_takes_katagos_rules_is_given_the_referees(tmp_path, capsys):
    engine = scripted_engine(tmp_path, "ruled", TAKES_KATAGOS_RULES)
    status, out, _ = run_match(["--engine1", engine, "--engine2", IMAGO, "--games", "1",
                                "--size", "5", "--referee", "imago"], capsys)
    assert status == 0 and "game 1:" in out
    commands = (tmp_path / "ruled.log").read_text().splitlines()
    rules = [c for c in commands if c.startswith("kata-set-rules ")]
    assert rules == [match.tool.RULES_COMMAND]
    assert '"suicide":false' in rules[0] and '"ko":"POSITIONAL"' in rules[0]
    first_move = next(n for n, c in enumerate(commands) if c.startswith("genmove"))
    assert commands.index(rules[0]) < first_move


def test_rules_given_to_a_match_reach_the_engines_and_the_referee(tmp_path, capsys):
    """Tromp-Taylor's clean-up, on imago's board (no suicide): the engines
    that take KataGo's rules are told so, and imago's count referees,
    every stone standing alive."""
    import json

    engine = scripted_engine(tmp_path, "ruled", TAKES_KATAGOS_RULES)
    status, out, _ = run_match(["--engine1", engine, "--engine2", IMAGO, "--games", "1",
                                "--size", "5", "--rules", "tromp-taylor"], capsys)
    assert status == 0 and "referee imago" in out
    commands = (tmp_path / "ruled.log").read_text().splitlines()
    [rules] = [c for c in commands if c.startswith("kata-set-rules ")]
    told = json.loads(rules.split(" ", 1)[1])
    assert told["friendlyPassOk"] is False and told["suicide"] is False
    assert Referee("auto", parse_rules("tromp-taylor")).name == "imago"
    assert Referee("imago", parse_rules("japanese")).name == "imago"
    status, _, err = run_match(["--engine1", engine, "--engine2", IMAGO, "--rules", "japanese",
                                "--referee", "gnugo"], capsys)
    assert status == 2 and "counts by Chinese rules" in err
    status, _, err = run_match(["--engine1", engine, "--engine2", IMAGO, "--rules", "chess"],
                               capsys)
    assert status == 2 and "unknown rules" in err


def test_an_engine_without_known_command_still_plays(tmp_path, capsys):
    body = '''
        if cmd == "known_command":
            print("? unknown command\\n", flush=True)
            continue
    '''
    engine = scripted_engine(tmp_path, "plain", body)
    status, out, _ = run_match(["--engine1", engine, "--engine2", IMAGO, "--games", "1",
                                "--size", "5", "--referee", "imago"], capsys)
    assert status == 0
    assert "(score," in out and "crash" not in out


def test_a_game_whose_engine_fails_at_its_start_starts_again(tmp_path, capsys):
    marker = tmp_path / "failed-once"
    body = f'''
        if cmd == "clear_board" and not os.path.exists(r"{marker}"):
            open(r"{marker}", "w").close()
            sys.exit(1)
    '''
    engine = scripted_engine(tmp_path, "hiccup", body)
    status, out, err = run_match(["--engine1", engine, "--engine2", IMAGO, "--games", "1",
                                  "--size", "5", "--referee", "imago", "--name1", "hiccup"],
                                 capsys)
    assert status == 0
    assert "game 1: hiccup exited (code 1); the game starts again with new engines" in err
    assert "(score," in out and "crash" not in out


def test_an_engine_that_always_fails_at_its_start_loses_with_a_full_record(tmp_path, capsys):
    engine = scripted_engine(tmp_path, "broken", 'if cmd == "clear_board":\n    sys.exit(2)\n')
    games = tmp_path / "games"
    status, out, err = run_match(["--engine1", engine, "--engine2", IMAGO, "--games", "1",
                                  "--size", "5", "--referee", "imago", "--name1", "broken",
                                  "--sgf-dir", str(games)], capsys)
    assert status == 0
    assert err.count("starts again") == match.tool.SET_UP_RETRIES
    assert "W+F (crash, 0 moves: broken exited (code 2))" in out
    record = (games / "game-001.sgf").read_text()
    assert "PB[broken]" in record and "RE[W+F]" in record


def processes_per_game(log) -> list[int]:
    """The process ids of a scripted engine's games, one per clear_board."""
    return [int(line.split()[1]) for line in log.read_text().splitlines()
            if line.startswith("pid ")]


PID_AT_EACH_GAME = 'if cmd == "clear_board":\n    log.write(f"pid {os.getpid()}\\n")\n'


@pytest.mark.parametrize("concurrent", [1, 2])
def test_kept_engines_go_on_from_game_to_game(tmp_path, capsys, concurrent):
    engine = scripted_engine(tmp_path, "kept", PID_AT_EACH_GAME)
    status, out, err = run_match(["--engine1", engine, "--engine2", IMAGO, "--games", "4",
                                  "--size", "5", "--referee", "imago", "--keep-engines",
                                  "--concurrent", str(concurrent)], capsys)
    assert status == 0, err
    assert "\n4 games\n" in out
    pids = processes_per_game(tmp_path / "kept.log")
    assert len(pids) == 4 and len(set(pids)) <= concurrent
    # every process got its quit: the games' and the one asked for its name at the start
    assert (tmp_path / "kept.log").read_text().count("quit") == len(set(pids)) + 1


def test_without_keep_engines_or_with_a_game_seed_each_game_starts_anew(tmp_path, capsys):
    engine = scripted_engine(tmp_path, "fresh", PID_AT_EACH_GAME)
    for extra in ([], ["--keep-engines", "--engine1", f"{engine} {{game}}"]):
        (tmp_path / "fresh.log").unlink(missing_ok=True)
        status, _, err = run_match(["--engine1", engine, "--engine2", IMAGO, "--games", "3",
                                    "--size", "5", "--referee", "imago", *extra], capsys)
        assert status == 0, err
        assert len(set(processes_per_game(tmp_path / "fresh.log"))) == 3, extra


def test_a_kept_engine_that_lost_on_time_is_replaced(tmp_path, capsys):
    slept = tmp_path / "slept"
    body = PID_AT_EACH_GAME + textwrap.dedent(f"""\
        if cmd == "genmove" and not os.path.exists(r"{slept}"):  # the match's first move
            open(r"{slept}", "w").close()
            import time
            time.sleep(4)
    """)
    engine = scripted_engine(tmp_path, "slow", body)
    status, out, err = run_match(["--engine1", engine, "--engine2", IMAGO, "--games", "3",
                                  "--size", "5", "--referee", "imago", "--keep-engines",
                                  "--time", "0.1", "--name1", "slow", "--name2", "imago"],
                                 capsys)
    assert status == 0, err
    assert "game 1: B slow - W imago: W+T (time," in out and out.count("(time,") == 1
    pids = processes_per_game(tmp_path / "slow.log")
    assert len(pids) == 3 and pids[0] != pids[1] == pids[2]


def test_random_openings_are_told_to_both_engines_and_listed_for_training(tmp_path, capsys):
    """``--opening 1-4``: each game starts with 1 to 4 random moves drawn
    from its number, both engines are told them, the SGF holds them and
    ``index.tsv`` lists them as the shared record folders do, so training
    skips them (imago.training.data reads that column)."""
    from imago.training.data import opening_moves_to_skip
    engine = scripted_engine(tmp_path, "passer", "")
    folder = tmp_path / "games"

    def play(games):
        return run_match(["--engine1", engine, "--engine2", engine, "--games", str(games),
                          "--size", "9", "--referee", "imago", "--opening", "1-4",
                          "--sgf-dir", str(folder)], capsys)

    status, out, _ = play(6)
    assert status == 0
    rows = [line.split("\t") for line in (folder / "index.tsv").read_text().splitlines()]
    assert rows[0] == ["file", "random_opening_moves", "moves", "end", "result", "seconds"]
    table = {row[0]: row[1:] for row in rows[1:]}
    assert sorted(table) == [f"game-{n:03d}.sgf" for n in range(1, 7)]
    openings = [int(table[f"game-{n:03d}.sgf"][0]) for n in range(1, 7)]
    assert all(1 <= count <= 4 for count in openings) and len(set(openings)) > 1
    log = (tmp_path / "passer.log").read_text().splitlines()
    told = [line for line in log if line.startswith("play ") and not line.endswith(" pass")]
    assert len(told) == 2 * sum(openings)            # both engines, every opening move
    for name, (count, moves, end, result, seconds) in table.items():
        assert int(moves) == int(count) + 2 and end == "two_passes" and float(seconds) >= 0
        assert opening_moves_to_skip(folder / name) == int(count)
        record = (folder / name).read_text()
        assert f"RE[{result}]" in record and record.count(";B[") + record.count(";W[") \
            == int(moves)
    first = (folder / "game-001.sgf").read_text()
    # a game is its number's: the same game again in another folder
    (folder / "index.tsv").rename(tmp_path / "first-index.tsv")
    for path in folder.glob("*.sgf"):
        path.unlink()
    assert play(1)[0] == 0
    assert (folder / "game-001.sgf").read_text() == first


@pytest.mark.parametrize("value,message", [
    ("x", "'x' is not N or N-M (moves, e.g. 1-4)"),
    ("4-1", "'4-1': the range runs from fewer to more moves"),
    ("-2", "'-2' is not N or N-M"),
])
def test_a_bad_opening_range_is_refused(capsys, value, message):
    status, out, err = run_match(["--engine1", "e", "--engine2", "e", "--opening", value],
                                 capsys)
    assert status == 2 and message in refused(err)
