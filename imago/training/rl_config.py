"""A self-play run's settings (:class:`RLConfig`, ``RUN/run.json``), its
folder (:class:`RunFolder`) and the fixed anchors its networks are rated
against; the stages themselves are :mod:`imago.training.rl` and
:mod:`imago.training.rl_rating`."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from imago.match.arena import ArenaSettings

from .data import write_json
from .openings import OPENING_SHARE
from .rl_trainer import MIX_SHARE, OTHER_SIZES_SHARE, RLTrainConfig, mix_problems
from .search_play import SelfPlaySettings

ANCHORS = {
    "gnugo": ("gnugo-10", "{gnugo} --mode gtp --level 10 --chinese-rules"),
    "katago": ("katago-gtp-1", "{katago} 1"),
}
"""The fixed opponents a promoted network is rated against: name, command."""
ANCHOR_NAMES = frozenset(name for name, _ in ANCHORS.values())


@dataclass
class RLConfig:
    """The settings of a run (``run.json``)."""

    size: int = 9
    komi: float = 7.5
    komi_spread: float = 0.0
    games: int = 200
    visits: int = 100
    cheap_visits: int = 25
    full_share: float = 0.25
    parallel: int = 32
    workers: int = 1
    window: int = 100_000
    train_steps: int = 400
    batch_size: int = 256
    optimizer: str = "sgd"
    learning_rate: float = 0.001
    train_from: str = "latest"
    average: int = 1
    value_mix: float = 0.5
    mix: list = field(default_factory=list)
    mix_share: float = MIX_SHARE
    other_sizes_share: float = OTHER_SIZES_SHARE
    gate_games: int = 100
    threshold: float = 0.55
    gate_anchor_games: int = 0
    rate_games: int = 10
    rate_visits: int = 0
    start_games: int = 0
    anchors: list = field(default_factory=lambda: ["gnugo", "katago"])
    resign_value: float = -0.9
    no_resign_share: float = 0.1
    prune_targets: bool = True
    forced_playouts: float = 0.0
    local_reading: bool = False
    heldout: list = field(default_factory=list)
    heldout_positions: int = 2000
    openings: list = field(default_factory=list)
    opening_share: float = OPENING_SHARE
    opening_moves: int = 0
    seed: int = 1

    def problems(self) -> list[str]:
        out = []
        for name in ("games", "visits", "cheap_visits", "parallel", "workers", "window",
                     "gate_games"):
            if getattr(self, name) < 1:
                out.append(f"--{name.replace('_', '-')} must be at least 1, "
                           f"not {getattr(self, name)}")
        if not 0.5 <= self.threshold <= 1.0:
            out.append(f"--threshold must be from 0.5 to 1, not {self.threshold}")
        if self.train_from not in TRAIN_FROM:
            out.append(f"--train-from must be one of {', '.join(TRAIN_FROM)}, "
                       f"not {self.train_from!r}")
        if self.average < 1:
            out.append(f"--average must be at least 1, not {self.average}")
        if self.heldout_positions < 1:
            out.append(f"--heldout-positions must be at least 1, not {self.heldout_positions}")
        if self.rate_games < 0:
            out.append(f"--rate-games must be 0 or more, not {self.rate_games}")
        if self.rate_visits < 0:
            out.append(f"--rate-visits must be 0 (the self-play's --visits) or more, "
                       f"not {self.rate_visits}")
        if self.gate_anchor_games < 0:
            out.append(f"--gate-anchor-games must be 0 or more, not {self.gate_anchor_games}")
        elif self.gate_anchor_games and (self.rate_games < 1 or not self.anchors):
            out.append("--gate-anchor-games compares a candidate with the best network's "
                       "rating games: give --rate-games 1 or more and an anchor")
        if self.start_games < 0:
            out.append(f"--start-games must be 0 or more, not {self.start_games}")
        unknown = [a for a in self.anchors if a not in ANCHORS]
        if unknown:
            out.append(f"unknown anchors {', '.join(unknown)}; choose from {', '.join(ANCHORS)}")
        out += self.selfplay_settings(self.resign_value).problems()
        out += self.train_config().option_problems({"steps": "train-steps"})
        out += mix_problems(self.mix, self.mix_share)
        return out

    def selfplay_settings(self, resign_value: float) -> SelfPlaySettings:
        return selfplay_settings_of(self, resign_value)

    def anchor_visits(self) -> int:
        """Visits a move of the networks' games against the anchors:
        ``rate_visits``, or with 0 the full searches' ``visits``."""
        return self.rate_visits or self.visits

    def arena_settings(self) -> ArenaSettings:
        """How the run's networks play each other (the gate, the start match)."""
        return ArenaSettings(size=self.size, komi=self.komi, visits=self.visits,
                             parallel=self.parallel)

    def train_config(self) -> RLTrainConfig:
        return RLTrainConfig(steps=self.train_steps, batch_size=self.batch_size,
                             optimizer=self.optimizer, learning_rate=self.learning_rate,
                             value_mix=self.value_mix,
                             mix_share=self.mix_share if self.mix else 0.0,
                             other_sizes_share=self.other_sizes_share, seed=self.seed)


