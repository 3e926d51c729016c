"""Benchmarks: ``python -m imago.bench [board|sgf|nn|mcts|arch|analysis|startup|exact|regress|ownership|
count|local ...]``.

Each topic is a module of this package with a ``main(argv)`` function that
prints its figures (medians of several runs, and ratios measured in the same
run). With no topic, ``board`` runs. ``--help`` lists the topics with
:data:`ABOUT` (or the first line of a module's docstring) and the options
of :data:`OPTIONS`.
"""

from pathlib import Path
from typing import Optional

SHARED_DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
"""The data folders beside a checkout of the repository (``../shared/data``),
where the benchmarks find their games wherever they are run from."""

TOPICS = ("board", "sgf", "nn", "mcts", "arch", "analysis", "startup", "exact", "regress",
          "ownership", "count", "local")

ABOUT = {
    "board": "random games as playouts play them (legal, no own-eye filling, until two "
             "passes): moves/s through random_move + place, GameBoard.play and "
             "GameState.play, on 9x9 and 19x19",
    "sgf": "parsing and loading SGF files beside sgfmill on the same files (pip install -e "
           "'.[bench]'), then peak memory of large records in fresh interpreters",
    "nn": "feature encoding per plane set and each shipped model's positions/s at batch "
          "1, 8, 16 and 32, on 9x9, 13x13 and 19x19; training samples/s from cached shards "
          "against arrays in memory",
    "mcts": "search visits/s against the network's own batched throughput on 9x9, 13x13 "
            "and 19x19, seconds per move, memory per visit, 64 searches sharing one "
            "evaluator",
    "arch": "visits of a 2 s 19x19 engine search with the shipped network, and residual "
            "networks of several depths and widths: positions/s at batch 8, 16 and 32 on "
            "13x13 and 19x19, and the visits each would give that search",
    "analysis": "every position of a 60-move 9x9 game at 100 visits: one analysis query "
                "(searches sharing network batches) against 61 sequential searches",
    "startup": "seconds from starting imagocli to its answer to name (before TensorFlow) "
               "and to its first 9x9 genmove (network loaded), beside a bare import "
               "tensorflow",
    "exact": "the exact solver on the empty 3x3 and 4x4 boards from a fresh table "
             "(seconds, positions/s), then a 4x4 game of the engine's defaults: the first "
             "move against all the others",
    "regress": "the move tests (reg_genmove) of GTP regression suites such as GNU Go's, "
               "on one board size, through imago's GTP commands: how many answers are as "
               "expected, per file",
    "ownership": "an analysis engine's ownership (KataGo's JSON protocol: imago's own or "
                 "another) on held-out finished games against their final ownership: the "
                 "share of owned points right, by game phase",
    "count": "the one count (final_score) of finished games against the results their "
             "referee recorded: exact results and winners per folder, seconds a count",
    "local": "the root's reading of closed-off areas on positions of real games: "
             "milliseconds a reading (median, 90th and 99th percentile, most), moves struck "
             "out",
}
"""One sentence on what each benchmark measures."""

OPTIONS = {
    "quick": ((), None, "shorter runs, for a first look (every benchmark)"),
    "batch": (("mcts",), "N", "positions per network call (default: 16)"),
    "model": (("mcts", "analysis", "regress", "ownership"), "PATH", "the network to search "
              "with, or none for random playouts (default: the shipped 9x9 network; regress: "
              "the shipped network of --size; ownership: the shipped network of each size)"),
    "dir": (("sgf", "regress", "ownership", "count", "local"), "FOLDER", "sgf: the SGF files "
            "to read (default: ../shared/data/gnugo9); regress: the folder of .tst suites "
            "(needed); ownership: counted games (default: ../shared/data/katago19); count: "
            "games with an index.tsv (default: katago9, gnugo9 and katago13 of "
            "../shared/data); local: games (default: katago9, gnugo9 and katago19)"),
    "size": (("regress",), "N", "the board size whose tests are played (default: 9)"),
    "seed": (("regress",), "N", "the engine's random seed (default: 1)"),
    "suites": (("regress",), "NAMES", "only these suite files of --dir, comma-separated "
               "without .tst (e.g. seki,endgame; default: every one)"),
    "rules": (("regress",), "NAME", "rules set on each engine with kata-set-rules (KataGo's "
              "names, e.g. japanese, as GNU Go's suites are written; default: imago's own)"),
    "options": (("regress",), "KEY=VALUE,...", "options of imago's search on every engine, "
                "as imagocli.py -o takes them (e.g. score_utility=0.5,lcb_z=0)"),
    "compare": (("regress",), "LOG", "an earlier run's standard output: end with the tests "
                "whose verdict changed since"),
    "engine": (("regress", "ownership"), "COMMAND", "another engine to ask instead of imago: "
               "regress a GTP engine, e.g. \"/usr/games/gnugo --mode gtp\"; ownership a "
               "JSON analysis engine, e.g. \"katago analysis -model M -config C\""),
    "visits": (("ownership",), "N", "visits of each position's search (default: 50)"),
    "positions": (("ownership",), "N", "positions asked in all (default: 400)"),
    "all": (("ownership",), None, "every game of --dir, not only the 5%% training holds "
            "out: for a folder of games no network learnt from"),
    "gnugo-dead": (("ownership",), None, "GNU Go names the dead stones of counted games "
                   "without TB/TW markup (real games' records, e.g. ai19)"),
}
"""``--name``: (the benchmarks that read it, or () for all; its value's
name, or None for a flag; help). A topic reads ``--quick`` and
``--name=VALUE`` from the arguments it is given."""


def option(argv: list[str], name: str, default: Optional[str]) -> Optional[str]:
    """The value of ``--name=VALUE`` in a topic's ``argv``, else ``default``."""
    for arg in argv:
        if arg.startswith(f"--{name}="):
            return arg.split("=", 1)[1]
    return default


def peak_rss_mb() -> float:
    """This process's peak resident memory in MB: ``VmHWM`` where Linux
    has it (``ru_maxrss`` of a forked child also counts the parent it was
    forked from), else ``ru_maxrss``."""
    import resource

    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def random_positions(count: int, size: int = 9, min_moves: int = 10, max_moves: int = 40) -> list:
    """Game-tree nodes of random games, each ``min_moves``..``max_moves``
    moves in (inclusive), the same ones on every run: the positions the
    network and search benchmarks evaluate."""
    import random

    from imago.game import BLACK, GameState

    rng = random.Random(7)
    nodes = []
    while len(nodes) < count:
        game = GameState(size)
        color = BLACK
        for _ in range(rng.randint(min_moves, max_moves)):
            game.play(color, game.board.random_move(color, rng))
            color = 3 - color
        nodes.append(game.current)
    return nodes
