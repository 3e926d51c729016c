"""``python -m imago.bench arch``: which residual network a 19x19 search can afford.

The goal it serves: at 2 s a move on 19x19 the search reaches at least
1,500 visits on this machine. Prints, in one run:

- the shipped 19x19 network (``models/soup.keras``, 6 blocks of 64
  filters, in the machine's inference precision) searching 19x19 for 2 s
  through the engine's own path (:meth:`MCTSAlgorithm.choose_move` with ``seconds=2``, as a timed
  ``genmove`` calls it: batches of 16, random symmetries, the root over all
  8), from the empty board and from move 100 of a real game
  (``tests/data/ai19-game-00321.sgf``), each with a fresh tree and cache
  after a warm-up search: root visits, network evaluations, seconds, and
  the shares of that time spent in the network's own calls, in the
  evaluator around them (feature encoding, symmetries) and elsewhere (the
  tree), clocked during the search;
- residual networks of several depths and widths, built with
  :func:`imago.nn.networks.create_network` (untrained: the weights do not
  change the speed): parameters, multiply-adds per 19x19 position, and
  positions/s at batch 8, 16 and 32 on 13x13 and 19x19 (the compiled
  inference function, planes encoded beforehand);
- for each, the visits a 2 s 19x19 search would reach ("est."): the
  shipped network's search time outside its network calls (clocked above,
  per visit) plus the candidate's time per position at batch 16; without
  ``--quick``, also the real 2 s engine search with each candidate (saved
  to a temporary model file and loaded as the engine loads one) from the
  same two positions, as its visits a second times 2 s: an untrained
  network's priors and values are no trained one's (its search may even
  stop early, sure of a move), so the estimate is the figure to compare,
  the real search its check.

``--quick`` measures three candidates briefly and skips their searches.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

from imago.bench import random_positions
from imago.game import GameState
from imago.nn.evaluator import shipped_model

from .nn import median_seconds

REPO = Path(__file__).resolve().parent.parent.parent
SHIPPED = shipped_model(19)
GAME = REPO / "tests" / "data" / "ai19-game-00321.sgf"
MIDGAME = 100
"""Moves played before the midgame position."""
SECONDS = 2.0
GOAL = 1_500
SEARCH_BATCH = 16
"""The engine's default network batch (``MCTSAlgorithm(batch_size=16)``)."""
BATCHES = (8, 16, 32)
SIZES = (13, 19)
PLANE_SET = "extended"
CANDIDATES = ((6, 64), (5, 64), (4, 96), (8, 48), (6, 48), (10, 32), (6, 32), (4, 32))
"""(blocks, filters); the first is the shipped network's shape."""
QUICK_CANDIDATES = ((6, 64), (6, 48), (4, 32))


def positions() -> dict[str, GameState]:
    """The searched positions: the empty 19x19 board, and move ``MIDGAME``
    of a real game (of a random one when the record is not there)."""
    opening = GameState(19, 7.5)
    if GAME.is_file():
        from imago import sgf

        middle = sgf.load(GAME)[0]
        for _ in range(MIDGAME):
            middle.forward()
        label = f"move {MIDGAME} of {GAME.name}"
    else:
        node = random_positions(1, 19, MIDGAME, MIDGAME)[0]
        middle = GameState(19, 7.5)
        for move in node.path_from_root()[1:]:
            middle.play(move.color, move.point)
        label = f"move {MIDGAME} of a random game"
    return {"empty board": opening, label: middle}


def macs_per_point(blocks: int, filters: int, planes: int, head: int = 32) -> int:
    """Multiply-adds per board point of a residual network: the 3x3 input
    convolution, two 3x3 convolutions a block, the 1x1 head convolutions."""
    return 9 * filters * (planes + 2 * blocks * filters) + filters * (2 * head + 1) + head


def throughput(net, sizes=SIZES, batches=BATCHES, seconds: float = 1.0
               ) -> dict[tuple[int, int], float]:
    """Positions/s of ``net`` by (board size, batch)."""
    from imago.nn.features import encode_batch

    rates = {}
    for size in sizes:
        x = encode_batch(random_positions(max(batches), size, 20, 80), net.plane_set)
        for batch in batches:
            xb = x[:batch]
            rates[size, batch] = batch / median_seconds(lambda: net.evaluate(xb), seconds)
    return rates


class Clocked:
    """Seconds spent in methods of objects, by label: the search's time in
    the network's own calls and in the evaluator around them."""

    def __init__(self):
        self.seconds: dict[str, float] = {}

    def wrap(self, obj, method: str, label: str) -> None:
        """Time ``obj.method`` (an instance attribute shadowing the class's)."""
        call = getattr(obj, method)
        self.seconds.setdefault(label, 0.0)

        def clocked(*args, **kwargs):
            start = time.perf_counter()
            try:
                return call(*args, **kwargs)
            finally:
                self.seconds[label] += time.perf_counter() - start

        setattr(obj, method, clocked)


class Searched(tuple):
    """One timed move: ``(visits, evaluations, seconds, network_s, evaluator_s)``;
    ``network_s``: in the network's calls; ``evaluator_s``: in the evaluator,
    network included (encoding, symmetries)."""

    visits = property(lambda self: self[0])
    evaluations = property(lambda self: self[1])
    elapsed = property(lambda self: self[2])
    network = property(lambda self: self[3])
    evaluator = property(lambda self: self[4])


