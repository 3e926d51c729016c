"""Cheap tactical facts the search asks of a board: whether a
finished-looking position has anything left to play for (dame, strings in
atari, dead stones to capture), and the moves that only give stones away
(:func:`~imago.game.seki.losing_self_atari`, kept with seki in the game
package because the count needs it too).
"""

from __future__ import annotations

from typing import Iterable, Optional

from imago.game.constants import BLACK, EMPTY, WHITE
from imago.game.seki import losing_self_atari


def alive_in_atari(board, dead: Iterable[int] = ()) -> bool:
    """Whether a string not counted dead has a single liberty."""
    dead = set(dead)
    libs = board.libs
    return any(len(lib) == 1 and r not in dead for r, lib in libs.items())


def fillable_dame(board, color: int, dead: Iterable[int] = ()) -> int:
    """How many empty points no colour surrounds (``dead`` stones removed)
    ``color`` may fill: legal, and no losing self-atari (a seki's shared
    liberty is not one). By area each is a point to whoever fills it."""
    return len(fillable_dame_points(board, color, dead))


def fillable_dame_points(board, color: int, dead: Iterable[int] = ()) -> list[int]:
    """The points :func:`fillable_dame` counts."""
    from imago.game.scoring import area_owners

    owners = area_owners(board, set(dead))
    return [p for p in board.on_board()
            if owners[p] == EMPTY and board.cells[p] == EMPTY
            and board.illegal_reason(p, color) is None
            and not losing_self_atari(board, p, color)]


def open_points(board, dead: Iterable[int] = ()) -> Optional[int]:
    """The empty points no colour surrounds (``dead`` stones removed) when
    every one of them is dame -- a point touching stones of both colours,
    as between two closed walls or around a seki; None while a border is
    still open (such a point touches one colour only, or none)."""
    from imago.game.scoring import area_owners

    dead = set(dead)
    cells = board.cells
    s = board.stride
    owners = area_owners(board, dead)
    dame = 0
    for p in board.on_board():
        if owners[p] != EMPTY:
            continue
        touched = 0
        for m in (p - 1, p + 1, p - s, p + s):
            c = cells[m]
            if (c == BLACK or c == WHITE) and m not in dead:
                touched |= c
        if touched != BLACK | WHITE:
            return None
        dame += 1
    return dame


def capturing_move(board, color: int, dead: Iterable[int]) -> Optional[int]:
    """A move of ``color`` that takes a liberty from one of the opponent's
    ``dead`` strings (a count's dead stones; ``color``'s own among them
    are ignored), those with the fewest liberties first, so that played
    again and again it captures them all: legal and no losing self-atari.
    None when no such move is left (nothing dead of the opponent's, or no
    playable liberty). Under
    rules that count every stone standing at the end alive (Tromp-Taylor),
    this is the clean-up before passing."""
    cells, rival = board.cells, 3 - color
    targets, seen = [], set()
    for p in sorted(dead):
        if cells[p] == rival and p not in seen:
            seen.update(board.string_stones(p))
            targets.append(sorted(board.liberties(p)))
    for liberties in sorted(targets, key=len):
        for point in liberties:
            if board.is_legal(point, color) and not losing_self_atari(board, point, color):
                return point
    return None


__all__ = ["alive_in_atari", "capturing_move", "fillable_dame", "fillable_dame_points",
           "open_points"]
