"""What a search says: its root moves with win rates, score leads and
principal variations, the root's summary, and the tree's ownership, as
GTP analysis, the analysis engine and the match tools report them.

:class:`SearchReports` is a mixin of :class:`imago.search.puct.PUCTSearch`:
it reads the search's ``root``, ``size``, ``scored``, ``point_of``,
``root_board``, ``root_color``, ``lcb_z`` and ``lcb_min_share`` and
changes nothing."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Iterator, Optional

import numpy as np

from .tree import SATURATED, SearchNode

LCB_Z, LCB_MIN_SHARE = 3.0, 0.1
"""The move played is the one whose mean value is highest less ``LCB_Z``
standard errors, among the moves with at least ``LCB_MIN_SHARE`` of the most
visited move's visits (see :meth:`SearchReports.played_edge`)."""

SCORE_UTILITY_FACTOR = 0.3
"""The most the score lead adds to (or takes from) a reported utility."""
SCORE_UTILITY_SCALE = 20.0
"""The score lead, in points, at which half of that is reached."""


def report_utility(winrate: float, score_lead: Optional[float]) -> float:
    """imago's stand-in for KataGo's ``utility`` in analysis reports (GTP
    ``kata-analyze`` and the JSON analysis engine): ``2 * winrate - 1``
    plus up to :data:`SCORE_UTILITY_FACTOR` for the score lead (an
    arctangent scaled by :data:`SCORE_UTILITY_SCALE`). Odd in its
    arguments, so the other side's utility is the negative. (The search's
    own score utility, which steers it, is another: see
    :meth:`imago.search.puct.PUCTSearch._choose`.)"""
    score = 0.0 if score_lead is None else score_lead
    return (2.0 * winrate - 1.0
            + SCORE_UTILITY_FACTOR * 2.0 / math.pi * math.atan(score / SCORE_UTILITY_SCALE))


def score_stdev(ownership) -> float:
    """imago's stand-in for KataGo's ``scoreStdev``, the spread of the final
    score in points, from a position's ownership (one value in [-1, 1] per
    point): the standard deviation of the count if each point's owner were
    drawn on its own with that mean, ``sqrt(sum(1 - o * o))``. imago's
    networks predict no spread of their own. Points that live or die
    together make the true spread wider, so this one is biased low where
    large groups are unsettled (KataGo's is biased high, by its search);
    like KataGo's, read it as a relative figure: wide while much is open,
    near 0 once every point is settled."""
    own = np.asarray(ownership, dtype=np.float64)
    return float(math.sqrt(max(float(np.sum(1.0 - own * own)), 0.0)))


@dataclass
class SearchResult:
    """One root move after a search, from the root player's view:
    ``score_lead`` in points (None when the evaluator predicts no score),
    ``pv_visits`` the visits of each move of ``pv``, ``score_stdev``
    (:func:`score_stdev`) from the network's ownership after the move (None
    where the search kept none)."""
    point: Optional[int]
    visits: int
    winrate: float
    prior: float
    lcb: float
    pv: list
    score_lead: Optional[float] = None
    pv_visits: list = field(default_factory=list)
    score_stdev: Optional[float] = None


@dataclass
class RootSummary:
    """The whole search from the root player's view: the win rate and score
    lead averaged over every visit (None when no score is known), and
    :func:`score_stdev` of the network's ownership of the root position
    (None where the search kept none)."""
    winrate: float
    score_lead: Optional[float]
    visits: int
    score_stdev: Optional[float] = None


