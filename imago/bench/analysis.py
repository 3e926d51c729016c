"""Analysis benchmark: ``python -m imago.bench analysis [--quick] [--model=PATH]``.

Every position of a 60-move 9x9 game (turns 0 to 60) analysed at 100 visits
each, two ways, in one run:

- **sequential**: one PUCT search per position, one after the other, as 61
  GTP ``genmove`` calls would run them (the engine's default batch of 16
  leaves, a fresh tree each, no early stop, so both ways spend exactly the
  same visits);
- **one query**: one KataGo-style query with ``analyzeTurns`` 0..60 to
  :class:`imago.analysis.engine.AnalysisEngine`, whose searches share
  network batches across positions.

Prints the seconds of each (median of the runs), their ratio (goal: the
query takes at most half the sequential time) and the query's average
network batch. The game is the first of ``../shared/data/gnugo9`` with 60
moves, or a random 60-move game when that folder is missing.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from imago.game.rulesets import IMAGO_RULES
from imago.bench import SHARED_DATA, option
from imago.bench.mcts import default_model
from imago.game import GameState, color_letter, index_to_vertex

MOVES = 60
VISITS = 100
DATA = SHARED_DATA / "gnugo9"


def game_moves() -> tuple[list[tuple[int, object]], str]:
    """The first 60 moves of a real 9x9 game (colour, point), and its name."""
    from imago.sgf import load

    for path in sorted(DATA.glob("*.sgf"))[:50]:
        try:
            game = load(str(path))[0]
        except Exception:  # noqa: BLE001 - any unreadable file: try the next
            continue
        moves = [(node.color, node.point) for node in game.root.main_line() if node.is_move]
        if game.size == 9 and len(moves) >= MOVES and not game.handicap:
            return moves[:MOVES], path.name
    import random

    rng, state = random.Random(5), GameState(9)
    for _ in range(MOVES):
        color = state.to_move
        state.play(color, state.board.random_move(color, rng))
    return [(n.color, n.point) for n in state.history()], "a random game"


def sequential(evaluator, moves) -> float:
    """Seconds for one fresh 100-visit search per position."""
    from imago.search import PUCTSearch

    state = GameState(9)
    start = time.perf_counter()
    for k in range(len(moves) + 1):
        search = PUCTSearch(evaluator, batch_size=16, seed=k)
        search.run(state, state.to_move, visits=VISITS, early_stop=False)
        if k < len(moves):
            state.play(*moves[k])
    return time.perf_counter() - start


def one_query(engine, moves) -> tuple[float, int]:
    """Seconds for the whole game in one query, and the visits it spent."""
    query = {"id": "bench", "rules": IMAGO_RULES, "komi": 7.5, "boardXSize": 9,
             "boardYSize": 9, "maxVisits": VISITS, "analyzeTurns": list(range(len(moves) + 1)),
             "moves": [[color_letter(c), index_to_vertex(p, 9)] for c, p in moves]}
    engine.clear_cache()
    start = time.perf_counter()
    responses = engine.analyze(query)
    seconds = time.perf_counter() - start
    return seconds, sum(r["rootInfo"]["visits"] for r in responses if "rootInfo" in r)


def main(argv: list[str]) -> int:
    from imago.analysis.engine import AnalysisEngine

    quick = "--quick" in argv
    model = option(argv, "model", default_model())
    runs = 1 if quick else 3
    moves, name = game_moves()
    engine = AnalysisEngine(model, seed=1)
    print(f"analysis of every position of {name} ({MOVES} moves, 9x9) at {VISITS} visits, "
          f"{model if model == 'none' else Path(model).name}:")
    one_query(engine, moves[:4])          # loads and compiles the network
    network = engine.networks.for_size(9)
    sequential(network, moves[:2])
    seq, pooled, visits = [], [], 0
    for _ in range(runs):
        seq.append(sequential(network, moves))
        seconds, visits = one_query(engine, moves)
        pooled.append(seconds)
    batches = engine._pools[network].batches if network in engine._pools else []
    engine.close()
    s, p = statistics.median(seq), statistics.median(pooled)
    print(f"  sequential searches : {s:6.1f} s  ({(MOVES + 1) * VISITS / s:5.0f} visits/s)")
    print(f"  one analysis query  : {p:6.1f} s  ({visits / p:5.0f} visits/s, "
          f"{visits} visits, average network batch "
          f"{statistics.mean(batches) if batches else 0:.0f})")
    print(f"  ratio query / sequential: {p / s:.2f}  (goal <= 0.50)")
    return 0
