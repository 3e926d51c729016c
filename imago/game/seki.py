"""Seki and stones given away, read off the board alone: the moves that
only lose stones (a seki's shared liberties among them) and the strings a
count must keep alive because nobody can capture them.

:func:`losing_self_atari` is asked once per move a search node tries for
the first time, so it answers most moves from the four neighbours alone;
:func:`seki_survivors` is asked by :func:`imago.game.count` of the stones
its random playouts call dead (a playout fills a seki's shared liberty and
so kills one side of it).
"""

from __future__ import annotations

from typing import Iterable, Optional

from .constants import BLACK, EMPTY, WHITE

# Eye shapes that a capture leaves as one eye when the capturer's opponent
# plays first (nakade), by the sorted number of neighbours each point has
# inside the shape: the square and pyramid four, the bulky and crossed
# five, the rabbity six. Every shape of two or three points is one too.
_NAKADE = {
    (2, 2, 2, 2), (1, 1, 1, 3),
    (1, 2, 2, 2, 3), (1, 1, 1, 1, 4),
    (1, 1, 2, 2, 2, 4),
}
MAX_NAKADE = 6


def _inside_neighbours(points: list[int], stride: int) -> list[int]:
    """For each of ``points``, how many of its neighbours are among them."""
    inside = set(points)
    return [sum(1 for m in (p - 1, p + 1, p - stride, p + stride) if m in inside)
            for p in points]


def _is_nakade(points: list[int], stride: int) -> bool:
    """Whether the eye space ``points`` (one connected region) is a shape
    that a single stone at its vital point kills."""
    n = len(points)
    if n <= 3:
        return True
    if n > MAX_NAKADE:
        return False
    return tuple(sorted(_inside_neighbours(points, stride))) in _NAKADE


def nakade_vital_point(points: list[int], stride: int) -> Optional[int]:
    """The point where one stone kills the eye space ``points`` (one
    connected region of two points or more, a captured string's) when it is
    a nakade shape: the point with the most neighbours inside it (the middle
    of a straight three, the centre of a pyramid or crossed five); None for
    one point or a shape that is no nakade."""
    if len(points) < 2 or not _is_nakade(points, stride):
        return None
    degrees = _inside_neighbours(points, stride)
    return points[degrees.index(max(degrees))]


def losing_self_atari(board, point: int, color: int) -> bool:
    """Whether ``color`` playing the legal move ``point`` only gives stones
    away: its string there (two stones or more, merged) is left with one
    liberty, the move captures nothing, and it is not a nakade: stones whose capture
    leaves a dead eye shape as the capturing strings' only eye space, so
    that playing its vital point next kills them.
    Filling a shared liberty of a seki, running from atari into atari and
    playing into a false eye are such moves. A one-stone sacrifice
    (throw-in, snapback) is never one."""
    cells = board.cells
    s = board.stride
    n1, n2, n3, n4 = point - 1, point + 1, point - s, point + s
    c1, c2, c3, c4 = cells[n1], cells[n2], cells[n3], cells[n4]
    empties = (c1 == EMPTY) + (c2 == EMPTY) + (c3 == EMPTY) + (c4 == EMPTY)
    if empties >= 2:
        return False  # two liberties of its own
    if c1 != color and c2 != color and c3 != color and c4 != color:
        return False  # a lone stone: at most one stone to lose
    libs, root, count = board.libs, board.root, board.count
    opp = 3 - color
    liberty: Optional[int] = None
    if empties:
        liberty = n1 if c1 == EMPTY else n2 if c2 == EMPTY else n3 if c3 == EMPTY else n4
    friends: list[int] = []
    for n, c in ((n1, c1), (n2, c2), (n3, c3), (n4, c4)):
        if c == color:
            r = root[n]
            if r in friends:
                continue
            friends.append(r)
            for lib in libs[r]:
                if lib != point and lib != liberty:
                    if liberty is not None:
                        return False  # a second liberty
                    liberty = lib
        elif c == opp and len(libs[root[n]]) == 1:
            return False  # it captures
    if liberty is None:
        return False  # would be suicide: not a legal move
    stones = 1 + sum(count[r] for r in friends)
    if stones > MAX_NAKADE:
        return True
    shape = [point]
    for r in friends:
        shape.extend(board.string_stones(r))
    return not (_is_nakade(shape, s) and _eyeless_capturer(board, shape, liberty, opp))


