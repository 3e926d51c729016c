"""``mcts``: the PUCT search as a decision algorithm.

Priors and values come from a policy-value network (``model=PATH``) or,
without one, from uniform priors and random playouts. The tree is kept
between moves and reused when the game follows it (play, genmove, undo).
"""

from __future__ import annotations

import gc
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any, Callable, Optional

import numpy as np

from imago.game import GameState, lost_for_good, wins_whatever_unsettled
from imago.game.counting import SMALL_BOARD
from imago.nn.features import ownership_cells
from imago.search import PlayoutEvaluator, PUCTSearch, SearchNode, forbidden_at
from imago.search.puct import READING_SHARE
from imago.search.exact import ExactSolver, GaveUp, OutOfTime, Solution
from imago.search.local import forget as forget_local_readings
from imago.search.reports import LCB_Z

from .algorithm import RESIGN, DecisionAlgorithm, checked
from .ending import MIN_PASS_VISITS, GameEnding, may_pass, settled_dead

log = logging.getLogger(__name__)

DEFAULT_VISITS = 800
"""Visits a move when no clock or time is given: 0.2-0.5 s a move on 9x9 and
0.3-1.5 s on 19x19 on a busy 2-core machine (a search stops early once its
best move is settled). 200 left tactics unread: GNU Go's 9x9 regression
tests passed 230 of 468 at 200 visits, 236 at 400, 248 at 800 and at 1,600
(``python -m imago.bench regress``)."""

NO_MODEL = ("", "none", "playouts")
SETTLED = 0.6
"""A string's fate is clear when its ownership is beyond this (either way)."""
MIN_NETWORK_SIZE = SMALL_BOARD
"""Smaller boards (counted as the stones stand) are searched with playouts
even when a network is loaded, and by the search alone: every move tried
(self-ataris too, which decide their superko fights) and passes chosen by
the search's proven or searched results, never by the count's verdict (the
count is the rules' own there); no resignation, so that games end with
their score."""
SMALL_BOARD_VISITS = 4000
"""Visits a move at least on those boards when no time is given: a visit
costs a few hundred microseconds there, and the default 200 leave 3x3 to
chance (White won 2 of 3 self-play games at 200; Black took the board in 6
of 6 at 4,000, about 0.3 s a move, many searches ending early once proven)."""
EXACT_SIZE = 4
"""The board the exact solver plays (:mod:`imago.search.exact`): the search
alone drifts to B+1 there; on 2x2 and 3x3 it plays the optimal results
already, and those hinge on superko fights that the solver's table (which
ignores the game's history) can misjudge."""
EXACT_SECONDS = 120.0
"""Seconds the exact solver may spend on a 4x4 move when no time is given
(the empty board takes it about 15 s here, later moves far less: what it
proved stays in its table)."""
PONDER_VISITS = 50_000
"""The most visits a pondering tree grows to (about a minute on 19x19 here,
a few hundred MB of tree): the rest of the opponent's time is left idle."""
FORCED_PLAYOUTS = 2.0
"""KataGo's forced-playout constant ``k`` for the root (see ``forced_playouts``)."""
FORCED_MAX_SIZE = 13
"""The largest board the root's forced playouts apply on: a 19x19 search of a
few hundred visits a move would give more of them to moves of small prior,
and 10 games at 1 s a move against the same engine without them went 4-6
(9x9 56-44, 13x13 21-19): not enough to turn them on there."""
EXACT_SHARE = 0.8
"""The share of a move's time the exact solver may take; the search gets
what is left if the solver runs out of it."""
def flag(value: Any) -> bool:
    """A yes/no option, as Python or as command-line text."""
    return value.lower() in ("1", "true", "yes") if isinstance(value, str) else bool(value)


def model_for_size(model: Any, size: int) -> Any:
    """What the ``model`` option means on ``size`` boards: ``default`` the
    shipped network of that size (its path), a name in :data:`NO_MODEL` (or
    ``default`` where no network is shipped) None, for random playouts; a
    path as it is, or the shipped network a name means
    (:func:`imago.nn.modelfile.find_model`); a model object as it is."""
    if model == "default":
        from imago.nn.evaluator import default_model_path

        path = default_model_path(size)
        return None if path is None else str(path)
    if model is not None and str(model).lower() in NO_MODEL:
        return None
    if isinstance(model, (str, os.PathLike)):
        from imago.nn.modelfile import find_model  # a shipped network's name

        return str(find_model(model))
    return model


