"""PUCT Monte Carlo tree search, as in AlphaGo Zero.

Each node holds, for every legal move of the player to move, the prior P
from a policy, the visit count N and the total value W (from that player's
view). Selection maximises ``Q + c_puct * P * sqrt(sum N) / (1 + N)``, with
unvisited moves valued at the parent's value minus a first-play-urgency
reduction. Leaves are evaluated in batches: up to ``batch_size`` descents
run with a virtual loss on their path, then one evaluator call returns
priors and values for all their positions.

The evaluator is anything with ``evaluate(nodes) -> (priors, values)``:
``priors`` is a ``(len(nodes), size*size + 1)`` array over moves (points
row-major from the top-left, pass last) and ``values`` a ``(len(nodes),)``
array in [-1, 1] from the view of each position's player to move. Nodes
expose ``board``, ``parent`` (the previous position) and ``to_move``, like
:class:`imago.game.GameMove`, so feature encoders can walk the history.
An evaluator may also offer ``evaluate_all_symmetries(nodes)``, a slower and
better answer of the same form, which the search asks for its roots.
"""

from __future__ import annotations

import math
import random
import time
import weakref
from dataclasses import dataclass
from typing import Optional, Protocol, Sequence

import numpy as np

from imago.game import GameBoard, GameMove, GameState, area_score

PASS = None


class Evaluator(Protocol):
    """Gives priors and values for a batch of positions."""

    def evaluate(self, nodes: Sequence) -> tuple[np.ndarray, np.ndarray]: ...


def move_index(point: Optional[int], size: int) -> int:
    """Index of a move in a policy vector (pass is ``size * size``)."""
    if point is None:
        return size * size
    row, col = divmod(point, size + 2)
    return (row - 1) * size + col - 1


