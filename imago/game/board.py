"""The Go board: a mailbox-padded 1-D array with incrementally kept strings.

Points live in a flat list of ``(size + 2) ** 2`` cells; a ring of ``EDGE``
cells surrounds the playing area, so neighbour loops need no bounds checks
(the neighbours of ``p`` are ``p - 1, p + 1, p - stride, p + stride``).

Every stone belongs to a *string* (a maximal connected group of one colour)
named by its root point. Kept per string, at the root, and updated
incrementally on every move:

- ``root[p]``: the root of the string of the stone at ``p``;
- ``next_stone[p]``: a circular list through the string's stones;
- ``count[r]``: the number of stones;
- ``libs[r]``: the set of liberty points (a dict keyed by root). Sets are
  copy-on-write: a copied board shares them, and a board duplicates a set
  (and records the root in ``owned``) the first time it changes it;
- ``string_hash[r]``: the XOR of the string's Zobrist keys, so a capture
  updates the position hash in O(1).

The Zobrist ``hash`` of the position (stones only, not the side to move)
and the set of every position hash seen so far give positional superko.
"""

from __future__ import annotations

import random
from array import array
from typing import Iterable, Iterator, Optional

from .constants import BLACK, EDGE, EMPTY, WHITE
from .coords import MAX_SIZE, from_index, to_index


class IllegalMoveError(ValueError):
    """A move the rules forbid; ``reason`` is one of ``occupied``, ``suicide``,
    ``ko``, ``superko`` or ``off board``."""

    def __init__(self, reason: str, point: Optional[int] = None):
        super().__init__(reason)
        self.reason = reason
        self.point = point


_ZOBRIST: dict[int, tuple[list[int], list[int], list[int]]] = {}


def zobrist_keys(size: int) -> tuple[list[int], list[int], list[int]]:
    """Per-size Zobrist keys indexed ``[colour][point]`` (fixed seed, so
    hashes are stable across runs)."""
    keys = _ZOBRIST.get(size)
    if keys is None:
        rng = random.Random(0x1A6A60 + size)
        cells = (size + 2) ** 2
        black = [rng.getrandbits(63) for _ in range(cells)]
        white = [rng.getrandbits(63) for _ in range(cells)]
        keys = ([0] * cells, black, white)
        _ZOBRIST[size] = keys
    return keys


# Per size: the cells, empty_pos and empties of the empty board (copied).
_EMPTY_BOARDS: dict[int, tuple[list[int], list[int], list[int]]] = {}


