"""Ownership accuracy of an analysis engine on held-out finished games, by game phase.

The figure the multi-size goal names (87% on 19x19) is the share of owned
points of a finished game's final position (as training reads it: dead stones
removed by the record's ``TB``/``TW`` markup, else the area of a game
counted to the end as it stands where that gives its result, else as
imago's count of it does; see :func:`~imago.training.data.final_ownership`)
whose owner an
estimate made earlier in the game gets right. ``train.py heldout`` measures
a network's raw ownership head on the held-out positions; this measures what
an *analysis engine* reports there, after a search, so that imago and
another engine are judged on the same positions the same way. It speaks
KataGo's JSON analysis protocol (``includeOwnership``, values from Black's
side), which imago's ``imago analysis`` and KataGo's ``katago analysis``
both answer:

    python -m imago.bench ownership                      # imago, shipped network
    python -m imago.bench ownership --model M --visits 200
    python -m imago.bench ownership --engine "katago analysis -model NET -config CFG"

``--dir`` (default ``../shared/data/katago19``) holds the games; the held-out
ones are those training holds out (5% of the games, split by name: the same
games ``train.py heldout`` measures); ``--all`` takes every game, for a
folder of games no network learnt from (fresh games of the same engine).
The positions are every k-th move after the random opening moves
``index.tsv`` lists, about ``--positions``
(default 400; ``--quick`` 60) in all; each is searched with ``--visits``
(default 50). It prints the accuracy overall and in the phases ``train.py
heldout`` reports (the share of the board holding stones).
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from imago.bench import SHARED_DATA, option

DEFAULT_DIR = SHARED_DATA / "katago19"


@dataclass
class Position:
    """One analysed turn: the final owners from Black's side and the share
    of the board holding stones at that turn."""
    owners: np.ndarray
    filled: float


def held_out_games(folder: Path, every_game: bool = False, gnugo=None
                   ) -> tuple[list, list[str]]:
    """The held-out games of ``folder`` (``every_game``: all its games, for a
    folder no network learnt from) as ``(name, record, opening, owners)``
    (``record`` the review's :class:`~imago.review.game.GameRecord`) whose
    final ownership training learns (markup, or a counted result), and the
    files and games skipped and why. With ``gnugo`` (a
    :class:`~imago.training.data.GnuGoDead`) a counted game without markup
    has the dead stones GNU Go names taken off its last position (records
    of real games end with dead stones standing); a game GNU Go cannot
    judge is skipped."""
    from imago.review.game import ReviewError, record_of
    from imago.sgf import find_sgf_files
    from imago.training.data import (HELDOUT_SHARE, final_ownership, is_validation_game,
                                     named_games, ownership_known)

    files, problems = find_sgf_files(folder)
    games = []
    for path, name, state, opening in named_games(files, problems):
        if not every_game and not is_validation_game(name, HELDOUT_SHARE):
            continue
        try:
            owners, how = final_ownership(state, path, gnugo)
        except ValueError as err:
            problems.append(str(err))
            continue
        if not ownership_known(state, how):
            result = (state.root.properties.get("RE") or [None])[0]
            problems.append(
                f"{name}: its last position counts out to {result} neither as the stones stand "
                "nor by imago's count (dead stones: --gnugo-dead)" if how == "unsettled" else
                f"{name}: neither counted (RE {result}) nor marked (TB/TW)")
            continue
        try:
            games.append((name, record_of(state, name=name), opening, owners))
        except ReviewError as err:
            problems.append(f"{name}: {err}")
    return games, problems


def build_queries(games: list, positions: int, visits: int
                  ) -> tuple[list[dict], dict[tuple[str, int], Position]]:
    """One query per game (the review's, :func:`imago.review.game.build_query`),
    analysing every k-th turn after its opening so that about ``positions``
    turns are asked in all."""
    from imago.nn.features import board_index
    from imago.review.game import build_query

    turns_in_all = sum(max(0, len(record.moves) - opening) for _, record, opening, _ in games)
    stride = max(1, turns_in_all // max(1, positions))
    queries, wanted = [], {}
    for name, record, opening, owners in games:
        turns = list(range(opening, len(record.moves), stride))
        if not turns:
            continue
        size = record.size
        for turn in turns:
            board = record.moves[turn - 1].board if turn else record.start.board
            cells = np.asarray(board.cells)[board_index(size)]
            wanted[(name, turn)] = Position(owners, float((cells != 0).sum()) / (size * size))
        query = build_query(record, visits, query_id=name)
        query.update(analyzeTurns=turns, includeOwnership=True,
                     overrideSettings={"reportAnalysisWinratesAs": "BLACK"})
        queries.append(query)
    return queries, wanted


def ask(command: Sequence[str], queries: list[dict], expected: int, timeout: float
        ) -> tuple[list[dict], str]:
    """Send every query to the engine, close its input and read its answers
    until it exits (or is stopped after ``timeout`` seconds): ``(final
    answers, what went wrong: its exit status and stderr's last lines)``."""
    engine = subprocess.Popen(list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, bufsize=1)
    errors: list[str] = []
    threading.Thread(target=lambda: errors.extend(engine.stderr), daemon=True).start()

    def feed() -> None:
        try:
            for query in queries:
                engine.stdin.write(json.dumps(query) + "\n")
            engine.stdin.close()
        except (BrokenPipeError, OSError):
            pass

    threading.Thread(target=feed, daemon=True).start()
    answers, started, shown = [], time.time(), 0.0
    timer = threading.Timer(timeout, engine.kill)
    timer.start()
    try:
        for line in engine.stdout:
            try:
                answer = json.loads(line)
            except ValueError:
                continue
            if not isinstance(answer, dict) or answer.get("isDuringSearch"):
                continue
            answers.append(answer)
            if time.time() - shown > 10:
                shown = time.time()
                print(f"  {len(answers)} of {expected} turns answered "
                      f"({shown - started:.0f} s)", file=sys.stderr, flush=True)
    finally:
        timer.cancel()
        engine.wait()
    trouble = "".join(errors[-5:]).strip()
    if engine.returncode:
        trouble = f"exit status {engine.returncode}" + (f": {trouble}" if trouble else "")
    return answers, trouble


def score(wanted: dict[tuple[str, int], Position], answers: list[dict]
          ) -> tuple[dict, list[str]]:
    """Hits and owned points overall and per phase, and the problems."""
    from imago.training.heldout import PHASES

    hits, owned = np.zeros(len(PHASES) + 1), np.zeros(len(PHASES) + 1)
    problems, seen = [], set()
    for answer in answers:
        if "error" in answer:
            problems.append(f"{answer.get('id', '?')}: {answer['error']}")
            continue
        key = (answer.get("id"), answer.get("turnNumber"))
        position = wanted.get(key)
        ownership = answer.get("ownership")
        if position is None or key in seen:
            continue
        try:
            values = np.asarray(ownership, dtype=float)
        except (TypeError, ValueError):
            values = np.zeros(0)
        if values.shape != position.owners.shape:
            problems.append(f"{key[0]} turn {key[1]}: no ownership of the board's size")
            continue
        seen.add(key)
        has = position.owners != 0
        right = (np.sign(values) == position.owners) & has
        phase = int(np.digitize(position.filled, PHASES))
        hits[phase] += right.sum()
        owned[phase] += has.sum()
    missing = len(wanted) - len(seen)
    if missing:
        problems.append(f"{missing} of {len(wanted)} turns got no ownership")
    return {"positions": len(seen), "hits": hits, "owned": owned}, problems


def engine_command(argv: list[str]) -> list[str]:
    """The analysis engine to ask: ``--engine``, else imago's own with
    ``--model`` (default: the shipped networks)."""
    command, model = option(argv, "engine", None), option(argv, "model", None)
    if command:
        return shlex.split(command)
    return [sys.executable, "-m", "imago.analysis"] + (["-model", model] if model else [])


def main(argv: list[str]) -> int:
    from imago.training.data import GnuGoDead, default_cache_dir
    from imago.training.heldout import PHASE_NAMES

    if option(argv, "engine", None) and option(argv, "model", None):
        print("ownership: --model chooses imago's network and --engine another engine: "
              "give one of them", file=sys.stderr)
        return 2
    folder = Path(option(argv, "dir", str(DEFAULT_DIR)))
    if not folder.is_dir():
        print(f"ownership: no folder {folder} (give --dir FOLDER of games counted to the "
              "end)", file=sys.stderr)
        return 2
    visits = int(option(argv, "visits", "50"))
    positions = 60 if "--quick" in argv else int(option(argv, "positions", "400"))
    every_game = "--all" in argv
    which = "" if every_game else "held-out "
    try:
        gnugo = GnuGoDead(default_cache_dir()) if "--gnugo-dead" in argv else None
    except FileNotFoundError as error:
        print(f"ownership: {error}", file=sys.stderr)
        return 2
    games, problems = held_out_games(folder, every_game, gnugo)
    for problem in problems[:5]:
        print(f"  skipped {problem}", file=sys.stderr)
    if len(problems) > 5:
        print(f"  ... {len(problems) - 5} more skipped", file=sys.stderr)
    queries, wanted = build_queries(games, positions, visits)
    if not wanted:
        print(f"ownership: no {which}counted or marked game in {folder}", file=sys.stderr)
        return 2
    command = engine_command(argv)
    print(f"ownership: {len(wanted)} positions of {len(queries)} {which}games in {folder}, "
          f"{visits} visits each, engine: {shlex.join(command)}", flush=True)
    started = time.time()
    try:
        answers, trouble = ask(command, queries, len(wanted), timeout=3600.0)
    except OSError as error:
        print(f"ownership: cannot start {shlex.join(command)}: {error}", file=sys.stderr)
        return 2
    seconds = time.time() - started
    figures, problems = score(wanted, answers)
    for problem in problems[:5]:
        print(f"  {problem}", file=sys.stderr)
    if trouble:
        print(f"  the engine: {trouble}", file=sys.stderr)
    if not figures["positions"]:
        print("ownership: the engine answered no turn with an ownership", file=sys.stderr)
        return 1
    hits, owned = figures["hits"], figures["owned"]
    phases = ", ".join(f"{name} {h / o:.1%}" for name, h, o in zip(PHASE_NAMES, hits, owned)
                       if o)
    print(f"ownership accuracy {hits.sum() / owned.sum():.1%} on {figures['positions']} "
          f"positions ({int(owned.sum())} owned points; by stones on the board: {phases}), "
          f"{seconds:.0f} s ({seconds / figures['positions']:.2f} s a position)")
    return 0
