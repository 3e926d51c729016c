"""Where a training run's network comes from, decided before any data is read.

A run starts from a new network, from a trained model (``--init MODEL``) or
from its own last checkpoint (``--resume``). :func:`plan_start` reads the
metadata sidecars only (no Keras), fills the network options the command
line left out with the starting model's, and refuses, with one line naming
the options, a model or checkpoint that is not what was asked for: a
checkpoint made with other blocks or planes, one that belongs to the run of
another output file, a model for other input planes. :func:`open_network`
then loads or builds the network, turning Keras's many ways of failing on a
file that is no model into one ValueError naming the file.
"""

from __future__ import annotations

import dataclasses
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from imago.nn.features import num_planes
from imago.nn.modelfile import read_metadata, size_problem

from .data import write_json
from .options import ARCHITECTURES, NETWORK_DEFAULTS, TrainConfig, option_name

Log = Callable[[str], Any]


@dataclass(frozen=True)
class Checkpoint:
    """The checkpoint folder of a run: the model after the last finished
    epoch (with its optimizer state) and a state file (epochs done, the
    run's options). ``derived`` when the folder comes from the output's name
    rather than ``--checkpoint-dir``."""

    dir: Path
    derived: bool

    @classmethod
    def of_run(cls, config: TrainConfig, cache_dir: Path) -> "Checkpoint":
        if config.checkpoint_dir:
            return cls(Path(config.checkpoint_dir), False)
        return cls(cache_dir / "checkpoints" / Path(config.output).stem, True)

    @property
    def model(self) -> Path:
        return self.dir / "checkpoint.keras"

    @property
    def state(self) -> Path:
        return self.dir / "checkpoint-state.json"

    def exists(self) -> bool:
        return self.model.is_file() and self.state.is_file()

    def read_state(self) -> dict:
        """The state file: ``epochs_done``, ``logs`` and (since it was kept)
        ``run``, the options that make the run what it is."""
        try:
            state = json.loads(self.state.read_text(encoding="utf-8"))
            int(state["epochs_done"])
        except (OSError, ValueError, KeyError, TypeError) as err:
            raise ValueError(f"--resume: {self.state} is damaged ({err}); remove "
                             f"{self.dir} to start afresh") from None
        return state

    def save_state(self, epochs_done: int, logs: dict, config: TrainConfig) -> None:
        """Write the state file atomically."""
        write_json(self.state, {"epochs_done": epochs_done, "logs": logs,
                                "run": run_options(config)})


@dataclass(frozen=True)
class Start:
    """Where the network comes from: ``new``, ``init`` (a trained model at
    ``path``) or ``resume`` (the checkpoint at ``path``, after
    ``epochs_done`` epochs)."""

    kind: str
    path: Optional[Path] = None
    epochs_done: int = 0
    metadata: dict = field(default_factory=dict)

    @property
    def option(self) -> str:
        return f"--{self.kind}"


def model_file(path: str | os.PathLike) -> Path:
    """The ``.keras`` file a model is saved as (the suffix is forced)."""
    path = Path(path)
    return path if path.suffix == ".keras" else path.with_suffix(".keras")


def run_options(config: TrainConfig) -> dict:
    """What makes a run the run it is, kept in its checkpoint state."""
    return {"output": str(model_file(config.output).resolve()),
            "board_size": config.board_size, "train_heads": config.train_heads}


def read_model_metadata(path: str | os.PathLike, option: str) -> dict:
    """The metadata sidecar (``NAME.json``) of the model ``NAME.keras``
    (:func:`imago.nn.modelfile.read_metadata`); the error names ``option``."""
    try:
        meta = read_metadata(path)
    except FileNotFoundError as err:
        raise FileNotFoundError(f"{option}: {err}") from None
    except ValueError as err:
        raise ValueError(f"{option}: {err}") from None
    if meta["architecture"] not in ARCHITECTURES:
        raise ValueError(f"{option}: {path}: unknown architecture {meta['architecture']!r}")
    try:
        num_planes(meta["plane_set"])
    except ValueError as err:
        raise ValueError(f"{option}: {path}: {err}") from None
    return meta


