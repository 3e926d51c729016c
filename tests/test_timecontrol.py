"""TimeControl: settings, clocks, and the per-move budget with its margin."""

from __future__ import annotations

import math
import time

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from imago.engine.timecontrol import (ABSOLUTE, BYOYOMI, CANADIAN, FIRST_OVERRUN_SHARE,
                                      MAX_CLOCK_SECONDS, MAX_MOVE_SECONDS, MIN_SECONDS, NONE,
                                      OVERRUN_MOVES, PHASE_WEIGHTS, RESERVE_WEIGHT,
                                      SAFETY_FRACTION, SAFETY_SECONDS, SAFETY_SHARE, TimeControl,
                                      expected_game_moves, main_time_fraction)
from imago.game import BLACK, WHITE

FIRST_MOVE = 1.0 * (1 - FIRST_OVERRUN_SHARE)
"""The search's budget with --time 1 and no clock before any move is timed."""


def margin(budget: float, byo_yomi: bool = True) -> float:
    fixed = min(SAFETY_SECONDS, SAFETY_SHARE * budget) if byo_yomi else SAFETY_SECONDS
    return budget * (1 - SAFETY_FRACTION) - fixed


def test_no_clock_uses_the_default():
    assert TimeControl().seconds_for_move(BLACK, 0, 19) is None
    # before a move is timed a tenth is kept back for the overrun
    assert TimeControl(2.5).seconds_for_move(WHITE, 100, 9) == pytest.approx(2.25)
    assert TimeControl(2.5).describe() == "no time limit, 2.5 s per move"
    with pytest.raises(ValueError):
        TimeControl(0)
    with pytest.raises(ValueError):
        TimeControl(-1)


def test_the_time_per_move_leaves_room_for_recent_overruns():
    # --time 2: the search gets 2 s less the largest overrun of the last
    # OVERRUN_MOVES moves, so the move itself takes about 2 s
    tc = TimeControl(2.0)
    assert tc.seconds_for_move(BLACK, 9, 19) == pytest.approx(2.0 * (1 - FIRST_OVERRUN_SHARE))
    tc.record_move(BLACK, 2.25, 2.0)
    tc.record_move(WHITE, 1.8, 1.75)
    assert tc.seconds_for_move(BLACK, 10, 19) == pytest.approx(1.75)
    for _ in range(OVERRUN_MOVES):
        tc.record_move(BLACK, 1.7, 1.75)
    assert tc.seconds_for_move(BLACK, 11, 19) == 2.0
    tc.record_move(BLACK, 5.0)  # no budget: nothing to learn
    assert tc.seconds_for_move(BLACK, 12, 19) == 2.0
    tc.record_move(BLACK, 30.0, 0.5)  # never below the floor
    assert tc.seconds_for_move(BLACK, 13, 19) == MIN_SECONDS


def test_time_waiting_for_the_network_is_no_overrun():
    # a first move that waited 3 s for its network to load, then searched its
    # budget: the next moves keep their time
    tc = TimeControl(1.0)
    tc.record_move(BLACK, 3.0 + 0.06, 0.05, waited=3.0)
    assert tc.seconds_for_move(BLACK, 2, 9) == pytest.approx(0.99)


def test_time_settings_systems():
    tc = TimeControl(1.0)
    tc.time_settings(0, 1, 0)  # byo-yomi time without stones: no limit
    assert tc.system == NONE and tc.seconds_for_move(BLACK, 0, 9) == FIRST_MOVE
    tc.time_settings(600, 0, 0)
    assert tc.system == ABSOLUTE and tc.describe() == "absolute 600 s"
    tc.time_settings(300, 30, 5)
    assert tc.system == CANADIAN
    assert tc.describe() == "canadian 300 s + 30 s / 5 stones"
    with pytest.raises(ValueError):
        tc.time_settings(-5, 0, 0)
    with pytest.raises(ValueError):
        tc.time_settings(float("inf"), 0, 0)


