"""Reading game records for training: a thin adapter over :mod:`imago.sgf`.

:func:`load_games` is the only place training reads SGF; errors are
:class:`imago.sgf.SGFError` values naming the file, line and column.
"""

from __future__ import annotations

from pathlib import Path

from imago.game import GameState, to_index
from imago.sgf import load
from imago.sgf.nodes import expand_point_list


def load_games(path: str | Path) -> list[GameState]:
    """The games of one SGF file."""
    return list(load(str(path)))


def point_list(values: list[str], size: int) -> list[int]:
    """Internal indexes of SGF point values (compressed lists allowed)."""
    return [to_index(col, row, size) for col, row in expand_point_list(values, size)]


__all__ = ["load_games", "point_list"]