class SearchNode:
    """A position in the search tree and the statistics of its moves.

    Per move ``i``: ``visits[i]`` (N), ``values[i]`` (W, for ``to_move``),
    ``q[i]`` (W / N, or the first-play-urgency value while unvisited) and
    ``cprior[i]`` (c_puct times the prior). ``total`` is the sum of N.
    Legality is checked when a move is first taken (all moves at the root):
    an illegal move gets ``q = -inf`` and is never chosen again.
    """

    __slots__ = ("__weakref__", "parent", "board", "color", "point", "to_move", "passes",
                 "moves", "priors", "cprior", "visits", "values", "q", "total",
                 "children", "value", "expanded", "terminal", "careful")

    def __init__(self, board: GameBoard, to_move: int, color: Optional[int],
                 point: Optional[int], passes: int, parent) -> None:
        # the previous position, for history features: a weak proxy for a
        # tree parent, so trees hold no reference cycles and a dropped tree
        # is freed at once instead of by slow full garbage collections
        self.parent = parent
        self.board = board
        self.color = color        # who played the move that led here
        self.point = point
        self.to_move = to_move
        self.passes = passes      # consecutive passes that led here
        self.moves: list = []
        self.priors = self.cprior = self.visits = self.values = self.q = None
        self.total = 0.0
        self.children: list = []
        self.value = 0.0          # the evaluator's value, for to_move
        self.expanded = False
        self.terminal = passes >= 2
        self.careful = False      # priors from the evaluator's careful answer

    def expand(self, policy: np.ndarray, value: float, c_puct: float, fpu_reduction: float,
               exact: bool = False) -> None:
        """Set the moves (every empty point and pass; only legal ones when
        ``exact``) with their priors renormalised, and the position's value."""
        board = self.board
        if exact:
            color = self.to_move
            moves = [p for p in board.empties if board.illegal_reason(p, color) is None]
        else:
            moves = list(board.empties)
        moves.append(PASS)
        n = len(moves)
        self.moves = moves
        priors = self.priors_from(policy)
        self.priors = priors
        self.cprior = c_puct * priors
        self.visits = np.zeros(n)
        self.values = np.zeros(n)
        self.q = np.full(n, float(value) - fpu_reduction)
        self.total = 0.0
        self.children = [None] * n
        self.value = float(value)
        self.expanded = True

    def priors_from(self, policy: np.ndarray) -> np.ndarray:
        """``policy`` (a flat vector over points and pass) on this node's
        moves, renormalised (uniform when it gives them nothing)."""
        size = self.board.size
        stride = size + 2
        # move_index() inlined: this runs for every move of every new leaf
        index = [(p // stride - 1) * size + p % stride - 1 if p is not None else size * size
                 for p in self.moves]
        priors = np.asarray(policy, dtype=np.float64)[index]
        total = priors.sum()
        return priors / total if total > 0 else np.full(len(index), 1.0 / len(index))

    def child(self, i: int) -> Optional["SearchNode"]:
        """The child for move ``i``, created on first use; None (and the move
        struck out) if the move turns out illegal."""
        node = self.children[i]
        if node is None:
            point = self.moves[i]
            if point is not None and self.board.illegal_reason(point, self.to_move) is not None:
                self.q[i] = -np.inf
                self.cprior[i] = 0.0
                return None
            board = self.board.copy()
            if point is PASS:
                board.play(PASS, self.to_move)
            else:
                board.place(point, self.to_move)  # legality was just checked
            passes = self.passes + 1 if point is PASS else 0
            node = SearchNode(board, 3 - self.to_move, self.to_move, point, passes,
                              weakref.proxy(self))
            self.children[i] = node
        return node

    def total_visits(self) -> int:
        return 0 if self.visits is None else int(round(self.total))

    def best_index(self) -> int:
        """The most visited move (prior breaks ties)."""
        return int(np.lexsort((self.priors, self.visits))[-1])


@dataclass
class SearchResult:
    """One root move after a search, from the root player's view."""
    point: Optional[int]
    visits: int
    winrate: float
    prior: float
    lcb: float
    pv: list


class PUCTSearch:
    """The search itself; :class:`imago.engine.mcts_algorithm` wraps it as a
    decision algorithm. Options are attributes so GTP can show and set them."""

    def __init__(self, evaluator: Evaluator, c_puct: float = 1.5, fpu_reduction: float = 0.25,
                 batch_size: int = 8, virtual_loss: float = 1.0, dirichlet_alpha: float = 0.0,
                 noise_fraction: float = 0.25, seed: Optional[int] = None,
                 cache_size: int = 200_000):
        self.evaluator = evaluator
        self.c_puct = c_puct
        self.fpu_reduction = fpu_reduction
        self.batch_size = max(1, int(batch_size))
        self.virtual_loss = virtual_loss
        self.dirichlet_alpha = dirichlet_alpha
        self.noise_fraction = noise_fraction
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.cache: dict = {}
        self.cache_size = cache_size
        self.komi = 7.5
        self.root: Optional[SearchNode] = None
        self.root_game_node: Optional[GameMove] = None
        self.recent_roots: list = []  # (game node, search node), newest last
        self.evaluations = 0

    # ------------------------------------------------------------ the root
    def set_root(self, state: GameState, color: int) -> SearchNode:
        """The search root for ``state.current`` with ``color`` to move,
        reusing the previous tree when the game moved along it (or back)."""
        self.komi = state.komi
        current = state.current
        root = None
        for game_node, node in reversed(self.recent_roots):
            root = self._reuse(game_node, node, current, color)
            if root is not None:
                break
        if root is None:
            passes = state.consecutive_passes()
            root = SearchNode(current.board, color, None, None, passes, current.parent)
        root.parent = current.parent
        self.root, self.root_game_node = root, current
        self.recent_roots = [(g, n) for g, n in self.recent_roots if n is not root][-3:]
        self.recent_roots.append((current, root))
        return root

    def forget(self) -> None:
        """Drop every kept tree (new game, new komi)."""
        self.root = self.root_game_node = None
        self.recent_roots = []

    @staticmethod
    def _reuse(old_node: GameMove, old: SearchNode, current: GameMove,
               color: int) -> Optional[SearchNode]:
        """The node of the tree under ``old`` (searched at ``old_node``) that
        stands for ``current``, if the game went down that tree."""
        # moves from the old root's game node down to the current node
        path, node = [], current
        while node is not None and node is not old_node:
            path.append(node)
            node = node.parent
        if node is None:
            return None
        found = old
        for game_node in reversed(path):
            if not found.expanded or game_node.color != found.to_move:
                return None
            try:
                i = found.moves.index(game_node.point)
            except ValueError:
                return None
            found = found.children[i]
            if found is None:
                return None
        if found.to_move != color or found.board.hash != current.board.hash:
            return None
        return found

    # ------------------------------------------------------------ searching
    def run(self, state: GameState, color: int, visits: Optional[int] = 800,
            seconds: Optional[float] = None, stop=None, early_stop: bool = True,
            allow_pass: bool = True) -> SearchNode:
        """Search from ``state.current`` until the root has ``visits`` visits
        or ``seconds`` pass (or ``stop()`` turns true), stopping early when
        the most visited move can no longer be overtaken. Without
        ``allow_pass`` the root's pass is struck out, so every visit goes to
        the board moves (deeper in the tree both sides may still pass)."""
        root = self.set_root(state, color)
        if not root.expanded and not root.terminal:
            self._evaluate([root])          # expanded with legal moves only
        elif root.expanded:
            if not root.careful:
                self._reprioritise(root)    # a reused root had a leaf's answer
            self._make_exact(root)          # and was expanded lazily
        if self.dirichlet_alpha > 0 and root.expanded:
            noise = self.np_rng.dirichlet([self.dirichlet_alpha] * len(root.moves))
            root.priors = (1 - self.noise_fraction) * root.priors + self.noise_fraction * noise
            root.cprior = self.c_puct * root.priors
        if root.expanded:
            self._allow_root_pass(root, allow_pass)
        start = time.perf_counter()
        deadline = None if seconds is None else start + seconds
        done_before = root.total_visits()
        target = max(int(visits), done_before + 1) if visits else None
        if target is None and deadline is None:
            raise ValueError("a search needs a number of visits or a time")
        while True:
            total = root.total_visits()
            if target is not None and total >= target:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
            if stop is not None and stop():
                break
            if early_stop and self._settled(root, target, deadline, start, total - done_before):
                break
            batch = self.batch_size if target is None else min(self.batch_size, target - total)
            self._round(root, max(1, batch))
            if root.terminal or len(root.moves) == 1:
                if root.total_visits() > 0:
                    break
        return root

    def _make_exact(self, root: SearchNode) -> None:
        """Strike out every illegal move at the root (reused roots were
        expanded lazily), so results list legal moves only."""
        board, color = root.board, root.to_move
        for i, point in enumerate(root.moves):
            if point is not None and root.children[i] is None \
                    and board.illegal_reason(point, color) is not None:
                root.q[i] = -np.inf
                root.cprior[i] = 0.0
                root.priors[i] = 0.0

    def _reprioritise(self, root: SearchNode) -> None:
        """Give a reused root the evaluator's careful priors (the 8-symmetry
        mean of a network), keeping the visits it already has."""
        root.careful = True
        careful = getattr(self.evaluator, "evaluate_all_symmetries", None)
        if careful is None:
            return
        root.priors = root.priors_from(careful([root])[0][0])
        root.cprior = np.where(root.q == -np.inf, 0.0, self.c_puct * root.priors)

    def _allow_root_pass(self, root: SearchNode, allow: bool) -> None:
        """Strike the pass out of the root's choices (dropping any visits it
        had from an earlier search), or put it back."""
        i = len(root.moves) - 1  # expand() puts the pass last
        if root.moves[i] is not PASS:
            return
        struck = root.q[i] == -np.inf
        if not allow and not struck and np.isfinite(root.q[:i]).any():
            # (with no board move left the pass stays: selection needs a choice)
            root.total -= root.visits[i]
            root.visits[i] = root.values[i] = 0.0
            root.q[i] = -np.inf
            root.cprior[i] = 0.0
        elif allow and struck:
            root.q[i] = root.value - self.fpu_reduction
            root.cprior[i] = self.c_puct * root.priors[i]

    def _settled(self, root: SearchNode, target, deadline, start, done) -> bool:
        """True when the best move cannot change in the remaining budget."""
        if root.visits is None or len(root.moves) < 2 or done < 32:
            return False
        if target is not None:
            remaining = target - root.total_visits()
            if deadline is not None:
                elapsed = time.perf_counter() - start
                rate = done / elapsed if elapsed > 0 else 0
                remaining = min(remaining, rate * (deadline - time.perf_counter()))
        else:
            elapsed = time.perf_counter() - start
            rate = done / elapsed if elapsed > 0 else 0
            remaining = rate * (deadline - time.perf_counter())
        top = np.sort(root.visits)[-2:]
        return top[1] - top[0] > remaining

    def _round(self, root: SearchNode, batch: int) -> None:
        pending: list = []
        pending_ids: set = set()
        for _ in range(batch):
            path, leaf = self._select(root)
            if leaf.terminal:
                self._backup(path, leaf, self._terminal_value(leaf), vl_applied=True)
                continue
            if id(leaf) in pending_ids:
                self._undo_virtual_loss(path)
                break
            key = self._cache_key(leaf)
            cached = self.cache.get(key)
            if cached is not None:
                leaf.expand(cached[0], cached[1], self.c_puct, self.fpu_reduction)
                self._backup(path, leaf, leaf.value, vl_applied=True)
                continue
            pending.append((path, leaf, key))
            pending_ids.add(id(leaf))
        if not pending:
            return
        priors, values = self.evaluator.evaluate([leaf for _, leaf, _ in pending])
        self.evaluations += len(pending)
        if len(self.cache) > self.cache_size:
            self.cache.clear()
        for (path, leaf, key), policy, value in zip(pending, priors, values):
            self.cache[key] = (policy, float(value))
            leaf.expand(policy, float(value), self.c_puct, self.fpu_reduction)
            self._backup(path, leaf, leaf.value, vl_applied=True)

    def _select(self, root: SearchNode):
        """Descend from the root with virtual loss; returns the path as
        (node, move index) pairs and the leaf reached."""
        node, path = root, []
        vl = self.virtual_loss
        sqrt = math.sqrt
        while node.expanded and not node.terminal:
            visits = node.visits
            score = node.q + node.cprior * (sqrt(node.total + 1.0) / (visits + 1.0))
            i = int(score.argmax())
            child = node.child(i)
            if child is None:
                continue  # the move was illegal here; choose again
            n = visits[i] + vl
            visits[i] = n
            w = node.values[i] - vl
            node.values[i] = w
            node.q[i] = w / n
            node.total += vl
            path.append((node, i))
            node = child
        return path, node

    def _undo_virtual_loss(self, path) -> None:
        vl = self.virtual_loss
        for node, i in path:
            n = node.visits[i] - vl
            w = node.values[i] + vl
            node.visits[i] = n
            node.values[i] = w
            node.q[i] = w / n if n > 0 else node.value - self.fpu_reduction
            node.total -= vl

    def _backup(self, path, leaf: SearchNode, value: float, vl_applied: bool) -> None:
        """Back ``value`` (for the leaf's player to move) up the path."""
        vl = self.virtual_loss if vl_applied else 0.0
        for node, i in reversed(path):
            value = -value  # now from the view of the player who chose move i
            n = node.visits[i] + 1.0 - vl
            w = node.values[i] + value + vl
            node.visits[i] = n
            node.values[i] = w
            node.q[i] = w / n
            node.total += 1.0 - vl

    def _terminal_value(self, leaf: SearchNode) -> float:
        """Two passes: the area score decides, for the leaf's player to move."""
        score = area_score(leaf.board, self.komi)
        black_value = 1.0 if score > 0 else -1.0 if score < 0 else 0.0
        return black_value if leaf.to_move == 1 else -black_value

    def _evaluate(self, nodes: list) -> None:
        """Expand ``nodes`` (roots) with the evaluator's most careful answer."""
        evaluate = getattr(self.evaluator, "evaluate_all_symmetries", self.evaluator.evaluate)
        priors, values = evaluate(nodes)
        self.evaluations += len(nodes)
        for node, policy, value in zip(nodes, priors, values):
            node.expand(policy, float(value), self.c_puct, self.fpu_reduction, exact=True)
            node.careful = True

    @staticmethod
    def _cache_key(node: SearchNode):
        hashes, n = [], node
        for _ in range(8):
            if n is None:
                break
            hashes.append(n.board.hash)
            n = n.parent
        return node.to_move, tuple(hashes)

    # ------------------------------------------------------------ results
    def results(self, root: Optional[SearchNode] = None, limit: int = 10) -> list[SearchResult]:
        """The visited root moves, most visited first, with win rates from
        the root player's view and principal variations."""
        root = root or self.root
        if root is None or not root.expanded:
            return []
        order = np.lexsort((root.priors, root.visits))[::-1]
        out = []
        for i in order[:limit]:
            n = root.visits[i]
            if n <= 0:
                continue
            q = root.values[i] / n
            winrate = (q + 1) / 2
            spread = math.sqrt(max(winrate * (1 - winrate), 1e-6) / n)
            out.append(SearchResult(root.moves[i], int(round(n)), float(winrate),
                                    float(root.priors[i]), float(max(0.0, winrate - 1.96 * spread)),
                                    self.principal_variation(root, int(i))))
        return out

    @staticmethod
    def principal_variation(root: SearchNode, first: int, length: int = 10) -> list:
        pv, node, i = [], root, first
        while node is not None and node.expanded and len(pv) < length:
            pv.append(node.moves[i])
            node = node.children[i]
            if node is None or not node.expanded or node.total_visits() == 0:
                break
            i = node.best_index()
        return pv


class PlayoutEvaluator:
    """An evaluator without a network: uniform priors over moves and the
    value of one random playout (eye-respecting) scored by area. It lets
    PUCT run, and be tested, where no model is loaded."""

    def __init__(self, komi: float = 7.5, seed: Optional[int] = None, playouts: int = 1):
        self.komi = komi
        self.rng = random.Random(seed)
        self.playouts = playouts

    def evaluate(self, nodes: Sequence) -> tuple[np.ndarray, np.ndarray]:
        size = nodes[0].board.size
        priors = np.full((len(nodes), size * size + 1), 1.0 / (size * size + 1))
        values = np.zeros(len(nodes))
        for k, node in enumerate(nodes):
            total = 0.0
            for _ in range(self.playouts):
                board = node.board.copy()
                # search nodes know the passes that led to them; others start afresh
                board.playout(node.to_move, self.rng, getattr(node, "passes", 0))
                score = area_score(board, self.komi)
                black = 1.0 if score > 0 else -1.0 if score < 0 else 0.0
                total += black if node.to_move == 1 else -black
            values[k] = total / self.playouts
        return priors, values
