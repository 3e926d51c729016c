"""A streamed, size-mixed training run that resumes exactly: ``train.py stream``.

One run folder holds everything::

    RUN/run.json          the options the run was started with
    RUN/state.json        the step reached, the losses and the validation
                          figures of every checkpoint (written atomically)
    RUN/checkpoint-STEP.keras  the network with its optimizer state at the
                          step state.json names (older ones are deleted)
    RUN/model.keras       the latest network without optimizer state (+ .json)
    RUN/tensorboard/      the same figures for TensorBoard (when installed)

The batches come from :class:`imago.training.stream.Plan`, a pure function
of the seed and the step, and the learning rate from the step, so a run
killed at any moment and started again with the same command goes on from
its last checkpoint exactly as if it had never stopped (a few hundred steps
are redone at most). Giving a larger ``--steps`` to a finished run trains on.

A new network can start from a trained one (``--init``): its weights are
copied where they fit (:func:`imago.nn.networks.transfer_weights`), so the
shipped 9x9 network's trunk starts the multi-size one.
"""

from __future__ import annotations

import json
import math
import os
import shlex
import sys
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Callable, Optional

import numpy as np

from imago.nn.features import PLANE_SETS

from .data import HELDOUT_SHARE, GnuGoDead, default_cache_dir, write_json
from .selfplay_run import progress_bar
from .trainer import cosine_rate
from .heldout import measure
from .stream import (Plan, default_workers, format_size_shares, parse_size_shares,
                     prepare_shards, validation_samples)

Log = Callable[[str], None]

DATA_OPTIONS = ("inputs", "sizes", "plane_set", "batch_size", "validation", "seed", "dead",
                "size_shares")
"""Options that decide the batches: a resumed run must keep them."""


