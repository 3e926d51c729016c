"""The trainer stage of the self-play loop: the best network, continued on
the replay window, becomes the next candidate.

:func:`train_candidate` loads the current best network, compiles it to
learn the searches' visit distributions (``policy_target="distribution"``:
positions played after a fast search carry weight 0 and teach the policy
nothing), the game outcomes mixed with the searched values
(:attr:`RLTrainConfig.value_mix`), the final ownership and, for a network
with a score head, the final lead (komi included; positions of resigned
games weigh 0 there), all from the mover's view, and runs
:attr:`RLTrainConfig.steps` minibatches drawn uniformly from the replay
window, each position under a random one of the 8 symmetries.
There are no epochs: every step samples the window afresh (AlphaGo Zero).

The candidate is written atomically: the network is saved under a hidden
temporary name in the output folder (``.NAME.tmp-PID.keras`` and its
``.json``), then the ``.json`` is renamed over ``NAME.json`` and the
``.keras`` over ``NAME.keras``, in that order, so a reader that finds
``NAME.keras`` always finds its metadata beside it. (When a candidate of the
same name is overwritten, a reader between the two renames pairs the new
metadata with the old weights of the same architecture; give each
generation its own name to avoid even that.) The temporary files are
removed when training or saving fails.

Keras stays in :mod:`imago.nn`: the network is loaded through
:mod:`imago.nn.networks` and trained by :func:`imago.nn.fitting.train_steps`,
both imported when a candidate is trained.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from imago.game.coords import MAX_SIZE

from .replay import ReplayBuffer

LOSSES = ("policy", "value", "ownership", "score")
MIX_SHARE = 0.25
"""The share of each batch drawn from expert games when there are some (``--mix``)."""
OTHER_SIZES_SHARE = 0.25
"""The share of training steps given to whole batches of the ``--mix`` games of
the network's other board sizes, when there are some."""
OPTION_NAMES = {"learning_rate": "lr"}
"""The configuration's fields whose command-line options are spelled otherwise."""
# metadata of a parent that describes its own making, not its child's (a candidate, a mean)
PARENT_ONLY = ("metrics", "training", "data", "command", "date", "keras_version",
               "rl_training", "parent", "parent_heldout", "heldout", "note",
               "self_play_run", "averaged_from")


@dataclass
class RLTrainConfig:
    """How a candidate is trained. The defaults suit a CPU: 400 steps of 256
    positions per generation (about 100k samples: five minutes for the
    shipped 6x64 network, which trains some 350 samples/s on two cores); SGD with
    Nesterov momentum 0.9 as in AlphaGo Zero, at a constant 0.001: continuing a
    trained network, a candidate of rl9's gen-0002 so trained beat it 56-44,
    where every Adam (1e-4) candidate lost, 36-45 (its per-weight steps of
    about the rate move every weight, useful or not, from the first step);
    loss weights policy 1, value 1,
    ownership 0.5, score 1 (ownership and score count only when the network
    has that head). The value target is ``(1 - value_mix) * outcome +
    value_mix * searched value``: a window holds a few hundred games, and
    their outcomes alone, one label shared by every position of a game,
    teach the value head those games rather than Go (on rl9's window, 200
    steps on outcomes raised the value error on held-out KataGo games from
    0.695 to 0.905; mixed half and half, 0.727). ``mix_share`` of every
    batch (rounded) comes from expert games (:mod:`imago.training.expert`)
    when the trainer is given them. Given expert games of other board
    sizes (an any-size network's), ``other_sizes_share`` of the steps (spread
    evenly, the sizes in turn) train on a whole batch of one of those sizes
    instead, so the network keeps them while it learns its run's size.
    The L2 penalty is the network's own (on its layers, see its ``l2``)."""

    steps: int = 400
    batch_size: int = 256
    optimizer: str = "sgd"
    learning_rate: float = 0.001
    momentum: float = 0.9
    policy_weight: float = 1.0
    value_weight: float = 1.0
    ownership_weight: float = 0.5
    score_weight: float = 1.0
    value_mix: float = 0.5
    mix_share: float = 0.0
    other_sizes_share: float = OTHER_SIZES_SHARE
    symmetries: bool = True
    report_every: int = 20
    seed: int = 0

    def problems(self) -> list[str]:
        """Readable reasons this configuration cannot train (empty when fine)."""
        out = []
        if self.steps < 1:
            out.append(f"steps must be at least 1, not {self.steps}")
        if self.batch_size < 1:
            out.append(f"batch_size must be at least 1, not {self.batch_size}")
        if self.optimizer not in ("sgd", "adam"):
            out.append(f"optimizer must be sgd or adam, not {self.optimizer!r}")
        if not self.learning_rate > 0:
            out.append(f"learning_rate must be positive, not {self.learning_rate}")
        if not 0.0 <= self.value_mix <= 1.0:
            out.append(f"value_mix must be from 0 to 1, not {self.value_mix}")
        for name in ("mix_share", "other_sizes_share"):
            if not 0.0 <= getattr(self, name) < 1.0:
                out.append(f"{name} must be from 0 up to (not including) 1, "
                           f"not {getattr(self, name)}")
        for name in ("policy_weight", "value_weight", "ownership_weight", "score_weight"):
            if not getattr(self, name) >= 0:
                out.append(f"{name} must not be negative, not {getattr(self, name)}")
        if self.report_every < 1:
            out.append(f"report_every must be at least 1, not {self.report_every}")
        return out

    def option_problems(self, renames: Optional[Mapping[str, str]] = None) -> list[str]:
        """:meth:`problems` in a command line's words: each field named as
        its option (``batch_size`` -> ``--batch-size``), with the options
        that are spelled otherwise (:data:`OPTION_NAMES`, and ``renames``)."""
        names = {**OPTION_NAMES, **(renames or {})}
        out = []
        for problem in self.problems():
            field, _, rest = problem.partition(" ")
            out.append(f"--{names.get(field, field.replace('_', '-'))} {rest}")
        return out


