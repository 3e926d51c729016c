"""Coordinates: GTP vertices, SGF points and the board's internal indexes.

A point is named three ways:

- ``(col, row)``: col 0 is the left edge (GTP column A), row 0 the *top* edge
  (SGF row ``a``; GTP row ``size``);
- an internal index into the mailbox-padded array of a board of that size:
  ``(row + 1) * (size + 2) + col + 1``;
- a GTP vertex (``D4``; column letters skip ``I``) or an SGF point (``dd``).

A move is also numbered as the networks and the search's policy vectors
number it: ``row * size + col``, with ``size * size`` for the pass.
``None`` stands for a pass everywhere else.
"""

from __future__ import annotations

from typing import Optional

MAX_SIZE = 25
GTP_COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"
SGF_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

ColRow = tuple[int, int]


def to_index(col: int, row: int, size: int) -> int:
    """Internal index of ``(col, row)`` on a board of ``size``."""
    return (row + 1) * (size + 2) + col + 1


def from_index(index: int, size: int) -> ColRow:
    """``(col, row)`` of an internal index."""
    row, col = divmod(index, size + 2)
    return col - 1, row - 1


def parse_vertex(text: str, size: int) -> Optional[ColRow]:
    """Read a GTP vertex (``D4``, ``d4``, ``pass``) as ``(col, row)``.

    Returns None for a pass. Raises ValueError naming what is wrong.
    """
    word = text.strip()
    if word.lower() == "pass":
        return None
    if len(word) < 2:
        raise ValueError(f"invalid vertex: {text!r}")
    letter = word[0].upper()
    col = GTP_COLUMNS.find(letter)
    if col < 0:
        raise ValueError(f"invalid vertex: {text!r}")
    number = word[1:]
    if not number.isdigit():
        raise ValueError(f"invalid vertex: {text!r}")
    gtp_row = int(number)
    if col >= size or not 1 <= gtp_row <= size:
        raise ValueError(f"vertex off the board: {text!r}")
    return col, size - gtp_row


def format_vertex(point: Optional[ColRow], size: int) -> str:
    """GTP vertex of ``(col, row)``; ``pass`` for None."""
    if point is None:
        return "pass"
    col, row = point
    return f"{GTP_COLUMNS[col]}{size - row}"


def parse_sgf_point(text: str, size: int) -> Optional[ColRow]:
    """Read an SGF point (``dd``); ``''`` and, up to 19x19, ``tt`` are passes.

    Raises ValueError when the point is malformed or off the board.
    """
    if text == "" or (text == "tt" and size <= 19):
        return None
    if len(text) != 2:
        raise ValueError(f"invalid SGF point: {text!r}")
    col = SGF_LETTERS.find(text[0])
    row = SGF_LETTERS.find(text[1])
    if col < 0 or row < 0:
        raise ValueError(f"invalid SGF point: {text!r}")
    if col >= size or row >= size:
        raise ValueError(f"SGF point off the {size}x{size} board: {text!r}")
    return col, row


def format_sgf_point(point: Optional[ColRow]) -> str:
    """SGF point of ``(col, row)``; ``''`` for a pass."""
    if point is None:
        return ""
    col, row = point
    return SGF_LETTERS[col] + SGF_LETTERS[row]


def vertex_to_index(text: str, size: int) -> Optional[int]:
    """GTP vertex straight to an internal index (None for pass)."""
    point = parse_vertex(text, size)
    return None if point is None else to_index(point[0], point[1], size)


def index_to_vertex(index: Optional[int], size: int) -> str:
    """Internal index straight to a GTP vertex (``pass`` for None)."""
    return "pass" if index is None else format_vertex(from_index(index, size), size)


def point_to_move(point: Optional[int], size: int) -> int:
    """Move number of an internal index (``row * size + col``; ``size *
    size`` for the pass, None): the index of a policy vector."""
    if point is None:
        return size * size
    row, col = divmod(point, size + 2)
    return (row - 1) * size + col - 1


def move_to_point(move: int, size: int) -> Optional[int]:
    """Internal index of a move number (None for the pass, ``size * size``)."""
    if move == size * size:
        return None
    row, col = divmod(int(move), size)
    return (row + 1) * (size + 2) + col + 1
