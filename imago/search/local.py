"""Reading small closed-off fights to the end: corners where a group's
every liberty lies among a few empty points (a seki, an eye space, a bent
four, an invasion), so that the search's root never plays a move there that
loses points against another move there or against playing elsewhere.

An *area* (:func:`find_areas`) is one or more small empty regions together
with the *local* strings whose liberties all lie in them; every other
string touching it must be *safe*, with at least :data:`SAFE_LIBERTIES`
liberties outside, and is taken never to be captured. A string with fewer
liberties outside pulls the regions of those liberties in, up to
:data:`MAX_AREA_EMPTIES` empty points and :data:`MAX_AREA_POINTS` points in
all; beyond that there is no area. An
area holds at least one local string, so that plain territory and dame
are not read.

:class:`LocalReader` plays the area's own game: the two players move on its
points or pass (playing elsewhere), no suicide, no move repeating a
position of the line, two passes end it, and the stones and the empty
points each colour alone reaches (safe strings included) count for that
colour, as area scoring counts a whole board. Kos are read twice: once as
won by the player to move (it may retake at once, as with a ko threat
always at hand) and once by the opponent. The reading is a negamax with
alpha-beta and a table of the positions read; three shortcuts keep it to
a few thousand positions where an exact reading takes millions: a capture
of more stones than a dead eye shape holds ends the line (the capturer has
room for two eyes) and so does a line longer than three moves a point
(both counted as they stand), and the table ignores how a line reached a
position although the ban on repeating one makes values depend on it (as
:mod:`imago.search.exact` explains). So the reading can err, and
:func:`losing_moves` strikes out only the moves it reads at least
:data:`PRUNE_MARGIN` points worse than the best whoever wins the kos. A
reading that needs more than :data:`NODE_BUDGET` positions gives up and
strikes nothing, and a root reads at most that many positions in all and,
in a timed search, for a share of its time; a reading cut short by either
goes on from where it stopped at the next root (its table kept).
Filling a point whose neighbours are all one's own string is not tried,
since passing does as well.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Optional

from imago.game.constants import BLACK, EMPTY, WHITE
from imago.game.seki import MAX_NAKADE

from .limits import GaveUp, OutOfTime

MAX_AREA_EMPTIES = 10
"""The most empty points an area may hold."""
MAX_AREA_POINTS = 32
"""The most points, stones included, an area may hold: a reading's cost
grows with its strings' size as well."""
SAFE_LIBERTIES = 4
"""Outside liberties that make a string touching an area safe."""
NODE_BUDGET = 40_000
"""Positions one area's reading (both ko regimes) may visit before it gives
up, and one root's readings together."""
_INFINITE = 10 ** 6
SETTLED = -1
"""What :meth:`LocalReader.play` gives as the ko of a move that captured
more stones than a dead eye shape holds: the line ends there."""


_DEADLINE_CHECK = 1024  # positions between two looks at the clock


@dataclass
class Area:
    """A closed-off part of a board, as bits: bit ``i`` stands for the
    board point ``points[i]``."""

    points: list[int]
    black: int
    white: int
    neighbours: list[int]
    """Per bit, the bits of its neighbours inside the area."""
    safe_black: int
    """Bits next to a safe black string."""
    safe_white: int
    """Bits next to a safe white string."""


def _empty_regions(board) -> tuple[dict[int, int], list[list[int]]]:
    """The board's connected empty regions, and each empty point's region."""
    cells, s = board.cells, board.stride
    region_of: dict[int, int] = {}
    regions: list[list[int]] = []
    for start in board.empties:
        if start in region_of:
            continue
        rid = len(regions)
        region_of[start] = rid
        stack, region = [start], []
        while stack:
            p = stack.pop()
            region.append(p)
            for m in (p - 1, p + 1, p - s, p + s):
                if cells[m] == EMPTY and m not in region_of:
                    region_of[m] = rid
                    stack.append(m)
        regions.append(region)
    return region_of, regions


