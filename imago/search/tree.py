"""Search-tree nodes: statistics in small arrays, no boards.

Moves are *actions*, indexes into a fixed space of ``size * size + 1``
moves (points row-major from the top-left, the pass last; see
:func:`imago.game.point_to_move`). A node keeps

- ``priors``: one byte per action of the whole action space, the prior
  renormalised over the moves that were open when the node was expanded, on
  a logarithmic scale (:func:`encode_priors`: steps of 6.6%, down to about
  1e-7; :data:`CLOSED` marks points that were occupied). A cached evaluation
  shares its bytes with every node that reuses it, so priors are never
  written in place;
- one *edge* per child already created: ``moves`` (the action), ``visits``
  (N), ``values`` (W, from the view of the player to move here), ``scores``
  (the sum of the score leads backed up through the edge, in points, from
  the same view; zero when the evaluator predicts no score), ``squares``
  (the sum of the squared values, for the spread of W / N), the rows of one
  float64 array (one allocation a node: a search makes millions of them),
  and ``children``. Only moves the search has tried get an edge, so a node
  costs well under a kilobyte on 19x19 (mostly its priors) instead of a
  board;
- ``struck``: moves found illegal when first tried (suicide, ko, superko)
  or losing self-ataris (see :func:`imago.game.seki.losing_self_atari`), or a root pass
  the engine refuses, which selection never chooses again;
- ``exact``: the final score (area, komi included, for the player to move)
  once the search has proven it: a line that ended with two passes, or a
  node whose every open move leads to a proven child (see
  :meth:`imago.search.puct.PUCTSearch.prove`);
- ``ownership``: the evaluator's ownership of the node's position (float16,
  one value per point, +1 for the player to move) when the search keeps
  them for a tree-averaged estimate (see
  :meth:`imago.search.puct.PUCTSearch.tree_ownership`), else None.

The board of a node is never stored: a simulation replays its path on a
scratch copy of the root's board.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

MOVE, VISITS, VALUES, SCORES, SQUARES = range(5)
"""The rows of :attr:`SearchNode.stats`."""
EMPTY_STATS = np.zeros((5, 0), dtype=np.float64)

CLOSED = 255
"""The prior byte of a move that cannot be chosen (an occupied point)."""
_STEP = np.log(1e7) / 254
PRIOR_OF_BYTE = np.exp(-_STEP * np.arange(256)).astype(np.float32)
PRIOR_OF_BYTE[CLOSED] = -np.inf


def encode_priors(priors: np.ndarray, open_mask: np.ndarray) -> np.ndarray:
    """Priors (rows of probabilities) as bytes: ``round(-ln(p) / step)``, so
    every prior keeps its size to within 3.3%; closed moves get CLOSED."""
    with np.errstate(divide="ignore"):
        levels = np.rint(-np.log(np.asarray(priors, dtype=np.float64)) / _STEP)
    levels = np.clip(np.nan_to_num(levels, posinf=254.0), 0, 254).astype(np.uint8)
    levels[~open_mask] = CLOSED
    return levels


def decode_priors(priors: bytes) -> np.ndarray:
    """The float32 priors of :func:`encode_priors` bytes (``-inf``: closed)."""
    return PRIOR_OF_BYTE[np.frombuffer(priors, dtype=np.uint8)]


def win_value(score: float) -> float:
    """The value of a finished game's score: +1 won, -1 lost, 0 a draw."""
    return 1.0 if score > 0 else -1.0 if score < 0 else 0.0


SATURATED = 0.5
"""A node whose evaluator value is beyond this (a win rate beyond 75% or
below 25%) looks decided: its moves are chosen by score utility as well, and
the move played there is the most visited."""


CAREFUL, TERMINAL = 1, 2
"""The bits of :attr:`SearchNode.flags`."""


def _flag(bit: int, doc: str) -> property:
    """A boolean attribute kept as one bit of the node's ``flags``."""
    def get(node: "SearchNode") -> bool:
        return bool(node.flags & bit)

    def set_(node: "SearchNode", on: bool) -> None:
        node.flags = node.flags | bit if on else node.flags & ~bit
    return property(get, set_, doc=doc)


