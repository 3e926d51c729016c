"""Train an imago network on SGF game records, or learn from self-play.

    python train.py FILES...            supervised training on records
    python train.py selfplay ...        self-play games only (--help for the options)
    python train.py rl --dir RUN ...    the AlphaGo Zero loop (--help for the options)
    python train.py stream --dir RUN FILES...
                                        one network for several board sizes, streamed
                                        and resumable (--help for the options)
    python train.py heldout --model M FOLDERS...
                                        networks measured on the games a stream run
                                        holds out, per folder and board size
    python train.py versus A.keras B.keras --out DIR
                                        two networks head to head at equal visits
                                        (the loop's gate as a command, resumable)
    python train.py average OUT.keras A.keras B.keras ...
                                        a network whose weights are the mean of
                                        several (continuations of one parent)
    python train.py candidate --model M --replay DIR --out FILE
                                        a network continued on self-play shards
                                        (the loop's trainer as a command)
    python train.py recount RUN         a self-play folder's outcome labels made
                                        again by today's count

Example (the shipped 9x9 residual model; see models/README.md):

    python train.py ../shared/data/katago9 ../shared/data/gnugo9 \\
        --architecture residual --planes extended --blocks 6 --filters 64 --epochs 40 \\
        --output models/my9.keras

Only parses arguments; the work is in :mod:`imago.training.trainer` and
the subcommands' modules. ``train.py`` in a checkout and ``imago train``
once installed both come here.
"""

from __future__ import annotations

import argparse
import logging
import sys

from imago.nn.features import PLANE_SETS
from .options import (ARCHITECTURES, HEADS, NETWORK_DEFAULTS, HelpFormatter, TrainConfig,
                      command_name, model_argument, set_command_name)
from .signals import terminate_as_interrupt

DEFAULTS = TrainConfig.defaults()
FROM_MODEL = "or the --init model's, or the --resume checkpoint's"


