"""Input planes for the networks, from a game-tree node (numpy only).

A *plane set* is chosen by name and stored with each model, so a model and
the features it was trained on never drift apart:

- ``basic`` (2 planes): own stones, opponent stones;
- ``history`` (18 planes): own stones at t, t-1, ..., t-7 (planes 0-7),
  opponent stones at t, ..., t-7 (planes 8-15), a black-to-move plane and a
  white-to-move plane (16, 17) — the AlphaGo Zero input;
- ``extended`` (26 planes): ``history``, then own stones with 1, 2 and >= 3
  liberties, opponent stones with 1, 2 and >= 3 liberties (18-23), the ko
  point the side to move may not retake (24), and an all-ones plane (25);
- ``komi`` (27 planes): ``extended``, then the komi from the side to move's
  view (what it receives: ``+komi`` for White, ``-komi`` for Black) divided
  by :data:`KOMI_SCALE` on every point (26), so one network judges any komi
  and handicap. It is the only plane that is not 0/1, and it is last, so
  stores keep the 0/1 planes packed and add it back from the komi and the
  colour (:func:`komi_plane_value`).

"Own" means the side to move. Layout is NHWC ``(batch, size, size, planes)``,
float32, row 0 at the top (the board's row 0). Move targets are flat indexes
``row * size + col``; ``size * size`` is the pass.

A position's komi is read from ``node.komi`` (search leaves carry their
game's; :data:`DEFAULT_KOMI` for nodes without one) unless given.

Speed: on-board cells are picked out of ``bytes(board.cells)`` with one
precomputed index array per board size, and the history positions of one
node are compared in one numpy operation.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterable, Optional, Sequence

import numpy as np

from imago.game import BLACK, WHITE, GameBoard, GameMove
from imago.game.coords import move_to_point, point_to_move

PLANE_SETS: dict[str, int] = {"basic": 2, "history": 18, "extended": 26, "komi": 27}
"""Plane-set name -> number of planes."""

BINARY_PLANES: dict[str, int] = {"basic": 2, "history": 18, "extended": 26, "komi": 26}
"""Plane-set name -> number of its leading planes that are 0/1 (the rest, if
any, is the komi plane)."""

KOMI_SCALE = 20.0
"""The komi plane holds the mover's komi divided by this."""

SCORE_SCALE = 20.0
"""A score head answers, and learns, the lead in points divided by this."""

DEFAULT_KOMI = 7.5
"""Komi for a position that does not say (a game-tree node outside a search)."""


def komi_plane_value(komi, color):
    """The komi plane's value for ``color`` to move in a game of ``komi``
    (numbers or numpy arrays): White receives the komi, Black gives it."""
    sign = np.where(np.asarray(color) == WHITE, 1.0, -1.0)
    return (sign * np.asarray(komi, dtype=np.float32) / KOMI_SCALE).astype(np.float32)

HISTORY = 8
"""Positions of history in the ``history`` and ``extended`` sets."""


def num_planes(plane_set: str) -> int:
    """Planes of a plane set; ValueError naming the known sets otherwise."""
    try:
        return PLANE_SETS[plane_set]
    except KeyError:
        raise ValueError(f"unknown plane set {plane_set!r}; choose from "
                         f"{', '.join(PLANE_SETS)}") from None


@lru_cache(maxsize=None)
def board_index(size: int) -> np.ndarray:
    """Internal indexes of the on-board points, row by row from the top-left
    (so ``cells[board_index(size)]`` is the board in row-major order)."""
    stride = size + 2
    rows = np.arange(1, size + 1)[:, None] * stride
    cols = np.arange(1, size + 1)[None, :]
    return (rows + cols).reshape(-1).astype(np.intp)


def ownership_cells(board: GameBoard, ownership, color: int) -> list[float]:
    """``ownership`` (one value per point, row-major from the top-left, +1
    for ``color``) as one value per cell of the board's array, +1 for
    Black and 0 off the board: the form the count and GTP take."""
    cells = np.zeros(len(board.cells))
    sign = 1.0 if color == BLACK else -1.0
    cells[board_index(board.size)] = sign * np.asarray(ownership, dtype=np.float64)
    return cells.tolist()


