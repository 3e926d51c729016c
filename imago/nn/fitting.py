"""The Keras side of training: a batch feeder, the per-epoch callbacks and
the fit call.

:mod:`imago.training` keeps the data, the configuration and the bookkeeping
and hands this module plain Python callables (make a batch, the learning
rate of an epoch, save a checkpoint, stop now?), so Keras stays inside
:mod:`imago.nn`. Keras is imported when a function here is called, not when
the module is imported.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable, Optional

import numpy as np

BatchMaker = Callable[[np.ndarray, Optional[np.random.Generator]], tuple[np.ndarray, dict]]


def set_random_seed(seed: int) -> None:
    """Seed Python, NumPy and the Keras back end, so runs repeat."""
    from .backend import keras

    keras.utils.set_random_seed(seed)


def batch_feeder(count: int, make_batch: BatchMaker, batch_size: int = 256,
                 augment: bool = True, shuffle: bool = True, seed: int = 0):
    """A ``keras.utils.PyDataset`` (works on every Keras back end) over
    ``count`` samples, reshuffled every epoch.

    ``make_batch(index, rng)`` returns ``(inputs, targets by head)`` for the
    sorted sample indices ``index``; ``rng`` is the feeder's generator when
    ``augment`` (for random symmetries), else ``None``.
    """
    from .backend import keras

    class Batches(keras.utils.PyDataset):
        def __init__(self):
            super().__init__()
            self.rng = np.random.default_rng(seed)
            self.order = np.arange(count)
            if shuffle:
                self.rng.shuffle(self.order)

        def __len__(self) -> int:
            return max(1, math.ceil(count / batch_size))

        def __getitem__(self, i: int):
            index = np.sort(self.order[i * batch_size:(i + 1) * batch_size])
            return make_batch(index, self.rng if augment else None)

        def on_epoch_end(self) -> None:
            if shuffle:
                self.rng.shuffle(self.order)

    return Batches()


def fit(net, train_batches, validation_batches=None, *, epochs: int, initial_epoch: int = 0,
        learning_rate: Callable[[int], float],
        on_epoch_end: Optional[Callable[[int, dict[str, float]], None]] = None,
        stop_after: Optional[Callable[[int, float], bool]] = None,
        logdir: Optional[str] = None, verbose: int = 1,
        log: Callable[[str], Any] = print) -> dict[str, list[float]]:
    """Train ``net`` (a compiled :class:`~imago.nn.networks.NeuralNetwork`)
    with Keras's fit loop; returns the history (each metric by epoch run).

    ``learning_rate(epoch)`` sets the rate of every epoch;
    ``on_epoch_end(epoch, logs)`` runs after each (checkpoints);
    ``stop_after(epoch, seconds the epoch took)`` ends training after that
    epoch when true; ``logdir`` writes TensorBoard logs when TensorBoard is
    installed, and says so through ``log`` when it is not.
    """
    from .backend import keras

    class EpochEnd(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            on_epoch_end(epoch, {k: float(v) for k, v in (logs or {}).items()})

    class StopAfter(keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            self.t0 = time.time()

        def on_epoch_end(self, epoch, logs=None):
            if stop_after(epoch, time.time() - self.t0):
                self.model.stop_training = True

    callbacks = [keras.callbacks.LearningRateScheduler(learning_rate)]
    if on_epoch_end is not None:
        callbacks.append(EpochEnd())
    if stop_after is not None:
        callbacks.append(StopAfter())
    if logdir:
        try:
            import tensorboard  # noqa: F401  (tf.summary needs it)
        except ImportError:
            log("TensorBoard is not installed (pip install tensorboard); no logs written")
        else:
            callbacks.append(keras.callbacks.TensorBoard(logdir))
    history = net.train(train_batches, validation_data=validation_batches, epochs=epochs,
                        initial_epoch=initial_epoch, callbacks=callbacks, verbose=verbose)
    return dict(history.history)


def train_steps(net, next_batch: Callable[[int], tuple[np.ndarray, dict]], steps: int, *,
                every: int = 20,
                on_report: Optional[Callable[[int, dict[str, float]], None]] = None
                ) -> list[dict[str, float]]:
    """Run ``steps`` gradient steps on ``net`` (a compiled
    :class:`~imago.nn.networks.NeuralNetwork`), one minibatch each, for
    training without epochs (a replay window sampled afresh every step).

    ``next_batch(step)`` returns ``(inputs, targets by head)``; it runs in
    one helper thread, a batch ahead, so drawing the next batch overlaps the
    current step (called in step order, never twice at once).
    ``on_report(step, logs)`` is called after every ``every`` steps and
    after the last, with the mean of each loss and metric over the steps
    since the previous report. Returns the logs of every step (floats).
    """
    from concurrent.futures import ThreadPoolExecutor

    history: list[dict[str, float]] = []
    if steps < 1:
        return history
    every = max(1, int(every))
    with ThreadPoolExecutor(1, thread_name_prefix="imago-batches") as pool:
        pending = pool.submit(next_batch, 0)
        for step in range(steps):
            x, y = pending.result()
            if step + 1 < steps:
                pending = pool.submit(next_batch, step + 1)
            logs = net.model.train_on_batch(x, y, return_dict=True)
            history.append({k: float(v) for k, v in logs.items()})
            done = step + 1
            if on_report is not None and (done % every == 0 or done == steps):
                recent = history[-((done - 1) % every + 1):]
                on_report(done, {k: float(np.mean([h[k] for h in recent])) for k in recent[0]})
    return history


__all__ = ["BatchMaker", "set_random_seed", "batch_feeder", "fit", "train_steps"]