def parse_args(argv: list[str]) -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    name = command_name()
    p = argparse.ArgumentParser(
        prog=name, formatter_class=HelpFormatter,
        description="Train an imago network on SGF game records (files, folders or globs).\n"
                    "Bad files are named and skipped; a checkpoint is kept after every epoch\n"
                    f"(--resume goes on from it). Self-play: `{name} selfplay --help` and\n"
                    f"`{name} rl --help` (the AlphaGo Zero loop); several board sizes in\n"
                    f"one network: `{name} stream --help`; networks measured on held-out\n"
                    f"games: `{name} heldout --help`; two networks head to head:\n"
                    f"`{name} versus --help`; a network continued on self-play games:\n"
                    f"`{name} candidate --help`; the mean of several networks' weights:\n"
                    f"`{name} average --help`; a self-play folder's labels counted again:\n"
                    f"`{name} recount --help`.",
        epilog=f"example:\n  {name} ../shared/data/katago9 ../shared/data/gnugo9 "
               "--planes extended --epochs 40 \\\n      --output models/my9.keras --logdir runs/")
    p.add_argument("inputs", nargs="+",
                   help="SGF files, folders (searched recursively for *.sgf) or globs; an "
                        "index.tsv beside the files says how many random opening moves to skip")
    p.add_argument("--output", "-o", metavar="FILE", default=DEFAULTS["output"],
                   help="the model file to write (.keras, with a .json metadata file beside "
                        "it); its folder is made if missing")
    p.add_argument("--architecture", "-a", choices=ARCHITECTURES,
                   help=f"network (default: {NETWORK_DEFAULTS['architecture']}, {FROM_MODEL})")
    p.add_argument("--planes", dest="plane_set", choices=tuple(PLANE_SETS),
                   help=f"input plane set, stored with the model (default: "
                        f"{NETWORK_DEFAULTS['plane_set']}, {FROM_MODEL})")
    p.add_argument("--board-size", metavar="N", type=int, default=DEFAULTS["board_size"],
                   help="games of other sizes are skipped")
    p.add_argument("--blocks", metavar="N", type=int,
                   help=f"residual blocks (default: {NETWORK_DEFAULTS['blocks']}, {FROM_MODEL})")
    p.add_argument("--filters", metavar="N", type=int,
                   help=f"filters of the residual and conv networks (default: "
                        f"{NETWORK_DEFAULTS['filters']}, {FROM_MODEL})")
    p.add_argument("--epochs", metavar="N", type=int, default=DEFAULTS["epochs"],
                   help="passes over the training samples (with --resume: in all)")
    p.add_argument("--batch-size", metavar="N", type=int, default=DEFAULTS["batch_size"],
                   help="samples per training step")
    p.add_argument("--optimizer", choices=["adam", "sgd"], default=DEFAULTS["optimizer"],
                   help="Adam, or SGD with Nesterov momentum")
    p.add_argument("--lr", dest="learning_rate", metavar="RATE", type=float,
                   default=DEFAULTS["learning_rate"],
                   help="learning rate of the first epoch")
    p.add_argument("--momentum", metavar="M", type=float, default=DEFAULTS["momentum"],
                   help="for --optimizer sgd")
    p.add_argument("--schedule", choices=["cosine", "constant"], default=DEFAULTS["schedule"],
                   help="learning-rate schedule over the epochs (cosine: down to 1%%)")
    p.add_argument("--l2", metavar="L2", type=float, default=DEFAULTS["l2"],
                   help="L2 weight penalty")
    for head in HEADS:
        p.add_argument(f"--{head}-weight", type=float, metavar="W",
                       default=DEFAULTS[f"{head}_weight"],
                       help=f"weight of the {head} loss")
    p.add_argument("--validation", metavar="FRACTION", type=float,
                   default=DEFAULTS["validation"],
                   help="fraction of games held out for validation (split by game)")
    p.add_argument("--cache", dest="cache_dir", metavar="DIR",
                   help="sample cache folder (default: $IMAGO_CACHE or ~/.cache/imago)")
    p.add_argument("--checkpoint-dir", metavar="DIR",
                   help="where the checkpoint of every epoch goes (default: "
                        "CACHE/checkpoints/NAME for --output .../NAME.keras)")
    p.add_argument("--resume", action="store_true",
                   help="go on from the last checkpoint of this run; options that contradict "
                        "it are refused")
    p.add_argument("--init", metavar="MODEL", type=model_argument,
                   help="start from this trained model instead of a new network (its "
                        "architecture and plane set are used; default: a new network)")
    p.add_argument("--train-heads", nargs="+", choices=HEADS, metavar="HEAD",
                   help="with --init: train only these heads (policy, value, ownership); the "
                        "rest of the network is frozen and the other losses are off "
                        "(default: all)")
    p.add_argument("--logdir", metavar="DIR", help="TensorBoard log folder (default: no logs)")
    p.add_argument("--gnugo-dead", dest="dead", action="store_const", const="gnugo",
                   default=DEFAULTS["dead"],
                   help="ask GNU Go which stones are dead at the end of records without "
                        "TB/TW markup (answers cached); default: all such stones alive")
    p.add_argument("--max-games", metavar="N", type=int,
                   help="use only the first N files (default: all)")
    p.add_argument("--time-limit", type=float, metavar="MINUTES",
                   help="stop between epochs when the next would not fit (default: none)")
    p.add_argument("--no-augment", dest="augment", action="store_false",
                   help="do not apply random board symmetries")
    p.add_argument("--seed", metavar="N", type=int, default=DEFAULTS["seed"],
                   help="random seed of the weights and batches")
    p.add_argument("--verbose", type=int, choices=[0, 1, 2], default=DEFAULTS["verbose"],
                   help="Keras output: 0 none, 1 progress bars, 2 one line per epoch")
    return p, p.parse_args(argv)


SUBCOMMANDS = {"selfplay": ("rl_cli", "selfplay_main"), "rl": ("rl_cli", "rl_main"),
               "stream": ("stream_cli", "stream_main"), "heldout": ("heldout", "heldout_main"),
               "versus": ("versus", "versus_main"), "average": ("average", "average_main"),
               "candidate": ("candidate_cli", "candidate_main"),
               "recount": ("recount", "recount_main")}
"""First words that name a subcommand, and its module and function (a
records folder called so: ./rl)."""


def main(argv: list[str], prog: str = "train.py") -> int:
    """Run the training command ``argv`` (supervised training on records,
    or the subcommand its first word names), called ``prog``; the exit code."""
    set_command_name(prog)
    with terminate_as_interrupt():
        return _run(argv)


def _run(argv: list[str]) -> int:
    if argv and argv[0] in SUBCOMMANDS:
        from importlib import import_module

        module, function = SUBCOMMANDS[argv[0]]
        return getattr(import_module(f"imago.training.{module}"), function)(argv[1:])
    parser, args = parse_args(argv)
    config = TrainConfig(**vars(args))
    try:
        config.check()
    except ValueError as err:
        parser.error(str(err))
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    from imago.training.trainer import train

    try:
        train(config)
    except (ValueError, OSError) as err:
        print(f"{command_name()}: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0