class SizedEvaluators:
    """The evaluator of each board size, each made once: the model given
    (a path) for every size, ``default``: the shipped network of the size
    when it and TensorFlow are installed (the 9x9 network on 9x9, the
    multi-size one elsewhere), ``none``: random playouts, or an evaluator
    object given as the model (tests, programs embedding imago). Network
    leaves are turned by ``symmetries`` (see
    :class:`imago.nn.evaluator.NetworkEvaluator`). Raises ValueError at once
    when the model file is missing."""

    def __init__(self, model: Any, seed: Optional[int], batch_size: int,
                 symmetries: str = "random"):
        self.model, self.seed, self.batch_size = model, seed, batch_size
        self.symmetries = str(symmetries)
        self._made: dict[Optional[str], Any] = {}
        self.for_size(9)

    def for_size(self, size: int) -> Any:
        model = self.model
        if hasattr(model, "evaluate"):
            return model
        model = model_for_size(model, size)
        if model not in self._made:
            self._made[model] = self._make(model)
            if model is not None:
                log.info("%dx%d: network %s", size, size, model)
        return self._made[model]

    def _make(self, model: Optional[str]) -> Any:
        if model is None:
            return PlayoutEvaluator(komi=7.5, seed=self.seed)
        from imago.nn.evaluator import NetworkEvaluator  # imports TensorFlow
        try:
            return NetworkEvaluator(model, batch_size=self.batch_size,
                                    symmetries=self.symmetries, seed=self.seed)
        except FileNotFoundError as err:
            raise ValueError(str(err)) from None

    def warm_up(self, size: int) -> None:
        """Pay the size's first network call: a network's own warm-up, which
        draws no random symmetry (:meth:`~imago.nn.evaluator.NetworkEvaluator.warm_up`), or one
        evaluation of the empty board by an evaluator given as the model."""
        evaluator = self.for_size(size)
        if hasattr(evaluator, "warm_up"):
            evaluator.warm_up(size)
        else:
            evaluator.evaluate([GameState(size).current])

    def made(self) -> list:
        """The evaluators made so far (or the one given)."""
        if hasattr(self.model, "evaluate"):
            return [self.model]
        return list(self._made.values())

    def uses_network(self, size: int) -> bool:
        """Whether ``size`` boards are searched with a network (from 5x5 up,
        when one is loaded)."""
        return size >= MIN_NETWORK_SIZE and \
            not isinstance(self.for_size(size), PlayoutEvaluator)


