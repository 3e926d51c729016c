"""The root of a search: which node of the kept trees stands for the game's
position (:meth:`RootSetup.set_root`; the tree is reused when the game went
down it, or back), its careful evaluation and priors over the legal moves
(:meth:`RootSetup.prepare`), root noise, the pass allowed or not, the score
utility's centre, and the policy target a self-play search leaves.

:class:`RootSetup` is a mixin of :class:`imago.search.puct.PUCTSearch`,
which holds the attributes it reads and writes."""

from __future__ import annotations

import math
import random
from typing import Callable, Iterable, Optional, Union

import numpy as np

from imago.game import GameMove, GameState
from imago.game.state import TERRITORY
from imago.game.seki import losing_self_atari

from .local import losing_moves
from .leaf import HISTORY, Leaf, action_of, action_points, point_actions
from .tree import CLOSED, VISITS, SearchNode, encode_priors


def score_scale_for(size: int) -> float:
    """The score utility's scale in points on a ``size`` board (3 on 9x9,
    about 6 on 19x19): a move's utility changes most within this of the
    root's expected lead."""
    return max(2.0, size / 3.0)


class RootSetup:
    """The root side of :class:`~imago.search.puct.PUCTSearch` (see the
    module docstring)."""

    def set_root(self, state: GameState, color: int) -> SearchNode:
        """The search root for ``state.current`` with ``color`` to move,
        reusing the previous tree when the game moved along it (or back).
        A new komi drops the cached evaluations (a network may take komi as
        an input).

        A position where two passes ended the game is terminal, unless
        :attr:`play_on_after_passes`: then it is searched as though play
        resumed (the passes that ended it forgotten; a line of the search
        still ends with two passes of its own)."""
        if state.game_komi != self.komi:
            self.cache.clear()
        self.komi = state.game_komi  # the handicap bonus included
        self.territory = state.scoring == TERRITORY
        self.root_komi = state.scoring_komi  # the komi the root's position is counted with
        current = state.current
        root = None
        for game_node, node, node_color in reversed(self.recent_roots):
            root = self._reuse(game_node, node, node_color, current, color, state.size)
            if root is not None:
                break
        passes = state.consecutive_passes()
        play_on = passes >= 2 and self.play_on_after_passes
        if root is None or (play_on and root.terminal):
            root = SearchNode()
            root.terminal = passes >= 2 and not play_on
        self.root, self.root_game_node, self.root_color = root, current, color
        self.root_board = current.board
        self.size = state.size
        hint_hash, hint = self._dead_hint
        self._dead = hint if hint_hash == self.root_board.hash else ()
        self.root_passes = 0 if play_on else passes
        self._remember_history(current)
        self.recent_roots = [r for r in self.recent_roots if r[1] is not root][-3:]
        self.recent_roots.append((current, root, color))
        return root

    def _remember_history(self, current: GameMove) -> None:
        """The root's earlier positions (hashes always; cells when the
        evaluator's inputs look back), for leaves' history and cache keys."""
        want_cells = getattr(self.evaluator, "history", HISTORY) > 1
        cells, hashes = [], []
        node = current.parent
        while node is not None and len(hashes) < HISTORY - 1:
            board = node.board
            hashes.append(board.hash)
            if want_cells:
                cells.append(bytes(board.cells))
            node = node.parent
        self._root_recent, self._root_hashes = cells, hashes

    def assume_dead(self, board, points: Union[Iterable[int], Callable[[], Iterable[int]]]
                    ) -> None:
        """Count the stones at ``points`` of ``board`` (a count's dead
        stones) as removed when a line of the search ends with two passes,
        as the final count will, for searches whose root is ``board``'s
        position; stones played in the search count as they stand.
        ``points`` may be a function that gives them: it is called when a
        line first ends with two passes, so that a count which costs
        playouts is made only for the searches that need it."""
        if callable(points):
            find, cells = points, list(board.cells)  # as they are now
            self._dead_hint = (board.hash, lambda: tuple((p, cells[p]) for p in find()))
        else:
            cells = board.cells
            self._dead_hint = (board.hash, tuple((p, cells[p]) for p in points))

    def reseed(self, seed: Optional[int]) -> None:
        """Start afresh as a new search seeded with ``seed`` would: its
        random state, and no kept tree or cached evaluation."""
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.forget()
        self.cache.clear()

    def forget(self) -> None:
        """Drop every kept tree (new game, new komi)."""
        self.scored = False
        self._dead_hint, self._dead = (None, ()), ()
        self.root = self.root_game_node = self.root_board = None
        self.recent_roots = []

    def reuse_nothing(self) -> None:
        """Keep the root for its reports, but let no later search start from
        it or a subtree of it (one searched under restrictions below the
        root, whose lines are no free search's)."""
        self.recent_roots = []

    @staticmethod
    def _reuse(old_node: GameMove, old: SearchNode, old_color: int, current: GameMove,
               color: int, size: int) -> Optional[SearchNode]:
        """The node of the tree under ``old`` (searched at ``old_node`` with
        ``old_color`` to move) that stands for ``current``, if the game went
        down that tree with the colours alternating."""
        path, node = [], current
        while node is not None and node is not old_node:
            path.append(node)
            node = node.parent
        if node is None:
            return None
        found, to_move = old, old_color
        for game_node in reversed(path):
            if not found.expanded or game_node.color != to_move:
                return None
            edge = found.edge(action_of(game_node.point, size))
            if edge < 0:
                return None
            found = found.children[edge]
            to_move = 3 - to_move
        return found if to_move == color else None

    def begin(self, state: GameState, color: int, allow_pass: bool = True,
              root_answer: Optional[tuple] = None) -> SearchNode:
        """Make ready to search ``state.current`` for ``color``:
        :meth:`set_root`, then :meth:`prepare`."""
        self.set_root(state, color)
        return self.prepare(allow_pass, root_answer)

    def prepare(self, allow_pass: bool = True, root_answer: Optional[tuple] = None
                ) -> SearchNode:
        """Make the root set by :meth:`set_root` ready: expanded
        (``root_answer``, a ``(policy, value[, ownership])`` answer for
        :meth:`root_request`,
        or the evaluator's most careful answer; a reused root keeps its
        visits and takes the careful priors), illegal moves struck out, root
        noise, the pass allowed or not."""
        root = self.root
        self.noiseless_priors = None
        if self.needs_root_answer():
            if root_answer is None:
                careful = getattr(self.evaluator, "evaluate_all_symmetries",
                                  self.evaluator.evaluate)
                answer = careful([self.root_request()])
                ownership = getattr(answer, "ownership", None)
                root_answer = (answer[0][0], answer[1][0],
                               None if ownership is None else ownership[0])
                if getattr(answer, "margins", None) is not None:
                    self.scored = True
                self.evaluations += 1
            if root.expanded:
                self._reprioritise(root, root_answer[0])  # a reused root had a leaf's answer
            else:
                self._expand_exact(root, root_answer[0], root_answer[1])
            if self.keep_ownership and len(root_answer) > 2 and root_answer[2] is not None:
                root.ownership = np.asarray(root_answer[2], dtype=np.float16)
        elif root.expanded and not root.careful:
            root.careful = True         # nothing more careful to ask for
            self._strike_illegal(root)  # it was expanded without legality checks
            self._strike_lost(root)
        if root.expanded:
            if self.dirichlet_alpha > 0:
                self._add_noise(root)
            self._allow_root_pass(root, allow_pass)
        self._set_score_utility(root)
        return root

    def _set_score_utility(self, root: SearchNode) -> None:
        """Start the score utility's centre, the root's expected lead: the
        mean over its visits, which ``_backup`` keeps up to date (0 before
        the first)."""
        self._utility = self.score_utility if self.scored and not self.by_score else 0.0
        if not self._utility:
            return
        self._scale = float(self.score_scale or score_scale_for(self.size))
        self._score_sum = float(root.scores.sum())
        self._score_n = max(float(root.visits.sum()), 1e-9)

    def root_request(self) -> Leaf:
        """The root position as an evaluator request (after :meth:`set_root`)."""
        return Leaf(self.root_board, self.root_color, self.root_passes, self._root_recent,
                    self.root, [], 0, self.root_komi + self.stones_to_come(self.root_color))

    def child_request(self, action: int) -> Leaf:
        """The position after the root player's ``action`` (legal) as an
        evaluator request, e.g. for the ownership after each candidate."""
        board = self.root_board.copy()
        point = self.point_of(action)
        board.play(point, self.root_color)
        recent = []
        if getattr(self.evaluator, "history", HISTORY) > 1:
            recent = ([bytes(self.root_board.cells)] + self._root_recent)[:HISTORY - 1]
        passes = self.root_passes + 1 if point is None else 0
        komi = self.root_komi + self.stones_to_come(3 - self.root_color)
        if point is not None:
            komi += self.stone_komi(self.root_color)
        return Leaf(board, 3 - self.root_color, passes, recent, SearchNode(), [], 0, komi)

    def needs_root_answer(self) -> bool:
        """Whether the root set by :meth:`set_root` needs the evaluator's
        careful answer: a new root, or a reused one expanded with a leaf's
        answer when the evaluator has a more careful one (lets a pool
        evaluate many roots in one call)."""
        root = self.root
        if root.terminal or root.careful:
            return False
        return not root.expanded or hasattr(self.evaluator, "evaluate_all_symmetries")

    def _open_mask(self, board, exact: bool) -> np.ndarray:
        """Actions open at ``board``: empty points (legal ones when
        ``exact``) and the pass."""
        size = self.size
        mask = np.zeros(size * size + 1, dtype=bool)
        empties = board.empties
        if exact:
            color = self.root_color
            empties = [p for p in empties if not self._unplayable(board, p, color)]
        mask[point_actions(size)[empties]] = True
        mask[-1] = True
        return mask

    @staticmethod
    def _normalised(policy: np.ndarray, open_mask: np.ndarray) -> np.ndarray:
        """``policy`` renormalised over the open actions (uniform when it
        gives them nothing), as prior bytes; rows of a batch."""
        policy = np.where(open_mask, np.asarray(policy, dtype=np.float64), 0.0)
        total = policy.sum(axis=-1, keepdims=True)
        uniform = open_mask / open_mask.sum(axis=-1, keepdims=True)
        priors = np.divide(policy, total, out=uniform, where=total > 0)
        return encode_priors(priors, open_mask)

    def _read_locally(self, open_mask: np.ndarray, root: SearchNode) -> np.ndarray:
        """``open_mask`` without the moves :meth:`_strike_lost` strikes."""
        lost = self._strike_lost(root)
        if len(lost):
            open_mask = open_mask.copy()
            open_mask[lost] = False
        return open_mask

    def _strike_lost(self, root: SearchNode) -> np.ndarray:
        """Strike out of ``root`` the moves that lose locally in its
        closed-off areas, read out to the end
        (:func:`imago.search.local.losing_moves`), with any visits they had
        (below an earlier root nothing was read), unless
        :attr:`local_reading` is off or losing self-ataris are tried; their
        actions."""
        if not self.local_reading or self.self_atari:
            return np.zeros(0, dtype=np.intp)
        losing = losing_moves(self.root_board, self.root_color,
                              deadline=self.read_deadline)
        actions = point_actions(self.size)[sorted(losing)]
        for action in actions:
            self._drop(root, int(action))
        return actions

    @staticmethod
    def _drop(root: SearchNode, action: int) -> None:
        """Strike ``action`` out of ``root``'s choices with any visits it had."""
        edge = root.edge(action)
        if edge >= 0:
            root.total -= root.visits[edge]
            root.stats[VISITS:, edge] = 0.0  # every statistic but the move
        root.strike(action)

    def _expand_exact(self, root: SearchNode, policy, value) -> None:
        open_mask = self._read_locally(self._open_mask(self.root_board, exact=True), root)
        root.priors = self._normalised(policy, open_mask).tobytes()
        root.value = float(value)
        root.careful = True

    def _reprioritise(self, root: SearchNode, policy: np.ndarray) -> None:
        """Give a reused root the careful ``policy`` as priors, keeping the
        visits it already has, and strike its illegal moves out."""
        root.careful = True
        open_mask = self._read_locally(self._open_mask(self.root_board, exact=True), root)
        root.priors = self._normalised(policy, open_mask).tobytes()
        self._strike_illegal(root)

    def _strike_illegal(self, root: SearchNode) -> None:
        """Strike out every illegal move (and losing self-atari, see
        :meth:`_descend`) at a reused root, so results list legal moves only."""
        board, color = self.root_board, self.root_color
        points = action_points(self.size)
        tried = set(root.moves.tolist())
        for action in root.open_actions():
            point = points[action]
            if point is not None and action not in tried \
                    and self._unplayable(board, point, color):
                root.strike(int(action))

    def _unplayable(self, board, point: int, color: int) -> bool:
        """Whether ``color`` may not play ``point`` in the search: illegal,
        or a losing self-atari (unless ``self_atari`` is set)."""
        return board.illegal_reason(point, color) is not None \
            or (not self.self_atari and losing_self_atari(board, point, color))

    def _add_noise(self, root: SearchNode) -> None:
        actions = root.open_actions()
        noise = self.np_rng.dirichlet([self.dirichlet_alpha] * len(actions))
        priors = root.choice_priors()
        self.noiseless_priors = priors.copy()
        priors[actions] = (1 - self.noise_fraction) * priors[actions] + self.noise_fraction * noise
        open_mask = np.frombuffer(root.priors, dtype=np.uint8) != CLOSED
        root.priors = encode_priors(priors, open_mask).tobytes()

    def policy_target(self) -> np.ndarray:
        """The root's visits over the whole action space as a training
        target, without the visits the root noise alone gave: each move but
        the most visited keeps at most the visits PUCT would have given it
        with the priors before the noise and the values as searched (the
        largest n with ``Q + c * P * sqrt(N + 1) / n`` still at least the
        most visited move's PUCT value), as KataGo prunes its forced
        playouts. Without noise at this root, the visits as they are.
        Unpruned, a network trained on the targets learns to spread its
        policy over the moves the noise happened to pick."""
        root = self.root
        visits = np.zeros(self.size * self.size + 1, np.float64)
        if root is None or not root.edges:
            return visits
        moves, n = root.moves, np.maximum(root.visits, 0.0)
        visits[moves] = n
        priors = self.noiseless_priors
        if priors is None or n.sum() <= 0:
            return visits
        best = int(n.argmax())
        scale = self.c_puct * math.sqrt(root.total + 1.0)
        q = np.divide(root.values, n, out=np.zeros(len(n)), where=n > 0)
        bar = q[best] + scale * priors[moves[best]] / (1.0 + n[best])
        gap = bar - q
        deserved = np.full(len(n), np.inf)
        below = gap > 0
        deserved[below] = np.floor(scale * priors[moves[below]] / gap[below])
        kept = np.minimum(n, deserved)
        kept[best] = n[best]
        visits[moves] = kept
        return visits

    def _allow_root_pass(self, root: SearchNode, allow: bool) -> None:
        """Strike the pass out of the root's choices (dropping any visits it
        had from an earlier search), or put it back."""
        pass_action = self.size * self.size
        struck = root.is_struck(pass_action)
        if not allow and not struck:
            if not any(a != pass_action for a in root.open_actions()):
                return  # with no board move left the pass stays: selection needs a choice
            self._drop(root, pass_action)
        elif allow and struck:
            root.unstrike(pass_action)
