"""Who owns each point at the end: estimates, dead stones and seki.

Without a network, ownership is estimated by random playouts (eye-
respecting, as the ``uct`` playouts): each playout finishes the game and
counts the area; a point's ownership is the average over playouts, +1 for
Black and -1 for White. Stones whose point ends up owned by the other
colour are dead. Alive strings short of liberties that share a liberty with
an alive enemy string in the same state are in seki.
"""

from __future__ import annotations

import random
from typing import Optional

from .board import GameBoard
from .constants import BLACK, EMPTY, WHITE
from .scoring import area_owners

DEAD_THRESHOLD = 0.2
"""A stone is dead when its point's ownership favours the other colour by
more than this (ownership runs from -1 to +1)."""


def playout_ownership(board: GameBoard, to_move: int, playouts: int = 100,
                      rng: Optional[random.Random] = None) -> list[float]:
    """Average area ownership per cell over ``playouts`` random playouts
    (+1 Black, -1 White, 0 off board)."""
    rng = rng or random.Random(0)
    total = [0] * len(board.cells)
    for _ in range(playouts):
        b = board.copy()
        b.playout(to_move, rng)
        for p, owner in enumerate(area_owners(b)):
            if owner == BLACK:
                total[p] += 1
            elif owner == WHITE:
                total[p] -= 1
    return [t / playouts for t in total]


_FINAL_CACHE: dict = {}
_FINAL_CACHE_SIZE = 16


def final_ownership(board: GameBoard, to_move: int) -> list[float]:
    """The estimate behind dead stones, the final count and the decision to
    pass: random playouts (about 12,000 board points' worth, at least 64),
    seeded by the position so it always gets the same answer. The last few
    positions are cached: the engine's count and the search's pass decision
    ask for the same one.

    Measured on the finished games of the shared data, it reproduces GNU
    Go's final_score in 370 of 390 games where the 9x9 network's ownership
    head does in 226 (KataGo's results: 706 and 708 of 724), so the count
    uses playouts even when a network is loaded."""
    key = (board.size, board.hash, to_move)
    values = _FINAL_CACHE.get(key)
    if values is None:
        playouts = max(64, 12000 // (board.size * board.size))
        values = playout_ownership(board, to_move, playouts, random.Random(board.hash & 0xFFFF))
        if len(_FINAL_CACHE) >= _FINAL_CACHE_SIZE:
            _FINAL_CACHE.pop(next(iter(_FINAL_CACHE)))
        _FINAL_CACHE[key] = values
    return values


def dead_stones(board: GameBoard, ownership: list[float],
                threshold: float = DEAD_THRESHOLD) -> list[int]:
    """Stones whose whole string is owned by the other colour.

    A string is judged as one: its stones' mean ownership decides."""
    dead: list[int] = []
    seen: set[int] = set()
    for p in board.on_board():
        c = board.cells[p]
        if c == EMPTY or p in seen:
            continue
        stones = board.string_stones(p)
        seen.update(stones)
        mean = sum(ownership[q] for q in stones) / len(stones)
        if (c == BLACK and mean < -threshold) or (c == WHITE and mean > threshold):
            dead.extend(stones)
    return sorted(dead)


def seki_stones(board: GameBoard, dead: list[int]) -> list[int]:
    """Alive stones in seki: a string with at most two liberties, one of
    them shared with an alive enemy string that has at most two as well, so
    whoever fills the shared point puts itself in atari."""
    dead_set = set(dead)
    cells, root, libs = board.cells, board.root, board.libs
    seki: set[int] = set()
    for p in board.on_board():
        c = cells[p]
        if c == EMPTY or p in dead_set or p in seki or root[p] != p:
            continue
        liberties = libs[p]
        if len(liberties) > 2:
            continue
        for lib in liberties:
            for n in board.neighbours(lib):
                if cells[n] == 3 - c and n not in dead_set and len(libs[root[n]]) <= 2:
                    seki.update(board.string_stones(p))
                    seki.update(board.string_stones(n))
    return sorted(seki)


NEUTRAL_THRESHOLD = 0.3
"""An empty point that area counting leaves neutral goes to a colour when
its ownership favours that colour by more than this."""


def estimated_score(board: GameBoard, komi: float, ownership: list[float],
                    dead: list[int]) -> float:
    """Black's lead with komi: stones and surrounded points by area
    counting once ``dead`` stones are removed, and the points area
    counting leaves neutral (open borders of an unfinished game) by the
    ownership estimate. On a played-out board it is the area score."""
    owners = area_owners(board, dead)
    lead = 0
    for p in board.on_board():
        owner = owners[p]
        if owner == BLACK:
            lead += 1
        elif owner == WHITE:
            lead -= 1
        elif ownership[p] > NEUTRAL_THRESHOLD:
            lead += 1
        elif ownership[p] < -NEUTRAL_THRESHOLD:
            lead -= 1
    return lead - komi
