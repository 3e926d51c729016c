"""Area scoring (Chinese / Tromp-Taylor) with komi and dead stones.

A point counts for a colour if it holds a stone of that colour, or it is
empty and every path through empty points from it reaches stones of that
colour only. Dead stones are removed (become empty) before counting.
"""

from __future__ import annotations

from typing import Iterable

from .board import GameBoard
from .constants import BLACK, EDGE, EMPTY, WHITE


def area_owners(board: GameBoard, dead: Iterable[int] = ()) -> list[int]:
    """Owner of every cell of the board's array: BLACK, WHITE, or EMPTY
    (neutral: dame, seki eyes shared by both colours, off board)."""
    cells = board.cells[:]
    for p in dead:
        if cells[p] in (BLACK, WHITE):
            cells[p] = EMPTY
    s = board.stride
    owner = [EMPTY] * len(cells)
    seen = [False] * len(cells)
    for p in board.on_board():
        c = cells[p]
        if c != EMPTY:
            owner[p] = c
            continue
        if seen[p]:
            continue
        region, reach, stack = [], 0, [p]
        seen[p] = True
        while stack:
            q = stack.pop()
            region.append(q)
            for m in (q - 1, q + 1, q - s, q + s):
                cm = cells[m]
                if cm == EMPTY:
                    if not seen[m]:
                        seen[m] = True
                        stack.append(m)
                elif cm != EDGE:
                    reach |= cm
        if reach in (BLACK, WHITE):
            for q in region:
                owner[q] = reach
    return owner


def area_counts(board: GameBoard, dead: Iterable[int] = ()) -> tuple[int, int]:
    """(black area, white area) after removing ``dead`` stones."""
    owner = area_owners(board, dead)
    return owner.count(BLACK), owner.count(WHITE)


def area_score(board: GameBoard, komi: float, dead: Iterable[int] = ()) -> float:
    """Black's area minus White's area minus komi (positive: Black wins)."""
    black, white = area_counts(board, dead)
    return black - white - komi


def format_result(score: float) -> str:
    """``B+3.5``, ``W+0.5`` or ``0`` for a score from Black's side."""
    if score > 0:
        return f"B+{score:g}"
    if score < 0:
        return f"W+{-score:g}"
    return "0"
