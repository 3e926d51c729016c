"""The DecisionAlgorithm interface and the registry that picks one by name.

A decision algorithm chooses the move for a colour in a game state within a
time budget. The engine knows algorithms only through this interface, so a
new back end (random, policy network, MCTS, ...) is a class and one line in
``ALGORITHMS``. Entries are import paths, loaded on first use, so choosing
``random`` never imports TensorFlow.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import math
import threading
import time
from abc import ABC, abstractmethod
from typing import Any, Callable, Iterator, Optional

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

    def reseed(self, seed: Optional[int]) -> None:
        """Start afresh with ``seed``: the random state, and nothing kept from
        earlier searches, as a new instance so seeded would (a benchmark's
        tests then answer alike whatever ran before them)."""

    def guide(self, size: int) -> str:
        """What judges positions on ``size`` boards, in a few words for a
        front end ("network soup9", "random playouts"); "" for none."""
        return ""

    def check_size(self, size: int) -> None:
        """Raise ValueError, with the reason, when the algorithm cannot play
        ``size``x``size`` boards (a network made for 9x9 only). Cheap: the
        engine asks before it changes the board."""

    def prepare(self, size: int) -> None:
        """Load and warm up what the first move needs (a network: seconds).
        The engine calls it from a background thread at start, so it must
        be thread-safe; ``choose_move`` must work without it (waiting for a
        load already under way)."""

    def ponder(self, state: GameState, stop: Callable[[], bool]) -> int:
        """Think on the opponent's time: search ``state`` (the opponent to
        move) until ``stop()`` turns true or the algorithm's own limit, so
        that the next ``choose_move`` starts from what was found. Returns
        the visits added; 0 for an algorithm that does not ponder."""
        return 0

    def close(self) -> None:
        """Release resources (threads, models) at engine shutdown."""


def prepare_in_background(algorithm: DecisionAlgorithm, size: int) -> threading.Thread:
    """Run ``algorithm.prepare(size)`` (loading a network: seconds) in a
    daemon thread, so a front end answers at once; a failure is logged, and
    the first move meets it again with its reason."""
    log = logging.getLogger(__name__)

    def prepare() -> None:
        started = time.perf_counter()
        try:
            algorithm.prepare(size)
        except Exception as error:  # reported to the user by the first move
            log.warning("could not prepare %s: %s", algorithm.name, error)
            return
        seconds = time.perf_counter() - started
        if seconds >= 0.1:
            log.info("%s ready in %.1f s", algorithm.name, seconds)

    thread = threading.Thread(target=prepare, name=f"prepare-{algorithm.name}", daemon=True)
    thread.start()
    return thread


@contextlib.contextmanager
def pondering(algorithm: DecisionAlgorithm, state: GameState) -> Iterator[None]:
    """While the ``with`` block runs (a front end waiting for a person's
    move), let ``algorithm`` ponder ``state`` in a daemon thread; at the
    block's end it stops and is waited for, so the block's caller may then
    touch ``state`` and the algorithm again. A failure is logged."""
    done = threading.Event()

    def ponder() -> None:
        try:
            algorithm.ponder(state, done.is_set)
        except Exception:  # pondering is a bonus: never the end of a game
            logging.getLogger(__name__).exception("pondering failed")

    thread = threading.Thread(target=ponder, name=f"ponder-{algorithm.name}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def checked(name: str, value: Any, kind: type = float, low: Optional[float] = None,
            high: Optional[float] = None, above: Optional[float] = None) -> Any:
    """``value`` as ``kind`` (int or float), finite, at least ``low``, above
    ``above`` and at most ``high``; else ValueError naming option ``name``
    and what it takes. For options that come from a command line or GTP."""
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = math.nan
    if isinstance(value, bool) or not math.isfinite(number) \
            or (kind is int and number != int(number)):
        raise ValueError(f"{name} must be {'a whole' if kind is int else 'a finite'} number, "
                         f"not {value!r}")
    if (low is not None and number < low) or (high is not None and number > high) \
            or (above is not None and number <= above):
        limits = [f"at least {low:g}" if low is not None else "",
                  f"above {above:g}" if above is not None else "",
                  f"at most {high:g}" if high is not None else ""]
        raise ValueError(f"{name} must be {' and '.join(x for x in limits if x)}, "
                         f"not {value!r}")
    return kind(number)


def default_algorithm() -> str:
    """``mcts`` guided by the shipped residual network when the model file
    and Keras with its back end are installed; else ``uct``, which needs
    neither."""
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
    accepted = option_names(name) or set()
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


class UnknownOptionError(ValueError):
    """An option the algorithm does not take (the message names its options)."""


def option_names(name: str) -> Optional[set[str]]:
    """The options the algorithm ``name`` takes (None: any keyword)."""
    import inspect

    parameters = inspect.signature(algorithm_class(name).__init__).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return None
    return {p for p in parameters if p != "self"}


def create_algorithm(name: str, **options: Any) -> DecisionAlgorithm:
    """Instantiate the algorithm registered as ``name``.

    Raises ValueError naming the known algorithms for an unknown name, and
    the algorithm's options for an option it does not take (with the reason
    when a network's ``model`` reaches ``uct`` because no network can run).
    """
    accepted = option_names(name)
    unknown = sorted(set(options) - accepted) if accepted is not None else []
    if unknown:
        from imago.nn.evaluator import networks_can_run  # no TensorFlow import

        why = ""
        if "model" in unknown and not networks_can_run():
            why = (" (a network needs Keras with TensorFlow or JAX, which this Python lacks: "
                   "without them imago plays uct, with random playouts)")
        raise UnknownOptionError(f"the {name} algorithm has no option "
                                 f"{', '.join(repr(o) for o in unknown)}{why}; its options: "
                                 f"{', '.join(sorted(accepted))}")
    return algorithm_class(name)(**options)
