"""The AlphaGo Zero loop: self-play, training, gating, rating, over and over.

A run lives in one folder (``RUN``)::

    RUN/run.json              the run's settings (written once, options may change them)
    RUN/state.json            where the loop stands: iteration, stage, best network, ...
    RUN/models/gen-GGGG.keras the promoted networks (gen-0000: the starting one)
    RUN/replay/               self-play positions, compressed shards
    RUN/sgf/gen-IIII/         the self-play games of iteration IIII, for people
    RUN/candidates/           the network trained at each iteration
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
2. **train**: a candidate continues the previous candidate, promoted or not
   (or the best network: :data:`TRAIN_FROM`), on the replay window
   (:func:`~imago.training.rl_trainer.train_candidate`, written atomically);
3. **gate**: candidate against best, ``gate_games`` games at equal visits
   (:mod:`imago.match.arena`, each game a line of ``matches/``, so a stopped
   gate plays only the games it misses); promoted at ``threshold``;
4. **rate**: a promoted network plays the fixed anchors (GNU Go level 10,
   KataGo at 1 visit) through the match tool, and the Elo table and curve
   are refitted from every result.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Callable, Optional

from imago.match.arena import ArenaSettings

from .data import write_json
from .expert import training_mix
from .rating import (GateDecision, MatchResult, RatingLog, against, elo_history, elo_table,
                     fit_elo)
from .replay import ReplayBuffer
from .rl_trainer import (MIX_SHARE, OTHER_SIZES_SHARE, RLTrainConfig, mix_problems,
                         train_with_progress)
from .search_play import SelfPlaySettings, komi_spread_problem
from .selfplay_run import run_selfplay
from .versus import one_colour_wins, play_versus, record_of

Log = Callable[[str], Any]
STAGES = ("selfplay", "train", "gate", "rate")
FALSE_RESIGN_TARGET = 0.05
"""The share of false resignations the threshold is moved towards."""


@dataclass
class RLConfig:
    """The settings of a run (``run.json``)."""

    size: int = 9
    komi: float = 7.5
    komi_spread: float = 0.0
    games: int = 200
    visits: int = 100
    cheap_visits: int = 25
    full_share: float = 0.25
    parallel: int = 32
    workers: int = 1
    window: int = 100_000
    train_steps: int = 400
    batch_size: int = 256
    optimizer: str = "sgd"
    learning_rate: float = 0.001
    train_from: str = "latest"
    value_mix: float = 0.5
    mix: list = field(default_factory=list)
    mix_share: float = MIX_SHARE
    other_sizes_share: float = OTHER_SIZES_SHARE
    gate_games: int = 100
    threshold: float = 0.55
    rate_games: int = 10
    start_games: int = 0
    anchors: list = field(default_factory=lambda: ["gnugo", "katago"])
    resign_value: float = -0.9
    no_resign_share: float = 0.1
    prune_targets: bool = True
    heldout: list = field(default_factory=list)
    heldout_positions: int = 2000
    seed: int = 1

    def problems(self) -> list[str]:
        out = []
        for name in ("games", "visits", "cheap_visits", "parallel", "workers", "window",
                     "gate_games"):
            if getattr(self, name) < 1:
                out.append(f"--{name.replace('_', '-')} must be at least 1, "
                           f"not {getattr(self, name)}")
        if not 0.5 <= self.threshold <= 1.0:
            out.append(f"--threshold must be from 0.5 to 1, not {self.threshold}")
        if self.train_from not in TRAIN_FROM:
            out.append(f"--train-from must be one of {', '.join(TRAIN_FROM)}, "
                       f"not {self.train_from!r}")
        if self.heldout_positions < 1:
            out.append(f"--heldout-positions must be at least 1, not {self.heldout_positions}")
        if self.rate_games < 0:
            out.append(f"--rate-games must be 0 or more, not {self.rate_games}")
        if self.start_games < 0:
            out.append(f"--start-games must be 0 or more, not {self.start_games}")
        unknown = [a for a in self.anchors if a not in ANCHORS]
        if unknown:
            out.append(f"unknown anchors {', '.join(unknown)}; choose from {', '.join(ANCHORS)}")
        out += self.selfplay_settings(self.resign_value).problems()
        out += self.train_config().option_problems({"steps": "train-steps"})
        out += mix_problems(self.mix, self.mix_share)
        return out

    def selfplay_settings(self, resign_value: float) -> SelfPlaySettings:
        return SelfPlaySettings(size=self.size, komi=self.komi, komi_spread=self.komi_spread,
                                visits=self.visits,
                                cheap_visits=self.cheap_visits, full_share=self.full_share,
                                parallel=self.parallel, resign_value=resign_value,
                                no_resign_share=self.no_resign_share,
                                prune_targets=self.prune_targets)

    def arena_settings(self) -> ArenaSettings:
        """How the run's networks play each other (the gate, the start match)."""
        return ArenaSettings(size=self.size, komi=self.komi, visits=self.visits,
                             parallel=self.parallel)

    def train_config(self) -> RLTrainConfig:
        return RLTrainConfig(steps=self.train_steps, batch_size=self.batch_size,
                             optimizer=self.optimizer, learning_rate=self.learning_rate,
                             value_mix=self.value_mix,
                             mix_share=self.mix_share if self.mix else 0.0,
                             other_sizes_share=self.other_sizes_share, seed=self.seed)


