"""PUCT Monte Carlo tree search, as in AlphaGo Zero, over board-free nodes.

Each node holds, for the moves it has tried, the visit count N and the
total value W (from the view of its player to move), and priors P over the
whole action space (see :mod:`imago.search.tree`). Selection maximises
``Q + c_puct * P * sqrt(sum N + 1) / (1 + N)``, with untried moves valued at
the node's own value minus a first-play-urgency reduction.

A search runs in two phases that many searches can interleave:

1. :meth:`PUCTSearch.select` descends up to ``batch_size`` times with a
   virtual loss on each path, replaying the moves on a scratch copy of the
   root's board (legality, captures and positional superko are checked
   there, against the hashes along the path and the game's history). A
   descent that ends on a finished game (two passes) or on a position the
   evaluation cache knows is backed up at once; the others become
   :class:`Leaf` requests;
2. an evaluator answers the requests, possibly those of many searches in one
   network call (:func:`imago.search.pool.run_searches`), and
   :meth:`PUCTSearch.apply` expands the leaves and backs their values up.

:meth:`PUCTSearch.run` does both for one search until a visit or time
budget is spent.

Moves that only give stones away (:func:`imago.game.seki.losing_self_atari`:
filling a seki's shared liberty, running from atari into atari) are
struck out at the root and wherever a descent first tries one, unless
``self_atari`` is set. So are, at the root, the moves that lose points in a
small closed-off area read out to the end (a corner's seki or eye space,
:mod:`imago.search.local`) when ``local_reading`` is set (the engine sets it;
self-play's cheap searches would spend more on reading than on visits). With scores known, nodes whose game looks decided
choose by a score utility too (:meth:`PUCTSearch._choose`), and lines that
end with two passes are counted without the stones the root's count found
dead (:meth:`PUCTSearch.assume_dead`). With :attr:`PUCTSearch.by_score` (the
engine sets it below 5x5) values are leads over the board's points instead
of win rates: the search plays for the optimal result, not just a win.
The move a finished search plays is its best lower confidence bound of the
value among the well-visited moves
(:meth:`~imago.search.reports.SearchReports.played_edge`), which is why
each edge also keeps the sum of its squared values.

The evaluator is anything with ``evaluate(leaves) -> (priors, values)``:
``priors[i]`` a vector over the ``size*size + 1`` actions and ``values[i]``
in [-1, 1] from the view of leaf i's player to move. When the answer also
has ``margins`` (:class:`imago.nn.evaluator.Evaluation`: the expected area
of the player to move minus the opponent's), the search backs up score
leads (the margins with the game's komi) beside the values, so every
candidate gets its expected lead in points. With
:attr:`PUCTSearch.keep_ownership` the nodes keep the answers' ``ownership``
too, and :meth:`PUCTSearch.tree_ownership` averages them over a subtree, as
KataGo reports ownership: the search's view of who owns what, not the
root's first impression. A leaf exposes
``board``, ``to_move``, ``passes`` and ``recent`` (the cells of the
positions before it, newest first, as ``bytes``), so feature encoders can
build history planes. ``history`` on the evaluator says how many positions
its inputs look at (1: the position alone; default 8). An evaluator may
also offer ``evaluate_all_symmetries(leaves)``, a slower and better answer
of the same form, which the search asks for its roots.
"""

from __future__ import annotations

import math
import random
import time
from collections import deque
from typing import Callable, Collection, Optional, Sequence, Union

import numpy as np

from imago.game import GameMove, GameState, area_score
from imago.game.counting import seki_taxed_score

from .leaf import (HISTORY, Evaluator, Leaf, MoveRestriction, action_points, forbidden_at,
                   point_actions)
from .reports import LCB_MIN_SHARE, LCB_Z, SearchReports
from .rooting import RootSetup
from .tree import (MOVE, PRIOR_OF_BYTE, SATURATED, SCORES, SQUARES, VALUES, VISITS, SearchNode,
                   win_value)


READING_SHARE = 0.25
"""The share of a timed search's time its root may spend reading closed-off
areas (:mod:`imago.search.local`); an area still unread then waits for the
next move's search."""


