"""Training batches: shuffled samples with a random board symmetry per
sample, applied on the fly (the cache holds each position once).

:func:`make_batch` builds one batch with NumPy; :func:`batches` wraps it in
the Keras feeder of :mod:`imago.nn.fitting`, which imports Keras when called.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from imago.nn.features import augment_batch

from .data import Samples


def make_batch(samples: Samples, index: np.ndarray, heads: tuple[str, ...],
               rng: Optional[np.random.Generator], masked_ownership: bool = False
               ) -> tuple[np.ndarray, dict]:
    """``(planes float32, targets by head)`` of the samples at ``index``;
    with ``rng``, each sample gets a random one of the 8 symmetries. With
    ``masked_ownership`` the ownership targets end with each sample's 0/1
    weight (:func:`imago.nn.losses.masked_ownership_mse`): resigned and
    unsettled games teach no ownership."""
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
        if masked_ownership:
            weight = samples.own_mask[index].astype(np.float32)[:, None]
            y["ownership"] = np.concatenate([y["ownership"], weight], axis=1)
    return planes.astype(np.float32), y


def batches(samples: Samples, heads: tuple[str, ...], batch_size: int = 256,
            augment: bool = True, shuffle: bool = True, seed: int = 0,
            masked_ownership: bool = False):
    """A Keras ``PyDataset`` over ``samples`` (reshuffled every epoch)."""
    from imago.nn.fitting import batch_feeder

    return batch_feeder(len(samples),
                        lambda index, rng: make_batch(samples, index, heads, rng,
                                                      masked_ownership),
                        batch_size, augment, shuffle, seed)


__all__ = ["make_batch", "batches"]
