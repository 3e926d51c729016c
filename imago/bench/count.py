"""The one count (``final_score``) on finished games against the results their referee recorded.

Every game of a folder's ``index.tsv`` that ended with two passes is loaded
to its last position and counted by :func:`imago.game.count`, the function
behind GTP ``final_score``, self-play's results and labels, and the match
referee without GNU Go; the count is compared with the recorded result:

    python -m imago.bench count                       # katago9, gnugo9, katago13
    python -m imago.bench count --dir ../shared/data/katago19 [--quick]

It prints, per folder, how many counts give the recorded result exactly and
how many its winner, the median seconds a count takes, and the first games
that differ. ``--quick`` counts the first 60 games of each folder.
"""

from __future__ import annotations

import csv
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from . import SHARED_DATA, option

DEFAULT_FOLDERS = ("katago9", "gnugo9", "katago13")
QUICK_GAMES = 60
SHOWN = 5


@dataclass
class Agreement:
    """How a folder's counts compare with its recorded results."""

    games: int = 0
    exact: int = 0
    winner: int = 0
    unreadable: int = 0
    seconds: list = field(default_factory=list)
    differing: list = field(default_factory=list)


def finished_games(folder: Path) -> list[tuple[str, str]]:
    """``(file, recorded result)`` of the games of ``folder/index.tsv`` that
    ended with two passes."""
    with open(folder / "index.tsv", newline="") as index:
        return [(row["file"], row["result"]) for row in csv.DictReader(index, delimiter="\t")
                if row.get("end") == "two_passes" and row.get("result")]


def agreement(folder: Path, limit: Optional[int] = None) -> Agreement:
    """Count the last position of each finished game of ``folder`` (the
    first ``limit``) and compare with its recorded result; a file that
    does not load is named on stderr and left out."""
    from imago import sgf

    tally = Agreement()
    for name, recorded in finished_games(folder)[:limit]:
        try:
            game = sgf.load(folder / name)[0]
        except (OSError, ValueError) as error:
            print(f"{folder / name}: not counted: {error}", file=sys.stderr)
            tally.unreadable += 1
            continue
        game.goto_end()
        started = time.perf_counter()
        result = game.count().result
        tally.seconds.append(time.perf_counter() - started)
        tally.games += 1
        tally.exact += result == recorded
        tally.winner += result[:1] == recorded[:1]
        if result != recorded:
            tally.differing.append((name, result, recorded))
    return tally


def main(argv: list[str]) -> int:
    given = option(argv, "dir", None)
    folders = [Path(given)] if given else [SHARED_DATA / name for name in DEFAULT_FOLDERS
                                           if (SHARED_DATA / name / "index.tsv").is_file()]
    if not folders:
        print(f"count: no folder with an index.tsv (looked in {SHARED_DATA}); give --dir",
              file=sys.stderr)
        return 2
    limit = QUICK_GAMES if "--quick" in argv else None
    for folder in folders:
        if not (folder / "index.tsv").is_file():
            print(f"count: {folder}: no index.tsv", file=sys.stderr)
            return 2
        tally = agreement(folder, limit)
        if not tally.games:
            print(f"count {folder.name}: no finished game counted")
            continue
        shown = "; ".join(f"{n} {mine} (recorded {theirs})"
                          for n, mine, theirs in tally.differing[:SHOWN])
        print(f"count {folder.name}: {tally.exact} of {tally.games} exactly as recorded, the "
              f"winner in {tally.winner}; median {statistics.median(tally.seconds) * 1000:.0f} "
              f"ms a count" + (f"; first differing: {shown}" if shown else ""), flush=True)
    return 0
