"""An evaluator without a network: uniform priors and random playouts."""

from __future__ import annotations

import random
from typing import Optional, Sequence

import numpy as np

from imago.game import area_score
from imago.nn.evaluator import Evaluation

from .tree import win_value


class PlayoutEvaluator:
    """Uniform priors over moves and the value of random playouts
    (eye-respecting) scored by area (with a search leaf's komi, else
    ``komi``), the playouts' mean area margin as the score. It lets PUCT
    run, and be tested, where no model is loaded. Takes search leaves or
    game-tree nodes (anything with ``board`` and ``to_move``; ``passes``
    when known)."""

    history = 1  # looks at the position alone

    def __init__(self, komi: float = 7.5, seed: Optional[int] = None, playouts: int = 1):
        self.komi = komi
        self.rng = random.Random(seed)
        self.playouts = playouts

    def reseed(self, seed: Optional[int]) -> None:
        """Play the random playouts afresh from ``seed``."""
        self.rng = random.Random(seed)

    def evaluate(self, leaves: Sequence) -> Evaluation:
        size = leaves[0].board.size
        priors = np.full((len(leaves), size * size + 1), 1.0 / (size * size + 1))
        values = np.zeros(len(leaves))
        margins = np.zeros(len(leaves))
        for k, leaf in enumerate(leaves):
            total = margin = 0.0
            sign = 1.0 if leaf.to_move == 1 else -1.0
            komi = getattr(leaf, "komi", self.komi)  # a search leaf's own (territory)
            for _ in range(self.playouts):
                board = leaf.board.copy()
                board.playout(leaf.to_move, self.rng, getattr(leaf, "passes", 0))
                score = area_score(board, komi)
                total += sign * win_value(score)
                margin += sign * (score + komi)
            values[k] = total / self.playouts
            margins[k] = margin / self.playouts
        return Evaluation(priors, values, margins)