def network_options(meta: dict) -> dict[str, Any]:
    """The network fields of :class:`TrainConfig` a saved model has."""
    params = meta.get("params") or {}
    found = {"architecture": meta.get("architecture"), "plane_set": meta.get("plane_set"),
             "blocks": params.get("blocks"), "filters": params.get("filters")}
    return {k: v for k, v in found.items() if v is not None}


def _shown(value: Any) -> str:
    """An option's value as the command line writes it."""
    if isinstance(value, list):
        return " ".join(map(str, value))
    return "all heads" if value is None else str(value)


def _differences(config: TrainConfig, found: dict[str, Any]) -> list[str]:
    """``--option FOUND (not GIVEN)`` for each option given that differs."""
    return [f"{option_name(name)} {_shown(value)} (not {_shown(getattr(config, name))})"
            for name, value in found.items()
            if getattr(config, name) is not None and getattr(config, name) != value]


def plan_start(config: TrainConfig, checkpoint: Checkpoint,
               log: Log = print) -> tuple[TrainConfig, Start]:
    """The run's start and its config with every network field filled in.

    Raises ValueError naming the difference when ``--resume`` finds the
    checkpoint of another run (other network options, board size or heads,
    or, in the folder named after the output, another output file), when a
    new run would overwrite another run's checkpoint, when ``--init``'s model
    is not what the options ask for, and for ``--train-heads`` on a new
    network."""
    if checkpoint.exists() and checkpoint.derived:
        earlier = _checkpoint_output(checkpoint)
        if earlier is not None and earlier != model_file(config.output).resolve():
            what = "--resume: the checkpoint in" if config.resume else "the checkpoint folder"
            raise ValueError(f"{what} {checkpoint.dir} belongs to the run that writes "
                             f"{earlier}, not {model_file(config.output)}; give --checkpoint-dir "
                             "to keep this run's checkpoints apart (or remove that folder)")
    if config.resume and checkpoint.exists():
        meta = read_model_metadata(checkpoint.model, "--resume")
        state = checkpoint.read_state()
        found = network_options(meta)
        run = state.get("run") or {}
        for name in ("board_size", "train_heads"):
            if name in run:
                found[name] = run[name]
        differences = _differences(config, found)
        if differences:
            raise ValueError(f"--resume: the run in {checkpoint.dir} was made with "
                             f"{', '.join(differences)}; leave those options out to go on "
                             "with it, or give --checkpoint-dir for a new run")
        done = int(state["epochs_done"])
        if done >= config.epochs:
            raise ValueError(f"--resume: the run in {checkpoint.dir} has done {done} "
                             f"epoch{'s' if done != 1 else ''} already; ask for more with "
                             "--epochs")
        filled = {k: v for k, v in found.items() if getattr(config, k) is None}
        return _filled(config, filled), Start("resume", checkpoint.model, done, meta)
    if config.resume:
        log(f"--resume: no checkpoint in {checkpoint.dir}; starting afresh")
    elif checkpoint.exists():
        log(f"replacing the checkpoint in {checkpoint.dir} of an earlier run of "
            f"{model_file(config.output).name} (--resume goes on from it instead)")
    if config.init:
        meta = read_model_metadata(config.init, "--init")
        found = network_options(meta)
        differences = _differences(config, found)
        if differences:
            raise ValueError(f"--init: {config.init} is a network with "
                             f"{', '.join(differences)}; leave those options out with --init")
        problem = size_problem(meta, config.board_size)
        if problem is not None:
            raise ValueError(f"--init: {config.init}: {problem} (--board-size)")
        return _filled(config, found), Start("init", Path(config.init), 0, meta)
    if config.train_heads:
        raise ValueError("--train-heads trains part of a trained network: give the network "
                         "with --init MODEL")
    return _filled(config, {}), Start("new")


