"""Play matches between two GTP engines: ``python -m imago.match``.

Engines alternate colours game by game. Every move is checked with imago's
own rules; an illegal move, a crash or a move slower than the time limit
loses the game. Finished games are scored by a referee (GNU Go's
``final_score`` when it is installed, else imago's own count, the one
behind its ``final_score``) and saved as SGF. The report gives each
engine's wins with a 95% (Wilson) interval, mean and maximum seconds per
move, and losses by illegal move, crash or time.

Example::

    python -m imago.match --engine1 "python imagocli.py --algorithm uct" \\
        --engine2 "gnugo --mode gtp --level 1 --seed {game}" --games 10 --size 9 --time 2
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import sys
import time
from dataclasses import dataclass, field
from typing import Optional

from imago.match.client import EngineDied, GTPClient, GTPError, GTPTimeout
from imago.game import (BLACK, WHITE, GameState, IllegalMoveError, color_letter, count,
                        index_to_vertex, vertex_to_index)


@dataclass
class GameRecord:
    """The outcome of one game."""
    black: str
    white: str
    winner: Optional[int] = None          # BLACK, WHITE or None (draw / no result)
    result: str = ""                      # SGF-style: B+3.5, W+R, B+T, W+F, ...
    reason: str = ""                      # score, resign, illegal, crash, time, max moves
    moves: int = 0
    seconds: dict = field(default_factory=lambda: {BLACK: [], WHITE: []})
    sgf_path: str = ""


@dataclass
class EngineStats:
    """Totals for one engine over the match."""
    name: str
    wins: int = 0
    losses: int = 0
    draws: int = 0
    by_reason: dict = field(default_factory=dict)
    seconds: list = field(default_factory=list)

    def lost(self, reason: str) -> None:
        self.losses += 1
        self.by_reason[reason] = self.by_reason.get(reason, 0) + 1


def wilson_interval(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    """95% confidence interval of a win rate (Wilson score interval)."""
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def find_gnugo() -> Optional[str]:
    return shutil.which("gnugo") or ("/usr/games/gnugo" if os.path.exists("/usr/games/gnugo") else None)


class Referee:
    """Scores a finished game: GNU Go's ``final_score`` (Chinese rules) when
    available, else imago's count (:func:`imago.game.count`: dead stones
    removed, as imago's own ``final_score`` answers)."""

    def __init__(self, kind: str = "auto"):
        self.gnugo = find_gnugo() if kind in ("auto", "gnugo") else None
        if kind == "gnugo" and self.gnugo is None:
            raise SystemExit("the GNU Go referee was asked for but gnugo is not installed")
        self.name = "GNU Go" if self.gnugo else "imago"

    def score(self, game: GameState, moves: list[tuple[int, Optional[int]]]) -> str:
        """The result (``B+3.5``) of ``game`` as it stands; GNU Go replays
        ``moves`` to judge it."""
        if self.gnugo:
            with GTPClient([self.gnugo, "--mode", "gtp", "--chinese-rules"]) as ref:
                ref.send(f"boardsize {game.size}")
                ref.send("clear_board")
                ref.send(f"komi {game.komi}")
                for color, point in moves:
                    ref.send(f"play {color_letter(color)} {index_to_vertex(point, game.size)}")
                return ref.send("final_score", timeout=120).upper()
        return count(game.board, game.rules, game.to_move).result


def play_game(black: GTPClient, white: GTPClient, size: int, komi: float, seconds: Optional[float],
              max_moves: int, referee: Referee) -> tuple[GameRecord, GameState]:
    """One game; never raises for an engine's failure (it loses instead)."""
    record = GameRecord(black.name, white.name)
    game = GameState(size, komi)
    engines = {BLACK: black, WHITE: white}
    moves: list[tuple[int, Optional[int]]] = []
    # an engine gets its time plus a margin for process and protocol latency
    limit = None if seconds is None else seconds * 1.5 + 2.0

    def forfeit(loser: int, reason: str, letter: str) -> None:
        record.winner = 3 - loser
        record.result = f"{color_letter(3 - loser)}+{letter}"
        record.reason = reason

    for color, engine in engines.items():
        try:
            engine.send(f"boardsize {size}", timeout=60)
            engine.send("clear_board", timeout=60)
            engine.send(f"komi {komi}", timeout=60)
            if seconds is not None:
                try:
                    engine.send(f"time_settings 0 {max(1, round(seconds))} 1", timeout=60)
                except GTPError:
                    pass
        except (GTPError, EngineDied, GTPTimeout):
            forfeit(color, "crash", "F")
            return record, game
    color = BLACK
    while True:
        if len(moves) >= max_moves:
            record.reason = "max moves"
            break
        engine, other = engines[color], engines[3 - color]
        start = time.perf_counter()
        try:
            answer = engine.send(f"genmove {color_letter(color)}", timeout=limit)
        except GTPTimeout:
            forfeit(color, "time", "T")
            break
        except (GTPError, EngineDied):
            forfeit(color, "crash", "F")
            break
        elapsed = time.perf_counter() - start
        record.seconds[color].append(elapsed)
        if seconds is not None and elapsed > limit:
            forfeit(color, "time", "T")
            break
        word = answer.strip().lower()
        if word == "resign":
            forfeit(color, "resign", "R")
            break
        try:
            point = vertex_to_index(word, size)
            game.play(color, point)
        except (ValueError, IllegalMoveError):
            forfeit(color, "illegal", "F")
            break
        moves.append((color, point))
        try:
            other.send(f"play {color_letter(color)} {word}", timeout=60)
        except (GTPError, EngineDied, GTPTimeout):
            forfeit(3 - color, "crash", "F")
            break
        if game.consecutive_passes() >= 2:
            record.reason = "score"
            break
        color = 3 - color
    record.moves = len(moves)
    if record.reason in ("score", "max moves"):
        try:
            record.result = referee.score(game, moves)
        except (GTPError, EngineDied, GTPTimeout) as err:
            record.result = game.result()
            print(f"referee failed ({err}); imago's own count used", file=sys.stderr)
        record.winner = BLACK if record.result.startswith("B+") else \
            WHITE if record.result.startswith("W+") else None
    game.root.properties.update({"PB": [black.name], "PW": [white.name], "RE": [record.result],
                                 "KM": [f"{komi:g}"]})
    return record, game


