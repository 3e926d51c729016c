"""The command lines ``train.py selfplay`` and ``train.py rl``: argument
parsing only; the work is in :mod:`.selfplay_run` and :mod:`.rl`."""

from __future__ import annotations

import argparse
import logging
import sys
from dataclasses import fields
from pathlib import Path
from typing import Optional

from .openings import OPENING_SHARE, opening_lines
from .options import HelpFormatter, command_name, model_argument
from .rl_config import ANCHORS, TRAIN_FROM, RLConfig, selfplay_settings_of
from .rl_trainer import MIX_SHARE, OTHER_SIZES_SHARE
from .search_play import SelfPlaySettings, komi_spread_problem

RL_DEFAULTS = RLConfig()
PLAY_DEFAULTS = SelfPlaySettings()

CLUSTER = ("Ray cluster: `ray start --head` on one machine, `ray start --address=HEAD:6379` on "
           "the others, then this command with --ray HEAD:6379 (needs pip install "
           "'imago[ray]').")


def _play_options(p: argparse.ArgumentParser, defaults) -> None:
    p.add_argument("--size", type=int, default=defaults.size, metavar="N", help="board size")
    p.add_argument("--komi", type=float, default=defaults.komi, help="komi for White")
    p.add_argument("--komi-spread", type=float, default=defaults.komi_spread, metavar="K",
                   help="each game's komi drawn from komi +- K (half points), so that a "
                        "network with the komi plane learns what komi changes (e.g. 5x5: "
                        "--komi 12 --komi-spread 12.5 plays from -0.5 to 24.5)")
    p.add_argument("--visits", type=int, default=defaults.visits, metavar="V",
                   help="visits of a full search (policy targets)")
    p.add_argument("--cheap-visits", type=int, default=defaults.cheap_visits, metavar="V",
                   help="visits of a cheap search (playout-cap randomisation)")
    p.add_argument("--full-share", type=float, default=defaults.full_share, metavar="P",
                   help="share of moves searched fully (1: every move)")
    p.add_argument("--parallel", type=int, default=defaults.parallel, metavar="N",
                   help="games each worker plays at once (sharing network calls)")
    p.add_argument("--no-prune-targets", dest="prune_targets", action="store_false",
                   help="policy targets are a full search's visits as they are, the ones "
                        "the root noise gave included (default: pruned, as KataGo does)")
    p.add_argument("--forced-playouts", type=float, default=defaults.forced_playouts,
                   metavar="K",
                   help="KataGo's forced playouts in full searches: each root move of prior "
                        "P (noise included) is read at least sqrt(K P N) times of N, so that "
                        "a move the network undervalues shows its worth; the policy target's "
                        "pruning takes back the visits it did not earn (0: none; KataGo's "
                        "self-play uses 2)")
    p.add_argument("--local-reading", action="store_true",
                   help="each full search's root (a policy target's) reads its closed-off "
                        "areas out (seki, eye spaces) and never plays the moves that lose "
                        "there, as imago does in play, so that the policy targets leave them "
                        "out; cheap searches do not read (default: off, the games as before)")
    p.add_argument("--workers", type=int, default=1, metavar="K",
                   help="worker processes (with --ray: Ray actors; default there: one per "
                        "CPU of the cluster); train.py rl also plays this many anchor games "
                        "at once")
    p.add_argument("--ray", metavar="ADDRESS",
                   help="run the workers as Ray actors on this cluster (HEAD:6379, or 'auto')")
    p.add_argument("--openings", nargs="+", default=[], metavar="SGF",
                   help="SGF files or folders of other players' games: a share of the games "
                        "starts after the first moves of one of them (between 1 and "
                        "--opening-moves, at most half the game), so that self-play meets "
                        "positions its own networks would not make")
    p.add_argument("--opening-share", type=float, default=OPENING_SHARE, metavar="S",
                   help="the share of games started from --openings")
    p.add_argument("--opening-moves", type=int, default=0, metavar="N",
                   help="the most moves of a game from --openings a game starts after (0: a "
                        "quarter of the board's points)")
    p.add_argument("--seed", type=int, default=1, metavar="N", help="random seed")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress bar")