def find_areas(board, max_empties: int = MAX_AREA_EMPTIES,
               safe_liberties: int = SAFE_LIBERTIES) -> list[Area]:
    """The board's areas (see the module docstring). A region that starts
    an area starts no other, though one grown from another region may take
    it in as well."""
    region_of, regions = _empty_regions(board)
    used: set[int] = set()
    areas = []
    for rid, region in enumerate(regions):
        if rid in used or len(region) > max_empties:
            continue
        grown = _grow(board, rid, region_of, regions, max_empties, safe_liberties)
        if grown is None:
            continue
        region_ids, local, safe = grown
        used |= region_ids
        stones = sum(board.count[r] for r in local)
        if local and stones + sum(len(regions[i]) for i in region_ids) <= MAX_AREA_POINTS:
            areas.append(_as_bits(board, region_ids, regions, local, safe))
    return areas


def _grow(board, rid: int, region_of: dict[int, int], regions: list[list[int]],
          max_empties: int, safe_liberties: int):
    """The regions, local strings (roots) and safe strings (roots) of the
    area grown from region ``rid``; None where it cannot be closed off."""
    cells, s, root, libs = board.cells, board.stride, board.root, board.libs
    region_ids = {rid}
    empties = set(regions[rid])
    while True:
        local: set[int] = set()
        safe: set[int] = set()
        pulled = False
        frontier = list(empties)
        seen = set(frontier)
        while frontier:
            p = frontier.pop()
            for m in (p - 1, p + 1, p - s, p + s):
                c = cells[m]
                if c != BLACK and c != WHITE:
                    continue
                r = root[m]
                if r in local or r in safe:
                    continue
                outside = libs[r] - empties
                if not outside:
                    local.add(r)
                    for stone in board.string_stones(r):
                        if stone not in seen:
                            seen.add(stone)
                            frontier.append(stone)
                elif len(outside) >= safe_liberties:
                    safe.add(r)
                else:
                    for q in outside:
                        region_ids.add(region_of[q])
                    pulled = True
        if not pulled:
            return region_ids, local, safe
        empties = {p for i in region_ids for p in regions[i]}
        if len(empties) > max_empties:
            return None


def _as_bits(board, region_ids: set[int], regions: list[list[int]], local: set[int],
             safe: set[int]) -> Area:
    cells, s, root = board.cells, board.stride, board.root
    points = sorted({p for i in region_ids for p in regions[i]}
                    | {p for r in local for p in board.string_stones(r)})
    index = {p: i for i, p in enumerate(points)}
    black = white = safe_black = safe_white = 0
    neighbours = []
    for i, p in enumerate(points):
        if cells[p] == BLACK:
            black |= 1 << i
        elif cells[p] == WHITE:
            white |= 1 << i
        mask = 0
        for m in (p - 1, p + 1, p - s, p + s):
            if m in index:
                mask |= 1 << index[m]
            elif cells[m] in (BLACK, WHITE) and root[m] in safe:
                if cells[m] == BLACK:
                    safe_black |= 1 << i
                else:
                    safe_white |= 1 << i
        neighbours.append(mask)
    return Area(points, black, white, neighbours, safe_black, safe_white)


