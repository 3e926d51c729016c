"""Play matches between two GTP engines: the games, the referee, the report.

Engines alternate colours game by game. Every move is checked with imago's
own rules; an illegal move, a crash or a move slower than the time limit
loses the game. Finished games are scored by a referee (GNU Go's
``final_score`` when it is installed, else imago's own count, the one
behind its ``final_score``) and saved as SGF as each ends. The report gives
each engine's wins with a 95% (Wilson) interval, mean and maximum seconds
per move, and losses by illegal move, crash or time. The command line
(``python -m imago.match``) is :mod:`.cli`.
"""

from __future__ import annotations

import math
import os
import random
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from typing import Optional

from imago.match.client import EngineDied, GTPClient, GTPError, GTPTimeout
from imago.game import (BLACK, WHITE, GameState, IllegalMoveError, color_letter,
                        index_to_vertex, vertex_to_index)
from imago.game.rulesets import KataRules, imago_rules_word


@dataclass
class GameRecord:
    """The outcome of one game."""
    black: str
    white: str
    winner: Optional[int] = None          # BLACK, WHITE or None (draw / no result)
    result: str = ""                      # SGF-style: B+3.5, W+R, B+T, W+F, ...
    reason: str = ""                      # score, resign, illegal, crash, time, max moves
    detail: str = ""                      # what went wrong, for a forfeit
    moves: int = 0
    seconds: dict = field(default_factory=lambda: {BLACK: [], WHITE: []})
    sgf_path: str = ""
    number: int = 0                       # the game's number in the match (its SGF's)
    before_play: bool = False             # lost by a crash while the game was set up
    opening: int = 0                      # random opening moves the match played first
    elapsed: float = 0.0                  # the game's seconds, wall clock


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
    """The Wilson score interval of a win share: ``wins`` of ``games`` (a
    draw counts as half a win, so ``wins`` may end in .5), ``z`` standard
    deviations wide (1.96: 95%). No games: (0, 1), nothing is known."""
    if games < 0 or not 0 <= wins <= games:
        raise ValueError(f"need 0 <= wins <= games, got {wins} wins of {games} games")
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    z2 = z * z
    denominator = 1 + z2 / games
    centre = (p + z2 / (2 * games)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / games + z2 / (4 * games * games))
    return max(0.0, centre - half), min(1.0, centre + half)


def find_gnugo() -> Optional[str]:
    """GNU Go's program, when it is installed."""
    installed = "/usr/games/gnugo"
    return shutil.which("gnugo") or (installed if os.path.exists(installed) else None)


class Referee:
    """Scores a finished game: GNU Go's ``final_score`` (Chinese rules) when
    available and the match's ``rules`` count as those do (imago's own,
    Chinese: by area, dead stones removed), else imago's count
    (:meth:`GameState.final_count`: dead stones removed, as imago's own
    ``final_score`` answers; territory, or every stone standing alive
    under Tromp-Taylor, as the rules say)."""

    def __init__(self, kind: str = "auto", rules: Optional[KataRules] = None):
        chinese = rules is None or (rules.scoring == "AREA" and rules.friendly_pass_ok)
        if kind == "gnugo" and not chinese:
            raise ValueError("--referee gnugo counts by Chinese rules (dead stones removed); "
                             "other --rules are counted by --referee imago")
        self.gnugo = find_gnugo() if kind in ("auto", "gnugo") and chinese else None
        if kind == "gnugo" and self.gnugo is None:
            raise ValueError("--referee gnugo: GNU Go is not installed (gnugo not found)")
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
        return game.final_count().result


def random_opening(game: GameState, count: int, rng: random.Random) -> list[int]:
    """Play ``count`` moves on ``game`` at uniform random legal points (the
    side to move alternating from Black), for variety between games of
    deterministic engines; the points played."""
    points = []
    for _ in range(count):
        color = game.to_move
        legal = sorted(game.board.legal_moves(color))
        if not legal:
            break
        point = rng.choice(legal)
        game.play(color, point)
        points.append(point)
    return points