def training_options(p: argparse.ArgumentParser, defaults) -> None:
    """The trainer's options of `train.py rl` and `train.py candidate`
    (``defaults``: an :class:`RLConfig` or an :class:`RLTrainConfig`)."""
    p.add_argument("--batch-size", type=int, default=defaults.batch_size, metavar="N",
                   help="positions per training step")
    p.add_argument("--optimizer", choices=["sgd", "adam"], default=defaults.optimizer,
                   help="SGD with momentum 0.9, or Adam")
    p.add_argument("--lr", dest="learning_rate", type=float, default=defaults.learning_rate,
                   metavar="RATE", help="learning rate")
    p.add_argument("--value-mix", type=float, default=defaults.value_mix, metavar="M",
                   help="value target: (1 - M) * the game's outcome + M * the searched value "
                        "(0: the outcome alone, as AlphaGo Zero)")
    p.add_argument("--mix", action="append", default=[],
                   metavar="SGF",
                   help="expert games (SGF files or folders; again for more) mixed into "
                        "every training batch, so that the network keeps what they taught "
                        "it (imported once into the cache; random openings in index.tsv "
                        "and the supervised training's validation games left out)")
    p.add_argument("--mix-share", type=float, default=MIX_SHARE, metavar="S",
                   help="the share of each batch drawn from the --mix games")
    p.add_argument("--other-sizes-share", type=float, default=OTHER_SIZES_SHARE, metavar="S",
                   help="the share of training steps given to whole batches of the --mix "
                        "games of the network's other board sizes (a network that plays "
                        "every size keeps them while it learns --size; 0: none)")


def selfplay_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=command_name("selfplay"), formatter_class=HelpFormatter,
        description="Play self-play games with the tree search and store them as replay\n"
                    "shards (OUT/replay) and SGF files (OUT/sgf). Running the same command\n"
                    "again plays only the games still missing.",
        epilog=CLUSTER)
    p.add_argument("--model", metavar="FILE", type=model_argument,
                   help="network (default: the shipped network of --size)")
    p.add_argument("--games", type=int, required=True, metavar="N",
                   help="games the folder should hold for this generation")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument("--generation", type=int, default=0, metavar="G",
                   help="generation number the games are stored under")
    p.add_argument("--resign-value", type=float, default=PLAY_DEFAULTS.resign_value,
                   metavar="V", help="resign below this searched value (-1: never)")
    p.add_argument("--no-resign-share", type=float, default=PLAY_DEFAULTS.no_resign_share,
                   metavar="P", help="share of games that never resign (they check the "
                                     "threshold)")
    _play_options(p, PLAY_DEFAULTS)
    return p