class GameBoard:
    """A Go position with the rules: legality (with reason), play, captures,
    positional superko, and fast random legal moves for playouts.

    Points are internal indexes (see :mod:`imago.game.coords`); use
    :meth:`index` and :meth:`colrow` to convert. Boards in a game tree are
    treated as immutable: copy with :meth:`copy` before playing on one.
    """

    __slots__ = (
        "size", "stride", "cells", "root", "next_stone", "count", "libs",
        "owned", "string_hash", "hash", "history", "ko_point", "ko_color",
        "empties", "empty_pos", "zobrist",
    )

    def __init__(self, size: int = 19):
        if not 2 <= size <= MAX_SIZE:
            raise ValueError(f"board size must be 2..{MAX_SIZE}, not {size}")
        self.size = size
        stride = self.stride = size + 2
        ncells = stride * stride
        self.cells = [EDGE] * ncells
        self.root = [0] * ncells
        self.next_stone = [0] * ncells
        self.count = [0] * ncells
        self.libs: dict[int, set[int]] = {}
        self.owned: set[int] = set()
        self.string_hash = [0] * ncells
        template = _EMPTY_BOARDS.get(size)
        if template is None:
            cells, empty_pos, empties = self.cells, [-1] * ncells, []
            for row in range(size):
                for col in range(size):
                    p = to_index(col, row, size)
                    cells[p] = EMPTY
                    empty_pos[p] = len(empties)
                    empties.append(p)
            template = _EMPTY_BOARDS[size] = (cells[:], empty_pos, empties)
        self.cells = template[0][:]
        self.empty_pos = template[1][:]
        self.empties = template[2][:]
        self.zobrist = zobrist_keys(size)
        self.hash = 0
        self.history = {0}
        self.ko_point = 0
        self.ko_color = EMPTY

    # ------------------------------------------------------------------ access
    def index(self, col: int, row: int) -> int:
        """Internal index of ``(col, row)`` (row 0 at the top)."""
        return to_index(col, row, self.size)

    def colrow(self, point: int) -> tuple[int, int]:
        """``(col, row)`` of an internal index."""
        return from_index(point, self.size)

    def points(self) -> range:
        """Every internal index, on-board or not (filter with ``cells``)."""
        return range(self.stride * self.stride)

    def on_board(self) -> Iterator[int]:
        """The on-board points, row by row from the top-left."""
        size, stride = self.size, self.stride
        for row in range(1, size + 1):
            yield from range(row * stride + 1, row * stride + size + 1)

    def neighbours(self, point: int) -> tuple[int, int, int, int]:
        """The four orthogonal neighbours (some may be ``EDGE``)."""
        s = self.stride
        return (point - 1, point + 1, point - s, point + s)

    def __getitem__(self, point: int) -> int:
        return self.cells[point]

    def string_stones(self, point: int) -> list[int]:
        """The stones of the string through ``point`` (a stone)."""
        start = point
        stones = [start]
        nxt = self.next_stone
        p = nxt[start]
        while p != start:
            stones.append(p)
            p = nxt[p]
        return stones

    def liberties(self, point: int) -> set[int]:
        """The liberties of the string through ``point`` (a copy)."""
        return set(self.libs[self.root[point]])

    def is_empty_board(self) -> bool:
        """True when no stone is on the board."""
        return len(self.empties) == self.size * self.size

    def stone_count(self, color: int) -> int:
        """Stones of one colour on the board."""
        return sum(1 for p in self.on_board() if self.cells[p] == color)

    # ------------------------------------------------------------------ rules
    def illegal_reason(self, point: Optional[int], color: int) -> Optional[str]:
        """Why ``color`` may not play at ``point``, or None if the move is legal.

        A pass (None) is always legal. Reasons: ``off board``, ``occupied``,
        ``suicide``, ``ko`` (retaking a ko at once) and ``superko`` (any other
        repetition of an earlier whole-board position).
        """
        if point is None:
            return None
        cells = self.cells
        if not 0 <= point < len(cells) or cells[point] == EDGE:
            return "off board"
        if cells[point] != EMPTY:
            return "occupied"
        s = self.stride
        libs, root, opp = self.libs, self.root, 3 - color
        h = self.hash ^ self.zobrist[color][point]
        free = False
        captured: list[int] = []
        for n in (point - 1, point + 1, point - s, point + s):
            c = cells[n]
            if c == EMPTY:
                free = True
            elif c == color:
                if len(libs[root[n]]) > 1:
                    free = True
            elif c == opp:
                r = root[n]
                if len(libs[r]) == 1 and r not in captured:
                    captured.append(r)
                    h ^= self.string_hash[r]
        if not free and not captured:
            return "suicide"
        if h in self.history:
            if point == self.ko_point and color == self.ko_color:
                return "ko"
            return "superko"
        return None

    def is_legal(self, point: Optional[int], color: int) -> bool:
        """True if ``color`` may play at ``point`` (None: pass)."""
        return self.illegal_reason(point, color) is None

    def play(self, point: Optional[int], color: int) -> int:
        """Play a move for ``color`` (None: pass) and return the number of
        stones it captured. Raises :class:`IllegalMoveError` with the reason.
        """
        if point is None:
            self.ko_point = 0
            self.ko_color = EMPTY
            return 0
        reason = self.illegal_reason(point, color)
        if reason is not None:
            raise IllegalMoveError(reason, point)
        return self.place(point, color)

    def place(self, point: int, color: int) -> int:
        """Play a move already known to be legal; returns stones captured.

        This is the fast path for search and playouts, which check legality
        once themselves. Playing an illegal move here corrupts the board.
        """
        cells, root, nxt, count = self.cells, self.root, self.next_stone, self.count
        libs, shash, empties, epos = self.libs, self.string_hash, self.empties, self.empty_pos
        owned = self.owned
        s = self.stride
        opp = 3 - color
        key = self.zobrist[color][point]
        h = self.hash ^ key

        cells[point] = color
        i = epos[point]
        last = empties.pop()
        if last != point:
            empties[i] = last
            epos[last] = i
        epos[point] = -1
        root[point] = point
        nxt[point] = point
        count[point] = 1
        shash[point] = key
        libs[point] = set()
        owned.add(point)

        captured = 0
        captured_at = 0
        for n in (point - 1, point + 1, point - s, point + s):
            c = cells[n]
            if c == EMPTY:
                libs[root[point]].add(n)  # pt's string is always owned
            elif c == color:
                r = root[n]
                mine = root[point]
                if r in owned:
                    libs[r].discard(point)
                else:
                    libs[r] = libs[r] - {point}
                    owned.add(r)
                if r != mine:
                    if count[r] < count[mine]:
                        r, mine = mine, r
                    # relabel the smaller string (mine) into r
                    p = mine
                    while True:
                        root[p] = r
                        p = nxt[p]
                        if p == mine:
                            break
                    nxt[r], nxt[mine] = nxt[mine], nxt[r]
                    count[r] += count[mine]
                    shash[r] ^= shash[mine]
                    libs[r] |= libs.pop(mine)  # both owned by now
                    owned.discard(mine)
            elif c == opp:
                r = root[n]
                lib = libs[r]
                if r not in owned:
                    libs[r] = lib = set(lib)
                    owned.add(r)
                lib.discard(point)
                if not lib:
                    h ^= shash[r]
                    captured += count[r]
                    captured_at = r
                    # remove the string; its points become liberties of
                    # the capturer's adjacent strings
                    p = r
                    while True:
                        cells[p] = EMPTY
                        epos[p] = len(empties)
                        empties.append(p)
                        for m in (p - 1, p + 1, p - s, p + s):
                            if cells[m] == color:
                                rm = root[m]
                                if rm not in owned:
                                    libs[rm] = set(libs[rm])
                                    owned.add(rm)
                                libs[rm].add(p)
                        p = nxt[p]
                        if p == r:
                            break
                    del libs[r]
                    owned.discard(r)

        mine = root[point]
        if captured == 1 and count[mine] == 1 and len(libs[mine]) == 1:
            self.ko_point = captured_at
            self.ko_color = opp
        else:
            self.ko_point = 0
            self.ko_color = EMPTY
        self.hash = h
        self.history.add(h)
        return captured

    def is_eye(self, point: int, color: int) -> bool:
        """True if ``point`` is an empty one-point eye of ``color``: every
        orthogonal neighbour is ``color`` (or off board) and the diagonals do
        not make it false (no enemy diagonal on the edge, at most one inside).
        """
        cells = self.cells
        if cells[point] != EMPTY:
            return False
        s = self.stride
        for n in (point - 1, point + 1, point - s, point + s):
            c = cells[n]
            if c != color and c != EDGE:
                return False
        opp = 3 - color
        bad = edge = 0
        for d in (point - s - 1, point - s + 1, point + s - 1, point + s + 1):
            c = cells[d]
            if c == opp:
                bad += 1
            elif c == EDGE:
                edge = 1
        return bad + edge < 2

    def random_move(self, color: int, rng: random.Random) -> Optional[int]:
        """A legal move for ``color`` that does not fill one of its own eyes,
        chosen at random among the empty points (None: none is left, pass).

        Scans the empty points from a random start, so it costs little when
        most moves are legal, as in playouts.
        """
        empties = self.empties
        n = len(empties)
        if not n:
            return None
        cells, libs, root = self.cells, self.libs, self.root
        s = self.stride
        opp = 3 - color
        zc = self.zobrist[color]
        history, shash = self.history, self.string_hash
        start = int(rng.random() * n)
        for k in range(n):
            point = empties[(start + k) % n]
            # own-eye test (orthogonal part inline, diagonals in is_eye)
            c1 = cells[point - 1]
            c2 = cells[point + 1]
            c3 = cells[point - s]
            c4 = cells[point + s]
            if ((c1 == color or c1 == EDGE) and (c2 == color or c2 == EDGE)
                    and (c3 == color or c3 == EDGE) and (c4 == color or c4 == EDGE)
                    and self.is_eye(point, color)):
                continue
            h = self.hash ^ zc[point]
            free = c1 == EMPTY or c2 == EMPTY or c3 == EMPTY or c4 == EMPTY
            if free and c1 != opp and c2 != opp and c3 != opp and c4 != opp:
                # a liberty and no enemy neighbour: no suicide, no capture
                if h not in history:
                    return point
                continue
            captured: list[int] = []
            for n2, c in ((point - 1, c1), (point + 1, c2), (point - s, c3), (point + s, c4)):
                if c == color:
                    if len(libs[root[n2]]) > 1:
                        free = True
                elif c == opp:
                    r = root[n2]
                    if len(libs[r]) == 1 and r not in captured:
                        captured.append(r)
                        h ^= shash[r]
            if (free or captured) and h not in history:
                return point
        return None

    def playout(self, color: int, rng: random.Random, passes: int = 0,
                limit: Optional[int] = None) -> int:
        """Finish the game on this board with random moves that never fill
        the mover's own eyes (``color`` moves first; ``passes`` in a row
        already played), until two passes in a row or ``limit`` moves
        (default 3 x the points, passes included). Returns the number of
        stones played."""
        if limit is None:
            limit = 3 * self.size * self.size
        moves = stones = 0
        random_move, place = self.random_move, self.place
        while passes < 2 and moves < limit:
            point = random_move(color, rng)
            if point is None:
                passes += 1
            else:
                passes = 0
                place(point, color)
                stones += 1
            moves += 1
            color = 3 - color
        return stones

    def legal_moves(self, color: int) -> list[int]:
        """Every legal point for ``color`` (pass not included)."""
        return [p for p in self.empties if self.illegal_reason(p, color) is None]

    # ------------------------------------------------------------------ set-up
    def copy(self) -> "GameBoard":
        """An independent copy (strings, hash and superko history included)."""
        b = GameBoard.__new__(GameBoard)
        b.size = self.size
        b.stride = self.stride
        b.cells = self.cells[:]
        b.root = self.root[:]
        b.next_stone = self.next_stone[:]
        b.count = self.count[:]
        b.libs = self.libs.copy()  # the sets are shared until changed
        b.owned = set()
        self.owned = set()
        b.string_hash = self.string_hash[:]
        b.empties = self.empties[:]
        b.empty_pos = self.empty_pos[:]
        b.zobrist = self.zobrist
        b.hash = self.hash
        b.history = set(self.history)
        b.ko_point = self.ko_point
        b.ko_color = self.ko_color
        return b

    def snapshot(self) -> "BoardSnapshot":
        """A compact copy of the position and its strings, without the
        superko history (see :class:`BoardSnapshot`)."""
        snap = BoardSnapshot.__new__(BoardSnapshot)
        snap.size = self.size
        snap.cells = bytes(self.cells)
        snap.root = array("H", self.root)
        snap.next_stone = array("H", self.next_stone)
        snap.count = array("H", self.count)
        snap.string_hash = array("q", self.string_hash)
        snap.empties = array("H", self.empties)
        snap.libs = self.libs.copy()  # the sets are shared until changed
        self.owned = set()
        snap.hash = self.hash
        snap.ko_point = self.ko_point
        snap.ko_color = self.ko_color
        return snap

    @classmethod
    def from_snapshot(cls, snap: "BoardSnapshot", history: set[int]) -> "GameBoard":
        """The board a snapshot was taken of, with ``history`` (taken, not
        copied) as its superko history."""
        b = cls.__new__(cls)
        b.size = size = snap.size
        b.stride = size + 2
        b.cells = list(snap.cells)
        b.root = list(snap.root)
        b.next_stone = list(snap.next_stone)
        b.count = list(snap.count)
        b.libs = snap.libs.copy()
        b.owned = set()
        b.string_hash = list(snap.string_hash)
        b.empties = empties = list(snap.empties)
        b.empty_pos = epos = [-1] * len(b.cells)
        for i, p in enumerate(empties):
            epos[p] = i
        b.zobrist = zobrist_keys(size)
        b.hash = snap.hash
        b.history = history
        b.ko_point = snap.ko_point
        b.ko_color = snap.ko_color
        return b

    def set_stones(self, black: Iterable[int] = (), white: Iterable[int] = (),
                   empty: Iterable[int] = ()) -> None:
        """Setup stones (SGF AB/AW/AE, handicap): put or clear stones without
        captures, then rebuild strings and hash. The new position joins the
        superko history; ko is cleared. Without any point, only ko is
        cleared (an empty setup node).
        """
        cells = self.cells
        placed = False
        for color, pts in ((EMPTY, empty), (BLACK, black), (WHITE, white)):
            for p in pts:
                if cells[p] == EDGE:
                    raise IllegalMoveError("off board", p)
                cells[p] = color
                placed = True
        if placed:
            self.rebuild()
        self.history.add(self.hash)
        self.ko_point = 0
        self.ko_color = EMPTY

    def rebuild(self) -> None:
        """Recompute strings, liberties, empties and hash from ``cells``."""
        cells, s = self.cells, self.stride
        n = len(cells)
        self.root = root = [0] * n
        self.next_stone = nxt = [0] * n
        self.count = count = [0] * n
        self.libs = libs = {}
        self.owned = set()
        self.string_hash = shash = [0] * n
        self.empty_pos = epos = [-1] * n
        self.empties = empties = []
        z = self.zobrist
        h = 0
        seen = [False] * n
        for p in self.on_board():
            c = cells[p]
            if c == EMPTY:
                epos[p] = len(empties)
                empties.append(p)
                continue
            h ^= z[c][p]
            if seen[p]:
                continue
            stones, lib, stack = [], set(), [p]
            seen[p] = True
            while stack:
                q = stack.pop()
                stones.append(q)
                for m in (q - 1, q + 1, q - s, q + s):
                    cm = cells[m]
                    if cm == EMPTY:
                        lib.add(m)
                    elif cm == c and not seen[m]:
                        seen[m] = True
                        stack.append(m)
            for i, q in enumerate(stones):
                root[q] = p
                nxt[q] = stones[(i + 1) % len(stones)]
                shash[p] ^= z[c][q]
            count[p] = len(stones)
            libs[p] = lib
            self.owned.add(p)
        self.hash = h

    # ------------------------------------------------------------------ output
    def rows(self) -> list[list[int]]:
        """The colours as ``rows[row][col]``, row 0 at the top."""
        size, s, cells = self.size, self.stride, self.cells
        return [cells[(r + 1) * s + 1:(r + 1) * s + 1 + size] for r in range(size)]

    def __repr__(self) -> str:
        return f"GameBoard(size={self.size}, hash={self.hash:#x})"


class BoardSnapshot:
    """A board's position and strings in compact arrays (about a third of
    a board's memory), without the superko history: what the game tree
    keeps every few nodes. Immutable; :meth:`GameBoard.from_snapshot`
    gives the board back, exactly (empty points and strings in the same
    order, so random playouts from it go the same way)."""

    __slots__ = ("size", "cells", "root", "next_stone", "count", "string_hash",
                 "empties", "libs", "hash", "ko_point", "ko_color")