def play_game(black: GTPClient, white: GTPClient, size: int, komi: float, seconds: Optional[float],
              max_moves: int, referee: Referee, opening: int = 0,
              rng: Optional[random.Random] = None,
              rules: Optional[KataRules] = None) -> tuple[GameRecord, GameState]:
    """One game; never raises for an engine's failure (it loses instead).
    ``opening`` random moves (:func:`random_opening`, drawn from ``rng``)
    are played first and told to both engines. ``rules`` (None: imago's
    own) are counted by the referee and told to the engines that take
    ``kata-set-rules`` (:func:`set_up`)."""
    record = GameRecord(black.name, white.name)
    started = time.perf_counter()
    game = GameState(size, komi)
    if rules is not None:
        game.apply_rules(rules)
    engines = {BLACK: black, WHITE: white}
    moves: list[tuple[int, Optional[int]]] = []
    # an engine gets its time plus a margin for process and protocol latency
    limit = None if seconds is None else seconds * 1.5 + 2.0

    def forfeit(loser: int, reason: str, letter: str, detail: object = "") -> None:
        record.winner = 3 - loser
        record.result = f"{color_letter(3 - loser)}+{letter}"
        record.reason = reason
        record.detail = str(detail)

    for color, engine in engines.items():
        try:
            set_up(engine, size, komi, seconds, rules)
        except (GTPError, EngineDied, GTPTimeout) as err:
            forfeit(color, "crash", "F", err)
            record.before_play = True
            break
    color = BLACK
    if opening and not record.result:
        for point in random_opening(game, opening, rng or random.Random(0)):
            word = index_to_vertex(point, size)
            moves.append((color, point))
            for side, engine in engines.items():
                try:
                    engine.send(f"play {color_letter(color)} {word}", timeout=60)
                except (GTPError, EngineDied, GTPTimeout) as err:
                    forfeit(side, "crash", "F", err)
                    record.before_play = True
                    break
            if record.result:
                break
            color = 3 - color
        record.opening = len(moves)
    while not record.result:
        if len(moves) >= max_moves:
            record.reason = "max moves"
            break
        engine, other = engines[color], engines[3 - color]
        start = time.perf_counter()
        try:
            answer = engine.send(f"genmove {color_letter(color)}", timeout=limit)
        except GTPTimeout as err:
            forfeit(color, "time", "T", err)
            break
        except (GTPError, EngineDied) as err:
            forfeit(color, "crash", "F", err)
            break
        elapsed = time.perf_counter() - start
        record.seconds[color].append(elapsed)
        if seconds is not None and elapsed > limit:
            forfeit(color, "time", "T", f"{engine.name} took {elapsed:.1f} s")
            break
        word = answer.strip().lower()
        if word == "resign":
            forfeit(color, "resign", "R")
            break
        try:
            point = vertex_to_index(word, size)
            game.play(color, point)
        except (ValueError, IllegalMoveError) as err:
            forfeit(color, "illegal", "F", f"{engine.name} played {answer[:40]!r}: {err}")
            break
        moves.append((color, point))
        try:
            other.send(f"play {color_letter(color)} {word}", timeout=60)
        except (GTPError, EngineDied, GTPTimeout) as err:
            forfeit(3 - color, "crash", "F", err)
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
            record.result = game.final_count().result
            print(f"referee failed ({err}); imago's own count used", file=sys.stderr)
        record.winner = BLACK if record.result.startswith("B+") else \
            WHITE if record.result.startswith("W+") else None
    game.root.properties.update({"PB": [black.name], "PW": [white.name], "RE": [record.result],
                                 "KM": [f"{komi:g}"]})
    record.elapsed = time.perf_counter() - started
    return record, game


