"""Command line of the benchmarks: ``python -m imago.bench [TOPIC ...]``."""

from __future__ import annotations

import importlib
import sys

from . import TOPICS


def main(argv: list[str]) -> int:
    topics = [a for a in argv if not a.startswith("-")] or ["board"]
    options = [a for a in argv if a.startswith("-")]
    if "-h" in options or "--help" in options:
        print(f"usage: python -m imago.bench [{'|'.join(TOPICS)} ...] [--quick]")
        return 0
    for topic in topics:
        if topic not in TOPICS:
            print(f"unknown benchmark {topic!r}; choose from {', '.join(TOPICS)}", file=sys.stderr)
            return 2
    for topic in topics:
        try:
            module = importlib.import_module(f"imago.bench.{topic}")
        except ImportError as err:
            print(f"benchmark {topic!r} is not available: {err}", file=sys.stderr)
            return 2
        status = module.main(options)
        if status:
            return status
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