def selfplay_settings_of(source, resign_value: float) -> SelfPlaySettings:
    """The self-play settings of ``source``, a run's :class:`RLConfig` or
    ``train.py selfplay``'s parsed arguments (the same names): games start
    from openings only where lines are given, and an ``opening_moves`` of 0
    is the settings' default."""
    return SelfPlaySettings(size=source.size, komi=source.komi, komi_spread=source.komi_spread,
                            visits=source.visits, cheap_visits=source.cheap_visits,
                            full_share=source.full_share, parallel=source.parallel,
                            resign_value=resign_value, no_resign_share=source.no_resign_share,
                            prune_targets=source.prune_targets,
                            forced_playouts=source.forced_playouts,
                            local_reading=source.local_reading,
                            opening_share=source.opening_share if source.openings else 0.0,
                            opening_moves=source.opening_moves or None)


TRAIN_FROM = ("latest", "best")
"""Where each iteration's training starts: ``latest``, the previous
iteration's trainer output, promoted or not, so that training goes on across
iterations as AlphaGo Zero's continuously trained network does while the
best network plays; ``best``, the best network each time (a rejected
candidate's steps are thrown away, so no iteration trains more than
``train_steps`` beyond the best)."""


class RunFolder:
    """The paths of a run and its state file."""

    def __init__(self, folder: str | os.PathLike):
        self.root = Path(folder)

    def model(self, generation: int) -> Path:
        return self.root / "models" / f"gen-{generation:04d}.keras"

    def candidate(self, iteration: int) -> Path:
        """The network iteration ``iteration - 1`` trained, as the gate plays it."""
        return self.root / "candidates" / f"cand-{iteration:04d}.keras"

    def trained(self, iteration: int) -> Path:
        """The trainer's own output where the candidate is a mean of several
        (``--average``)."""
        return self.root / "candidates" / f"trained-{iteration:04d}.keras"

    def trainer_output(self, iteration: int) -> Path:
        """What the trainer wrote at ``iteration``: its own output where the
        candidate is a mean, else the candidate itself."""
        trained = self.trained(iteration)
        return trained if trained.exists() else self.candidate(iteration)

    def gate_log(self, iteration: int) -> Path:
        return self.root / "matches" / f"gate-{iteration:04d}.jsonl"

    def read(self, name: str) -> Optional[dict]:
        path = self.root / name
        if not path.exists():
            return None
        return json.loads(path.read_text(encoding="utf-8"))

    def write(self, name: str, data: dict) -> None:
        write_json(self.root / name, data, indent=1)


__all__ = ["ANCHORS", "ANCHOR_NAMES", "TRAIN_FROM", "RLConfig", "RunFolder",
           "selfplay_settings_of"]
