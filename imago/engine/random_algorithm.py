"""``random``: a uniformly random legal move that does not fill own eyes."""

from __future__ import annotations

import random
from typing import Optional

from imago.game import GameState

from .algorithm import DecisionAlgorithm


class RandomAlgorithm(DecisionAlgorithm):
    """Plays a random legal move that does not fill one of the mover's own
    one-point eyes; passes when none is left. ``seed`` makes it repeatable."""

    name = "random"

    def __init__(self, seed: Optional[int] = None):
        self.rng = random.Random(seed)

    def reseed(self, seed: Optional[int]) -> None:
        self.rng = random.Random(seed)

    def choose_move(self, state: GameState, color: int,
                    seconds: Optional[float] = None) -> Optional[int]:
        return state.board.random_move(color, self.rng)
