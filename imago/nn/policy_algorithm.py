"""``policy``: play the network's move, no search.

Plays the most probable legal move of the policy head (or samples among the
legal moves with ``temperature`` > 0). Illegal moves are masked out before
choosing, and moves that fill one of the mover's own one-point eyes are
never chosen. It passes when

- no other move is left,
- the network rates the pass above the best remaining move, or
- the opponent has just passed and the mover wins by counting the board as
  it stands (all stones alive), so the game ends where it is won.

TensorFlow is loaded when the algorithm is created, not when this module is
imported.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import numpy as np

from imago.engine.algorithm import DecisionAlgorithm
from imago.game import BLACK, GameState, area_score

from .features import legal_mask, move_to_point, point_to_move

MODELS_DIR = Path(__file__).resolve().parent.parent.parent / "models"
DEFAULT_MODEL = MODELS_DIR / "residual9.keras"


class PolicyAlgorithm(DecisionAlgorithm):
    """The network's best legal move. Options: ``model`` (path of a
    ``.keras`` model; default the shipped ``models/residual9.keras``),
    ``temperature`` (0: best move; > 0: sample from ``p ** (1/T)``),
    ``seed`` (for sampling)."""

    name = "policy"

    def __init__(self, model: Optional[str] = None, temperature: float = 0.0,
                 seed: Optional[int] = None, network=None):
        from .networks import NeuralNetwork

        self.temperature = float(temperature)
        self.rng = np.random.default_rng(None if seed is None else int(seed))
        if network is None:
            try:
                network = NeuralNetwork.load(Path(model) if model else DEFAULT_MODEL)
            except FileNotFoundError as err:
                raise ValueError(f"policy: {err}") from None
        self.network = network

    def move_probabilities(self, state: GameState, color: int) -> np.ndarray:
        """The policy over ``size*size + 1`` moves (pass last) with illegal
        moves and own-eye fills masked out, renormalised."""
        node = state.current
        board = node.board
        self.network.check_size(board.size)
        policy = self.network.evaluate_nodes([node], [color])["policy"][0]
        mask = legal_mask(board, color)
        size = board.size
        for move in np.flatnonzero(mask[:-1]):
            if board.is_eye(move_to_point(int(move), size), color):
                mask[move] = False
        return self.network.mask_policy(policy, mask)

    def choose_move(self, state: GameState, color: int,
                    seconds: Optional[float] = None) -> Optional[int]:
        board = state.board
        size = board.size
        last = state.current
        if last.is_pass and last.color != color and self._wins_now(state, color):
            return None
        probs = self.move_probabilities(state, color)
        pass_index = size * size
        if probs[:pass_index].sum() <= 0:
            return None
        if self.temperature > 0:
            weights = probs ** (1.0 / self.temperature)
            weights /= weights.sum()
            move = int(self.rng.choice(len(weights), p=weights))
        else:
            move = int(np.argmax(probs))
            if move != pass_index and probs[move] < probs[pass_index]:
                move = pass_index
        return move_to_point(move, size)

    @staticmethod
    def _wins_now(state: GameState, color: int) -> bool:
        score = area_score(state.board, state.komi)
        return score > 0 if color == BLACK else score < 0


def best_move_index(policy: np.ndarray, mask: np.ndarray) -> int:
    """Flat index of the most probable move allowed by ``mask``."""
    return int(np.argmax(np.where(mask, policy, -1.0)))


__all__ = ["PolicyAlgorithm", "DEFAULT_MODEL", "best_move_index", "point_to_move"]