def mix_problems(inputs: Sequence[str], share: float) -> list[str]:
    """What is wrong with ``--mix`` and ``--mix-share``, in the options'
    words. With ``--mix`` the share is the trainer's (its
    :meth:`RLTrainConfig.option_problems` names a bad one); without, it is
    checked here, so that a bad share is named either way, once."""
    out = [f"--mix {p}: no such file or folder" for p in inputs if not Path(p).exists()]
    if not inputs:
        out += RLTrainConfig(mix_share=share).option_problems()
    return out


def mix_count(config: RLTrainConfig) -> int:
    """How many positions of each batch come from expert games."""
    return int(round(config.mix_share * config.batch_size))


def other_size_steps(steps: int, share: float, sizes: Sequence[int]) -> dict[int, int]:
    """Which of ``steps`` train on a batch of another size: step number ->
    size, ``share`` of the steps spread evenly (the first at the end of the
    first stretch), ``sizes`` in turn. Empty without sizes or share."""
    if not sizes or share <= 0:
        return {}
    chosen = [step for step in range(steps) if int((step + 1) * share) > int(step * share)]
    return {step: sizes[i % len(sizes)] for i, step in enumerate(chosen)}


def window_summary(buffer: ReplayBuffer, size: int) -> dict[str, Any]:
    """What the replay window of ``size`` holds: positions, shards, plane
    sets and generations (read from the shards' small arrays)."""
    shards = buffer.window_shards(size)
    positions, plane_sets, generations = 0, set(), set()
    for path in shards:
        try:
            with np.load(path, allow_pickle=False) as z:
                positions += int(z["game"].shape[0])
                plane_sets.add(str(z["plane_set"]))
                generations.add(int(z["generation"]))
        except (OSError, KeyError, ValueError):
            continue  # removed or unreadable since the scan; sample() skips it too
    return {"folder": str(buffer.folder), "window": buffer.window, "size": size,
            "positions": positions, "shards": len(shards),
            "plane_sets": sorted(plane_sets), "generations": sorted(generations)}


