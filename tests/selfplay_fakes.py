"""A stand-in network evaluator for self-play and arena tests (no Keras)."""

from __future__ import annotations

import numpy as np

from imago.game import BLACK


class _Network:
    plane_set = "basic"


class FakeEvaluator:
    """Random priors, and a value that favours Black by ``lean`` for the
    side to move; records its batch sizes."""

    history = 1

    def __init__(self, lean: float = 0.0, seed: int = 1):
        self.network = _Network()
        self.lean = lean
        self.rng = np.random.default_rng(seed)
        self.batches: list[int] = []

    def evaluate(self, leaves):
        self.batches.append(len(leaves))
        actions = leaves[0].board.size ** 2 + 1
        priors = self.rng.random((len(leaves), actions)) ** 4
        values = np.array([self.lean if leaf.to_move == BLACK else -self.lean
                           for leaf in leaves])
        return priors, values
