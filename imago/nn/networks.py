"""Keras networks: a base class with create/train/save/load/evaluate and
three architectures (dense, convolutional, residual; their layers are in
:mod:`imago.nn.architectures`).

Importing this module imports Keras (and TensorFlow, its default back end);
nothing in imago imports it until a network is built, loaded or trained.
Model code uses plain Keras layers and ``keras.ops`` only, so it runs on the
JAX back end too; inference goes through one compiled function per input
shape (a ``tf.function`` with a fixed signature and a free batch dimension
on TensorFlow, ``jax.jit`` elsewhere) and always takes batches. A residual
network that is not being trained infers through a copy of its model with
every batch normalisation folded into its convolution, in bfloat16 where
the processor computes it natively (:mod:`imago.nn.precision`; the heads'
last layers stay in float32): about twice as many positions a second.

A model is saved as ``NAME.keras`` plus a metadata sidecar ``NAME.json``:
architecture and its parameters, board size(s), plane set, training data,
metrics, date. :meth:`NeuralNetwork.load` reads both and refuses, with a
message that says why, a model trained for another board size.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

from imago.fileio import replacing, replacing_name

from .backend import keras  # first: Keras without TensorFlow's start-up notices
from keras import layers  # after .backend: Keras is already imported, quietly

from .architectures import SizedPooling, conv_model, dense_model, residual_model
from .features import (SCORE_SCALE, augment_batch, encode_batch, legal_mask, num_planes,
                       symmetry_tables)
from .losses import (TargetTop1, masked_mse, masked_ownership_mse, masked_score_huber,
                     policy_distribution_targets, value_targets, weighted_policy_crossentropy)
from .modelfile import (ModelSizeError, find_model, metadata_path, read_metadata,
                        size_problem)
from .precision import inference_precision

METADATA_VERSION = 1

SHAPE_COMPILING_BACKENDS = ("jax",)
"""Back ends whose compiled calls are traced again for every new input shape:
:meth:`NeuralNetwork.evaluate` pads their batches to a few sizes
(:func:`padded_batch_size`), or a search's ever-changing batch sizes would
compile one program each (TensorFlow's ``tf.function`` takes any batch)."""


def padded_batch_size(n: int) -> int:
    """The batch size ``n`` positions are padded to where each new shape
    compiles: 1, 2, 4, 8, 16, then steps of at most half again (24, 32, 48,
    64, 96, ...), so a search's batches use about a dozen shapes and, above
    16 positions, at most a third of a batch is padding."""
    if n <= 16:
        return 1 << max(0, (n - 1).bit_length())
    size = 16
    while size < n:
        size = size * 3 // 2 if size & (size - 1) == 0 else size * 4 // 3
    return size


# ------------------------------------------------------------------ base class
def jax_inference(model: keras.Model, live: bool):
    """``model`` compiled by ``jax.jit`` for inference. jax.jit bakes the
    variables a traced call reads into the program as constants, which
    suits an inference copy (never changed) but not a model in training:
    ``live`` passes the variables as arguments on every call, so the answer
    follows the weights as they learn."""
    import jax

    if not live:
        return jax.jit(lambda x: model(x, training=False))
    program = jax.jit(lambda trainable, fixed, x:
                      model.stateless_call(trainable, fixed, x, training=False)[0])
    return lambda x: program([v.value for v in model.trainable_variables],
                             [v.value for v in model.non_trainable_variables], x)


class NeuralNetwork:
    """A Go network over one plane set. ``heads`` names its outputs among
    ``policy`` (``size*size + 1`` probabilities, pass last), ``value``
    (tanh, from the side to move) and ``ownership`` (``size*size`` in
    [-1, 1], from the side to move).

    Subclasses set ``architecture`` and ``heads`` and implement
    :meth:`build_model`.
    """

    architecture = "abstract"
    heads: tuple[str, ...] = ("policy",)
    any_size = False  # True when the model plays boards of other sizes too
    has_inference_copy = False  # build_model(dtype, folded, record) makes a faster copy

    def __init__(self, board_size: int = 9, plane_set: str = "history",
                 l2: float = 1e-4, **params: Any):
        self.board_size = board_size
        self.plane_set = plane_set
        self.planes = num_planes(plane_set)
        self.l2 = l2
        self.params = params
        self.model: Optional[keras.Model] = None
        self.metadata: dict[str, Any] = {}
        self._infer: dict[tuple[int, int, str, bool], Any] = {}
        self.for_training = False  # compiled for training: infer with the live weights
        self.wanted_precision: Optional[str] = None  # float32 / bfloat16; None: the machine's
        self._inference_models: dict[str, keras.Model] = {}

    # -------------------------------------------------------------- building
    def regularizer(self):
        return keras.regularizers.L2(self.l2) if self.l2 else None

    def build_model(self, dtype: Optional[str] = None, folded: bool = False,
                    record: Optional[list] = None) -> keras.Model:
        """The Keras model. Where :attr:`has_inference_copy` says so, also
        ``dtype`` (a Keras dtype policy for its layers: ``mixed_bfloat16``),
        ``folded`` and ``record`` (see :meth:`inference_copy`)."""
        raise NotImplementedError

    def create(self) -> "NeuralNetwork":
        """Build a new, untrained model."""
        self.model = self.build_model()
        self.weights_changed()
        return self

    def weights_changed(self) -> None:
        """Drop the inference copies: call after changing :attr:`model`'s
        weights directly (training through :meth:`compile` needs no call:
        a network compiled for training infers with its live weights)."""
        self._infer = {}
        self._inference_models = {}

    @property
    def precision(self) -> str:
        """``bfloat16`` or ``float32``: what :meth:`evaluate` computes in
        (:attr:`wanted_precision`, else the machine's choice). A network
        compiled for training always infers in float32 with its live weights
        (a copy would hold stale ones)."""
        if self.for_training or not self.has_inference_copy:
            return "float32"
        return self.wanted_precision or inference_precision(keras.backend.backend())

    @property
    def ownership_masked(self) -> bool:
        """Whether the model is compiled with the masked ownership loss
        (:func:`~imago.nn.losses.masked_ownership_mse`), whose targets end
        with a 0/1 weight per sample: a checkpoint keeps the loss it was
        compiled with."""
        losses = getattr(self.model, "loss", None)
        loss = losses.get("ownership") if hasattr(losses, "get") else None
        return getattr(loss, "__name__", None) == masked_ownership_mse.__name__

    def compile(self, optimizer: str = "adam", learning_rate: float = 1e-3,
                momentum: float = 0.9, loss_weights: Optional[dict[str, float]] = None,
                policy_target: str = "moves", masked_ownership: bool = False) -> None:
        """Compile for training: policy cross-entropy, value MSE (games
        without a result are weighted 0), ownership MSE; the L2 penalty sits
        on the layers. ``optimizer`` is ``adam`` or ``sgd`` (with Nesterov
        momentum). ``policy_target`` ``moves``: the policy learns the move
        played (sparse labels, top-1/top-3 metrics; see :meth:`targets`);
        ``distribution``: a search's visit distribution with a per-sample
        weight (:func:`weighted_policy_crossentropy`, a ``top1`` agreement
        with the most visited move; see :meth:`distribution_targets`)."""
        if policy_target not in ("moves", "distribution"):
            raise ValueError(f"unknown policy target {policy_target!r}; "
                             "choose moves or distribution")
        self.for_training = True
        self.weights_changed()
        if optimizer == "sgd":
            opt = keras.optimizers.SGD(learning_rate, momentum=momentum, nesterov=True)
        elif optimizer == "adam":
            opt = keras.optimizers.Adam(learning_rate)
        else:
            raise ValueError(f"unknown optimizer {optimizer!r}; choose adam or sgd")
        all_losses = {"policy": "sparse_categorical_crossentropy", "value": masked_mse,
                      "ownership": "mse"}
        policy_metrics = [keras.metrics.SparseCategoricalAccuracy(name="top1"),
                          keras.metrics.SparseTopKCategoricalAccuracy(3, name="top3")]
        if policy_target == "distribution":
            all_losses["policy"] = weighted_policy_crossentropy
            policy_metrics = [TargetTop1(name="top1")]
        if masked_ownership:
            all_losses["ownership"] = masked_ownership_mse
        all_losses["score"] = masked_score_huber
        weights = {"policy": 1.0, "value": 1.0, "ownership": 1.0, "score": 1.0}
        weights.update(loss_weights or {})
        self.model.compile(
            optimizer=opt,
            loss={h: all_losses[h] for h in self.heads},
            loss_weights={h: weights[h] for h in self.heads},
            metrics={"policy": policy_metrics},
        )

    def train_only(self, heads: Sequence[str]) -> int:
        """Freeze every layer except those that serve ``heads`` alone (for
        ``("value",)``: the value head's own convolution, pooling and dense
        layers; the shared trunk stays as it is). Frozen batch normalisation
        keeps its statistics. Call before :meth:`compile`; returns the number
        of trainable weights left."""
        unknown = set(heads) - set(self.heads)
        if unknown:
            raise ValueError(f"this network has no {', '.join(sorted(unknown))} head; "
                             f"its heads are {', '.join(self.heads)}")
        model = self.model

        def layers_of(head: str) -> set[int]:
            sub = keras.Model(model.inputs, model.get_layer(head).output)
            return {id(layer) for layer in sub.layers}

        keep = set().union(*(layers_of(h) for h in heads))
        keep -= set().union(*(layers_of(h) for h in self.heads if h not in heads), set())
        for layer in model.layers:
            layer.trainable = id(layer) in keep
        return int(sum(np.prod(w.shape) for w in model.trainable_weights))

    def train(self, x, y=None, **fit_args):
        """``keras.Model.fit`` on this network's model (arrays or a dataset);
        ``y`` is a dict by head (see :meth:`targets`)."""
        return self.model.fit(x, y, **fit_args)

    def targets(self, moves, values=None, value_mask=None, ownership=None) -> dict:
        """Training targets in the form the compiled losses expect."""
        y = {"policy": np.asarray(moves, np.int32)}
        if "value" in self.heads:
            y["value"] = value_targets(values, value_mask)
        if "ownership" in self.heads:
            y["ownership"] = np.asarray(ownership, np.float32)
        return y

    def distribution_targets(self, policy, weight, value=None, ownership=None,
                             score=None, score_weight=None) -> dict:
        """Targets for ``compile(policy_target="distribution")``: the search
        distributions ``(n, size*size+1)`` with their 0/1 weights, the
        outcomes ``(n,)`` (all weighted 1), the final ownership
        ``(n, size*size)`` and the final lead in points ``(n,)`` (komi
        included; divided by :data:`SCORE_SCALE` here) with its 0/1 weights
        (default 1; without ``score`` every weight is 0), all from the
        mover's view; the heads this network lacks are left out."""
        y = {"policy": policy_distribution_targets(policy, weight)}
        n = len(y["policy"])
        if "value" in self.heads:
            y["value"] = value_targets(value, np.ones(n, np.float32))
        if "ownership" in self.heads:
            y["ownership"] = np.asarray(ownership, np.float32)
        if "score" in self.heads:
            if score is None:
                lead, mask = np.zeros(n, np.float32), np.zeros(n, np.float32)
            else:
                lead = np.asarray(score, np.float32).reshape(-1) / SCORE_SCALE
                mask = (np.ones(n, np.float32) if score_weight is None
                        else np.asarray(score_weight, np.float32).reshape(-1))
            y["score"] = value_targets(lead, mask)
        return y

    # -------------------------------------------------------------- inference
    def _model_for_inference(self) -> keras.Model:
        """The model itself while it trains, else its inference copy in the
        chosen precision (made once)."""
        if self.for_training or not self.has_inference_copy:
            return self.model
        precision = self.precision
        if precision not in self._inference_models:
            self._inference_models[precision] = self.inference_copy(precision)
        return self._inference_models[precision]

    @contextlib.contextmanager
    def answering_with(self, live: bool, precision: Optional[str] = None):
        """Within the block, :meth:`evaluate` answers with the model itself
        (``live``, as while it trains) or with its inference copy in
        ``precision``; the previous choice comes back afterwards, even on an
        error. For measurements comparing the two (``imago.bench nn``)."""
        before = self.for_training, self.wanted_precision
        self.for_training, self.wanted_precision = live, precision
        try:
            yield self
        finally:
            self.for_training, self.wanted_precision = before

    def inference_copy(self, precision: str = "float32") -> keras.Model:
        """A copy of the model that answers the same, faster: each batch
        normalisation folded into the convolution before it (its scale into
        the kernel, its shift into a bias: one layer instead of two, and no
        float32 round trip in bfloat16), in ``precision`` (``float32`` or
        ``bfloat16``, the heads' last layers in float32). Its weights are a
        snapshot (see :meth:`weights_changed`)."""
        plain: list = []
        template = self.build_model(record=plain)
        template.set_weights(self.model.get_weights())
        fast: list = []
        copy = self.build_model(dtype=None if precision == "float32" else "mixed_bfloat16",
                                folded=True, record=fast)
        source = iter(plain)
        for layer in fast:
            original = next(source)
            weights = original.get_weights()
            if isinstance(layer, layers.Conv2D) and layer.use_bias and not original.use_bias:
                norm = next(source)
                scale = (np.asarray(norm.gamma) /
                         np.sqrt(np.asarray(norm.moving_variance) + norm.epsilon))
                shift = np.asarray(norm.beta) - np.asarray(norm.moving_mean) * scale
                weights = [weights[0] * scale, shift]
            layer.set_weights(weights)
        return copy

    def _compiled(self, size: int):
        key = (size, self.planes, self.precision, self.for_training)  # which model answers
        fn = self._infer.get(key)
        if fn is None:
            model = self._model_for_inference()
            if keras.backend.backend() == "tensorflow":
                import tensorflow as tf

                spec = tf.TensorSpec([None, size, size, self.planes], tf.float32)
                fn = tf.function(lambda x: model(x, training=False), input_signature=[spec])
            elif keras.backend.backend() == "jax":
                fn = jax_inference(model, live=self.for_training)
            else:
                fn = lambda x: model(x, training=False)  # noqa: E731
            self._infer[key] = fn
        return fn

    def check_size(self, size: int) -> None:
        """Raise :class:`ModelSizeError` when the model cannot play ``size``."""
        problem = size_problem({"architecture": self.architecture, "any_size": self.any_size,
                                "board_sizes": self.board_sizes}, size)
        if problem is not None:
            raise ModelSizeError(problem)

    @property
    def board_sizes(self) -> list[int]:
        return list(self.metadata.get("board_sizes") or [self.board_size])

    def evaluate(self, planes: np.ndarray) -> dict[str, np.ndarray]:
        """Run the network on a batch ``(n, size, size, planes)``; returns
        numpy arrays by head: ``policy (n, size*size+1)``, ``value (n,)``,
        ``ownership (n, size*size)``, ``score (n,)`` (the lead in points
        from the side to move, komi included)."""
        planes = np.asarray(planes, dtype=np.float32)
        if planes.ndim != 4 or planes.shape[3] != self.planes:
            raise ValueError(f"expected (batch, size, size, {self.planes}) planes, "
                             f"got {planes.shape}")
        self.check_size(planes.shape[1])
        n = len(planes)
        if keras.backend.backend() in SHAPE_COMPILING_BACKENDS and n:
            padding = padded_batch_size(n) - n
            if padding:
                planes = np.concatenate(
                    [planes, np.zeros((padding,) + planes.shape[1:], np.float32)])
        out = self._compiled(planes.shape[1])(planes)
        result = {k: np.asarray(v)[:n] for k, v in out.items()}
        if "value" in result:
            result["value"] = result["value"].reshape(-1)
        if "score" in result:
            result["score"] = result["score"].reshape(-1) * SCORE_SCALE
        return result

    def evaluate_nodes(self, nodes: Sequence, colors: Optional[Sequence[int]] = None,
                       symmetries: Optional[Sequence[int]] = None) -> dict[str, np.ndarray]:
        """Encode game-tree nodes with this network's plane set and evaluate
        (node i under board symmetry ``symmetries[i]`` when given)."""
        planes = encode_batch(nodes, self.plane_set, colors)
        if symmetries is None:
            return self.evaluate(planes)
        return self.evaluate_turned(planes, symmetries)

    def evaluate_turned(self, planes: np.ndarray, symmetries: Sequence[int]
                        ) -> dict[str, np.ndarray]:
        """Evaluate sample i turned by symmetry ``symmetries[i]`` (see
        :func:`~imago.nn.features.symmetry_tables`) and turn its policy and
        ownership back, so the answers are about the original boards. A
        network is not exactly symmetric; varying the symmetry spreads its
        orientation-dependent errors instead of repeating them."""
        syms = np.asarray(symmetries, dtype=np.intp)
        turned, _, _ = augment_batch(planes, np.zeros(len(syms), np.intp), None, syms)
        out = self.evaluate(turned)
        back = symmetry_tables(planes.shape[1])[1][syms]   # original move -> turned move
        out["policy"] = np.take_along_axis(out["policy"], back, axis=1)
        if "ownership" in out:
            out["ownership"] = np.take_along_axis(out["ownership"], back[:, :-1], axis=1)
        return out

    def evaluate_averaged(self, planes: np.ndarray) -> dict[str, np.ndarray]:
        """The mean of every head over the 8 symmetries of each sample (one
        network call of 8x the batch). On the validation games this lifts
        the shipped model's top-1 from 52.5% to 54.8% and cuts its value
        MSE from 0.68 to 0.64."""
        n = len(planes)
        out = self.evaluate_turned(np.concatenate([planes] * 8), np.repeat(np.arange(8), n))
        return {k: v.reshape(8, n, *v.shape[1:]).mean(axis=0) for k, v in out.items()}

    def metrics(self, planes: np.ndarray, moves: np.ndarray, values=None,
                value_mask=None, ownership=None, batch_size: int = 256) -> dict[str, float]:
        """Validation metrics: policy top-1/top-3 accuracy, value MSE (over
        games with a result), ownership accuracy (sign agreement on points
        with an owner)."""
        n = len(moves)
        top1 = top3 = 0
        vse, vcount, ohit, ocount = 0.0, 0.0, 0, 0
        for start in range(0, n, batch_size):
            sl = slice(start, start + batch_size)
            out = self.evaluate(planes[sl])
            pol = out["policy"]
            mv = np.asarray(moves[sl])
            best3 = np.argsort(-pol, axis=1)[:, :3]
            top1 += int((best3[:, 0] == mv).sum())
            top3 += int((best3 == mv[:, None]).any(axis=1).sum())
            if "value" in out and values is not None:
                w = np.asarray(value_mask[sl], np.float32)
                vse += float((w * (out["value"] - values[sl]) ** 2).sum())
                vcount += float(w.sum())
            if "ownership" in out and ownership is not None:
                target = np.asarray(ownership[sl])
                has = target != 0
                ohit += int((np.sign(out["ownership"]) == np.sign(target))[has].sum())
                ocount += int(has.sum())
        result = {"samples": n, "policy_top1": top1 / max(n, 1), "policy_top3": top3 / max(n, 1)}
        if vcount:
            result["value_mse"] = vse / vcount
        if ocount:
            result["ownership_accuracy"] = ohit / ocount
        return result

    # -------------------------------------------------------------- masking
    @staticmethod
    def mask_policy(policy: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Zero the illegal moves of a policy vector (or batch) and
        renormalise; an all-zero result puts everything on the pass."""
        p = np.where(mask, policy, 0.0)
        total = p.sum(axis=-1, keepdims=True)
        out = np.divide(p, total, out=np.zeros_like(p), where=total > 0)
        if out.ndim == 1 and total[0] <= 0:
            out[-1] = 1.0
        return out

    def best_legal_moves(self, nodes: Sequence, colors: Sequence[int]) -> list[int]:
        """The most probable legal flat move index for each position."""
        pol = self.evaluate_nodes(nodes, colors)["policy"]
        return [int(np.argmax(self.mask_policy(p, legal_mask(n.board, c))))
                for p, n, c in zip(pol, nodes, colors)]

    # -------------------------------------------------------------- save/load
    def describe(self) -> dict[str, Any]:
        """Metadata that rebuilds this network (merged into the sidecar)."""
        return {
            "format": METADATA_VERSION,
            "architecture": self.architecture,
            "heads": list(self.heads),
            "board_sizes": self.board_sizes,
            "any_size": self.any_size,
            "plane_set": self.plane_set,
            "planes": self.planes,
            "l2": self.l2,
            "params": self.params,
            "parameters": int(self.model.count_params()) if self.model is not None else None,
        }

    def save(self, path: str | os.PathLike, include_optimizer: bool = False,
             **metadata: Any) -> Path:
        """Save ``path`` (``.keras``) and its ``.json`` sidecar, each whole or
        not at all (:mod:`imago.fileio`: written to a temporary name, then
        renamed). Extra keyword arguments (data, metrics, command, ...) go
        into the metadata. Without ``include_optimizer`` the optimizer state
        is dropped (smaller file)."""
        path = Path(path)
        if path.suffix != ".keras":
            path = path.with_suffix(".keras")
        path.parent.mkdir(parents=True, exist_ok=True)
        meta = dict(self.metadata)
        meta.update(metadata)
        meta.update(self.describe())
        meta["date"] = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
        meta["keras_version"] = keras.__version__
        model = self.model
        if not include_optimizer:
            # a fresh, uncompiled copy (clone_model would keep the optimizer)
            model = self.build_model()
            model.set_weights(self.model.get_weights())
        with replacing_name(path, suffix=".keras") as temporary:
            model.save(temporary)
        side = metadata_path(path)
        with replacing(side) as fh:
            fh.write(json.dumps(meta, indent=2, sort_keys=True) + "\n")
        return path

    @classmethod
    def load(cls, path: str | os.PathLike, board_size: Optional[int] = None,
             compile: bool = False) -> "NeuralNetwork":
        """Load a saved network (the class comes from the metadata). With
        ``board_size``, raise :class:`ModelSizeError` unless the model was
        made for that size (or plays any size). ``path`` may name a shipped
        network (:func:`~imago.nn.modelfile.find_model`)."""
        path = find_model(path)
        meta = read_metadata(path)
        arch = meta.get("architecture")
        if arch not in ARCHITECTURES:
            raise ValueError(f"{path}: unknown architecture {arch!r}")
        net_cls = ARCHITECTURES[arch]
        sizes = meta.get("board_sizes") or []
        net = net_cls(board_size=sizes[0] if sizes else 9, plane_set=meta["plane_set"],
                      l2=meta.get("l2", 0.0), **meta.get("params", {}))
        net.metadata = meta
        if board_size is not None:
            try:
                net.check_size(board_size)
            except ModelSizeError as err:
                raise ModelSizeError(f"{path}: {err}") from None
        net.for_training = compile
        try:
            net.model = keras.models.load_model(path, compile=compile)
        except Exception as err:  # Keras raises many kinds for a file that is no model
            raise ValueError(f"{path}: not a Keras model ({type(err).__name__}: "
                             f"{str(err)[:200]})") from None
        if net.model.input_shape[-1] != net.planes:
            raise ValueError(f"{path}: the model takes {net.model.input_shape[-1]} input "
                             f"planes, its metadata says {net.planes} ({net.plane_set})")
        return net


# ------------------------------------------------------------------ architectures
class DenseNeuralNetwork(NeuralNetwork):
    """Policy only: two Dense(81) layers on every point's planes, Flatten,
    Dense(size*size + 1) softmax. A baseline."""

    architecture = "dense"

    def build_model(self, dtype: Optional[str] = None, folded: bool = False,
                    record: Optional[list] = None) -> keras.Model:
        return dense_model(self.board_size, self.planes, self.regularizer(),
                           int(self.params.get("units", 81)))


class ConvNeuralNetwork(NeuralNetwork):
    """Policy only: two (Conv 3x3, MaxPooling 2x2) pairs, Flatten,
    Dense(size*size + 1) softmax."""

    architecture = "conv"

    def build_model(self, dtype: Optional[str] = None, folded: bool = False,
                    record: Optional[list] = None) -> keras.Model:
        return conv_model(self.board_size, self.planes, self.regularizer(),
                          int(self.params.get("filters", 32)))


class ResidualNeuralNetwork(NeuralNetwork):
    """AlphaGo Zero style: a 3x3 conv stem, ``blocks`` residual blocks of
    ``filters`` (conv-BN-ReLU-conv-BN, skip, ReLU) and heads that are all
    fully convolutional or globally pooled, so one model plays any size:

    - policy: 1x1 conv to one plane (the points) plus a pass logit from
      global pooling, softmax over ``size*size + 1``;
    - value: global pooling, Dense, tanh (from the side to move);
    - ownership: 1x1 conv, tanh, ``size*size`` (from the side to move);
    - score (with ``score=True``): from the value head's Dense layer, the
      expected final lead of the side to move in points, komi included,
      over :data:`SCORE_SCALE`.

    ``pooling="sized"`` pools with :class:`SizedPooling` (mean, size-scaled
    mean, max) instead of a plain mean: the multi-size network's heads.
    The layers are :func:`imago.nn.architectures.residual_model`'s.
    """

    architecture = "residual"
    any_size = True
    has_inference_copy = True

    @property
    def heads(self) -> tuple[str, ...]:
        return ("policy", "value", "ownership") + (("score",) if self.params.get("score") else ())

    def build_model(self, dtype: Optional[str] = None, folded: bool = False,
                    record: Optional[list] = None) -> keras.Model:
        """The model; ``folded``: every convolution's batch normalisation
        folded into it (a bias instead of a layer: inference only, see
        :meth:`NeuralNetwork.inference_copy`); ``record`` collects the
        layers with weights in the order they are made, each convolution
        followed by its normalisation unless folded."""
        return residual_model(self.planes, self.params, self.regularizer(),
                              "score" in self.heads, dtype, folded, record)


ARCHITECTURES: dict[str, type[NeuralNetwork]] = {
    "dense": DenseNeuralNetwork,
    "conv": ConvNeuralNetwork,
    "residual": ResidualNeuralNetwork,
}


def transfer_weights(source: NeuralNetwork, target: NeuralNetwork) -> int:
    """Start ``target`` from a trained ``source`` of the same architecture
    family: their layers with weights are paired in order, a weight of the
    same shape is copied, and a larger one gets the source's values in its
    leading slice and zeros elsewhere (a new input plane, wider pooling).
    Layers ``target`` has beyond the source's (a new head) keep their
    initial weights. Returns the number of layers copied; ValueError when
    the two do not pair up."""
    heads = set(target.heads) - set(source.heads)  # named output layers the source lacks
    pairs = zip([layer for layer in source.model.layers if layer.weights],
                [layer for layer in target.model.layers
                 if layer.weights and layer.name not in heads])
    copied = 0
    for old, new in pairs:
        if type(old) is not type(new) or len(old.weights) != len(new.weights):
            raise ValueError(f"layer {new.name} ({type(new).__name__}) has no match in the "
                             f"source ({old.name}, {type(old).__name__})")
        values = []
        for have, want in zip(old.get_weights(), new.get_weights()):
            if have.shape == want.shape:
                values.append(have)
                continue
            if have.ndim != want.ndim or any(h > w for h, w in zip(have.shape, want.shape)):
                raise ValueError(f"layer {new.name}: weights {have.shape} do not fit "
                                 f"{want.shape}")
            grown = np.zeros_like(want)
            grown[tuple(slice(0, h) for h in have.shape)] = have
            values.append(grown)
        new.set_weights(values)
        copied += 1
    return copied


def create_network(architecture: str, board_size: int = 9, plane_set: str = "history",
                   **params: Any) -> NeuralNetwork:
    """A new network of a registered architecture."""
    if architecture not in ARCHITECTURES:
        raise ValueError(f"unknown architecture {architecture!r}; choose from "
                         f"{', '.join(ARCHITECTURES)}")
    return ARCHITECTURES[architecture](board_size, plane_set, **params).create()


def load_network(path: str | os.PathLike, board_size: Optional[int] = None) -> NeuralNetwork:
    """Shorthand for :meth:`NeuralNetwork.load`."""
    return NeuralNetwork.load(path, board_size)


__all__ = [
    "NeuralNetwork", "DenseNeuralNetwork", "ConvNeuralNetwork", "ResidualNeuralNetwork",
    "ModelSizeError", "ARCHITECTURES", "create_network", "load_network", "masked_mse",
    "masked_ownership_mse", "masked_score_huber", "SizedPooling", "SCORE_SCALE",
    "transfer_weights",
    "value_targets", "metadata_path", "weighted_policy_crossentropy", "TargetTop1",
    "policy_distribution_targets",
]
