"""The Keras models of imago's three architectures, as plain functions of
their parameters: a dense and a convolutional policy network (the original
designs, baselines now) and the residual network every shipped model uses.

:mod:`imago.nn.networks` wraps each in a :class:`~imago.nn.networks.NeuralNetwork`
subclass that trains, saves, loads and evaluates it; this module only says
what the layers are. Plain Keras layers and ``keras.ops``, so the models run
on the JAX back end too.
"""

from __future__ import annotations

from typing import Any, Optional

from .backend import keras  # first: Keras without TensorFlow's start-up notices
from keras import layers, ops  # after .backend: Keras is already imported, quietly


@keras.saving.register_keras_serializable(package="imago")
class SizedPooling(layers.Layer):
    """Global pooling that knows the board's size: the mean of each channel,
    the mean scaled by ``(width - 14) / 10`` and the max (as KataGo pools),
    so one set of head weights can answer differently on 9x9 and 19x19."""

    def call(self, x):
        mean = ops.mean(x, axis=(1, 2))
        width = ops.cast(ops.shape(x)[1], x.dtype)
        return ops.concatenate([mean, mean * (width - 14.0) / 10.0,
                                ops.max(x, axis=(1, 2))], axis=-1)

    def compute_output_shape(self, input_shape):
        return (input_shape[0], 3 * input_shape[-1])


def dense_model(size: int, planes: int, regularizer, units: int = 81) -> keras.Model:
    """Policy only: two Dense(``units``) layers on every point's planes,
    Flatten, Dense(size*size + 1) softmax."""
    x = inp = keras.Input((size, size, planes), name="planes")
    x = layers.Dense(units, activation="relu", kernel_regularizer=regularizer)(x)
    x = layers.Dense(units, activation="relu", kernel_regularizer=regularizer)(x)
    x = layers.Flatten()(x)
    policy = layers.Dense(size * size + 1, activation="softmax", kernel_regularizer=regularizer,
                          name="policy")(x)
    return keras.Model(inp, {"policy": policy}, name="dense")


def conv_model(size: int, planes: int, regularizer, filters: int = 32) -> keras.Model:
    """Policy only: two (Conv 3x3, MaxPooling 2x2) pairs, Flatten,
    Dense(size*size + 1) softmax."""
    x = inp = keras.Input((size, size, planes), name="planes")
    for f in (filters, 2 * filters):
        x = layers.Conv2D(f, 3, padding="same", activation="relu",
                          kernel_regularizer=regularizer)(x)
        x = layers.MaxPooling2D(2, padding="same")(x)
    x = layers.Flatten()(x)
    policy = layers.Dense(size * size + 1, activation="softmax", kernel_regularizer=regularizer,
                          name="policy")(x)
    return keras.Model(inp, {"policy": policy}, name="conv")


def residual_model(planes: int, params: dict[str, Any], regularizer, score: bool,
                   dtype: Optional[str] = None, folded: bool = False,
                   record: Optional[list] = None) -> keras.Model:
    """The residual network (see :class:`~imago.nn.networks.ResidualNeuralNetwork`)
    for any board size: ``params`` gives ``blocks``, ``filters``,
    ``head_filters`` and ``pooling``; ``score`` adds the score head.
    ``folded``: every convolution's batch normalisation folded into it (a
    bias instead of a layer: inference only); ``record`` collects the layers
    with weights in the order they are made, each convolution followed by
    its normalisation unless folded."""
    reg = regularizer
    blocks = int(params.get("blocks", 6))
    filters = int(params.get("filters", 64))
    head = int(params.get("head_filters", 32))
    pooling = params.get("pooling", "mean")
    if pooling not in ("mean", "sized"):
        raise ValueError(f"unknown pooling {pooling!r}; choose mean or sized")
    last = None if dtype is None else "float32"  # the heads' answers keep full precision

    def kept(layer):
        if record is not None:
            record.append(layer)
        return layer

    def conv_bn(x, f, k=3):
        """A convolution and its batch normalisation (or the two folded)."""
        x = kept(layers.Conv2D(f, k, padding="same", use_bias=folded,
                               kernel_regularizer=reg, dtype=dtype))(x)
        if folded:
            return x
        return kept(layers.BatchNormalization(epsilon=1e-5, dtype=dtype))(x)

    def relu(x):
        return layers.ReLU(dtype=dtype)(x)

    def pool(x):
        return (SizedPooling(dtype=dtype)(x) if pooling == "sized"
                else layers.GlobalAveragePooling2D(dtype=dtype)(x))

    inp = keras.Input((None, None, planes), name="planes")
    x = relu(conv_bn(inp, filters))
    for _ in range(blocks):
        skip = x
        y = relu(conv_bn(x, filters))
        y = conv_bn(y, filters)
        x = relu(layers.Add(dtype=dtype)([skip, y]))

    p = relu(conv_bn(x, head, 1))
    points = layers.Flatten(dtype=last)(
        kept(layers.Conv2D(1, 1, kernel_regularizer=reg, dtype=last))(p))
    pass_logit = kept(layers.Dense(1, kernel_regularizer=reg, dtype=last))(pool(p))
    policy = layers.Softmax(name="policy", dtype=last)(
        layers.Concatenate(dtype=last)([points, pass_logit]))

    v = relu(conv_bn(x, head, 1))
    v = pool(v)
    v = kept(layers.Dense(64, activation="relu", kernel_regularizer=reg, dtype=dtype))(v)
    value = kept(layers.Dense(1, activation="tanh", kernel_regularizer=reg, name="value",
                              dtype=last))(v)
    outputs = {"policy": policy, "value": value}

    o = kept(layers.Conv2D(1, 1, activation="tanh", kernel_regularizer=reg, dtype=last))(x)
    outputs["ownership"] = layers.Flatten(name="ownership", dtype=last)(o)
    if score:
        outputs["score"] = kept(layers.Dense(1, kernel_regularizer=reg, name="score",
                                             dtype=last))(v)
    return keras.Model(inp, outputs, name=f"residual_{blocks}x{filters}")


__all__ = ["SizedPooling", "conv_model", "dense_model", "residual_model"]