def test_kgs_time_settings():
    tc = TimeControl()
    tc.kgs_time_settings("byoyomi", 600, 30, 5)
    assert (tc.system, tc.main_time, tc.byo_yomi_time, tc.byo_yomi_stones) == (
        BYOYOMI, 600, 30, 5)
    tc.kgs_time_settings("canadian", 0, 300, 25)
    assert tc.system == CANADIAN
    tc.kgs_time_settings("byoyomi", 600, 30, 0)  # no periods: only the main time
    assert tc.system == ABSOLUTE and tc.main_time == 600
    tc.kgs_time_settings("none")
    assert tc.unlimited
    for bad in [("fischer", 1, 2), ("absolute",), ("none", 1), ("canadian", 1, 2),
                ("byoyomi", 1, 2, 2.5), ("absolute", -1)]:
        with pytest.raises(ValueError):
            tc.kgs_time_settings(*bad)


def test_expected_game_moves():
    assert expected_game_moves(19) == 253
    assert expected_game_moves(9) == 57
    assert expected_game_moves(2) == 20


def test_absolute_budget_shares_the_main_time():
    tc = TimeControl(5.0)  # the default does not apply under a clock
    tc.time_settings(600, 0, 0)
    first = tc.seconds_for_move(BLACK, 0, 19)
    assert first == pytest.approx(margin(600 * main_time_fraction(0, 19), byo_yomi=False))
    # the opening gets less than an even share over half the expected game
    assert main_time_fraction(0, 19) < 1 / (253 / 2) < main_time_fraction(100, 19)
    # late in the game the time left is never spread over fewer than a
    # third of the expected game or 10 moves (those to come counted at
    # RESERVE_WEIGHT, the move itself at its phase weight)
    late = PHASE_WEIGHTS[-1][1]
    assert RESERVE_WEIGHT == 1.0
    assert tc.seconds_for_move(BLACK, 400, 19) == pytest.approx(
        margin(600 * late / (253 / 3), byo_yomi=False))
    assert tc.seconds_for_move(BLACK, 400, 9) == pytest.approx(
        margin(600 * late / 19, byo_yomi=False))
    assert tc.seconds_for_move(BLACK, 400, 5) == pytest.approx(
        margin(600 * late / 10, byo_yomi=False))
    tc.time_left(BLACK, 0, 0)
    assert tc.seconds_for_move(BLACK, 10, 19) == MIN_SECONDS


def test_canadian_budget():
    tc = TimeControl()
    tc.time_settings(60, 300, 25)
    # in main time, at least a byo-yomi move's share
    assert tc.seconds_for_move(BLACK, 0, 19) == pytest.approx(margin(12))
    tc.time_left(BLACK, 30, 5)  # in byo-yomi: 30 s for 5 stones
    assert tc.seconds_for_move(BLACK, 0, 19) == pytest.approx(margin(6))
    clock = tc.clock(BLACK)
    assert (clock.main, clock.period, clock.stones) == (0, 30, 5)
    tc.time_left(BLACK, 45, 0)  # back in main time
    assert tc.clock(BLACK).main == 45


def test_a_short_budget_keeps_a_proportional_margin():
    """One second a move (``time_settings 0 1 1``): the search gets 0.7 s,
    not the 0.4 s a fixed half-second margin would leave it."""
    tc = TimeControl()
    tc.time_settings(0, 1, 1)
    assert tc.seconds_for_move(BLACK, 0, 9) == pytest.approx(0.7)
    tc.time_settings(0, 30, 1)
    assert tc.seconds_for_move(BLACK, 0, 9) == pytest.approx(30 * 0.9 - 0.5)


def test_japanese_byoyomi_budget():
    tc = TimeControl()
    tc.kgs_time_settings("byoyomi", 0, 30, 3)
    assert tc.seconds_for_move(WHITE, 0, 9) == pytest.approx(margin(30))
    tc.time_left(WHITE, 20, 1)  # KGS: time in the period, periods left
    assert tc.seconds_for_move(WHITE, 0, 9) == pytest.approx(margin(20))