def _checkpoint_output(checkpoint: Checkpoint) -> Optional[Path]:
    """The output file of the run a checkpoint belongs to, when it says."""
    try:
        state = json.loads(checkpoint.state.read_text(encoding="utf-8"))
        output = (state.get("run") or {}).get("output")
        if output is None:
            side = json.loads(checkpoint.model.with_suffix(".json").read_text(encoding="utf-8"))
            output = side.get("checkpoint_of")
    except (OSError, ValueError, AttributeError):
        return None
    return model_file(output).resolve() if output else None


def _filled(config: TrainConfig, found: dict[str, Any]) -> TrainConfig:
    """``config`` with its empty network fields set from ``found``, then
    from :data:`NETWORK_DEFAULTS`."""
    values = {}
    for name, default in NETWORK_DEFAULTS.items():
        if getattr(config, name) is None:
            values[name] = found.get(name, default)
    if config.train_heads is None and found.get("train_heads"):
        values["train_heads"] = found["train_heads"]
    return dataclasses.replace(config, **values)


def writable_folder(folder: str | os.PathLike, option: str) -> Path:
    """Check that files can be written in ``folder``, or that it can be made
    (its nearest existing parent a folder this process may write in); the
    folder is not made here but by the first write, so that a command that
    stops before writing anything (no data) leaves nothing behind.
    ValueError naming ``option`` otherwise."""
    folder = Path(folder)
    existing = folder
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(f"{option}: {existing} is a file, not a folder")
    try:
        with tempfile.TemporaryFile(dir=existing):
            pass
    except OSError as err:
        raise ValueError(f"{option}: cannot write in {folder} "
                         f"({err.strerror or err})") from None
    return folder


def check_output(output: str | os.PathLike) -> Path:
    """The model file ``--output`` names, in a folder that is writable or
    can be made (:func:`writable_folder`)."""
    path = Path(output)
    if path.is_dir() or str(output).endswith(os.sep):
        raise ValueError(f"--output: {output} is a folder; give a file name such as "
                         f"{path / 'model.keras'}")
    writable_folder(path.parent, "--output")
    return model_file(path)


def open_network(config: TrainConfig, start: Start, log: Log = print):
    """The :class:`~imago.nn.networks.NeuralNetwork` to train (imports
    Keras): the checkpoint compiled with its optimizer state, the ``--init``
    model, or a new network. A file that does not load is a ValueError
    naming it; so is a model whose input is not the plane set its metadata
    names (the training data is encoded with that set)."""
    from imago.nn.networks import NeuralNetwork, create_network

    if start.kind == "new":
        params = {"blocks": config.blocks, "filters": config.filters} \
            if config.architecture == "residual" else \
            {"filters": config.filters} if config.architecture == "conv" else {}
        return create_network(config.architecture, config.board_size, config.plane_set,
                              l2=config.l2, **params)
    path = start.path
    try:
        net = NeuralNetwork.load(path, config.board_size, compile=start.kind == "resume")
    except Exception as err:  # noqa: BLE001 - Keras raises many kinds for a file that is no model
        text = str(err).strip().splitlines()
        reason = text[0].removeprefix(f"{path}: ")[:200] if text else type(err).__name__
        raise ValueError(f"{start.option}: cannot load {path}: {reason}") from None
    planes = net.model.input_shape[-1]
    if planes != num_planes(config.plane_set):
        raise ValueError(f"{start.option}: {path} takes {planes} input planes, not the "
                         f"{num_planes(config.plane_set)} of the {config.plane_set} planes "
                         "its metadata names")
    log(f"resuming from {path} after epoch {start.epochs_done}" if start.kind == "resume"
        else f"starting from {path}")
    return net


__all__ = ["Checkpoint", "Start", "plan_start", "open_network", "read_model_metadata",
           "network_options", "run_options", "writable_folder", "check_output", "model_file"]
