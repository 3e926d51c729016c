"""Rules of the board: captures, suicide, snapback, ko, superko, edges."""

from __future__ import annotations

import pytest

from imago.game import (BLACK, EMPTY, WHITE, GameBoard, GameState, IllegalMoveError,
                        vertex_to_index)


def board_from(diagram: str) -> GameBoard:
    """A board from rows of ``X`` (black), ``O`` (white), ``.``; top row first."""
    rows = [r.split() for r in diagram.strip().splitlines()]
    size = len(rows)
    board = GameBoard(size)
    black = [board.index(c, r) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "X"]
    white = [board.index(c, r) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "O"]
    board.set_stones(black, white)
    return board


def v(board: GameBoard, vertex: str) -> int:
    return vertex_to_index(vertex, board.size)


def test_single_capture_in_the_middle():
    b = board_from("""
        . . . . .
        . . X . .
        . X O . .
        . . X . .
        . . . . .""")
    assert b.play(v(b, "D3"), BLACK) == 1
    assert b[v(b, "C3")] == EMPTY
    # the captured point is a liberty of every black string around it
    assert v(b, "C3") in b.liberties(v(b, "C4"))
    assert v(b, "C3") in b.liberties(v(b, "D3"))


def test_corner_capture():
    b = board_from("""
        O . .
        X . .
        . . .""")
    assert b.play(v(b, "B3"), BLACK) == 1
    assert b[v(b, "A3")] == EMPTY


def test_setup_stones_never_capture():
    b = board_from("""
        O X .
        X . .
        . . .""")
    assert b[v(b, "A3")] == WHITE


def test_two_strings_captured_by_one_move():
    b = board_from("""
        . X O . .
        X O . O .
        O . O . .
        . . . . .
        . . . . .""")
    # black B5 and black A4 share their last liberty A5
    assert b.play(v(b, "A5"), WHITE) == 2
    assert b[v(b, "B5")] == EMPTY and b[v(b, "A4")] == EMPTY
    assert b.liberties(v(b, "A5")) == {v(b, "B5"), v(b, "A4")}


def test_large_string_capture_counts_stones():
    b = board_from("""
        . O O O .
        O X X X O
        O X X X O
        . O O . .
        . . . . .""")
    assert b.liberties(v(b, "C3")) == {v(b, "D2")}
    assert b.play(v(b, "D2"), WHITE) == 6
    assert all(b[v(b, p)] == EMPTY for p in ("B4", "C4", "D4", "B3", "C3", "D3"))
    # D2 joined B2-C2, which now breathe through the captured points too
    assert b.liberties(v(b, "D2")) == {v(b, x) for x in ("B3", "C3", "D3", "A2", "E2", "B1", "C1", "D1")}


def test_single_stone_suicide_is_illegal():
    b = board_from("""
        . X .
        X . X
        . X .""")
    assert b.illegal_reason(v(b, "B2"), WHITE) == "suicide"
    with pytest.raises(IllegalMoveError) as err:
        b.play(v(b, "B2"), WHITE)
    assert err.value.reason == "suicide"
    assert b[v(b, "B2")] == EMPTY


def test_multi_stone_suicide_is_illegal():
    b = board_from("""
        O O X . .
        . O X . .
        X X X . .
        . . . . .
        . . . . .""")
    # white A4 would join A5-B5-B4 with no liberty left
    assert b.illegal_reason(v(b, "A4"), WHITE) == "suicide"
    # black may play there: it captures the three white stones
    assert b.illegal_reason(v(b, "A4"), BLACK) is None
    assert b.play(v(b, "A4"), BLACK) == 3


def test_filling_the_last_liberty_of_own_strings_is_suicide_unless_it_captures():
    b = board_from("""
        . X O .
        X O . .
        O . . .
        . . . .""")
    # black A4 would join B4 and A3, whose only liberty is A4
    assert b.illegal_reason(v(b, "A4"), BLACK) == "suicide"
    # white A4 captures both black stones
    assert b.play(v(b, "A4"), WHITE) == 2


def test_occupied_and_off_board():
    b = GameBoard(5)
    b.play(v(b, "C3"), BLACK)
    assert b.illegal_reason(v(b, "C3"), WHITE) == "occupied"
    assert b.illegal_reason(0, WHITE) == "off board"
    assert b.illegal_reason(None, WHITE) is None