class PUCTSearch(RootSetup, SearchReports):
    """The search itself; :class:`imago.engine.mcts_algorithm.MCTSAlgorithm`
    wraps it as a decision algorithm. Options are attributes so GTP can show
    and set them."""

    def __init__(self, evaluator: Evaluator, c_puct: float = 1.5, fpu_reduction: float = 0.25,
                 batch_size: int = 8, virtual_loss: float = 1.0, dirichlet_alpha: float = 0.0,
                 noise_fraction: float = 0.25, seed: Optional[int] = None,
                 cache_size: int = 200_000, self_atari: bool = False,
                 score_utility: float = 0.1, score_scale: Optional[float] = None,
                 keep_ownership: bool = False, lcb_z: float = LCB_Z,
                 lcb_min_share: float = LCB_MIN_SHARE, forced_playouts: float = 0.0,
                 local_reading: bool = False):
        if not c_puct > 0:
            raise ValueError(f"c_puct must be positive, not {c_puct}")
        self.evaluator = evaluator
        self.c_puct = c_puct
        self.fpu_reduction = fpu_reduction
        self.batch_size = max(1, int(batch_size))
        self.virtual_loss = virtual_loss
        self.dirichlet_alpha = dirichlet_alpha
        self.noise_fraction = noise_fraction
        self.self_atari = bool(self_atari)  # whether losing self-ataris may be tried
        # whether the root strikes the moves its closed-off areas read as lost
        self.local_reading = bool(local_reading)
        # when the root being made ready stops reading (time.perf_counter),
        # set by run from its read_seconds; None: no limit
        self.read_deadline: Optional[float] = None
        self.score_utility = float(score_utility)
        self.score_scale = score_scale  # None: by board size (score_scale_for)
        self.by_score = False  # values are leads over the board's points, not win rates
        self.keep_ownership = bool(keep_ownership)  # nodes keep the evaluator's ownership
        self.lcb_z = float(lcb_z)  # 0: play the most visited move (see chosen_action)
        self.lcb_min_share = float(lcb_min_share)
        # KataGo's forced playouts: each root move of prior P gets at least
        # sqrt(k P N) of the root's N visits, so that one bad first value of
        # the network does not hide a move for the rest of the search
        self.forced_playouts = float(forced_playouts)
        # KataGo's wideRootNoise: the root's priors flattened (exponent
        # 1 / (1 + 4 w)) and a random bonus on tried moves' values, so that
        # analysis shows more moves; 0 in play
        self.wide_root_noise = 0.0
        # a game ended by two passes is searched as resumed (GTP's genmove there
        # asks for the game to go on); else such a root is terminal (a count)
        self.play_on_after_passes = False
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.cache: dict = {}
        self.cache_size = cache_size
        self.komi = 7.5
        # under territory scoring each stone put on the board costs its side
        # a point: a leaf's komi is the root's plus the line's stone difference
        self.territory = False
        self.root_komi = 7.5
        self.root: Optional[SearchNode] = None
        self.root_game_node: Optional[GameMove] = None
        self.root_board = None
        self.root_color = 1
        self.size = 0
        self.recent_roots: list = []  # (game node, search node, colour), newest last
        self.evaluations = 0
        self.scored = False  # whether the evaluator's answers carry margins (sticky)
        self.root_passes = 0
        self._root_recent: list = []  # cells of the root's earlier positions, newest first
        self._root_hashes: list = []  # their hashes
        self._dead_hint: tuple = (None, ())  # (board hash, ((point, colour), ...))
        # the root's dead stones as (point, colour), or a function giving them
        self._dead: Union[tuple, Callable[[], tuple]] = ()
        self._score_sum, self._score_n = 0.0, 1.0  # the root's leads (root player's view)
        self._utility = 0.0  # score_utility while a score is known, else 0
        self._scale = 1.0
        self.noiseless_priors: Optional[np.ndarray] = None  # the root's, when noise was added
        self._forced_action: Optional[int] = None  # the root's choice in visit_root_action
        self.restrictions = ()

    # ------------------------------------------------------------ searching
    def run(self, state: GameState, color: int, visits: Optional[int] = 800,
            seconds: Optional[float] = None, stop: Optional[Callable[[], bool]] = None,
            early_stop: bool = True, allow_pass: bool = True,
            read_seconds: Optional[float] = None, forbidden: Collection[int] = (),
            restrictions: Sequence[MoveRestriction] = ()) -> SearchNode:
        """Search from ``state.current`` until the root has ``visits`` visits
        or ``seconds`` pass (or ``stop()`` turns true), stopping early when
        the most visited move can no longer be overtaken. Without
        ``allow_pass`` the root's pass is struck out, so every visit goes to
        the board moves (deeper in the tree both sides may still pass).
        A finished game (two passes) is not searched. The time includes
        making the root ready (its careful evaluation, the local reading,
        which stops after ``read_seconds``: by default
        :data:`READING_SHARE` of ``seconds``, no limit without them; a
        move searched in slices gives its first slice the whole move's).
        ``forbidden`` actions (KataGo's ``avoid`` and ``allow`` at the root)
        are struck out of the root's choices for this run only, their visits
        kept, unless that would leave it no move; the moves left, one alone
        included, are searched for the whole run. ``restrictions`` (KataGo's
        ``avoid`` and ``allow`` with their depth) add the root's moves they
        take from ``color`` to those and hold below the root for this run
        (:attr:`restrictions`)."""
        if visits is None and seconds is None:
            raise ValueError("a search needs a number of visits or a time")
        start = time.perf_counter()
        if read_seconds is None and seconds is not None:
            read_seconds = READING_SHARE * seconds
        self.read_deadline = None if read_seconds is None else start + read_seconds
        try:
            root = self.begin(state, color, allow_pass)
        finally:
            self.read_deadline = None
        deadline = None if seconds is None else start + seconds
        done_before = root.total_visits()
        target = max(int(visits), done_before + 1) if visits else None
        forbidden = frozenset(forbidden) | forbidden_at(restrictions, 0, color)
        restricted = self.strike_forbidden(root, forbidden)
        self.restrictions = restrictions
        try:
            while root.expanded:
                total = root.total_visits()
                if target is not None and total >= target:
                    break
                if deadline is not None and time.perf_counter() >= deadline:
                    break
                if stop is not None and stop():
                    break
                if early_stop and (root.exact is not None
                                   or self._settled(root, target, deadline, start,
                                                    total - done_before)):
                    break
                batch = self.batch_size if target is None else min(self.batch_size,
                                                                    target - total)
                self.step(max(1, batch))
                if not restricted and len(root.open_actions()) == 1 \
                        and root.total_visits() > 0:
                    break
        finally:
            self.restrictions = ()
            for action in restricted:
                root.unstrike(action)
        return root

    @property
    def restrictions(self) -> tuple:
        """KataGo's ``avoid`` and ``allow`` below the root
        (:class:`~imago.search.leaf.MoveRestriction`): from the root's
        children on, a descent does not choose the actions they take from
        the player to move at that ply, unless that leaves the node no move.
        The root's own ply goes through :meth:`strike_forbidden` (``run``'s
        ``forbidden``). While any is set, no node is proven (a proof would
        count the moves left out)."""
        return self._restrictions

    @restrictions.setter
    def restrictions(self, value: Sequence[MoveRestriction]) -> None:
        self._restrictions = tuple(value)
        self._excluded_at: dict = {}  # (ply, colour) -> actions left out (None: none)

    def _excluded(self, ply: int, color: int) -> Optional[np.ndarray]:
        """The actions :attr:`restrictions` leave out at ``ply`` for ``color``."""
        key = (ply, color)
        if key not in self._excluded_at:
            actions = forbidden_at(self._restrictions, ply, color)
            self._excluded_at[key] = (np.fromiter(sorted(actions), dtype=np.intp)
                                      if actions else None)
        return self._excluded_at[key]

    @staticmethod
    def strike_forbidden(root: SearchNode, forbidden: Collection[int]) -> list[int]:
        """Strike the open ``forbidden`` actions of ``root`` (KataGo's
        ``avoid`` and ``allow``) if a move stays open; those struck, for the
        caller to unstrike when the restriction ends."""
        if not forbidden or not root.expanded:
            return []
        open_now = set(root.open_actions().tolist())
        struck = [a for a in forbidden if a in open_now]
        if len(struck) >= len(open_now):
            return []
        for action in struck:
            root.strike(action)
        return struck

    def visit_root_action(self, action: int, visits: int) -> None:
        """Descend through the root's ``action`` until it has ``visits``
        visits, whatever selection thinks of it: a move the caller compares
        with the best one (the pass, when a count calls the game over) gets a
        value of its own even where selection never tried it. Nothing
        happens at a root that is not expanded or proven, or when
        ``action`` is not open there (occupied, struck out)."""
        root = self.root
        if root is None or not root.expanded or root.exact is not None \
                or action not in root.open_actions():
            return
        self._forced_action = action
        try:
            for _ in range(visits):
                edge = root.edge(action)
                if edge >= 0 and root.visits[edge] >= visits:
                    break
                self.step(1)
        finally:
            self._forced_action = None

    def step(self, batch: int) -> None:
        """One round: select up to ``batch`` leaves, evaluate, apply."""
        leaves = self.select(batch)
        if leaves:
            answer = self.evaluator.evaluate(leaves)
            self.evaluations += len(leaves)
            self.apply(leaves, answer[0], answer[1], getattr(answer, "margins", None),
                       getattr(answer, "ownership", None))

    def select(self, batch: int) -> list[Leaf]:
        """Up to ``batch`` descents with virtual loss; the leaves that need
        the evaluator (finished games and cached positions are backed up at
        once). Stops at a leaf already waiting in this batch."""
        pending: list[Leaf] = []
        waiting: set[int] = set()
        for _ in range(batch):
            leaf = self._descend()
            if leaf is None:
                continue
            if id(leaf.node) in waiting:
                self._undo_virtual_loss(leaf.path)
                break
            pending.append(leaf)
            waiting.add(id(leaf.node))
        return pending

    def apply(self, leaves: Sequence[Leaf], priors, values, margins=None,
              ownership=None) -> None:
        """Expand ``leaves`` with the evaluator's answers and back them up
        (with score leads when ``margins`` are given; the ``ownership`` rows
        are kept on the nodes when :attr:`keep_ownership` is set)."""
        if not leaves:
            return
        if not self.keep_ownership or ownership is None or isinstance(priors, list):
            ownership = None  # (mixed board sizes come as a list of prior rows)
        else:
            ownership = np.asarray(ownership, dtype=np.float16)
        if margins is not None:
            self.scored = True
        size = self.size
        actions = point_actions(size)
        open_mask = np.zeros((len(leaves), size * size + 1), dtype=bool)
        for k, leaf in enumerate(leaves):
            open_mask[k, actions[leaf.board.empties]] = True
        open_mask[:, -1] = True
        block = self._normalised(np.asarray(priors), open_mask)
        if len(self.cache) > self.cache_size:
            self.cache.clear()
        cache = self.cache if self.cache_size > 0 else None
        by_score = self.by_score and margins is not None
        for k, leaf in enumerate(leaves):
            node, value = leaf.node, float(values[k])
            node.priors = block[k].tobytes()
            score = None
            if margins is not None:
                komi = leaf.komi
                score = node.score = float(margins[k]) - (komi if leaf.to_move == 1 else -komi)
                if by_score:
                    value = self._value_of_score(score)
            node.value = value
            if ownership is not None:
                node.ownership = ownership[k]
            if cache is not None:
                cache[leaf.key] = (node.priors, value) if score is None \
                    else (node.priors, value, score)
            self._backup(leaf.path, value, node.score)

    def _choose(self, node: SearchNode, center: float = 0.0,
                excluded: Optional[np.ndarray] = None) -> tuple[int, int]:
        """The action with the best PUCT score at ``node`` and its edge
        (-1 when the move has not been tried there yet). Untried moves all
        share the first-play-urgency value, so the best of them is simply the
        one with the highest prior.

        With a score known, at a node whose game looks decided (its value
        beyond :data:`SATURATED` either way), a move's value is its win
        rate's plus a score utility, ``score_utility * tanh((lead - center)
        / scale)`` of its mean lead, ``center`` the root's expected lead from
        the view of ``node``'s player: when every move wins (or loses), the
        search still prefers the moves that gain points (KataGo does so
        everywhere; here it would cost every descent step, and close games
        are decided by the win rate). ``excluded`` actions are not chosen
        unless nothing else is open (:attr:`restrictions`)."""
        priors = PRIOR_OF_BYTE.take(np.frombuffer(node.priors, dtype=np.uint8))
        wide = self.wide_root_noise if node is self.root else 0.0
        if wide:  # the open moves' priors only: a closed one's -inf stays
            np.power(priors, 1.0 / (1.0 + 4.0 * wide), out=priors, where=priors > 0)
        if node.struck is not None:
            priors[node.struck] = -np.inf
        if excluded is not None:
            kept = priors[excluded]
            priors[excluded] = -np.inf
            if np.isneginf(priors).all():  # nothing else open here: the restriction yields
                priors[excluded] = kept
        k = node.edges
        if not k:
            return int(priors.argmax()), -1
        stats = node.stats
        moves, n = stats[MOVE, :k].astype(np.intp), stats[VISITS, :k]
        scale = self.c_puct * math.sqrt(node.total + 1.0)
        fpu = node.value - self.fpu_reduction
        q = np.divide(stats[VALUES, :k], n, out=np.full(k, fpu), where=n > 0)
        if wide:  # half the tried moves, at random, look a little better
            bonus = np.abs(self.np_rng.standard_normal(k))
            bonus *= self.np_rng.random(k) < 0.5
            q += wide * bonus
        utility = self._utility
        if utility and abs(node.value) >= SATURATED:
            inverse = 1.0 / self._scale
            lead = stats[SCORES, :k] / np.maximum(n, 1e-9)  # no visit, no score: 0
            lead -= center
            lead *= inverse
            q += utility * np.tanh(lead, out=lead)
            if node is not self.root:  # the root's lead is the centre itself
                fpu += utility * math.tanh((node.score - center) * inverse)
        forced = self.forced_playouts if node is self.root else 0.0
        if forced:  # a tried root move short of its forced visits goes first
            short = np.sqrt(forced * node.total * np.maximum(priors[moves], 0.0)) - n
            edge = int(short.argmax())
            if short[edge] > 0:
                return int(moves[edge]), edge
        tried = q + priors[moves] * (scale / (1.0 + n))
        priors[moves] = -np.inf
        edge, action = int(tried.argmax()), int(priors.argmax())
        if forced and forced * node.total * float(priors[action]) >= 1.0:
            return action, -1
        if tried[edge] >= scale * float(priors[action]) + fpu:
            return int(moves[edge]), edge
        return action, -1

    def _descend(self) -> Optional[Leaf]:
        """One descent from the root, replayed on a scratch board; returns
        the leaf to evaluate, or None when the value was backed up at once."""
        node = self.root
        board = self.root_board.copy()
        color, passes, size = self.root_color, self.root_passes, self.size
        points = action_points(size)
        pass_action = size * size
        want_cells = getattr(self.evaluator, "history", HISTORY) > 1
        cells: deque = deque(maxlen=HISTORY - 1)
        hashes: deque = deque(maxlen=HISTORY - 1)
        path = []
        komi = self.root_komi
        stone_komi = {1: self.stone_komi(1), 2: self.stone_komi(2)}
        vl = self.virtual_loss
        root_color, center = self.root_color, self._score_sum / self._score_n
        forced_at = node if self._forced_action is not None else None
        while node.expanded and not node.terminal and (node.exact is None or not path):
            if node is forced_at:
                action = self._forced_action
                edge = node.edge(action)
            else:
                excluded = self._excluded(len(path), color) if self._restrictions and path \
                    else None
                action, edge = self._choose(node, center if color == root_color else -center,
                                            excluded)
            point = points[action]
            if edge < 0:
                if point is not None and self._unplayable(board, point, color):
                    node.strike(action)  # never a move here
                    continue
                edge, child = node.add_edge(action)
                child.terminal = action == pass_action and passes >= 1
            stats = node.stats
            stats[VISITS, edge] += vl
            stats[VALUES, edge] -= vl
            node.total += vl
            path.append((node, edge))
            if want_cells:
                cells.append(board.cells[:])
            hashes.append(board.hash)
            if point is None:
                board.play(None, color)
                passes += 1
            else:
                board.place(point, color)
                passes = 0
                komi += stone_komi[color]
            color = 3 - color
            node = node.children[edge]
        if node.terminal or node.exact is not None:
            score = node.exact
            if score is None:
                score = self._terminal_score(board, color, komi)
                if not self._dead:  # counted as the stones stand: the rules' own result
                    node.exact = score
            self._backup(path, self._value_of_score(score), score)
            if node.exact is not None:
                self.prove(path)
            return None
        earlier = list(reversed(hashes)) + self._root_hashes
        key = hash((color, board.hash, *earlier[:HISTORY - 1]))
        cached = self.cache.get(key)
        if cached is not None:  # (priors, value) or, with a score, (priors, value, score)
            node.priors, node.value = cached[0], cached[1]
            if len(cached) > 2:
                node.score, self.scored = cached[2], True
            self._backup(path, node.value, node.score)
            return None
        recent = [bytes(c) for c in reversed(cells)] + self._root_recent if want_cells else []
        return Leaf(board, color, passes, recent[:HISTORY - 1], node, path, key,
                    komi + self.stones_to_come(color))

    def _undo_virtual_loss(self, path) -> None:
        vl = self.virtual_loss
        for node, edge in path:
            stats = node.stats
            stats[VISITS, edge] -= vl
            stats[VALUES, edge] += vl
            node.total -= vl

    def _backup(self, path, value: float, score: float = 0.0) -> None:
        """Back ``value`` and ``score`` (for the leaf's player to move) up
        the path, removing the virtual loss the descent put there."""
        vl = self.virtual_loss
        for node, edge in reversed(path):
            value, score = -value, -score  # now the view of the player who chose the move
            stats = node.stats
            stats[VISITS, edge] += 1.0 - vl
            stats[VALUES, edge] += value + vl
            stats[SCORES, edge] += score
            stats[SQUARES, edge] += value * value
            node.total += 1.0 - vl
        if self._utility:  # the root's mean lead, the utility's centre
            self._score_sum += score
            self._score_n += 1.0

    def prove(self, path) -> None:
        """Carry a proven score up ``path`` (its last child proven): a node
        is proven when one of its moves reaches the best score a player can
        have (the whole board), or when every move it may choose (open, not
        struck) has a proven child; its score is then the best of theirs.
        Proven nodes are searched no more, and the move chosen at a proven
        root is one that keeps its score (:meth:`SearchNode.best_edge`), so
        small boards and settled endings are played exactly. A root whose
        pass is struck out is not proven: the pass may come back."""
        if self._restrictions:
            return
        pass_action = self.size * self.size
        whole_board = {1: pass_action - self.komi, 2: pass_action + self.komi}
        if self.territory:  # stones put on the board move the bound: no shortcut
            whole_board = {1: math.inf, 2: math.inf}
        for depth in range(len(path) - 1, -1, -1):
            node, edge = path[depth]
            best = -node.children[edge].exact
            color = self.root_color if depth % 2 == 0 else 3 - self.root_color
            if best < whole_board[color]:
                open_moves = node.open_actions()
                if len(open_moves) > node.edges:
                    return
                wanted = set(open_moves.tolist())
                reached = 0
                for action, child in zip(node.moves.tolist(), node.children):
                    if action in wanted:
                        if child.exact is None:
                            return
                        best = max(best, -child.exact)
                        reached += 1
                if reached < len(wanted):
                    return
            if node is self.root and node.is_struck(pass_action):
                return
            node.exact = best

    def _value_of_score(self, score: float) -> float:
        """A finished line's (or a leaf's expected) score as a value: the win
        or loss, or with :attr:`by_score` the lead over the board's points."""
        if self.by_score:
            return max(-1.0, min(1.0, score / (self.size * self.size)))
        return win_value(score)

    def stone_komi(self, color: int) -> float:
        """The komi a stone of ``color`` put on the board adds: under
        territory scoring a point for the opponent (+1 for a black stone,
        -1 for a white one: territory with prisoners is the area less the
        stones each side played); 0 by area."""
        if not self.territory:
            return 0.0
        return 1.0 if color == 1 else -1.0

    def stones_to_come(self, to_move: int) -> float:
        """Under territory scoring, the stone difference still to come in a
        position with ``to_move`` to play, on average: the side to move
        puts one stone more on the board than the other or as many (half a
        point more komi with Black to move, half a point less with White);
        without it, the leaves of one parity would count a point apart
        from the others'. 0 by area."""
        if not self.territory:
            return 0.0
        return 0.5 if to_move == 1 else -0.5

    def _terminal_score(self, board, to_move: int, komi: float) -> float:
        """Two passes: the area score with the line's ``komi`` decides (see
        :attr:`territory`; under territory scoring with the seki tax, a
        seki's eyes nobody's), with the stones the root's count judged dead
        removed while they stand (:meth:`assume_dead`); the score for the
        player to move."""
        dead = self._dead
        if callable(dead):  # assume_dead's stones, found at the first need
            dead = self._dead = dead()
        if dead:
            cells = board.cells
            dead = [p for p, c in dead if cells[p] == c]
        score = (seki_taxed_score if self.territory else area_score)(board, komi, dead)
        return score if to_move == 1 else -score

    def _settled(self, root: SearchNode, target, deadline, start, done) -> bool:
        """True when the best move cannot change in the remaining budget."""
        if root.edges < 2 or done < 32:
            return False
        elapsed = time.perf_counter() - start
        rate = done / elapsed if elapsed > 0 else 0
        if target is not None:
            remaining = target - root.total_visits()
            if deadline is not None:
                remaining = min(remaining, rate * (deadline - time.perf_counter()))
        else:
            remaining = rate * (deadline - time.perf_counter())
        top = np.sort(root.visits)[-2:]
        return top[1] - top[0] > remaining

    # ------------------------------------------------------------ results
    def point_of(self, action: int) -> Optional[int]:
        """The board point of an action on the searched board (None: pass)."""
        return action_points(self.size)[action]
