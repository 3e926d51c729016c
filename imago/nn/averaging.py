"""The mean of several networks' weights (a "model soup").

Networks continued from one parent on different data (records with a light
value loss, games of a stronger engine) drift apart in different directions;
the element-wise mean of their weights, batch-normalisation statistics
included, often plays better than either (Wortsman et al., 2022, "Model
soups"). This only makes sense for networks of one architecture grown from a
common parent: :func:`average_networks` refuses networks whose architecture,
input planes, heads or weight shapes differ.
"""

from __future__ import annotations

import os
from typing import Sequence

import numpy as np

from .networks import NeuralNetwork, load_network


def _shape_of(net: NeuralNetwork, weights: list) -> tuple:
    return (net.architecture, net.plane_set, tuple(net.heads), tuple(w.shape for w in weights))


def average_networks(paths: Sequence[str | os.PathLike]) -> NeuralNetwork:
    """Load the networks at ``paths`` (at least two) and return the first
    with every weight replaced by the mean over all of them. ValueError
    when they are not the same network shape."""
    if len(paths) < 2:
        raise ValueError("averaging needs at least two networks")
    nets = [load_network(path) for path in paths]
    weights = [net.model.get_weights() for net in nets]
    first = _shape_of(nets[0], weights[0])
    for path, net, own in zip(paths[1:], nets[1:], weights[1:]):
        if _shape_of(net, own) != first:
            raise ValueError(f"{path} is not the same network as {paths[0]} (architecture, "
                             "input planes, heads or weight shapes differ)")
    nets[0].model.set_weights([np.mean(np.stack(ws), axis=0).astype(ws[0].dtype)
                               for ws in zip(*weights)])
    return nets[0]


__all__ = ["average_networks"]
