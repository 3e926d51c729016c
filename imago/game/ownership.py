"""Old home of the end-of-game estimates, now in :mod:`imago.game.counting`.

Kept only so that modules not yet moved to :func:`imago.game.counting.count`
and :func:`imago.game.counting.passing_wins` still import; new code imports
from :mod:`imago.game` instead.
"""

from __future__ import annotations

from typing import Sequence

from .board import GameBoard
from .constants import BLACK, WHITE
from .counting import (DEAD_THRESHOLD, NEUTRAL_THRESHOLD, dead_stones, final_ownership,
                       final_owners, playout_ownership, seki_stones)


def estimated_score(board: GameBoard, komi: float, ownership: Sequence[float],
                    dead: Sequence[int]) -> float:
    """Black's lead with komi as :func:`imago.game.counting.count` counts it,
    with the given estimate and dead stones."""
    owners = final_owners(board, ownership, dead)
    return owners.count(BLACK) - owners.count(WHITE) - komi


__all__ = ["DEAD_THRESHOLD", "NEUTRAL_THRESHOLD", "playout_ownership", "final_ownership",
           "dead_stones", "seki_stones", "estimated_score"]
