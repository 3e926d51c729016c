"""Command line of the benchmarks: ``python -m imago.bench [BENCHMARK ...] [options]``.

Parses the topics and options (:data:`imago.bench.OPTIONS`), refuses what
no chosen benchmark reads, and calls each topic's ``main`` with its options
as ``--quick`` and ``--name=VALUE``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import textwrap
from typing import Optional

from . import ABOUT, OPTIONS, TOPICS


def describe(topic: str) -> str:
    """One sentence on ``topic``: :data:`ABOUT`, else its docstring's first line."""
    if topic in ABOUT:
        return ABOUT[topic]
    try:
        doc = importlib.import_module(f"imago.bench.{topic}").__doc__ or ""
    except ImportError as err:
        return f"(not available: {err})"
    return doc.strip().splitlines()[0] if doc.strip() else ""


def build_parser() -> argparse.ArgumentParser:
    width = max(len(t) for t in TOPICS) + 1
    topics = "\n".join(textwrap.fill(describe(t), 79, initial_indent=f"  {t:<{width}}",
                                     subsequent_indent=" " * (width + 2)) for t in TOPICS)
    parser = argparse.ArgumentParser(
        prog="python -m imago.bench", formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Benchmarks of imago. Each prints medians of several runs and the ratios "
                    "between\nfigures measured in the same run (compare those: the machine "
                    "may be busy).",
        epilog=f"benchmarks (default: board):\n{topics}\n\nexample:\n"
               "  python -m imago.bench board sgf --quick\n"
               "  python -m imago.bench mcts --batch 16")
    parser.add_argument("topics", nargs="*", metavar="BENCHMARK",
                        help=f"what to measure: {', '.join(TOPICS)} (several run in turn)")
    for name, (readers, value, text) in OPTIONS.items():
        where = f"{', '.join(readers)}: " if readers else ""
        if value is None:
            parser.add_argument(f"--{name}", action="store_true", help=where + text)
        else:
            parser.add_argument(f"--{name}", metavar=value, help=where + text,
                                type=positive_int if value == "N" else str)
    return parser


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def given_option(args: argparse.Namespace, name: str):
    """The value of the option ``--name`` (None or False when not given)."""
    return getattr(args, name.replace("-", "_"))


def topic_argv(args: argparse.Namespace, topic: str) -> list[str]:
    """The options ``topic`` reads, as it reads them."""
    out = []
    for name, (readers, value, _) in OPTIONS.items():
        given = given_option(args, name)
        if given in (None, False) or (readers and topic not in readers):
            continue
        out.append(f"--{name}" if value is None else f"--{name}={given}")
    return out


def main(argv: Optional[list[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_intermixed_args(argv)
    topics = args.topics or ["board"]
    unknown = [t for t in topics if t not in TOPICS]
    if unknown:
        parser.error(f"unknown benchmark {unknown[0]!r}; choose from {', '.join(TOPICS)}")
    for name, (readers, _, _) in OPTIONS.items():
        if given_option(args, name) not in (None, False) and readers \
                and not set(readers) & set(topics):
            parser.error(f"--{name} is an option of {' and '.join(readers)}, which is not "
                         f"among the benchmarks asked for ({', '.join(topics)})")
    if args.model not in (None, "none"):
        if not os.path.isfile(args.model):
            parser.error(f"--model: no model file {args.model} (none: random playouts)")
        from imago.nn.modelfile import read_metadata

        try:
            read_metadata(args.model)
        except (OSError, ValueError) as err:
            parser.error(f"--model: {err}")
    if args.dir is not None and not os.path.isdir(args.dir):
        parser.error(f"--dir: no folder {args.dir}")
    for topic in topics:
        try:
            module = importlib.import_module(f"imago.bench.{topic}")
        except ImportError as err:
            print(f"benchmark {topic!r} is not available: {err}", file=sys.stderr)
            return 2
        status = module.main(topic_argv(args, topic))
        if status:
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
