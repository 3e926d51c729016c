"""The supervised training loop behind ``train.py``.

Reads the samples (:mod:`.data`, cached shards), builds or resumes a
network, trains it through :mod:`imago.nn.fitting` (Keras progress bars, a
learning-rate schedule, TensorBoard logs, an atomic checkpoint every epoch),
prints the validation metrics and exports the model with its metadata.
Keras itself is imported only inside :mod:`imago.nn`, when training starts.
"""

from __future__ import annotations

import json
import math
import os
import shlex
import sys
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional

import numpy as np

from .data import DataSet, default_cache_dir, load_dataset


@dataclass
class TrainConfig:
    """Everything ``train.py`` can set (see its ``--help``)."""

    inputs: list[str]
    output: str = "models/model.keras"
    architecture: str = "residual"
    plane_set: str = "history"
    board_size: int = 9
    blocks: int = 6
    filters: int = 64
    epochs: int = 10
    batch_size: int = 256
    optimizer: str = "adam"
    learning_rate: float = 1e-3
    momentum: float = 0.9
    schedule: str = "cosine"  # cosine | constant
    l2: float = 1e-4
    policy_weight: float = 1.0
    value_weight: float = 1.0
    ownership_weight: float = 1.0
    validation: float = 0.1
    cache_dir: Optional[str] = None
    checkpoint_dir: Optional[str] = None
    resume: bool = False
    init: Optional[str] = None  # start from this trained model
    train_heads: Optional[list[str]] = None  # train these heads only
    logdir: Optional[str] = None
    dead: str = "markup"  # markup | gnugo
    max_games: Optional[int] = None
    time_limit: Optional[float] = None  # minutes; stops between epochs
    augment: bool = True
    seed: int = 1
    verbose: int = 1
    command: str = field(default_factory=lambda: " ".join(shlex.quote(a) for a in sys.argv))


def learning_rate_at(config: TrainConfig, epoch: int) -> float:
    """The schedule: constant, or cosine decay to 1% over the epochs."""
    if config.schedule == "constant" or config.epochs <= 1:
        return config.learning_rate
    t = min(epoch / max(config.epochs - 1, 1), 1.0)
    return config.learning_rate * (0.01 + 0.99 * 0.5 * (1 + math.cos(math.pi * t)))


def _network_params(config: TrainConfig) -> dict:
    if config.architecture == "residual":
        return {"blocks": config.blocks, "filters": config.filters}
    if config.architecture == "conv":
        return {"filters": config.filters}
    return {}


def metrics_by_source(net, data: DataSet) -> dict[str, dict]:
    """Validation metrics per source folder (e.g. katago9 and gnugo9)."""
    val = data.validation
    groups: dict[str, list[int]] = defaultdict(list)
    for i, g in enumerate(val.games):
        groups[Path(str(g).split("#")[0]).parent.name].append(i)
    out = {}
    for name, idx in sorted(groups.items()):
        sub = val.subset(np.array(idx))
        out[name] = net.metrics(sub.planes, sub.moves, sub.values, sub.value_mask, sub.ownership)
    return out


def _model_plane_set(path: str) -> str:
    """The input plane set of a saved model (the data must be encoded so)."""
    from imago.nn.networks import metadata_path

    side = metadata_path(path)
    if not Path(path).exists() or not side.exists():
        raise FileNotFoundError(f"--init: no model {path} with its metadata {side.name}")
    return json.loads(side.read_text())["plane_set"]


