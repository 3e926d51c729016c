"""The training losses and metrics of imago's networks and the packing of
their targets: masked value, ownership and score losses (a 0/1 weight per
sample rides in the target's last column), the policy's cross-entropy
against a search's visit distribution, and the agreement metric that goes
with it. Registered with Keras by name, so saved models that name them load
wherever this module has been imported (:mod:`imago.nn.networks` does)."""

from __future__ import annotations

import numpy as np

from .backend import keras
from keras import ops  # after .backend: Keras is already imported, quietly


@keras.saving.register_keras_serializable(package="imago")
def masked_mse(y_true, y_pred):
    """Value loss: ``y_true[:, 0]`` is the outcome from the side to move,
    ``y_true[:, 1]`` a 0/1 weight (0: the game had no result)."""
    target = y_true[:, 0]
    weight = y_true[:, 1]
    err = ops.square(ops.reshape(y_pred, (-1,)) - target)
    return err * weight


@keras.saving.register_keras_serializable(package="imago")
def masked_ownership_mse(y_true, y_pred):
    """Ownership loss: ``y_true[:, :-1]`` the final owner of each point from
    the side to move, ``y_true[:, -1]`` a 0/1 weight (0: a game that ended
    by resignation, whose final position says little about ownership)."""
    weight = y_true[:, -1]
    return ops.mean(ops.square(y_pred - y_true[:, :-1]), axis=-1) * weight


@keras.saving.register_keras_serializable(package="imago")
def masked_score_huber(y_true, y_pred):
    """Score loss (Huber, quadratic within one :data:`imago.nn.features.SCORE_SCALE`):
    ``y_true[:, 0]`` the final lead from the side to move, komi included,
    divided by :data:`imago.nn.features.SCORE_SCALE`; ``y_true[:, 1]`` a 0/1 weight (0: the
    game was not counted)."""
    err = ops.abs(ops.reshape(y_pred, (-1,)) - y_true[:, 0])
    huber = ops.where(err < 1.0, 0.5 * ops.square(err), err - 0.5)
    return huber * y_true[:, 1]


def value_targets(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Pack value targets and their 0/1 weights for :func:`masked_mse`."""
    return np.stack([np.asarray(values, np.float32), np.asarray(mask, np.float32)], axis=1)


@keras.saving.register_keras_serializable(package="imago")
def weighted_policy_crossentropy(y_true, y_pred):
    """Policy loss against a target distribution (a search's visit counts):
    ``y_true[:, :-1]`` is the distribution over the ``size*size + 1``
    moves, ``y_true[:, -1]`` the sample's weight (0 drops it: a position
    played after a fast search whose visits are no target)."""
    target = y_true[:, :-1]
    weight = y_true[:, -1]
    probs = ops.clip(y_pred, 1e-7, 1.0)
    return -ops.sum(target * ops.log(probs), axis=-1) * weight


@keras.saving.register_keras_serializable(package="imago")
class TargetTop1(keras.metrics.Metric):
    """Share of weighted samples whose most probable move is the target
    distribution's most visited move (``y_true`` packed as for
    :func:`weighted_policy_crossentropy`; weight-0 samples do not count)."""

    def __init__(self, name: str = "top1", **kwargs):
        super().__init__(name=name, **kwargs)
        self.hits = self.add_variable(shape=(), initializer="zeros", name="hits")
        self.weighted = self.add_variable(shape=(), initializer="zeros", name="weight")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_true = ops.convert_to_tensor(y_true, "float32")
        weight = y_true[:, -1]
        same = ops.equal(ops.argmax(y_true[:, :-1], axis=-1), ops.argmax(y_pred, axis=-1))
        self.hits.assign_add(ops.sum(ops.cast(same, "float32") * weight))
        self.weighted.assign_add(ops.sum(weight))

    def result(self):
        return ops.divide_no_nan(self.hits, self.weighted)

    def reset_state(self):
        self.hits.assign(0.0)
        self.weighted.assign(0.0)


def policy_distribution_targets(policy: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """Pack target distributions ``(n, A)`` and per-sample weights ``(n,)``
    as ``(n, A + 1)`` for :func:`weighted_policy_crossentropy`."""
    policy = np.asarray(policy, np.float32)
    return np.concatenate([policy, np.asarray(weight, np.float32).reshape(-1, 1)], axis=1)