def rl_parser() -> argparse.ArgumentParser:
    d = RL_DEFAULTS
    p = argparse.ArgumentParser(
        prog=command_name("rl"), formatter_class=HelpFormatter,
        description="The AlphaGo Zero loop in folder --dir: self-play with the best network,\n"
                    "train a candidate on the replay window, gate it against the best,\n"
                    "rate promoted networks against GNU Go and KataGo. Starts a run, or\n"
                    "goes on with the one in --dir where it stopped (kill -9 included).",
        epilog=CLUSTER)
    p.add_argument("--dir", required=True, metavar="RUN", help="the run's folder")
    p.add_argument("--model", metavar="FILE", type=model_argument,
                   help="starting network of a new run (default: the shipped network "
                        "of --size)")
    p.add_argument("--new-size", action="store_true",
                   help="a new run may start from a network not trained on --size (one "
                        "that plays any size, as the multi-size network): the loop teaches "
                        "it that size, e.g. --size 5 --model models/multi.keras")
    p.add_argument("--iterations", type=int, metavar="N",
                   help="stop after N iterations (default: run until interrupted)")
    p.add_argument("--rate", type=int, nargs="+", metavar="GEN",
                   help="play no iteration: top up these generations' anchor games to "
                        "--rate-games each (e.g. the start and the best, to tell them "
                        "apart beyond the noise), refit the Elo table and curve, and stop; "
                        "it leaves the run's state alone, so it may run beside the loop "
                        "while that one plays or trains (not while it rates)")
    p.add_argument("--games", type=int, default=d.games, metavar="N",
                   help="self-play games per iteration")
    p.add_argument("--window", type=int, default=d.window, metavar="N",
                   help="replay window (newest positions trained on)")
    p.add_argument("--train-steps", type=int, default=d.train_steps, metavar="N",
                   help="training steps per iteration")
    training_options(p, d)
    p.add_argument("--train-from", choices=TRAIN_FROM, default=d.train_from,
                   help="latest: each candidate goes on from the previous one, promoted or "
                        "not (training accumulates, as AlphaGo Zero's); best: from the best "
                        "network each time")
    p.add_argument("--average", type=int, default=d.average, metavar="K",
                   help="the candidate the gate plays is the mean of the trainer's last K "
                        "outputs' weights (the trainer itself goes on from its own output, "
                        "kept as candidates/trained-NNNN.keras); 1: the trainer's output")
    p.add_argument("--heldout", nargs="+", default=d.heldout, metavar="DIR",
                   help="data folders of games (e.g. ../shared/data/katago9): each candidate "
                        "and the best network are measured on their held-out games (policy "
                        "top-1, value error) after training, a check that plays no games "
                        "(default: none)")
    p.add_argument("--heldout-positions", type=int, default=d.heldout_positions, metavar="N",
                   help="at most this many held-out positions per folder")
    p.add_argument("--gate-games", type=int, default=d.gate_games, metavar="N",
                   help="games of a candidate against the best network")
    p.add_argument("--threshold", type=float, default=d.threshold, metavar="P",
                   help="score share that promotes a candidate")
    p.add_argument("--gate-anchor-games", type=int, default=d.gate_anchor_games, metavar="N",
                   help="a candidate that wins its gate also plays N games against each "
                        "anchor (at --rate-visits) and is promoted only if it scores at "
                        "least the best network's share in its rating games; a promoted "
                        "one is rated on fresh games (0: the head-to-head gate alone)")
    p.add_argument("--rate-games", type=int, default=d.rate_games, metavar="N",
                   help="games of each promoted network against each anchor (0: none); "
                        "a resumed run with a larger N tops every generation rated "
                        "before up to N at its next rating")
    p.add_argument("--rate-visits", type=int, default=d.rate_visits, metavar="V",
                   help="visits a move of the networks' games against the anchors (0: "
                        "--visits, the full searches'); fixed once a run has anchor games. "
                        "More than self-play's where the anchors win or lose most games "
                        "at that figure: the ratings then tell generations apart on fewer "
                        "games")
    p.add_argument("--start-games", type=int, default=d.start_games, metavar="N",
                   help="games of each promoted network against the run's first one at equal "
                        "visits (0: none; 100 measures what the loop gained, which the chain "
                        "of gates overstates)")
    p.add_argument("--anchors", nargs="*", default=d.anchors, choices=tuple(ANCHORS),
                   help="fixed opponents for the ratings")
    p.add_argument("--resign-value", type=float, default=d.resign_value, metavar="V",
                   help="starting resignation threshold (searched value; -1: never resign); "
                        "the loop moves it towards 5%% false resignations")
    _play_options(p, d)
    return p


