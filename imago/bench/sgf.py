"""SGF benchmark: ``python -m imago.bench sgf [--quick] [--dir=FOLDER]``.

Measured on the same files in the same run, medians of several runs:

- parse: SGF bytes to a parse tree with raw property values —
  :func:`imago.sgf.parse` (PLY lexer and parser, decoding included) against
  ``sgfmill.sgf.Sgf_game.from_bytes``; MB/s of SGF text and games/s;
- load: bytes to a replayed game — :func:`imago.sgf.loads` (parse, then the
  whole :class:`~imago.game.GameMove` tree, every move checked for
  legality) against sgfmill's ``from_bytes`` + ``sgf_moves.get_setup_and_
  moves`` + playing the main line's moves on its ``boards.Board``; games/s.

Ratios are imago's speed over sgfmill's (above 1: imago is faster).

Then memory, each case in a fresh interpreter (peak RSS from
``imago.bench.peak_rss_mb``, and the part added by loading): the Kogo joseki
dictionary (1.3 MB, 62,749 nodes, lenient) with its load time, a 300-move
19x19 game, 70,000 empty nodes, a 4,000-move line; the Kogo file also
through sgfmill (parse and main line) for comparison.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from imago.bench import SHARED_DATA

DEFAULT_DIR = SHARED_DATA / "gnugo9"
KOGO = SHARED_DATA / "sgf-samples" / "glift__test_testdata_Kogo_s_Joseki_Dictionary.sgf"

# Scripts for the memory cases: each prints "seconds base_MB peak_MB".
_MEASURE = """
import sys, time
import imago.game, imago.sgf
from imago.bench import peak_rss_mb as rss
{prepare}
base = rss()
start = time.perf_counter()
{load}
print(time.perf_counter() - start, base, rss())
"""
_SGFMILL_LOAD = """
from sgfmill import sgf, sgf_moves
game = sgf.Sgf_game.from_bytes(data)
board, plays = sgf_moves.get_setup_and_moves(game)
for colour, move in plays:
    if move is not None:
        board.play(move[0], move[1], colour)
"""
MEMORY_CASES = [
    ("Kogo joseki file", f"data = open({str(KOGO)!r}, 'rb').read()",
     "games = imago.sgf.loads(data, lenient=True)"),
    ("Kogo, sgfmill", f"data = open({str(KOGO)!r}, 'rb').read()", _SGFMILL_LOAD),
    ("19x19, 300 moves", "text = open({game300!r}).read()", "games = imago.sgf.loads(text)"),
    ("70,000 empty nodes", "text = '(;' + ';' * 70000 + ')'",
     "games = imago.sgf.loads(text)"),
    ("4,000-move line", "text = open({line4000!r}).read()", "games = imago.sgf.loads(text)"),
]


def random_game_text(moves: int, seed: int = 5) -> str:
    """A 19x19 game of ``moves`` random moves as SGF: own eyes are filled
    only when nothing else is left, so big captures reopen the board and
    nearly every position differs."""
    import random

    from imago.game import BLACK, GameState
    from imago.sgf import dumps
    game = GameState(19)
    rng, color = random.Random(seed), BLACK
    for _ in range(moves):
        board = game.board
        point = board.random_move(color, rng)
        if point is None:
            legal = board.legal_moves(color)
            point = rng.choice(legal) if legal else None
        game.play(color, point)
        color = 3 - color
    return dumps(game)


def measure_memory(prepare: str, load: str) -> tuple[float, float, float]:
    """``(seconds, base MB, peak MB)`` of ``load`` run after ``prepare`` in
    a fresh interpreter; ``base`` is the peak RSS before ``load``."""
    script = _MEASURE.format(prepare=prepare, load=load)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True, cwd=Path(__file__).resolve().parents[2]).stdout
    seconds, base, peak = map(float, out.split()[-3:])
    return seconds, base, peak


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

    print("\nmemory (fresh interpreter each; peak RSS, and what loading added)")
    folder = Path(tempfile.mkdtemp(prefix="imago-bench-sgf-"))
    texts = {}
    for name, moves in (("game300", 300), ("line4000", 4000)):
        texts[name] = str(folder / f"{name}.sgf")
        Path(texts[name]).write_text(random_game_text(moves))
    for label, prepare, load in MEMORY_CASES:
        prepare = prepare.format(**texts)
        if "KOGO" in label.upper() and not KOGO.exists():
            continue
        if "sgfmill" in label and not sgfmill:
            continue
        try:
            seconds, base, peak = measure_memory(prepare, load)
        except subprocess.CalledProcessError as err:
            print(f"{label:24}failed: {err.stderr.strip().splitlines()[-1:]}")
            continue
        print(f"{label:24}{peak:8.1f} MB peak  +{peak - base:6.1f} MB  {seconds:6.2f} s")
    shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
