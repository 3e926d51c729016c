"""Whole games against the clock: TimeControl's budgets spent with a
realistic overhead, judged by a referee clock that follows the rules of
each system on its own (it shares no code with TimeControl).

Each move the engine thinks 5% longer than it was given (the search's own
overrun, which the engine's bookkeeping sees) and the move takes 0.05 s
more to reach the server (lag, which only the referee sees). Games run
long: 2.5 times :func:`expected_game_moves` (317 moves by one side on
19x19)."""

from __future__ import annotations

import statistics
import types
from dataclasses import dataclass
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from imago.engine.algorithm import DecisionAlgorithm
from imago.engine.engine import GameEngine
from imago.engine.random_algorithm import RandomAlgorithm
from imago.engine.timecontrol import (MAX_MOVE_SECONDS, MIN_MOVES_LEFT, MIN_SECONDS,
                                      SAFETY_FRACTION, SAFETY_SECONDS, SAFETY_SHARE,
                                      TimeControl, expected_game_moves, main_time_fraction,
                                      phase_weight)
from imago.game import BLACK
from imago.gtp.commands import Session, execute

OVERRUN = 1.05
"""The search takes 5% longer than it was given..."""
LAG = 0.05
"""...and the move 0.05 s more to reach the server."""


def thought(seconds: float) -> float:
    """How long the engine took over a move it was given ``seconds`` for."""
    return seconds * OVERRUN


# ---------------------------------------------------------------- referee
@dataclass
class Referee:
    """The server's clock for one player, by the rules: ``system`` is
    ``absolute``, ``byoyomi`` (Japanese: ``periods`` periods of ``period``
    seconds, a period lost only when a move overruns it) or ``canadian``
    (``stones`` moves in each block of ``period`` seconds)."""

    system: str
    main: float
    period: float = 0.0
    stones: int = 0
    in_byo_yomi: bool = False
    left: float = 0.0  # seconds left in the current period or block
    count: int = 0  # periods left (Japanese) or stones left in the block (Canadian)
    periods_lost: int = 0

    def charge(self, seconds: float) -> None:
        """The move took ``seconds``; fails the test when the flag falls."""
        if not self.in_byo_yomi:
            if seconds <= self.main or self.system == "absolute":
                self.main -= seconds
                assert self.main >= 0, f"lost on time in main time ({self.main:.2f} s)"
                return
            seconds -= self.main
            self.main = 0.0
            self.in_byo_yomi = True
            self.left, self.count = self.period, self.stones
        if self.system == "byoyomi":
            while seconds > self.period:
                seconds -= self.period
                self.count -= 1
                self.periods_lost += 1
                assert self.count > 0, "lost on time: the last period ran out"
            self.left = self.period
        else:
            self.left -= seconds
            assert self.left >= 0, f"lost on time in a Canadian block ({self.left:.2f} s)"
            self.count -= 1
            if self.count == 0:
                self.left, self.count = self.period, self.stones

    def time_left(self) -> tuple[float, int]:
        """What the server sends: ``time_left`` seconds and stones (0 in
        main time; KGS sends periods left in Japanese byo-yomi)."""
        if not self.in_byo_yomi and (self.main > 0 or self.system == "absolute"):
            return self.main, 0
        if not self.in_byo_yomi:
            return self.period, self.stones
        return self.left, self.count


SETTINGS = {
    # name: (the GTP command, the referee)
    "absolute 300": ("time_settings 300 0 0", ("absolute", 300)),
    "absolute 60": ("kgs-time_settings absolute 60", ("absolute", 60)),
    "japanese 60+3x10": ("kgs-time_settings byoyomi 60 10 3", ("byoyomi", 60, 10, 3)),
    "canadian 120+60/10": ("time_settings 120 60 10", ("canadian", 120, 60, 10)),
}


def new_clock(name: str) -> tuple[TimeControl, Referee]:
    command, referee = SETTINGS[name]
    tc = TimeControl()
    word, *numbers = command.split()
    if word == "time_settings":
        tc.time_settings(*map(float, numbers[:2]), int(numbers[2]))
    else:
        tc.kgs_time_settings(numbers[0], *map(float, numbers[1:]))
    return tc, Referee(*referee)