TRAIN_FROM = ("latest", "best")
"""Where each iteration's training starts: ``latest``, the previous
iteration's candidate, promoted or not, so that training goes on across
iterations as AlphaGo Zero's continuously trained network does while the
best network plays; ``best``, the best network each time (a rejected
candidate's steps are thrown away, so no iteration trains more than
``train_steps`` beyond the best)."""

ANCHORS = {
    "gnugo": ("gnugo-10", "{gnugo} --mode gtp --level 10 --chinese-rules"),
    "katago": ("katago-gtp-1", "{katago} 1"),
}
"""The fixed opponents a promoted network is rated against: name, command."""
ANCHOR_NAMES = frozenset(name for name, _ in ANCHORS.values())
ELO_ZEROS = tuple(name for name, _ in ANCHORS.values()) + ("gen-0000",)
"""The players that can be the zero of a run's Elo scale, the first that
played a game taken: GNU Go level 10 where it played, else KataGo
(``--anchors katago``), else the run's first network (no anchor games,
``--rate-games 0``): a zero with no games would leave every rating at the
fit's prior, about ± 700 Elo."""


class RunFolder:
    """The paths of a run and its state file."""

    def __init__(self, folder: str | os.PathLike):
        self.root = Path(folder)

    def model(self, generation: int) -> Path:
        return self.root / "models" / f"gen-{generation:04d}.keras"

    def candidate(self, iteration: int) -> Path:
        return self.root / "candidates" / f"cand-{iteration:04d}.keras"

    def gate_log(self, iteration: int) -> Path:
        return self.root / "matches" / f"gate-{iteration:04d}.jsonl"

    def read(self, name: str) -> Optional[dict]:
        path = self.root / name
        if not path.exists():
            return None
        return json.loads(path.read_text(encoding="utf-8"))

    def write(self, name: str, data: dict) -> None:
        write_json(self.root / name, data, indent=1)