@dataclass
class StreamConfig:
    """Everything ``train.py stream`` can set (see its ``--help``)."""

    inputs: list[str]
    run_dir: str
    sizes: list[int] = field(default_factory=lambda: [9, 13, 19])
    size_shares: Optional[str] = None  # "9:1,19:1": each size's share of the batches
    plane_set: str = "komi"
    blocks: int = 6
    filters: int = 64
    init: Optional[str] = None
    steps: int = 20000
    batch_size: int = 128
    optimizer: str = "sgd"
    learning_rate: float = 0.02
    momentum: float = 0.9
    l2: float = 1e-4
    policy_weight: float = 1.0
    value_weight: float = 1.0
    ownership_weight: float = 1.0
    score_weight: float = 1.0
    validation: float = HELDOUT_SHARE
    validation_positions: int = 1024
    checkpoint_every: int = 250
    report_every: int = 50
    cache_dir: Optional[str] = None
    dead: str = "markup"
    workers: int = field(default_factory=default_workers)
    output: Optional[str] = None
    keep_models: bool = False
    augment: bool = True
    seed: int = 1
    progress: bool = True
    command: str = field(default_factory=lambda: " ".join(shlex.quote(a) for a in sys.argv))

    def problems(self) -> list[str]:
        """What is wrong with the values, one line each naming the option."""
        out = []
        if not self.inputs:
            out.append("no inputs: give SGF files, folders or globs")
        if not self.sizes or any(not 2 <= s <= 25 for s in self.sizes):
            out.append(f"--sizes must be board sizes from 2 to 25, not {self.sizes}")
        out.extend(self._share_problems())
        if self.plane_set not in PLANE_SETS:
            out.append(f"--planes must be one of {', '.join(PLANE_SETS)}")
        for name in ("blocks", "filters", "steps", "batch_size", "checkpoint_every",
                     "report_every", "validation_positions", "workers"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                out.append(f"--{name.replace('_', '-')} must be at least 1")
        if self.optimizer not in ("sgd", "adam"):
            out.append("--optimizer must be sgd or adam")
        if not (self.learning_rate > 0 and math.isfinite(self.learning_rate)):
            out.append("--lr must be a positive number")
        if not 0 <= self.validation < 1:
            out.append("--validation must be a fraction from 0 up to 1")
        return out

    def shares(self) -> Optional[dict[int, float]]:
        """``size_shares`` as weights by board size (None: by positions)."""
        return parse_size_shares(self.size_shares) if self.size_shares else None

    def _share_problems(self) -> list[str]:
        if not self.size_shares:
            return []
        try:
            shares = self.shares()
        except ValueError as err:
            return [f"--size-shares: {err}"]
        out = [f"--size-shares gives {s}x{s} a share, but --sizes leaves it out"
               for s in sorted(set(shares) - set(self.sizes))]
        out += [f"--size-shares gives {s}x{s} (one of --sizes) no share"
                for s in sorted(set(self.sizes) - set(shares))]
        return out


# ------------------------------------------------------------------ the run folder
def learning_rate_at(config: StreamConfig, step: int) -> float:
    """Cosine decay over ``steps`` down to 1%, after a short warm-up."""
    warmup = min(200, config.steps // 20)
    if step < warmup:
        return config.learning_rate * (step + 1) / warmup
    return cosine_rate(config.learning_rate, step / config.steps)


def settle_config(config: StreamConfig, run: Path) -> StreamConfig:
    """The run's options: a new run writes ``run.json``; a resumed one
    must keep the options that decide its batches (others may change).
    Until a checkpoint is written (no ``state.json``) nothing was learnt
    from the data, so a run that stopped before it (no data of those
    sizes, a mistyped input) may start again with other options."""
    path = run / "run.json"
    if not path.exists() or not (run / "state.json").exists():
        write_json(path, asdict(config))
        return config
    first = json.loads(path.read_text())
    changed = [name for name in DATA_OPTIONS if first.get(name) != getattr(config, name)]
    if changed:
        raise ValueError(f"{run} was started with other "
                         f"{', '.join('--' + c.replace('_', '-') for c in changed)} "
                         f"({', '.join(f'{c}={first.get(c)!r}' for c in changed)}); "
                         "give the same ones to resume, or start a new --dir")
    return config


def share_of_batches(plan: Plan, size: int) -> float:
    """The share of the first epoch's batches that are of ``size``."""
    takes = plan.takes(0)
    return sum(t.get(size, 0) for t in takes) / max(plan.epoch_steps(0), 1)


# ------------------------------------------------------------------ network
def open_network(config: StreamConfig, run: Path, checkpoint: Optional[str], log: Log):
    """The run's ``checkpoint`` (compiled, optimizer state included), or
    without one a new network (from ``--init`` when given), compiled."""
    from imago.nn.networks import NeuralNetwork, create_network, load_network, transfer_weights

    if checkpoint:
        return NeuralNetwork.load(run / checkpoint, compile=True)
    net = create_network("residual", max(config.sizes), config.plane_set, l2=config.l2,
                         blocks=config.blocks, filters=config.filters, score=True,
                         pooling="sized")
    net.metadata["board_sizes"] = sorted(config.sizes)
    if config.init:
        try:
            source = load_network(config.init)
            copied = transfer_weights(source, net)
        except (ValueError, OSError) as err:
            raise ValueError(f"--init {config.init}: {err}") from None
        log(f"starting from {config.init} ({copied} layers copied)")
    net.compile(config.optimizer, config.learning_rate, config.momentum,
                {"policy": config.policy_weight, "value": config.value_weight,
                 "ownership": config.ownership_weight, "score": config.score_weight},
                masked_ownership=True)
    return net


def validate(net, samples: dict[int, dict], plane_set: str) -> dict[str, dict]:
    """Per board size: policy top-1, value MSE (games with a result),
    ownership accuracy (the sign, on owned points of counted games), score
    mean absolute error in points (counted games): :func:`.heldout.measure`."""
    keys = ("positions", "top1", "value_mse", "ownership_accuracy", "score_mae")
    out = {}
    for size, rows in sorted(samples.items()):
        figures = measure(net, rows, size, plane_set)
        out[str(size)] = {key: figures[key] or 0.0 for key in keys}
    return out


def format_validation(figures: dict[str, dict]) -> str:
    return "; ".join(f"{s}x{s} top-1 {f['top1']:.1%} value {f['value_mse']:.3f} "
                     f"ownership {f['ownership_accuracy']:.1%} score ±{f['score_mae']:.1f}"
                     for s, f in figures.items())


# ------------------------------------------------------------------ the run
def run_stream(config: StreamConfig, log: Log = print) -> dict:
    """Train (or go on training) as ``config`` says; returns the state."""
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    problems = config.problems()
    if problems:
        raise ValueError("; ".join(problems))
    if config.size_shares:  # one spelling, so that a resumed run finds its own
        config = replace(config, size_shares=format_size_shares(config.shares()))
    run = Path(config.run_dir)
    run.mkdir(parents=True, exist_ok=True)
    config = settle_config(config, run)
    state_path = run / "state.json"
    state = json.loads(state_path.read_text()) if state_path.exists() else \
        {"step": 0, "losses": [], "validation": [], "seconds": 0.0}
    if state["step"] >= config.steps:
        log(f"{run}: already trained {state['step']} of {config.steps} steps "
            "(give a larger --steps to go on)")
        return state

    cache = Path(config.cache_dir) if config.cache_dir else default_cache_dir()
    gnugo = GnuGoDead(cache) if config.dead == "gnugo" else None
    shards, skipped, built = prepare_shards(config.inputs, config.plane_set, config.sizes,
                                            cache, config.dead, gnugo,
                                            progress=log if config.progress else None,
                                            workers=config.workers)
    for problem in skipped:
        log(f"skipped: {problem}")
    if not shards:
        raise ValueError("no training data of the sizes " + ", ".join(map(str, config.sizes)))
    plan = Plan(shards, config.batch_size, config.validation, config.seed, config.shares())
    by_size = plan.totals
    log(f"{sum(by_size.values())} training positions ("
        + ", ".join(f"{s}x{s} {c}" for s, c in sorted(by_size.items()))
        + f"), {plan.epoch_steps(0)} steps an epoch of {config.batch_size}; "
          f"{built} of {len({s.path.name.rsplit('-', 1)[0] for s in shards})} chunks built")
    if config.size_shares:
        log("batches by size (--size-shares " + config.size_shares + "): "
            + ", ".join(f"{s}x{s} {share_of_batches(plan, s):.0%} (each epoch "
                        f"{plan.multipliers[s]:.0%} of its positions)"
                        for s in sorted(by_size)))
    held_out = validation_samples(shards, config.validation, config.validation_positions)

    from imago.nn.fitting import set_random_seed, train_steps
    from imago.nn.summaries import ScalarWriter

    set_random_seed(config.seed)
    net = open_network(config, run, state.get("checkpoint"), log)
    writer = ScalarWriter(run / "tensorboard")
    start = state["step"]
    log(f"{'resuming at step ' + str(start) if start else 'starting'}: "
        f"{net.model.count_params()} parameters, {config.steps} steps in all")
    bar = progress_bar(config.steps, start, config.progress, desc="training", unit="step")
    began = time.time()

    def next_batch(step: int):
        return plan.batch(step, config.plane_set, net.heads, config.augment)

    step = start
    try:
        while step < config.steps:
            stop = min(config.steps, (step // config.checkpoint_every + 1) * config.checkpoint_every)
            while step < stop:
                count = min(config.report_every - step % config.report_every, stop - step)
                net.model.optimizer.learning_rate.assign(learning_rate_at(config, step))
                t0 = time.time()
                logs = train_steps(net, lambda k, base=step: next_batch(base + k), count,
                                   every=count)
                step += count
                mean = {k: round(float(np.mean([h[k] for h in logs])), 4) for k in logs[0]}
                mean["step"] = step
                mean["samples_per_second"] = round(count * config.batch_size
                                                   / max(time.time() - t0, 1e-9), 1)
                state["losses"].append(mean)
                for key in ("loss", "policy_loss", "value_loss", "ownership_loss", "score_loss"):
                    if key in mean:
                        writer.scalar(f"train/{key}", mean[key], step)
                bar.update(count)
                if not sys.stderr.isatty() or not config.progress:
                    log(f"step {step}: loss {mean['loss']:.3f} (policy "
                        f"{mean.get('policy_loss', 0):.3f}, value {mean.get('value_loss', 0):.3f}, "
                        f"ownership {mean.get('ownership_loss', 0):.3f}, score "
                        f"{mean.get('score_loss', 0):.3f}), {mean['samples_per_second']:.0f} "
                        "samples/s")
            figures = validate(net, held_out, config.plane_set)
            for size, f in figures.items():
                for key, value in f.items():
                    if key != "positions":
                        writer.scalar(f"validation_{size}/{key}", value, step)
            state["validation"].append({"step": step, **figures})
            state["seconds"] = round(state["seconds"] + time.time() - began, 1)
            began = time.time()
            state["step"] = step
            save(net, run, config, state, by_size)
            log(f"checkpoint at step {step}: {format_validation(figures)}")
    finally:
        bar.close()
    if config.output:
        path = net.save(config.output, **model_metadata(config, state, by_size))
        log(f"saved {path}")
    return state


def model_metadata(config: StreamConfig, state: dict, by_size: dict[int, int]) -> dict:
    return {"board_sizes": sorted(config.sizes), "command": config.command,
            "data": {"inputs": list(config.inputs), "train_positions":
                     {str(s): c for s, c in sorted(by_size.items())},
                     "validation_split": f"{config.validation:g} of the games, by a stable "
                                         "hash of folder/file name"},
            "training": {"steps": state["step"], "batch_size": config.batch_size,
                         "seconds": state["seconds"],
                         "config": {k: v for k, v in asdict(config).items() if k != "command"}},
            "metrics": state["validation"][-1] if state["validation"] else {}}


def save(net, run: Path, config: StreamConfig, state: dict, by_size: dict[int, int]) -> None:
    """A checkpoint of ``state["step"]`` (optimizer state included) and the
    plain model (kept as ``model-STEP.keras`` too with ``keep_models``),
    then ``state.json`` naming the checkpoint (the moment the step counts as
    done), then the older checkpoints go. A kill at any point leaves a
    state.json and the checkpoint it names."""
    net.metadata["board_sizes"] = sorted(config.sizes)
    name = f"checkpoint-{state['step']:07d}.keras"
    net.save(run / name, include_optimizer=True)
    metadata = model_metadata(config, state, by_size)
    net.save(run / "model.keras", **metadata)
    if config.keep_models:
        net.save(run / f"model-{state['step']:07d}.keras", **metadata)
    state["checkpoint"] = name
    write_json(run / "state.json", state)
    for old in run.glob("checkpoint-*.keras"):
        if old.name != name:
            old.unlink(missing_ok=True)
            old.with_suffix(".json").unlink(missing_ok=True)


__all__ = ["StreamConfig", "run_stream", "learning_rate_at", "validate"]