def train(config: TrainConfig, log=print) -> dict:
    """Run a training as ``config`` says; returns the final metrics (and
    writes the model to ``config.output``)."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    start = time.time()
    cache_dir = Path(config.cache_dir) if config.cache_dir else default_cache_dir()
    if config.init:
        config.plane_set = _model_plane_set(config.init)
    data = load_dataset(config.inputs, config.plane_set, config.board_size, cache_dir,
                        config.validation, config.dead, config.max_games,
                        progress=log if config.verbose else None)
    for problem in data.problems:
        log(f"skipped: {problem}")
    log(f"{len(data.files)} files, {len(data.train)} training and {len(data.validation)} "
        f"validation samples ({len(np.unique(data.validation.games))} validation games), "
        f"{data.shards_built} of {len(data.shards)} shards built in {time.time() - start:.1f}s")
    if not len(data.train):
        raise ValueError("no training samples")

    from imago.nn.fitting import fit, set_random_seed
    from imago.nn.networks import NeuralNetwork, create_network

    from .batches import batches

    set_random_seed(config.seed)
    output = Path(config.output)
    ckpt_dir = Path(config.checkpoint_dir) if config.checkpoint_dir else \
        cache_dir / "checkpoints" / output.stem
    ckpt = ckpt_dir / "checkpoint.keras"
    ckpt_state = ckpt_dir / "checkpoint-state.json"
    initial_epoch = 0
    if config.resume and ckpt.exists() and ckpt_state.exists():
        net = NeuralNetwork.load(ckpt, config.board_size, compile=True)
        initial_epoch = json.loads(ckpt_state.read_text())["epochs_done"]
        log(f"resuming from {ckpt} after epoch {initial_epoch}")
    else:
        if config.resume:
            log(f"no checkpoint in {ckpt_dir}; starting afresh")
        if config.init:
            net = NeuralNetwork.load(config.init, config.board_size)
            log(f"starting from {config.init}")
        else:
            net = create_network(config.architecture, config.board_size, config.plane_set,
                                 l2=config.l2, **_network_params(config))
        weights = {"policy": config.policy_weight, "value": config.value_weight,
                   "ownership": config.ownership_weight}
        if config.train_heads:
            trainable = net.train_only(config.train_heads)
            weights = {h: (w if h in config.train_heads else 0.0) for h, w in weights.items()}
            log(f"training the {' and '.join(config.train_heads)} head(s) only: "
                f"{trainable} of {net.model.count_params()} weights")
        net.compile(config.optimizer, config.learning_rate, config.momentum, weights)
    log(f"{net.architecture} network, {net.model.count_params()} parameters, "
        f"plane set {net.plane_set}")

    train_batches = batches(data.train, net.heads, config.batch_size, config.augment, True,
                            config.seed)
    val_batches = batches(data.validation, net.heads, config.batch_size, False, False) \
        if len(data.validation) else None

    def checkpoint(epoch: int, logs: dict[str, float]) -> None:
        """Atomic checkpoint (with optimizer state) after every epoch."""
        net.save(ckpt, include_optimizer=True, checkpoint_of=str(output))
        tmp = ckpt_state.with_suffix(".tmp")
        tmp.write_text(json.dumps({"epochs_done": epoch + 1, "logs": logs}))
        os.replace(tmp, ckpt_state)

    def time_is_up(epoch: int, took: float) -> bool:
        """Whether another epoch like this one would pass the time limit."""
        if config.time_limit is None:
            return False
        if time.time() - start + took > config.time_limit * 60:
            log(f"time limit: stopping after epoch {epoch + 1}")
            return True
        return False

    fit_start = time.time()
    history = fit(net, train_batches, val_batches, epochs=config.epochs,
                  initial_epoch=initial_epoch,
                  learning_rate=lambda e: learning_rate_at(config, e),
                  on_epoch_end=checkpoint, stop_after=time_is_up, logdir=config.logdir,
                  verbose=config.verbose, log=log)
    fit_seconds = time.time() - fit_start
    epochs_run = len(history.get("loss", []))
    epochs_done = initial_epoch + epochs_run

    metrics: dict = {}
    if len(data.validation):
        v = data.validation
        metrics = net.metrics(v.planes, v.moves, v.values, v.value_mask, v.ownership)
        metrics["by_source"] = metrics_by_source(net, data)
    info = {
        "data": {"inputs": list(config.inputs), "files": len(data.files),
                 "train_samples": len(data.train), "validation_samples": len(data.validation),
                 "skipped_files": len(data.problems), "dead_stones": config.dead,
                 "validation_split": "by game, stable hash of folder/file name"},
        "metrics": metrics,
        "training": {"epochs": epochs_done, "fit_seconds": round(fit_seconds, 1),
                     "samples_per_second": round(len(data.train) * epochs_run
                                                 / max(fit_seconds, 1e-9), 1),
                     "config": {k: v for k, v in asdict(config).items() if k != "command"}},
        "command": config.command,
    }
    if config.init:
        # where the starting weights came from, kept with the new metadata
        earlier = getattr(net, "metadata", {}) or {}
        info["init"] = {"model": str(config.init), "command": earlier.get("command"),
                        "data": earlier.get("data"), "training": earlier.get("training"),
                        "init": earlier.get("init")}
    path = net.save(output, **info)
    log(f"saved {path} and {path.with_suffix('.json').name} ({path.stat().st_size / 1e6:.1f} MB)")
    if metrics:
        log(format_metrics(metrics))
    return info


def format_metrics(metrics: dict) -> str:
    """Human-readable validation metrics."""
    def line(m: dict) -> str:
        parts = [f"top-1 {m['policy_top1']:.1%}", f"top-3 {m['policy_top3']:.1%}"]
        if "value_mse" in m:
            parts.append(f"value MSE {m['value_mse']:.3f}")
        if "ownership_accuracy" in m:
            parts.append(f"ownership accuracy {m['ownership_accuracy']:.1%}")
        return f"{', '.join(parts)} ({m['samples']} positions)"

    lines = [f"validation: {line(metrics)}"]
    for name, m in metrics.get("by_source", {}).items():
        lines.append(f"  {name}: {line(m)}")
    return "\n".join(lines)


__all__ = ["TrainConfig", "train", "learning_rate_at", "format_metrics"]