class LocalReader:
    """Reads one :class:`Area` to the end (see the module docstring)."""

    def __init__(self, area: Area, budget: int = NODE_BUDGET, ko_master: int = EMPTY,
                 deadline: Optional[float] = None):
        """``ko_master``: the colour that wins every ko (may retake at once),
        or EMPTY for neither (both wait a move). Past ``budget`` positions
        the reading raises :class:`GaveUp`, past ``deadline``
        (``time.perf_counter``) :class:`OutOfTime`."""
        self.area = area
        self.full = (1 << len(area.points)) - 1
        self.nbr = area.neighbours
        self.byte_tables = self._byte_tables()
        self.safe = {BLACK: area.safe_black, WHITE: area.safe_white}
        self.budget = budget
        self.deadline = deadline
        self.nodes = 0
        self.max_depth = 3 * len(area.points)
        self.depth = 0  # moves (not passes) in the line read now
        self.ko_master = ko_master
        # key -> (lower bound, upper bound, best move's bit or 0)
        self.table: dict[tuple, tuple[int, int, int]] = {}

    def _spread(self, mask: int) -> int:
        """The neighbours of the points of ``mask`` (a byte at a time)."""
        out = 0
        for shift, table in self.byte_tables:
            out |= table[(mask >> shift) & 0xFF]
        return out

    def _byte_tables(self) -> list[tuple[int, list[int]]]:
        """Per byte of the area's bits, the neighbours of every value it takes."""
        tables = []
        for shift in range(0, len(self.nbr), 8):
            table = [0] * 256
            for value in range(1, 256):
                low = value & -value
                bit = shift + low.bit_length() - 1
                table[value] = table[value ^ low] | (self.nbr[bit] if bit < len(self.nbr) else 0)
            tables.append((shift, table))
        return tables

    def _flood(self, seed: int, within: int) -> int:
        """The points of ``within`` connected to ``seed`` through it."""
        tables = self.byte_tables  # _spread inlined: the reading's innermost loop
        mask = frontier = seed
        while frontier:
            out = 0
            for shift, table in tables:
                out |= table[(frontier >> shift) & 0xFF]
            frontier = out & within & ~mask
            mask |= frontier
        return mask

    def play(self, me: int, opp: int, bit: int, color: int
             ) -> Optional[tuple[int, int, int]]:
        """``color`` (owning the stones ``me``) plays ``bit``: the stones
        after it and the ko bit the opponent may not retake at once (0), or
        None where it is occupied or suicide (:data:`SETTLED` for the ko
        when it captured more than a dead eye shape holds)."""
        if (me | opp) & bit:
            return None
        me2 = me | bit
        empty = self.full & ~(me2 | opp)
        opp_safe = self.safe[3 - color]
        captured = 0
        adjacent = self.nbr[bit.bit_length() - 1] & opp
        while adjacent:
            string = self._flood(adjacent & -adjacent, opp)
            adjacent &= ~string
            if not string & opp_safe and not self._spread(string) & empty:
                captured |= string
        opp2 = opp & ~captured
        empty |= captured
        own = self._flood(bit, me2)
        liberties = self._spread(own) & empty
        if not own & self.safe[color] and not liberties:
            return None
        ko = 0
        if own == bit and captured and not captured & (captured - 1) and liberties == captured:
            ko = captured
        elif bin(captured).count("1") > MAX_NAKADE:
            ko = SETTLED
        return me2, opp2, ko

    def score(self, black: int, white: int) -> int:
        """Black's count of the area with these stones, as they stand."""
        total = bin(black).count("1") - bin(white).count("1")
        empty = self.full & ~(black | white)
        rest = empty
        while rest:
            region = self._flood(rest & -rest, empty)
            rest &= ~region
            border = self._spread(region)
            by_black = bool(border & black or region & self.safe[BLACK])
            by_white = bool(border & white or region & self.safe[WHITE])
            if by_black != by_white:
                total += bin(region).count("1") * (1 if by_black else -1)
        return total

    def _count(self, me: int, opp: int, color: int) -> int:
        """:meth:`score` for ``color``, the owner of ``me``."""
        return self.score(me, opp) if color == BLACK else -self.score(opp, me)

    def _pointless(self, me: int, bit: int, color: int) -> bool:
        """Whether ``bit`` is a point whose neighbours are all one string of
        ``me``'s and no safe string of the opponent's."""
        around = self.nbr[bit.bit_length() - 1]
        if around & ~me or bit & self.safe[3 - color]:
            return False
        return self._flood(around & -around, me) & around == around

    def children(self, me: int, opp: int, color: int, ko: int, path: set):
        """``color``'s moves here: ``(bit, me, opp, ko)`` after each."""
        empty = self.full & ~(me | opp)
        moves = []
        master = color == self.ko_master
        while empty:
            bit = empty & -empty
            empty ^= bit
            if (bit == ko and not master) or self._pointless(me, bit, color):
                continue
            after = self.play(me, opp, bit, color)
            if after is None:
                continue
            me2, opp2, ko2 = after
            position = (me2, opp2) if color == BLACK else (opp2, me2)
            if position in path and not (master and bit == ko):
                continue
            moves.append((bit, me2, opp2, ko2))
        return moves

    def value(self, me: int, opp: int, color: int, passed: bool, ko: int,
              alpha: int = -_INFINITE, beta: int = _INFINITE,
              path: Optional[set] = None) -> int:
        """The area's count for ``color`` (to move, owning ``me``) with both
        sides reading perfectly; ``passed`` when the last move was a pass."""
        if path is None:
            path = {(me, opp) if color == BLACK else (opp, me)}
        if self.depth > self.max_depth:
            return self._count(me, opp, color)
        key = (me, opp, color, passed, ko)
        lower, upper, first = self.table.get(key, (-_INFINITE, _INFINITE, 0))
        if lower >= beta:
            return lower
        if upper <= alpha:
            return upper
        if lower == upper:
            return lower
        self.nodes += 1
        if self.nodes > self.budget:
            raise GaveUp()
        if self.deadline is not None and not self.nodes % _DEADLINE_CHECK \
                and time.perf_counter() > self.deadline:
            raise OutOfTime()
        alpha, beta = max(alpha, lower), min(beta, upper)
        alpha0, beta0 = alpha, beta
        if passed:
            best = self._count(me, opp, color)
        else:
            best = -self.value(opp, me, 3 - color, True, 0, -beta, -alpha, path)
        best_move = 0
        alpha = max(alpha, best)
        if best < beta:
            moves = self.children(me, opp, color, ko, path)
            # the table's best move first, then captures
            moves.sort(key=lambda m: (m[0] != first, m[2] == opp))
            for bit, me2, opp2, ko2 in moves:
                v = self._after(me2, opp2, color, ko2, -beta, -alpha, path)
                if v > best:
                    best, best_move = v, bit
                    if v > alpha:
                        alpha = v
                    if v >= beta:
                        break
        if best <= alpha0:
            self.table[key] = (lower, min(upper, best), best_move or first)
        elif best >= beta0:
            self.table[key] = (max(lower, best), upper, best_move)
        else:
            self.table[key] = (best, best, best_move)
        return best

    def _after(self, me: int, opp: int, color: int, ko: int, alpha: int, beta: int,
               path: set) -> int:
        """The count for ``color`` after its move left ``me`` and ``opp``
        (``ko`` as :meth:`play` gives it), the opponent to move."""
        position = (me, opp) if color == BLACK else (opp, me)
        if ko == SETTLED:
            return self._count(me, opp, color)
        added = position not in path  # a ko master's retake repeats one
        path.add(position)
        self.depth += 1
        try:
            return -self.value(opp, me, 3 - color, False, ko, alpha, beta, path)
        finally:
            self.depth -= 1
            if added:
                path.discard(position)

    def move_values(self, color: int) -> tuple[dict[int, int], int]:
        """``color`` to move in the area as it stands: each legal move's
        count for ``color`` (by board point) and the count after a pass."""
        area = self.area
        me, opp = (area.black, area.white) if color == BLACK else (area.white, area.black)
        start = (area.black, area.white)
        values = {}
        for bit, me2, opp2, ko2 in self.children(me, opp, color, 0, {start}):
            values[area.points[bit.bit_length() - 1]] = self._after(
                me2, opp2, color, ko2, -_INFINITE, _INFINITE, {start})
        passing = -self.value(opp, me, 3 - color, True, 0, path={start})
        return values, passing


