"""Area scoring (seki, komi, dead stones), result strings and handicap."""

from __future__ import annotations

import subprocess

import pytest

from imago.game import (BLACK, WHITE, GameState, area_counts, area_owners, area_score, fixed_handicap_points,
                        format_result, format_vertex, free_handicap_points, max_fixed_handicap,
                        vertex_to_index)
from test_board_rules import board_from


def test_empty_board_is_neutral():
    game = GameState(9, komi=7.5)
    assert game.score() == -7.5
    assert game.result() == "W+7.5"


def test_territory_and_stones_count():
    b = board_from("""
        . X O . .
        . X O . .
        . X O . .
        . X O . .
        . X O . .""")
    assert area_counts(b) == (10, 15)
    assert area_score(b, 0.5) == -5.5
    assert format_result(area_score(b, 0.5)) == "W+5.5"


def test_seki_shared_liberty_is_neutral():
    # black A2-B2-C2-B1 (eye A1) and white D2-E2-D1 (eye E1) share C1: whoever
    # fills C1 puts itself in atari, so both live in seki
    b = board_from("""
        . . . . .
        . . . . .
        O O O X X
        X X X O O
        . X . O .""")
    c1, a1, e1 = (vertex_to_index(x, 5) for x in ("C1", "A1", "E1"))
    assert b.liberties(vertex_to_index("B2", 5)) == {a1, c1}
    assert b.liberties(vertex_to_index("D2", 5)) == {c1, e1}
    owners = area_owners(b)
    assert owners[c1] == 0 and owners[a1] == BLACK and owners[e1] == WHITE
    # stones + own eye each; C1 and the open top (touching both) are neutral
    assert area_counts(b) == (7, 7)
    assert area_score(b, 0.5) == -0.5


def test_a_point_touching_both_colours_counts_for_nobody():
    b = board_from("""
        X . O X .
        X X O X .
        O O O X .
        X X X X .
        . . . . .""")
    black, white = area_counts(b)
    assert white == 5                 # C5 C4 A3 B3 C3; B5 is neutral
    assert black == 10 + 9            # ten stones, the E column and the bottom row


def test_dead_stones_are_removed_before_counting():
    b = board_from("""
        . X . . .
        X X . . .
        . . . O .
        . . . . .
        . . . . .""")
    dead = [vertex_to_index("D3", 5)]
    black, white = area_counts(b, dead)
    assert (black, white) == (25, 0)
    assert area_score(b, 7.5, dead) == 17.5


@pytest.mark.parametrize("score,text", [(3.5, "B+3.5"), (-0.5, "W+0.5"), (0, "0"), (12.0, "B+12")])
def test_result_strings(score, text):
    assert format_result(score) == text


def test_fixed_handicap_19x19_matches_the_specification():
    names = lambda n: [format_vertex(p, 19) for p in fixed_handicap_points(19, n)]
    assert names(2) == ["D4", "Q16"]
    assert names(3) == ["D4", "Q16", "D16"]
    assert names(4) == ["D4", "Q16", "D16", "Q4"]
    assert sorted(names(5)) == sorted(["D4", "Q16", "D16", "Q4", "K10"])
    assert sorted(names(9)) == sorted(["D4", "Q16", "D16", "Q4", "D10", "Q10", "K4", "K16", "K10"])
    assert max_fixed_handicap(19) == 9 and max_fixed_handicap(8) == 4
    assert max_fixed_handicap(7) == 4 and max_fixed_handicap(6) == 0
    with pytest.raises(ValueError):
        fixed_handicap_points(19, 10)
    with pytest.raises(ValueError):
        fixed_handicap_points(9, 1)


def test_fixed_handicap_agrees_with_gnugo(gnugo_path):
    commands = []
    cases = [(size, n) for size in (7, 8, 9, 10, 13, 19) for n in range(2, max_fixed_handicap(size) + 1)]
    for size, n in cases:
        commands += [f"boardsize {size}", "clear_board", f"fixed_handicap {n}"]
    out = subprocess.run([gnugo_path, "--mode", "gtp"], input="\n".join(commands) + "\nquit\n",
                         capture_output=True, text=True, timeout=60).stdout
    answers = [block[1:].strip() for block in out.split("\n\n") if block.strip()]
    handicap_answers = answers[2::3]
    assert len(handicap_answers) == len(cases)
    for (size, n), answer in zip(cases, handicap_answers):
        ours = {format_vertex(p, size) for p in fixed_handicap_points(size, n)}
        assert ours == set(answer.upper().split()), (size, n)


def test_handicap_on_game_state():
    game = GameState(9)
    points = game.set_fixed_handicap(4)
    assert len(points) == 4 and game.handicap == 4
    assert game.to_move == WHITE
    assert all(game.board[p] == BLACK for p in points)
    assert game.root.properties["HA"] == ["4"]
    with pytest.raises(ValueError, match="board not empty"):
        game.set_fixed_handicap(2)
    game.clear()
    placed = game.place_free_handicap(12)
    assert len(set(placed)) == 12
    game.clear()
    with pytest.raises(ValueError, match="repeated"):
        game.set_free_handicap([vertex_to_index("C3", 9)] * 2)
    with pytest.raises(ValueError, match="invalid number"):
        game.set_free_handicap([vertex_to_index("C3", 9)])
    game.set_free_handicap([vertex_to_index(x, 9) for x in ("A1", "J9")])
    assert game.handicap == 2


def test_free_handicap_points_are_distinct_for_any_count():
    for size in (5, 9, 19):
        for n in (2, 5, 9, 10, 17):
            if n < size * size:
                pts = free_handicap_points(size, n)
                assert len(set(pts)) == n