def board_array(board: GameBoard) -> np.ndarray:
    """The on-board colours as a flat uint8 array (row-major, top-left first)."""
    raw = np.frombuffer(bytes(board.cells), dtype=np.uint8)
    return raw[board_index(board.size)]


def _history_cells(node: GameMove, size: int) -> np.ndarray:
    """``(HISTORY, size*size)`` colours of the node and its 7 ancestors
    (missing positions before the root are empty). A search leaf brings
    its earlier positions' cells as ``recent`` (newest first); a game-tree
    node has them on its ancestors."""
    recent = getattr(node, "recent", None)
    if recent is not None:
        boards = [bytes(node.board.cells), *recent[:HISTORY - 1]]
    else:
        boards = []
        n: Optional[GameMove] = node
        while n is not None and len(boards) < HISTORY:
            boards.append(bytes(n.board.cells))
            n = n.parent
    raw = np.frombuffer(b"".join(boards), dtype=np.uint8)
    raw = raw.reshape(len(boards), -1)[:, board_index(size)]
    if len(boards) < HISTORY:
        pad = np.zeros((HISTORY - len(boards), size * size), dtype=np.uint8)
        raw = np.concatenate([raw, pad])
    return raw


def _liberty_counts(board: GameBoard, cells: np.ndarray) -> np.ndarray:
    """Liberties of the string of each on-board stone (0 on empty points);
    ``cells`` is :func:`board_array` of the board."""
    libs, root = board.libs, board.root
    out = np.zeros(len(cells), dtype=np.uint8)
    where = np.flatnonzero(cells)
    if len(where):
        points = board_index(board.size)[where].tolist()
        out[where] = [min(len(libs[root[p]]), 255) for p in points]
    return out


def with_komi_plane(planes: np.ndarray, komi, color) -> np.ndarray:
    """``(n, size, size, p)`` 0/1 planes with the komi plane appended
    (float32), from each position's ``komi`` and ``color`` to move: how
    stores that keep the 0/1 planes packed give back a ``komi`` input."""
    value = komi_plane_value(komi, color).reshape(-1, 1, 1, 1)
    n, size = planes.shape[0], planes.shape[1]
    return np.concatenate([planes.astype(np.float32),
                           np.broadcast_to(value, (n, size, size, 1))], axis=3)


def encode_into(out: np.ndarray, node: GameMove, plane_set: str = "history",
                color: Optional[int] = None, komi: Optional[float] = None) -> None:
    """Write the planes of the position at ``node`` with ``color`` to move
    (default: ``node.to_move``) into ``out``, a ``(size, size, planes)``
    array of any numeric dtype (zeroed by the caller where needed; the komi
    plane needs a float dtype, or an ``out`` of the 0/1 planes only, which
    leaves it out). ``komi`` defaults to ``node.komi`` (see the module
    docstring)."""
    board = node.board
    size = board.size
    color = node.to_move if color is None else color
    opp = 3 - color
    flat = out.reshape(size * size, -1)
    if plane_set == "basic":
        cells = board_array(board)
        flat[:, 0] = cells == color
        flat[:, 1] = cells == opp
        return
    if plane_set not in PLANE_SETS:
        num_planes(plane_set)
    hist = _history_cells(node, size)
    flat[:, 0:HISTORY] = (hist == color).T
    flat[:, HISTORY:2 * HISTORY] = (hist == opp).T
    flat[:, 16] = color == BLACK
    flat[:, 17] = color == WHITE
    if plane_set == "history":
        return
    cells = hist[0]
    libs = _liberty_counts(board, cells)
    for i, who in enumerate((color, opp)):
        mine = cells == who
        flat[:, 18 + 3 * i] = mine & (libs == 1)
        flat[:, 19 + 3 * i] = mine & (libs == 2)
        flat[:, 20 + 3 * i] = mine & (libs >= 3)
    flat[:, 24] = 0
    if board.ko_point and board.ko_color == color:
        flat[point_to_move(board.ko_point, size), 24] = 1
    flat[:, 25] = 1
    if plane_set == "komi" and flat.shape[1] > 26:
        if komi is None:
            komi = getattr(node, "komi", DEFAULT_KOMI)
        flat[:, 26] = komi_plane_value(komi, color)


def encode(node: GameMove, plane_set: str = "history",
           color: Optional[int] = None, dtype=np.float32) -> np.ndarray:
    """The ``(size, size, planes)`` planes of the position at ``node``."""
    size = node.board.size
    out = np.empty((size, size, num_planes(plane_set)), dtype=dtype)
    encode_into(out, node, plane_set, color)
    return out