def _refusal(net, model_path: Path, buffer: ReplayBuffer, window: dict[str, Any],
             size: int, batch_size: int) -> Optional[str]:
    """Why ``net`` cannot be trained on this window, or None."""
    if size not in net.board_sizes:  # trained for; a residual net could play any size
        return (f"{model_path.name} was made for "
                f"{', '.join(f'{s}x{s}' for s in net.board_sizes)} boards, not the "
                f"{size}x{size} positions asked for")
    if not window["positions"]:
        others = [s for s in range(2, MAX_SIZE + 1) if buffer.positions(s)] \
            if buffer.positions() else []
        held = (f" (it holds {', '.join(f'{s}x{s}' for s in others)} positions)"
                if others else "")
        return f"the replay buffer {buffer.folder} has no {size}x{size} positions{held}"
    if window["plane_sets"] != [net.plane_set]:
        return (f"{model_path.name} takes the {net.plane_set!r} planes, but the "
                f"{size}x{size} replay window holds {', '.join(map(repr, window['plane_sets']))} "
                f"planes")
    if window["positions"] < batch_size:
        return (f"the {size}x{size} replay window of {buffer.folder} holds "
                f"{window['positions']} positions, fewer than one batch of {batch_size}: "
                f"play more games first or lower the batch size")
    return None


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def save_atomically(net, output: Path, **metadata: Any) -> Path:
    """Save ``net`` as ``output`` (``.keras``) and its ``.json`` so that a
    reader never sees the ``.keras`` without its metadata (see the module
    docstring); temporary files are removed on failure."""
    output = Path(output)
    if output.suffix != ".keras":
        output = output.with_suffix(".keras")
    output.parent.mkdir(parents=True, exist_ok=True)
    tmp = output.with_name(f".{output.stem}.tmp-{os.getpid()}.keras")
    tmp_side = tmp.with_suffix(".json")
    try:
        net.save(tmp, **metadata)
        os.replace(tmp_side, output.with_suffix(".json"))
        os.replace(tmp, output)
    finally:  # the save's own temporary files are gone whatever happened (imago.fileio)
        for leftover in (tmp, tmp_side):
            leftover.unlink(missing_ok=True)
    return output


def train_candidate(best_model: Path, buffer: ReplayBuffer, output: Path,
                    config: Optional[RLTrainConfig] = None, size: int = 9,
                    progress: Optional[Callable[[int, int, dict[str, float]], Any]] = None,
                    log: Callable[[str], Any] = print,
                    metadata: Optional[dict[str, Any]] = None,
                    mix: Optional[ReplayBuffer] = None,
                    others: Optional[Mapping[int, ReplayBuffer]] = None) -> dict[str, Any]:
    """Continue the network at ``best_model`` on the ``size`` x ``size``
    replay window of ``buffer`` for ``config.steps`` minibatches and write
    the result to ``output`` (``.keras`` + ``.json``, atomically). With
    ``mix`` (expert games as replay shards), ``config.mix_share`` of each
    batch is drawn from it. With ``others`` (expert games of other sizes,
    by size), ``config.other_sizes_share`` of the steps train on a whole
    batch of one of those sizes instead (:func:`other_size_steps`).

    ``progress(step, steps, logs)`` is called every ``config.report_every``
    steps and after the last, ``logs`` being the mean losses over those
    steps (``policy``, ``value``, ``ownership``, ``score`` for the heads the
    network has, ``total`` with the L2 penalty, and ``top1``). ``metadata``
    is added to the candidate's metadata (a generation number, say).
    Returns the summary: the losses averaged over the last ``report_every``
    steps, ``first_losses`` over the first ones, ``samples``, ``seconds``,
    ``samples_per_second``, ``window`` and ``output``.

    ValueError, with a message that says why, for a bad configuration, a
    model that is not made for ``size`` or takes other planes than the
    window's, and a window of fewer positions than one batch.
    """
    config = config or RLTrainConfig()
    problems = config.problems()
    if problems:
        raise ValueError("cannot train a candidate: " + "; ".join(problems))
    best_model, output = Path(best_model), Path(output)
    if output.suffix != ".keras":
        output = output.with_suffix(".keras")
    if output.resolve() == best_model.resolve():
        raise ValueError(f"the candidate {output} would overwrite the best network it "
                         f"starts from; give it another name")

    from imago.nn.fitting import set_random_seed, train_steps
    from imago.nn.networks import NeuralNetwork

    net = NeuralNetwork.load(best_model)
    windows = _Windows.checked(net, best_model, buffer, size, config, mix, others)
    set_random_seed(config.seed)
    net.compile(config.optimizer, config.learning_rate, config.momentum,
                {"policy": config.policy_weight, "value": config.value_weight,
                 "ownership": config.ownership_weight, "score": config.score_weight},
                policy_target="distribution")

    def report(step: int, logs: dict[str, float]) -> None:
        if progress is not None:
            progress(step, config.steps, _losses(logs))

    log(f"training a candidate from {best_model.name}: {config.steps} steps of "
        f"{config.batch_size} on {windows.describe()}, "
        f"{config.optimizer} at {config.learning_rate:g}")
    start = time.perf_counter()
    next_batch = windows.batches(net, best_model, config)
    history = train_steps(net, next_batch, config.steps, every=config.report_every,
                          on_report=report)
    seconds = time.perf_counter() - start
    samples = config.steps * config.batch_size
    tail = min(config.report_every, len(history))
    summary: dict[str, Any] = {
        "losses": _losses(_mean(history[-tail:])),
        "first_losses": _losses(_mean(history[:tail])),
        "steps": config.steps, "batch_size": config.batch_size, "samples": samples,
        "seconds": round(seconds, 2),
        "samples_per_second": round(samples / max(seconds, 1e-9), 1),
        "window": windows.window,
    }
    if windows.expert is not None:
        summary["expert"] = windows.expert
    if windows.others:
        summary["other_sizes"] = {str(k): v for k, v in windows.others.items()}
    record = _candidate_record(net, best_model, summary, config)
    record.update(metadata or {})
    summary["output"] = str(save_atomically(net, output, **record))
    loss = summary["losses"]
    log(f"candidate {output.name}: policy {loss['policy']:.3f}, value "
        f"{loss.get('value', float('nan')):.3f}, ownership "
        f"{loss.get('ownership', float('nan')):.3f}, "
        + (f"score {loss['score']:.3f}, " if "score" in loss else "")
        + f"total {loss['total']:.3f} "
        f"({summary['samples_per_second']:.0f} samples/s)")
    return summary


