"""The supervised training loop behind ``train.py``.

Reads the samples (:mod:`.data`, cached shards), builds or resumes a
network, trains it through :mod:`imago.nn.fitting` (Keras progress bars, a
learning-rate schedule, TensorBoard logs, an atomic checkpoint every epoch),
prints the validation metrics and exports the model with its metadata.
Keras itself is imported only inside :mod:`imago.nn`, when training starts.
"""

from __future__ import annotations

import math
import os
import time
from collections import defaultdict
from dataclasses import asdict
from pathlib import Path
import numpy as np

from .data import DataSet, default_cache_dir, load_dataset
from .options import TrainConfig
from .start import Checkpoint, check_output, open_network, plan_start, writable_folder


def cosine_rate(rate: float, done: float) -> float:
    """``rate`` decayed along a half cosine to 1% of it as ``done`` goes
    from 0 to 1 (the share of the training behind)."""
    return rate * (0.01 + 0.99 * 0.5 * (1 + math.cos(math.pi * min(done, 1.0))))


def learning_rate_at(config: TrainConfig, epoch: int) -> float:
    """The schedule: constant, or cosine decay to 1% over the epochs."""
    if config.schedule == "constant" or config.epochs <= 1:
        return config.learning_rate
    return cosine_rate(config.learning_rate, epoch / max(config.epochs - 1, 1))


def metrics_by_source(net, data: DataSet) -> dict[str, dict]:
    """Validation metrics per source folder (e.g. katago9 and gnugo9)."""
    val = data.validation
    groups: dict[str, list[int]] = defaultdict(list)
    for i, g in enumerate(val.games):
        groups[Path(str(g).split("#")[0]).parent.name].append(i)
    out = {}
    for name, idx in sorted(groups.items()):
        sub = val.subset(np.array(idx))
        out[name] = net.metrics(sub.planes, sub.moves, sub.values, sub.value_mask,
                                sub.known_ownership())
    return out


def train(config: TrainConfig, log=print) -> dict:
    """Run a training as ``config`` says; returns the final metrics (and
    writes the model to ``config.output``).

    Everything that can be checked before the long work is: option values,
    the starting model or checkpoint (:func:`.start.plan_start`), the output
    and cache folders. Bad input files are named and skipped. An interrupted
    run keeps the checkpoint of its last finished epoch, and so does one
    whose model cannot be written at the end."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    config.check()
    start_time = time.time()
    cache_dir = writable_folder(config.cache_dir or default_cache_dir(), "--cache")
    checkpoint = Checkpoint.of_run(config, cache_dir)
    config, start = plan_start(config, checkpoint, log)
    output = check_output(config.output)
    writable_folder(checkpoint.dir, "--checkpoint-dir")
    data = load_dataset(config.inputs, config.plane_set, config.board_size, cache_dir,
                        config.validation, config.dead, config.max_games,
                        progress=log if config.verbose else None)
    for problem in data.problems:
        log(f"skipped: {problem}")
    log(f"{len(data.files)} files, {len(data.train)} training and {len(data.validation)} "
        f"validation samples ({len(np.unique(data.validation.games))} validation games), "
        f"{data.shards_built} of {len(data.shards)} shards built in "
        f"{time.time() - start_time:.1f}s")
    if not len(data.train):
        raise ValueError("no training samples" + (
            f" (all {len(data.validation)} went to validation: lower --validation)"
            if len(data.validation) else ""))

    from imago.nn.fitting import fit, set_random_seed

    from .batches import batches

    set_random_seed(config.seed)
    net = open_network(config, start, log)
    if start.kind != "resume":
        weights = {"policy": config.policy_weight, "value": config.value_weight,
                   "ownership": config.ownership_weight}
        if config.train_heads:
            trainable = net.train_only(config.train_heads)
            weights = {h: (w if h in config.train_heads else 0.0) for h, w in weights.items()}
            log(f"training the {' and '.join(config.train_heads)} head(s) only: "
                f"{trainable} of {net.model.count_params()} weights")
        net.compile(config.optimizer, config.learning_rate, config.momentum, weights,
                    masked_ownership=True)
    log(f"{net.architecture} network, {net.model.count_params()} parameters, "
        f"plane set {net.plane_set}")

    masked = net.ownership_masked  # a checkpoint of an older run may not be
    train_batches = batches(data.train, net.heads, config.batch_size, config.augment, True,
                            config.seed, masked)
    val_batches = batches(data.validation, net.heads, config.batch_size, False, False,
                          masked_ownership=masked) if len(data.validation) else None

    saved = [start.epochs_done]  # the epoch the checkpoint holds, 0 for none of this run

    def save_checkpoint(epoch: int, logs: dict[str, float]) -> None:
        """Atomic checkpoint (with optimizer state) after every epoch."""
        net.save(checkpoint.model, include_optimizer=True, checkpoint_of=str(output))
        checkpoint.save_state(epoch + 1, logs, config)
        saved[0] = epoch + 1

    def time_is_up(epoch: int, took: float) -> bool:
        """Whether another epoch like this one would pass the time limit."""
        if config.time_limit is None:
            return False
        if time.time() - start_time + took > config.time_limit * 60:
            log(f"time limit: stopping after epoch {epoch + 1}")
            return True
        return False

    fit_start = time.time()
    try:
        history = fit(net, train_batches, val_batches, epochs=config.epochs,
                      initial_epoch=start.epochs_done,
                      learning_rate=lambda e: learning_rate_at(config, e),
                      on_epoch_end=save_checkpoint, stop_after=time_is_up,
                      logdir=config.logdir, verbose=config.verbose, log=log)
    except KeyboardInterrupt:
        log(f"interrupted: {_checkpoint_note(checkpoint, saved[0])}")
        raise
    fit_seconds = time.time() - fit_start
    epochs_run = len(history.get("loss", []))
    epochs_done = start.epochs_done + epochs_run

    metrics: dict = {}
    if len(data.validation):
        v = data.validation
        metrics = net.metrics(v.planes, v.moves, v.values, v.value_mask, v.known_ownership())
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
    try:
        path = net.save(output, **info)
    except OSError as err:
        raise OSError(f"cannot write {output} ({err.strerror or err}); "
                      f"{_checkpoint_note(checkpoint, saved[0])}") from None
    log(f"saved {path} and {path.with_suffix('.json').name} ({path.stat().st_size / 1e6:.1f} MB)")
    if metrics:
        log(format_metrics(metrics))
    return info


def _checkpoint_note(checkpoint: Checkpoint, epoch: int) -> str:
    """Where the run's last finished epoch is, for a run that stops early."""
    if not epoch:
        return "no epoch finished, so there is no checkpoint of this run"
    return (f"the network after epoch {epoch} is in {checkpoint.model} "
            "(--resume goes on from it)")


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
