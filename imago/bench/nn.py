"""``python -m imago.bench nn``: network and training throughput.

Prints, in one run:

- feature encoding, microseconds per position on 9x9, 13x13 and 19x19,
  for each plane set;
- positions/s of each shipped model in ``models/`` at batch 1, 8, 16 and
  32 (through the compiled inference function, planes encoded beforehand)
  on every size it plays (9x9, 13x13 and 19x19 for a fully convolutional
  model), and the 13x13 and 19x19 figures at batch 32 as a share of 9x9's
  beside the board areas' ratio;
- for each model with an inference copy, positions/s at batch 16 on 9x9
  and 19x19 of the model as trained against the copy the engine infers
  with (batch normalisation folded into the convolutions) in float32 and
  in bfloat16, interleaved, with their ratios (the engine takes bfloat16
  where the processor has it natively: :mod:`imago.nn.precision`; the
  other figures are the engine's, in the precision the heading names);
- training samples/s of the shipped residual architecture fed from the
  cached ``.npz`` shards (load + symmetry augmentation on the fly) next to
  ``fit`` on the same samples already in memory as float32 arrays, and
  their ratio (goal >= 0.8).

``--quick`` shortens every measurement. Shards come from the cache when
``train.py`` built them already, else from a few games of
``../shared/data`` (or random games) in a temporary cache.
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from pathlib import Path

from imago.bench import random_positions
from imago.nn.modelfile import MODELS_DIR

import numpy as np

REPO = Path(__file__).resolve().parent.parent.parent
MODELS = MODELS_DIR
"""The networks measured: the shipped ones."""
DATA = REPO.parent / "shared" / "data"


SIZES = (9, 13, 19)
"""The board sizes measured."""


def _positions(n: int = 64, size: int = 9):
    """Game-tree nodes of random games (varied move numbers): 10 to 59
    moves on 9x9, as many per point of the board on larger ones."""
    scale = size * size / 81
    return random_positions(n, size, round(10 * scale), round(59 * scale))


def median_seconds(fn, seconds: float) -> float:
    """Median seconds per call of ``fn`` over about ``seconds`` (after one
    untimed call)."""
    fn()
    times = []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end or len(times) < 3:
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def bench_features(quick: bool) -> None:
    from imago.nn.features import PLANE_SETS, encode_into, num_planes

    print("features (one position at a time, us/position):")
    print("  plane set " + "".join(f"{f'{n}x{n}':>9s}" for n in SIZES))
    nodes = {size: _positions(64 if size == 9 else 32, size) for size in SIZES}
    for plane_set in PLANE_SETS:
        cells = []
        for size in SIZES:
            out = np.empty((size, size, num_planes(plane_set)), np.float32)

            def run(nodes=nodes[size], out=out):
                for node in nodes:
                    encode_into(out, node, plane_set)

            per = median_seconds(run, 0.2 if quick else 1.0) / len(nodes[size])
            cells.append(f"{per * 1e6:9.1f}")
        goal = "  (goal <= 50 on 9x9)" if plane_set == "history" else ""
        print(f"  {plane_set:9s} " + "".join(cells) + goal)


def bench_models(quick: bool) -> None:
    from imago.nn.features import encode_batch
    from imago.nn.networks import NeuralNetwork

    models = sorted(MODELS.glob("*.keras"))
    if not models:
        print("no shipped models in models/")
        return
    from imago.nn.precision import inference_precision

    import keras

    batches = (1, 8, 16, 32)
    print("network inference (positions/s; planes encoded beforehand; "
          f"{inference_precision(keras.backend.backend())} where the model can):")
    loaded = []
    for path in models:
        net = NeuralNetwork.load(path)
        loaded.append((net, path.name))
        sizes = SIZES if net.any_size else [s for s in SIZES if s in net.board_sizes]
        top = {}
        for size in sizes:
            x = encode_batch(_positions(32, size), net.plane_set)
            figures = []
            for batch in batches:
                xb = x[:batch]
                per = median_seconds(lambda: net.evaluate(xb), 0.3 if quick else 2.0)
                figures.append(f"batch {batch:2d}: {batch / per:7.0f}")
            top[size] = batches[-1] / per
            print(f"  {path.name:18s} {f'{size}x{size}':>5s}  " + "  ".join(figures))
        for size in sizes[1:]:
            if 9 in top:
                print(f"  {path.name:18s} {f'{size}x{size}':>5s}  batch {batches[-1]} at "
                      f"{top[size] / top[9]:.2f}x the 9x9 rate (area ratio 81/{size * size} "
                      f"= {81 / (size * size):.2f})")
    for net, name in loaded:
        for size in (9, 19):
            bench_precision(net, name, quick, size)


def bench_precision(net, name: str, quick: bool, size: int = 19, batch: int = 16,
                    rounds: int = 5) -> None:
    """The model as trained (float32, batch normalisation as layers)
    against its inference copy (normalisation folded into the convolutions)
    in float32 and in bfloat16, alternating in short rounds so that all see
    the same load; prints medians and their ratios to the first."""
    if not net.has_inference_copy or size not in (SIZES if net.any_size else net.board_sizes):
        return
    from imago.nn.features import encode_batch

    x = encode_batch(_positions(batch, size), net.plane_set)
    ways = {"as trained": (True, "float32"), "folded float32": (False, "float32"),
            "folded bfloat16": (False, "bfloat16")}
    rates: dict[str, list[float]] = {way: [] for way in ways}
    for _ in range(2 if quick else rounds):
        for way, (live, precision) in ways.items():
            with net.answering_with(live, precision):
                rates[way].append(batch / median_seconds(lambda: net.evaluate(x),
                                                         0.2 if quick else 0.6))
    medians = {way: statistics.median(figures) for way, figures in rates.items()}
    base = medians["as trained"]
    print(f"  {name:18s} {f'{size}x{size}':>5s}  batch {batch}: " + ", ".join(
        f"{way} {rate:5.0f}" + ("" if way == "as trained" else f" ({rate / base:.2f}x)")
        for way, rate in medians.items()))


def _shards(tmp: Path, quick: bool):
    """A data set from cached shards: the default cache when train.py filled
    it, else a temporary cache built from a few games."""
    from imago.training.data import default_cache_dir, load_dataset

    inputs = [str(DATA / "katago9"), str(DATA / "gnugo9")]
    if all(Path(i).is_dir() for i in inputs):
        cache = default_cache_dir()
        if not (cache / "shards").is_dir():
            cache = tmp
        max_games = None if cache != tmp else (60 if quick else 200)
        return load_dataset(inputs, "history", 9, cache, 0.1, max_games=max_games), cache
    # no shared data: write random games and cache them
    from imago.game import BLACK, GameState, format_sgf_point, from_index

    games = tmp / "games"
    games.mkdir()
    rng = random.Random(3)
    for g in range(40):
        state, color, moves = GameState(9), BLACK, []
        for _ in range(60):
            p = state.board.random_move(color, rng)
            state.play(color, p)
            letter = "B" if color == BLACK else "W"
            moves.append(f";{letter}[{'' if p is None else format_sgf_point(from_index(p, 9))}]")
            color = 3 - color
        (games / f"g{g}.sgf").write_text(f"(;SZ[9]KM[7.5]RE[B+1]{''.join(moves)})")
    load_dataset([str(games)], "history", 9, tmp, 0.1)
    return load_dataset([str(games)], "history", 9, tmp, 0.1), tmp


def bench_training(quick: bool) -> None:
    import keras

    from imago.nn.networks import create_network
    from imago.training.batches import batches, make_batch

    with tempfile.TemporaryDirectory() as tmpdir:
        t = time.perf_counter()
        data, cache = _shards(Path(tmpdir), quick)
        load_s = time.perf_counter() - t
    n = min(len(data.train), 2048 if quick else 8192)
    train = data.train.subset(np.arange(n))
    batch = 256
    print(f"training (residual 6x64, batch {batch}, {n} samples; shards from {cache}, "
          f"loaded in {load_s:.1f}s):")
    keras.utils.set_random_seed(1)
    net = create_network("residual", 9, "history", blocks=6, filters=64)
    net.compile()
    heads = net.heads
    # warm up: trace the train step for both input pipelines (they differ in
    # the batch dimension Keras gives the compiled step)
    warm = train.subset(np.arange(min(2 * batch, n)))
    x0, y0 = make_batch(warm, np.arange(len(warm)), heads, None)
    net.model.fit(x0, y0, batch_size=batch, epochs=1, verbose=0)
    net.model.fit(batches(warm, heads, batch, augment=True), epochs=1, verbose=0)

    x, y = make_batch(train, np.arange(n), heads, None)
    rates = {"memory": [], "shards": []}
    for _ in range(1 if quick else 2):
        t = time.perf_counter()
        net.model.fit(x, y, batch_size=batch, epochs=1, verbose=0, shuffle=True)
        rates["memory"].append(n / (time.perf_counter() - t))
        t = time.perf_counter()
        net.model.fit(batches(train, heads, batch, augment=True), epochs=1, verbose=0)
        rates["shards"].append(n / (time.perf_counter() - t))
    mem = max(rates["memory"])
    shard = max(rates["shards"])
    print(f"  in-memory float32 arrays : {mem:8.0f} samples/s")
    print(f"  cached shards + symmetry : {shard:8.0f} samples/s")
    print(f"  ratio shards / memory    : {shard / mem:8.2f}  (goal >= 0.8)")


def main(argv: list[str]) -> int:
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    quick = "--quick" in argv
    bench_features(quick)
    bench_models(quick)
    bench_training(quick)
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))