@dataclass
class _Windows:
    """What a candidate trains on: the replay ``buffer`` of its own
    ``size`` (``window``, its summary), the expert games ``mix`` mixed into
    each batch (``mixed`` positions of ``expert``, or none) and the other
    sizes' buffers (``other_buffers``; ``others``, their summaries, by size)
    with the steps that train on them (``other_steps``: step -> size)."""

    size: int
    buffer: ReplayBuffer
    window: dict[str, Any]
    mix: Optional[ReplayBuffer]
    mixed: int
    expert: Optional[dict[str, Any]]
    other_buffers: Mapping[int, ReplayBuffer]
    other_steps: dict[int, int]
    others: dict[int, dict[str, Any]]

    @classmethod
    def checked(cls, net, best_model: Path, buffer: ReplayBuffer, size: int,
                config: RLTrainConfig, mix: Optional[ReplayBuffer],
                others: Optional[Mapping[int, ReplayBuffer]]) -> "_Windows":
        """The windows of a candidate of ``net``; ValueError naming the
        first that cannot train it (:func:`_refusal`)."""
        window = window_summary(buffer, size)
        refusal = _refusal(net, best_model, buffer, window, size, config.batch_size)
        mixed = mix_count(config)
        expert = None
        if mixed:
            if mix is None:
                refusal = refusal or (f"mix_share is {config.mix_share} but no expert games "
                                      "were given")
            else:
                expert = window_summary(mix, size)
                refusal = refusal or _refusal(net, best_model, mix, expert, size, mixed)
        other_steps = other_size_steps(config.steps, config.other_sizes_share,
                                       sorted(others or {}))
        other_windows = {}
        for other in sorted(set(other_steps.values())):
            other_windows[other] = window_summary(others[other], other)
            refusal = refusal or _refusal(net, best_model, others[other], other_windows[other],
                                          other, config.batch_size)
        if refusal:
            raise ValueError(f"cannot train a candidate from {best_model}: {refusal}")
        return cls(size, buffer, window, mix, mixed, expert, others or {}, other_steps,
                   other_windows)

    def describe(self) -> str:
        """The positions trained on, in words, for the log."""
        window, size = self.window, self.size
        text = (f"{window['positions']} {size}x{size} positions ({window['shards']} shards, "
                f"generations {_span(window['generations'])})")
        if self.mixed:
            text += (f", {self.mixed} of each batch from {self.expert['positions']} positions "
                     "of expert games")
        for other, other_window in self.others.items():
            steps = sum(1 for s in self.other_steps.values() if s == other)
            text += (f", {steps} steps on {other}x{other} expert games "
                     f"({other_window['positions']} positions)")
        return text

    def batches(self, net, best_model: Path,
                config: RLTrainConfig) -> Callable[[int], tuple]:
        """``next_batch(step)`` for :func:`imago.nn.fitting.train_steps`: the
        planes and the targets of one minibatch, each position under a
        random symmetry, its value target the outcome mixed with the
        searched value (:attr:`RLTrainConfig.value_mix`)."""
        rng = np.random.default_rng(config.seed)

        def next_batch(step: int):
            if step in self.other_steps:
                other = self.other_steps[step]
                b = self.other_buffers[other].sample(config.batch_size, rng, size=other,
                                                     symmetries=config.symmetries)
            else:
                b = self.buffer.sample(config.batch_size - self.mixed, rng, size=self.size,
                                       symmetries=config.symmetries)
                if self.mixed:
                    e = self.mix.sample(self.mixed, rng, size=self.size,
                                        symmetries=config.symmetries)
                    b = {k: np.concatenate([b[k], e[k]]) for k in b}
            if b["planes"].shape[-1] != net.planes:
                raise ValueError(f"the replay window's positions have {b['planes'].shape[-1]} "
                                 f"planes, {best_model.name} takes {net.planes}")
            value = (1.0 - config.value_mix) * b["value"] + config.value_mix * b["searched"]
            return b["planes"], net.distribution_targets(b["policy"], b["policy_weight"],
                                                         value, b["ownership"], b["score"],
                                                         b["score_weight"])

        return next_batch


