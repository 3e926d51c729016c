"""``policy``: play the network's move, no search.

Plays the most probable legal move of the policy head (or samples among the
legal moves with ``temperature`` > 0). Illegal moves are masked out before
choosing, and moves that fill one of the mover's own one-point eyes are
never chosen. It passes when

- no other move is left,
- the network rates the pass above the best remaining move, or
- the opponent has just passed and the mover wins the board as it stands
  by the engine's count (:func:`imago.game.count`; with the network's
  ownership head as the estimate when it has one), so the game ends where
  it is won.

The model's metadata is read when the algorithm is created; the network
(and TensorFlow) is loaded by :meth:`PolicyAlgorithm.prepare`, which the
engine calls in the background, or by the first move.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Optional

import numpy as np

from imago.game import GameState, count
from imago.nn.evaluator import DEFAULT_MODEL, model_file, shipped_model
from imago.nn.features import legal_mask, move_to_point, ownership_cells, point_to_move
from imago.nn.modelfile import network_of

from .algorithm import DecisionAlgorithm, checked


class PolicyAlgorithm(DecisionAlgorithm):
    """The network's best legal move. Options: ``model`` (path of a
    ``.keras`` model; default the shipped network of the board size,
    :func:`imago.nn.evaluator.shipped_model`),
    ``temperature`` (0: best move; > 0: sample from ``p ** (1/T)``),
    ``seed`` (for sampling)."""

    name = "policy"

    def __init__(self, model: Optional[str] = None, temperature: float = 0.0,
                 seed: Optional[int] = None, network: Any = None):
        self.temperature = checked("temperature", temperature, low=0)
        self.rng = np.random.default_rng(None if seed is None else int(seed))
        self._given = network if network is not None else model
        self._models: dict[Any, Any] = {}
        self._model = self._model_for(9)

    def _model_for(self, size: int) -> Any:
        """The model of ``size`` boards (its metadata read when first
        asked): the network or model given, else the shipped one of the
        size (:func:`imago.nn.evaluator.shipped_model`)."""
        given = self._given
        if given is not None and not isinstance(given, (str, os.PathLike)):
            return given
        path = given or shipped_model(size)
        if path not in self._models:
            try:
                self._models[path] = model_file(path)
            except FileNotFoundError as err:
                raise ValueError(f"policy: {err}") from None
        return self._models[path]

    def guide(self, size: int) -> str:
        model = self._model_for(size)
        path = getattr(model, "path", None)
        return f"network {Path(path).stem}" if path is not None else "a network"

    @property
    def network(self) -> Any:
        """The :class:`~imago.nn.networks.NeuralNetwork` of the last board
        size played (loaded on first use)."""
        return network_of(self._model)

    def check_size(self, size: int) -> None:
        self._model_for(size).check_size(size)

    def prepare(self, size: int) -> None:
        self._model = self._model_for(size)
        self._model.check_size(size)
        _ = self.network

    def evaluate(self, state: GameState, color: int) -> dict[str, np.ndarray]:
        """The network's outputs for ``color`` to move at ``state.current``,
        with ``policy`` masked: illegal moves and own-eye fills removed,
        renormalised (pass last)."""
        node = state.current
        board = node.board
        self._model = self._model_for(board.size)
        self.network.check_size(board.size)
        out = self.network.evaluate_nodes([node], [color])
        out = {k: v[0] for k, v in out.items()}
        mask = legal_mask(board, color)
        size = board.size
        for move in np.flatnonzero(mask[:-1]):
            if board.is_eye(move_to_point(int(move), size), color):
                mask[move] = False
        out["policy"] = self.network.mask_policy(out["policy"], mask)
        return out

    def move_probabilities(self, state: GameState, color: int) -> np.ndarray:
        """The masked policy over ``size*size + 1`` moves (pass last)."""
        return self.evaluate(state, color)["policy"]

    def choose_move(self, state: GameState, color: int,
                    seconds: Optional[float] = None) -> Optional[int]:
        size = state.board.size
        out = self.evaluate(state, color)
        last = state.current
        if last.is_pass and last.color != color and \
                self.wins_now(state, color, out.get("ownership")):
            return None
        probs = out["policy"]
        pass_index = size * size
        if probs[:pass_index].sum() <= 0:
            return None
        if self.temperature > 0:
            weights = probs ** (1.0 / self.temperature)
            weights /= weights.sum()
            move = int(self.rng.choice(len(weights), p=weights))
        else:
            move = int(np.argmax(probs))
        return move_to_point(move, size)

    @staticmethod
    def wins_now(state: GameState, color: int,
                 ownership: Optional[np.ndarray] = None) -> bool:
        """True if ``color`` wins the board as it stands by the engine's
        count (:func:`imago.game.count`, as ``final_score`` gives it).
        ``ownership`` (the network's, from ``color``'s side, one value per
        board point row by row) replaces the count's playout estimate when
        given."""
        board = state.board
        estimate = None if ownership is None else ownership_cells(board, ownership, color)
        return count(board, state.rules, state.to_move, estimate).winner == color


__all__ = ["PolicyAlgorithm", "DEFAULT_MODEL", "point_to_move"]