PRUNE_MARGIN = 3
"""How many points worse than the best a move must end, whoever wins the
area's kos, to be struck out: the reading counts by area and a point or two
may go either way by territory (a seki's eyes, the last dame)."""


def losing_moves(board, color: int, margin: int = PRUNE_MARGIN,
                 budget: int = NODE_BUDGET, deadline: Optional[float] = None) -> set[int]:
    """The points where ``color``, to move, would end at least ``margin``
    points worse, read out in their area, than with another move there or
    playing elsewhere, both when it wins every ko there and when the
    opponent does (see the module docstring). Areas read before are
    answered from memory; the others share ``budget`` positions. An area
    whose reading needs more than :data:`NODE_BUDGET` positions in all is
    given up for good (nothing struck there); one that needs more than what
    is left this time, or is still being read at ``deadline``
    (``time.perf_counter``), strikes nothing now and goes on from where it
    stopped at a later call (a move's search reads on in the next one)."""
    losing: set[int] = set()
    left = budget
    for area in find_areas(board):
        key = (color, margin, tuple(area.points), area.black, area.white,
               area.safe_black, area.safe_white)
        found = _VERDICTS.get(key)
        if found is None:
            if left <= 0 or (deadline is not None and time.perf_counter() >= deadline):
                continue
            found, spent = _read_area(area, key, left, deadline)
            left -= spent
            if found is None:
                continue
            _VERDICTS[key] = found
            if len(_VERDICTS) > _VERDICTS_KEPT:
                del _VERDICTS[next(iter(_VERDICTS))]
        losing |= found
    return losing