def long_game(size: int) -> range:
    """The move numbers of one side's moves in a long game (2.5 times the
    expected length, both colours)."""
    return range(0, 5 * expected_game_moves(size) // 2 + 1, 2)


def play_game(name: str, size: int, send_time_left: bool = True) -> tuple[dict, Referee]:
    """Black's budgets by move number over a long game, and the referee."""
    tc, referee = new_clock(name)
    budgets = {}
    for move in long_game(size):
        if send_time_left:
            tc.time_left(BLACK, *referee.time_left())
        seconds = tc.seconds_for_move(BLACK, move, size)
        assert MIN_SECONDS <= seconds <= MAX_MOVE_SECONDS
        budgets[move] = seconds
        tc.record_move(BLACK, thought(seconds))
        referee.charge(thought(seconds) + LAG)
    return budgets, referee


def phase_means(budgets: dict, size: int) -> tuple[float, float, float]:
    """Mean seconds a move in the opening (before 8% of the expected game:
    moves 1-20 on 19x19), the middle game (16% to 60%: moves 40-150) and
    the late endgame (from the expected end on: 253 on)."""
    expected = expected_game_moves(size)

    def mean(low: float, high: float) -> float:
        return statistics.mean(s for move, s in budgets.items() if low <= move < high)

    return (mean(0, 0.08 * expected), mean(0.16 * expected, 0.6 * expected),
            mean(expected, 10**9))


# ---------------------------------------------------------------- weights
@pytest.mark.parametrize("size", [5, 9, 13, 19])
def test_phase_weight_rises_to_the_middle_game_and_falls_again(size):
    expected = expected_game_moves(size)
    weights = [phase_weight(move, size) for move in range(3 * expected)]
    top = weights.index(max(weights))
    assert weights[0] == pytest.approx(0.4) and max(weights) == pytest.approx(1.5)
    assert all(a <= b + 1e-12 for a, b in pairwise(weights[:top + 1]))
    assert all(a >= b - 1e-12 for a, b in pairwise(weights[top:]))
    assert phase_weight(round(0.4 * expected), size) == pytest.approx(1.5)
    assert weights[expected:] == [pytest.approx(0.4)] * (2 * expected)


def test_19x19_phases_in_move_numbers():
    assert phase_weight(10, 19) < 0.7
    assert all(phase_weight(move, 19) > 1.3 for move in range(45, 160))
    assert phase_weight(260, 19) == pytest.approx(0.4)


@settings(max_examples=300, deadline=None)
@given(size=st.integers(2, 25), moves=st.integers(0, 1000), long_games=st.booleans())
def test_a_move_never_gets_more_than_a_tenth_of_the_main_time(size, moves, long_games):
    fraction = main_time_fraction(moves, size, long_games)
    assert 0 < fraction <= 1 / MIN_MOVES_LEFT
    # with byo-yomi to follow (no reserve for long games) main time is
    # spent at least as freely
    assert main_time_fraction(moves, size, long_games=False) >= fraction - 1e-12


def test_even_weights_give_the_old_even_share(monkeypatch):
    from imago.engine import timecontrol

    monkeypatch.setattr(timecontrol, "PHASE_WEIGHTS", ((0.0, 1.0),))
    for size, moves in [(19, 0), (19, 100), (19, 400), (9, 13), (5, 0)]:
        expected = expected_game_moves(size)
        moves_left = max(MIN_MOVES_LEFT, expected / 3, (expected - moves) / 2)
        assert main_time_fraction(moves, size) == pytest.approx(1 / moves_left)


@settings(max_examples=60, deadline=None)
@given(main=st.floats(1, 36000), size=st.sampled_from([9, 13, 19]),
       system=st.sampled_from(["absolute", "byoyomi", "canadian"]))
def test_budgets_never_add_up_to_more_than_the_main_time(main, size, system):
    """Spending exactly what is given over a long game: every budget above
    the MIN_SECONDS floor fits ten times in the main time left, and all
    of them together never exceed the main time."""
    tc = TimeControl()
    if system == "absolute":
        tc.kgs_time_settings(system, main)
    else:  # byo-yomi too short to matter: its moves get the MIN_SECONDS floor
        tc.kgs_time_settings(system, main, 0.001, 1)
    spent = 0.0
    for move in long_game(size):
        clock = tc.clock(BLACK)
        if clock.main <= 0:
            break
        seconds = tc.seconds_for_move(BLACK, move, size)
        if seconds > MIN_SECONDS:
            assert seconds <= clock.main / MIN_MOVES_LEFT + 1e-9
            spent += seconds
        tc.record_move(BLACK, seconds)
    assert spent <= main


# ---------------------------------------------------------------- games
@pytest.mark.parametrize("main", ["absolute 300", "absolute 60"])
def test_19x19_absolute_time_lasts_a_long_game_and_spends_most_mid_game(main):
    budgets, referee = play_game(main, 19)
    assert len(budgets) >= 300
    assert referee.main > 0
    opening, middle, endgame = phase_means(budgets, 19)
    assert middle > 2 * opening and middle > 2 * endgame, (opening, middle, endgame)
    assert statistics.mean(budgets[m] for m in range(40, 150, 2)) > 2 * max(
        statistics.mean(budgets[m] for m in range(0, 20, 2)),
        statistics.mean(budgets[m] for m in budgets if m >= 250))


@pytest.mark.parametrize("size", [9, 13])
@pytest.mark.parametrize("main", ["absolute 300", "absolute 60"])
def test_small_boards_absolute_time_lasts_a_long_game(size, main):
    budgets, referee = play_game(main, size)
    assert referee.main > 0
    opening, middle, endgame = phase_means(budgets, size)
    assert middle > 1.5 * opening and middle > 2 * endgame, (opening, middle, endgame)


def margin(budget: float) -> float:
    """A budget less the margin when byo-yomi follows."""
    return budget * (1 - SAFETY_FRACTION) - min(SAFETY_SECONDS, SAFETY_SHARE * budget)


@pytest.mark.parametrize("send_time_left", [True, False])
@pytest.mark.parametrize("size", [9, 13, 19])
def test_japanese_byoyomi_never_loses_a_period(size, send_time_left):
    """``kgs-time_settings byoyomi 60 10 3``: the main time goes at no less
    than a byo-yomi move a move, then every move gets the period less the
    margin, and not one period is lost in a long game."""
    budgets, referee = play_game("japanese 60+3x10", size, send_time_left)
    assert referee.in_byo_yomi and referee.periods_lost == 0
    assert all(seconds >= margin(10) - 1e-9 for seconds in budgets.values())
    assert budgets[max(budgets)] == pytest.approx(margin(10))


@pytest.mark.parametrize("send_time_left", [True, False])
@pytest.mark.parametrize("size", [9, 13, 19])
def test_canadian_byoyomi_never_loses_on_time(size, send_time_left):
    """``time_settings 120 60 10``: the main time goes at no less than a
    block's share (6 s) a move, and in byo-yomi no block runs out, even
    when the engine never hears the 0.05 s of lag a move (time saved early
    in a block is kept for it, not handed out again)."""
    budgets, referee = play_game("canadian 120+60/10", size, send_time_left)
    assert referee.in_byo_yomi
    assert all(seconds >= margin(6) - 1e-9 for seconds in budgets.values())


def test_byoyomi_budget_is_the_period_or_the_block_over_the_stones():
    tc, _ = new_clock("japanese 60+3x10")
    tc.time_left(BLACK, 10, 2)
    assert tc.seconds_for_move(BLACK, 100, 19) == pytest.approx(margin(10))
    tc, _ = new_clock("canadian 120+60/10")
    tc.time_left(BLACK, 20, 4)  # behind: what is left over the stones left
    assert tc.seconds_for_move(BLACK, 100, 19) == pytest.approx(margin(20 / 4))
    tc.time_left(BLACK, 33, 4)  # ahead: still the block over its stones
    assert tc.seconds_for_move(BLACK, 100, 19) == pytest.approx(margin(60 / 10))


@pytest.mark.parametrize("size", [9, 13, 19])
def test_a_long_main_time_before_byoyomi_goes_to_the_middle_game(size):
    """With byo-yomi to follow, a main time worth sharing (1800 s, 3 x 10 s)
    still goes mostly to the middle game, and never below the period."""
    tc = TimeControl()
    tc.kgs_time_settings("byoyomi", 1800, 10, 3)
    referee = Referee("byoyomi", 1800, 10, 3)
    budgets = {}
    for move in long_game(size):
        tc.time_left(BLACK, *referee.time_left())
        budgets[move] = tc.seconds_for_move(BLACK, move, size)
        referee.charge(thought(budgets[move]) + LAG)
    opening, middle, endgame = phase_means(budgets, size)
    assert middle > 1.5 * opening and middle > 1.5 * endgame, (opening, middle, endgame)
    assert min(budgets.values()) >= margin(10) - 1e-9 and referee.periods_lost == 0


# ---------------------------------------------------------------- time_left
def test_time_left_overrides_the_engine_s_own_bookkeeping():
    tc, _ = new_clock("absolute 300")
    for move in range(0, 40, 2):
        tc.record_move(BLACK, thought(tc.seconds_for_move(BLACK, move, 19)))
    assert tc.clock(BLACK).main < 300
    tc.time_left(BLACK, 12, 0)  # the server's clock ran down faster
    assert tc.clock(BLACK).main == 12
    assert tc.seconds_for_move(BLACK, 40, 19) == pytest.approx(
        max(MIN_SECONDS, 12 * main_time_fraction(40, 19) * 0.9 - SAFETY_SECONDS))

    tc, _ = new_clock("japanese 60+3x10")
    tc.record_move(BLACK, 5)  # the engine thinks 55 s of main time are left
    tc.time_left(BLACK, 7, 1)  # the server: in the last period, 7 s left in it
    clock = tc.clock(BLACK)
    assert (clock.main, clock.period, clock.stones) == (0, 7, 1)
    assert tc.seconds_for_move(BLACK, 2, 19) == pytest.approx(margin(7))
    tc.time_left(BLACK, 30, 0)  # and back: main time after all
    assert tc.clock(BLACK).main == 30
    assert tc.seconds_for_move(BLACK, 2, 19) == pytest.approx(margin(10))


# ---------------------------------------------------------------- GTP
class FakeTime:
    """Stands in for the engine module's ``time``: the clock moves only when
    the algorithm "thinks"."""

    def __init__(self):
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


class Thinker(DecisionAlgorithm):
    """Passes after thinking 5% longer than it was given."""

    name = "thinker"

    def __init__(self, fake_time: FakeTime):
        self.fake_time = fake_time
        self.given: list = []

    def choose_move(self, state, color, seconds=None):
        self.given.append((state.current.number, seconds))
        self.fake_time.now += thought(seconds)
        return None


@pytest.mark.parametrize("send_time_left", [True, False])
@pytest.mark.parametrize("name", ["absolute 300", "japanese 60+3x10", "canadian 120+60/10"])
def test_gtp_game_on_19x19_never_loses_on_time(monkeypatch, name, send_time_left):
    """The controller's side of a long 19x19 game: the clock set with the
    GTP command, ``time_left`` before each ``genmove`` (or never), the
    engine timing its own moves."""
    import imago.engine.engine as engine_module

    fake_time = FakeTime()
    monkeypatch.setattr(engine_module, "time", types.SimpleNamespace(
        monotonic=fake_time.monotonic))
    engine = GameEngine(RandomAlgorithm(seed=5), 9, 7.5)
    thinker = Thinker(fake_time)
    engine.algorithm = thinker
    session = Session(engine)

    def gtp(line: str) -> str:
        word, *args = line.split()
        return execute(session, word, args)

    gtp("boardsize 19")
    gtp("clear_board")
    command, referee_settings = SETTINGS[name]
    gtp(command)
    referee = Referee(*referee_settings)
    for _ in long_game(19):
        if send_time_left:
            seconds, stones = referee.time_left()
            gtp(f"time_left b {seconds:.3f} {stones}")  # servers send decimals too
        started = fake_time.now
        assert gtp("genmove b") == "pass"
        referee.charge(fake_time.now - started + LAG)
        gtp("play w pass")
    numbers = [number for number, _ in thinker.given]
    assert numbers == list(long_game(19))
    if referee.system == "byoyomi":
        assert referee.periods_lost == 0
    if referee.system == "absolute":
        budgets = dict(thinker.given)
        opening, middle, endgame = phase_means(budgets, 19)
        assert middle > 2 * opening and middle > 2 * endgame
