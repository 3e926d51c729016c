"""Recounting a self-play folder's games: the replay shards' outcome labels
made again by today's count.

A shard keeps, for each game, the winner, the final score and the final
ownership that :func:`imago.game.count` gave when the game ended, and from
them every position's value, score and ownership targets. When the count
changes (on 2026-11-29 it stopped calling a seki's stones dead), the games
already played keep the old labels; :func:`recount_folder` counts each
game's last position again from its SGF record (``sgf/gen-GGGG/NAME.sgf``
beside ``replay/``, as ``train.py selfplay`` and ``train.py rl`` write them)
and rewrites a shard whose labels change, atomically and under its own name
(so the window's order holds), and the result (``RE``) of a record that a
new count changes. A resigned game keeps its winner; only its ownership and
score (which training weighs 0) are recounted. A game
without its record keeps its labels and is counted as missing.

    python train.py recount runs/rl13w [--dry-run]

Numpy, the SGF reader and the count; no TensorFlow.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from imago import sgf
from imago.match.arena import outcome

from .data import owners_from_black
from .options import HelpFormatter, command_name
from .replay import outcome_targets, write_record, write_shard


@dataclass
class RecountTally:
    """What a recount found: games, SGF records whose result was rewritten,
    games whose labels changed (``flipped``: their winner), records missing,
    shards rewritten, shards unreadable."""

    games: int = 0
    records: int = 0
    changed: int = 0
    flipped: int = 0
    missing: int = 0
    rewritten: int = 0
    unreadable: int = 0

    def add(self, other: "RecountTally") -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


def records_by_name(folder: Path) -> dict[str, Path]:
    """The SGF files below ``folder`` by file name without ``.sgf``."""
    return {path.stem: path for path in sorted(folder.rglob("*.sgf"))}


def _labels(path: Path, size: int, resigned: bool, winner: int
            ) -> Optional[tuple[int, float, np.ndarray, str]]:
    """``(winner, final score, Black's final ownership, SGF result)`` of the
    game in ``path`` by today's count (a resigned game keeps ``winner`` and
    its result, None); None when the record is not of a ``size`` board."""
    game = sgf.load(path)[0]
    if game.size != size:
        return None
    game.goto_end()
    judged = game.count()
    result = None
    if not resigned:
        winner, result = outcome(game, False, judged)
    return winner, float(judged.score), owners_from_black(judged, size), result


def _set_result(path: Path, result: str, write: bool = True) -> bool:
    """Write ``result`` as the record's ``RE`` (the first one, the root's),
    atomically when ``write``; whether the file changes."""
    text = path.read_text(encoding="utf-8")
    new = re.sub(r"RE\[[^\]]*\]", f"RE[{result}]", text, count=1)
    if new == text:
        return False
    if write:
        write_record(path, new)
    return True


def recount_shard(path: Path, records: dict[str, Path], write: bool = True,
                  report: Callable[[str], None] = lambda line: None) -> RecountTally:
    """Recount the games of the shard at ``path`` from ``records`` (by game
    name); rewrite it when a label changes and ``write``. A record that
    cannot be read is named through ``report`` and its game kept as it is
    (counted as missing). Raises OSError or ValueError for a shard that
    cannot be read or written."""
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    size = int(arrays["size"])
    tally = RecountTally()
    for g, name in enumerate(arrays["names"].tolist()):
        tally.games += 1
        record = records.get(name)
        try:
            labels = None if record is None else _labels(
                record, size, bool(arrays["resigned"][g]), int(arrays["winner"][g]))
        except (OSError, ValueError) as error:
            report(f"{record}: its game left as it is: {error}")
            labels = None
        if labels is None:
            tally.missing += 1
            continue
        winner, score, own_black, result = labels
        if result is not None:
            tally.records += _set_result(record, result, write)
        rows = arrays["game"] == g
        value, ownership, scores = outcome_targets(arrays["to_move"][rows], winner, own_black,
                                                   score)
        if (np.array_equal(value, arrays["value"][rows])
                and np.array_equal(ownership, arrays["ownership"][rows])
                and np.array_equal(scores, arrays["score"][rows])):
            continue
        tally.changed += 1
        tally.flipped += winner != int(arrays["winner"][g])
        arrays["value"][rows], arrays["ownership"][rows], arrays["score"][rows] = \
            value, ownership, scores
        arrays["winner"][g], arrays["final_score"][g] = winner, score
    if tally.changed:
        if write:
            write_shard(path, arrays)
        tally.rewritten = 1
    return tally


def recount_folder(folder: Path, write: bool = True,
                   report: Callable[[str], None] = lambda line: None,
                   step: Callable[[], None] = lambda: None) -> RecountTally:
    """Recount every shard of ``folder/replay`` from the records of
    ``folder/sgf``; a shard that cannot be read or rewritten is named through
    ``report`` and left as it is. ``step()`` after each shard."""
    records = records_by_name(folder / "sgf")
    tally = RecountTally()
    for shard in sorted((folder / "replay").glob("shard-*.npz")):
        if shard.name.endswith(".tmp.npz"):
            continue
        try:
            found = recount_shard(shard, records, write, report)
        except (OSError, ValueError, KeyError) as error:
            report(f"{shard}: left as it is: {error}")
            tally.unreadable += 1
        else:
            if found.changed:
                report(f"{shard.name}: {found.changed} of {found.games} games relabelled "
                       f"({found.flipped} with the other winner)")
            tally.add(found)
        step()
    return tally


def recount_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=command_name("recount"), formatter_class=HelpFormatter,
        description="Count the games of a self-play folder again (their last positions,\n"
                    "from the SGF records in sgf/) and rewrite the replay shards whose\n"
                    "labels change: winner, final score and ownership, and from them every\n"
                    "position's value, score and ownership targets, and the records'\n"
                    "results (RE). A resigned game keeps its winner. For the games of a\n"
                    "run played before the count changed.",
        epilog="example:\n  python train.py recount runs/rl13w --dry-run")
    p.add_argument("folder", metavar="DIR",
                   help="a `train.py rl` or `train.py selfplay` folder (replay/ and sgf/)")
    p.add_argument("--dry-run", action="store_true",
                   help="say what would change, rewrite nothing")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress bar")
    return p


def recount_main(argv: Optional[list[str]] = None) -> int:
    args = recount_parser().parse_args(argv)
    folder = Path(args.folder)
    missing = [str(folder / part) for part in ("replay", "sgf") if not (folder / part).is_dir()]
    if missing:
        print(f"{command_name('recount')}: no folder {' or '.join(missing)}", file=sys.stderr)
        return 1
    from .selfplay_run import progress_bar

    shards = len(list((folder / "replay").glob("shard-*.npz")))
    bar = progress_bar(shards, 0, args.progress, desc="recount", unit="shard")

    def report(line: str) -> None:
        if hasattr(bar, "write"):
            bar.write(line, file=sys.stderr)  # above the bar
        else:
            print(line, file=sys.stderr)

    try:
        tally = recount_folder(folder, not args.dry_run, report, lambda: bar.update(1))
    except KeyboardInterrupt:
        return 130
    finally:
        bar.close()
    done = "would be rewritten" if args.dry_run else "rewritten"
    print(f"{folder}: {tally.games} games, {tally.changed} relabelled ({tally.flipped} with "
          f"the other winner), {tally.missing} without a readable record; {tally.rewritten} "
          f"shards and {tally.records} records' results {done}"
          + (f", {tally.unreadable} left unreadable" if tally.unreadable else ""))
    return 1 if tally.unreadable else 0


__all__ = ["RecountTally", "recount_folder", "recount_main", "recount_parser", "recount_shard",
           "records_by_name"]
