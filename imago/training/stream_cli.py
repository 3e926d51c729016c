"""The command line ``train.py stream``: argument parsing only; the work is
in :mod:`.stream_run`."""

from __future__ import annotations

import argparse
import logging
import sys

from imago.nn.features import PLANE_SETS

from .options import HelpFormatter, command_name, model_argument
from .stream_run import StreamConfig, run_stream

DEFAULTS = StreamConfig(inputs=[], run_dir="")


def sizes_list(text: str) -> list[int]:
    try:
        sizes = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        raise argparse.ArgumentTypeError(f"sizes are numbers separated by commas, not "
                                         f"{text!r}") from None
    return sizes


def stream_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=command_name("stream"), formatter_class=HelpFormatter,
        description="Train one network on records of several board sizes at once, streaming\n"
                    "bit-packed shards from the cache (the data need not fit in memory).\n"
                    "Every --checkpoint-every steps the run folder gets a checkpoint and the\n"
                    "validation figures per size; the same command resumes a stopped run at\n"
                    "that step exactly, and a larger --steps trains a finished run further.",
        epilog="example (the multi-size network, see models/README.md):\n"
               "  python train.py stream --dir runs/multi --init models/residual9.keras \\\n"
               "      ../shared/data/katago9 ../shared/data/gnugo9 ../shared/data/katago13 \\\n"
               "      ../shared/data/katago19 ../shared/data/ai19 --steps 20000 "
               "--output models/multi.keras")
    p.add_argument("inputs", nargs="+", help="SGF files, folders or globs (every size)")
    p.add_argument("--dir", dest="run_dir", required=True, metavar="RUN",
                   help="the run folder (made if missing; resumed if it holds a run)")
    p.add_argument("--sizes", type=sizes_list, default=DEFAULTS.sizes, metavar="S,S,...",
                   help="board sizes to learn (games of other sizes are skipped)")
    p.add_argument("--size-shares", metavar="S:W,...", default=DEFAULTS.size_shares,
                   help="each board size's share of the training batches, as weights, one for "
                        "each of --sizes (9:1,19:1: as many 9x9 batches as 19x19); each epoch "
                        "then uses every position of the size scarcest for its share and a "
                        "part of the others', drawn anew each epoch (default: each size in "
                        "proportion to its positions)")
    p.add_argument("--planes", dest="plane_set", choices=tuple(PLANE_SETS),
                   default=DEFAULTS.plane_set, help="input plane set (komi: komi as an input)")
    p.add_argument("--blocks", type=int, default=DEFAULTS.blocks, metavar="N",
                   help="residual blocks of a new network")
    p.add_argument("--filters", type=int, default=DEFAULTS.filters, metavar="N",
                   help="filters of a new network")
    p.add_argument("--init", metavar="MODEL", type=model_argument,
                   help="start a new run from this trained residual network's weights (those "
                        "that fit; default: random weights)")
    p.add_argument("--steps", type=int, default=DEFAULTS.steps, metavar="N",
                   help="training steps in all (one batch of one board size each)")
    p.add_argument("--batch-size", type=int, default=DEFAULTS.batch_size, metavar="N")
    p.add_argument("--optimizer", choices=["sgd", "adam"], default=DEFAULTS.optimizer,
                   help="SGD with Nesterov momentum, or Adam")
    p.add_argument("--lr", dest="learning_rate", type=float, default=DEFAULTS.learning_rate,
                   metavar="RATE", help="peak learning rate (short warm-up, cosine decay)")
    p.add_argument("--momentum", type=float, default=DEFAULTS.momentum, metavar="M")
    p.add_argument("--l2", type=float, default=DEFAULTS.l2, metavar="L2",
                   help="L2 weight penalty")
    for head in ("policy", "value", "ownership", "score"):
        p.add_argument(f"--{head}-weight", type=float, metavar="W",
                       default=getattr(DEFAULTS, f"{head}_weight"),
                       help=f"weight of the {head} loss")
    p.add_argument("--validation", type=float, default=DEFAULTS.validation,
                   metavar="FRACTION", help="share of games held out (split by game)")
    p.add_argument("--validation-positions", type=int, metavar="N",
                   default=DEFAULTS.validation_positions,
                   help="held-out positions measured per size at each checkpoint")
    p.add_argument("--checkpoint-every", type=int, metavar="STEPS",
                   default=DEFAULTS.checkpoint_every, help="steps between checkpoints")
    p.add_argument("--report-every", type=int, metavar="STEPS", default=DEFAULTS.report_every,
                   help="steps between loss reports")
    p.add_argument("--cache", dest="cache_dir", metavar="DIR",
                   help="shard cache (default: $IMAGO_CACHE or ~/.cache/imago)")
    p.add_argument("--workers", type=int, default=DEFAULTS.workers, metavar="N",
                   help="processes that read the SGF files into the shard cache the first "
                        "time (default: one a core)")
    p.add_argument("--gnugo-dead", dest="dead", action="store_const", const="gnugo",
                   default=DEFAULTS.dead,
                   help="ask GNU Go for the dead stones of records without TB/TW markup")
    p.add_argument("--output", "-o", metavar="FILE",
                   help="also write the final network here (default: RUN/model.keras only)")
    p.add_argument("--keep-models", action="store_true",
                   help="keep each checkpoint's network as RUN/model-STEP.keras (with its "
                        "validation figures), to choose among them later")
    p.add_argument("--no-augment", dest="augment", action="store_false",
                   help="no random symmetries or komi shifts")
    p.add_argument("--seed", type=int, default=DEFAULTS.seed, metavar="N")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="log lines instead of a progress bar")
    return p


def stream_main(argv: list[str]) -> int:
    parser = stream_parser()
    args = parser.parse_args(argv)
    config = StreamConfig(**vars(args))
    problems = config.problems()
    if problems:
        parser.error("; ".join(problems))
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    try:
        run_stream(config)
    except (ValueError, OSError) as err:
        print(f"{command_name('stream')}: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{command_name('stream')}: interrupted; the same command resumes at the last "
              "checkpoint", file=sys.stderr)
        return 130
    return 0


__all__ = ["stream_parser", "stream_main"]