class MCTSAlgorithm(GameEnding, DecisionAlgorithm):
    """PUCT tree search. Options (all settable from the command line):

    - ``model``: network file (``default``: the shipped network of the
      board size when available, :func:`imago.nn.evaluator.shipped_model`;
      ``none``: random playouts instead);
    - ``visits``: root visits per move when no time is given
      (:data:`DEFAULT_VISITS`);
    - ``c_puct``, ``fpu_reduction``, ``batch_size``, ``virtual_loss``;
    - ``symmetries``: ``random`` (each leaf turned by a random board
      symmetry; roots and ownership averaged over all 8) or ``none``;
    - ``dirichlet_alpha`` (0: no root noise), ``noise_fraction``;
    - ``temperature`` and ``temperature_moves``: sample the first moves of
      a game in proportion to visits ** (1 / temperature) (self-play);
    - ``resign_threshold`` (win rate), ``resign_moves`` (how many moves in a
      row it must stay below), ``no_resign``; it never resigns in the
      first moves of a game (:meth:`resign_from`), nor while the score lead
      or the count is close (:meth:`_close`);
    - ``score_utility`` (the weight of the score lead in the search's
      choices, 0: win rate alone) and ``pass_margin`` (points: once the game
      is won and settled, it passes when no move leads by more than this
      over the pass; where the count calls the game over, won or lost, a
      dame is filled, with the searched move on one, unless the pass leads it
      by a point, :meth:`_dame_to_fill`);
    - ``lcb_z``: the move played is the best lower confidence bound of
      the value, this many standard errors below its mean, among moves
      with a tenth of the most visited move's visits or more (0: the most
      visited move; :meth:`PUCTSearch.chosen_action`);
    - ``forced_playouts`` (KataGo's ``k``): every root move of prior ``P``
      gets at least ``sqrt(k P N)`` of the root's ``N`` visits, so that a
      move the network misjudges at first sight (a seki's vital point,
      valued as a loss until the replies are read) is read a little
      before the search settles on another (0: off; never with random
      playouts, whose priors are uniform, nor above :data:`FORCED_MAX_SIZE`);
    - ``self_atari``: also try losing self-ataris (filling a seki's shared
      liberty), which the search otherwise never plays;
    - ``local_reading``: strike out at the root the moves that lose points
      in a small closed-off area (a corner's seki or eye space) read out
      to the end (:mod:`imago.search.local`); on by default, off below 5x5
      where the search plays alone;
    - ``exact_seconds``: on 4x4 the exact solver
      (:mod:`imago.search.exact`) chooses the move when it proves the
      position's value within this many seconds (with a clock: within
      ``EXACT_SHARE`` of the move's time); 0 turns it off;
    - ``ponder``: think on the opponent's time after each move it plays,
      until the next command comes or the tree has ``ponder_visits``
      visits (:meth:`ponder`); off by default (an engine on a shared
      machine would take the opponent's processor);
    - ``seed`` for repeatable searches.
    """

    name = "mcts"

    def __init__(self, model: Optional[str] = "default", visits: int = DEFAULT_VISITS,
                 c_puct: float = 1.5,
                 fpu_reduction: float = 0.25, batch_size: int = 16, virtual_loss: float = 1.0,
                 dirichlet_alpha: float = 0.0, noise_fraction: float = 0.25,
                 temperature: float = 0.0, temperature_moves: int = 0,
                 resign_threshold: float = 0.05, resign_moves: int = 3,
                 no_resign: bool = False, seed: Optional[int] = None,
                 symmetries: str = "random", score_utility: float = 0.1,
                 pass_margin: float = 0.5, self_atari: bool = False,
                 local_reading: bool = True,
                 exact_seconds: float = EXACT_SECONDS, lcb_z: float = LCB_Z,
                 forced_playouts: float = FORCED_PLAYOUTS,
                 ponder: bool = False, ponder_visits: int = PONDER_VISITS):
        self.model = model
        self.pondering = flag(ponder)
        self.ponder_visits = checked("ponder_visits", ponder_visits, int, low=1)
        self.visits = checked("visits", visits, int, low=1)
        self.temperature = checked("temperature", temperature, low=0)
        self.temperature_moves = checked("temperature_moves", temperature_moves, int, low=0)
        self.resign_threshold = checked("resign_threshold", resign_threshold, low=0, high=1)
        self.resign_moves = checked("resign_moves", resign_moves, int, low=1)
        self.no_resign = flag(no_resign)
        self.pass_margin = checked("pass_margin", pass_margin, low=0)
        self.self_atari = flag(self_atari)  # handed to the search at every move
        self.local_reading = flag(local_reading)  # likewise
        self.seed = seed
        self.batch_size = checked("batch_size", batch_size, int, low=1)
        self.networks = SizedEvaluators(model, seed, self.batch_size, symmetries)
        self.network = self.networks.for_size(9)  # the one in use: see _choose_evaluator
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
                                 seed=seed, self_atari=self.self_atari,
                                 local_reading=self.local_reading,
                                 score_utility=checked("score_utility", score_utility, low=0),
                                 keep_ownership=True,
                                 lcb_z=checked("lcb_z", lcb_z, low=0))
        # handed to the search at every move (not to a playout search)
        self.forced_playouts = checked("forced_playouts", forced_playouts, low=0)
        self.search.play_on_after_passes = True  # genmove after two passes: play on
        self.low_winrate_streak = 0
        self.searched = False
        self.warmed_up: set[int] = set()
        self._warm_up_lock = threading.Lock()
        self.rng = np.random.default_rng(seed)
        self.exact_seconds = checked("exact_seconds", exact_seconds, low=0)
        self.solver: Optional[ExactSolver] = None  # the 4x4 one, kept with what it proved
        self.solved: Optional[Solution] = None  # the last move's, when the solver chose it

    def new_game(self, state: GameState) -> None:
        self.search.forget()
        self.low_winrate_streak = 0

    def reseed(self, seed: Optional[int]) -> None:
        self.seed = self.networks.seed = seed  # evaluators made from now on too
        self.rng = np.random.default_rng(seed)
        self.search.reseed(seed)
        for evaluator in (*self.networks.made(), self.playouts):
            if hasattr(evaluator, "reseed"):
                evaluator.reseed(seed)
        forget_local_readings()
        self.low_winrate_streak = 0
        self.solved = None

    def check_size(self, size: int) -> None:
        if self.networks.uses_network(size):
            self.networks.for_size(size).check_size(size)

    def prepare(self, size: int) -> None:
        """Load the network and pay its first call on ``size`` boards (the
        trace and compilation, about half a second) now, not on the clock
        of the first move. The first time, move the network's many
        long-lived TensorFlow objects out of the garbage collector's way:
        full collections walk every tracked object and made some moves take
        0.2 s longer."""
        if not self.networks.uses_network(size) or size in self.warmed_up:
            return
        with self._warm_up_lock:
            if size in self.warmed_up:
                return
            self.networks.warm_up(size)
            if not self.warmed_up:
                gc.collect()
                gc.freeze()
            self.warmed_up.add(size)

    def ready_search(self, state: GameState) -> None:
        """Set the search up for analysing ``state`` as a move there would:
        the board size's network (or playouts), and the settings that go
        with the size (forced playouts, the small boards' search alone)."""
        self._choose_evaluator(state)

    def guide(self, size: int) -> str:
        if not self.networks.uses_network(size):
            return "random playouts"
        path = model_for_size(self.model, size)
        return f"network {Path(path).stem}" if isinstance(path, str) else "a network"

    def _choose_evaluator(self, state: GameState) -> None:
        """The size's network from 5x5 up; random playouts on smaller boards, where
        a network trained on 9x9 misjudges everything (on 3x3 it prefers to
        pass) and search alone nearly solves the game. Playouts are
        evaluated one leaf at a time: batching only pays for network calls,
        and its virtual loss blurs the search."""
        use_network = self.networks.uses_network(state.size)
        if use_network:
            self.prepare(state.size)
            self.network = self.networks.for_size(state.size)
        evaluator = self.network if use_network else self.playouts
        if evaluator is not self.search.evaluator:
            self.search.forget()
            self.search.cache.clear()
            self.search.evaluator = evaluator
        self.search.batch_size = self.batch_size if use_network else 1
        # a network's priors only (uniform ones would spread the visits of a
        # playout search over every point), and not on big boards
        self.search.forced_playouts = self.forced_playouts \
            if evaluator is not self.playouts and state.size <= FORCED_MAX_SIZE else 0.0
        alone = self._search_alone(state)
        self.search.self_atari = self.self_atari or alone
        self.search.local_reading = self.local_reading and not alone
        self.search.by_score = alone  # the optimal result, not any win
        self.playouts.komi = state.game_komi

    def choose_move(self, state: GameState, color: int, seconds: Optional[float] = None,
                    stop=None, progress=None, interval: float = 1.0,
                    restrictions: tuple = ()) -> Optional[int]:
        """Search, then pick. ``stop()`` ends the search early (GoGui's
        interrupt); ``progress(search)`` is called every ``interval``
        seconds (analysis lines, live graphics). Time spent waiting for the
        network to load comes out of ``seconds``. Under rules that count
        every stone standing at the end alive (``state.capture_dead``,
        Tromp-Taylor), it passes back after the opponent's pass whenever
        the board as it stands wins, and otherwise captures the opponent's
        dead stones before passing (:meth:`_capture_before_passing`).
        The moves ``restrictions`` (:class:`~imago.search.leaf.MoveRestriction`:
        KataGo's ``avoid`` and ``allow``) take away are left out, at the root
        and below it: :meth:`_choose_allowed`."""
        if restrictions:
            return self._choose_allowed(state, color, seconds, stop, progress, interval,
                                        tuple(restrictions))
        move = self._choose_move(state, color, seconds, stop, progress, interval)
        if move is None and state.capture_dead:
            return self._capture_before_passing(state, color)
        return move

    def _choose_move(self, state: GameState, color: int, seconds: Optional[float],
                     stop, progress, interval: float) -> Optional[int]:
        """:meth:`choose_move` as the count removes dead stones (and, under
        rules that count the board as it stands, passing back where it
        wins so)."""
        started = time.perf_counter()
        self.searched = False
        self.solved = None
        self._choose_evaluator(state)
        if self._exact_applies(state, color):
            self.solved = self._solve_exactly(state, seconds)
            if self.solved is not None:
                return self.solved.move
        alone = self._search_alone(state)
        judged = self.judge(state) if not alone and may_pass(state) else None
        pass_wins = judged is not None and judged.winner == color and judged.settled
        if judged is not None:  # lines that end in the search count them as the game will
            self.search.assume_dead(state.board,
                                    [] if state.capture_dead else settled_dead(judged))
        last = state.last_move
        if last is not None and last.is_pass and judged is not None:
            if pass_wins or wins_whatever_unsettled(state.board, judged, color) \
                    or (state.capture_dead and self._standing_wins(state, color)):
                return None
            if lost_for_good(judged, color):  # the count is final: pass back, the game
                return None                      # ends with its score (a resignation says less)
        if not alone and not self._has_board_move(state, color):
            return None
        over = judged is not None and judged.settled and self._game_is_over(state, judged, color)
        if seconds is not None:  # the count's playouts (0.1 s on 19x19) came out of the move's time
            seconds = max(0.1 * seconds, seconds - (time.perf_counter() - started))
        root = self._search(state, color, seconds, stop, progress, interval,
                            pass_wins or alone or over)
        self.searched = True
        if root.terminal or not root.expanded:
            return None
        if over:  # the pass has a value to compare, tried by selection or not
            self.search.visit_root_action(self.search.size ** 2, MIN_PASS_VISITS)
            dame = self._dame_to_fill(root, state, judged, color)
            if dame is not None:
                return dame
            if not self._board_move_beats_pass(root, state, judged, color):
                return None
        point = self.search.point_of(self._pick(root, state))
        if point is None and not pass_wins and not alone:
            point = self._best_board_move(root)
        elif point is not None and pass_wins and self._pass_is_as_good(root):
            point = None
        lead = self.search.summary(root).score_lead
        if not alone and self._should_resign(state, self.search.winrate(root), lead, judged,
                                             color):
            return RESIGN
        return point

    def _choose_allowed(self, state: GameState, color: int, seconds: Optional[float],
                        stop, progress, interval: float, restrictions: tuple
                        ) -> Optional[int]:
        """The searched move among those ``restrictions`` leave (a
        controller's ``avoid`` or ``allow``): a fresh tree (no visits kept
        from an earlier search on a forbidden move) searched with the root's
        forbidden moves struck out and the deeper ones left out of its
        lines, and the move it plays chosen as usual among the others (the
        pass included where allowed). The exact solver, the count's passes
        and resignation, which would choose without regard to them, stand
        aside. The engine has made sure they leave a legal move
        (:meth:`GameEngine.check_forbidden`)."""
        forbidden = forbidden_at(restrictions, 0, color)
        self.searched = False
        self.solved = None
        self._choose_evaluator(state)
        self.search.forget()
        root = self._search(state, color, seconds, stop, progress, interval,
                            restrictions=restrictions)
        self.searched = True
        if root.terminal or not root.expanded:
            return None
        if any(r.until_depth > 1 for r in restrictions):
            self.search.reuse_nothing()  # its lines below the root were restricted too
        struck = self.search.strike_forbidden(root, forbidden)
        try:
            action = self._pick(root, state)
        finally:
            for action_struck in struck:
                root.unstrike(action_struck)
        if action in forbidden:  # no visit went to an allowed move: the best prior of them
            priors = root.prior_values()  # -inf where the point is taken
            priors[list(forbidden)] = -np.inf
            action = int(np.argmax(priors))
        return self.search.point_of(action)

    def ponder(self, state: GameState, stop: Callable[[], bool]) -> int:
        """With ``ponder`` on, search ``state`` for the player to move (the
        opponent, after a move of ours) until ``stop()`` or ``ponder_visits``;
        the tree stays, and the next search goes on from the node of the
        move the opponent plays. Not on a finished game, nor where the
        exact solver chooses (4x4)."""
        color = state.to_move
        if not self.pondering or state.consecutive_passes() >= 2 or stop() \
                or self._exact_applies(state, color):
            return 0
        self._choose_evaluator(state)
        before = self.search.set_root(state, color).total_visits()
        root = self.search.run(state, color, visits=self.ponder_visits, stop=stop,
                               early_stop=False)
        return root.total_visits() - before

    def _exact_applies(self, state: GameState, color: int) -> bool:
        """Whether the exact solver should try: a 4x4 board, the player to
        move asked for (GTP may ask for the other), the game still on."""
        return (self.exact_seconds > 0 and state.size == EXACT_SIZE
                and color == state.to_move and state.consecutive_passes() < 2)

    def _solve_exactly(self, state: GameState, seconds: Optional[float]) -> Optional[Solution]:
        """The solver's proven move, or None when it ran out of time or
        gave up (its table keeps what it proved, for the next move and
        game)."""
        if self.solver is None:
            self.solver = ExactSolver(EXACT_SIZE)
        solver = self.solver
        budget = self.exact_seconds if seconds is None else EXACT_SHARE * seconds
        started, nodes = time.monotonic(), solver.nodes
        try:
            solution = solver.solve_game(state, deadline=started + budget)
        except OutOfTime:
            log.info("%dx%d: no exact answer within %.1f s (%d nodes); searching instead",
                     state.size, state.size, budget, solver.nodes - nodes)
            return None
        except GaveUp as err:
            log.warning("%dx%d: the exact solver gave up (%s); searching instead",
                        state.size, state.size, err)
            return None
        log.info("%dx%d: solved, %+d for the player to move (%d nodes, %.1f s)", state.size,
                 state.size, solution.score, solver.nodes - nodes, time.monotonic() - started)
        return solution

    def _search(self, state: GameState, color: int, seconds, stop, progress, interval,
                allow_pass: bool = True, restrictions: tuple = ()):
        visits = None if seconds is not None else self.visits
        if visits is not None and self._search_alone(state):
            visits = max(visits, SMALL_BOARD_VISITS)
        if progress is None:
            return self.search.run(state, color, visits=visits, seconds=seconds, stop=stop,
                                   allow_pass=allow_pass, restrictions=restrictions)
        start = time.perf_counter()
        read_seconds = None if seconds is None else READING_SHARE * seconds  # the whole move's
        while True:
            left = None if seconds is None else seconds - (time.perf_counter() - start)
            if left is not None and left <= 0:
                break
            slice_seconds = interval if left is None else min(interval, left)
            root = self.search.run(state, color, visits=visits, seconds=slice_seconds, stop=stop,
                                   early_stop=False, allow_pass=allow_pass,
                                   read_seconds=read_seconds, restrictions=restrictions)
            progress(self.search)
            if (stop is not None and stop()) or root.terminal or not root.expanded \
                    or (visits is not None and root.total_visits() >= visits):
                break
        return self.search.set_root(state, color)

    def summary(self) -> Optional[dict]:
        """The last move's win rate, visits and expected line; for a move
        the exact solver chose, its proven score (``exact``, area for the
        player who moved, komi left out) and no visits."""
        solved = self.solved
        if solved is not None:
            return {"winrate": 1.0 if solved.score > 0 else 0.0 if solved.score < 0 else 0.5,
                    "visits": 0, "pv": [] if solved.move is None else [solved.move],
                    "exact": solved.score}
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
        return self.search.chosen_action(root)

    def ownership(self, state: GameState) -> Optional[list[float]]:
        """The ownership estimate for the position, per cell of the board's
        array (+1 Black): the search tree's average when the last search
        (or the analysis running now) stands on this position, else the
        network's; None without a network (the engine then uses playouts)."""
        searched = self._searched_ownership(state)
        if searched is not None:
            return searched
        self._choose_evaluator(state)
        estimate = getattr(self.search.evaluator, "ownership", None)
        return None if estimate is None else estimate(state.current, state.to_move)

    def _searched_ownership(self, state: GameState) -> Optional[list[float]]:
        """:meth:`PUCTSearch.tree_ownership` of the root when it is
        ``state``'s position with ``state``'s player to move and searched."""
        search = self.search
        root = search.root
        if (root is None or search.root_game_node is not state.current
                or search.root_color != state.to_move or root.total_visits() < 1):
            return None
        own = search.tree_ownership(root)
        return None if own is None else ownership_cells(state.board, own, state.to_move)

    @staticmethod
    def _search_alone(state: GameState) -> bool:
        """Whether the search alone chooses every move, pass included (see
        :data:`MIN_NETWORK_SIZE`): no count shortcuts, no resignation."""
        return state.size < MIN_NETWORK_SIZE

