"""When a search's game ends: passing and resigning for
:class:`~imago.engine.mcts_algorithm.MCTSAlgorithm`.

:class:`GameEnding` is a mixin of the MCTS algorithm (as the search's
reports are of the search): it reads the algorithm's ``search``,
``pass_margin``, ``no_resign``, ``resign_threshold``, ``resign_moves`` and
``low_winrate_streak``. It judges the position as final with the one
count, tells when passing is worth considering, when the count calls the
game over, when the searched pass is as good as the best board move, and
when to resign (never early, nor while the game is close).
"""

from __future__ import annotations

import math
import random
from typing import Optional

from imago.game import BLACK, Count, GameState, area_score
from imago.game.counting import SETTLED_THRESHOLD
from imago.search import PUCTSearch, SearchNode
from imago.search.tactics import (alive_in_atari, capturing_move, fillable_dame,
                                  fillable_dame_points, open_points)

_ANY_START = random.Random(0)
PASS_WINRATE = 0.02
"""A searched pass is as good as the best board move when its win rate is
within this of the move's (and its lead within ``pass_margin`` points)."""
OVER_WINRATE = 0.1
"""When the count calls the game over, a board move is played instead of
the pass only if the search finds it wins this much more often (beyond
the noise of the visits' means)."""
DAME_LEAD_TOLERANCE = 1.0
"""A dame (a point by area) is filled instead of passing unless the search
finds the pass this many points ahead of it (or more)."""
MIN_PASS_VISITS = 8
"""Visits the pass needs before its lead is compared with the best move's."""


def progress(state: GameState) -> int:
    """How far the game is: the moves played, or the stones on the board
    when more (a position set up, a game loaded half-way)."""
    board = state.board
    return max(state.current.number, board.size * board.size - len(board.empties))


def settled_dead(judged: Count) -> list[int]:
    """The stones the count ``judged`` calls dead with a settled owner:
    those a search's lines that end with two passes count as removed, as
    the final count will (:meth:`PUCTSearch.assume_dead`)."""
    return [p for p in judged.dead if abs(judged.ownership[p]) >= SETTLED_THRESHOLD]


def may_pass(state: GameState) -> bool:
    """Whether passing is worth considering at all: after the opponent
    passed, or once a third of the board's points have been played or
    stand on it (a position set up or loaded); no position is settled
    before that, and the count costs playouts."""
    last = state.last_move
    if last is not None and last.is_pass:
        return True
    return progress(state) >= state.size * state.size // 3


def dead_at_the_end(state: GameState) -> list[int]:
    """The stones an analysis's lines from ``state`` that end with two
    passes count as removed: the dead stones of the count that ends the
    game (:meth:`GameState.final_count`; none where every stone standing
    counts), once passing is worth considering (:func:`may_pass`: before
    that no count is made, it costs playouts and nothing is settled yet).
    For :meth:`PUCTSearch.assume_dead`, asked when a line first ends so."""
    return list(state.final_count().dead) if may_pass(state) else []


