"""Measure networks on held-out games: ``train.py heldout``.

The held-out games are the ones ``train.py stream`` leaves out of training
(a stable hash of each game's folder and file name, ``--validation`` of
them), so a network trained by a stream run is measured on games it never
saw. Figures come per data folder and board size: policy top-1 and entropy
(how spread the policy is: self-play narrows it, generation after
generation), value mean squared error (games with a winner), ownership sign
accuracy on the owned points of counted games, overall and by game phase
(the share of the board covered by stones), and the score lead's mean
absolute error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from imago.nn.features import SCORE_SCALE

from .data import HELDOUT_SHARE, default_cache_dir
from .heldout_search import PHASES, nothing_measured
from .options import HelpFormatter, command_name, model_argument
from .stream import (binary_plane_set, default_workers, make_batch, prepare_shards,
                     validation_samples)

PHASE_NAMES = ("<20%", "20-40%", "40-60%", "60%+")


def measure(net, rows: dict, size: int, plane_set: str, chunk: int = 256,
            averaged: bool = False) -> dict:
    """The figures of ``net`` on the samples ``rows`` of one board size
    (per-sample arrays as :func:`imago.training.stream.validation_samples`
    gives them), their planes made as ``plane_set``; with ``averaged``, of
    every head's mean over the 8 board symmetries (what imago's analysis
    reports as ownership)."""
    n = len(rows["moves"])
    sums = {"top1": 0.0, "entropy": 0.0, "value_se": 0.0, "value_n": 0.0, "score_ae": 0.0,
            "score_n": 0.0}
    own_hit, own_n = np.zeros(len(PHASES) + 1), np.zeros(len(PHASES) + 1)
    for start in range(0, n, chunk):
        part = {k: v[start:start + chunk] for k, v in rows.items()}
        x, y = make_batch(part, size, plane_set, net.heads, None)
        pred = net.evaluate_averaged(x) if averaged else net.evaluate(x)
        sums["top1"] += float((pred["policy"].argmax(1) == y["policy"]).sum())
        policy = pred["policy"].astype(np.float64)
        policy /= policy.sum(axis=1, keepdims=True)
        sums["entropy"] -= float((policy * np.log(np.maximum(policy, 1e-12))).sum())
        weight = y["value"][:, 1]
        sums["value_se"] += float((np.square(pred["value"] - y["value"][:, 0]) * weight).sum())
        sums["value_n"] += float(weight.sum())
        own, own_w = y["ownership"][:, :-1], y["ownership"][:, -1:]
        owned = (own != 0) * own_w
        hits = ((np.sign(pred["ownership"]) == own) * owned).sum(axis=1)
        phase = np.digitize(x[..., :2].sum(axis=(1, 2, 3)) / (size * size), PHASES)
        np.add.at(own_hit, phase, hits)
        np.add.at(own_n, phase, owned.sum(axis=1))
        if "score" in pred:
            w = y["score"][:, 1]
            sums["score_ae"] += float((np.abs(pred["score"] - y["score"][:, 0] * SCORE_SCALE)
                                       * w).sum())
            sums["score_n"] += float(w.sum())
    return {"positions": n, "top1": round(sums["top1"] / max(n, 1), 4),
            "policy_entropy": round(sums["entropy"] / max(n, 1), 3),
            "value_mse": round(sums["value_se"] / max(sums["value_n"], 1), 4),
            "valued_positions": int(sums["value_n"]),
            "ownership_accuracy": round(float(own_hit.sum() / max(own_n.sum(), 1)), 4),
            "score_mae": round(sums["score_ae"] / sums["score_n"], 2) if sums["score_n"] else None,
            "ownership_by_phase": [round(float(h / max(c, 1)), 4)
                                   for h, c in zip(own_hit, own_n)],
            "owned_points_by_phase": [int(c) for c in own_n]}


def heldout_figures(models: list[str], folders: list[str], validation: float = HELDOUT_SHARE,
                    positions: Optional[int] = None, cache_dir: Optional[Path] = None,
                    log: Callable[[str], None] = print, averaged: bool = False,
                    workers: Optional[int] = None) -> list[dict]:
    """One row of figures per folder, board size and model (the models'
    board sizes only; ``averaged``: over the 8 symmetries, see
    :func:`measure`); bad files are named through ``log`` and skipped. A
    folder new to the cache is read in ``workers`` processes (default one
    a core)."""
    from imago.nn.networks import load_network

    nets = [(model, load_network(model)) for model in models]
    sizes = sorted({9, 13, 19}.union(*(net.board_sizes for _, net in nets)))
    cache = Path(cache_dir) if cache_dir else default_cache_dir()
    rows = []
    for folder in folders:
        before = len(rows)
        held_by_planes: dict[str, dict] = {}
        for model, net in nets:
            planes = binary_plane_set(net.plane_set)
            if planes not in held_by_planes:
                shards, problems, _ = prepare_shards(
                    [folder], net.plane_set, sizes, cache,
                    workers=workers or default_workers())
                for problem in problems:
                    log(f"skipped: {problem}")
                held_by_planes[planes] = validation_samples(shards, validation,
                                                            positions or sys.maxsize)
            for size, samples in sorted(held_by_planes[planes].items()):
                if plays(net, size):
                    figures = measure(net, samples, size, net.plane_set, averaged=averaged)
                    rows.append({"folder": folder, "size": size, "model": model,
                                 "symmetries": 8 if averaged else 1, **figures})
                    log(format_row(rows[-1]))
        if len(rows) == before:
            log(nothing_measured(folder, len(models)))
    return rows


def plays(net, size: int) -> bool:
    """Whether ``net`` plays ``size`` boards (its metadata says so)."""
    try:
        net.check_size(size)
    except ValueError:
        return False
    return True


def format_row(row: dict) -> str:
    """One row as a line; a figure the games give no target for (no result,
    no counted end) reads ``none``, a phase without owned points ``-``."""
    phases = " ".join(f"{name} {value:.1%}" if owned else f"{name} -" for name, value, owned in
                      zip(PHASE_NAMES, row["ownership_by_phase"], row["owned_points_by_phase"]))
    turned = ", 8 symmetries" if row.get("symmetries", 1) > 1 else ""
    value = (f"{row['value_mse']:.3f}" if row["valued_positions"]
             else "none (no game with a result)")
    ownership = (f"{row['ownership_accuracy']:.1%} ({phases} of the board covered)"
                 if sum(row["owned_points_by_phase"]) else "none (no counted game)")
    return (f"{Path(row['folder']).name} {row['size']}x{row['size']} {Path(row['model']).name}"
            f"{turned}: "
            f"{row['positions']} positions, top-1 {row['top1']:.1%} (policy entropy "
            f"{row['policy_entropy']:.2f} nats), value {value}, ownership {ownership}, "
            + ("no score" if row["score_mae"] is None else f"score ±{row['score_mae']:.1f}"))


def heldout_main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(
        prog=command_name("heldout"), formatter_class=HelpFormatter,
        description="Measure networks on the games a stream run holds out (the same stable\n"
                    "split by folder and file name), per data folder and board size: policy\n"
                    "top-1, value error, ownership accuracy by game phase, score error.",
        epilog="examples:\n"
               "  python train.py heldout --model models/multi.keras ../shared/data/ai19 "
               "../shared/data/katago13\n"
               "  python train.py heldout --model models/multi.keras --visits 50 "
               "--positions 300 ../shared/data/katago19")
    p.add_argument("folders", nargs="+", help="data folders, each measured on its own")
    p.add_argument("--model", action="append", required=True, metavar="FILE",
                   type=model_argument,
                   help="a .keras network (repeat to compare several)")
    p.add_argument("--validation", type=float, default=HELDOUT_SHARE,
                   help="the share of games held out, as the stream run had it")
    p.add_argument("--positions", type=int, metavar="N",
                   help="at most this many positions per folder and size (a fixed random "
                        "choice; default: all)")
    p.add_argument("--symmetries", action="store_true",
                   help="average every head over the 8 board symmetries, as imago's analysis "
                        "does for ownership (8x the network time)")
    p.add_argument("--visits", type=int, metavar="V",
                   help="measure ownership after a search of V visits per position instead: "
                        "the network's and the search tree's (as analysis reports it), on "
                        "--positions positions (default 200) drawn from the held-out games")
    p.add_argument("--cache", dest="cache_dir", metavar="DIR",
                   help="shard cache (default: $IMAGO_CACHE or ~/.cache/imago)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="processes that read a folder new to the shard cache (default: one "
                        "a core; --visits reads the held-out games in this process)")
    args = p.parse_args(argv)
    if not 0 < args.validation < 1:
        p.error("--validation must be a fraction between 0 and 1")
    if args.positions is not None and args.positions < 1:
        p.error("--positions must be at least 1")
    if args.visits is not None and args.visits < 1:
        p.error("--visits must be at least 1")
    if args.workers is not None and args.workers < 1:
        p.error("--workers must be at least 1")
    missing = [m for m in args.model if not Path(m).is_file()]
    if missing:
        p.error("no model file " + ", ".join(missing))
    try:
        if args.visits is not None:
            from .heldout_search import searched_ownership_figures

            rows = searched_ownership_figures(args.model, args.folders, args.visits,
                                              args.positions or 200, args.validation)
        else:
            rows = heldout_figures(args.model, args.folders, args.validation, args.positions,
                                   args.cache_dir, averaged=args.symmetries,
                                   workers=args.workers)
    except (OSError, ValueError) as err:
        print(f"{command_name('heldout')}: {err}", file=sys.stderr)
        return 1
    if not rows:
        print(f"{command_name('heldout')}: nothing measured in {', '.join(args.folders)}",
              file=sys.stderr)
        return 1
    return 0


__all__ = ["measure", "heldout_figures", "heldout_main", "PHASES"]
