"""The AlphaGo Zero loop: self-play, training, gating, rating, over and over.

A run lives in one folder (``RUN``)::

    RUN/run.json              the run's settings (written once, options may change them)
    RUN/state.json            where the loop stands: iteration, stage, best network, ...
    RUN/models/gen-GGGG.keras the promoted networks (gen-0000: the starting one)
    RUN/replay/               self-play positions, compressed shards
    RUN/sgf/gen-IIII/         the self-play games of iteration IIII, for people
    RUN/candidates/           the network trained at each iteration (cand-NNNN;
                              trained-NNNN the trainer's own where cand is a mean)
    RUN/matches/              gate games (one JSON line each), anchor matches
    RUN/ratings.jsonl         every match result; RUN/elo.txt, RUN/elo.png the ratings
                              (fitted to every match, and to the anchor games alone)
    RUN/tensorboard/          scalars per iteration (when TensorBoard is installed)

Each iteration runs four stages, and ``state.json`` is rewritten atomically
after each, so ``python train.py rl --dir RUN`` after any stop (``kill -9``
included) goes on where the loop was:

1. **self-play**: the best network plays ``games`` games
   (:func:`~imago.training.selfplay_run.run_selfplay`: the shards count the
   games already played); the share of false resignations in the games that
   could not resign moves the resignation threshold;
2. **train**: the trainer continues its previous output, promoted or not
   (or the best network: :data:`TRAIN_FROM`), on the replay window
   (:func:`~imago.training.rl_trainer.train_candidate`, written atomically);
   the candidate is its output, or with ``average`` K the mean of its last
   K outputs;
3. **gate**: candidate against best, ``gate_games`` games at equal visits
   (:mod:`imago.match.arena`, each game a line of ``matches/``, so a stopped
   gate plays only the games it misses); promoted at ``threshold``, and with
   ``gate_anchor_games`` only if it also scores against the anchors at
   least the best network's share (its rating games);
4. **rate**: a promoted network plays the fixed anchors (GNU Go level 10,
   KataGo at 1 visit) through the match tool, and the Elo table and curve
   are refitted from every result (:mod:`imago.training.rl_rating`).
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any, Callable, Optional

from imago.fileio import replacing

from .average import save_combination
from .data import write_json
from .expert import training_mix
from .openings import opening_lines
from .options import command_name
from .replay import ReplayBuffer
from .rl_config import RLConfig, RunFolder
from .rl_rating import anchor_gate, anchor_visits_problem, count_once, rate, report
from .rl_trainer import train_with_progress
from .search_play import komi_spread_problem
from .selfplay_run import run_selfplay
from .versus import one_colour_wins, play_versus, record_of

Log = Callable[[str], Any]
STAGES = ("selfplay", "train", "gate", "rate")
FALSE_RESIGN_TARGET = 0.05
"""The share of false resignations the threshold is moved towards."""


def start_run(folder: str | os.PathLike, model: str | os.PathLike, config: RLConfig,
              overrides: Optional[dict] = None, log: Log = print, new_size: bool = False,
              purpose: str = "resuming") -> tuple[RunFolder, RLConfig, dict]:
    """Open the run at ``folder``: a new one from ``model`` with ``config``,
    or the existing one with its own settings, ``overrides`` (the options
    given on this command line) changed. Returns the folder, the settings
    and the state. ValueError when the network is not made for the run's
    board size (its metadata's ``board_sizes``), unless ``new_size`` lets a
    new run teach a network that plays any size a size it was not trained
    on: the run's first generation then lists that size among its own.
    ``purpose`` opens the line that says where an existing run stands (the
    loop resumes it; ``train.py rl --rate`` only rates its generations)."""
    run = RunFolder(folder)
    saved = run.read("run.json")
    if saved is None:
        learns = _check_network(Path(model), config.size, config.komi_spread, new_size)
        _copy_model(Path(model), run.model(0))
        if learns:
            _add_size(run.model(0), config.size)
            log(f"rl: {Path(model).name} was not trained on {config.size}x{config.size} "
                f"boards; the loop teaches it")
        run.write("run.json", asdict(config))
        state = {"iteration": 0, "stage": "selfplay", "best_generation": 0,
                 "resign_value": config.resign_value, "history": [], "rated": []}
        run.write("state.json", state)
        log(f"rl: new run in {run.root} from {model}")
        return run, config, state
    known = {f.name for f in fields(RLConfig)}
    stored = {k: v for k, v in saved.items() if k in known}
    before = RLConfig(**stored)
    effective = asdict(before)  # a setting the run.json predates has its default
    changed = {k: v for k, v in (overrides or {}).items() if effective.get(k) != v}
    stored.update(changed)
    state = run.read("state.json") or {}
    _check_network(run.model(state.get("best_generation", 0)), stored.get("size", 9),
                   stored.get("komi_spread", 0))
    problem = anchor_visits_problem(run, state, before, RLConfig(**stored))
    if problem:
        raise ValueError(problem)
    if changed:  # only settings the run's network can take are kept
        run.write("run.json", stored)
        log("rl: settings changed by this command: "
            + ", ".join(f"{k} {effective.get(k)} -> {v}" for k, v in changed.items()))
    log(f"rl: {purpose} {run.root}: iteration {state['iteration']}, stage {state['stage']}, "
        f"best gen-{state['best_generation']:04d}")
    return run, RLConfig(**stored), state


def _check_network(model: Path, size: int, komi_spread: float, new_size: bool = False) -> bool:
    """ValueError when the network at ``model`` was not trained for ``size``
    (its metadata's ``board_sizes``; a residual network could play any size,
    but the loop trains it only on the sizes it was made for, as
    :func:`~imago.training.rl_trainer.train_candidate` does), unless
    ``new_size`` lets the loop teach a network that plays any size a new
    one: returns True then. ValueError too for a ``komi_spread`` that the
    network cannot see."""
    from imago.nn.modelfile import read_metadata

    meta = read_metadata(model)
    sizes = meta.get("board_sizes") or [9]
    learns = size not in sizes and new_size and bool(meta.get("any_size"))
    if size not in sizes and not learns:
        teach = (f", or --new-size to teach it {size}x{size}" if meta.get("any_size")
                 else "")
        raise ValueError(f"{model} was made for {', '.join(f'{s}x{s}' for s in sizes)} "
                         f"boards, not {size}x{size}: choose --size "
                         f"{' or '.join(str(s) for s in sizes)}, a network made for "
                         f"{size}x{size}{teach}")
    problem = komi_spread_problem(komi_spread, meta["plane_set"], model)
    if problem:
        raise ValueError(problem)
    return learns


def _add_size(model: Path, size: int) -> None:
    """List ``size`` among the board sizes in ``model``'s metadata."""
    from imago.nn.modelfile import metadata_path, read_metadata

    meta = read_metadata(model)
    meta["board_sizes"] = sorted(set(meta.get("board_sizes") or [9]) | {size})
    write_json(metadata_path(model), meta, indent=1)


def _copy_model(source: Path, target: Path) -> None:
    """Copy a model and its metadata, metadata first, each by an atomic rename."""
    target.parent.mkdir(parents=True, exist_ok=True)
    for suffix in (".json", ".keras"):
        with open(source.with_suffix(suffix), "rb") as original, \
                replacing(target.with_suffix(suffix), binary=True) as copy:
            shutil.copyfileobj(original, copy)


def run_loop(run: RunFolder, config: RLConfig, state: dict, iterations: Optional[int] = None,
             ray: Optional[str] = None, log: Log = print, progress: bool = True) -> dict:
    """Run the loop until ``iterations`` more iterations are done (None:
    until interrupted); returns the state."""
    finished = 0
    while iterations is None or finished < iterations:
        stage = state["stage"]
        started = time.perf_counter()
        if stage == "selfplay":
            if state["best_generation"] not in state.setdefault("rated", []):
                rate(run, config, state, state["best_generation"], log, progress)
                run.write("state.json", state)
            _selfplay(run, config, state, ray, log, progress)
            state["stage"] = "train"
        elif stage == "train":
            _train(run, config, state, log, progress)
            state["stage"] = "gate"
        elif stage == "gate":
            promoted = _gate(run, config, state, log, progress)
            state["stage"] = "rate" if promoted else "next"
        elif stage == "rate":
            rate(run, config, state, state["best_generation"], log, progress)
            state["stage"] = "next"
        if state["stage"] == "next":
            report(run, state, log)
            state["iteration"] += 1
            state["stage"] = "selfplay"
            finished += 1
        state.setdefault("seconds", {}).setdefault(stage, 0.0)
        state["seconds"][stage] += time.perf_counter() - started
        run.write("state.json", state)
    return state


def _selfplay(run: RunFolder, config: RLConfig, state: dict, ray: Optional[str], log: Log,
              progress: bool) -> None:
    iteration = state["iteration"]
    best = run.model(state["best_generation"])
    log(f"rl: iteration {iteration}: self-play, {config.games} games with "
        f"gen-{state['best_generation']:04d} (resign below {state['resign_value']:.2f})")
    settings = config.selfplay_settings(state["resign_value"])
    openings = opening_lines(config.openings, config.size, settings.resolved().opening_moves,
                             log)
    summary = run_selfplay(best, settings, config.games,
                           run.root, workers=config.workers, ray=ray, generation=iteration,
                           seed=config.seed * 100_003 + iteration, progress=progress, log=log,
                           openings=openings)
    if summary.games:
        log(f"rl: self-play: {summary.line()}")
    rate = summary.false_resignation_rate
    if rate is not None and summary.checked >= 10 and state["resign_value"] > -1.0:
        old = state["resign_value"]
        step = -0.02 if rate > FALSE_RESIGN_TARGET else 0.01
        state["resign_value"] = min(-0.5, max(-0.99, old + step))
        log(f"rl: false resignations {rate:.0%} of {summary.checked} checked games: "
            f"threshold {old:.2f} -> {state['resign_value']:.2f}")
    state["last_selfplay"] = {"games": summary.games, "games_per_hour": summary.games_per_hour,
                              "mean_batch": summary.mean_batch,
                              "false_resignation_rate": rate,
                              "policy_surprise": summary.policy_surprise}


def _train(run: RunFolder, config: RLConfig, state: dict, log: Log,
           progress: bool = False) -> None:
    iteration = state["iteration"]
    candidate = run.candidate(iteration + 1)
    if candidate.exists():
        return
    output = candidate if config.average == 1 else run.trained(iteration + 1)
    if not output.exists():
        buffer = ReplayBuffer(run.root / "replay", window=config.window)
        start = _training_start(run, config, state)
        log(f"rl: training {output.stem} from {start.stem} on the newest "
            f"{config.window} positions ({buffer.positions(config.size)} stored)")
        mix, others = training_mix(config.mix, start, config.size,
                                   config.other_sizes_share > 0, log=log, progress=progress)
        summary = train_with_progress(start, buffer, output, config.train_config(),
                                      size=config.size, shown=progress, log=log, mix=mix,
                                      others=others)
        state["last_train"] = {k: v for k, v in summary.items()
                               if isinstance(v, (int, float))}
    if output != candidate:
        _average_outputs(run, config.average, iteration + 1, log)
    if config.heldout:
        state["last_heldout"] = _heldout(run, config, state, candidate, log)


def _average_outputs(run: RunFolder, count: int, iteration: int, log: Log) -> None:
    """Write the candidate of ``iteration`` as the mean of the weights of
    the trainer's outputs at ``iteration`` and the ``count - 1`` before it
    (those there are): weight averaging along the training path, which
    may steady a network that head-to-head gates overrate (on 13x13 the
    mean of two generations did better against KataGo than either, though
    the loop's own mean gen-0003 did not; README, rl13v)."""
    outputs = [run.trainer_output(i) for i in range(iteration, max(0, iteration - count), -1)]
    outputs = [path for path in outputs if path.exists()]
    candidate = run.candidate(iteration)
    if len(outputs) == 1:
        _copy_model(outputs[0], candidate)
    else:
        save_combination(candidate, outputs, [1 / len(outputs)] * len(outputs),
                         f"{command_name('rl')} --dir {run.root} --average {count}")
    log(f"rl: {candidate.stem} is the mean of {', '.join(path.stem for path in outputs)}")


def _heldout(run: RunFolder, config: RLConfig, state: dict, candidate: Path,
             log: Log) -> dict:
    """The candidate and the best network on the held-out games of the
    ``heldout`` data folders (:mod:`imago.training.heldout`): policy top-1
    and entropy, and value error on positions neither trained on, a check
    that plays no games (a value head learning the window's games by heart
    shows here first). Each figure is logged; returns ``{"FOLDER/candidate/top1": ...,
    ...}``; a folder that cannot be read is named and skipped."""
    from .heldout import heldout_figures

    best = run.model(state["best_generation"])
    names = {str(candidate): "candidate", str(best): "best"}
    figures: dict = {}
    for folder in config.heldout:
        try:
            rows = heldout_figures(list(names), [folder], positions=config.heldout_positions,
                                   log=lambda line: log(f"rl: held-out {line}"))
        except (OSError, ValueError) as err:
            log(f"rl: held-out check of {folder} skipped: {err}")
            continue
        for row in rows:
            if row["size"] != config.size:
                continue
            key = f"{Path(folder).name}/{names[row['model']]}"
            figures[f"{key}/top1"] = row["top1"]
            figures[f"{key}/policy_entropy"] = row["policy_entropy"]
            figures[f"{key}/value_mse"] = row["value_mse"]
    return figures


def _training_start(run: RunFolder, config: RLConfig, state: dict) -> Path:
    """The network this iteration's candidate is trained from (see
    :data:`TRAIN_FROM`)."""
    previous = run.trainer_output(state["iteration"])
    if config.train_from == "latest" and state["iteration"] > 0 and previous.exists():
        return previous
    return run.model(state["best_generation"])


def _gate(run: RunFolder, config: RLConfig, state: dict, log: Log,
          progress: bool = False) -> bool:
    """The gate match (and with ``gate_anchor_games`` the candidate's
    anchor games, :func:`~imago.training.rl_rating.anchor_gate`); promotes
    the candidate and returns True when it passed."""
    iteration = state["iteration"]
    best_name, cand_name = f"gen-{state['best_generation']:04d}", f"cand-{iteration + 1:04d}"
    games = play_versus([str(run.candidate(iteration + 1)),
                         str(run.model(state["best_generation"]))],
                        [cand_name, best_name], config.gate_games, config.arena_settings(),
                        run.gate_log(iteration + 1),
                        run.root / "matches" / f"gate-{iteration + 1:04d}",
                        seed=config.seed + iteration, progress=progress, log=log,
                        what="rl: gate")
    decision = record_of(games, cand_name, config.threshold)
    pending = "; the anchor games decide" if decision.promoted and config.gate_anchor_games else ""
    log(f"rl: gate {cand_name} vs {best_name}: {decision}{pending}")
    warning = one_colour_wins(games)
    if warning:
        log(f"rl: gate: {warning}")
    count_once(run, cand_name, best_name, decision)
    entry = {"iteration": iteration, "candidate": cand_name, "best": best_name,
             "wins": decision.wins, "games": decision.games, "score": decision.score,
             "promoted": decision.promoted}
    if decision.promoted and config.gate_anchor_games:
        entry["anchors"] = anchor_gate(run, config, state, iteration, log, progress)
        entry["promoted"] = all(v["passed"] for v in entry["anchors"].values())
        if not entry["promoted"]:
            log(f"rl: gate: {cand_name} is not promoted: it scored less against the "
                f"anchors than {best_name}")
    state["history"].append(entry)
    if entry["promoted"]:
        generation = state["best_generation"] + 1
        _copy_model(run.candidate(iteration + 1), run.model(generation))
        state["best_generation"] = generation
        state.setdefault("aliases", {})[cand_name] = f"gen-{generation:04d}"
    return entry["promoted"]


__all__ = ["RLConfig", "RunFolder", "start_run", "run_loop", "STAGES"]
