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
                 captures: Optional[tuple[int, int]] = None, margin: int = 3) -> str:
    """The board with GTP coordinates on all sides. ``X`` is Black, ``O``
    White, ``+`` a star point; the last move is drawn in parentheses;
    captures, when given, are shown beside the top rows. Row numbers take
    ``margin`` columns on the left (2 or 3), and a space always parts them
    from the board, so parentheses on an edge stone never touch them."""
    size = board.size
    letters = " ".join(GTP_COLUMNS[:size])
    stars = star_points(size)
    indent = " " * (margin + 2)
    lines = [f"{indent}{letters}"]
    last = board.colrow(last_move) if last_move is not None else None
    for row, colours in enumerate(board.rows()):
        number = size - row
        cells = []
        for col, c in enumerate(colours):
            ch = STONE_CHARS[c]
            if c == EMPTY and (col, row) in stars:
                ch = "+"
            cells.append(ch)
        # gaps[c] is the space left of column c; the last move's parentheses
        # take the places of the spaces beside it, so columns stay aligned
        gaps = [" "] * (size + 1)
        if last is not None and last[1] == row:
            gaps[last[0]], gaps[last[0] + 1] = "(", ")"
        text = "".join(gap + cell for gap, cell in zip(gaps, cells)) + gaps[size]
        line = f"{number:>{margin}} {text} {number}"
        if captures is not None and row == 0:
            line += f"    Black (X) has captured {plural(captures[0], 'stone')}"
        if captures is not None and row == 1:
            line += f"    White (O) has captured {plural(captures[1], 'stone')}"
        lines.append(line)
    lines.append(f"{indent}{letters}")
    return "\n".join(lines)
