"""The self-play loop end to end on a tiny network: every stage runs, a run
goes on where it stopped, a killed self-play run loses and duplicates
nothing, a cut gate plays only the games it misses."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("tensorflow")

from imago.training import rl_cli  # noqa: E402
from imago.training.rating import MatchResult  # noqa: E402
from imago.training.replay import ReplayBuffer  # noqa: E402

from sgf_fakes import game_sgf  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
TINY = ["--visits", "4", "--cheap-visits", "2", "--parallel", "4", "--no-progress"]


def test_every_stage_runs_and_a_second_command_goes_on(tmp_path, tiny_model, capsys):
    run = tmp_path / "run"
    args = ["--dir", str(run), "--model", str(tiny_model), "--iterations", "1", "--games", "4",
            "--gate-games", "2", "--train-steps", "2", "--batch-size", "16",
            "--rate-games", "0", "--resign-value", "-1", *TINY]
    assert rl_cli.rl_main(args) == 0
    state = json.loads((run / "state.json").read_text())
    assert (state["iteration"], state["stage"]) == (1, "selfplay")
    assert [h["games"] for h in state["history"]] == [2]
    assert state["last_selfplay"]["policy_surprise"] >= 0  # full searches' distance from the priors
    assert (run / "candidates" / "cand-0001.keras").exists()
    assert (run / "elo.txt").exists() and "gen-0000" in (run / "elo.txt").read_text()
    assert len(list((run / "sgf" / "gen-0000").glob("*.sgf"))) == 4

    assert rl_cli.rl_main(["--dir", str(run), "--iterations", "1", "--no-progress"]) == 0
    state = json.loads((run / "state.json").read_text())
    assert state["iteration"] == 2 and len(state["history"]) == 2
    buffer = ReplayBuffer(run / "replay")
    assert buffer.games(9, 0) == 4 and buffer.games(9, 1) == 4
    err = capsys.readouterr().err
    assert "resuming" in err and "policy surprise" in err


def test_a_cut_gate_plays_only_the_games_it_misses(tmp_path, tiny_model):
    from imago.training.rl import RLConfig, start_run

    config = RLConfig(games=2, visits=4, cheap_visits=2, parallel=4, gate_games=4,
                      train_steps=1, batch_size=8, rate_games=0, resign_value=-1.0)
    run, config, state = start_run(tmp_path / "run", tiny_model, config, log=lambda _: None)
    for _ in ("selfplay", "train"):
        state = _one_stage(run, config, state)
    assert state["stage"] == "gate"
    log = run.gate_log(1)
    log.parent.mkdir(parents=True, exist_ok=True)
    done = [{"number": n, "black": "cand-0001", "white": "gen-0000", "result": "B+R",
             "winner": "cand-0001"}
            for n in (0, 2)]
    log.write_text("".join(json.dumps(d) + "\n" for d in done) + '{"number": 3, "bla')
    state = _one_stage(run, config, state)
    numbers = sorted(json.loads(line)["number"] for line in log.read_text().splitlines()
                     if line.startswith("{") and line.endswith("}"))
    assert numbers == [0, 1, 2, 3]
    assert state["history"][-1]["games"] == 4


def _one_stage(run, config, state):
    """Run the loop for exactly one stage (by stopping it after the write)."""
    from imago.training import rl

    stage = state["stage"]
    handler = {"selfplay": lambda: rl._selfplay(run, config, state, None, lambda _: None, False),
               "train": lambda: rl._train(run, config, state, lambda _: None),
               "gate": lambda: rl._gate(run, config, state, lambda _: None)}[stage]
    handler()
    state["stage"] = {"selfplay": "train", "train": "gate", "gate": "next"}[stage]
    run.write("state.json", state)
    return state


def test_self_play_killed_mid_run_resumes_without_losing_or_repeating(tmp_path, tiny_model):
    out = tmp_path / "play"
    command = [sys.executable, str(ROOT / "train.py"), "selfplay", "--model", str(tiny_model),
               "--games", "12", "--out", str(out), "--parallel", "2", *TINY[:4], "--seed", "5",
               "--resign-value", "-1"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, start_new_session=True)
    buffer = ReplayBuffer(out / "replay")
    deadline = time.monotonic() + 120
    try:
        while buffer.games(9, 0) == 0:
            assert process.poll() is None and time.monotonic() < deadline, "no chunk stored"
            time.sleep(0.2)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    first = buffer.games(9, 0)
    assert 0 < first < 12
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert buffer.games(9, 0) == 12
    names = [p.stem for p in (out / "sgf" / "gen-0000").glob("*.sgf")]
    assert len(names) == len(set(names)) == 12
    assert not list(out.rglob("*.tmp*"))
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert again.returncode == 0 and "nothing to play" in again.stdout


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc to see the workers")
@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])
def test_self_play_interrupted_in_its_driver_alone_ends_at_once(tmp_path, tiny_model, stop):
    """SIGINT to the driver only (``kill -INT PID``, not Ctrl-C's whole
    process group), or SIGTERM (``kill PID``; a job started in the
    background by a script ignores SIGINT): it says so and exits at once,
    its workers stopped, instead of waiting at exit for the chunks in flight
    (played to the end for nobody: a minute here, many on 9x9 with the
    shipped network)."""
    out = tmp_path / "play"
    command = [sys.executable, str(ROOT / "train.py"), "selfplay", "--model", str(tiny_model),
               "--games", "400", "--out", str(out), "--parallel", "32", "--visits", "16",
               "--cheap-visits", "16", "--seed", "5", "--resign-value", "-1",
               "--workers", "2", "--no-progress"]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True, start_new_session=True,
                               preexec_fn=_hear_interrupts)
    children = Path(f"/proc/{process.pid}/task/{process.pid}/children")
    deadline = time.monotonic() + 120
    try:
        while len(children.read_text().split()) < 3:  # two workers and the resource tracker
            assert process.poll() is None and time.monotonic() < deadline, "no workers"
            time.sleep(0.2)
        workers = children.read_text().split()
        time.sleep(8)  # the workers are in their first chunks
        os.kill(process.pid, stop)
        _, err = process.communicate(timeout=20)
    finally:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    assert process.returncode == 130 and "interrupted" in err, err[-2000:]
    deadline = time.monotonic() + 5  # the workers are stopped; the tracker ends on its own
    while not all(_gone(int(pid)) for pid in workers):
        assert time.monotonic() < deadline, [pid for pid in workers if not _gone(int(pid))]
        time.sleep(0.1)


def _hear_interrupts() -> None:
    """SIGINT back to its default in the child: a test run started in the
    background by a script ignores it, and the child would inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