_VERDICTS: dict[tuple, frozenset] = {}  # a game's areas last from move to move
_VERDICTS_KEPT = 4096


@dataclass
class _Reading:
    """An area's reading under way: the moves each ko regime read so far
    strikes, the positions those took, and the next regime's reader (its
    table kept, so that a later call goes on where this one stopped)."""
    verdicts: list[set[int]]
    done: int
    reader: LocalReader


_UNFINISHED: dict[tuple, _Reading] = {}
_UNFINISHED_KEPT = 16


def forget() -> None:
    """Forget every area read (for benchmarks: each reading from scratch)."""
    _VERDICTS.clear()
    _UNFINISHED.clear()


def _read_area(area: Area, key: tuple, allowed: int, deadline: Optional[float]
               ) -> tuple[Optional[frozenset], int]:
    """:func:`losing_moves` of one area (``key``: colour to move, margin,
    the area) with at most ``allowed`` positions and until ``deadline``:
    the moves struck (none if the reading gave up for good), or None if it
    has to go on later; and the positions read."""
    color, margin = key[0], key[1]
    reading = _UNFINISHED.pop(key, None) or _Reading(
        [], 0, LocalReader(area, NODE_BUDGET, ko_master=color))
    spent = 0
    while True:
        reader = reading.reader
        before = reader.nodes
        reader.budget = min(NODE_BUDGET - reading.done, before + allowed - spent)
        reader.deadline = deadline
        try:
            values, passing = reader.move_values(color)
        except GaveUp as stop:
            spent += reader.nodes - before
            if not isinstance(stop, OutOfTime) and reader.budget >= NODE_BUDGET - reading.done:
                return frozenset(), spent  # too big to read: nothing struck
            _UNFINISHED[key] = reading
            if len(_UNFINISHED) > _UNFINISHED_KEPT:
                del _UNFINISHED[next(iter(_UNFINISHED))]
            return None, spent
        spent += reader.nodes - before
        best = max([passing, *values.values()])
        reading.verdicts.append({p for p, v in values.items() if v <= best - margin})
        if not reading.verdicts[-1]:
            return frozenset(), spent
        if len(reading.verdicts) == 2:
            return frozenset(reading.verdicts[0] & reading.verdicts[1]), spent
        reading.done += reader.nodes
        reading.reader = LocalReader(area, NODE_BUDGET, ko_master=3 - color)


__all__ = ["Area", "GaveUp", "LocalReader", "MAX_AREA_EMPTIES", "MAX_AREA_POINTS", "NODE_BUDGET",
           "OutOfTime", "PRUNE_MARGIN", "SAFE_LIBERTIES", "find_areas", "forget", "losing_moves"]
