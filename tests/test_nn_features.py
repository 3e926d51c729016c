"""Input planes: contents on hand-built positions, history order, liberty
and ko planes, symmetries (numpy only, no TensorFlow)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from imago.game import BLACK, WHITE, GameState
from imago.nn import features as F


def play(state: GameState, moves: list[tuple[int, int, int] | tuple[int, None]]) -> None:
    for move in moves:
        color, *cr = move
        point = None if cr[0] is None else state.point(cr[0], cr[1])
        state.play(color, point)


def test_import_features_does_not_import_tensorflow():
    code = ("import sys, imago.nn, imago.nn.features, imago.training.data; "
            "print('tensorflow' in sys.modules or 'keras' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_basic_planes_are_from_the_side_to_move():
    state = GameState(9)
    play(state, [(BLACK, 2, 3), (WHITE, 4, 0)])  # black C6 (row 3), white E9 (row 0)
    planes = F.encode(state.current, "basic")
    assert planes.shape == (9, 9, 2) and planes.dtype == np.float32
    # Black to move: own = black stones
    assert planes[3, 2, 0] == 1 and planes[0, 4, 1] == 1
    assert planes.sum() == 2
    as_white = F.encode(state.current, "basic", color=WHITE)
    assert as_white[0, 4, 0] == 1 and as_white[3, 2, 1] == 1


def test_history_order_and_colour_planes():
    state = GameState(9)
    play(state, [(BLACK, 0, 0), (WHITE, 8, 8), (BLACK, 4, 4)])
    planes = F.encode(state.current, "history")  # White to move
    assert planes.shape == (9, 9, 18)
    own, opp = planes[..., 0:8], planes[..., 8:16]
    # t: white own stone at (8,8); black stones (0,0) and (4,4)
    assert own[8, 8, 0] == 1 and opp[0, 0, 0] == 1 and opp[4, 4, 0] == 1
    # t-1: (4,4) not yet played
    assert opp[4, 4, 1] == 0 and opp[0, 0, 1] == 1 and own[8, 8, 1] == 1
    # t-2: only black (0,0)
    assert own[..., 2].sum() == 0 and opp[0, 0, 2] == 1 and opp[..., 2].sum() == 1
    # t-3 is the empty root; t-4.. do not exist: zeros
    assert planes[..., 3:8].sum() == 0 and planes[..., 11:16].sum() == 0
    assert (planes[..., 16] == 0).all() and (planes[..., 17] == 1).all()
    black_view = F.encode(state.current.parent, "history")
    assert (black_view[..., 16] == 1).all() and (black_view[..., 17] == 0).all()


def test_extended_liberty_ko_and_ones_planes():
    state = GameState(9)
    # a ko in the top-left corner: black B9 A8 C8 B7, white C9 D8 C7... build it
    play(state, [(BLACK, 1, 0), (WHITE, 2, 0), (BLACK, 0, 1), (WHITE, 3, 1),
                 (BLACK, 1, 2), (WHITE, 2, 2), (BLACK, 2, 1)])
    # black C8 (2,1) now has liberties? white plays B8 (1,1) capturing C8: ko
    play(state, [(WHITE, 1, 1)])
    board = state.board
    assert board.ko_point == state.point(2, 1) and board.ko_color == BLACK
    planes = F.encode(state.current, "extended")  # Black to move
    assert planes.shape == (9, 9, 26)
    assert planes[1, 2, 24] == 1 and planes[..., 24].sum() == 1
    assert (planes[..., 25] == 1).all()
    # white B8 (1,1) has one liberty (C8, the ko point): opponent 1-liberty plane
    assert planes[1, 1, 21] == 1
    # black B9 (1,0): liberty A9 only -> own 1 liberty
    assert planes[0, 1, 18] == 1
    for r in range(9):
        for c in range(9):
            p = state.point(c, r)
            if board.cells[p] in (BLACK, WHITE):
                n = len(board.libs[board.root[p]])
                k = min(n, 3) - 1
                base = 18 if board.cells[p] == BLACK else 21
                assert planes[r, c, base + k] == 1
                assert planes[r, c, 18:24].sum() == 1
            else:
                assert planes[r, c, 18:24].sum() == 0
    # White to move next time: no ko plane for White
    assert F.encode(state.current, "extended", color=WHITE)[..., 24].sum() == 0


def test_move_index_round_trip():
    for size in (9, 13):
        for point in [None, F.move_to_point(0, size), F.move_to_point(size * size - 1, size)]:
            assert F.move_to_point(F.point_to_move(point, size), size) == point
    assert F.point_to_move(GameState(9).point(3, 2), 9) == 2 * 9 + 3


@pytest.mark.parametrize("k", range(8))
def test_symmetries_map_moves_like_planes(k):
    size = 9
    rng = np.random.default_rng(k)
    planes = rng.integers(0, 2, (3, size, size, 4)).astype(np.uint8)
    moves = np.array([5, 80, 81])
    owner = rng.integers(-1, 2, (3, size * size)).astype(np.int8)
    # mark each move's point on an extra plane and check it follows the move
    marked = np.zeros((3, size, size, 1), np.uint8)
    for i, m in enumerate(moves[:2]):
        marked[i, m // size, m % size, 0] = 1
    both = np.concatenate([planes, marked], axis=3)
    new_planes, new_moves, new_own = F.augment_batch(both, moves, owner, [k, k, k])
    ref = F.apply_symmetry(both, k)
    assert np.array_equal(new_planes, ref)
    for i in range(2):
        r, c = divmod(int(new_moves[i]), size)
        assert new_planes[i, r, c, -1] == 1
        assert new_moves[i] == F.transform_move(int(moves[i]), k, size)
    assert new_moves[2] == size * size  # pass stays a pass
    assert np.array_equal(new_own.reshape(3, size, size),
                          F.apply_symmetry(owner.reshape(3, size, size, 1), k)[..., 0])


def test_symmetries_are_distinct_permutations():
    gather, moves = F.symmetry_tables(9)
    assert len({tuple(g) for g in gather}) == 8
    for k in range(8):
        assert sorted(moves[k]) == list(range(82))


def test_legal_mask_excludes_occupied_and_suicide():
    state = GameState(9)
    play(state, [(BLACK, 1, 0), (WHITE, 5, 5), (BLACK, 0, 1)])
    mask = F.legal_mask(state.board, WHITE)
    assert mask.shape == (82,) and mask[81]
    assert not mask[1] and not mask[9]       # occupied
    assert not mask[0]                       # A9 is suicide for White
    assert mask[2] and mask.sum() == 82 - 3 - 1


def test_ownership_cells_turn_a_row_major_row_into_black_cells():
    from imago.game import BLACK, WHITE, GameBoard, vertex_to_index
    from imago.nn.features import ownership_cells

    board = GameBoard(3)
    row = [0.0] * 9
    row[0], row[8] = 0.5, -1.0  # A3 (top-left) and C1 (bottom-right), for the side named
    black = ownership_cells(board, row, BLACK)
    white = ownership_cells(board, row, WHITE)
    assert len(black) == len(board.cells) and sum(v != 0 for v in black) == 2
    assert black[vertex_to_index("A3", 3)] == 0.5 and black[vertex_to_index("C1", 3)] == -1.0
    assert white[vertex_to_index("A3", 3)] == -0.5 and white[vertex_to_index("C1", 3)] == 1.0
