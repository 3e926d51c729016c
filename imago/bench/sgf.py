"""SGF benchmark: ``python -m imago.bench sgf [--quick] [--dir=FOLDER]``.

Measured on the same files in the same run, medians of several runs:

- parse: SGF bytes to a parse tree with raw property values —
  :func:`imago.sgf.parse` (PLY lexer and parser, decoding included) against
  ``sgfmill.sgf.Sgf_game.from_bytes``; MB/s of SGF text and games/s;
- load: bytes to a replayed game — :func:`imago.sgf.loads` (parse, then a
  :class:`~imago.game.GameMove` tree with a board per node, every move
  checked) against sgfmill's ``from_bytes`` + ``sgf_moves.get_setup_and_
  moves`` + playing the moves on its ``boards.Board``; games/s.

Ratios are imago's speed over sgfmill's (above 1: imago is faster).
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

DEFAULT_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "gnugo9"


def _median_times(funcs, datas, runs: int) -> list[float]:
    """Median wall time of each function over ``runs`` rounds; the functions
    take turns within a round, so load from other processes hits both."""
    times: list[list[float]] = [[] for _ in funcs]
    for _ in range(runs):
        for i, func in enumerate(funcs):
            start = time.perf_counter()
            func(datas)
            times[i].append(time.perf_counter() - start)
    return [statistics.median(t) for t in times]


def _imago_parse(datas):
    from imago.sgf import parse
    for data in datas:
        parse(data)


def _imago_load(datas):
    from imago.sgf import loads
    for data in datas:
        loads(data)


def _sgfmill_parse(datas):
    from sgfmill import sgf
    for data in datas:
        sgf.Sgf_game.from_bytes(data)


def _sgfmill_load(datas):
    from sgfmill import sgf, sgf_moves
    for data in datas:
        game = sgf.Sgf_game.from_bytes(data)
        board, plays = sgf_moves.get_setup_and_moves(game)
        for colour, move in plays:
            if move is not None:
                board.play(move[0], move[1], colour)


def _loads_in_both(data: bytes) -> bool:
    """Keep a file only if both libraries load it (for --dir on messy
    folders; every gnugo9 game does)."""
    from imago.sgf import SGFError, loads
    try:
        loads(data)
        _sgfmill_load([data])
    except ImportError:
        return True
    except (SGFError, ValueError):
        return False
    return True


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    folder = DEFAULT_DIR
    for arg in argv:
        if arg.startswith("--dir="):
            folder = Path(arg.split("=", 1)[1])
    files = sorted(folder.glob("*.sgf"))
    if not files:
        print(f"sgf benchmark: no SGF files in {folder}", file=sys.stderr)
        return 2
    if quick:
        files = files[:100]
    datas = [f.read_bytes() for f in files]
    datas = [d for d in datas if _loads_in_both(d)]
    megabytes = sum(len(d) for d in datas) / 1e6
    runs = 3 if quick else 9
    try:
        import sgfmill  # noqa: F401
    except ImportError:
        sgfmill = None

    # warm up: the PLY tables are built once per process
    _imago_load(datas[:3])
    print(f"SGF benchmark: {len(datas)} files, {megabytes:.3f} MB from {folder} "
          f"(median of {runs} runs)")
    rows = []
    for label, ours, theirs, with_mb in (
            ("parse", _imago_parse, _sgfmill_parse, True),
            ("load (parse + replay)", _imago_load, _sgfmill_load, False)):
        if sgfmill:
            mine, other = _median_times([ours, theirs], datas, runs)
        else:
            [mine], other = _median_times([ours], datas, runs), None
        rows.append((label, mine, other, with_mb))
    print(f"{'':24}{'imago':>22}{'sgfmill':>22}{'ratio':>8}")
    for label, mine, other, with_mb in rows:
        def fmt(t):
            if t is None:
                return "n/a"
            games = len(datas) / t
            return (f"{megabytes / t:6.2f} MB/s {games:7.0f} g/s" if with_mb
                    else f"{games:7.0f} games/s")
        ratio = f"{other / mine:7.2f}x" if other else "n/a"
        print(f"{label:24}{fmt(mine):>22}{fmt(other):>22}{ratio:>8}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
