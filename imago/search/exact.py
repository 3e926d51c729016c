"""An exact solver for the smallest boards (4x4 and below): the optimal score.

Below 5x5 imago plays by its search alone (see
:mod:`imago.engine.mcts_algorithm`). Monte Carlo search with random
playouts finds the optimal result of 2x2 and 3x3, but on 4x4 it drifts to a
sure point less (B+1 instead of B+2 with komi 0). These boards are small
enough to solve exactly, so the engine asks this solver first and plays
one of the moves that keep the position's value.

The rules are the game package's for small boards: no suicide, positional
superko (no move may repeat a board position of the game), the game ends
at two passes, area scoring with the stones counted as they stand.

How: negamax alpha-beta over bitboards (one bit per point, row-major from
the top-left), driven by MTD(f) (null-window searches converging on the
value), with a transposition table keyed by the position up to the board's
8 symmetries, kept from move to move and game to game. Filling a point
whose neighbours are all one's own single string is never tried (passing
does as well there). A search that runs past its deadline stops with no
answer (:class:`OutOfTime`), its table entries kept for the next try.

The table ignores how a position was reached, while superko makes a
position's value depend on it (the graph history interaction problem): a
bound proven in one line is trusted in another where superko forbids or
allows other moves. Storing only bounds that no superko refusal touched
does not cure it (another history can forbid moves the bound relied on)
and makes 3x3 about 300 times slower. Where the optimal result hinges on
superko fights this table can be wrong: on 2x2 it finds 0 instead of B+1.
On 4x4 it finds B+2, the known value, so the engine uses it there only
(see :data:`imago.engine.mcts_algorithm.EXACT_SIZE`).
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass
from typing import Optional, Sequence

from imago.game import BLACK, WHITE, GameState
from imago.nn.features import symmetry_tables

from .limits import GaveUp, OutOfTime

MAX_EXACT_POINTS = 16
"""The largest board solved exactly (4x4): 5x5 is far beyond a Python search."""
INFINITE = 10 ** 9
_DEADLINE_CHECK = 4096  # nodes between two looks at the clock


class Inconsistent(GaveUp):
    """No move reaches the value proven for the position: bounds the table
    took from another history disagree (see the module's docstring)."""


@dataclass(frozen=True)
class Solution:
    """The proven ``score`` (area, komi left out, for the player to move)
    and a ``move`` (a point index row-major from the top-left, or None for
    a pass) that keeps it."""
    score: int
    move: Optional[int]


class ExactSolver:
    """Solves positions of one board size (up to 4x4), keeping what it
    learnt between calls."""

    def __init__(self, size: int, max_entries: int = 3_000_000):
        if size * size > MAX_EXACT_POINTS:
            raise ValueError(f"{size}x{size} is too large to solve exactly "
                             f"(at most {MAX_EXACT_POINTS} points)")
        self.size = size
        self.points = size * size
        self.full = (1 << self.points) - 1
        self.neighbours = [self._neighbour_mask(p) for p in range(self.points)]
        images = symmetry_tables(size)[1][1:, :-1]  # each point's image; 0 is the identity
        self.symmetries = [self._bit_tables(perm.tolist()) for perm in images]
        centre = (size - 1) / 2
        self.order = sorted(range(self.points),
                            key=lambda p: abs(p // size - centre) + abs(p % size - centre))
        self.table: dict = {}
        self.max_entries = max_entries
        self.nodes = 0
        self._deadline: Optional[float] = None
        self._root_black = True

    # ------------------------------------------------------------ set-up
    def _neighbour_mask(self, p: int) -> int:
        n = self.size
        r, c = divmod(p, n)
        mask = 0
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= rr < n and 0 <= cc < n:
                mask |= 1 << (rr * n + cc)
        return mask

    def _bit_tables(self, perm: list[int]) -> list[list[int]]:
        """For each group of 4 bits, the permuted mask of each of its 16 values."""
        tables = []
        for chunk in range((self.points + 3) // 4):
            bits = [chunk * 4 + b for b in range(4) if chunk * 4 + b < self.points]
            tables.append([sum(1 << perm[bit] for k, bit in enumerate(bits) if v >> k & 1)
                           for v in range(16)])
        return tables

    # ------------------------------------------------------------ rules on bitboards
    def _grow(self, mask: int) -> int:
        out, rest, neighbours = mask, mask, self.neighbours
        while rest:
            low = rest & -rest
            out |= neighbours[low.bit_length() - 1]
            rest ^= low
        return out

    def _flood(self, seed: int, within: int) -> int:
        group = seed
        while True:
            grown = self._grow(group) & within
            if grown == group:
                return group
            group = grown

    def play(self, me: int, opp: int, p: int) -> Optional[tuple[int, int]]:
        """``(me, opp)`` after ``me`` plays ``p``, or None when illegal
        (occupied or suicide; superko is the search's)."""
        bit = 1 << p
        if (me | opp) & bit:
            return None
        me |= bit
        empty = self.full & ~(me | opp)
        captured = 0
        rest = self.neighbours[p] & opp
        while rest:
            low = rest & -rest
            rest ^= low
            if low & captured:
                continue
            group = self._flood(low, opp)
            if not self._grow(group) & empty:
                captured |= group
        if captured:
            return me, opp & ~captured
        if not self._grow(self._flood(bit, me)) & empty:
            return None
        return me, opp

    def area(self, me: int, opp: int) -> int:
        """Area score for ``me``: stones plus empty regions bordered by
        ``me`` alone, minus the same for ``opp``."""
        score = bin(me).count("1") - bin(opp).count("1")
        empty = rest = self.full & ~(me | opp)
        while rest:
            region = self._flood(rest & -rest, empty)
            rest &= ~region
            border = self._grow(region) & ~region
            if border and not border & opp:
                score += bin(region).count("1")
            elif border and not border & me:
                score -= bin(region).count("1")
        return score

    def _key(self, me: int, opp: int, passed: bool) -> tuple:
        best = (me, opp)
        for tables in self.symmetries:
            m = o = 0
            x, y, i = me, opp, 0
            while x or y:
                m |= tables[i][x & 15]
                o |= tables[i][y & 15]
                x >>= 4
                y >>= 4
                i += 1
            if (m, o) < best:
                best = (m, o)
        return best + (passed,)

    # ------------------------------------------------------------ search
    def solve(self, black: int, white: int, black_to_move: bool, passed: bool,
              history: Sequence[tuple[int, int]], deadline: Optional[float] = None,
              guess: int = 0) -> Solution:
        """The value of the position ``(black, white)`` (bitboards) with
        ``passed`` when the last move was a pass; ``history``: the game's
        positions as ``(black, white)``, oldest first, this one last.
        Raises :class:`OutOfTime` after ``deadline`` (``time.monotonic``),
        :class:`Inconsistent` when no move reaches the value found."""
        if len(self.table) > self.max_entries:
            self.table.clear()
        self._deadline = deadline
        self._root_black = black_to_move
        path = set(history)
        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 100_000))  # a line may be hundreds of moves long
        try:
            return self._solve(black, white, black_to_move, passed, path, guess)
        finally:
            sys.setrecursionlimit(limit)

    def _solve(self, black: int, white: int, black_to_move: bool, passed: bool, path: set,
               guess: int) -> Solution:
        me, opp = (black, white) if black_to_move else (white, black)
        low, high = -self.points - 1, self.points + 1
        value = guess
        while low < high:  # MTD(f): null windows converge on the value
            beta = value + 1 if value == low else value
            value = self._search(me, opp, passed, beta - 1, beta, path, 0)
            if value < beta:
                high = value
            else:
                low = value
        return Solution(value, self._move_keeping(me, opp, passed, value, path))

    def solve_game(self, state: GameState, deadline: Optional[float] = None,
                   guess: int = 0) -> Solution:
        """:meth:`solve` for the player to move in ``state`` (its size must
        be the solver's), the game's positions as the superko history; the
        move comes back as a point of the board's array (None: pass)."""
        board = state.board
        if board.size != self.size:
            raise ValueError(f"a {self.size}x{self.size} solver cannot solve a "
                             f"{board.size}x{board.size} board")
        points = list(board.on_board())
        history = [self.bitboards(node.board, points) for node in state.current.path_from_root()]
        black, white = history[-1]
        solution = self.solve(black, white, state.to_move == BLACK,
                              state.consecutive_passes() == 1, history, deadline, guess)
        move = None if solution.move is None else points[solution.move]
        return Solution(solution.score, move)

    @staticmethod
    def bitboards(board, points: list[int]) -> tuple[int, int]:
        """``(black, white)`` of ``board``, bit k for ``points[k]``."""
        cells = board.cells
        black = white = 0
        for k, p in enumerate(points):
            if cells[p] == BLACK:
                black |= 1 << k
            elif cells[p] == WHITE:
                white |= 1 << k
        return black, white

    def _move_keeping(self, me: int, opp: int, passed: bool, value: int,
                      path: set) -> Optional[int]:
        """A move whose proven value is ``value`` (each checked with a null
        window just below it)."""
        order = [None] + self.order if passed else self.order + [None]
        for p in order:
            position = None
            if p is None:
                if passed:
                    if self.area(me, opp) >= value:
                        return None
                    continue
                child = (opp, me, True)
            else:
                played = self.play(me, opp, p)
                if played is None:
                    continue
                position = self._position(played[0], played[1], 0)
                if position in path:
                    continue
                child = (played[1], played[0], False)
                path.add(position)
            try:
                reply = self._search(*child, -value, -value + 1, path, 1)
            finally:
                if position is not None:
                    path.discard(position)
            if -reply >= value:
                return p
        raise Inconsistent(f"no move keeps the proven value {value:+d}")

    def _position(self, me: int, opp: int, depth: int) -> tuple[int, int]:
        """``(black, white)`` of a position where the player to move
        ``depth`` plies below the root has the stones ``me``."""
        if (depth % 2 == 0) == self._root_black:
            return me, opp
        return opp, me

    def _search(self, me: int, opp: int, passed: bool, alpha: int, beta: int,
                path: set, depth: int) -> int:
        """Negamax value for ``me`` (fail-soft), ``path`` the positions of
        the game and of the line so far (superko)."""
        self.nodes += 1
        if self._deadline is not None and self.nodes % _DEADLINE_CHECK == 0 \
                and time.monotonic() > self._deadline:
            raise OutOfTime()
        key = self._key(me, opp, passed)
        entry = self.table.get(key)
        remembered = None
        if entry is not None:
            low, high, remembered, em, eo = entry
            if (em, eo) != (me, opp):
                remembered = None  # stored for a symmetric position: its move differs
            if low >= beta or low == high:
                return low
            if high <= alpha:
                return high
            alpha, beta = max(alpha, low), min(beta, high)
        first_alpha = alpha
        moves = [] if remembered is None else [remembered]
        moves += [p for p in self.order if p != remembered]
        if remembered != -1:
            if passed:
                moves.insert(0, -1)  # a second pass ends the game: cheap, often a cut
            else:
                moves.append(-1)
        best, best_move = -INFINITE, None
        neighbours = self.neighbours
        for p in moves:
            if p == -1:
                if passed:
                    value = self.area(me, opp)
                else:
                    value = -self._search(opp, me, True, -beta, -alpha, path, depth + 1)
            else:
                around = neighbours[p]
                if not around & ~me and self._flood(around & -around, me) & around == around:
                    continue  # an eye of a single string of one's own
                played = self.play(me, opp, p)
                if played is None:
                    continue
                position = self._position(played[0], played[1], depth)
                if position in path:
                    continue  # positional superko
                path.add(position)
                value = -self._search(played[1], played[0], False, -beta, -alpha, path,
                                      depth + 1)
                path.discard(position)
            if value > best:
                best, best_move = value, p
            alpha = max(alpha, value)
            if alpha >= beta:
                break
        low, high = (-INFINITE, INFINITE) if entry is None else (entry[0], entry[1])
        if best <= first_alpha:
            high = min(high, best)
        elif best >= beta:
            low = max(low, best)
        else:
            low = high = best
        self.table[key] = (low, high, best_move, me, opp)
        return best


__all__ = ["ExactSolver", "Solution", "GaveUp", "OutOfTime", "Inconsistent", "MAX_EXACT_POINTS"]
