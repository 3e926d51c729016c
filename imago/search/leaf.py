"""What a search asks its evaluator: a :class:`Leaf`, a position a descent
reached, and the :class:`Evaluator` protocol that answers a batch of them;
moves as *actions*, indexes into ``size * size + 1`` (points row-major from
the top-left, the pass last)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Collection, Iterable, Optional, Protocol, Sequence

import numpy as np

from imago.game import to_index

from .tree import SearchNode

HISTORY = 8
"""Positions in an evaluation's cache key (and the most any encoder sees)."""


class Evaluator(Protocol):
    """Gives priors and values for a batch of positions."""

    def evaluate(self, leaves: Sequence) -> tuple[np.ndarray, np.ndarray]: ...


@lru_cache(maxsize=None)
def action_points(size: int) -> tuple:
    """The board point of every action (None for the pass)."""
    return tuple(to_index(a % size, a // size, size) for a in range(size * size)) + (None,)


@lru_cache(maxsize=None)
def point_actions(size: int) -> np.ndarray:
    """The action of every internal board index (-1 off the board), for
    turning a board's list of empty points into actions in one step."""
    table = np.full((size + 2) ** 2, -1, dtype=np.intp)
    for action, point in enumerate(action_points(size)[:-1]):
        table[point] = action
    return table


def action_of(point: Optional[int], size: int) -> int:
    """The action of a board point (None: the pass)."""
    return size * size if point is None else int(point_actions(size)[point])


def forbidden_actions(size: int, avoid: Iterable[Optional[int]] = (),
                      allow: Optional[Iterable[Optional[int]]] = None) -> frozenset:
    """The root actions KataGo's ``avoid`` and ``allow`` take away: those of
    the points (None: the pass) in ``avoid``, and, given ``allow`` (None:
    every move), all but its points'."""
    forbidden = {action_of(p, size) for p in avoid}
    if allow is not None:
        forbidden |= set(range(size * size + 1)) - {action_of(p, size) for p in allow}
    return frozenset(forbidden)


@dataclass(frozen=True)
class MoveRestriction:
    """KataGo's ``avoid`` or ``allow`` for one player: the ``actions``
    ``color`` may not play (for ``allow``, every action but the allowed
    ones: :func:`forbidden_actions`) in the first ``until_depth`` plies of
    a search, ply 0 being the root's move."""

    color: int
    actions: frozenset
    until_depth: int

    @classmethod
    def of(cls, size: int, color: int, points: Iterable[Optional[int]], until_depth: int,
           allow: bool = False) -> "MoveRestriction":
        """``avoid`` (or with ``allow``, ``allow``) of ``points`` (None: the
        pass) for ``color`` to ``until_depth``, on a ``size`` board."""
        actions = forbidden_actions(size, (), points) if allow else forbidden_actions(size, points)
        return cls(color, actions, until_depth)


def forbidden_at(restrictions: Iterable[MoveRestriction], ply: int, color: int) -> frozenset:
    """The actions ``restrictions`` take from ``color`` at ``ply`` of a
    search: the union of those still in force there (several ``allow``
    leave the moves all of them allow)."""
    return frozenset().union(*(r.actions for r in restrictions
                               if r.color == color and ply < r.until_depth))


def legal_move_left(board, color: int, forbidden: Collection[int]) -> bool:
    """Whether ``color`` has a legal move on ``board`` (the pass included)
    that is not among the ``forbidden`` actions."""
    points = action_points(board.size)
    return any(points[a] is None or board.illegal_reason(points[a], color) is None
               for a in range(len(points)) if a not in forbidden)


class Leaf:
    """A position a descent reached, waiting for the evaluator."""

    __slots__ = ("board", "to_move", "passes", "recent", "node", "path", "key", "komi")

    def __init__(self, board, to_move: int, passes: int, recent: list, node: SearchNode,
                 path: list, key: int, komi: float = 7.5):
        self.komi = komi  # the game's, for networks that take it as an input
        self.board = board
        self.to_move = to_move
        self.passes = passes
        self.recent = recent
        self.node = node
        self.path = path
        self.key = key
