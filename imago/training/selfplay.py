"""Fast self-play with the policy network alone: game records for the value head.

The shipped value head learnt from about a thousand games, a single result
each for some fifty positions, and it overfits. Games of the policy network
against itself cost one network call per move, and many games share each
call, so thousands of fresh results take minutes on a CPU (AlphaGo trained
its value network on self-play games for the same reason).

Each move is sampled from the legal part of the policy, never filling the
mover's own eye: with ``temperature`` for the first ``sample_moves`` moves
(variety), then with ``late_temperature`` (near the network's best play).
A game ends after two passes or ``max_moves`` moves and is counted as the
engine's ``final_score`` counts it (:func:`imago.game.count`: dead stones
judged by random playouts removed, open borders by the same estimate).
Games are written as SGF files that ``train.py`` reads like any other
records (``--train-heads value`` trains the value head alone on them).

Run ``python -m imago.training.selfplay --help``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Callable, Iterator, Optional

import numpy as np

from imago.game import GameState
from imago.game.state import settings_problem
from imago.nn.evaluator import NetworkEvaluator
from imago.nn.features import point_to_move

from .options import HelpFormatter, model_argument
from .start import writable_folder

PASS_MOVE = None


def choose_moves(policies: np.ndarray, games: list[GameState], temperatures: list[float],
                 rng: np.random.Generator) -> list[Optional[int]]:
    """One move per game from its policy row: legal, not into the mover's
    own eye, sampled in proportion to ``p ** (1 / temperature)``; pass when
    nothing else is left or the pass is drawn."""
    moves: list[Optional[int]] = []
    for policy, game, temperature in zip(policies, games, temperatures):
        board, color = game.board, game.to_move
        size = board.size
        candidates = [p for p in board.empties
                      if not board.is_eye(p, color) and board.illegal_reason(p, color) is None]
        index = [point_to_move(p, size) for p in candidates]
        weights = np.append(policy[index], policy[size * size]).astype(np.float64)
        weights = np.maximum(weights, 0.0) ** (1.0 / temperature)
        total = weights.sum()
        if not candidates or total <= 0:
            moves.append(PASS_MOVE)
            continue
        k = int(rng.choice(len(weights), p=weights / total))
        moves.append(candidates[k] if k < len(candidates) else PASS_MOVE)
    return moves


def finish(game: GameState) -> str:
    """The result of a game as it stands, as the engine's ``final_score``
    would give it (:func:`imago.game.count`), so the value head learns the
    results imago itself would claim."""
    return game.count().result


def play_games(network, games: int, size: int = 9, komi: float = 7.5, parallel: int = 128,
               temperature: float = 1.0, sample_moves: int = 12, late_temperature: float = 0.25,
               max_moves: Optional[int] = None, seed: Optional[int] = None
               ) -> Iterator[GameState]:
    """Play ``games`` games of ``network`` against itself, ``parallel`` at a
    time (one batched network call per move of all of them); yields each
    finished game with its result in the root's ``RE``."""
    rng = np.random.default_rng(seed)
    evaluator = NetworkEvaluator(network, symmetries="none")  # the one batching evaluator
    max_moves = max_moves or 2 * size * size
    started = 0
    active: list[GameState] = []
    while active or started < games:
        while len(active) < parallel and started < games:
            active.append(GameState(size, komi))
            started += 1
        nodes = [g.current for g in active]
        policies, _ = evaluator.evaluate(nodes)
        temps = [temperature if g.current.number < sample_moves else late_temperature
                 for g in active]
        still: list[GameState] = []
        for game, move in zip(active, choose_moves(policies, active, temps, rng)):
            game.play(game.to_move, move)
            if game.consecutive_passes() >= 2 or game.current.number >= max_moves:
                game.root.properties["RE"] = [finish(game)]
                yield game
            else:
                still.append(game)
        active = still