def test_record_move_runs_the_clock_down():
    tc = TimeControl()
    tc.time_settings(10, 30, 2)  # canadian
    tc.record_move(BLACK, 4)
    assert tc.clock(BLACK).main == 6
    tc.record_move(BLACK, 10)  # 6 from the main time, 4 from the period
    clock = tc.clock(BLACK)
    assert (clock.main, clock.period, clock.stones) == (0, 26, 1)
    tc.record_move(BLACK, 5)  # the period's last stone: a new period starts
    assert (clock.period, clock.stones) == (30, 2)
    assert tc.clock(WHITE).main == 10  # the other clock is untouched

    tc.kgs_time_settings("byoyomi", 0, 10, 3)
    tc.record_move(WHITE, 9)  # within the period: no period lost
    assert (tc.clock(WHITE).period, tc.clock(WHITE).stones) == (10, 3)
    tc.record_move(WHITE, 25)  # two periods used up
    assert tc.clock(WHITE).stones == 1

    tc.time_settings(100, 0, 0)
    tc.record_move(BLACK, 30)
    assert tc.clock(BLACK).main == 70
    tc.reset_clocks()
    assert tc.clock(BLACK).main == 100


@pytest.mark.parametrize("settings", [("time", 300, 0, 0), ("time", 0, 20, 5),
                                      ("time", 600, 0, 0), ("kgs", "absolute", 1800),
                                      ("time", 30, 10, 3), ("kgs", "byoyomi", 20, 5, 2),
                                      ("kgs", "canadian", 0, 60, 20)])
def test_never_loses_on_time_when_spending_the_budget(settings):
    """Spend the budget plus 0.2 s of lag on every move of a long (800
    moves) 19x19 game: the clock never runs out."""
    tc = TimeControl()
    if settings[0] == "time":
        tc.time_settings(*settings[1:])
    else:
        tc.kgs_time_settings(*settings[1:])
    for move in range(0, 800, 2):
        seconds = tc.seconds_for_move(BLACK, move, 19)
        assert seconds >= MIN_SECONDS
        tc.record_move(BLACK, seconds + 0.2)
        clock = tc.clock(BLACK)
        if tc.system == ABSOLUTE:
            assert clock.main > 0, f"lost on time at move {move}"
        else:
            assert clock.main >= 0 and clock.period > 0 and clock.stones >= 1, move
            if tc.system == BYOYOMI:
                assert clock.stones == tc.byo_yomi_stones  # no period lost


def test_absolute_time_on_a_small_board_lasts_a_long_game():
    tc = TimeControl()
    tc.time_settings(60, 0, 0)
    for move in range(0, 180, 2):
        tc.record_move(BLACK, tc.seconds_for_move(BLACK, move, 9) + 0.2)
    assert tc.clock(BLACK).main > 0


def test_time_left_under_no_clock_is_harmless():
    tc = TimeControl(1.0)
    tc.time_left(BLACK, 10, 0)
    tc.record_move(BLACK, 3)
    assert tc.seconds_for_move(BLACK, 0, 9) == FIRST_MOVE
    with pytest.raises(ValueError):
        tc.time_left(BLACK, -2, 0)


def test_new_game_resets_the_clocks():
    from imago.engine.engine import GameEngine
    from imago.engine.random_algorithm import RandomAlgorithm

    engine = GameEngine(RandomAlgorithm(1), 9, 7.5, TimeControl())
    engine.time_control.time_settings(100, 0, 0)
    engine.time_control.time_left(BLACK, 3, 0)
    engine.clear_board()
    assert engine.time_control.clock(BLACK).main == 100


def test_huge_and_negative_settings_are_refused_and_change_nothing():
    tc = TimeControl()
    tc.time_settings(300, 30, 5)
    for bad in [(1e300, 1, 1), (MAX_CLOCK_SECONDS + 1, 0, 0), (1, 1, 2**40), (-1, 0, 0),
                (1, -0.5, 1), (math.nan, 0, 0), (1, 1, -1)]:
        with pytest.raises(ValueError):
            tc.time_settings(*bad)
    for bad in [("absolute", 1e300), ("byoyomi", 1, 1e300, 2), ("canadian", 1, 1, -3)]:
        with pytest.raises(ValueError):
            tc.kgs_time_settings(*bad)
    for bad in [(1e300, 0), (-1, 0), (5, -1), (5, 2**40), (math.inf, 0)]:
        with pytest.raises(ValueError):
            tc.time_left(BLACK, *bad)
    assert tc.describe() == "canadian 300 s + 30 s / 5 stones"
    assert tc.clock(BLACK).main == 300


