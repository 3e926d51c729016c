"""The mean of several networks' weights (a "model soup").

Networks continued from one parent on different data (records with a light
value loss, games of a stronger engine) drift apart in different directions;
the element-wise mean of their weights, batch-normalisation statistics
included, often plays better than either (Wortsman et al., 2022, "Model
soups"). This only makes sense for networks of one architecture grown from a
common parent: :func:`average_networks` refuses networks whose architecture,
input planes, heads or weight shapes differ.

Weights other than equal shares give any affine combination (the shares
sum to 1): a negative share on the parent steps past the soup along the way
it moved from the parent (``1.5 x soup - 0.5 x parent``), an experiment
worth a match; batch-normalisation variances stay non-negative.
"""

from __future__ import annotations

import math
import os
from typing import Optional, Sequence

import numpy as np

from .networks import NeuralNetwork, load_network


def _shape_of(net: NeuralNetwork, weights: list) -> tuple:
    return (net.architecture, net.plane_set, tuple(net.heads), tuple(w.shape for w in weights))


SHARE_TOLERANCE = 1e-6
"""How far from 1 the shares of a weighted combination may sum."""


def combination_shares(count: int, shares: Optional[Sequence[float]] = None) -> list[float]:
    """The share of each of ``count`` networks: equal without ``shares``;
    else ``shares`` themselves, checked (one a network, finite, summing to
    1). ValueError saying what is wrong."""
    if count < 2:
        raise ValueError("averaging needs at least two networks")
    if shares is None:
        return [1.0 / count] * count
    shares = [float(share) for share in shares]
    if len(shares) != count:
        raise ValueError(f"{len(shares)} weights for {count} networks: give one a network")
    if not all(math.isfinite(share) for share in shares):
        raise ValueError("the weights must be finite numbers")
    if abs(sum(shares) - 1.0) > SHARE_TOLERANCE:
        raise ValueError(f"the weights must sum to 1, not {sum(shares):g}")
    return shares


def average_networks(paths: Sequence[str | os.PathLike],
                     shares: Optional[Sequence[float]] = None) -> NeuralNetwork:
    """Load the networks at ``paths`` (at least two) and return the first
    with every weight replaced by the mean over all of them, or by the
    combination with ``shares`` (see :func:`combination_shares`).
    ValueError when they are not the same network shape."""
    shares = combination_shares(len(paths), shares)
    nets = [load_network(path) for path in paths]
    weights = [net.model.get_weights() for net in nets]
    first = _shape_of(nets[0], weights[0])
    for path, net, own in zip(paths[1:], nets[1:], weights[1:]):
        if _shape_of(net, own) != first:
            raise ValueError(f"{path} is not the same network as {paths[0]} (architecture, "
                             "input planes, heads or weight shapes differ)")
    mixed = []
    for variable, ws in zip(nets[0].model.weights, zip(*weights)):
        weight = sum(share * w.astype(np.float64) for share, w in zip(shares, ws))
        if "variance" in getattr(variable, "path", variable.name):
            weight = np.maximum(weight, 0.0)  # a step past the parents could go below 0
        mixed.append(weight.astype(ws[0].dtype))
    nets[0].model.set_weights(mixed)
    return nets[0]


__all__ = ["average_networks", "combination_shares"]