class GameEnding:
    """Passing and resigning (see the module docstring)."""

    search: PUCTSearch
    pass_margin: float
    no_resign: bool
    resign_threshold: float
    resign_moves: int
    low_winrate_streak: int

    @staticmethod
    def judge(state: GameState) -> Count:
        """The count of the position as final (:func:`imago.game.count`,
        which keeps a seki's strings alive), for the side to move."""
        return state.count()

    @staticmethod
    def _has_board_move(state: GameState, color: int) -> bool:
        """Whether ``color`` has a legal move that does not fill its own eye
        (without one it passes: filling its own eyes would kill its groups).
        The playouts' move picker answers exactly that; where it starts its
        scan does not matter here."""
        return state.board.random_move(color, _ANY_START) is not None

    def _best_board_move(self, root: SearchNode) -> Optional[int]:
        """The most visited move other than pass (pass if none was searched)."""
        edge = self._best_board_edge(root)
        return None if edge < 0 else self.search.point_of(int(root.moves[edge]))

    @staticmethod
    def _game_is_over(state: GameState, judged: Count, color: int) -> bool:
        """Whether a settled count leaves nothing to play for: every border
        closed (the points no colour surrounds are all dame or seki
        liberties), no string in atari but dead ones and those whose capture
        the count found to change nothing (``Count.decided``), and a margin larger
        than the dame, so that filling them all cannot change the winner.
        By area, a move anywhere else changes nothing: winning, ``color``
        passes; losing, it passes as well, and resigns if the opponent
        passes back (playing on would fill its own eyes)."""
        board = state.board
        dame = open_points(board, judged.dead)
        if dame is None or alive_in_atari(board, (*judged.dead, *judged.decided)):
            return False
        return abs(judged.score) > dame

    @staticmethod
    def _standing_wins(state: GameState, color: int) -> bool:
        """Whether ``color`` wins the board as it stands, every stone alive
        and a point only its colour's where that colour alone encloses it:
        the count two passes end a Tromp-Taylor game with."""
        score = area_score(state.board, state.scoring_komi)
        return (score if color == BLACK else -score) > 0

    def _capture_before_passing(self, state: GameState, color: int) -> Optional[int]:
        """Where the search passes under rules that count every stone
        standing at the end alive, a move that captures the opponent's dead
        stones first (:func:`capturing_move`, the count's dead stones), as
        long as any stand: passing first would let the opponent end the
        game with them counted alive. None (pass) when nothing is left to
        capture, or after the opponent's pass when the board as it stands
        wins (passing back ends the game so)."""
        last = state.last_move
        if last is not None and last.is_pass and self._standing_wins(state, color):
            return None
        return capturing_move(state.board, color, self.judge(state).dead)

    def _board_move_gain(self, root: SearchNode, edge: Optional[int] = None
                         ) -> Optional[tuple[float, float, float]]:
        """What the search's best board move (or the move of the root's
        ``edge``) gains over its pass, ``(value, score lead, noise)`` from
        their mean results (values are 2 x win rate - 1; noise is the value
        gain's standard error at most, values spreading over [-1, 1]:
        ``sqrt(1 / n_move + 1 / n_pass)``); None while the pass is not
        searched enough (or either is missing)."""
        pass_edge = root.edge(self.search.size ** 2)
        best = self._best_board_edge(root) if edge is None else edge
        if pass_edge < 0 or best < 0 or root.visits[pass_edge] < MIN_PASS_VISITS:
            return None
        n_pass, n_best = root.visits[pass_edge], root.visits[best]
        return (root.values[best] / n_best - root.values[pass_edge] / n_pass,
                root.scores[best] / n_best - root.scores[pass_edge] / n_pass,
                math.sqrt(1.0 / n_best + 1.0 / n_pass))

    def _board_move_beats_pass(self, root: SearchNode, state: GameState, judged: Count,
                               color: int) -> bool:
        """Whether the search's best board move wins more often than its pass
        by over :data:`OVER_WINRATE`, beyond the noise of their few visits
        (a count can call a game over that is not: the playouts settle a
        capturing race at random), or, while ``color`` has a dame to fill
        (:func:`fillable_dame`, the count's ``judged`` dead stones removed),
        leads by more than ``pass_margin`` points over it, won or lost: a dame
        is a point by area, two when the opponent would take it. Without a
        dame, the network's leads alone are too noisy a reason to play on."""
        gain = self._board_move_gain(root)
        if gain is None:
            return False
        if gain[0] - gain[2] > 2 * OVER_WINRATE:
            return True
        return self.search.scored and gain[1] > self.pass_margin \
            and fillable_dame(state.board, color, judged.dead) > 0

    def _dame_to_fill(self, root: SearchNode, state: GameState, judged: Count,
                      color: int) -> Optional[int]:
        """Where the count calls the game over, the dame ``color`` fills
        instead of passing: of the searched moves on a point it may fill
        (:func:`fillable_dame_points`, the count's dead stones removed), the
        most visited, unless the search finds it worse than the pass (by
        :data:`OVER_WINRATE` in win rate beyond the noise, or a point in
        lead). By area a dame is a point to whoever fills it, and the
        search's leads, a few visits of the pass against hundreds of the
        move, are too noisy to see one point; None: no such move."""
        dame = set(fillable_dame_points(state.board, color, judged.dead))
        if not dame:
            return None
        search = self.search
        best, best_visits = -1, 0.0
        for edge, (action, n) in enumerate(zip(root.moves.tolist(), root.visits.tolist())):
            if n > best_visits and search.point_of(int(action)) in dame:
                best, best_visits = edge, n
        if best < 0:
            return None
        gain = self._board_move_gain(root, best)  # None: the pass not searched enough
        if gain is not None and (-gain[0] - gain[2] > 2 * OVER_WINRATE
                                 or (search.scored and -gain[1] > DAME_LEAD_TOLERANCE)):
            return None
        return search.point_of(int(root.moves[best]))

    def _pass_is_as_good(self, root: SearchNode) -> bool:
        """Whether the search's pass (searched enough) is as good as its
        best board move: a win rate within :data:`PASS_WINRATE` and a score
        lead within ``pass_margin`` points (never without a score: then only
        :meth:`_game_is_over` passes before the opponent does)."""
        gain = self._board_move_gain(root)
        return gain is not None and gain[0] <= 2 * PASS_WINRATE and self.search.scored \
            and gain[1] <= self.pass_margin

    def _best_board_edge(self, root: SearchNode) -> int:
        """The edge of the most visited move other than pass (-1: none)."""
        pass_action = self.search.size ** 2
        best, best_visits = -1, 0.0
        for edge, (action, n) in enumerate(zip(root.moves.tolist(), root.visits.tolist())):
            if action != pass_action and n > best_visits:
                best, best_visits = edge, n
        return best

    def _resign_off(self) -> bool:
        """Whether resigning is off by option."""
        return self.no_resign or self.resign_threshold <= 0

    def _never_resigns(self, state: GameState) -> bool:
        """Whether resigning is off (by option) or too early in the game:
        the moves played, or the stones on the board for a position set up
        (a problem, a game loaded half-way), short of :meth:`resign_from`."""
        if self._resign_off():
            return True
        return progress(state) < self.resign_from(state)

    @staticmethod
    def resign_from(state: GameState) -> int:
        """How far (:func:`progress`) a game must be before it may resign:
        an eighth of the board's points into an even game (10 on 9x9, 45 on
        19x19), a quarter plus two moves a stone into a handicap game, where
        the side giving it starts far behind (the network sees no
        handicap)."""
        points = state.size * state.size
        if state.handicap:
            return points // 4 + 2 * state.handicap
        return max(state.size, points // 8)

    @staticmethod
    def close_margin(size: int) -> float:
        """A score lead (points) this close to even is no reason to resign:
        3 on 9x9, 12 on 19x19."""
        return max(3.0, size * size / 30)

    def _close(self, state: GameState, lead: Optional[float], judged: Optional[Count],
               color: int) -> bool:
        """Whether the game is too close to resign: the search's lead, or
        the count (dead stones removed) with its dame, within reach."""
        if lead is not None and lead > -self.close_margin(state.size):
            return True
        if judged is not None:
            margin = judged.score if color == 1 else -judged.score
            return margin > -max(float(judged.neutral), self.close_margin(state.size) / 2)
        return False

    def _should_resign(self, state: GameState, winrate: float, lead: Optional[float] = None,
                       judged: Optional[Count] = None, color: int = 1) -> bool:
        """Resign after ``resign_moves`` searches in a row whose best move
        wins less than ``resign_threshold``, unless too early or close."""
        if self._never_resigns(state):
            return False
        if winrate < self.resign_threshold and not self._close(state, lead, judged, color):
            self.low_winrate_streak += 1
        else:
            self.low_winrate_streak = 0
        return self.low_winrate_streak >= self.resign_moves


__all__ = ["GameEnding", "MIN_PASS_VISITS", "OVER_WINRATE", "PASS_WINRATE", "progress"]