DRIVER = """
import os, sys, time
from imago.training.selfplay_run import _executor
executor = _executor(1, None, print)
worker = executor.submit(os.getpid).result()
executor.submit(time.sleep, 120)
print(worker, flush=True)
time.sleep(120)
"""


def _gone(pid: int) -> bool:
    """No such process, or only its exit status left (a zombie nobody reaps)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc to see the worker")
def test_workers_stop_when_their_driver_is_killed(tmp_path):
    """A driver killed alone (kill -9 on its pid) leaves workers that would
    play their chunks on for nobody, beside the run that is resumed."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    driver = subprocess.Popen([sys.executable, "-c", DRIVER], env=env, stdout=subprocess.PIPE,
                              text=True, start_new_session=True)
    try:
        worker = int(driver.stdout.readline())
        assert not _gone(worker)
        driver.kill()
        driver.wait()
        deadline = time.monotonic() + 10
        while not _gone(worker) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _gone(worker), "the worker played on after its driver was killed"
    finally:
        try:
            os.killpg(driver.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_a_promoted_candidate_is_rated_as_its_generation(tmp_path):
    """The gate games of cand-0001 (promoted as gen-0001) are gen-0001's:
    without them its rating would rest on its anchor games alone."""
    from imago.training.rating import RatingLog
    from imago.training.rl import RunFolder
    from imago.training.rl_rating import report

    ratings = RatingLog(tmp_path)
    for result in (MatchResult("gen-0000", "gnugo-10", 5, 5),
                   MatchResult("cand-0001", "gen-0000", 70, 30),
                   MatchResult("gen-0001", "gnugo-10", 5, 5)):
        ratings.append(result)
    lines = []
    report(RunFolder(tmp_path), {"iteration": 1, "best_generation": 1, "history": [],
                                  "aliases": {"cand-0001": "gen-0001"}},
            lines.append)
    table = _elo_rows(tmp_path)
    assert "cand-0001" not in table
    assert table["gen-0001"][2] == "110" and int(table["gen-0001"][0]) > int(table["gen-0000"][0])
    # the anchor games alone: both 5-5 against GNU Go, so both at its rating
    assert table["gen-0001"][3] == table["gen-0000"][3] == "0"


def _elo_rows(run) -> dict[str, list[str]]:
    return {row.split()[0]: row.split()[1:] for row in
            (run / "elo.txt").read_text().splitlines()[1:] if row.strip()}


@pytest.mark.parametrize("anchor_games,zero", [
    ([], "gen-0000"),  # --rate-games 0
    ([MatchResult("gen-0000", "katago-gtp-1", 3, 7)], "katago-gtp-1"),  # --anchors katago
])
def test_without_gnu_go_the_scale_is_zeroed_on_a_player_that_played(tmp_path, anchor_games,
                                                                      zero):
    """GNU Go at 0 with no games would give every player the fit's prior
    (± about 700): the scale's zero is KataGo, else the first network."""
    from imago.training.rating import RatingLog
    from imago.training.rl import RunFolder
    from imago.training.rl_rating import report

    ratings = RatingLog(tmp_path)
    for result in anchor_games + [MatchResult("gen-0001", "gen-0000", 64, 36)]:
        ratings.append(result)
    lines = []
    report(RunFolder(tmp_path), {"iteration": 1, "best_generation": 1, "history": []},
            lines.append)
    table = _elo_rows(tmp_path)
    assert "gnugo-10" not in table and table[zero][:2] == ["0", "anchor"]
    assert 60 < int(table["gen-0001"][0]) - int(table["gen-0000"][0]) < 120
    assert int(table["gen-0001"][1]) < 300  # measured (10 games at most), not the prior
    assert f"{zero} at 0" in lines[0]
    # anchor games alone: gen-0001 played none; gen-0000 only where it met KataGo
    assert table["gen-0001"][3] == "-"
    assert (table["gen-0000"][3] == "-") is (zero == "gen-0000")


def test_training_goes_on_from_the_previous_candidate_unless_told_otherwise(tmp_path):
    """``latest`` (the default): a rejected candidate's steps are not lost,
    the next candidate starts from it; ``best``: from the best network."""
    from imago.training.rl import RLConfig, RunFolder, _training_start

    run = RunFolder(tmp_path)
    for path in (run.model(0), run.model(1), run.candidate(1), run.candidate(2)):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
    latest, best = RLConfig(), RLConfig(train_from="best")
    state = {"iteration": 0, "best_generation": 0}
    assert _training_start(run, latest, state) == run.model(0)
    state = {"iteration": 2, "best_generation": 1}
    assert _training_start(run, latest, state) == run.candidate(2)
    assert _training_start(run, best, state) == run.model(1)
    state = {"iteration": 3, "best_generation": 1}  # no cand-0003: a run from before
    assert _training_start(run, latest, state) == run.model(1)
    assert RLConfig(train_from="newest").problems() == [
        "--train-from must be one of latest, best, not 'newest'"]


def test_with_average_the_candidate_is_the_mean_of_the_trainers_last_outputs(
        tmp_path, tiny_model, monkeypatch):
    """``average`` 2: the trainer goes on from its own outputs (trained-NNNN)
    and the gate gets the mean of the last two; a stop between the two
    writes trains nothing again."""
    import numpy as np

    from imago.nn.networks import load_network
    from imago.training import rl
    from imago.training.rl import RLConfig, start_run

    config = RLConfig(games=2, visits=4, cheap_visits=2, parallel=4, train_steps=2,
                      batch_size=8, rate_games=0, resign_value=-1.0, average=2)
    run, config, state = start_run(tmp_path / "run", tiny_model, config, log=lambda _: None)
    state = _one_stage(run, config, state)
    state = _one_stage(run, config, state)
    weights = {name: load_network(path).model.get_weights() for name, path in
               (("cand1", run.candidate(1)), ("trained1", run.trained(1)))}
    assert all(np.array_equal(a, b) for a, b in zip(weights["cand1"], weights["trained1"]))

    state.update(iteration=1, stage="train")
    assert rl._training_start(run, config, state) == run.trained(1)
    lines = []
    rl._train(run, config, state, lines.append)
    assert lines[-1] == "rl: cand-0002 is the mean of trained-0002, trained-0001"
    trained2 = load_network(run.trained(2)).model.get_weights()
    mean = load_network(run.candidate(2)).model.get_weights()
    assert any(not np.array_equal(a, b) for a, b in zip(trained2, weights["trained1"]))
    for got, a, b in zip(mean, trained2, weights["trained1"]):
        assert np.allclose(got, (a.astype(np.float64) + b) / 2, atol=1e-6)
    meta = json.loads(run.candidate(2).with_suffix(".json").read_text())
    assert [(Path(p["model"]).stem, p["share"]) for p in meta["averaged_from"]] == [
        ("trained-0002", 0.5), ("trained-0001", 0.5)]
    assert "--average 2" in meta["command"] and "rl_training" not in meta

    run.candidate(2).unlink()
    monkeypatch.setattr(rl, "train_with_progress", pytest.fail)
    rl._train(run, config, state, lines.append)
    assert run.candidate(2).exists()
    assert RLConfig(average=0).problems() == ["--average must be at least 1, not 0"]


def test_the_trainer_settings_are_refused_once_in_the_options_words():
    from imago.training.rl import RLConfig

    config = RLConfig(train_steps=0, batch_size=0, learning_rate=-1.0, value_mix=2.0)
    assert config.problems() == [
        "--train-steps must be at least 1, not 0", "--batch-size must be at least 1, not 0",
        "--lr must be positive, not -1.0", "--value-mix must be from 0 to 1, not 2.0"]


def test_candidates_are_measured_on_held_out_games(tmp_path, tiny_model, monkeypatch):
    """With --heldout, training ends with the candidate's and the best
    network's top-1 and value error on the folder's held-out games, logged,
    kept in the state and written to TensorBoard; an unreadable folder is
    named and skipped."""
    from imago.training.data import is_validation_game
    from imago.training.rl import RLConfig, start_run

    monkeypatch.setenv("IMAGO_CACHE", str(tmp_path / "cache"))
    games = tmp_path / "games"
    games.mkdir()
    held = [n for n in (f"g-{k:04d}.sgf" for k in range(400))
            if is_validation_game(str(games / n), 0.05)][:3]
    for number, name in enumerate(held):
        (games / name).write_text(game_sgf(number, moves=30, result="B+3.5"))
    config = RLConfig(games=2, visits=4, cheap_visits=2, parallel=4, gate_games=2,
                      train_steps=1, batch_size=8, rate_games=0, resign_value=-1.0,
                      heldout=[str(games), str(tmp_path / "missing")], heldout_positions=20)
    lines = []
    run, config, state = start_run(tmp_path / "run", tiny_model, config, log=lines.append)
    from imago.training import rl
    rl._selfplay(run, config, state, None, lines.append, False)
    rl._train(run, config, state, lines.append)
    figures = state["last_heldout"]
    assert set(figures) == {f"games/{who}/{what}" for who in ("candidate", "best")
                            for what in ("top1", "policy_entropy", "value_mse")}
    assert all(0 <= v for v in figures.values())
    assert sum(line.startswith("rl: held-out games 9x9 ") for line in lines) == 2
    assert any("missing" in line for line in lines), lines



def test_a_komi_spread_is_refused_for_a_network_blind_to_komi(tmp_path, tiny_model):
    """New or resumed, a run whose network takes no komi plane refuses
    games of many komis, and the refused setting is not kept."""
    from imago.training.rl import RLConfig, start_run

    with pytest.raises(ValueError, match="--komi-spread needs a network that sees the komi"):
        start_run(tmp_path / "new", tiny_model, RLConfig(komi_spread=3), log=lambda _: None)
    assert not (tmp_path / "new" / "run.json").exists()
    run, _, _ = start_run(tmp_path / "run", tiny_model, RLConfig(), log=lambda _: None)
    before = (run.root / "run.json").read_text()
    with pytest.raises(ValueError, match="tiny.keras|gen-0000.keras"):
        start_run(tmp_path / "run", tiny_model, RLConfig(), {"komi_spread": 3.0},
                  log=lambda _: None)
    assert (run.root / "run.json").read_text() == before


def test_each_generation_plays_the_runs_first_network_with_start_games(tmp_path, tiny_model):
    """--start-games: a promoted network plays gen-0000 at equal visits;
    the record is logged and counted in the ratings once, and the games
    are not played again when the run goes on."""
    from imago.training import rl, rl_rating
    from imago.training.rl import RLConfig, start_run
    from imago.training.rating import RatingLog

    config = RLConfig(visits=2, cheap_visits=2, parallel=2, rate_games=0, start_games=2,
                      resign_value=-1.0)
    run, config, state = start_run(tmp_path / "run", tiny_model, config, log=lambda _: None)
    rl._copy_model(run.model(0), run.model(1))
    lines = []
    rl_rating.rate(run, config, state, 1, lines.append)
    games = (run.root / "matches" / "gen-0001-gen-0000.jsonl").read_text().splitlines()
    assert len(games) == 2 and state["rated"] == [1]
    assert any("gen-0001 against the run's first network: " in line for line in lines), lines
    results = [(r.player, r.opponent, r.wins + r.losses + r.draws)
               for r in RatingLog(run.root).results()]
    assert results == [("gen-0001", "gen-0000", 2)]
    lines.clear()
    rl_rating.rate(run, config, state, 1, lines.append)  # again: nothing new played or counted
    assert not any("games to play" in line for line in lines)
    assert len(RatingLog(run.root).results()) == 1
    assert RLConfig(start_games=-1).problems() == ["--start-games must be 0 or more, not -1"]


def fake_anchor_matches(monkeypatch, wins=lambda number: True) -> list:
    """Anchor matches that play nothing, GNU Go installed: each game of a
    match (numbered from 0) is an empty SGF file in its folder, won by the
    network where ``wins(number)``; returns the list of ``(name, games,
    first SGF number)`` played."""
    import imago.match.tool as tool
    from imago.match.tool import EngineStats

    played = []

    class FakeMatch:
        def __init__(self, settings, referee):
            self.settings = settings
            self.stats = [EngineStats(settings.names[0]), EngineStats(settings.names[1])]

        def play(self, out=print):
            s = self.settings
            played.append((s.names[0], s.games, s.first_sgf))
            for number in range(s.games):
                Path(s.sgf_dir, f"game-{s.first_sgf + number:03d}.sgf").write_text("(;)")
                if wins(number):
                    self.stats[0].wins += 1
                else:
                    self.stats[0].losses += 1

    monkeypatch.setattr(tool, "Match", FakeMatch)
    monkeypatch.setattr(tool, "find_gnugo", lambda: "/usr/games/gnugo")
    return played


def test_a_larger_rate_games_tops_every_rated_generation_up(tmp_path, tiny_model,
                                                          monkeypatch):
    """Each generation plays the anchor games it lacks of --rate-games (its
    logged games count): a run resumed with a larger figure tops the
    generations rated before up to it, numbering the new SGF files on. An
    anchor that is not installed is said once a rating."""
    from imago.training import rl, rl_rating
    from imago.training.rating import RatingLog
    from imago.training.rl import RLConfig, start_run

    played = fake_anchor_matches(monkeypatch, wins=lambda number: number % 2 == 0)
    monkeypatch.setattr(rl_rating, "_katago", lambda: None)  # an anchor not installed
    config = RLConfig(visits=2, cheap_visits=2, parallel=2, rate_games=3,
                      anchors=["gnugo", "katago"], resign_value=-1.0)
    run, config, state = start_run(tmp_path / "run", tiny_model, config, log=lambda _: None)
    rl_rating.rate(run, config, state, 0, lambda _: None)
    rl._copy_model(run.model(0), run.model(1))
    rl_rating.rate(run, config, state, 1, lambda _: None)
    assert played == [("gen-0000", 3, 1), ("gen-0001", 3, 1)] and state["rated"] == [0, 1]
    played.clear()
    config = dataclasses.replace(config, rate_games=5)
    rl._copy_model(run.model(0), run.model(2))
    lines = []
    rl_rating.rate(run, config, state, 2, lines.append)
    assert played == [("gen-0002", 5, 1), ("gen-0000", 2, 4), ("gen-0001", 2, 4)]
    assert ("rl: rating gen-0000 against gnugo-10, 2 games more (it has 3, --rate-games 5), "
            "2 visits a move") in lines
    assert sum("katago is not installed here" in line for line in lines) == 1, lines
    totals: dict = {}
    for r in RatingLog(run.root).results():
        totals[r.player] = totals.get(r.player, 0) + r.games
    assert totals == {"gen-0000": 5, "gen-0001": 5, "gen-0002": 5}
    assert len(list((run.root / "matches" / "gen-0000-gnugo-10").glob("game-*.sgf"))) == 5
    played.clear()
    rl_rating.rate(run, config, state, 2, lambda _: None)  # again: nothing is missing
    assert played == [] and state["rated"] == [0, 1, 2]


def test_rate_tops_up_the_generations_asked_for_and_leaves_the_state_alone(
        tmp_path, tiny_model, monkeypatch, capsys):
    """``train.py rl --rate GEN...`` plays only the anchor games those
    generations lack of --rate-games (numbering their SGF files on), refits
    the table, runs no iteration and writes no state, so that it can run
    beside the loop; a generation the run lacks, or a folder with no run,
    is refused with a reason."""
    from imago.training import rl, rl_rating
    from imago.training.rl import RLConfig, start_run

    played = fake_anchor_matches(monkeypatch)
    config = RLConfig(visits=2, cheap_visits=2, parallel=2, rate_games=2, anchors=["gnugo"],
                      resign_value=-1.0)
    run, config, state = start_run(tmp_path / "run", tiny_model, config, log=lambda _: None)
    rl_rating.rate(run, config, state, 0, lambda _: None)
    run.write("state.json", state)
    for generation in (1, 2):
        rl._copy_model(run.model(0), run.model(generation))
    before = (run.root / "state.json").read_text()
    played.clear()
    args = ["--dir", str(run.root), "--rate", "0", "2", "--rate-games", "5", "--no-progress"]
    capsys.readouterr()
    assert rl_cli.rl_main(args) == 0
    assert played == [("gen-0000", 3, 3), ("gen-0002", 5, 1)]
    err = capsys.readouterr().err
    assert "rl: rating generation 0, 2 of " in err and "resuming" not in err
    assert (run.root / "state.json").read_text() == before
    assert "gen-0002" in (run.root / "elo.txt").read_text()
    assert json.loads((run.root / "run.json").read_text())["rate_games"] == 5
    played.clear()
    assert rl_cli.rl_main(args) == 0 and played == []  # nothing missing any more

    capsys.readouterr()
    assert rl_cli.rl_main(["--dir", str(run.root), "--rate", "7", "--no-progress"]) == 1
    assert "has no generation 7 (its generations: 0, 1, 2)" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        rl_cli.rl_main(["--dir", str(tmp_path / "none"), "--rate", "0"])
    assert "--rate: no run in" in capsys.readouterr().err


def test_anchor_games_are_played_at_rate_visits_and_stay_at_them(tmp_path, tiny_model,
                                                                  monkeypatch):
    """--rate-visits sets the visits of the anchor games apart from the
    self-play's; once a run has anchor games, a resumed run that would rate
    at another figure (a new --rate-visits, or a new --visits with none) is
    refused with the option that keeps the ratings alike, and one that keeps
    it may change the self-play's visits."""
    import imago.match.tool as tool
    from imago.match.tool import EngineStats
    from imago.training import rl_rating
    from imago.training.rl import RLConfig, start_run

    commands = []

    class FakeMatch:  # the network wins every game
        def __init__(self, settings, referee):
            self.settings = settings
            self.stats = [EngineStats(settings.names[0]), EngineStats(settings.names[1])]

        def play(self, out=print):
            commands.append(self.settings.commands[0])
            self.stats[0].wins += self.settings.games

    monkeypatch.setattr(tool, "Match", FakeMatch)
    monkeypatch.setattr(tool, "find_gnugo", lambda: "/usr/games/gnugo")
    config = RLConfig(visits=2, cheap_visits=2, parallel=2, rate_games=2, rate_visits=7,
                      anchors=["gnugo"], resign_value=-1.0)
    assert config.anchor_visits() == 7 and RLConfig(visits=5).anchor_visits() == 5
    folder = tmp_path / "run"
    run, config, state = start_run(folder, tiny_model, config, log=lambda _: None)
    rl_rating.rate(run, config, state, 0, lambda _: None)
    assert len(commands) == 1 and "--visits 7 --no-resign" in commands[0]
    assert commands[0].endswith("--seed 10000{game}")  # run seed 1, generation 0, the game
    assert state["anchor_visits"] == 7
    run.write("state.json", state)
    for given in ({"rate_visits": 9}, {"rate_visits": 0}):
        with pytest.raises(ValueError, match="played at 7 visits a move.*--rate-visits 7"):
            start_run(folder, tiny_model, dataclasses.replace(config, **given), given,
                      log=lambda _: None)
    given = {"visits": 3}
    run, config, state = start_run(folder, tiny_model, dataclasses.replace(config, **given),
                                   given, log=lambda _: None)
    assert config.visits == 3 and config.anchor_visits() == 7
    assert RLConfig(rate_visits=-1).problems() == [
        "--rate-visits must be 0 (the self-play's --visits) or more, not -1"]


def test_rate_visits_may_change_while_no_anchor_game_is_played(tmp_path, tiny_model,
                                                                monkeypatch):
    """Without anchor games (no anchor installed) a resumed run may rate at
    another figure, which the state then keeps."""
    import imago.match.tool as tool
    from imago.training import rl_rating
    from imago.training.rl import RLConfig, start_run

    monkeypatch.setattr(tool, "find_gnugo", lambda: None)
    monkeypatch.setattr(rl_rating, "_katago", lambda: None)
    config = RLConfig(visits=2, cheap_visits=2, parallel=2, rate_games=2, resign_value=-1.0)
    folder = tmp_path / "run"
    run, config, state = start_run(folder, tiny_model, config, log=lambda _: None)
    rl_rating.rate(run, config, state, 0, lambda _: None)
    assert state["anchor_visits"] == 2
    run.write("state.json", state)
    given = {"rate_visits": 5}
    run, config, state = start_run(folder, tiny_model, dataclasses.replace(config, **given),
                                   given, log=lambda _: None)
    rl_rating.rate(run, config, state, 0, lambda _: None)
    assert config.anchor_visits() == 5 and state["anchor_visits"] == 5


def test_expert_games_are_mixed_into_the_loops_training(tmp_path, tiny_model, monkeypatch):
    """With --mix, each candidate trains on a share of expert games
    (imported once into the cache) beside the replay window; a missing
    --mix folder or a bad share is refused before anything runs."""
    from imago.nn.modelfile import read_metadata
    from imago.training import rl
    from imago.training.rl import RLConfig, start_run

    monkeypatch.setenv("IMAGO_CACHE", str(tmp_path / "cache"))
    # GNU Go reads a random game's dead stones for seconds (a real one's in milliseconds)
    monkeypatch.setattr("imago.training.expert.gnugo_dead_stones", lambda cache: None)
    games = tmp_path / "games"
    games.mkdir()
    for number in range(12):
        (games / f"g-{number:02d}.sgf").write_text(game_sgf(number, moves=30, result="B+3.5"))
    config = RLConfig(games=2, visits=4, cheap_visits=2, parallel=4, gate_games=2,
                      train_steps=1, batch_size=8, rate_games=0, resign_value=-1.0,
                      mix=[str(games)], mix_share=0.5)
    assert config.problems() == []
    lines = []
    run, config, state = start_run(tmp_path / "run", tiny_model, config, log=lines.append)
    rl._selfplay(run, config, state, None, lines.append, False)
    rl._train(run, config, state, lines.append)
    assert any("4 of each batch from" in line for line in lines), lines
    meta = read_metadata(run.candidate(1))["rl_training"]
    assert meta["config"]["mix_share"] == 0.5 and meta["expert"]["positions"] > 0

    assert RLConfig(mix=[str(tmp_path / "none")], mix_share=1.0).problems() == [
        "--mix-share must be from 0 up to (not including) 1, not 1.0",
        f"--mix {tmp_path / 'none'}: no such file or folder"]
    assert RLConfig(mix_share=2.0).problems() == [
        "--mix-share must be from 0 up to (not including) 1, not 2.0"]
    assert RLConfig(other_sizes_share=-0.1).problems() == [
        "--other-sizes-share must be from 0 up to (not including) 1, not -0.1"]


def test_local_reading_reaches_the_self_play_settings():
    """``--local-reading`` is a run setting handed to the self-play
    searches, off unless given."""
    from imago.training.rl import RLConfig

    args = rl_cli.rl_parser().parse_args(["--dir", "r", "--local-reading"])
    assert RLConfig(local_reading=args.local_reading).selfplay_settings(-0.9).local_reading
    assert not RLConfig().selfplay_settings(-0.9).local_reading
    assert not rl_cli.rl_parser().parse_args(["--dir", "r"]).local_reading


def test_forced_playouts_reach_the_self_play_settings():
    """``--forced-playouts K`` is a run setting (``run.json``) handed to the
    self-play searches; off unless given, and a negative K is refused."""
    from imago.training.rl import RLConfig

    args = rl_cli.rl_parser().parse_args(["--dir", "r", "--forced-playouts", "2"])
    assert args.forced_playouts == 2.0
    config = RLConfig(forced_playouts=args.forced_playouts)
    assert config.selfplay_settings(-0.9).forced_playouts == 2.0
    assert RLConfig().selfplay_settings(-0.9).forced_playouts == 0.0
    assert any("forced-playouts" in p for p in RLConfig(forced_playouts=-2).problems())
