"""Self-play games that start from other players' positions.

A loop whose games all start from the empty board sees only the positions
its own line of networks makes: its generations learn to beat each other
and, on 13x13, no longer gain against players of another style (README,
*Learning from self-play*). KataGo starts part of its self-play games from
positions of other games for the same reason. Here a share of the games
(``--opening-share``) starts after the first moves of a game drawn from SGF
records (``--openings``, e.g. ``../shared/data/katago13``): between one
move and ``--opening-moves`` (default a quarter of the board's points), and
never more than half of that game, so that the searches still play the
middle game and the end. The record's moves are not training positions:
every position a game records is one its own searches played from.

An opening line is kept as an array of ``(colour, point)`` rows (points as
:class:`~imago.game.GameBoard` indices of the line's board size), so that it
travels cheaply to worker processes and Ray actors.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import numpy as np

from imago.game import GameState

OPENING_SHARE = 0.5
"""The share of games started from an opening line when lines are given."""


@dataclass(frozen=True)
class OpeningLine:
    """The first moves of one record: ``moves`` rows ``(colour, point)``,
    ``name`` the game (for the SGF of a game started from it)."""

    name: str
    moves: np.ndarray

    def __len__(self) -> int:
        return len(self.moves)


def default_opening_moves(size: int) -> int:
    """The most moves of a record a game starts after: a quarter of the
    board's points (20 on 9x9, 42 on 13x13, 90 on 19x19)."""
    return size * size // 4


def load_openings(inputs: Sequence[str | os.PathLike], size: int, most_moves: int,
                  problems: list[str]) -> list[OpeningLine]:
    """The games of ``inputs`` (SGF files or folders) on a ``size`` board as
    opening lines, each cut to what a game may start after: up to
    ``most_moves`` moves and half its length, and before its first pass.
    Games of another size, with setup stones or too short to start after
    one move are left out; files that cannot be read are named in
    ``problems``."""
    from imago.sgf import find_sgf_files

    from .data import named_games

    files, missing = find_sgf_files(inputs)
    problems.extend(missing)
    lines = []
    for _, name, state, _ in named_games(files, problems):
        if state.size != size or not state.root.board.is_empty_board():
            continue
        moves = []
        for node in state.root.main_line():
            if not node.is_move:
                continue
            if node.point is None:
                break
            moves.append((node.color, node.point))
        keep = min(most_moves, len(moves) // 2)
        if keep >= 1:
            lines.append(OpeningLine(name, np.asarray(moves[:keep], np.int16)))
    return lines


def opening_lines(inputs: Sequence[str | os.PathLike], size: int, most_moves: int,
                  log: Callable[[str], object]) -> list[OpeningLine]:
    """:func:`load_openings` for a self-play command (``most_moves`` as the
    resolved self-play settings have it); logs what was found and what was
    skipped (the first few files by name); ValueError when ``inputs`` hold
    no game to start from."""
    if not inputs:
        return []
    problems: list[str] = []
    lines = load_openings(inputs, size, most_moves, problems)
    shown = "; ".join(problems[:3]) + (f"; {len(problems) - 3} more" if len(problems) > 3 else "")
    if not lines:
        raise ValueError(f"--openings {' '.join(map(str, inputs))}: no {size}x{size} game "
                         f"without setup stones to start from" + (f" ({shown})" if shown else ""))
    mean = sum(map(len, lines)) / len(lines)
    log(f"openings: {len(lines)} {size}x{size} games to start from (up to {most_moves} moves, "
        f"{mean:.0f} on average)" + (f"; skipped: {shown}" if shown else ""))
    return lines


def start_from_opening(state: GameState, lines: Sequence[OpeningLine],
                       rng: np.random.Generator) -> Optional[str]:
    """Play the first moves of a line drawn from ``lines`` on ``state`` (an
    empty game): between one and all of the line's, drawn uniformly. The
    line's name and the moves played (``"NAME, 17 moves"``), or None when
    there is none. A move the rules refuse (another ruleset's record) ends
    the opening there."""
    if not lines:
        return None
    line = lines[int(rng.integers(len(lines)))]
    wanted = int(rng.integers(1, len(line) + 1))
    played = 0
    for color, point in line.moves[:wanted].tolist():
        if state.board.illegal_reason(point, color) is not None:
            break
        state.play(color, point)
        played += 1
    return f"{os.path.basename(line.name)}, {played} moves"


__all__ = ["OPENING_SHARE", "OpeningLine", "default_opening_moves", "load_openings",
           "opening_lines", "start_from_opening"]
