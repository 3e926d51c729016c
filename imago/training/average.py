"""``train.py average OUT.keras A.keras B.keras ...``: one network whose
weights are the mean of several (see :mod:`imago.nn.averaging`), saved with
metadata naming its parents and the command."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

from imago.nn.modelfile import read_metadata

from .options import HelpFormatter

RUN_RECORD = ("command", "data", "metrics", "training", "date")
"""Metadata keys that describe how one network was trained."""


def average_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="train.py average", formatter_class=HelpFormatter,
        description="Write a network whose weights are the element-wise mean of several\n"
                    "networks of the same shape (continuations of one parent: a model soup).",
        epilog="example (two continuations of rl9s):\n"
               "  python train.py average models/soup.keras runs/gv/model.keras "
               "runs/kt/model.keras")
    p.add_argument("output", metavar="OUT", help="the network to write (.keras and .json)")
    p.add_argument("models", metavar="MODEL", nargs="+", help="two or more .keras networks")
    return p


def average_main(argv: Optional[list[str]] = None) -> int:
    args = average_parser().parse_args(argv)
    from imago.nn.averaging import average_networks

    try:
        net = average_networks(args.models)
        parents = [{"model": str(path), **{key: meta.get(key)
                                          for key in ("date", "command", "metrics")}}
                   for path, meta in zip(args.models, map(read_metadata, args.models))]
        # the first parent's record of its own training does not describe the mean
        net.metadata = {key: value for key, value in net.metadata.items()
                        if key not in RUN_RECORD}
        command = "train.py average " + " ".join([args.output, *args.models])
        path = net.save(args.output, command=command, averaged_from=parents)
    except (OSError, ValueError) as err:
        print(f"train.py average: {err}", file=sys.stderr)
        return 1
    print(f"{Path(path)}: the mean of {len(args.models)} networks' weights")
    return 0


__all__ = ["average_main", "average_parser"]
