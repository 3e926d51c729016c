"""ASCII drawing of a board, for GTP ``showboard`` and terminal play."""

from __future__ import annotations

from typing import Optional

from .board import GameBoard
from .constants import BLACK, EMPTY, WHITE
from .coords import GTP_COLUMNS
from .handicap import max_fixed_handicap, fixed_handicap_points

STONE_CHARS = {EMPTY: ".", BLACK: "X", WHITE: "O"}


def star_points(size: int) -> set[tuple[int, int]]:
    """Hoshi drawn as ``+`` on empty points."""
    limit = max_fixed_handicap(size)
    return set(fixed_handicap_points(size, limit)) if limit else set()


def format_board(board: GameBoard, last_move: Optional[int] = None,
                 captures: Optional[tuple[int, int]] = None) -> str:
    """The board with GTP coordinates on all sides. ``X`` is Black, ``O``
    White; the last move is drawn in parentheses; captures, when given,
    are shown beside the top rows."""
    size = board.size
    letters = " ".join(GTP_COLUMNS[:size])
    stars = star_points(size)
    lines = [f"    {letters}"]
    for row, colours in enumerate(board.rows()):
        number = size - row
        cells = []
        for col, c in enumerate(colours):
            ch = STONE_CHARS[c]
            if c == EMPTY and (col, row) in stars:
                ch = "+"
            cells.append(ch)
        text = ""
        for col, ch in enumerate(cells):
            point = board.index(col, row)
            if point == last_move:
                text = text[:-1] + "(" + ch + ")"
            else:
                text += ch + " "
        line = f"{number:>3} {text.rstrip(' ')}"
        line = line.ljust(4 + 2 * size) + f" {number}"
        if captures is not None and row == 0:
            line += f"    Black (X) has captured {captures[0]} stones"
        if captures is not None and row == 1:
            line += f"    White (O) has captured {captures[1]} stones"
        lines.append(line)
    lines.append(f"    {letters}")
    return "\n".join(lines)
