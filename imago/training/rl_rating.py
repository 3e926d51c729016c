"""The loop's ratings: each promoted network against the fixed anchors
(GNU Go level 10, KataGo at 1 visit, through the match tool) and against
the run's first network, every result in ``RUN/ratings.jsonl``, and the
Elo table (``RUN/elo.txt``), curve (``RUN/elo.png``) and TensorBoard
scalars refitted from them (:mod:`imago.training.rl` runs the stages)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Optional

from imago.fileio import replacing

from .rl_config import ANCHOR_NAMES, ANCHORS, RLConfig, RunFolder
from .rating import (GateDecision, MatchResult, RatingLog, against, elo_history, elo_table,
                     fit_elo, wilson_interval)
from .selfplay_run import progress_bar
from .versus import play_versus, record_of

Log = Callable[[str], Any]

ELO_ZEROS = tuple(name for name, _ in ANCHORS.values()) + ("gen-0000",)
"""The players that can be the zero of a run's Elo scale, the first that
played a game taken: GNU Go level 10 where it played, else KataGo
(``--anchors katago``), else the run's first network (no anchor games,
``--rate-games 0``): a zero with no games would leave every rating at the
fit's prior, about ± 700 Elo."""


def rate(run: RunFolder, config: RLConfig, state: dict, generation: int, log: Log,
         progress: bool = False) -> None:
    """Matches of network ``generation`` against the anchors (match tool)
    and, with ``start_games``, against the run's first network; then the
    anchor games every generation rated before still lacks (a run resumed
    with a larger ``rate_games`` tops them all up to it, so the curve
    compares generations on as many games each)."""
    _rate_against_start(run, config, generation, log)
    rated = state.setdefault("rated", [])
    if config.rate_games >= 1:
        state["anchor_visits"] = config.anchor_visits()  # start_run kept it if games exist
        anchors, engines = _installed_anchors(config, log)
        for earlier in [generation] + [g for g in rated if g != generation]:
            _rate_against_anchors(run, config, earlier, anchors, engines, log, progress)
    if generation not in rated:
        rated.append(generation)


def rate_generations(run: RunFolder, config: RLConfig, state: dict, generations: list[int],
                     log: Log, progress: bool = False) -> None:
    """The anchor games the run's ``generations`` lack of ``rate_games``
    each, then the table and curve refitted (``train.py rl --rate``): more
    games on the generations a question is about (did the run rise above
    its start?) without waiting for the loop's next rating. It writes the
    ratings log, the matches and the table, never the run's state, so it
    may run beside the run's loop while that one plays or trains. ValueError
    for a generation the run does not have, or with no anchor to play."""
    absent = [g for g in generations if not run.model(g).exists()]
    if absent:
        have = sorted(int(p.stem[4:]) for p in (run.root / "models").glob("gen-*.keras"))
        raise ValueError(f"{run.root} has no generation {', '.join(map(str, absent))} "
                         f"(its generations: {', '.join(map(str, have)) or 'none'})")
    if config.rate_games < 1:
        raise ValueError("rating asks for --rate-games of 1 or more")
    anchors, engines = _installed_anchors(config, log)
    if not anchors:
        raise ValueError(f"none of the run's anchors ({', '.join(config.anchors)}) is "
                         "installed here")
    for generation in dict.fromkeys(generations):
        _rate_against_anchors(run, config, generation, anchors, engines, log, progress)
    report(run, state, log)


def _installed_anchors(config: RLConfig, log: Log) -> tuple[list[str], dict]:
    """The run's anchors installed here, and the programs' paths by anchor;
    each missing one is said."""
    from imago.match.tool import find_gnugo

    engines = {"gnugo": find_gnugo(), "katago": _katago()}
    anchors = [anchor for anchor in config.anchors if engines[anchor] is not None]
    for anchor in config.anchors:
        if anchor not in anchors:
            log(f"rl: {anchor} is not installed here; no network plays it")
    return anchors, engines


def _rate_against_anchors(run: RunFolder, config: RLConfig, generation: int,
                          anchors: list[str], engines: dict, log: Log,
                          progress: bool = False) -> None:
    """The games network ``generation`` lacks of ``rate_games`` against each
    of ``anchors`` (those of the ratings log count), played through the
    match tool (``engines``: the programs' paths) and logged as one more
    result each."""
    name = f"gen-{generation:04d}"
    for anchor in anchors:
        result = _top_up(run, config, run.model(generation), name, anchor, engines,
                         RatingLog(run.root), ("rl: rating", "--rate-games", config.rate_games),
                         _anchor_seed(config, generation), log, progress)
        if result is not None:
            log(f"rl: {name} against {result.opponent}: {result.wins} wins, "
                f"{result.losses} losses")


