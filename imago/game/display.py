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


def plural(count: int, word: str) -> str:
    """``1 stone``, ``2 stones``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


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
        # each cell is drawn as " X"; the last move replaces its own space
        # and the next cell's space with parentheses: "(X)"
        text = ""
        for col, c in enumerate(colours):
            ch = STONE_CHARS[c]
            if c == EMPTY and (col, row) in stars:
                ch = "+"
            if board.index(col, row) == last_move:
                text += "(" + ch + ")"
            elif text.endswith(")"):
                text += ch
            else:
                text += " " + ch
        line = f"{number:>3}{text}"
        line = line.ljust(4 + 2 * size) + f" {number}"
        if captures is not None and row == 0:
            line += f"    Black (X) has captured {plural(captures[0], 'stone')}"
        if captures is not None and row == 1:
            line += f"    White (O) has captured {plural(captures[1], 'stone')}"
        lines.append(line)
    lines.append(f"    {letters}")
    return "\n".join(lines)