def engine_search(algorithm, clock: Clocked, state: GameState, seconds: float = SECONDS
                  ) -> Searched:
    """One timed move of ``algorithm`` from ``state`` with a fresh tree and
    cache."""
    search = algorithm.search
    algorithm.new_game(state)
    search.cache.clear()
    evaluations = search.evaluations
    before = dict(clock.seconds)
    start = time.perf_counter()
    algorithm.choose_move(state, state.to_move, seconds=seconds)
    elapsed = time.perf_counter() - start
    spent = {k: v - before[k] for k, v in clock.seconds.items()}
    return Searched((search.root.total_visits(), search.evaluations - evaluations, elapsed,
                     spent["network"], spent["evaluator"]))


def engine_searches(model: str, states: dict[str, GameState], runs: int,
                    seconds: float = SECONDS) -> dict[str, Searched]:
    """Median (by visits) of ``runs`` timed moves from each position, after
    a warm-up move (the network's first calls at each batch size). The
    evaluator and its network are clocked."""
    from imago.engine.mcts_algorithm import MCTSAlgorithm

    algorithm = MCTSAlgorithm(model=model, batch_size=SEARCH_BATCH, seed=1)
    algorithm.prepare(19)
    clock = Clocked()
    clock.wrap(algorithm.network.network, "evaluate", "network")
    for method in ("evaluate", "evaluate_all_symmetries"):
        clock.wrap(algorithm.network, method, "evaluator")
    engine_search(algorithm, clock, GameState(19, 7.5), min(seconds, 1.0))
    out = {}
    for label, state in states.items():
        results = sorted((engine_search(algorithm, clock, state, seconds) for _ in range(runs)),
                         key=lambda r: r.visits)
        out[label] = results[len(results) // 2]
    return out


def main(argv: list[str]) -> int:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    from imago.nn.features import num_planes
    from imago.nn.networks import NeuralNetwork, create_network

    quick = "--quick" in argv
    runs = 1 if quick else 3
    states = positions()
    shipped = NeuralNetwork.load(SHIPPED)
    shape = "x".join(str(shipped.params.get(k, "?")) for k in ("blocks", "filters"))
    print(f"19x19 search in {SECONDS:g} s through MCTSAlgorithm.choose_move, "
          f"{SHIPPED.name} ({shipped.architecture} {shape}), batch {SEARCH_BATCH}, "
          f"fresh tree, median of {runs}:")
    searched = engine_searches(str(SHIPPED), states, runs, SECONDS)
    for label, r in searched.items():
        print(f"  {label:34s} {r.visits:6,d} visits {r.evaluations:6,d} evaluations "
              f"{r.elapsed:5.2f} s  {r.visits / r.elapsed:5.0f} visits/s  "
              f"(goal >= {GOAL:,} visits)")
        print(f"  {'':34s} network calls {r.network / r.elapsed:4.0%}  encoding and "
              f"symmetries {(r.evaluator - r.network) / r.elapsed:4.0%}  tree and the rest "
              f"{(r.elapsed - r.evaluator) / r.elapsed:4.0%}  ({r.evaluations / r.network:,.0f}"
              f" positions/s in the network)")
    results = list(searched.values())
    per_visit_outside = statistics.mean((r.elapsed - r.network) / r.visits for r in results)
    evals_per_visit = statistics.mean(r.evaluations / r.visits for r in results)
    print(f"  outside the network calls: {per_visit_outside * 1e3:.2f} ms a visit; "
          f"{evals_per_visit:.2f} evaluations a visit")
    left = SECONDS - GOAL * per_visit_outside
    if left > 0:
        print(f"  {GOAL:,} visits in {SECONDS:g} s need a network of "
              f"{GOAL * evals_per_visit / left:,.0f} positions/s in the search on 19x19 "
              f"with that time outside it")
    else:
        print(f"  {GOAL:,} visits in {SECONDS:g} s: the time outside the network alone "
              f"takes {GOAL * per_visit_outside:.1f} s")

    planes = num_planes(PLANE_SET)
    print(f"residual networks ({PLANE_SET} planes, untrained), positions/s; 'est.': visits "
          f"in {SECONDS:g} s on 19x19 from the network's batch-{SEARCH_BATCH} rate plus the "
          f"search's time outside it")
    head = "".join(f"{f'{s}x{s} b{b}':>11s}" for s in SIZES for b in BATCHES)
    real = "" if quick else f"{'search: empty':>15s}{'midgame':>9s}"
    if not quick:
        print(f"  'search': the real {SECONDS:g} s engine search with the candidate, "
              f"its visits/s x {SECONDS:g} s")
    print(f"  {'blocks x filters':16s} {'params':>8s} {'MMAC/pos':>9s}{head}{'est.':>7s}{real}")
    with tempfile.TemporaryDirectory() as tmp:
        for blocks, filters in (QUICK_CANDIDATES if quick else CANDIDATES):
            net = create_network("residual", board_size=19, plane_set=PLANE_SET,
                                 blocks=blocks, filters=filters)
            rates = throughput(net, seconds=0.3 if quick else 1.0)
            estimate = SECONDS / (per_visit_outside
                                  + evals_per_visit / rates[19, SEARCH_BATCH])
            macs = macs_per_point(blocks, filters, planes) * 19 * 19 / 1e6
            cells = "".join(f"{rates[s, b]:11,.0f}" for s in SIZES for b in BATCHES)
            line = (f"  {f'{blocks} x {filters}':16s} {net.model.count_params():8,d} "
                    f"{macs:9.0f}{cells}{estimate:7,.0f}")
            if not quick:
                path = net.save(Path(tmp) / f"residual{blocks}x{filters}.keras")
                found = engine_searches(str(path), states, 1, SECONDS)
                line += "".join(f"{r.visits / r.elapsed * SECONDS:{w},.0f}"
                                for r, w in zip(found.values(), (15, 9)))
            print(line)
    print(f"  goal: >= {GOAL:,} visits in {SECONDS:g} s on 19x19")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
