"""The DecisionAlgorithm interface and the registry that picks one by name.

A decision algorithm chooses the move for a colour in a game state within a
time budget. The engine knows algorithms only through this interface, so a
new back end (random, policy network, MCTS, ...) is a class and one line in
``ALGORITHMS``. Entries are import paths, loaded on first use, so choosing
``random`` never imports TensorFlow.
"""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from typing import Any, Optional

from imago.game import GameState

RESIGN = -1
"""Returned by :meth:`DecisionAlgorithm.choose_move` to resign."""


class DecisionAlgorithm(ABC):
    """Chooses moves. Subclasses set ``name`` and implement ``choose_move``.

    Options come from the command line (``--algorithm NAME`` plus its
    options) as keyword arguments; unknown options raise TypeError.
    """

    name = "abstract"

    @abstractmethod
    def choose_move(self, state: GameState, color: int,
                    seconds: Optional[float] = None) -> Optional[int]:
        """The move for ``color`` at ``state.current``: an internal point
        index, None to pass, or :data:`RESIGN`. ``seconds`` is the time the
        engine allows for this move (None: no limit; use the algorithm's own
        default effort). Must return a legal move and must not change
        ``state``."""

    def summary(self) -> Optional[dict]:
        """What the last ``choose_move`` saw, for display: ``winrate`` (for
        the player who moved, 0..1), ``visits`` and ``pv`` (points), or None
        when the algorithm has no such figures."""
        return None

    def new_game(self, state: GameState) -> None:
        """Called when the board is cleared or resized (drop caches)."""

    def close(self) -> None:
        """Release resources (threads, models) at engine shutdown."""


def default_algorithm() -> str:
    """``mcts`` guided by the shipped residual network when the model file
    and TensorFlow are installed; else ``uct``, which needs neither."""
    from imago.nn.evaluator import default_model_path  # no TensorFlow import

    return "mcts" if default_model_path() is not None else "uct"


DEFAULT_ALGORITHM = default_algorithm()
"""The algorithm imagocli.py and go.py use when none is named."""

ALGORITHMS: dict[str, str] = {
    "random": "imago.engine.random_algorithm:RandomAlgorithm",
    "policy": "imago.engine.policy_algorithm:PolicyAlgorithm",
    "uct": "imago.engine.uct:UCTAlgorithm",
    "mcts": "imago.engine.mcts_algorithm:MCTSAlgorithm",
}


def algorithm_names() -> list[str]:
    """The registered algorithm names."""
    return sorted(ALGORITHMS)


def algorithm_class(name: str) -> type:
    """The class registered as ``name`` (imported on first use)."""
    target = ALGORITHMS.get(name)
    if target is None:
        raise ValueError(f"unknown algorithm {name!r}; choose from {', '.join(algorithm_names())}")
    module_name, _, class_name = target.partition(":")
    return getattr(importlib.import_module(module_name), class_name)


def shared_options(name: str, visits: Optional[int] = None, no_resign: bool = False) -> dict:
    """Algorithm options for the command lines' ``--visits`` and
    ``--no-resign``, in the words the algorithm ``name`` understands.
    Raises ValueError when it has no such setting."""
    import inspect

    accepted = set(inspect.signature(algorithm_class(name).__init__).parameters)
    options: dict[str, Any] = {}
    if visits is not None:
        if "visits" not in accepted:
            raise ValueError(f"the {name} algorithm does not search, so --visits means nothing to it")
        options["visits"] = visits
    if no_resign:
        if "no_resign" in accepted:
            options["no_resign"] = True
        elif "resign_threshold" in accepted:
            options["resign_threshold"] = 0.0
    return options


def create_algorithm(name: str, **options: Any) -> DecisionAlgorithm:
    """Instantiate the algorithm registered as ``name``.

    Raises ValueError naming the known algorithms for an unknown name.
    """
    return algorithm_class(name)(**options)
