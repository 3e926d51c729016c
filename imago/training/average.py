"""``train.py average OUT.keras A.keras B.keras ... [--weights W ...]``: one
network whose weights are the mean of several, or another combination of
them (see :mod:`imago.nn.averaging`), saved with metadata naming its
parents, their shares and the command."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional, Sequence

from imago.nn.modelfile import read_metadata

from .options import HelpFormatter, command_name, model_argument
from .rl_trainer import PARENT_ONLY


def average_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=command_name("average"), formatter_class=HelpFormatter,
        description="Write a network whose weights are the element-wise mean of several\n"
                    "networks of the same shape (continuations of one parent: a model soup),\n"
                    "or with --weights any combination of them whose shares sum to 1.",
        epilog="examples (two continuations of rl9s; then a step past their mean):\n"
               "  python train.py average models/soup.keras runs/gv/model.keras "
               "runs/kt/model.keras\n"
               "  python train.py average past.keras models/soup.keras models/rl9s.keras "
               "--weights 1.5 -0.5")
    p.add_argument("output", metavar="OUT", help="the network to write (.keras and .json)")
    p.add_argument("models", metavar="MODEL", nargs="+", type=model_argument,
                   help="two or more .keras networks")
    p.add_argument("--weights", type=float, nargs="+", metavar="W",
                   help="each network's share, in the order given, summing to 1 (negative "
                        "shares step past the others; default: equal shares)")
    return p


def save_combination(output: str | Path, models: Sequence[str | Path],
                     shares: Sequence[float], command: str) -> Path:
    """Write ``output``: the combination of ``models`` with ``shares``
    (:func:`imago.nn.averaging.average_networks`), its metadata naming
    each parent, its share, date, command and metrics, and ``command``.
    ValueError when the networks differ in shape."""
    from imago.nn.averaging import average_networks

    net = average_networks(models, shares)
    parents = [{"model": str(path), "share": share,
                **{key: meta.get(key) for key in ("date", "command", "metrics")}}
               for path, share, meta in zip(models, shares, map(read_metadata, models))]
    # the first parent's record of its own training does not describe the mean
    net.metadata = {key: value for key, value in net.metadata.items() if key not in PARENT_ONLY}
    return net.save(output, command=command, averaged_from=parents)


def average_main(argv: Optional[list[str]] = None) -> int:
    args = average_parser().parse_args(argv)
    from imago.nn.averaging import combination_shares

    try:
        shares = combination_shares(len(args.models), args.weights)
        command = f"{command_name('average')} " + " ".join([args.output, *args.models])
        if args.weights is not None:
            command += " --weights " + " ".join(map(str, args.weights))  # every digit given
        path = save_combination(args.output, args.models, shares, command)
    except (OSError, ValueError) as err:
        print(f"{command_name('average')}: {err}", file=sys.stderr)
        return 1
    what = "the mean" if args.weights is None else "a weighted combination"
    print(f"{Path(path)}: {what} of {len(args.models)} networks' weights")
    return 0


__all__ = ["average_main", "average_parser", "save_combination"]
