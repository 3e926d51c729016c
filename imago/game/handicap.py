"""Handicap stone placement as the GTP version 2 specification fixes it.

Stones go on the star points of the 3rd line (boards up to 12x12) or the
4th line (13x13 and larger): corners first, then sides, then the centre.
Odd boards of 9x9 and up take 2..9 stones, 7x7 and even boards 2..4,
smaller boards none.
"""

from __future__ import annotations

from .coords import ColRow


def max_fixed_handicap(size: int) -> int:
    """The largest fixed handicap the specification allows on ``size``."""
    if size < 7:
        return 0
    if size % 2 == 1 and size >= 9:
        return 9
    return 4


def fixed_handicap_points(size: int, stones: int) -> list[ColRow]:
    """The ``(col, row)`` points of a fixed handicap, in the spec's order.

    Raises ValueError when the number is not allowed on this board.
    """
    limit = max_fixed_handicap(size)
    if stones < 2 or stones > limit:
        raise ValueError(f"invalid number of stones: {stones} (2..{limit} on {size}x{size})"
                         if limit else f"no fixed handicap on {size}x{size}")
    edge = 2 if size <= 12 else 3
    low, mid, high = edge, size // 2, size - 1 - edge
    # (col, row) with row 0 at the top: D4 is (low, high), Q16 is (high, low)
    d4, q16, d16, q4 = (low, high), (high, low), (low, low), (high, high)
    centre, left, right = (mid, mid), (low, mid), (high, mid)
    bottom, top = (mid, high), (mid, low)
    table = {
        2: [d4, q16],
        3: [d4, q16, d16],
        4: [d4, q16, d16, q4],
        5: [d4, q16, d16, q4, centre],
        6: [d4, q16, d16, q4, left, right],
        7: [d4, q16, d16, q4, left, right, centre],
        8: [d4, q16, d16, q4, left, right, bottom, top],
        9: [d4, q16, d16, q4, left, right, bottom, top, centre],
    }
    return table[stones]


def free_handicap_points(size: int, stones: int) -> list[ColRow]:
    """Where imago puts ``stones`` free handicap stones: the fixed placement
    as far as it goes, then further points spread over the board."""
    if stones < 2 or stones >= size * size:
        raise ValueError(f"invalid number of stones: {stones}")
    limit = max_fixed_handicap(size)
    points = fixed_handicap_points(size, min(stones, limit)) if limit else []
    if len(points) >= stones:
        return points
    taken = set(points)
    # farthest-point sampling keeps the extra stones apart
    candidates = [(c, r) for r in range(size) for c in range(size)]
    while len(points) < stones:
        def spread(p: ColRow) -> tuple[int, int]:
            far = min((abs(p[0] - q[0]) + abs(p[1] - q[1]) for q in points), default=size)
            centre = -abs(2 * p[0] - size + 1) - abs(2 * p[1] - size + 1)
            return far, centre
        best = max((p for p in candidates if p not in taken), key=spread)
        points.append(best)
        taken.add(best)
    return points