class SearchNode:
    """A position of the search tree and the statistics of its moves."""

    __slots__ = ("priors", "value", "score", "total", "stats", "edges", "children",
                 "struck", "flags", "exact", "ownership")

    def __init__(self) -> None:
        self.priors: Optional[bytes] = None   # None until expanded
        self.value = 0.0           # the evaluator's value, for the player to move
        self.score = 0.0           # the evaluator's score lead (points), for the player to move
        self.total = 0.0           # sum of the edges' visits (virtual loss included)
        self.stats = EMPTY_STATS   # rows MOVE, VISITS, VALUES, SCORES, SQUARES; room for more edges
        self.edges = 0
        self.children: Sequence[SearchNode] = ()  # a list from the first edge on
        self.struck: Optional[list[int]] = None
        self.flags = 0             # CAREFUL | TERMINAL (one slot: nodes are many)
        self.exact: Optional[float] = None  # the proven final score for the player to move
        self.ownership: Optional[np.ndarray] = None  # kept only when the search asks

    @property
    def expanded(self) -> bool:
        return self.priors is not None

    careful = _flag(CAREFUL, "Whether the priors are the evaluator's careful answer.")
    terminal = _flag(TERMINAL, "Whether a second pass in a row reached this node (game over).")

    def total_visits(self) -> int:
        """Visits through this node's edges (its own first visit excluded)."""
        return int(round(self.total))

    @property
    def moves(self) -> np.ndarray:
        """The action of each edge (a copy)."""
        return self.stats[MOVE, :self.edges].astype(np.int32)

    @property
    def visits(self) -> np.ndarray:
        """N of each edge (virtual loss included while descents are pending)."""
        return self.stats[VISITS, :self.edges]

    @property
    def values(self) -> np.ndarray:
        """W of each edge, from the view of this node's player to move."""
        return self.stats[VALUES, :self.edges]

    @property
    def scores(self) -> np.ndarray:
        """The summed score lead of each edge, from the view of this node's
        player to move (divide by the edge's visits for the mean)."""
        return self.stats[SCORES, :self.edges]

    @property
    def squares(self) -> np.ndarray:
        """The summed squared values of each edge (the spread of its mean)."""
        return self.stats[SQUARES, :self.edges]

    def edge(self, action: int) -> int:
        """The edge index of ``action``, or -1 when it has none yet."""
        found = np.flatnonzero(self.stats[MOVE, :self.edges] == action)
        return int(found[0]) if len(found) else -1

    def add_edge(self, action: int) -> tuple[int, "SearchNode"]:
        """A new child for ``action``; returns its edge index and node."""
        edge = self.edges
        stats = self.stats
        if edge == stats.shape[1]:  # grow by half
            stats = np.zeros((len(EMPTY_STATS), edge + max(2, edge // 2)))
            stats[:, :edge] = self.stats
            self.stats = stats
        stats[MOVE, edge] = action
        self.edges = edge + 1
        child = SearchNode()
        if edge:
            self.children.append(child)
        else:
            self.children = [child]
        return edge, child

    def strike(self, action: int) -> None:
        """Never choose ``action`` here again."""
        if self.struck is None:
            self.struck = [action]
        elif action not in self.struck:
            self.struck.append(action)

    def unstrike(self, action: int) -> None:
        if self.struck is not None and action in self.struck:
            self.struck.remove(action)
            if not self.struck:
                self.struck = None

    def is_struck(self, action: int) -> bool:
        return self.struck is not None and action in self.struck

    def prior_values(self) -> np.ndarray:
        """The priors as float32 (``-inf`` on occupied points)."""
        return decode_priors(self.priors)

    def choice_priors(self) -> np.ndarray:
        """The priors of the moves that can be chosen (occupied and struck
        ones at 0), renormalised to sum 1."""
        priors = self.prior_values().astype(np.float64)
        priors[~np.isfinite(priors)] = 0.0
        if self.struck is not None:
            priors[self.struck] = 0.0
        total = priors.sum()
        return priors / total if total > 0 else priors

    def open_actions(self) -> np.ndarray:
        """The actions selection may still choose (not closed, not struck)."""
        open_ = np.frombuffer(self.priors, dtype=np.uint8) != CLOSED
        if self.struck is not None:
            open_ = open_.copy()
            open_[self.struck] = False
        return np.flatnonzero(open_)

    def best_edge(self) -> int:
        """The most visited edge (prior breaks ties); -1 without edges. At a
        node whose score is proven, the most visited of the edges that reach
        it."""
        if not self.edges:
            return -1
        priors = self.prior_values()[self.moves]
        visits = self.visits
        if self.exact is not None:
            reach = np.array([c.exact is not None and -c.exact >= self.exact
                              for c in self.children[:self.edges]])
            if reach.any():
                visits = np.where(reach, visits + 1e9, visits)
        return int(np.lexsort((priors, visits))[-1])

    def best_action(self) -> int:
        """The most visited move, or the highest prior before any visit."""
        edge = self.best_edge()
        if edge >= 0 and self.visits[edge] > 0:
            return int(self.stats[MOVE, edge])
        priors = self.choice_priors()
        return int(np.argmax(priors))