@pytest.mark.parametrize("settings", [("time", MAX_CLOCK_SECONDS, 0, 0),
                                      ("time", MAX_CLOCK_SECONDS, MAX_CLOCK_SECONDS, 1),
                                      ("kgs", "byoyomi", 0, MAX_CLOCK_SECONDS, 3),
                                      ("kgs", "canadian", MAX_CLOCK_SECONDS,
                                       MAX_CLOCK_SECONDS, MAX_CLOCK_SECONDS)])
def test_the_largest_clock_gives_a_move_minutes_not_years(settings):
    tc = TimeControl()
    if settings[0] == "time":
        tc.time_settings(*settings[1:])
    else:
        tc.kgs_time_settings(*settings[1:])
    for move in range(0, 400, 2):
        seconds = tc.seconds_for_move(BLACK, move, 19)
        assert MIN_SECONDS <= seconds <= MAX_MOVE_SECONDS
        tc.record_move(BLACK, seconds)
    tc.time_left(BLACK, MAX_CLOCK_SECONDS, MAX_CLOCK_SECONDS)
    assert tc.seconds_for_move(BLACK, 0, 19) <= MAX_MOVE_SECONDS


def test_many_tiny_byoyomi_periods_are_counted_not_looped():
    tc = TimeControl()
    tc.kgs_time_settings("byoyomi", 0, 2.0**-30, MAX_CLOCK_SECONDS)
    started = time.perf_counter()
    tc.record_move(BLACK, 1.0)  # 2**30 periods used, the last still running
    assert time.perf_counter() - started < 0.1
    assert tc.clock(BLACK).stones == MAX_CLOCK_SECONDS - (2**30 - 1)
    tc.record_move(BLACK, 1e6)  # more than are left: the last one is kept
    assert tc.clock(BLACK).stones == 1
    tc.time_left(WHITE, 0, 5)  # a period with nothing left in it
    tc.record_move(WHITE, 0.5)
    assert tc.clock(WHITE).stones == 1


@given(period=st.floats(0, 100), stones=st.integers(1, 50), used=st.floats(0, 1000))
def test_byoyomi_periods_lost_as_one_by_one(period, stones, used):
    """The counted periods lost agree with taking them one at a time. A move
    that used a whole number of periods to the last bit is left out: there
    rounding decides either way (1.0 / (1/3) is 3 periods, 1.0 - 3 * (1/3)
    one by one is not 0)."""
    ratio = used / period if period > 0 else 0.0
    assume(not math.isfinite(ratio) or ratio > 1e15 or abs(ratio - round(ratio)) > 1e-9)
    tc = TimeControl()
    tc.kgs_time_settings("byoyomi", 0, 10, 50)
    tc.time_left(BLACK, period, stones)
    tc.record_move(BLACK, used)
    left, expected = used, stones
    while left > period and expected > 1:
        left -= period
        expected -= 1
    assert tc.clock(BLACK).stones == expected


def test_the_count_before_a_search_comes_out_of_the_moves_time(monkeypatch):
    """The count the engine makes before searching (playouts: about 0.1 s
    on 19x19) is part of the move: the search gets what is left."""
    from imago.engine.mcts_algorithm import MCTSAlgorithm
    from imago.game import GameState, vertex_to_index

    algorithm = MCTSAlgorithm(model=None, seed=1)
    counted, given = [], []
    real_judge, real_search = algorithm.judge, algorithm._search

    def slow_judge(state):
        time.sleep(0.3)
        counted.append(state)
        return real_judge(state)

    def timed_search(state, color, seconds, *args):
        given.append(seconds)
        return real_search(state, color, seconds, *args)

    monkeypatch.setattr(algorithm, "judge", slow_judge)
    monkeypatch.setattr(algorithm, "_search", timed_search)
    game = GameState(9)
    for color, vertex in ((BLACK, "E5"), (WHITE, "C3"), (BLACK, "G7")):
        game.play(color, vertex_to_index(vertex, 9))
    game.play(WHITE, None)  # after a pass the count is made (the game is not decided)
    algorithm.choose_move(game, BLACK, seconds=0.6)
    assert counted and given and given[0] <= 0.3  # 0.6 s less the count's 0.3 s at least
