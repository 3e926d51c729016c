"""Time control: the clock settings GTP sends and the time to spend on a move.

GTP gives the clock three ways:

- ``time_settings main byo_yomi_time byo_yomi_stones`` (GTP v2, Canadian
  byo-yomi; ``byo_yomi_time > 0`` with ``byo_yomi_stones == 0`` means no
  limit; ``byo_yomi_time == 0`` means absolute time);
- ``kgs-time_settings none | absolute M | byoyomi M T P | canadian M T S``
  (KGS; ``byoyomi`` is Japanese byo-yomi with P periods of T seconds);
- ``time_left color time stones`` before a move (``stones`` 0: main time;
  otherwise stones left in the Canadian period, or periods left in Japanese
  byo-yomi, as KGS sends them).

:class:`TimeControl` keeps one :class:`Clock` per colour, runs it down itself
with :meth:`TimeControl.record_move` when no ``time_left`` comes (a
``time_left`` always overrides that bookkeeping), and answers
:meth:`TimeControl.seconds_for_move` with a safety margin so that imago does
not lose on time. No GTP text is parsed here beyond the numbers handed in.

Main time is shared by game phase, on every board size: a move gets the
main time left times its weight over the weights of the moves still to come
(:func:`main_time_fraction`). The weight (:data:`PHASE_WEIGHTS`) goes from
0.4 at the first move to 1.5 in the middle game (20% to 60% of
:func:`expected_game_moves`) and back to 0.4 at the expected end: opening
moves are mostly known shapes and late endgame moves small, while the middle
game's fights decide the game. Each move gets a fraction below one of what
is left, so the budgets never add up to more than the main time (but for
the :data:`MIN_SECONDS` floor when it is all but out). Absolute time keeps
a reserve for long games; with byo-yomi to follow, the main time is planned
to last only to the expected end and a move never gets less than a
byo-yomi move, which is the period (Japanese) or the block over its stones
(Canadian; less when the block left is shorter), less the margin.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Optional

NONE = "none"
ABSOLUTE = "absolute"
CANADIAN = "canadian"
BYOYOMI = "byoyomi"
SYSTEMS = (NONE, ABSOLUTE, CANADIAN, BYOYOMI)

SAFETY_FRACTION = 0.1
"""Share of a move's budget kept back for the engine's own overhead."""
SAFETY_SECONDS = 0.5
"""Seconds kept back on every move for transmission and GUI delays..."""
SAFETY_SHARE = 0.2
"""...but, when byo-yomi follows, never more than this share of a short
budget: with 1 s a move a fixed half second would leave the search 0.4 s.
(Absolute time keeps the whole margin: lag there adds up to a loss.)"""
MIN_SECONDS = 0.05
"""The least time a move is given, even with the clock nearly out."""
MAX_CLOCK_SECONDS = 2**31 - 1
"""The largest time (and stone or period count) the clock accepts: GTP's
``int`` range, some 68 years. Larger or negative values are refused."""
MAX_MOVE_SECONDS = 300.0
"""The most a clock gives one move, however much time is left: an 8-hour
main time (the longest in professional play) gives at most some 275 s a
move on 19x19, and a search tree grows by about 700 bytes a visit, so a
huge clock (``time_settings 2147483647 0 0``) makes moves of minutes, not
of days and gigabytes. (``--time`` on the command line is not capped.)"""
OVERRUN_MOVES = 8
"""With a time per move (``--time``) and no clock, the search is given that
time less the largest overrun (time used beyond the search's budget: the
network batch in flight at the deadline, the choice after the search) of
this many recent moves, so that a move takes no longer than the time set;
before the first move is timed, :data:`FIRST_OVERRUN_SHARE` of it."""
FIRST_OVERRUN_SHARE = 0.1
MIN_MOVES_LEFT = 10
"""Main time is never shared over fewer of our own moves than this (no
move gets more than this fraction of it), nor, in absolute time, over fewer
than a third of a game's expected length (long games happen)."""
PHASE_WEIGHTS = ((0.0, 0.4), (0.2, 1.5), (0.6, 1.5), (1.0, 0.4))
"""A move's weight in the share of main time by how far the game has gone
(move number over :func:`expected_game_moves`): linear between these
points, flat before the first and after the last. On 19x19 moves 51 to 151
weigh 1.5, move 0 and moves 253 on 0.4."""
RESERVE_WEIGHT = 1.0
"""The weight a move past the expected end counts with when it is still to
come: the reserve absolute time keeps for long games (a third of the
expected game) is planned at full weight, an average move's, so that an
overlong game finds it there; the move itself, when it comes, gets its
phase weight, 0.4."""