def _top_up(run: RunFolder, config: RLConfig, model: Path, name: str, anchor: str,
            engines: dict, results: RatingLog, what: tuple[str, str, int], seed: str,
            log: Log, progress: bool = False) -> Optional[MatchResult]:
    """The games ``name`` (the network at ``model``) still lacks against
    ``anchor`` in the log ``results`` (``what``: the stage's words, its
    option and the games it asks for), played by :func:`_anchor_match`;
    None when it has them all."""
    stage, option, wanted = what
    label = ANCHORS[anchor][0]
    _, before = _points(results.results(), name, label)
    missing = wanted - int(before)
    if missing <= 0:
        return None
    more = f" more (it has {before:g}, {option} {wanted})" if before else ""
    log(f"{stage} {name} against {label}, {missing} games{more}, "
        f"{config.anchor_visits()} visits a move")
    return _anchor_match(run, config, model, name, anchor, engines, missing, seed, results,
                         log, progress)


FORFEITS = ("crash", "illegal", "time")
"""The match tool's reasons for a game lost by an engine's failure."""


def _anchor_match(run: RunFolder, config: RLConfig, model: Path, name: str, anchor: str,
                  engines: dict, games: int, seed: str, results: RatingLog,
                  log: Log, progress: bool = False) -> MatchResult:
    """``games`` games of the network at ``model`` (as ``name``, imago's
    player at the anchor visits, seeded by the template ``seed``) against
    ``anchor`` through the match tool, ``workers`` of them at once, the SGF
    files in ``RUN/matches/NAME-ANCHOR/`` numbered on after those there; its
    record, logged to ``results``. A match stopped (Ctrl-C, SIGTERM) logs
    the games it finished, so that a resumed stage plays only the rest (the
    games in play when it stopped are not counted). A progress bar (a line
    a minute in a log) counts the games and the network's wins; a game
    lost by an engine's failure (crash, illegal move, time) is logged with
    what went wrong."""
    from imago.match.cli import first_free_sgf
    from imago.match.tool import Match, MatchSettings, Referee

    label, command = ANCHORS[anchor]
    player = (f"{sys.executable} -m imago gtp -o model={model.resolve()} "
              f"--visits {config.anchor_visits()} --no-resign --seed {seed}")
    folder = str(run.root / "matches" / f"{name}-{label}")
    settings = MatchSettings(commands=(player, command.format(**engines)),
                             names=(name, label), games=games,
                             size=config.size, komi=config.komi, sgf_dir=folder,
                             first_sgf=first_free_sgf(folder),  # earlier games kept
                             concurrent=max(1, config.workers or 1))
    match = Match(settings, Referee())

    def result() -> MatchResult:
        mine, _ = match.stats
        return MatchResult(name, label, mine.wins, mine.losses, mine.draws)

    bar = progress_bar(games, 0, progress, f"rl: {name} vs {label}", "game")

    def counted(line: str) -> None:
        if any(f"({reason}," in line for reason in FORFEITS):
            log(f"rl: {name} vs {label}, {line}")
        bar.set_postfix_str(f"{name} won {match.stats[0].wins}", refresh=False)
        bar.update(1)

    try:
        match.play(out=counted)
    except KeyboardInterrupt:
        if match.played:
            results.append(result())
        raise
    finally:
        bar.close()
    record = result()
    results.append(record)
    return record


GATE_ANCHOR_LOG = "gate-anchor.jsonl"
"""The candidates' anchor games of :func:`anchor_gate`, kept apart from
``ratings.jsonl``: a network promoted for its good anchor games would carry
that luck into its rating, so a promoted one is rated on fresh games."""


