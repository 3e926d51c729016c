"""The bridge from tree search to a network: priors, values, ownership.

:class:`NetworkEvaluator` is what :class:`imago.search.mcts.PUCTSearch`
calls with a batch of positions; one compiled network call answers the whole
batch. Positions are anything with ``board``, ``parent`` and ``to_move``
(game-tree nodes or search nodes), so history planes are encoded from the
search path.

Given a model file, the evaluator reads its metadata at once and loads the
network (and TensorFlow) only when the first batch comes, perhaps from a
background thread (an algorithm's ``prepare``) while an engine already
answers its controller.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Optional, Sequence, Union

import numpy as np

from imago.game import BLACK, GameState

from .features import DEFAULT_KOMI, HISTORY, ownership_cells
from .modelfile import MODELS_DIR, ModelFile, network_of

log = logging.getLogger("imago.nn")

DEFAULT_MODEL = MODELS_DIR / "soup.keras"
"""The shipped network of the board sizes without one of their own
(:data:`SIZE_MODELS`), 19x19 among them: the mean of the weights
of two continuations of ``rl9s.keras`` (the multi-size network after a 9x9
self-play iteration and the records of every size), one on the records with
a light value loss, one on KataGo's 8-visit 9x9 games: stronger than rl9s on
9x9 at equal visits, level on 19x19 (models/README.md)."""
SIZE_MODELS = {5: MODELS_DIR / "residual5.keras", 9: MODELS_DIR / "soup9.keras",
               13: MODELS_DIR / "rl13x3.keras"}
"""Board sizes with a shipped network of their own: 5x5 (the multi-size
network taught 5x5 by self-play, which the records of 9x9 to 19x19 games
never did), 9x9 (``soup.keras`` after one iteration of the self-play loop on
9x9: stronger there at equal visits and against the fixed anchors) and 13x13
(generation 3 of the 13x13 loop rl13x, from ``rl13t4.keras``, itself
``soup.keras`` after four iterations of that loop's trainer: 64-36 against
rl13t4 head to head, ahead of it against KataGo's raw policy, 19 of 20
against GNU Go level 10 at 1 s a move).
19x19 and the other sizes keep ``soup.keras``."""


def shipped_model(size: int = 9) -> Path:
    """The shipped network for ``size`` boards: the size's own network
    (:data:`SIZE_MODELS`), else the one network of every other size
    (:data:`DEFAULT_MODEL`)."""
    path = SIZE_MODELS.get(size)
    return path if path is not None and path.exists() else DEFAULT_MODEL


def keras_backend() -> str:
    """The back end Keras runs on: ``$KERAS_BACKEND``, TensorFlow by default."""
    return os.environ.get("KERAS_BACKEND", "tensorflow")


def networks_can_run() -> bool:
    """Whether Keras and its back end (:func:`keras_backend`: TensorFlow,
    or JAX on a machine that has only that) are installed, without
    importing either."""
    from importlib.util import find_spec

    try:
        return find_spec("keras") is not None and find_spec(keras_backend()) is not None
    except (ImportError, ValueError):  # a back end named "a.b" (or "") whose package is absent
        return False


def default_model_path(size: int = 9) -> Optional[Path]:
    """The shipped model for ``size`` boards (:func:`shipped_model`), if it
    is installed and networks can run (:func:`networks_can_run`)."""
    path = shipped_model(size)
    return path if path.exists() and networks_can_run() else None


def set_network_threads(threads: int) -> Optional[str]:
    """Run the network's operations on ``threads`` CPU threads; None when
    done, or why not (the back end started its thread pools already, or is
    not TensorFlow), in words for a log line."""
    backend = keras_backend()
    if backend != "tensorflow":
        return f"the network's threads are left to the {backend} back end"
    from .backend import quietly

    tf = quietly(lambda: __import__("tensorflow"))  # without its start-up notices

    if tf.config.threading.get_intra_op_parallelism_threads() == threads:
        return None
    try:
        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(1)
    except RuntimeError:
        return "TensorFlow had started already; the network keeps its threads"
    return None


def load_keras_network(path: Path):
    """:func:`imago.nn.networks.load_network` (imports TensorFlow)."""
    from .networks import load_network

    return load_network(path)


def model_file(path: Union[str, os.PathLike]) -> ModelFile:
    """The model at ``path``, its metadata read now and its network loaded
    on first use."""
    return ModelFile(path, load_keras_network)


SYMMETRY_MODES = ("random", "none")


class Evaluation(tuple):
    """An evaluator's answer for a batch: the pair ``(priors, values)``
    (so ``priors, values = answer`` works as it always did) carrying
    ``margins`` too when the evaluator predicts the game's outcome in points:
    the expected area of the player to move minus the opponent's, komi
    left out (the search adds the komi of its game), and ``ownership``
    (``(n, size*size)``, row-major from the top-left, +1 for the player to
    move). Each None when unknown."""

    margins: Optional[np.ndarray]
    ownership: Optional[np.ndarray]

    def __new__(cls, priors, values, margins: Optional[np.ndarray] = None,
                ownership: Optional[np.ndarray] = None) -> "Evaluation":
        answer = super().__new__(cls, (priors, values))
        answer.margins = margins
        answer.ownership = ownership
        return answer


class NetworkEvaluator:
    """Evaluates batches of positions with a policy(-value(-ownership))
    network. A network without a value head gives value 0 (the search then
    leans on its priors).

    ``symmetries="random"`` (the default) turns each leaf by a random one of
    the 8 board symmetries, as Leela Zero does, so the search averages the
    network's orientation-dependent mistakes away instead of meeting the same
    one in every transposition. With it, roots
    (:meth:`evaluate_all_symmetries`) and ownership get the mean over all 8.
    ``"none"`` evaluates every board as it stands.

    ``threads`` sets the network's CPU threads before a model file is
    loaded (:func:`set_network_threads`; default: the back end's own).
    """

    def __init__(self, model: Union[str, os.PathLike, object], batch_size: int = 8,
                 symmetries: str = "random", seed: Optional[int] = None,
                 threads: Optional[int] = None):
        if symmetries not in SYMMETRY_MODES:
            raise ValueError(f"symmetries must be one of {', '.join(SYMMETRY_MODES)}, "
                             f"not {symmetries!r}")
        if isinstance(model, (str, os.PathLike)):
            model = model_file(model)
        self._model = model
        self.batch_size = batch_size
        self.symmetries = symmetries
        self.rng = np.random.default_rng(seed)
        self.history = 1 if model.plane_set == "basic" else HISTORY
        self._lock = threading.Lock()  # one network call at a time (a pipelined pool's thread)
        self._threads = threads  # set before the network loads, then done with

    @property
    def network(self):
        """The :class:`~imago.nn.networks.NeuralNetwork` (loaded on first use,
        with the evaluator's thread count)."""
        if self._threads is not None and isinstance(self._model, ModelFile):
            problem = None if self._model.loaded else set_network_threads(self._threads)
            if problem:
                log.warning("network threads: %s", problem)
            self._threads = None
        return network_of(self._model)

    @property
    def path(self) -> Optional[Path]:
        """The model file (None for a network given as an object)."""
        return self._model.path if isinstance(self._model, ModelFile) else None

    def check_size(self, size: int) -> None:
        """Raise :class:`~imago.nn.modelfile.ModelSizeError` (a ValueError)
        when the network cannot play ``size`` (read from its metadata)."""
        self._model.check_size(size)

    def reseed(self, seed: Optional[int]) -> None:
        """Draw the leaves' random symmetries afresh from ``seed``."""
        self.rng = np.random.default_rng(seed)

    def warm_up(self, size: int) -> None:
        """One network call on an empty ``size`` board, paying its trace and
        compilation now. It draws no random symmetry: a warm-up made after a
        reseed (a new board size) leaves the seeded draws as they were."""
        self.raw(GameState(size).current, symmetry=0)

    def evaluate(self, nodes: Sequence) -> Evaluation:
        """Priors ``(n, size*size + 1)`` and values ``(n,)`` for a batch of
        one board size (for mixed sizes, a list of prior rows), and margins
        when the network has an ownership head."""
        return self._by_size(nodes, self._evaluate)

    def evaluate_all_symmetries(self, nodes: Sequence) -> Evaluation:
        """Like :meth:`evaluate`, averaged over the 8 symmetries: for the
        few positions whose answer matters most (the search's root)."""
        return self._by_size(nodes, lambda group: self._split(self._averaged(group), group))

    def _evaluate(self, nodes: Sequence) -> Evaluation:
        with self._lock:
            syms = None
            if self.symmetries == "random":
                syms = self.rng.integers(0, 8, size=len(nodes))
            out = self.network.evaluate_nodes(nodes, symmetries=syms)
        return self._split(out, nodes)

    @staticmethod
    def _by_size(nodes: Sequence, evaluate) -> Evaluation:
        """``evaluate`` per board size, the answers put back in order."""
        sizes = {node.board.size for node in nodes}
        if len(sizes) <= 1:
            return evaluate(nodes)
        priors: list = [None] * len(nodes)
        values = np.zeros(len(nodes), dtype=np.float32)
        margins: Optional[np.ndarray] = np.zeros(len(nodes), dtype=np.float32)
        for size in sizes:
            index = [i for i, node in enumerate(nodes) if node.board.size == size]
            answer = evaluate([nodes[i] for i in index])
            for k, i in enumerate(index):
                priors[i] = answer[0][k]
            values[index] = answer[1]
            if answer.margins is None or margins is None:
                margins = None
            else:
                margins[index] = answer.margins
        return Evaluation(priors, values, margins)  # ownership rows differ in length

    def _averaged(self, nodes: Sequence, colors: Optional[Sequence[int]] = None,
                  always: bool = False) -> dict:
        """Every head's answer for ``nodes``, the mean over the 8 board
        symmetries (as the evaluator's symmetries say; ``always``: even
        when they are off)."""
        with self._lock:
            if self.symmetries == "none" and not always:
                return self.network.evaluate_nodes(nodes, colors)
            from .features import encode_batch

            planes = encode_batch(nodes, self.network.plane_set, colors)
            return self.network.evaluate_averaged(planes)

    @staticmethod
    def _split(out: dict, nodes: Sequence) -> Evaluation:
        """The answer's priors and values, with the margin (komi left out,
        from the view of the player to move) taken from the score head, or
        else the ownership head's sum."""
        value = out.get("value")
        if value is None:
            value = np.zeros(len(nodes), dtype=np.float32)
        ownership = out.get("ownership")
        margins = None if ownership is None else ownership.sum(axis=1)
        if "score" in out:
            # the score head's lead has the komi in it; margins leave it out
            komi = np.array([getattr(n, "komi", DEFAULT_KOMI) for n in nodes], np.float32)
            black = np.array([n.to_move == BLACK for n in nodes])
            margins = out["score"] + np.where(black, komi, -komi)
        return Evaluation(out["policy"], value, margins, ownership)

    def raw(self, node, symmetry: Optional[int] = None) -> dict[str, np.ndarray]:
        """Every head's answer for one position as the network gives it,
        from its player to move's side (``policy`` over the points and the
        pass, ``value`` in [-1, 1], ``ownership``, ``score``: the lead with
        the komi in it, where the network has those heads): under board
        ``symmetry`` (0-7, the answer turned back) or, with None, the mean
        over all 8. KataGo's ``kata-raw-nn`` shows such answers."""
        if symmetry is None:
            out = self._averaged([node], always=True)
        else:
            with self._lock:
                out = self.network.evaluate_nodes([node], symmetries=[symmetry])
        return {name: np.asarray(values[0]) for name, values in out.items()}

    def ownerships(self, nodes: Sequence, averaged: bool = True) -> Optional[np.ndarray]:
        """Ownership ``(n, size*size)`` of positions of one size, row-major
        from the top-left, +1 for each one's player to move: the 8-symmetry
        mean (unless symmetries are off), or with ``averaged=False`` one
        random symmetry each (8 times cheaper, for many positions at once).
        None without an ownership head."""
        if averaged:
            return self._averaged(nodes).get("ownership")
        return self._evaluate(nodes).ownership

    def ownership(self, node, to_move: int) -> Optional[list[float]]:
        """Ownership of every cell of the board's array, +1 for Black (None
        when the network has no ownership head)."""
        own = self._averaged([node], [to_move]).get("ownership")
        if own is None:
            return None
        return ownership_cells(node.board, own[0], to_move)