def expected_game_moves(board_size: int) -> int:
    """Rough length of a game (both colours) on ``board_size``: 253 on
    19x19, 57 on 9x9."""
    return max(2 * MIN_MOVES_LEFT, round(0.7 * board_size * board_size))


def phase_weight(move_number: int, board_size: int) -> float:
    """The weight of move ``move_number`` (0 the first) in the share of
    main time (see :data:`PHASE_WEIGHTS`)."""
    x = move_number / expected_game_moves(board_size)
    (x0, w0) = PHASE_WEIGHTS[0]
    if x <= x0:
        return w0
    for x1, w1 in PHASE_WEIGHTS[1:]:
        if x <= x1:
            return w0 + (w1 - w0) * (x - x0) / (x1 - x0)
        x0, w0 = x1, w1
    return w0


def _planned_weight(move_number: int, board_size: int, expected: int) -> float:
    """A move's weight when it is still to come (see :data:`RESERVE_WEIGHT`)."""
    if move_number >= expected:
        return RESERVE_WEIGHT
    return phase_weight(move_number, board_size)


def main_time_fraction(moves_played: int, board_size: int,
                       long_games: bool = True) -> float:
    """The fraction of the main time left that the move at ``moves_played``
    gets: its phase weight over the weights of the player's moves still to
    come (every other move), counted over half the rest of the expected
    game but never fewer than :data:`MIN_MOVES_LEFT` moves nor, with
    ``long_games`` (absolute time), a third of the expected game. Always
    in (0, 1 / MIN_MOVES_LEFT]; with equal weights it is one over the
    moves left."""
    expected = expected_game_moves(board_size)
    floor = max(MIN_MOVES_LEFT, expected / 3) if long_games else MIN_MOVES_LEFT
    moves_left = max(floor, (expected - moves_played) / 2)
    whole = int(moves_left)
    total = sum(_planned_weight(moves_played + 2 * k, board_size, expected)
                for k in range(whole))
    total += (moves_left - whole) * _planned_weight(moves_played + 2 * whole, board_size,
                                                    expected)
    return min(1 / MIN_MOVES_LEFT, phase_weight(moves_played, board_size) / total)


@dataclass
class Clock:
    """One player's clock: ``main`` seconds of main time left, then in
    byo-yomi ``period`` seconds left in the current period (Canadian: for
    the whole block) with ``stones`` left to play in it (Canadian) or
    ``stones`` periods left (Japanese)."""

    main: float = 0.0
    period: float = 0.0
    stones: int = 0