class SearchReports:
    """The read-only side of a search (see the module docstring)."""

    root: Optional[SearchNode]
    scored: bool
    lcb_z: float
    lcb_min_share: float

    def tree_ownership(self, node: Optional[SearchNode] = None) -> Optional[np.ndarray]:
        """The ownership of ``node``'s position (default: the root), +1 for
        its player to move, one value per point row-major: the mean of the
        evaluator's ownership over the positions of its subtree that the
        evaluator answered for (not those a cache answered, nor finished
        games), each seen from the node's side, so lines the search visits
        more weigh more. None when the node kept no ownership (see
        :attr:`keep_ownership`)."""
        sums = self._ownership_sums(node, squares=False)
        return None if sums is None else (sums[0] / sums[2]).astype(np.float32)

    def tree_ownership_spread(self, node: Optional[SearchNode] = None
                              ) -> Optional[tuple[np.ndarray, np.ndarray]]:
        """:meth:`tree_ownership` and the standard deviation of the same
        answers about it, point by point (KataGo's ``ownershipStdev``: how
        much the lines the search read disagree on who owns a point)."""
        sums = self._ownership_sums(node, squares=True)
        if sums is None:
            return None
        total, squares, count = sums
        mean = total / count
        spread = np.sqrt(np.maximum(squares / count - mean * mean, 0.0))
        return mean.astype(np.float32), spread.astype(np.float32)

    def move_ownership_spread(self, action: int, root: Optional[SearchNode] = None
                              ) -> Optional[tuple[np.ndarray, np.ndarray]]:
        """:meth:`tree_ownership_spread` of the position after the root
        move ``action``, from the root player's side (KataGo's
        ``movesOwnership`` and ``movesOwnershipStdev``); None when the
        search did not evaluate that move or kept no ownership."""
        root = self.root if root is None else root
        edge = root.edge(action) if root is not None else -1
        spread = self.tree_ownership_spread(root.children[edge]) if edge >= 0 else None
        return None if spread is None else (-spread[0], spread[1])

    def _ownership_sums(self, node: Optional[SearchNode], squares: bool
                        ) -> Optional[tuple[np.ndarray, Optional[np.ndarray], int]]:
        """The sum (and with ``squares`` the sum of squares) of the kept
        ownership answers of ``node``'s subtree from its side, and their
        number; None when the node kept none."""
        node = self.root if node is None else node
        if node is None or node.ownership is None:
            return None
        total = np.zeros(len(node.ownership), dtype=np.float64)
        square_total = np.zeros_like(total) if squares else None
        count = 0
        stack = [(node, 1.0)]
        while stack:
            here, sign = stack.pop()
            own = here.ownership
            if own is not None:
                total += own if sign > 0 else -own
                if square_total is not None:
                    square_total += np.square(own, dtype=np.float64)
                count += 1
            if here.edges:
                stack.extend((child, -sign) for child in here.children[:here.edges])
        return total, square_total, count

    def results(self, root: Optional[SearchNode] = None, limit: int = 10,
                pv_length: int = 10) -> list[SearchResult]:
        """The visited root moves, the one the search plays first
        (:meth:`played_edge`), then by visits, with win rates from the root
        player's view and principal variations."""
        root = root or self.root
        if root is None or not root.expanded or not root.edges:
            return []
        priors, moves = root.choice_priors(), root.moves
        order = np.lexsort((priors[moves], root.visits))[::-1]
        eligible, bounds = self._lower_bounds(root)
        played = self.played_edge(root, (eligible, bounds))
        if played >= 0:  # the move it plays first, as KataGo orders them
            order = [played] + [edge for edge in order if edge != played]
        out = []
        for edge in order[:limit]:
            n = root.visits[edge]
            action = int(moves[edge])
            if n <= 0 or root.is_struck(action):
                continue
            winrate = (root.values[edge] / n + 1) / 2
            spread = math.sqrt(max(winrate * (1 - winrate), 1e-6) / n)
            lcb = winrate - 1.96 * spread
            if self.lcb_z > 0 and n >= 2:  # the bound the move choice ranks
                bound = (bounds[edge] + 1) / 2
                lcb = bound if eligible[edge] else min(bound, lcb)
            pv, pv_visits = self.principal_line(root, int(edge), pv_length)
            owned = root.children[edge].ownership
            out.append(SearchResult(self.point_of(action), int(round(n)), float(winrate),
                                    float(priors[action]), float(min(max(lcb, 0.0), 1.0)), pv,
                                    float(root.scores[edge] / n) if self.scored else None,
                                    pv_visits, None if owned is None else score_stdev(owned)))
        return out

    def unvisited_results(self, root: Optional[SearchNode] = None) -> Iterator[SearchResult]:
        """The legal root moves the search has not visited, highest prior
        first (KataGo's ``minmoves`` lists some), lazily: a caller that
        wants a few checks the legality of no more moves than it takes.
        Each has 0 visits, the root's win rate and lead (no line below the
        move has been read), a lower confidence bound of 0 (nothing
        confirms it) and its line the move alone."""
        root = root or self.root
        if root is None or not root.expanded:
            return
        priors = root.choice_priors()
        visited = set(root.moves[root.visits > 0].tolist())
        summary = self.summary(root)
        for action in np.argsort(-priors, kind="stable").tolist():
            if priors[action] <= 0:
                return
            point = self.point_of(action)
            if action in visited or (point is not None and self.root_board.illegal_reason(
                    point, self.root_color) is not None):
                continue
            yield SearchResult(point, 0, summary.winrate, float(priors[action]), 0.0,
                               [point], summary.score_lead, [0])

    def chosen_action(self, root: Optional[SearchNode] = None) -> int:
        """The move to play after a search of ``root`` (default: the
        search's): :meth:`played_edge`'s, or the highest prior before any
        visit."""
        root = root or self.root
        edge = self.played_edge(root)
        if edge < 0 or root.visits[edge] <= 0:
            return root.best_action()
        return int(root.moves[edge])

    def played_edge(self, root: SearchNode,
                    bounds: Optional[tuple[np.ndarray, np.ndarray]] = None) -> int:
        """The edge of the move a finished search of ``root`` plays: of the
        moves with at least :attr:`lcb_min_share` of the most visited one's
        visits, the one whose value's lower confidence bound (its mean less
        :attr:`lcb_z` standard errors of the values backed up through it)
        is highest, as Leela Zero and KataGo choose. A move the prior kept
        from most visits but whose every visit says it is better gets
        played; one that is better only by the luck of a few visits does
        not. The most visited move when ``lcb_z`` is 0, the root's score is
        proven, the game looks decided (the root's value beyond
        :data:`SATURATED`: there the score utility leads the visits, and a
        mean lead from few visits is too noisy to overrule them), or nothing
        else qualifies. ``bounds``: :meth:`_lower_bounds`'s answer for
        ``root``, where the caller has it already."""
        best = root.best_edge()
        if best < 0 or root.visits[best] <= 0 or self.lcb_z <= 0 \
                or root.exact is not None or abs(root.value) >= SATURATED:
            return best
        eligible, values = bounds if bounds is not None else self._lower_bounds(root)
        if np.count_nonzero(eligible) < 2:
            return best
        return int(np.where(eligible, values, -np.inf).argmax())

    def _lower_bounds(self, root: SearchNode) -> tuple[np.ndarray, np.ndarray]:
        """Per edge of ``root``: whether the move may be chosen by its bound
        (at least :attr:`lcb_min_share` of the most visited move's visits and
        2, not struck out), and the bound itself, its mean value less
        :attr:`lcb_z` standard errors of the values backed up through it.
        :meth:`results` reports the same bound as ``lcb`` (as a win rate), as
        KataGo's analysis does, so where the bound chooses, the move listed
        first has the highest ``lcb`` of the eligible ones."""
        n = root.visits
        best = root.best_edge()
        eligible = n >= max(self.lcb_min_share * (n[best] if best >= 0 else 0.0), 2.0)
        if root.struck is not None:
            eligible &= ~np.isin(root.moves, root.struck)
        safe = np.maximum(n, 1.0)
        mean = root.values / safe
        spread = np.sqrt(np.maximum(root.squares / safe - mean * mean, 0.0) / safe)
        return eligible, mean - self.lcb_z * spread

    def principal_variation(self, root: SearchNode, edge: int, length: int = 10) -> list:
        """Points of the most visited line starting with ``root``'s ``edge``."""
        return self.principal_line(root, edge, length)[0]

    def principal_line(self, root: SearchNode, edge: int, length: int = 10
                       ) -> tuple[list, list[int]]:
        """The most visited line starting with ``root``'s ``edge``: its
        points and the visits of each of its moves."""
        pv, visits, node = [], [], root
        while len(pv) < length:
            pv.append(self.point_of(int(node.moves[edge])))
            visits.append(int(round(node.visits[edge])))
            node = node.children[edge]
            if not node.expanded or node.total_visits() == 0:
                break
            edge = node.best_edge()
        return pv, visits

    def summary(self, root: Optional[SearchNode] = None) -> RootSummary:
        """The root's win rate and score lead over all its visits, for the
        root player (a position's value as analysis tools report it)."""
        root = root or self.root
        stdev = None if root is None or root.ownership is None else score_stdev(root.ownership)
        if root is None or not root.expanded or root.total <= 0:
            value, score = (root.value, root.score) if root is not None else (0.0, 0.0)
            return RootSummary((value + 1) / 2, score if self.scored else None, 0, stdev)
        n = float(root.visits.sum())
        return RootSummary(float((root.values.sum() / n + 1) / 2),
                           float(root.scores.sum() / n) if self.scored else None,
                           int(round(n)), stdev)

    @staticmethod
    def winrate(root: SearchNode) -> float:
        """The win rate of the most visited move, for the root player."""
        edge = root.best_edge()
        if edge < 0 or root.visits[edge] <= 0:
            return 0.5
        return float((root.values[edge] / root.visits[edge] + 1) / 2)