def test_snapback():
    b = board_from("""
        . . . . .
        . . . . .
        X X X X .
        O O O X .
        . . O X .""")
    # white A2-B2-C2-C1 has two liberties, A1 and B1; black throws in at B1
    assert b.play(v(b, "B1"), BLACK) == 0
    assert b.play(v(b, "A1"), WHITE) == 1      # white takes the stone...
    assert b.liberties(v(b, "A1")) == {v(b, "B1")}
    assert b.play(v(b, "B1"), BLACK) == 5      # ...and black takes back five


KO = """
    . X O . .
    X . X O .
    . X O . .
    . . . . .
    . . . . ."""
"""White B4 takes the black stone at C4: a ko."""


def test_simple_ko_and_retake_after_a_threat():
    b = board_from(KO)
    assert b.play(v(b, "B4"), WHITE) == 1  # white captures C4
    assert b.ko_point == v(b, "C4")
    assert b.illegal_reason(v(b, "C4"), BLACK) == "ko"
    b.play(v(b, "E1"), BLACK)   # ko threat elsewhere
    b.play(v(b, "E2"), WHITE)   # answer
    assert b.illegal_reason(v(b, "C4"), BLACK) is None
    assert b.play(v(b, "C4"), BLACK) == 1


def test_pass_lifts_the_ko_marker_but_retaking_after_two_passes_is_superko():
    b = board_from(KO)
    b.play(v(b, "B4"), WHITE)
    b.play(None, BLACK)
    assert b.ko_point == 0
    b.play(None, WHITE)
    # immediate recapture would repeat the position before white's capture
    assert b.illegal_reason(v(b, "C4"), BLACK) == "superko"


def ko_shape(black, white, col, row, taken_by_black):
    """A ko at columns col..col+3, rows row..row+2, either held by white (a
    white stone on the inner point) or just taken by black. Returns black's
    capturing point and white's, as (col, row)."""
    for dc, dr in ((1, 0), (0, 1), (1, 2)):
        black.append((col + dc, row + dr))
    for dc, dr in ((2, 0), (3, 1), (2, 2)):
        white.append((col + dc, row + dr))
    if taken_by_black:
        black.append((col + 2, row + 1))
    else:
        white.append((col + 1, row + 1))
    return (col + 2, row + 1), (col + 1, row + 1)


def test_positional_superko_stops_a_triple_ko_cycle():
    black, white = [], []
    ko1 = ko_shape(black, white, 0, 0, False)
    ko2 = ko_shape(black, white, 5, 0, True)
    ko3 = ko_shape(black, white, 0, 4, False)
    game = GameState(9)
    game.root.add_setup(black=[game.point(*p) for p in black],
                        white=[game.point(*p) for p in white])
    start_hash = game.board.hash
    cycle = [(BLACK, ko1[0]), (WHITE, ko2[1]), (BLACK, ko3[0]),
             (WHITE, ko1[1]), (BLACK, ko2[0])]
    for color, point in cycle:
        node = game.play(color, game.point(*point))
        assert node.board.hash != start_hash
        assert sum(node.captures) == node.number  # every move took a stone
    # none was an immediate retake, so simple ko allows them all; the sixth
    # would recreate the starting position
    last = game.point(*ko3[1])
    assert game.board.illegal_reason(last, WHITE) == "superko"
    with pytest.raises(IllegalMoveError):
        game.play(WHITE, last)


def test_superko_history_blocks_any_earlier_position():
    b = GameBoard(3)
    b.play(v(b, "B2"), BLACK)
    start = b.copy()
    b.play(v(b, "A1"), WHITE)
    b.play(v(b, "B1"), BLACK)  # captures nothing yet (A1 has A2)
    b.play(v(b, "A2"), BLACK)  # captures A1
    assert b[v(b, "A1")] == EMPTY
    assert start.hash in b.history


def test_random_move_never_fills_own_eye_and_is_legal():
    import random
    rng = random.Random(5)
    b = board_from("""
        . X . X .
        X X X X X
        . . . . .
        . . . . .
        . . . . .""")
    for _ in range(200):
        p = b.random_move(BLACK, rng)
        assert p not in (v(b, "A5"), v(b, "C5"), v(b, "E5"))
        assert b.illegal_reason(p, BLACK) is None


def test_board_sizes_range():
    for size in (2, 3, 9, 13, 19, 25):
        b = GameBoard(size)
        assert len(b.empties) == size * size
    for bad in (0, 1, 26):
        with pytest.raises(ValueError):
            GameBoard(bad)
