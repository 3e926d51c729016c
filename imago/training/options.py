"""The options of a training run (:class:`TrainConfig`) and their checks.

``train.py`` fills a :class:`TrainConfig` from its command line; the same
object serves callers in Python. :meth:`TrainConfig.check` refuses nonsense
values (negative epochs, a learning rate of zero, ...) with one line naming
the option, before any data is read. The network options (architecture,
plane set, blocks, filters, heads to train) default to ``None``: a new
network takes :data:`NETWORK_DEFAULTS`, ``--init`` and ``--resume`` take the
starting model's, and a value given that contradicts that model is refused
(see :mod:`.start`).

No Keras here: the names of the architectures are listed, not imported.
"""

from __future__ import annotations

import argparse
import math
import shlex
import sys
from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Optional

from imago.game.coords import MAX_SIZE
from imago.nn.features import PLANE_SETS

ARCHITECTURES = ("residual", "conv", "dense")
"""The networks ``--architecture`` names (:data:`imago.nn.networks.ARCHITECTURES`)."""

HEADS = ("policy", "value", "ownership")

NETWORK_DEFAULTS: dict[str, Any] = {"architecture": "residual", "plane_set": "history",
                                    "blocks": 6, "filters": 64}
"""What a new network is when the command line does not say."""

OPTIONS = {"plane_set": "--planes", "learning_rate": "--lr", "cache_dir": "--cache",
           "dead": "--gnugo-dead", "augment": "--no-augment"}
"""Command-line names of the fields that are not ``--field-name``."""


def option_name(name: str) -> str:
    """The ``train.py`` option that sets the :class:`TrainConfig` field ``name``."""
    return OPTIONS.get(name, "--" + name.replace("_", "-"))


@dataclass
class TrainConfig:
    """Everything ``train.py`` can set (see its ``--help``). ``None`` in a
    network field means "the default, or the starting model's"."""

    inputs: list[str]
    output: str = "models/model.keras"
    architecture: Optional[str] = None
    plane_set: Optional[str] = None
    board_size: int = 9
    blocks: Optional[int] = None
    filters: Optional[int] = None
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

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """The default of every field that has one (``train.py`` shows them)."""
        return {f.name: f.default for f in fields(cls) if f.default is not MISSING}

    def problems(self) -> list[str]:
        """What is wrong with the values, one line each naming the option."""
        out: list[str] = []

        def need(ok: bool, name: str, rule: str) -> None:
            if not ok:
                out.append(f"{option_name(name)} must be {rule}, not {getattr(self, name)!r}")

        def at_least(name: str, low: int, optional: bool = False) -> None:
            value = getattr(self, name)
            if not (optional and value is None):
                need(isinstance(value, int) and value >= low, name, f"at least {low}")

        def number(name: str, rule: str, test) -> None:
            value = getattr(self, name)
            need(isinstance(value, (int, float)) and math.isfinite(value) and test(value),
                 name, rule)

        def one_of(name: str, choices, optional: bool = False) -> None:
            value = getattr(self, name)
            if not (optional and value is None):
                need(value in choices, name, "one of " + ", ".join(map(str, choices)))

        if not self.inputs:
            out.append("no inputs: give SGF files, folders or globs")
        one_of("architecture", ARCHITECTURES, optional=True)
        one_of("plane_set", tuple(PLANE_SETS), optional=True)
        need(isinstance(self.board_size, int) and 2 <= self.board_size <= MAX_SIZE,
             "board_size", f"2 to {MAX_SIZE}")
        at_least("blocks", 1, optional=True)
        at_least("filters", 1, optional=True)
        at_least("epochs", 1)
        at_least("batch_size", 1)
        one_of("optimizer", ("adam", "sgd"))
        number("learning_rate", "a positive number", lambda v: v > 0)
        number("momentum", "from 0 up to (not including) 1", lambda v: 0 <= v < 1)
        one_of("schedule", ("cosine", "constant"))
        number("l2", "zero or more", lambda v: v >= 0)
        for head in HEADS:
            number(f"{head}_weight", "zero or more", lambda v: v >= 0)
        if not out and not (self.policy_weight or self.value_weight or self.ownership_weight):
            out.append("the loss weights are all 0: nothing would be trained")
        number("validation", "a fraction from 0 up to (not including) 1",
               lambda v: 0 <= v < 1)
        if self.train_heads is not None:
            unknown = [h for h in self.train_heads if h not in HEADS]
            if unknown or not self.train_heads:
                out.append(f"--train-heads takes {', '.join(HEADS)}, not "
                           f"{' '.join(map(str, self.train_heads)) or 'nothing'}")
        one_of("dead", ("markup", "gnugo"))
        at_least("max_games", 1, optional=True)
        if self.time_limit is not None:
            number("time_limit", "a positive number of minutes", lambda v: v > 0)
        need(isinstance(self.seed, int) and 0 <= self.seed < 2 ** 32, "seed",
             "from 0 to 2**32 - 1")
        one_of("verbose", (0, 1, 2))
        return out

    def check(self) -> None:
        """Raise ValueError naming every option with a value that makes no sense."""
        problems = self.problems()
        if problems:
            raise ValueError("; ".join(problems))


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter,
                    argparse.RawDescriptionHelpFormatter):
    """``--help`` with each option's default, leaving out the ``None`` of
    options whose help says what they default to, and the on/off flags."""

    def _get_help_string(self, action: argparse.Action) -> Optional[str]:
        if action.default is None or isinstance(action.default, bool) \
                or "default" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


def model_argument(text: str) -> str:
    """An argparse type for a network on a training command line: the file
    named, or the shipped network a name means (``soup9``,
    ``models/soup9.keras`` from any folder;
    :func:`imago.nn.modelfile.find_model`), as the path to use."""
    from imago.nn.modelfile import find_model  # no Keras

    return str(find_model(text))


_COMMAND = ["train.py"]


def command_name(subcommand: str = "") -> str:
    """How the training command is called in usage lines and messages:
    ``train.py`` in a checkout, ``imago train`` once installed
    (:func:`set_command_name`), with ``subcommand`` after it."""
    return f"{_COMMAND[0]} {subcommand}".strip()


def set_command_name(name: str) -> None:
    """Name the training command as its user called it (see :func:`command_name`)."""
    _COMMAND[0] = name


__all__ = ["TrainConfig", "ARCHITECTURES", "HEADS", "NETWORK_DEFAULTS", "option_name",
           "HelpFormatter", "command_name", "set_command_name", "model_argument"]