def anchor_gate(run: RunFolder, config: RLConfig, state: dict, iteration: int,
                log: Log, progress: bool = False) -> dict:
    """The anchor half of the gate (``gate_anchor_games``): the candidate of
    ``iteration`` plays that many games against each installed anchor at
    the anchor visits, and passes where its score share is at least the
    best network's in its rating games against that anchor: a candidate
    that beats its parent without gaining against a fixed opponent is
    kept out (on 13x13 such promotions left the curve flat; README, rl13v).
    The games logged count: a check stopped mid-match (its finished games
    logged) or short of games plays only those still missing.
    Returns ``{anchor label: {"candidate": [points, games], "best": [points,
    games], "passed": bool}}`` (empty: nothing to compare)."""
    cand = f"cand-{iteration + 1:04d}"
    best = f"gen-{state['best_generation']:04d}"
    anchors, engines = _installed_anchors(config, log)
    ratings = RatingLog(run.root).results()
    gate_log = RatingLog(run.root, GATE_ANCHOR_LOG)
    verdicts: dict = {}
    for anchor in anchors:
        label = ANCHORS[anchor][0]
        best_points, best_games = _points(ratings, best, label)
        if not best_games:
            log(f"rl: gate: {best} has no games against {label} to compare {cand} with")
            continue
        _top_up(run, config, run.candidate(iteration + 1), cand, anchor, engines, gate_log,
                ("rl: gate:", "--gate-anchor-games", config.gate_anchor_games),
                _candidate_anchor_seed(config, iteration + 1), log, progress)
        points, games = _points(gate_log.results(), cand, label)
        passed = points / games >= best_points / best_games if games else False
        verdicts[label] = {"candidate": [points, games], "best": [best_points, best_games],
                           "passed": passed}
        log(f"rl: gate: against {label} {cand} {_share(points, games)}, {best} "
            f"{_share(best_points, best_games)}: {'passed' if passed else 'failed'}")
    return verdicts


def _points(results: list[MatchResult], player: str, opponent: str) -> tuple[float, float]:
    """``player``'s points (a draw half a win) and games against ``opponent``."""
    mine = [r for r in results if (r.player, r.opponent) == (player, opponent)]
    return (sum(r.wins + r.draws / 2 for r in mine), sum(r.games for r in mine))


def _share(points: float, games: float) -> str:
    """``points`` of ``games`` in words, with the share's 95% interval."""
    if not games:
        return "no games counted"
    low, high = wilson_interval(points, games)
    return (f"{points:g} of {games:g} ({100 * points / games:.0f}%, 95% "
            f"{100 * low:.0f}-{100 * high:.0f}%)")


def _anchor_seed(config: RLConfig, generation: int) -> str:
    """The seed of network ``generation``'s player in its anchor games, as
    the match tool's command template: the run's seed, the generation and
    the game number (``{game}``, numbered on across top-ups), so that every
    anchor game of a run repeats on the network's side."""
    return f"{config.seed}{generation:04d}{{game}}"


def _candidate_anchor_seed(config: RLConfig, iteration: int) -> str:
    """The seed template of candidate ``iteration``'s anchor games in the
    gate: as :func:`_anchor_seed`, with an 8 before the number, so that no
    generation's rating repeats its candidate's games."""
    return f"{config.seed}8{iteration:04d}{{game}}"


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
    count_once(run, name, start, decision)


def anchor_visits_problem(run: RunFolder, state: dict, before: RLConfig,
                          after: RLConfig) -> Optional[str]:
    """Why a resumed run may not rate at ``after``'s anchor visits, or None:
    its anchor games were played at another figure (the state's, else
    ``before``'s, the settings they were played with), and a generation's
    count of anchor games would mix the two (every generation would no
    longer be rated alike)."""
    played = state.get("anchor_visits", before.anchor_visits())
    if played == after.anchor_visits():
        return None
    if not against(RatingLog(run.root).results(), ANCHOR_NAMES):
        return None
    return (f"the run's anchor games were played at {played} visits a move, and this "
            f"command would rate at {after.anchor_visits()}: give --rate-visits {played} to "
            f"go on rating alike (--visits alone sets the self-play and gate searches), or "
            f"start a new run folder to rate at another figure")


def count_once(run: RunFolder, player: str, opponent: str, decision: GateDecision) -> None:
    """Add ``player``'s record against ``opponent`` to the run's ratings,
    unless a resumed stage counted that match already."""
    ratings = RatingLog(run.root)
    if not any(r.player == player and r.opponent == opponent for r in ratings.results()):
        ratings.append(MatchResult(player, opponent, decision.wins, decision.losses,
                                   decision.draws))


def report(run: RunFolder, state: dict, log: Log) -> None:
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
    with replacing(run.root / "elo.png", binary=True) as fh:
        fh.write(png)


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


__all__ = ["ELO_ZEROS", "GATE_ANCHOR_LOG", "rate", "rate_generations", "anchor_gate",
           "count_once", "report"]
