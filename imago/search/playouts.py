"""An evaluator without a network: uniform priors and random playouts."""

from __future__ import annotations

import random
from typing import Optional, Sequence

import numpy as np

from imago.game import area_score


class PlayoutEvaluator:
    """Uniform priors over moves and the value of random playouts
    (eye-respecting) scored by area. It lets PUCT run, and be tested, where
    no model is loaded. Takes search leaves or game-tree nodes (anything
    with ``board`` and ``to_move``; ``passes`` when known)."""

    history = 1  # looks at the position alone

    def __init__(self, komi: float = 7.5, seed: Optional[int] = None, playouts: int = 1):
        self.komi = komi
        self.rng = random.Random(seed)
        self.playouts = playouts

    def evaluate(self, leaves: Sequence) -> tuple[np.ndarray, np.ndarray]:
        size = leaves[0].board.size
        priors = np.full((len(leaves), size * size + 1), 1.0 / (size * size + 1))
        values = np.zeros(len(leaves))
        for k, leaf in enumerate(leaves):
            total = 0.0
            for _ in range(self.playouts):
                board = leaf.board.copy()
                board.playout(leaf.to_move, self.rng, getattr(leaf, "passes", 0))
                score = area_score(board, self.komi)
                black = 1.0 if score > 0 else -1.0 if score < 0 else 0.0
                total += black if leaf.to_move == 1 else -black
            values[k] = total / self.playouts
        return priors, values