RULES_COMMAND = "kata-set-rules " + imago_rules_word()
"""The rules the referee plays, for an engine that takes KataGo's
``kata-set-rules``: KataGo plays Tromp-Taylor by default, whose suicide is
an illegal move here (a 13x13 game of ``katago-gtp 1`` was lost so)."""


def set_up(engine: GTPClient, size: int, komi: float, seconds: Optional[float],
           rules: Optional[KataRules] = None) -> None:
    """A new game on ``engine``: board size, empty board, komi, the time
    per move where it keeps time, and imago's rules where it takes them
    (:data:`RULES_COMMAND`; with ``rules``, their scoring, bonus and
    clean-up on imago's board, :func:`imago_rules_word`). Raises what the
    engine's client raises."""
    engine.send(f"boardsize {size}", timeout=60)
    engine.send("clear_board", timeout=60)
    engine.send(f"komi {komi}", timeout=60)
    try:
        takes_rules = engine.send("known_command kata-set-rules", timeout=60).strip() == "true"
    except GTPError:  # an engine without known_command
        takes_rules = False
    if takes_rules:
        engine.send("kata-set-rules " + imago_rules_word(rules), timeout=60)
    if seconds is not None:
        try:
            engine.send(f"time_settings 0 {max(1, round(seconds))} 1", timeout=60)
        except GTPError:
            pass


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
        reasons = ", ".join(f"{k} {v}" for k, v in sorted(s.by_reason.items()))
        lines.append(f"{s.name}: {s.wins} wins ({s.wins / max(games, 1):.1%}, 95% CI "
                     f"{low:.1%}-{high:.1%}), {s.losses} losses, {s.draws} draws; "
                     f"seconds per move mean {mean:.2f} max {worst:.2f}"
                     + (f"; losses by {reasons}" if reasons else ""))
    return "\n".join(lines)


@dataclass
class MatchSettings:
    """What a match is; :mod:`.cli` fills it from the command line."""
    commands: tuple[str, str]             # engine command lines; {game} becomes the game number
    names: tuple[str, str]
    games: int = 2
    size: int = 9
    komi: float = 7.5
    seconds: Optional[float] = None       # per move
    max_moves: Optional[int] = None       # default 3 x points
    sgf_dir: Optional[str] = None
    first_sgf: int = 1                    # number of the first SGF file written
    show_stderr: bool = False
    concurrent: int = 1                   # games at once, each with engines of its own
    keep_engines: bool = False            # engines go on from game to game (see Match)
    opening: tuple[int, int] = (0, 0)     # random opening moves, fewest and most (see Match)
    rules: Optional[KataRules] = None     # None: imago's own (see play_game)


SET_UP_RETRIES = 1
"""Times a game whose engine failed while it was set up (before the first
move: a process that died at its start, a start that took over a minute)
starts again with new engines before the failure counts as a loss: a
machine's hiccup is no result, an engine that always fails loses."""


class MatchStopped(Exception):
    """A game cut off because its match is stopping: it is not counted."""


