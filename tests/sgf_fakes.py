"""Game records for data tests: random legal games written as SGF."""

from __future__ import annotations

import random

from imago.game import BLACK, GameState, area_score, format_sgf_point, from_index

COUNTED = "counted"
"""``game_sgf``'s result for the one its last position counts out to by
area as the stones stand (training learns a counted record's ownership
only where its count gives its result)."""


def game_sgf(seed: int, size: int = 9, moves: int = 24, result: str = "B+3.5",
             komi: float = 7.5, extra: str = "") -> str:
    """A record of ``moves`` random legal moves (eyes left alone), with
    ``result`` as its ``RE`` (none if empty; :data:`COUNTED`: its count's)."""
    rng = random.Random(seed)
    state, color, nodes = GameState(size), BLACK, []
    for _ in range(moves):
        p = state.board.random_move(color, rng)
        state.play(color, p)
        point = "" if p is None else format_sgf_point(from_index(p, size))
        nodes.append(f";{'B' if color == BLACK else 'W'}[{point}]")
        color = 3 - color
    if result == COUNTED:
        lead = area_score(state.board, komi)
        result = "0" if lead == 0 else f"{'B' if lead > 0 else 'W'}+{abs(lead):g}"
    re = f"RE[{result}]" if result else ""
    return f"(;GM[1]FF[4]SZ[{size}]KM[{komi:g}]{re}{''.join(nodes)}{extra})\n"