def start_run(folder: str | os.PathLike, model: str | os.PathLike, config: RLConfig,
              overrides: Optional[dict] = None, log: Log = print, new_size: bool = False
              ) -> tuple[RunFolder, RLConfig, dict]:
    """Open the run at ``folder``: a new one from ``model`` with ``config``,
    or the existing one with its own settings, ``overrides`` (the options
    given on this command line) changed. Returns the folder, the settings
    and the state. ValueError when the network is not made for the run's
    board size (its metadata's ``board_sizes``), unless ``new_size`` lets a
    new run teach a network that plays any size a size it was not trained
    on: the run's first generation then lists that size among its own."""
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
    changed = {k: v for k, v in (overrides or {}).items() if stored.get(k) != v}
    stored.update(changed)
    state = run.read("state.json") or {}
    _check_network(run.model(state.get("best_generation", 0)), stored.get("size", 9),
                   stored.get("komi_spread", 0))
    if changed:  # only settings the run's network can take are kept
        run.write("run.json", stored)
        log("rl: settings changed by this command: "
            + ", ".join(f"{k} {saved.get(k)} -> {v}" for k, v in changed.items()))
    log(f"rl: resuming {run.root}: iteration {state['iteration']}, stage {state['stage']}, "
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
        tmp = target.with_name(f".{target.stem}{suffix}.tmp")
        shutil.copyfile(source.with_suffix(suffix), tmp)
        os.replace(tmp, target.with_suffix(suffix))


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
                _rate(run, config, state, state["best_generation"], log)
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
            _rate(run, config, state, state["best_generation"], log)
            state["stage"] = "next"
        if state["stage"] == "next":
            _report(run, state, log)
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
    summary = run_selfplay(best, config.selfplay_settings(state["resign_value"]), config.games,
                           run.root, workers=config.workers, ray=ray, generation=iteration,
                           seed=config.seed * 100_003 + iteration, progress=progress, log=log)
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
    buffer = ReplayBuffer(run.root / "replay", window=config.window)
    start = _training_start(run, config, state)
    log(f"rl: training cand-{iteration + 1:04d} from {start.stem} on the newest "
        f"{config.window} positions ({buffer.positions(config.size)} stored)")
    mix, others = training_mix(config.mix, start, config.size, config.other_sizes_share > 0,
                               log=log, progress=progress)
    summary = train_with_progress(start, buffer, candidate, config.train_config(),
                                  size=config.size, shown=progress, log=log, mix=mix,
                                  others=others)
    state["last_train"] = {k: v for k, v in summary.items() if isinstance(v, (int, float))}
    if config.heldout:
        state["last_heldout"] = _heldout(run, config, state, candidate, log)


def _heldout(run: RunFolder, config: RLConfig, state: dict, candidate: Path,
             log: Log) -> dict:
    """The candidate and the best network on the held-out games of the
    ``heldout`` data folders (:mod:`imago.training.heldout`): policy top-1
    and value error on positions neither trained on, a check that plays no
    games (a value head learning the window's games by heart shows here
    first). Each figure is logged; returns ``{"FOLDER/candidate/top1": ...,
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
            figures[f"{key}/value_mse"] = row["value_mse"]
    return figures


def _training_start(run: RunFolder, config: RLConfig, state: dict) -> Path:
    """The network this iteration's candidate is trained from (see
    :data:`TRAIN_FROM`)."""
    previous = run.candidate(state["iteration"])
    if config.train_from == "latest" and state["iteration"] > 0 and previous.exists():
        return previous
    return run.model(state["best_generation"])


def _gate(run: RunFolder, config: RLConfig, state: dict, log: Log,
          progress: bool = False) -> bool:
    """The gate match; promotes the candidate and returns True when it won."""
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
    log(f"rl: gate {cand_name} vs {best_name}: {decision}")
    warning = one_colour_wins(games)
    if warning:
        log(f"rl: gate: {warning}")
    _count_once(run, cand_name, best_name, decision)
    state["history"].append({"iteration": iteration, "candidate": cand_name, "best": best_name,
                             "wins": decision.wins, "games": decision.games,
                             "score": decision.score, "promoted": decision.promoted})
    if decision.promoted:
        generation = state["best_generation"] + 1
        _copy_model(run.candidate(iteration + 1), run.model(generation))
        state["best_generation"] = generation
        state.setdefault("aliases", {})[cand_name] = f"gen-{generation:04d}"
    return decision.promoted


def _rate(run: RunFolder, config: RLConfig, state: dict, generation: int, log: Log) -> None:
    """Matches of network ``generation`` against the anchors (match tool)
    and, with ``start_games``, against the run's first network; then the
    anchor games every generation rated before still lacks (a run resumed
    with a larger ``rate_games`` tops them all up to it, so the curve
    compares generations on as many games each)."""
    _rate_against_start(run, config, generation, log)
    rated = state.setdefault("rated", [])
    if config.rate_games >= 1:
        from imago.match.tool import find_gnugo

        engines = {"gnugo": find_gnugo(), "katago": _katago()}
        for earlier in [generation] + [g for g in rated if g != generation]:
            _rate_against_anchors(run, config, earlier, engines, log)
    if generation not in rated:
        rated.append(generation)


def _rate_against_anchors(run: RunFolder, config: RLConfig, generation: int,
                          engines: dict, log: Log) -> None:
    """The games network ``generation`` lacks of ``rate_games`` against each
    anchor (those of the ratings log count), played through the match tool
    and logged as one more result each."""
    from imago.match.cli import first_free_sgf
    from imago.match.tool import Match, MatchSettings, Referee

    name = f"gen-{generation:04d}"
    ratings = RatingLog(run.root)
    played: dict = {}
    for r in ratings.results():
        played[r.player, r.opponent] = played.get((r.player, r.opponent), 0) + r.games
    player = (f"{sys.executable} -m imago gtp -o model={run.model(generation).resolve()} "
              f"--visits {config.visits} --no-resign")
    for anchor in config.anchors:
        label, command = ANCHORS[anchor]
        before = played.get((name, label), 0)
        missing = config.rate_games - int(before)
        if missing <= 0:
            continue
        if engines[anchor] is None:
            log(f"rl: rating: {anchor} is not installed here; {name} is not rated against it")
            continue
        folder = str(run.root / "matches" / f"{name}-{label}")
        settings = MatchSettings(commands=(player, command.format(**engines)),
                                 names=(name, label), games=missing,
                                 size=config.size, komi=config.komi, sgf_dir=folder,
                                 first_sgf=first_free_sgf(folder))  # earlier games kept
        match = Match(settings, Referee())
        more = f" more (it has {before}, --rate-games {config.rate_games})" if before else ""
        log(f"rl: rating {name} against {label}, {missing} games{more}")
        match.play(out=lambda line: None)
        mine, theirs = match.stats
        ratings.append(MatchResult(name, label, mine.wins, mine.losses, mine.draws))
        log(f"rl: {name} against {label}: {mine.wins} wins, {mine.losses} losses")


def _rate_against_start(run: RunFolder, config: RLConfig, generation: int, log: Log) -> None:
    """``start_games`` games of network ``generation`` against gen-0000 at
    equal visits (the gate's match): does the run beat where it started?
    A chain of gates overstates that, each promotion being a match won by
    chance in part; this match does not. Its record counts in the ratings."""
    if config.start_games < 1 or generation == 0:
        return
    name, start = f"gen-{generation:04d}", "gen-0000"
    games = play_versus([str(run.model(generation)), str(run.model(0))], [name, start],
                        config.start_games, config.arena_settings(),
                        run.root / "matches" / f"{name}-{start}.jsonl",
                        run.root / "matches" / f"{name}-{start}",
                        seed=config.seed + 7919 * generation, log=log, what="rl: rating")
    decision = record_of(games, name, config.threshold)
    log(f"rl: {name} against the run's first network: {decision}")
    _count_once(run, name, start, decision)


def _count_once(run: RunFolder, player: str, opponent: str, decision: GateDecision) -> None:
    """Add ``player``'s record against ``opponent`` to the run's ratings,
    unless a resumed stage counted that match already."""
    ratings = RatingLog(run.root)
    if not any(r.player == player and r.opponent == opponent for r in ratings.results()):
        ratings.append(MatchResult(player, opponent, decision.wins, decision.losses,
                                   decision.draws))


def _report(run: RunFolder, state: dict, log: Log) -> None:
    """Refit the ratings from every result; the table, the curve, TensorBoard.
    A promoted candidate is its generation: its gate games count for it."""
    aliases = state.get("aliases", {})
    results = [replace(r, player=aliases.get(r.player, r.player),
                       opponent=aliases.get(r.opponent, r.opponent))
               for r in RatingLog(run.root).results()]
    if not results:
        return
    played = {name for r in results for name in (r.player, r.opponent)}
    zero_name = next((name for name in ELO_ZEROS if name in played), ELO_ZEROS[-1])
    zero = {zero_name: 0.0}
    ratings = fit_elo(results, zero)
    anchor_games = against(results, ANCHOR_NAMES)
    anchored = fit_elo(anchor_games, zero) if anchor_games else {}
    table = elo_table(ratings, anchored=anchored)
    (run.root / "elo.txt").write_text(table + "\n", encoding="utf-8")
    log(f"rl: ratings, {zero_name} at 0 (all matches; anchor games alone)\n" + table)
    generations = sorted({int(p[4:]) for p in ratings if p.startswith("gen-")})
    players = [(g, f"gen-{g:04d}") for g in generations]
    _plot(run, {"all matches": elo_history(ratings, players),
                "anchor games only": elo_history(anchored, players)}, zero, log)
    _scalars(run, state, ratings, anchored)


def _plot(run: RunFolder, curves: dict, zero: dict, log: Log) -> None:
    from imago.plotting import elo_curve_png, matplotlib_problem

    problem = matplotlib_problem()
    if problem is not None:
        log(f"rl: no Elo curve: {problem}")
        return
    png = elo_curve_png(curves, zero, "imago self-play: Elo by generation")
    tmp = run.root / ".elo.png.tmp"
    tmp.write_bytes(png)
    os.replace(tmp, run.root / "elo.png")


def _scalars(run: RunFolder, state: dict, ratings: dict, anchored: dict) -> None:
    from imago.nn.summaries import ScalarWriter

    writer = ScalarWriter(run.root / "tensorboard")
    if writer.problem:
        return
    step = state["iteration"]
    best = f"gen-{state['best_generation']:04d}"
    if best in ratings:
        writer.scalar("elo/best", ratings[best].elo, step)
    if best in anchored:
        writer.scalar("elo/best_anchor_games", anchored[best].elo, step)
    for key, value in (state.get("last_selfplay") or {}).items():
        if isinstance(value, (int, float)):
            writer.scalar(f"selfplay/{key}", value, step)
    for key, value in (state.get("last_train") or {}).items():
        writer.scalar(f"train/{key}", value, step)
    for key, value in (state.get("last_heldout") or {}).items():
        writer.scalar(f"heldout/{key}", value, step)
    if state["history"]:
        writer.scalar("gate/score", state["history"][-1]["score"], step)
    writer.close()


def _katago() -> Optional[str]:
    path = Path(__file__).resolve().parents[3] / "shared" / "engines" / "katago" / "katago-gtp"
    return str(path) if path.exists() else None


__all__ = ["RLConfig", "RunFolder", "start_run", "run_loop", "STAGES", "ANCHORS"]
