"""MCTS benchmark: ``python -m imago.bench mcts [--quick] [--batch=N] [--model=PATH]``.

Prints, in one run:

- on 9x9, 13x13 and 19x19 (the shipped residual network is fully
  convolutional and plays every size): the raw evaluator throughput
  (positions/s when it is called directly on batches of the chosen size,
  encoding included), the PUCT search's evaluated visits/s with the same
  evaluator and batch size, and their ratio (the share of time the search
  leaves to the network; goal >= 0.70), then each larger size's visits/s
  as a share of 9x9's;
- seconds per move at 200 and 800 visits (9x9);
- on 19x19, the growth of peak resident memory per visit over a long search
  (goal <= 1,000 bytes; measured in a fresh process after the network's
  warm-up, so nothing else adds to the peak);
- 64 searches of different positions sharing one evaluator
  (:func:`imago.search.run_searches`, one leaf per search and round): the
  average network batch (goal >= 48) and the total visits/s against one
  search alone with the same settings (goal >= 2x), and against one search
  alone batching 16 leaves.

Uses the shipped residual model when TensorFlow and the model are there
(``--model PATH`` to choose; ``--model none`` for random playouts).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time

from imago.bench import option, random_positions
from imago.game import BLACK, GameState
from imago.search import PlayoutEvaluator, PUCTSearch, SearchJob, run_searches


SIZES = (9, 13, 19)
"""The board sizes whose search speed is measured."""


def default_model() -> str:
    from imago.nn.evaluator import default_model_path

    path = default_model_path()
    return str(path) if path else "none"


def make_evaluator(model: str, batch: int):
    if model == "none":
        return PlayoutEvaluator(seed=1), "random playouts"
    from imago.nn.evaluator import NetworkEvaluator
    return NetworkEvaluator(model, batch_size=batch), os.path.basename(model)


def games_at(nodes: list) -> list[GameState]:
    """Game states whose current node is each of ``nodes``."""
    games = []
    for node in nodes:
        game = GameState(node.board.size, 7.5)
        for move in node.path_from_root()[1:]:
            game.play(move.color, move.point)
        games.append(game)
    return games


def raw_rate(evaluator, nodes: list, batch: int, runs: int) -> float:
    evaluator.evaluate(nodes[:batch])  # warm-up (compilation)
    rates = []
    for _ in range(runs):
        start = time.perf_counter()
        for k in range(0, len(nodes), batch):
            evaluator.evaluate(nodes[k:k + batch])
        rates.append(len(nodes) / (time.perf_counter() - start))
    return statistics.median(rates)


def search_rate(evaluator, size: int, batch: int, visits: int, runs: int) -> float:
    rates = []
    for run in range(runs):
        search = PUCTSearch(evaluator, batch_size=batch, seed=run, cache_size=0)
        start = time.perf_counter()
        search.run(GameState(size, 7.5), BLACK, visits=visits, early_stop=False)
        rates.append(search.evaluations / (time.perf_counter() - start))
    return statistics.median(rates)


def speed(evaluator, size: int, batch: int, quick: bool) -> float:
    """Print the evaluator's and the search's rates on ``size``; return the
    search's evaluated visits/s."""
    runs = 3 if quick else 5
    count = batch * (4 if size > 9 else 8)
    raw = raw_rate(evaluator, random_positions(count, size, 20, 80 if size > 9 else 40),
                   batch, runs)
    visits = (100 if quick else 200) if size > 9 else (200 if quick else 400)
    searched = search_rate(evaluator, size, batch, visits, runs)
    board = f"{size}x{size}"
    print(f"  {board:5s} evaluator alone {raw:10,.0f} positions/s")
    print(f"  {board:5s} PUCT search     {searched:10,.0f} evaluated visits/s")
    print(f"  {board:5s} ratio search/raw {searched / raw:9.2f}   (goal >= 0.70)")
    return searched


def seconds_per_move(evaluator, batch: int, quick: bool) -> None:
    for n in (200, 800):
        times = []
        for run in range(1 if quick else 3):
            search = PUCTSearch(evaluator, batch_size=batch, seed=run)
            start = time.perf_counter()
            search.run(GameState(9, 7.5), BLACK, visits=n, early_stop=False)
            times.append(time.perf_counter() - start)
        print(f"  9x9 {n:>4} visits per move {statistics.median(times):7.2f} s")


