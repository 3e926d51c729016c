"""Batches for Keras: shuffled samples with a random board symmetry per
sample, applied on the fly (the cache holds each position once).

:class:`Batches` is a ``keras.utils.PyDataset`` (works on every Keras back
end); Keras is imported when the class is first asked for.
"""

from __future__ import annotations

import math
from typing import Optional

import numpy as np

from imago.nn.features import augment_batch

from .data import Samples


def make_batch(samples: Samples, index: np.ndarray, heads: tuple[str, ...],
               rng: Optional[np.random.Generator]) -> tuple[np.ndarray, dict]:
    """``(planes float32, targets by head)`` of the samples at ``index``;
    with ``rng``, each sample gets a random one of the 8 symmetries."""
    planes = samples.planes[index]
    moves = samples.moves[index]
    own = samples.ownership[index] if "ownership" in heads else None
    if rng is not None:
        syms = rng.integers(0, 8, size=len(index))
        planes, moves, own = augment_batch(planes, moves, own, syms)
    y = {"policy": moves.astype(np.int32)}
    if "value" in heads:
        y["value"] = np.stack([samples.values[index],
                               samples.value_mask[index].astype(np.float32)], axis=1)
    if "ownership" in heads:
        y["ownership"] = own.astype(np.float32)
    return planes.astype(np.float32), y


def batches(samples: Samples, heads: tuple[str, ...], batch_size: int = 256,
            augment: bool = True, shuffle: bool = True, seed: int = 0):
    """A Keras ``PyDataset`` over ``samples`` (reshuffled every epoch)."""
    import keras

    class Batches(keras.utils.PyDataset):
        def __init__(self):
            super().__init__()
            self.rng = np.random.default_rng(seed)
            self.order = np.arange(len(samples))
            if shuffle:
                self.rng.shuffle(self.order)

        def __len__(self) -> int:
            return max(1, math.ceil(len(samples) / batch_size))

        def __getitem__(self, i: int):
            index = np.sort(self.order[i * batch_size:(i + 1) * batch_size])
            return make_batch(samples, index, heads, self.rng if augment else None)

        def on_epoch_end(self) -> None:
            if shuffle:
                self.rng.shuffle(self.order)

    return Batches()


__all__ = ["make_batch", "batches"]
