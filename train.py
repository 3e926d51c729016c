#!/usr/bin/env python3
"""Train an imago network on SGF game records.

Example (the shipped 9x9 residual model; see models/README.md):

    python train.py ../shared/data/katago9 ../shared/data/gnugo9 \\
        --architecture residual --blocks 6 --filters 64 --epochs 20 \\
        --output models/residual9.keras

Only parses arguments; the work is in :mod:`imago.training.trainer`.
"""

from __future__ import annotations

import argparse
import logging
import sys


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Train an imago network on SGF game records (files, folders or globs).")
    p.add_argument("inputs", nargs="+", help="SGF files, folders (searched recursively) or globs")
    p.add_argument("--output", "-o", default="models/model.keras",
                   help="where to export the model (.keras, with a .json metadata sidecar)")
    p.add_argument("--architecture", "-a", choices=["residual", "conv", "dense"],
                   default="residual")
    p.add_argument("--planes", dest="plane_set", choices=["basic", "history", "extended"],
                   default="history", help="input plane set (stored with the model)")
    p.add_argument("--board-size", type=int, default=9, help="games of other sizes are skipped")
    p.add_argument("--blocks", type=int, default=6, help="residual blocks")
    p.add_argument("--filters", type=int, default=64, help="filters (residual and conv)")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--optimizer", choices=["adam", "sgd"], default="adam")
    p.add_argument("--lr", dest="learning_rate", type=float, default=1e-3)
    p.add_argument("--momentum", type=float, default=0.9, help="for --optimizer sgd")
    p.add_argument("--schedule", choices=["cosine", "constant"], default="cosine",
                   help="learning-rate schedule over the epochs")
    p.add_argument("--l2", type=float, default=1e-4, help="L2 weight penalty")
    p.add_argument("--policy-weight", type=float, default=1.0)
    p.add_argument("--value-weight", type=float, default=1.0)
    p.add_argument("--ownership-weight", type=float, default=1.0)
    p.add_argument("--validation", type=float, default=0.1,
                   help="fraction of games held out for validation (split by game)")
    p.add_argument("--cache", dest="cache_dir", default=None,
                   help="sample cache folder (default $IMAGO_CACHE or ~/.cache/imago)")
    p.add_argument("--checkpoint-dir", default=None,
                   help="default: CACHE/checkpoints/OUTPUT-NAME")
    p.add_argument("--resume", action="store_true", help="continue from the last checkpoint")
    p.add_argument("--init", default=None, metavar="MODEL",
                   help="start from this trained model instead of a new network "
                        "(its architecture and plane set are used)")
    p.add_argument("--train-heads", nargs="+", choices=["policy", "value", "ownership"],
                   default=None, metavar="HEAD",
                   help="train only these heads (policy, value, ownership); the rest of "
                        "the network is frozen and the other losses are off")
    p.add_argument("--logdir", default=None, help="TensorBoard log folder")
    p.add_argument("--gnugo-dead", dest="dead", action="store_const", const="gnugo",
                   default="markup",
                   help="ask GNU Go which stones are dead at the end of records without "
                        "TB/TW markup (answers cached); default: all stones alive")
    p.add_argument("--max-games", type=int, default=None, help="use only the first N files")
    p.add_argument("--time-limit", type=float, default=None,
                   help="minutes; stop between epochs when the next would not fit")
    p.add_argument("--no-augment", dest="augment", action="store_false",
                   help="do not apply random board symmetries")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--verbose", type=int, choices=[0, 1, 2], default=1,
                   help="Keras verbosity: 1 progress bars, 2 one line per epoch")
    return p.parse_args(argv)


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    from imago.training.trainer import TrainConfig, train

    try:
        train(TrainConfig(**vars(args)))
    except (ValueError, FileNotFoundError) as err:
        print(f"train.py: {err}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