def pool(evaluator, batch: int, quick: bool) -> None:
    """64 searches sharing the evaluator against one search alone."""
    searches, visits = 64, 24 if quick else 48
    games = games_at(random_positions(searches, 9, 10, 40))

    def alone(per_search_batch: int) -> float:
        rates = []
        for game in games[:4]:
            search = PUCTSearch(evaluator, batch_size=per_search_batch, seed=1, cache_size=0)
            start = time.perf_counter()
            search.run(game, game.to_move, visits=visits * 4, early_stop=False)
            rates.append(search.evaluations / (time.perf_counter() - start))
        return statistics.median(rates)

    jobs = [SearchJob(PUCTSearch(evaluator, batch_size=1, seed=k, cache_size=0), game,
                      game.to_move, visits) for k, game in enumerate(games)]
    batches: list[int] = []
    start = time.perf_counter()
    run_searches(jobs, evaluator, batches)
    elapsed = time.perf_counter() - start
    together = sum(job.search.evaluations for job in jobs) / elapsed
    one, one_batched = alone(1), alone(batch)
    print(f"  {searches} searches sharing one evaluator (9x9, {visits} visits each, "
          f"one leaf per search and round)")
    print(f"    average network batch {sum(batches) / len(batches):8.1f}   (goal >= 48)")
    print(f"    total visits/s        {together:8,.0f}   one search alone {one:,.0f}: "
          f"{together / one:.1f}x (goal >= 2x); batching {batch} leaves alone "
          f"{one_batched:,.0f}: {together / one_batched:.1f}x")


MEMORY_SCRIPT = """
import gc, resource, sys
from imago.bench import peak_rss_mb
from imago.bench.mcts import make_evaluator
from imago.game import BLACK, GameState
from imago.search import PUCTSearch
model, batch, visits = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
evaluator, _ = make_evaluator(model, batch)
# warm-up: the network's first calls at each batch size allocate for good
for n in range(1, batch + 1):
    evaluator.evaluate([GameState(19).current] * n)
PUCTSearch(evaluator, batch_size=batch).run(GameState(19), BLACK, visits=300)
gc.collect()
def resident():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize()
before = resident()
search = PUCTSearch(evaluator, batch_size=batch, seed=1)
search.run(GameState(19), BLACK, visits=visits // 4, early_stop=False)
first, quarter = search.root.total_visits(), resident()
search.run(GameState(19), BLACK, visits=visits, early_stop=False)
peak = peak_rss_mb() * 2**20
done = search.root.total_visits()
print(first, done, int(max(peak - before, 0)), resident() - quarter)
"""


def memory(model: str, batch: int, quick: bool) -> None:
    """The process's growth over a 19x19 search, and what a visit costs in
    its last three quarters: the tree's own cost, without what the network's
    back end allocates once (about 20 MB in its first few hundred calls)."""
    visits = 8_000 if quick else 20_000
    out = subprocess.run([sys.executable, "-c", MEMORY_SCRIPT, model, str(batch), str(visits)],
                         capture_output=True, text=True, check=True).stdout.split()
    first, done, growth, later = (int(word) for word in out[-4:])
    print(f"  19x19 peak memory growth {growth / 2**20:7.1f} MB over {done:,} visits "
          f"({growth / done:,.0f} bytes a visit); visits {first:,}-{done:,} "
          f"{later / max(done - first, 1):,.0f} bytes a visit (goal <= 1,000)")


def main(argv: list[str]) -> int:
    quick = "--quick" in argv
    batch = int(option(argv, "batch", "16"))
    model = option(argv, "model", default_model())
    evaluator, label = make_evaluator(model, batch)
    runs = 3 if quick else 5
    print(f"imago MCTS benchmark: evaluator {label}, batch {batch}, median of {runs} runs")
    rates = {size: speed(evaluator, size, batch, quick) for size in SIZES}
    print("  visits/s against 9x9: " + "  ".join(
        f"{size}x{size} {rates[size] / rates[9]:.2f}x" for size in SIZES[1:]))
    seconds_per_move(evaluator, batch, quick)
    pool(evaluator, batch, quick)
    memory(model, batch, quick)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