class TimeControl:
    """The game's time settings, both players' clocks, and the per-move
    budget. ``default_seconds`` (the command line's ``--time``) is the time
    per move when the game has no clock; None lets the algorithm decide."""

    def __init__(self, default_seconds: Optional[float] = None):
        if default_seconds is not None and not default_seconds > 0:
            raise ValueError("the time per move must be positive")
        self.default_seconds = default_seconds
        self.system = NONE
        self.main_time = 0.0
        self.byo_yomi_time = 0.0
        self.byo_yomi_stones = 0
        self.clocks: dict[int, Clock] = {}
        self.overruns: deque = deque(maxlen=OVERRUN_MOVES)

    # ------------------------------------------------------------ settings
    def time_settings(self, main_time: float, byo_yomi_time: float,
                      byo_yomi_stones: int) -> None:
        """GTP ``time_settings``. Raises ValueError on negative, non-finite
        or huge numbers (see :data:`MAX_CLOCK_SECONDS`); nothing changes then."""
        _check_clock(main_time, byo_yomi_time, byo_yomi_stones)
        if byo_yomi_time > 0 and byo_yomi_stones == 0:
            self.set_system(NONE)
        elif byo_yomi_time == 0:
            self.set_system(ABSOLUTE, main_time)
        else:
            self.set_system(CANADIAN, main_time, byo_yomi_time, byo_yomi_stones)

    def kgs_time_settings(self, system: str, *numbers: float) -> None:
        """KGS ``kgs-time_settings``: ``none``, ``absolute M``, ``byoyomi M
        T P`` or ``canadian M T S``. Raises ValueError on anything else
        (numbers as :meth:`time_settings` takes them); nothing changes then."""
        system = system.lower()
        arity = {NONE: 0, ABSOLUTE: 1, BYOYOMI: 3, CANADIAN: 3}
        if system not in arity:
            raise ValueError(f"unknown time system {system!r}")
        if len(numbers) != arity[system]:
            raise ValueError(f"{system} takes {arity[system]} numbers")
        _check_clock(*numbers)
        if system in (BYOYOMI, CANADIAN) and (numbers[1] == 0 or numbers[2] == 0):
            # no byo-yomi after the main time: absolute
            self.set_system(ABSOLUTE, numbers[0])
        else:
            self.set_system(system, *numbers)

    def set_system(self, system: str, main_time: float = 0.0,
                   byo_yomi_time: float = 0.0, byo_yomi_stones: float = 0) -> None:
        """Set the clock (byo_yomi_stones: stones per Canadian period or
        Japanese periods) and reset both players' clocks."""
        if system not in SYSTEMS:
            raise ValueError(f"unknown time system {system!r}")
        if byo_yomi_stones != int(byo_yomi_stones):
            raise ValueError("the number of stones or periods must be a whole number")
        self.system = system
        self.main_time = float(main_time)
        self.byo_yomi_time = float(byo_yomi_time)
        self.byo_yomi_stones = int(byo_yomi_stones)
        self.reset_clocks()

    def reset_clocks(self) -> None:
        """Both clocks back to the full settings (a new game)."""
        self.clocks = {}

    @property
    def unlimited(self) -> bool:
        """True when the game has no clock."""
        return self.system == NONE

    def clock(self, color: int) -> Clock:
        """``color``'s clock, full at first."""
        clock = self.clocks.get(color)
        if clock is None:
            in_byo = self.system in (CANADIAN, BYOYOMI)
            clock = Clock(self.main_time, self.byo_yomi_time if in_byo else 0.0,
                          self.byo_yomi_stones if in_byo else 0)
            self.clocks[color] = clock
        return clock

    # ------------------------------------------------------------ updates
    def time_left(self, color: int, seconds: float, stones: int) -> None:
        """GTP ``time_left``: ``stones`` 0 means main time; otherwise the
        player is in byo-yomi with ``seconds`` left in the period and
        ``stones`` stones (Canadian) or periods (Japanese) left. Raises
        ValueError on numbers :meth:`time_settings` refuses."""
        _check_clock(seconds, stones)
        clock = self.clock(color)
        if stones == 0 or self.system in (NONE, ABSOLUTE):
            clock.main = float(seconds)
            if self.system in (CANADIAN, BYOYOMI):
                clock.period, clock.stones = self.byo_yomi_time, self.byo_yomi_stones
        else:
            clock.main, clock.period, clock.stones = 0.0, float(seconds), int(stones)

    def record_move(self, color: int, seconds: float, budget: Optional[float] = None,
                    waited: float = 0.0) -> None:
        """Run ``color``'s clock down by a move that took ``seconds``
        (until the next ``time_left`` corrects it); without a clock, note how
        far a move given ``budget`` seconds went over (see
        :data:`OVERRUN_MOVES`), not counting the ``waited`` seconds of it
        spent before the search (a network's one-time load)."""
        if self.unlimited:
            if budget is not None:
                self.overruns.append(max(0.0, seconds - waited - budget))
            return
        clock = self.clock(color)
        used = seconds
        if clock.main > 0 or self.system == ABSOLUTE:
            spent = min(clock.main, used) if self.system != ABSOLUTE else used
            clock.main -= spent
            used -= spent
            if used <= 0:
                return
        if self.system == CANADIAN:
            clock.period -= used
            clock.stones -= 1
            if clock.stones <= 0:
                clock.period, clock.stones = self.byo_yomi_time, self.byo_yomi_stones
        elif self.system == BYOYOMI:
            # every whole period the move overran is lost, the last one kept
            # (counted, not looped: there may be 2**31 tiny periods)
            if clock.period > 0:
                periods = used / clock.period
            else:
                periods = math.inf if used > 0 else 0.0
            lost = clock.stones if periods > clock.stones else math.ceil(periods) - 1
            clock.stones -= max(0, min(lost, clock.stones - 1))
            clock.period = self.byo_yomi_time

    # ------------------------------------------------------------ budget
    def seconds_for_move(self, color: int, moves_played: int,
                         board_size: int) -> Optional[float]:
        """Seconds ``color`` may think on its next move (``moves_played``
        moves, both colours, before it): None when neither a clock nor a
        default is set, the default less recent overruns without a clock
        (:data:`OVERRUN_MOVES`), else the move's share
        of the main time left by game phase (:func:`main_time_fraction`),
        at least a byo-yomi move when byo-yomi follows, minus a safety
        margin (10% plus 0.5 s; with byo-yomi, 10% plus 20% when that is
        less; never below :data:`MIN_SECONDS` nor above
        :data:`MAX_MOVE_SECONDS`)."""
        if self.unlimited:
            if self.default_seconds is None:
                return None
            overrun = max(self.overruns, default=FIRST_OVERRUN_SHARE * self.default_seconds)
            return max(MIN_SECONDS, self.default_seconds - overrun)
        clock = self.clock(color)
        fraction = main_time_fraction(moves_played, board_size,
                                      long_games=self.system == ABSOLUTE)
        main_share = max(clock.main, 0.0) * fraction
        if self.system == ABSOLUTE:
            budget = main_share
        elif clock.main > 0:
            # in main time, but byo-yomi follows: at least a byo-yomi move
            budget = max(main_share, self._byo_yomi_move(clock, fresh=True))
        else:
            budget = self._byo_yomi_move(clock, fresh=False)
        margin = SAFETY_SECONDS
        if self.system != ABSOLUTE:
            margin = min(margin, SAFETY_SHARE * budget)
        return min(MAX_MOVE_SECONDS, max(MIN_SECONDS, budget * (1 - SAFETY_FRACTION) - margin))

    def _byo_yomi_move(self, clock: Clock, fresh: bool) -> float:
        """Time for one move in byo-yomi (a fresh period, or as it stands).
        A Canadian move gets the block over its stones, or what is left of
        it over the stones left when that is less: time saved earlier in
        the block is not handed out again but kept for the lag the engine
        cannot see (without ``time_left`` the last stones would otherwise
        carry all of it)."""
        if self.system == CANADIAN:
            share = self.byo_yomi_time / max(1, self.byo_yomi_stones)
            if fresh:
                return share
            return min(share, max(clock.period, 0.0) / max(1, clock.stones))
        if fresh:
            return self.byo_yomi_time
        return max(clock.period, 0.0) if clock.stones > 0 else 0.0

    def describe(self) -> str:
        """The settings in words, for logs."""
        if self.unlimited:
            extra = f", {self.default_seconds:g} s per move" if self.default_seconds else ""
            return f"no time limit{extra}"
        if self.system == ABSOLUTE:
            return f"absolute {self.main_time:g} s"
        what = "stones" if self.system == CANADIAN else "periods"
        return (f"{self.system} {self.main_time:g} s + {self.byo_yomi_time:g} s "
                f"/ {self.byo_yomi_stones} {what}")


def _check_clock(*numbers: float) -> None:
    for n in numbers:
        if not 0 <= n <= MAX_CLOCK_SECONDS:  # nan fails too
            raise ValueError(f"time values must be 0 to {MAX_CLOCK_SECONDS}, not {n}")