def _eyeless_capturer(board, shape: list[int], liberty: int, opp: int) -> bool:
    """Whether every ``opp`` string around ``shape`` (the stones once the
    move at ``shape[0]`` is played) and its last ``liberty`` is left with
    that liberty alone: after taking ``shape`` there, those strings have no
    eye space but the shape's (else the capture only gives them one more
    eye, as in a seki)."""
    cells, root, libs = board.cells, board.root, board.libs
    s = board.stride
    point = shape[0]
    for p in (*shape, liberty):
        for m in (p - 1, p + 1, p - s, p + s):
            if cells[m] == opp:
                for lib in libs[root[m]]:
                    if lib != point and lib != liberty:
                        return False
    return True


def _approachable(board, point: int, color: int) -> bool:
    """Whether ``color`` may play ``point`` without giving stones away
    (legal, and not a losing self-atari)."""
    return board.illegal_reason(point, color) is None \
        and not losing_self_atari(board, point, color)


def seki_survivors(board, dead: Iterable[int]) -> set[int]:
    """The stones among ``dead`` (a count's dead stones) that their
    opponent cannot capture: it can play none of their string's liberties
    without losing stones (the shared liberties of a seki) or at all (an
    eye). Random playouts fill such points and so count seki stones dead.
    Only the opponent's moves count: in a seki whose owner can still take
    a stone inside its eye space (and so make an eye), that capture is the
    owner's move, and the opponent still has no way in."""
    alive: set[int] = set()
    seen: set[int] = set()
    root, libs, cells = board.root, board.libs, board.cells
    for p in dead:
        r = root[p]
        if r in seen or cells[p] == EMPTY:
            continue
        seen.add(r)
        capturer = WHITE if cells[p] == BLACK else BLACK
        liberties = libs[r]
        if liberties and not any(_approachable(board, lib, capturer) for lib in liberties):
            alive.update(board.string_stones(r))
    return alive


def semeai_races(board, dead: Iterable[int]) -> list[tuple[int, int]]:
    """``(loser, winner)`` (their strings' roots) of each capturing race
    decided here, whichever the random playouts made of it: a string not
    among ``dead`` with at most two liberties, every one of them shared with
    one enemy string, where that enemy may play one of them (legal, and no
    losing self-atari: a nakade, whose capture leaves a dead eye shape),
    and either the string's own side may play none of the enemy's
    liberties, or it may play none of its own and the enemy has two
    liberties or more besides the shared ones. Such a pair is no seki: the
    enemy fills in and wins, whoever moves (against one outside liberty
    the race turns on the move, against none it is a seki)."""
    dead = set(dead)
    root, libs, cells = board.root, board.libs, board.cells
    s = board.stride
    races: list[tuple[int, int]] = []
    for p in board.on_board():
        c = cells[p]
        if c == EMPTY or root[p] != p or p in dead or len(libs[p]) > 2:
            continue
        enemies = {root[m] for lib in libs[p] for m in (lib - 1, lib + 1, lib - s, lib + s)
                   if cells[m] == 3 - c}
        for e in sorted(enemies):
            if not libs[p] <= libs[e]:
                continue
            if not any(_approachable(board, lib, 3 - c) for lib in libs[p]):
                continue
            shut_in = not any(_approachable(board, lib, c) for lib in libs[p])
            if (shut_in and len(libs[e]) - len(libs[p]) >= 2) \
                    or not any(_approachable(board, lib, c) for lib in libs[e]):
                races.append((p, e))
    return races


__all__ = ["MAX_NAKADE", "losing_self_atari", "nakade_vital_point", "seki_survivors",
           "semeai_races"]