class Match:
    """The games of a match, one by one or ``concurrent`` at once (each game
    with engine processes of its own, so the engines need not be thread-safe);
    :attr:`stats` and :attr:`records` always hold the games finished so far,
    each saved as SGF when it ends, so a match stopped early loses only the
    games in play. A game's number alone sets its colours and its ``{game}``
    seed, so concurrency changes the order games end in, not the games.

    With ``keep_engines``, an engine whose command has no ``{game}`` goes on
    from game to game (``clear_board`` starts each), sparing its start-up
    (imago's is seconds: TensorFlow and a network), one process for each
    game played at once; one that crashed, lost on time (it may still be
    thinking) or failed at its start is closed and the next game starts a
    new one.

    With ``opening`` (fewest, most), each game starts with a number of
    random moves in that range, both drawn from the game's number (so a
    game played again is the same game): variety for deterministic engines,
    as KataGo's raw policy is. With an SGF folder, ``index.tsv`` there lists
    each game (file, random_opening_moves, moves, end, result, seconds) as
    the shared record folders' do, so training skips the random moves."""

    def __init__(self, settings: MatchSettings, referee: Referee):
        self.settings = settings
        self.referee = referee
        self.stats = [EngineStats(settings.names[0]), EngineStats(settings.names[1])]
        self.records: list[GameRecord] = []
        self._lock = threading.Lock()
        self._live: list[GTPClient] = []      # engines of the games in play, and idle ones
        self._idle: tuple[list[GTPClient], list[GTPClient]] = ([], [])  # kept, by engine
        self._stopping = False

    @property
    def played(self) -> int:
        return len(self.records)

    def play(self, out=print) -> None:
        """Every game, one line each through ``out``, in the order they end.
        Raises OSError or ValueError when an engine cannot be started (the
        games finished before it stay counted); on Ctrl-C the engines of the
        games in play are stopped and those games are not counted. Every game
        counted has its line, whatever stops the match (one counted just
        before Ctrl-C too)."""
        shown: set[int] = set()

        def show(record: GameRecord) -> None:
            out(_line(record))
            shown.add(record.number)

        try:
            self._play_all(show)
        except BaseException:
            for record in list(self.records):
                if record.number not in shown:
                    show(record)
            raise
        finally:
            self._close_idle()

    def _play_all(self, show) -> None:
        """The games not played yet, each record through ``show`` as it ends."""
        numbers = range(self.played, self.settings.games)
        if self.settings.concurrent <= 1:
            for number in numbers:
                show(self.play_game(number))
            return
        pool = ThreadPoolExecutor(max_workers=self.settings.concurrent,
                                  thread_name_prefix="match-game")
        try:
            for future in as_completed([pool.submit(self.play_game, n) for n in numbers]):
                show(future.result())
        except BaseException:
            self._stop()
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown()

    def _stop(self) -> None:
        """Cut off the games in play: their engines are killed, so each game
        ends at once and, seeing the match stopping, is not counted."""
        with self._lock:
            self._stopping = True
            live = list(self._live)
        for client in live:
            if client.process.poll() is None:
                client.process.kill()

    def _start_engine(self, index: int, command: str, stderr) -> GTPClient:
        """Engine ``index``'s process for a game: a kept one that is idle
        (:attr:`MatchSettings.keep_engines`), else a new one."""
        with self._lock:
            if self._stopping:
                raise MatchStopped
            while self._idle[index]:
                client = self._idle[index].pop()
                if client.process.poll() is None:
                    return client
                self._live.remove(client)
            client = GTPClient(command, name=self.settings.names[index], stderr=stderr)
            self._live.append(client)
            return client

    def _keeps(self, index: int) -> bool:
        """Whether engine ``index`` goes on from game to game."""
        return self.settings.keep_engines and "{game}" not in self.settings.commands[index]

    def _release(self, index: int, client: GTPClient, healthy: bool) -> None:
        """A game's engine when the game is over: kept for the next game
        where it may be and is ``healthy``, else closed."""
        if healthy and self._keeps(index) and client.process.poll() is None:
            with self._lock:
                if not self._stopping:
                    self._idle[index].append(client)
                    return
        self._close(client)

    def _close(self, client: GTPClient) -> None:
        client.close()
        with self._lock:
            if client in self._live:
                self._live.remove(client)

    def _close_idle(self) -> None:
        """Close the engines kept for a next game: the match is over."""
        with self._lock:
            idle = [client for kept in self._idle for client in kept]
            for kept in self._idle:
                kept.clear()
        for client in idle:
            self._close(client)

    def play_game(self, number: int) -> GameRecord:
        """Game ``number`` of this match (from 0). Games are numbered on from
        the SGF files already in the folder, so a match resumed there goes on
        with new seeds for ``{game}`` and the colours alternating as before:
        engine 1 has Black in odd-numbered games. Raises MatchStopped for a
        game the stopping of its match cut off."""
        s = self.settings
        game_number = s.first_sgf + number
        order = (0, 1) if game_number % 2 == 1 else (1, 0)
        for attempt in range(1 + SET_UP_RETRIES):
            record, game = self._game_once(game_number, order)
            if not record.before_play or attempt == SET_UP_RETRIES:
                break
            print(f"game {game_number}: {record.detail}; the game starts again with new "
                  f"engines", file=sys.stderr)
        record.number = game_number
        with self._lock:
            if self._stopping:
                raise MatchStopped
            self._count(record, order)
        if s.sgf_dir:
            path = os.path.join(s.sgf_dir, f"game-{game_number:03d}.sgf")
            try:
                save_sgf(game, path)
                record.sgf_path = path
            except Exception as err:  # noqa: BLE001 - saving must never stop a match
                print(f"could not save {path}: {err}", file=sys.stderr)
            else:
                try:
                    with self._lock:
                        add_index_row(s.sgf_dir, record)
                except OSError as err:
                    print(f"could not list {path} in index.tsv: {err}", file=sys.stderr)
        return record

    def _game_once(self, game_number: int,
                   order: tuple[int, int]) -> tuple[GameRecord, GameState]:
        """Game ``game_number`` played once, with engines started for it."""
        s = self.settings
        commands = [c.replace("{game}", str(game_number)) for c in s.commands]
        stderr = None if s.show_stderr else subprocess.DEVNULL
        clients: list[GTPClient] = []
        record: Optional[GameRecord] = None
        try:
            for i in order:
                try:
                    clients.append(self._start_engine(i, commands[i], stderr))
                except OSError as err:
                    raise OSError(f"cannot start engine {i + 1} for game {game_number}: "
                                  f"{commands[i]!r} ({err.strerror or err})") from None
            rng = random.Random(game_number)
            opening = rng.randint(*s.opening) if s.opening[1] else 0
            record, game = play_game(clients[0], clients[1], s.size, s.komi, s.seconds,
                                     s.max_moves or 3 * s.size * s.size, self.referee,
                                     opening, rng, s.rules)
            return record, game
        finally:
            healthy = record is not None and not record.before_play and \
                record.reason not in ("crash", "time")
            for i, client in zip(order, clients):
                self._release(i, client, healthy)

    def _count(self, record: GameRecord, order: tuple[int, int]) -> None:
        """Add a finished game to the engines' totals and the records."""
        black, white = self.stats[order[0]], self.stats[order[1]]
        black.seconds += record.seconds[BLACK]
        white.seconds += record.seconds[WHITE]
        if record.winner is None:
            black.draws += 1
            white.draws += 1
        else:
            winner, loser = (black, white) if record.winner == BLACK else (white, black)
            winner.wins += 1
            loser.lost(record.reason)
        self.records.append(record)


INDEX_COLUMNS = ("file", "random_opening_moves", "moves", "end", "result", "seconds")
"""The columns of an SGF folder's ``index.tsv``, as the shared record
folders have them (training reads ``random_opening_moves``)."""

INDEX_ENDS = {"score": "two_passes", "max moves": "max_moves"}


def add_index_row(folder: str, record: GameRecord) -> None:
    """Append ``record``'s row to ``folder/index.tsv`` (its header first
    where the file is new)."""
    path = os.path.join(folder, "index.tsv")
    new = not os.path.exists(path)
    row = (os.path.basename(record.sgf_path), record.opening, record.moves,
           INDEX_ENDS.get(record.reason, record.reason), record.result, f"{record.elapsed:.1f}")
    with open(path, "a", encoding="utf-8") as index:
        if new:
            index.write("\t".join(INDEX_COLUMNS) + "\n")
        index.write("\t".join(str(value) for value in row) + "\n")


def _line(record: GameRecord) -> str:
    """One game's line of the match's output."""
    return (f"game {record.number}: B {record.black} - W {record.white}: "
            f"{record.result or '?'} ({record.reason}, {record.moves} moves"
            f"{': ' + record.detail if record.detail else ''})")