def write_games(network, output: Path, games: int, prefix: str = "selfplay",
                progress: Optional[Callable[[str], None]] = None, **options) -> dict:
    """Play and save ``games`` games as ``output/PREFIX-NNNNNN.sgf`` (the
    numbering continues after files already there); returns counts."""
    from imago.sgf import save

    output.mkdir(parents=True, exist_ok=True)
    first = 1 + max((int(p.stem.rsplit("-", 1)[1]) for p in output.glob(f"{prefix}-*.sgf")
                     if p.stem.rsplit("-", 1)[1].isdigit()), default=0)
    start = time.perf_counter()
    wins = {"B": 0, "W": 0, "0": 0}
    moves = 0
    for k, game in enumerate(play_games(network, games, **options)):
        result = game.root.properties["RE"][0]
        wins[result[0] if result[0] in "BW" else "0"] += 1
        moves += game.current.number
        game.root.properties["PB"] = game.root.properties["PW"] = ["imago policy self-play"]
        save(output / f"{prefix}-{first + k:06d}.sgf", game)
        done = k + 1
        if progress and (done % 50 == 0 or done == games):
            rate = done / (time.perf_counter() - start)
            progress(f"{done}/{games} games, {rate:.1f} games/s, "
                     f"Black {wins['B']} White {wins['W']}, {moves / done:.0f} moves a game")
    seconds = time.perf_counter() - start
    return {"games": games, "seconds": seconds, "black_wins": wins["B"],
            "white_wins": wins["W"], "mean_moves": moves / max(games, 1)}


def option_problems(args: argparse.Namespace) -> list[str]:
    """One line for each option value of the command line that makes no sense."""
    out = []
    for name in ("games", "parallel"):
        if getattr(args, name) < 1:
            out.append(f"--{name} must be at least 1, not {getattr(args, name)}")
    problem = settings_problem(args.size, args.komi)
    if problem is not None:
        out.append(f"--{problem}")
    for name in ("temperature", "late_temperature"):
        value = getattr(args, name)
        if not (math.isfinite(value) and value > 0):
            out.append(f"--{name.replace('_', '-')} must be a positive number, not {value:g}")
    if args.sample_moves < 0:
        out.append(f"--sample-moves must be 0 or more, not {args.sample_moves}")
    if args.seed is not None and not 0 <= args.seed < 2 ** 32:
        out.append(f"--seed must be from 0 to 2**32 - 1, not {args.seed}")
    return out


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m imago.training.selfplay", formatter_class=HelpFormatter,
        description="Play the policy network against itself and save the games as SGF\n"
                    "(training data for the value head: train.py --init MODEL "
                    "--train-heads value).")
    parser.add_argument("--model", default=None, metavar="FILE", type=model_argument,
                        help="network file (default: the shipped network of --size)")
    parser.add_argument("--games", type=int, default=1000, metavar="N",
                        help="games to play")
    parser.add_argument("--output", required=True, metavar="DIR",
                        help="folder for the SGF files (numbered after those already there)")
    parser.add_argument("--size", type=int, default=9, metavar="N", help="board size")
    parser.add_argument("--komi", type=float, default=7.5, help="komi for White")
    parser.add_argument("--parallel", type=int, default=128, metavar="N",
                        help="games sharing each network call")
    parser.add_argument("--temperature", type=float, default=1.0, metavar="T",
                        help="sampling temperature of the first --sample-moves moves")
    parser.add_argument("--sample-moves", type=int, default=12, metavar="N",
                        help="moves played at --temperature")
    parser.add_argument("--late-temperature", type=float, default=0.25, metavar="T",
                        help="sampling temperature after them")
    parser.add_argument("--seed", type=int, default=None, metavar="N",
                        help="random seed (default: a new one every run)")
    args = parser.parse_args(argv)
    problems = option_problems(args)
    if problems:
        parser.error("; ".join(problems))
    try:
        output = writable_folder(args.output, "--output")
    except ValueError as err:
        parser.error(str(err))

    from imago.nn.evaluator import default_model_path
    from imago.nn.networks import ModelSizeError, load_network

    model = args.model or default_model_path(args.size)
    if model is None:
        print("selfplay: no model given and the shipped one (or TensorFlow) is missing",
              file=sys.stderr)
        return 1
    try:
        network = load_network(model, board_size=args.size)
    except (OSError, ValueError, ModelSizeError) as err:
        print(f"selfplay: cannot load {model}: {err}", file=sys.stderr)
        return 1
    try:
        summary = write_games(network, output, args.games, size=args.size, komi=args.komi,
                              parallel=args.parallel, temperature=args.temperature,
                              sample_moves=args.sample_moves,
                              late_temperature=args.late_temperature, seed=args.seed,
                              progress=lambda line: print(line, flush=True))
    except KeyboardInterrupt:
        print(f"selfplay: interrupted; the games finished are in {output}", file=sys.stderr)
        return 130
    print(f"{summary['games']} games in {summary['seconds']:.0f} s: Black won "
          f"{summary['black_wins']}, White {summary['white_wins']}; "
          f"{summary['mean_moves']:.0f} moves a game")
    return 0


if __name__ == "__main__":
    sys.exit(main())
