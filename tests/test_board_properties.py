"""Property tests over random games: the incremental board state always
equals a recomputation from scratch, and undo restores the exact board."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from imago.game import BLACK, EDGE, EMPTY, WHITE, GameBoard, GameState
from imago.game.board import zobrist_keys as zobrist_keys_for_test


def recompute(board: GameBoard):
    """Strings (as frozensets), their liberties and the hash, from cells alone."""
    cells, s = board.cells, board.stride
    seen, strings, h = set(), {}, 0
    keys = zobrist_keys_for_test(board.size)
    for p in board.on_board():
        c = cells[p]
        if c == EMPTY:
            continue
        h ^= keys[c][p]
        if p in seen:
            continue
        stones, libs, stack = set(), set(), [p]
        while stack:
            q = stack.pop()
            if q in stones:
                continue
            stones.add(q)
            for m in (q - 1, q + 1, q - s, q + s):
                if cells[m] == EMPTY:
                    libs.add(m)
                elif cells[m] == c and m not in stones:
                    stack.append(m)
        seen |= stones
        strings[frozenset(stones)] = libs
    return strings, h


def check_consistent(board: GameBoard) -> None:
    strings, h = recompute(board)
    assert board.hash == h
    for stones, libs in strings.items():
        roots = {board.root[p] for p in stones}
        assert len(roots) == 1, "one root per string"
        r = roots.pop()
        assert set(board.string_stones(r)) == stones, "circular next list covers the string"
        assert board.count[r] == len(stones)
        assert board.libs[r] == libs, "incremental liberties equal recomputed ones"
        assert board.string_hash[r] == h_of(board, stones)
    empties = {p for p in board.on_board() if board.cells[p] == EMPTY}
    assert set(board.empties) == empties and len(board.empties) == len(empties)
    assert all(board.empties[board.empty_pos[p]] == p for p in empties)
    assert board.hash in board.history


def h_of(board, stones):
    keys = zobrist_keys_for_test(board.size)
    x = 0
    for p in stones:
        x ^= keys[board.cells[p]][p]
    return x


@settings(max_examples=100, deadline=None)
@given(size=st.sampled_from([2, 3, 4, 5, 7, 9, 13]), seed=st.integers(0, 2**32 - 1),
       moves=st.integers(1, 250))
def test_random_games_keep_strings_liberties_and_hash_exact(size, seed, moves):
    rng = random.Random(seed)
    board = GameBoard(size)
    color = BLACK
    for _ in range(moves):
        # sometimes try a uniformly random point (any legality), else a playout move
        if rng.random() < 0.3:
            p = rng.choice(list(board.on_board()))
            reason = board.illegal_reason(p, color)
            before = board.hash
            if reason is None:
                board.play(p, color)
            else:
                assert board.hash == before
        else:
            p = board.random_move(color, rng)
            if p is None:
                # only a pass when every legal move would fill an own eye
                assert all(board.is_eye(q, color) for q in board.legal_moves(color))
            board.play(p, color)
        check_consistent(board)
        color = WHITE if color == BLACK else BLACK


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), moves=st.integers(1, 120))
def test_undo_restores_the_exact_board_and_hash(seed, moves):
    rng = random.Random(seed)
    game = GameState(7)
    snapshots = []
    color = BLACK
    for _ in range(moves):
        board = game.board
        snapshots.append((board.cells[:], board.hash, set(board.history), game.current.captures))
        game.play(color, board.random_move(color, rng))
        color = 3 - color
    while snapshots:
        cells, h, history, captures = snapshots.pop()
        game.undo()
        assert game.board.cells == cells
        assert game.board.hash == h
        assert game.board.history == history
        assert game.current.captures == captures
    assert game.current is game.root and not game.root.children


def test_illegal_move_leaves_the_game_unchanged():
    game = GameState(3)
    game.play(BLACK, game.point(1, 1))
    node = game.current
    try:
        game.play(WHITE, game.point(1, 1))
    except ValueError as err:
        assert str(err) == "occupied"
    assert game.current is node and len(node.children) == 0


def test_edge_ring_is_never_written():
    rng = random.Random(3)
    board = GameBoard(5)
    color = BLACK
    for _ in range(300):
        board.play(board.random_move(color, rng), color)
        color = 3 - color
    ring = [p for p in board.points() if p not in set(board.on_board())]
    assert all(board.cells[p] == EDGE for p in ring)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), size=st.sampled_from([3, 5, 9]),
       split=st.integers(0, 60), after=st.integers(1, 60))
def test_copies_share_nothing_observable(seed, size, split, after):
    """Liberty sets are shared copy-on-write: playing on a copy, or on the
    original after copying, never changes the other board."""
    rng = random.Random(seed)
    board = GameBoard(size)
    color = BLACK
    for _ in range(split):
        board.play(board.random_move(color, rng), color)
        color = 3 - color
    copy = board.copy()
    frozen = {r: set(s) for r, s in board.libs.items()}
    cells = board.cells[:]
    for _ in range(after):  # play on the copy
        copy.play(copy.random_move(color, rng), color)
        color = 3 - color
    assert board.libs == frozen and board.cells == cells
    check_consistent(board)
    check_consistent(copy)
    frozen_copy = {r: set(s) for r, s in copy.libs.items()}
    for _ in range(after):  # and now on the original
        board.play(board.random_move(color, rng), color)
        color = 3 - color
    assert copy.libs == frozen_copy
    check_consistent(board)
    check_consistent(copy)
