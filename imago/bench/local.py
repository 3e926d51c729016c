"""The root's reading of closed-off areas (:mod:`imago.search.local`) on
positions of real games: what it costs a move.

    python -m imago.bench local                  # katago9, gnugo9, katago19
    python -m imago.bench local --dir FOLDER [--quick]

Every fifth position of a folder's games (the first 20 games; 5 with
``--quick``) is read for both colours with nothing remembered from the
position before, as a search's root would read a new area. It prints per
folder the median, 90th and 99th percentile and the most milliseconds a
reading took, how many positions held an area, and how many moves were
struck out. A game keeps its areas from move to move, so in play most roots
are answered from memory (:func:`imago.search.local.losing_moves`).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

from imago.game import BLACK, WHITE
from imago.search import local

from . import SHARED_DATA, option

DEFAULT_FOLDERS = ("katago9", "gnugo9", "katago19")
GAMES, QUICK_GAMES = 20, 5
EVERY = 5


def readings(folder: Path, games: int) -> tuple[list[float], int, int, int]:
    """Seconds of each reading, positions with an area, moves struck, games
    read."""
    from imago.sgf import sgf

    seconds, with_area, struck, read = [], 0, 0, 0
    for path in sorted(folder.glob("*.sgf"))[:games]:
        try:
            game = sgf.load(path)[0]
        except (OSError, ValueError) as error:
            print(f"local: {path}: {error}", file=sys.stderr)
            continue
        game.goto_end()
        read += 1
        for node in game.history()[::EVERY]:
            board = node.board
            with_area += bool(local.find_areas(board))
            for color in (BLACK, WHITE):
                local.forget()
                started = time.perf_counter()
                struck += len(local.losing_moves(board, color))
                seconds.append(time.perf_counter() - started)
    return seconds, with_area, struck, read


def main(argv: list[str]) -> int:
    given = option(argv, "dir", None)
    folders = [Path(given)] if given else [SHARED_DATA / name for name in DEFAULT_FOLDERS
                                           if (SHARED_DATA / name).is_dir()]
    if not folders:
        print(f"local: no game folder (looked in {SHARED_DATA}); give --dir", file=sys.stderr)
        return 2
    games = QUICK_GAMES if "--quick" in argv else GAMES
    for folder in folders:
        seconds, with_area, struck, read = readings(folder, games)
        if not seconds:
            print(f"local {folder.name}: no game read")
            continue
        ms = sorted(s * 1000 for s in seconds)
        print(f"local {folder.name}: {len(ms) // 2} positions of {read} games, {with_area} "
              f"with an area; ms a reading: median {statistics.median(ms):.1f}, 90% "
              f"{ms[int(0.9 * len(ms))]:.1f}, 99% {ms[int(0.99 * len(ms))]:.0f}, most "
              f"{ms[-1]:.0f}; {struck} moves struck out in {len(ms)} readings")
    return 0
