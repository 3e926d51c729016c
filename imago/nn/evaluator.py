"""The bridge from tree search to a network: priors, values, ownership.

:class:`NetworkEvaluator` is what :class:`imago.engine.mcts.PUCTSearch`
calls with a batch of positions; one compiled network call answers the whole
batch. Positions are anything with ``board``, ``parent`` and ``to_move``
(game-tree nodes or search nodes), so history planes are encoded from the
search path.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Sequence, Union

import numpy as np

from imago.game import BLACK

MODELS_DIR = Path(__file__).resolve().parent.parent.parent / "models"
DEFAULT_MODEL = MODELS_DIR / "residual9.keras"


def default_model_path() -> Optional[Path]:
    """The shipped residual model, if it and TensorFlow are installed."""
    from importlib.util import find_spec

    exists = DEFAULT_MODEL.exists() and find_spec("tensorflow") is not None
    return DEFAULT_MODEL if exists else None


class NetworkEvaluator:
    """Evaluates batches of positions with a policy(-value(-ownership))
    network. A network without a value head gives value 0 (the search then
    leans on its priors)."""

    def __init__(self, model: Union[str, os.PathLike, object], batch_size: int = 8):
        if isinstance(model, (str, os.PathLike)):
            from .networks import load_network  # imports TensorFlow
            model = load_network(model)
        self.network = model
        self.batch_size = batch_size

    def evaluate(self, nodes: Sequence) -> tuple[np.ndarray, np.ndarray]:
        out = self.network.evaluate_nodes(nodes)
        policy = out["policy"]
        value = out.get("value")
        if value is None:
            value = np.zeros(len(nodes), dtype=np.float32)
        return policy, value

    def ownership(self, node, to_move: int) -> Optional[list[float]]:
        """Ownership of every cell of the board's array, +1 for Black (None
        when the network has no ownership head)."""
        out = self.network.evaluate_nodes([node], [to_move])
        own = out.get("ownership")
        if own is None:
            return None
        board = node.board
        sign = 1.0 if to_move == BLACK else -1.0
        cells = [0.0] * len(board.cells)
        for k, p in enumerate(board.on_board()):
            cells[p] = sign * float(own[0][k])
        return cells
