"""``mcts``: the PUCT search as a decision algorithm.

Priors and values come from a policy-value network (``model=PATH``) or,
without one, from uniform priors and random playouts. The tree is kept
between moves and reused when the game follows it (play, genmove, undo).
"""

from __future__ import annotations

import gc
import random
import threading
import time
from typing import Any, Optional

import numpy as np

from imago.game import GameState, count, lost_for_good
from imago.search import PlayoutEvaluator, PUCTSearch, SearchNode

from .algorithm import RESIGN, DecisionAlgorithm, checked

NO_MODEL = ("", "none", "playouts")
_ANY_START = random.Random(0)
SETTLED = 0.6
"""A string's fate is clear when its ownership is beyond this (either way)."""
MIN_NETWORK_SIZE = 5
"""Smaller boards are searched with playouts even when a network is loaded."""


def make_evaluator(model: Optional[str], komi: float, seed: Optional[int], batch_size: int,
                   symmetries: str = "random") -> Any:
    """A network evaluator for ``model`` (a path; ``default``: the shipped
    residual network when it and TensorFlow are installed), turning leaves
    by ``symmetries`` (see :class:`imago.nn.evaluator.NetworkEvaluator`), or
    random playouts for ``none``."""
    if model == "default":
        from imago.nn.evaluator import default_model_path

        path = default_model_path()
        model = None if path is None else str(path)
    if model is None or str(model).lower() in NO_MODEL:
        return PlayoutEvaluator(komi=komi, seed=seed)
    from imago.nn.evaluator import NetworkEvaluator  # imports TensorFlow
    return NetworkEvaluator(model, batch_size=batch_size, symmetries=symmetries, seed=seed)


