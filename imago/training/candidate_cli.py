"""The command line ``train.py candidate``: one network continued on
self-play shards, outside the loop.

The loop's trainer stage (:func:`~imago.training.rl_trainer.train_candidate`)
as a command, so that a change to the training can be tried on games already
played and measured with ``train.py versus`` before a run uses it:

    python train.py selfplay --games 900 --out sp9
    python train.py candidate --model models/residual9.keras --replay sp9 --out try.keras
    python train.py versus try.keras models/residual9.keras --out vs-try

``--replay`` takes a ``train.py selfplay`` folder, a ``train.py rl`` run folder
(both hold ``replay/``) or a replay folder itself. Argument parsing only.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

from .options import HelpFormatter, command_name, model_argument
from .rl_cli import stderr_line, training_options
from .rl_trainer import RLTrainConfig, mix_problems

DEFAULTS = RLTrainConfig()


def candidate_parser() -> argparse.ArgumentParser:
    d = DEFAULTS
    p = argparse.ArgumentParser(
        prog=command_name("candidate"), formatter_class=HelpFormatter,
        description="Continue a network on self-play positions (replay shards) as the\n"
                    "self-play loop trains its candidates: policy against the searches'\n"
                    "visits, value against the outcome mixed with the searched value,\n"
                    "ownership and score, a random symmetry per position. Writes the\n"
                    "candidate and its .json atomically; measure it with train.py versus.",
        epilog="example (the loop's training, tried on games already played):\n"
               "  python train.py candidate --model models/residual9.keras --replay sp9 "
               "--out try.keras --steps 1200")
    p.add_argument("--model", required=True, metavar="FILE", type=model_argument,
                   help="the network to continue")
    p.add_argument("--replay", required=True, metavar="DIR",
                   help="self-play positions: a `train.py selfplay` or `train.py rl` folder "
                        "(its replay/ is used) or a folder of replay shards")
    p.add_argument("--out", required=True, metavar="FILE", help="the candidate (.keras)")
    p.add_argument("--size", type=int, default=9, metavar="N", help="board size")
    p.add_argument("--window", type=int, default=250_000, metavar="N",
                   help="train on the newest N positions of that size")
    p.add_argument("--steps", type=int, default=d.steps, metavar="N", help="training steps")
    training_options(p, d)
    for head in ("policy", "value", "ownership", "score"):
        p.add_argument(f"--{head}-weight", type=float,
                       default=getattr(d, f"{head}_weight"), metavar="W",
                       help=f"weight of the {head} loss (0: that head learns nothing itself)")
    p.add_argument("--seed", type=int, default=d.seed, metavar="N", help="random seed")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress bar")
    return p


def replay_folder(folder: str) -> Path:
    """The replay shards' folder for ``--replay``: ``DIR/replay`` when it
    exists (a self-play or run folder), else ``DIR``."""
    path = Path(folder)
    return path / "replay" if (path / "replay").is_dir() else path


def _problems(args: argparse.Namespace, config: RLTrainConfig) -> list[str]:
    problems = config.option_problems() + mix_problems(args.mix, args.mix_share)
    if not Path(args.model).is_file():
        problems.append(f"no model file {args.model}")
    if not Path(args.replay).is_dir():
        problems.append(f"no folder {args.replay}")
    if args.window < 1:
        problems.append(f"--window must be at least 1, not {args.window}")
    return problems


def candidate_main(argv: Optional[list[str]] = None) -> int:
    from .expert import training_mix
    from .replay import ReplayBuffer
    from .rl_trainer import train_with_progress

    parser = candidate_parser()
    args = parser.parse_args(argv)
    config = RLTrainConfig(
        steps=args.steps, batch_size=args.batch_size, optimizer=args.optimizer,
        learning_rate=args.learning_rate, value_mix=args.value_mix,
        policy_weight=args.policy_weight, value_weight=args.value_weight,
        ownership_weight=args.ownership_weight, score_weight=args.score_weight,
        mix_share=args.mix_share if args.mix else 0.0,
        other_sizes_share=args.other_sizes_share, seed=args.seed)
    problems = _problems(args, config)
    if problems:
        parser.error("; ".join(problems))
    buffer = ReplayBuffer(replay_folder(args.replay), window=args.window)
    try:
        mix, others = training_mix(args.mix, Path(args.model), args.size,
                                   config.other_sizes_share > 0, log=stderr_line,
                                   progress=args.progress)
        summary = train_with_progress(Path(args.model), buffer, Path(args.out), config,
                                      size=args.size, shown=args.progress, log=stderr_line,
                                      mix=mix, others=others)
    except (OSError, ValueError) as err:
        print(f"{command_name('candidate')}: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{command_name('candidate')}: interrupted; nothing was written", file=sys.stderr)
        return 130
    print(f"{summary['output']}: {summary['steps']} steps of {summary['batch_size']} on "
          f"{summary['window']['positions']} positions in {summary['seconds']:.0f} s")
    return 0


__all__ = ["candidate_main", "candidate_parser", "replay_folder"]