def encode_batch(nodes: Sequence[GameMove], plane_set: str = "history",
                 colors: Optional[Sequence[Optional[int]]] = None,
                 dtype=np.float32) -> np.ndarray:
    """Planes of several positions of one board size, ``(n, size, size, planes)``."""
    if not nodes:
        raise ValueError("encode_batch needs at least one position")
    size = nodes[0].board.size
    out = np.empty((len(nodes), size, size, num_planes(plane_set)), dtype=dtype)
    for i, node in enumerate(nodes):
        encode_into(out[i], node, plane_set, None if colors is None else colors[i])
    return out


def legal_mask(board: GameBoard, color: int, include_pass: bool = True) -> np.ndarray:
    """Boolean ``(size*size + 1,)`` mask of the legal moves (last: pass)."""
    size = board.size
    mask = np.zeros(size * size + 1, dtype=bool)
    for p in board.legal_moves(color):
        mask[point_to_move(p, size)] = True
    mask[size * size] = include_pass
    return mask


# ---------------------------------------------------------------- symmetries
@lru_cache(maxsize=None)
def symmetry_tables(size: int) -> tuple[np.ndarray, np.ndarray]:
    """For the 8 board symmetries: ``gather`` ``(8, size*size)`` such that
    a transformed flat board is ``board[gather[k]]``, and ``moves`` ``(8,
    size*size + 1)`` mapping a flat move index (pass included) to its image.

    Symmetry k is ``k % 4`` quarter turns (``np.rot90``) then, for k >= 4,
    a left-right flip.
    """
    grid = np.arange(size * size).reshape(size, size)
    gather = np.empty((8, size * size), dtype=np.intp)
    moves = np.empty((8, size * size + 1), dtype=np.intp)
    for k in range(8):
        g = np.rot90(grid, k % 4)
        if k >= 4:
            g = g[:, ::-1]
        gather[k] = g.reshape(-1)
        moves[k, :-1] = np.argsort(gather[k])
        moves[k, -1] = size * size
    return gather, moves


def apply_symmetry(planes: np.ndarray, k: int) -> np.ndarray:
    """Symmetry ``k`` of ``(..., size, size, planes)`` arrays (a view)."""
    axes = (planes.ndim - 3, planes.ndim - 2)
    out = np.rot90(planes, k % 4, axes=axes)
    if k >= 4:
        out = np.flip(out, axis=axes[1])
    return out


def transform_move(move: int, k: int, size: int) -> int:
    """The image of flat move index ``move`` under symmetry ``k``."""
    return int(symmetry_tables(size)[1][k, move])


def augment_batch(planes: np.ndarray, moves: np.ndarray,
                  ownership: Optional[np.ndarray], syms: Iterable[int]
                  ) -> tuple[np.ndarray, np.ndarray, Optional[np.ndarray]]:
    """Apply symmetry ``syms[i]`` to sample i of a batch: planes ``(n, s, s,
    p)``, move indexes ``(n,)`` and ownership ``(n, s*s)`` (or None).
    Returns new arrays."""
    n, size = planes.shape[0], planes.shape[1]
    syms = np.asarray(list(syms) if not isinstance(syms, np.ndarray) else syms)
    gather, move_map = symmetry_tables(size)
    flat = planes.reshape(n, size * size, -1)
    idx = gather[syms]                                    # (n, s*s)
    new_planes = np.take_along_axis(flat, idx[:, :, None], axis=1).reshape(planes.shape)
    new_moves = move_map[syms, moves]
    new_own = None
    if ownership is not None:
        new_own = np.take_along_axis(ownership, idx, axis=1)
    return new_planes, new_moves, new_own


__all__ = [
    "PLANE_SETS", "BINARY_PLANES", "KOMI_SCALE", "SCORE_SCALE", "DEFAULT_KOMI",
    "komi_plane_value", "with_komi_plane", "HISTORY", "num_planes", "board_index",
    "point_to_move",
    "move_to_point", "board_array", "ownership_cells", "encode", "encode_into", "encode_batch",
    "legal_mask", "symmetry_tables", "apply_symmetry", "transform_move",
    "augment_batch",
]