def _candidate_record(net, best_model: Path, summary: dict[str, Any],
                      config: RLTrainConfig) -> dict[str, Any]:
    """A candidate's metadata: its parent (path, digest, date, the parent's
    parent) and its training (``summary``, the steps since the loop's
    start, the configuration); the parent's own record of its making is
    taken off ``net``'s metadata (:data:`PARENT_ONLY`)."""
    parent_meta = net.metadata
    net.metadata = {k: v for k, v in parent_meta.items() if k not in PARENT_ONLY}
    record = {
        "parent": {"path": str(best_model), "name": best_model.name,
                   "sha256": _sha256(best_model), "date": parent_meta.get("date"),
                   "parent": (parent_meta.get("parent") or {}).get("name")},
        "rl_training": {**{k: v for k, v in summary.items()
                           if k not in ("window", "expert", "other_sizes")},
                        "total_steps": config.steps + int(
                            (parent_meta.get("rl_training") or {}).get("total_steps", 0)),
                        "replay": summary["window"], "expert": summary.get("expert"),
                        "other_sizes": summary.get("other_sizes"), "config": asdict(config),
                        "l2": net.l2,
                        "finished": _dt.datetime.now(_dt.timezone.utc)
                        .isoformat(timespec="seconds")},
    }
    if parent_meta.get("heldout"):  # the parent's figures, to compare the candidate's with
        record["parent_heldout"] = parent_meta["heldout"]
    return record


def train_with_progress(best_model: Path, buffer: ReplayBuffer, output: Path,
                        config: RLTrainConfig, size: int = 9, shown: bool = False,
                        log: Callable[[str], Any] = print,
                        mix: Optional[ReplayBuffer] = None,
                        others: Optional[Mapping[int, ReplayBuffer]] = None) -> dict[str, Any]:
    """:func:`train_candidate` with a progress bar of its steps and their
    losses on a terminal when ``shown`` (the loop's trainer stage and
    ``train.py candidate``)."""
    from .selfplay_run import progress_bar

    bar = progress_bar(config.steps, 0, shown, "training", "step")

    def advance(step: int, steps: int, logs: dict[str, float]) -> None:
        bar.set_postfix_str(", ".join(f"{k} {v:.3f}" for k, v in logs.items()), refresh=False)
        bar.update(step - bar.n)

    try:
        return train_candidate(best_model, buffer, output, config, size=size,
                               progress=advance, log=log, mix=mix, others=others)
    finally:
        bar.close()


def _mean(history: list[dict[str, float]]) -> dict[str, float]:
    return {k: float(np.mean([h[k] for h in history])) for k in history[0]} if history else {}


def _losses(logs: dict[str, float]) -> dict[str, float]:
    """Keras's log names as the summary's: ``policy_loss`` -> ``policy``,
    ``loss`` -> ``total``, ``policy_top1`` -> ``top1``."""
    out = {head: logs[f"{head}_loss"] for head in LOSSES if f"{head}_loss" in logs}
    if "policy" not in out and "loss" in logs:
        out["policy"] = logs["loss"]  # a one-head network logs only the total
    if "loss" in logs:
        out["total"] = logs["loss"]
    if "policy_top1" in logs or "top1" in logs:
        out["top1"] = logs.get("policy_top1", logs.get("top1"))
    return out


def _span(generations: list[int]) -> str:
    if not generations:
        return "none"
    return str(generations[0]) if len(generations) == 1 else f"{generations[0]}-{generations[-1]}"


__all__ = ["MIX_SHARE", "OTHER_SIZES_SHARE", "mix_count", "mix_problems", "other_size_steps",
           "RLTrainConfig", "train_candidate", "train_with_progress", "save_atomically",
           "window_summary", "OPTION_NAMES"]