def save_sgf(game: GameState, path: str) -> None:
    from imago import sgf
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(sgf.dumps(game))


def report(stats: list[EngineStats], games: int) -> str:
    lines = [f"{games} games"]
    for s in stats:
        low, high = wilson_interval(s.wins + 0.5 * s.draws, games)
        secs = s.seconds
        mean = sum(secs) / len(secs) if secs else 0.0
        worst = max(secs) if secs else 0.0
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(s.by_reason.items())) or "none"
        lines.append(f"{s.name}: {s.wins} wins ({s.wins / max(games, 1):.1%}, 95% CI "
                     f"{low:.1%}-{high:.1%}), {s.losses} losses, {s.draws} draws; "
                     f"seconds per move mean {mean:.2f} max {worst:.2f}; losses by {reasons}")
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m imago.match", description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--engine1", required=True,
                        help="command line of the first engine ({game} becomes the game "
                             "number, e.g. for --seed {game})")
    parser.add_argument("--engine2", required=True, help="command line of the second engine")
    parser.add_argument("--name1", help="display name of engine 1")
    parser.add_argument("--name2", help="display name of engine 2")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--time", type=float, default=None,
                        help="seconds per move (exceeding it by half plus 2 s loses)")
    parser.add_argument("--max-moves", type=int, default=None,
                        help="stop and score after this many moves (default 3 x points)")
    parser.add_argument("--sgf-dir", default=None, help="save each game here as SGF")
    parser.add_argument("--referee", choices=("auto", "gnugo", "imago"), default="auto")
    parser.add_argument("--show-stderr", action="store_true", help="let engines' stderr through")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    referee = Referee(args.referee)
    max_moves = args.max_moves or 3 * args.size * args.size
    if args.sgf_dir:
        os.makedirs(args.sgf_dir, exist_ok=True)
    stderr = None if args.show_stderr else subprocess_devnull()
    names = [args.name1 or engine_name(args.engine1.replace("{game}", "1")),
             args.name2 or engine_name(args.engine2.replace("{game}", "1"))]
    if names[0] == names[1]:
        names = [names[0] + " (1)", names[1] + " (2)"]
    stats = [EngineStats(names[0]), EngineStats(names[1])]
    print(f"match: {names[0]} vs {names[1]}, {args.games} games, {args.size}x{args.size}, "
          f"komi {args.komi:g}, referee {referee.name}", flush=True)
    for number in range(args.games):
        first_black = number % 2 == 0
        order = (0, 1) if first_black else (1, 0)
        commands = [c.replace("{game}", str(number + 1)) for c in (args.engine1, args.engine2)]
        clients = []
        try:
            for i in order:
                clients.append(GTPClient(commands[i], name=names[i], stderr=stderr))
        except OSError as err:
            print(f"cannot start engine: {err}", file=sys.stderr)
            return 2
        try:
            record, game = play_game(clients[0], clients[1], args.size, args.komi, args.time,
                                     max_moves, referee)
        finally:
            for c in clients:
                c.close()
        black_stats, white_stats = stats[order[0]], stats[order[1]]
        black_stats.seconds += record.seconds[BLACK]
        white_stats.seconds += record.seconds[WHITE]
        if record.winner is None:
            black_stats.draws += 1
            white_stats.draws += 1
        else:
            winner, loser = (black_stats, white_stats) if record.winner == BLACK else \
                (white_stats, black_stats)
            winner.wins += 1
            loser.lost(record.reason)
        if args.sgf_dir:
            path = os.path.join(args.sgf_dir, f"game-{number + 1:03d}.sgf")
            try:
                save_sgf(game, path)
                record.sgf_path = path
            except Exception as err:  # saving must never stop a match
                print(f"could not save {path}: {err}", file=sys.stderr)
        print(f"game {number + 1}: B {record.black} - W {record.white}: {record.result or '?'} "
              f"({record.reason}, {record.moves} moves)", flush=True)
    print(report(stats, args.games))
    return 0


def engine_name(command: str) -> str:
    """``name version`` as the engine reports them (the command if it cannot)."""
    try:
        with GTPClient(command) as probe:
            name = probe.send("name", timeout=60)
            try:
                version = probe.send("version", timeout=60)
            except GTPError:
                version = ""
        return f"{name} {version}".strip() or command
    except (OSError, GTPError, EngineDied, GTPTimeout):
        return command.split()[0]


def subprocess_devnull():
    import subprocess
    return subprocess.DEVNULL


if __name__ == "__main__":
    sys.exit(main())