def selfplay_main(argv: list[str]) -> int:
    from .selfplay_run import run_selfplay

    parser = selfplay_parser()
    args = parser.parse_args(argv)
    settings = selfplay_settings_of(args, args.resign_value)
    problems = settings.problems() + _common_problems(args)
    if args.games < 1:
        problems.append(f"--games must be at least 1, not {args.games}")
    if problems:
        parser.error("; ".join(problems))
    model = _model(parser, args.model, args.size, args.komi_spread)
    try:
        openings = opening_lines(args.openings, args.size, settings.resolved().opening_moves,
                                 stderr_line)
        summary = run_selfplay(model, settings, args.games, args.out, workers=args.workers,
                               ray=args.ray, generation=args.generation, seed=args.seed,
                               progress=args.progress, log=stderr_line, openings=openings)
    except (OSError, ValueError) as err:
        print(f"{command_name('selfplay')}: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{command_name('selfplay')}: interrupted; the games stored are kept in {args.out}",
              file=sys.stderr)
        return 130
    if summary.games == 0:
        print(f"{args.out} holds {summary.already} games of generation {args.generation} "
              "already; nothing to play")
    else:
        print(summary.line())
    return 0


def rl_main(argv: list[str]) -> int:
    from .rl import run_loop, start_run
    from .rl_rating import rate_generations

    parser = rl_parser()
    args = parser.parse_args(argv)
    values = {f.name: getattr(args, f.name) for f in fields(RLConfig) if hasattr(args, f.name)}
    config = RLConfig(**values)
    given = {k: v for k, v in values.items() if k in _given_options(parser, argv)}
    problems = config.problems() + _common_problems(args)
    if args.iterations is not None and args.iterations < 1:
        problems.append(f"--iterations must be at least 1, not {args.iterations}")
    if args.rate is not None:
        problems += [f"--rate: generations are 0 or more, not {g}" for g in args.rate if g < 0]
        if not Path(args.dir, "run.json").exists():
            problems.append(f"--rate: no run in {args.dir} (its run.json is missing)")
    if problems:
        parser.error("; ".join(problems))
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    model = _model(parser, args.model, args.size)
    try:
        purpose = ("resuming" if args.rate is None else
                   f"rating generation {', '.join(map(str, args.rate))} of")
        run, config, state = start_run(args.dir, model, config, given, log=stderr_line,
                                        new_size=args.new_size, purpose=purpose)
        if args.rate is not None:
            rate_generations(run, config, state, args.rate, log=stderr_line,
                             progress=args.progress)
        else:
            run_loop(run, config, state, args.iterations, ray=args.ray, log=stderr_line,
                     progress=args.progress)
    except (OSError, ValueError) as err:
        print(f"{command_name('rl')}: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        name = command_name("rl")
        print(f"{name}: interrupted; `{name} --dir {args.dir}` goes on from here",
              file=sys.stderr)
        return 130
    return 0


def _given_options(parser: argparse.ArgumentParser, argv: list[str]) -> set[str]:
    """The destinations of the options written on the command line."""
    given = set()
    for action in parser._actions:
        for option in action.option_strings:
            if any(arg == option or arg.startswith(option + "=") for arg in argv):
                given.add(action.dest)
    return given


def _common_problems(args: argparse.Namespace) -> list[str]:
    out = []
    if args.workers < 1:
        out.append(f"--workers must be at least 1, not {args.workers}")
    if args.ray is not None:
        from .cluster import ray_problem

        problem = ray_problem()
        if problem:
            out.append(problem)
    return out


def _model(parser: argparse.ArgumentParser, model: Optional[str], size: int,
           komi_spread: float = 0.0) -> str:
    from imago.nn.evaluator import default_model_path
    from imago.nn.modelfile import read_metadata

    path = model or default_model_path(size)
    if path is None:
        parser.error("no --model given and the shipped network (or TensorFlow) is missing")
    try:
        meta = read_metadata(path)
    except (OSError, ValueError) as err:
        parser.error(f"--model: {err}")
    problem = komi_spread_problem(komi_spread, meta["plane_set"], path)
    if problem:
        parser.error(problem)
    return str(path)


def stderr_line(line: str) -> None:
    """A log line on stderr, flushed (the commands' log)."""
    print(line, file=sys.stderr, flush=True)


__all__ = ["selfplay_main", "rl_main", "selfplay_parser", "rl_parser",
           "training_options", "stderr_line"]