class MCTSAlgorithm(DecisionAlgorithm):
    """PUCT tree search. Options (all settable from the command line):

    - ``model``: network file (``default``: the shipped residual network
      when available; ``none``: random playouts instead);
    - ``visits``: root visits per move when no time is given;
    - ``c_puct``, ``fpu_reduction``, ``batch_size``, ``virtual_loss``;
    - ``symmetries``: ``random`` (each leaf turned by a random board
      symmetry; roots and ownership averaged over all 8) or ``none``;
    - ``dirichlet_alpha`` (0: no root noise), ``noise_fraction``;
    - ``temperature`` and ``temperature_moves``: sample the first moves of
      a game in proportion to visits ** (1 / temperature) (self-play);
    - ``resign_threshold`` (win rate), ``resign_moves`` (how many moves in a
      row it must stay below), ``no_resign``;
    - ``seed`` for repeatable searches.
    """

    name = "mcts"

    def __init__(self, model: Optional[str] = "default", visits: int = 200, c_puct: float = 1.5,
                 fpu_reduction: float = 0.25, batch_size: int = 16, virtual_loss: float = 1.0,
                 dirichlet_alpha: float = 0.0, noise_fraction: float = 0.25,
                 temperature: float = 0.0, temperature_moves: int = 0,
                 resign_threshold: float = 0.05, resign_moves: int = 3,
                 no_resign: bool = False, seed: Optional[int] = None,
                 symmetries: str = "random"):
        self.model = model
        self.visits = checked("visits", visits, int, low=1)
        self.temperature = checked("temperature", temperature, low=0)
        self.temperature_moves = checked("temperature_moves", temperature_moves, int, low=0)
        self.resign_threshold = checked("resign_threshold", resign_threshold, low=0, high=1)
        self.resign_moves = checked("resign_moves", resign_moves, int, low=1)
        self.no_resign = bool(no_resign) if not isinstance(no_resign, str) else \
            no_resign.lower() in ("1", "true", "yes")
        self.seed = seed
        self.batch_size = checked("batch_size", batch_size, int, low=1)
        try:
            self.network = make_evaluator(model, 7.5, seed, self.batch_size, str(symmetries))
        except FileNotFoundError as err:
            raise ValueError(str(err)) from None
        self.playouts = self.network if isinstance(self.network, PlayoutEvaluator) \
            else PlayoutEvaluator(komi=7.5, seed=seed)
        self.search = PUCTSearch(self.network,
                                 c_puct=checked("c_puct", c_puct, above=0),
                                 fpu_reduction=checked("fpu_reduction", fpu_reduction),
                                 batch_size=self.batch_size,
                                 virtual_loss=checked("virtual_loss", virtual_loss, low=0),
                                 dirichlet_alpha=checked("dirichlet_alpha", dirichlet_alpha, low=0),
                                 noise_fraction=checked("noise_fraction", noise_fraction,
                                                        low=0, high=1),
                                 seed=seed)
        self.low_winrate_streak = 0
        self.searched = False
        self.warmed_up: set[int] = set()
        self._warm_up_lock = threading.Lock()
        self.rng = np.random.default_rng(seed)

    def new_game(self, state: GameState) -> None:
        self.search.forget()
        self.low_winrate_streak = 0

    def check_size(self, size: int) -> None:
        if self._uses_network(size):
            self.network.check_size(size)

    def prepare(self, size: int) -> None:
        """Load the network and pay its first call on ``size`` boards (the
        trace and compilation, about half a second) now, not on the clock
        of the first move. The first time, move the network's many
        long-lived TensorFlow objects out of the garbage collector's way:
        full collections walk every tracked object and made some moves take
        0.2 s longer."""
        if not self._uses_network(size) or size in self.warmed_up:
            return
        with self._warm_up_lock:
            if size in self.warmed_up:
                return
            self.network.evaluate([GameState(size).current])
            if not self.warmed_up:
                gc.collect()
                gc.freeze()
            self.warmed_up.add(size)

    def _uses_network(self, size: int) -> bool:
        return not isinstance(self.network, PlayoutEvaluator) and size >= MIN_NETWORK_SIZE

    def _choose_evaluator(self, state: GameState) -> None:
        """The network from 5x5 up; random playouts on smaller boards, where
        a network trained on 9x9 misjudges everything (on 3x3 it prefers to
        pass) and search alone nearly solves the game. Playouts are
        evaluated one leaf at a time: batching only pays for network calls,
        and its virtual loss blurs the search."""
        use_network = self._uses_network(state.size)
        if use_network:
            self.prepare(state.size)
        evaluator = self.network if use_network else self.playouts
        if evaluator is not self.search.evaluator:
            self.search.forget()
            self.search.cache.clear()
            self.search.evaluator = evaluator
        self.search.batch_size = self.batch_size if use_network else 1
        self.playouts.komi = state.komi

    def choose_move(self, state: GameState, color: int, seconds: Optional[float] = None,
                    stop=None, progress=None, interval: float = 1.0) -> Optional[int]:
        """Search, then pick. ``stop()`` ends the search early (GoGui's
        interrupt); ``progress(search)`` is called every ``interval``
        seconds (analysis lines, live graphics). Time spent waiting for the
        network to load comes out of ``seconds``."""
        started = time.perf_counter()
        self.searched = False
        self._choose_evaluator(state)
        if seconds is not None:
            seconds = max(0.1 * seconds, seconds - (time.perf_counter() - started))
        judged = count(state.board, state.rules, state.to_move) if self._may_pass(state) \
            else None
        pass_wins = judged is not None and judged.winner == color and judged.settled
        last = state.last_move
        if last is not None and last.is_pass and judged is not None:
            if pass_wins:
                return None
            if lost_for_good(judged, color):
                return None if self._never_resigns(state) else RESIGN
        if not self._has_board_move(state, color):
            return None
        root = self._search(state, color, seconds, stop, progress, interval, pass_wins)
        self.searched = True
        if root.terminal or not root.expanded:
            return None
        point = self.search.point_of(self._pick(root, state))
        if point is None and not pass_wins:
            point = self._best_board_move(root)
        if self._should_resign(state, self.search.winrate(root)):
            return RESIGN
        return point

    def _search(self, state: GameState, color: int, seconds, stop, progress, interval,
                allow_pass: bool = True):
        visits = None if seconds is not None else self.visits
        if progress is None:
            return self.search.run(state, color, visits=visits, seconds=seconds, stop=stop,
                                   allow_pass=allow_pass)
        start = time.perf_counter()
        while True:
            left = None if seconds is None else seconds - (time.perf_counter() - start)
            if left is not None and left <= 0:
                break
            slice_seconds = interval if left is None else min(interval, left)
            root = self.search.run(state, color, visits=visits, seconds=slice_seconds, stop=stop,
                                   early_stop=False, allow_pass=allow_pass)
            progress(self.search)
            if (stop is not None and stop()) or root.terminal or not root.expanded \
                    or (visits is not None and root.total_visits() >= visits):
                break
        return self.search.set_root(state, color)

    def summary(self) -> Optional[dict]:
        if not self.searched:  # the last move was chosen without a search
            return None
        results = self.search.results(limit=1)
        if not results:
            return None
        best = results[0]
        return {"winrate": best.winrate, "visits": self.search.root.total_visits(),
                "pv": best.pv}

    # ------------------------------------------------------------ policy
    def _pick(self, root: SearchNode, state: GameState) -> int:
        """The action to play: the most visited, or in the opening of a
        self-play game one drawn in proportion to visits ** (1 / T)."""
        if self.temperature > 0 and state.current.number < self.temperature_moves:
            weights = np.maximum(root.visits, 0.0) ** (1.0 / self.temperature)
            if weights.sum() > 0:
                edge = int(self.rng.choice(len(weights), p=weights / weights.sum()))
                return int(root.moves[edge])
        return root.best_action()

    def ownership(self, state: GameState) -> Optional[list[float]]:
        """The network's ownership estimate for the position (+1 Black), or
        None without a network (the engine then uses playouts)."""
        self._choose_evaluator(state)
        estimate = getattr(self.search.evaluator, "ownership", None)
        return None if estimate is None else estimate(state.current, state.to_move)

    @staticmethod
    def _may_pass(state: GameState) -> bool:
        """Whether passing is worth considering at all: after the opponent
        passed, or once a third of the board's points have been played (no
        position is settled before that, and the count costs playouts)."""
        last = state.last_move
        if last is not None and last.is_pass:
            return True
        return state.current.number >= state.size * state.size // 3

    @staticmethod
    def _has_board_move(state: GameState, color: int) -> bool:
        """Whether ``color`` has a legal move that does not fill its own eye
        (without one it passes: filling its own eyes would kill its groups).
        The playouts' move picker answers exactly that; where it starts its
        scan does not matter here."""
        return state.board.random_move(color, _ANY_START) is not None

    def _best_board_move(self, root: SearchNode) -> Optional[int]:
        """The most visited move other than pass (pass if none was searched)."""
        best, best_visits = None, 0.0
        for action, n in zip(root.moves.tolist(), root.visits.tolist()):
            point = self.search.point_of(action)
            if point is not None and n > best_visits:
                best, best_visits = point, n
        return best

    def _never_resigns(self, state: GameState) -> bool:
        """Whether resigning is off (by option) or too early in the game."""
        if self.no_resign or self.resign_threshold <= 0:
            return True
        return bool(state.handicap) and state.current.number < 20 + 2 * state.handicap

    def _should_resign(self, state: GameState, winrate: float) -> bool:
        if self._never_resigns(state):
            return False
        if state.current.number < state.size:
            return False
        if winrate < self.resign_threshold:
            self.low_winrate_streak += 1
        else:
            self.low_winrate_streak = 0
        return self.low_winrate_streak >= self.resign_moves
