"""MCTS benchmark: search speed against the evaluator's own batched speed.

Prints, in one run: the raw evaluator throughput (positions/s when it is
called directly on batches of the chosen size, encoding included), the PUCT
search's visits/s with the same evaluator and batch size, their ratio (the
share of time the search leaves to the network; goal >= 70%), and seconds
per move at 200 and 800 visits on 9x9. Uses the shipped residual model when
TensorFlow and the model are there (``--model PATH`` to choose; ``--model
none`` for the playout evaluator).
"""

from __future__ import annotations

import os
import statistics
import sys
import time

from imago.bench import random_positions
from imago.search.mcts import PlayoutEvaluator, PUCTSearch
from imago.game import BLACK, GameState


def option(argv: list[str], name: str, default: str) -> str:
    for arg in argv:
        if arg.startswith(f"--{name}="):
            return arg.split("=", 1)[1]
    return default


def default_model() -> str:
    from imago.nn.evaluator import default_model_path

    path = default_model_path()
    return str(path) if path else "none"


def make_evaluator(model: str, batch: int):
    if model == "none":
        return PlayoutEvaluator(seed=1), "random playouts"
    from imago.nn.evaluator import NetworkEvaluator
    return NetworkEvaluator(model, batch_size=batch), os.path.basename(model)


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    batch = int(option(argv, "batch", "8"))
    model = option(argv, "model", default_model())
    evaluator, label = make_evaluator(model, batch)
    runs = 3 if quick else 5
    print(f"imago MCTS benchmark: evaluator {label}, batch {batch}, 9x9, median of {runs} runs")

    nodes = random_positions(batch * 8)
    evaluator.evaluate(nodes[:batch])  # warm-up (compilation)
    raw = []
    for _ in range(runs):
        start = time.perf_counter()
        for k in range(0, len(nodes), batch):
            evaluator.evaluate(nodes[k:k + batch])
        raw.append(len(nodes) / (time.perf_counter() - start))
    raw_rate = statistics.median(raw)

    visits = 200 if quick else 400
    rates, per_move = [], {200: [], 800: []}
    for run in range(runs):
        game = GameState(9, 7.5)
        search = PUCTSearch(evaluator, batch_size=batch, seed=run, cache_size=0)
        start = time.perf_counter()
        search.run(game, BLACK, visits=visits, early_stop=False)
        elapsed = time.perf_counter() - start
        rates.append(search.evaluations / elapsed)
    search_rate = statistics.median(rates)
    for n in (200, 800):
        for run in range(1 if quick else 3):
            search = PUCTSearch(evaluator, batch_size=batch, seed=run)
            start = time.perf_counter()
            search.run(GameState(9, 7.5), BLACK, visits=n, early_stop=False)
            per_move[n].append(time.perf_counter() - start)
    print(f"  evaluator alone      {raw_rate:10,.0f} positions/s")
    print(f"  PUCT search          {search_rate:10,.0f} evaluated visits/s")
    print(f"  ratio search/raw     {search_rate / raw_rate:10.2f}   (goal >= 0.70)")
    for n, times in per_move.items():
        print(f"  {n:>4} visits per move {statistics.median(times):9.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
