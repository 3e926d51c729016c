"""How strong each generation is: the gate of an AlphaGo-Zero-style loop and
Elo ratings fitted to match results.

- :func:`wilson_interval` and :func:`gate`: does a candidate network beat
  the current best often enough to replace it (draws count as half a win)?
- :func:`fit_elo`: maximum-likelihood Bradley–Terry ratings on the Elo scale
  (a 400-point lead means 10:1 odds) for every player, with reference
  players (anchors, e.g. GNU Go level 10 at 0) held at fixed values, and a
  standard error for each from the curvature of the likelihood.
- :class:`RatingLog`: the match results of a run as JSON lines, appended
  with fsync, so the ratings can be refitted after a restart or a crash.

numpy only: no TensorFlow, no matplotlib (the curve is drawn by
:func:`imago.plotting.elo_curve_png`).
"""

from __future__ import annotations

import json
import logging
import math
import numbers
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence

import numpy as np

from imago.match.tool import wilson_interval

log = logging.getLogger("imago.training")

ELO_PER_NAT = 400 / math.log(10)
"""Elo points per unit of the logistic model's natural scale."""


# ------------------------------------------------------------------ gating
@dataclass(frozen=True)
class GateDecision:
    """The gate's verdict on a candidate: its record against the best
    network, its score share ``(wins + draws/2) / games``, the 95% Wilson
    interval of that share, and whether it reached ``threshold``."""
    wins: int
    losses: int
    draws: int
    games: int
    score: float
    interval: tuple[float, float]
    promoted: bool
    threshold: float

    def __str__(self) -> str:
        low, high = self.interval
        verdict = "promoted" if self.promoted else "rejected"
        return (f"{verdict}: {self.wins}-{self.losses}-{self.draws} (W-L-D), score "
                f"{100 * self.score:.1f}% (95% {100 * low:.1f}-{100 * high:.1f}%), "
                f"threshold {100 * self.threshold:.1f}%")


def gate(wins: int, losses: int, draws: int = 0, threshold: float = 0.55) -> GateDecision:
    """Promote a candidate whose score share against the best network is at
    least ``threshold`` (AlphaGo Zero: 55% of 400 games). No games: rejected."""
    for name, value in (("wins", wins), ("losses", losses), ("draws", draws)):
        if value < 0:
            raise ValueError(f"{name} must not be negative, got {value}")
    if not 0 < threshold <= 1:
        raise ValueError(f"the gate's threshold must be in (0, 1], got {threshold}")
    games = wins + losses + draws
    points = wins + draws / 2
    score = points / games if games else 0.0
    return GateDecision(wins, losses, draws, games, score, wilson_interval(points, games),
                        games > 0 and score >= threshold, threshold)


# --------------------------------------------------------------------- Elo
@dataclass(frozen=True)
class MatchResult:
    """``player``'s record against ``opponent``: wins, losses and draws
    from ``player``'s side (fractional counts are allowed)."""
    player: str
    opponent: str
    wins: float
    losses: float
    draws: float = 0

    def __post_init__(self):
        for name in (self.player, self.opponent):
            if not isinstance(name, str) or not name:
                raise ValueError(f"a player's name must be a non-empty string, got {name!r}")
        if self.player == self.opponent:
            raise ValueError(f"{self.player} cannot play a match against itself")
        for field in ("wins", "losses", "draws"):
            value = getattr(self, field)
            if isinstance(value, bool) or not isinstance(value, numbers.Real) \
                    or not math.isfinite(value) or value < 0:
                raise ValueError(f"{field} must be a finite number >= 0, got {value!r}")
            # plain numbers (not numpy's), so that the result is JSON as it stands
            object.__setattr__(self, field, int(value) if isinstance(value, numbers.Integral)
                               else float(value))

    @property
    def games(self) -> float:
        return self.wins + self.losses + self.draws


@dataclass(frozen=True)
class Rating:
    """A player's Elo, its approximate standard error (0 for an anchor) and
    the games behind it."""
    elo: float
    stderr: float
    games: float
    anchor: bool = False


def fit_elo(results: Iterable[MatchResult], anchors: Mapping[str, float], *,
            prior_draws: float = 1.0, prior_sd: float = 1000.0,
            max_iterations: int = 100) -> dict[str, Rating]:
    """Maximum-likelihood Elo ratings for every player of ``results`` and
    every anchor; the anchors keep their given ratings.

    The model is Bradley–Terry on the Elo scale: ``player`` beats
    ``opponent`` with probability ``1 / (1 + 10 ** ((R_opp - R_player) /
    400))``; a draw counts as half a win and half a loss. Two weak priors
    keep every rating finite:

    - ``prior_draws`` virtual draws for every pair that met, so that a 100%
      score gives a large but finite gap (about 875 Elo after 100-0 with the
      defaults) instead of an infinite one;
    - a Gaussian of ``prior_sd`` Elo around the anchors' mean (0 without
      anchors) on every other player, so players with no path of games to an
      anchor still get a rating, relative to that mean, with a standard error
      near ``prior_sd`` that says how little it means.

    The standard errors come from the inverse Hessian of the log posterior
    (anchors fixed), so they are relative to the anchors.
    """
    results = list(results)
    for name, value in anchors.items():
        if not math.isfinite(value):
            raise ValueError(f"anchor {name}'s rating must be finite, got {value}")
    if prior_draws < 0 or not prior_sd > 0:
        raise ValueError("prior_draws must be >= 0 and prior_sd > 0")
    players: list[str] = list(dict.fromkeys(
        [r.player for r in results] + [r.opponent for r in results] + list(anchors)))
    index = {name: i for i, name in enumerate(players)}
    games = np.zeros(len(players))
    # one edge per pair of players: games between them and the points of the first
    pairs: dict[tuple[int, int], list[float]] = {}
    for r in results:
        i, j = index[r.player], index[r.opponent]
        points = r.wins + r.draws / 2
        if i > j:
            i, j, points = j, i, r.losses + r.draws / 2
        edge = pairs.setdefault((i, j), [prior_draws, prior_draws / 2])
        edge[0] += r.games
        edge[1] += points
        games[i] += r.games
        games[j] += r.games

    x = np.zeros(len(players))  # natural scale: Elo / ELO_PER_NAT
    mean = float(np.mean(list(anchors.values()))) / ELO_PER_NAT if anchors else 0.0
    fixed = np.zeros(len(players), bool)
    for name, value in anchors.items():
        x[index[name]] = value / ELO_PER_NAT
        fixed[index[name]] = True
    free = np.flatnonzero(~fixed)
    x[free] = mean
    tau2 = (prior_sd / ELO_PER_NAT) ** 2

    if pairs:
        a, b = (np.array(side, dtype=np.intp) for side in zip(*pairs))
        n, s = (np.array(column, dtype=float) for column in zip(*pairs.values()))
    else:
        a = b = np.zeros(0, np.intp)
        n = s = np.zeros(0)

    def log_posterior(x: np.ndarray) -> float:
        d = x[a] - x[b]
        # log sigmoid(d) = -logaddexp(0, -d), stable for large gaps
        value = -(s * np.logaddexp(0, -d)).sum() - ((n - s) * np.logaddexp(0, d)).sum()
        return float(value - ((x[free] - mean) ** 2).sum() / (2 * tau2))

    def gradient_hessian(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        d = x[a] - x[b]
        p = 0.5 * (1 + np.tanh(d / 2))  # sigmoid without overflow warnings
        g = np.zeros(len(players))
        np.add.at(g, a, s - n * p)
        np.add.at(g, b, n * p - s)
        w = n * p * (1 - p)
        h = np.zeros((len(players), len(players)))
        np.add.at(h, (a, a), -w)
        np.add.at(h, (b, b), -w)
        np.add.at(h, (a, b), w)
        np.add.at(h, (b, a), w)
        g = g[free] - (x[free] - mean) / tau2
        h = h[np.ix_(free, free)] - np.eye(len(free)) / tau2
        return g, h

    # Newton's method with step halving: the log posterior is strictly concave
    current = log_posterior(x)
    for _ in range(max_iterations):
        if not len(free):
            break
        g, h = gradient_hessian(x)
        step = np.linalg.solve(h, -g)
        t = 1.0
        while True:
            trial = x.copy()
            trial[free] += t * step
            value = log_posterior(trial)
            if value >= current - 1e-12 or t < 1e-6:
                break
            t /= 2
        x, current = trial, value
        if np.max(np.abs(t * step)) < 1e-9:
            break

    stderr = np.zeros(len(players))
    if len(free):
        _, h = gradient_hessian(x)
        variance = np.diag(np.linalg.inv(-h))
        stderr[free] = np.sqrt(np.maximum(variance, 0.0)) * ELO_PER_NAT
    return {name: Rating(float(x[i] * ELO_PER_NAT), float(stderr[i]), float(games[i]),
                         bool(fixed[i]))
            for name, i in index.items()}


def elo_table(ratings: Mapping[str, Rating], order: Optional[Sequence[str]] = None,
              anchored: Optional[Mapping[str, Rating]] = None) -> str:
    """A plain-text table of ``ratings``: player, Elo, ± (one standard
    error; "anchor" for a fixed player), games. Rows in ``order`` (names
    without a rating left out), else strongest first.

    ``anchored``, a second fit (e.g. on the games against the fixed
    opponents alone, see :func:`against`), adds its Elo and ± as two more
    columns; "-" for a player it does not rate."""
    if order is None:
        order = sorted(ratings, key=lambda name: (-ratings[name].elo, name))
    rows = [("player", "Elo", "±", "games")]
    if anchored is not None:
        rows[0] += ("anchor-games Elo", "±")
    for name in order:
        if name in ratings:
            row = (name,) + _elo_cells(ratings[name]) + (f"{ratings[name].games:g}",)
            if anchored is not None:
                row += _elo_cells(anchored[name]) if name in anchored else ("-", "-")
            rows.append(row)
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    lines = [f"{row[0]:<{widths[0]}}  " + "  ".join(f"{cell:>{widths[c]}}" for c, cell
                                                     in enumerate(row[1:], 1))
             for row in rows]
    return "\n".join(lines) + "\n"


def _elo_cells(rating: Rating) -> tuple[str, str]:
    return f"{rating.elo:.0f}", "anchor" if rating.anchor else f"{rating.stderr:.0f}"


def against(results: Iterable[MatchResult], players: Iterable[str]) -> list[MatchResult]:
    """The results with one of ``players`` on either side: fitted alone,
    they rate each generation by its games against fixed opponents only,
    which a chain of self-play matches (won against one's own ancestor)
    cannot inflate."""
    players = set(players)
    return [r for r in results if r.player in players or r.opponent in players]


def elo_history(ratings: Mapping[str, Rating], generations: Iterable[tuple[int, str]]
                ) -> list[tuple[int, float, float]]:
    """The points ``(generation, elo, stderr)`` of a curve, in generation
    order, from the ``(generation, player)`` pairs that name the network of
    each generation (players without a rating left out)."""
    return sorted((int(generation), ratings[player].elo, ratings[player].stderr)
                  for generation, player in generations if player in ratings)


# --------------------------------------------------------------------- log
class JsonLines:
    """A durable log of JSON objects, one a line (``path``).

    :meth:`append` writes a line in one ``write`` on a file opened for
    appending and fsyncs it, so a record is on disk once it returns; a
    process killed halfway leaves at most a torn last line, which
    :meth:`records` skips with a warning (and the next :meth:`append` starts
    on a fresh line rather than gluing its record to the torn one)."""

    def __init__(self, path: "os.PathLike[str] | str"):
        self.path = Path(path)

    def append(self, record: dict) -> None:
        """Add one record to the log, durably."""
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        data = line.encode("utf-8")
        created = not self.path.exists()
        if created:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            end = os.lseek(fd, 0, os.SEEK_END)
            if end > 0 and os.pread(fd, 1, end - 1) != b"\n":
                data = b"\n" + data  # after a torn line: keep this one whole
            written = os.write(fd, data)
            while written < len(data):  # a short write: only on unusual file systems
                written += os.write(fd, data[written:])
            os.fsync(fd)
        finally:
            os.close(fd)
        if created:
            _fsync_dir(self.path.parent)

    def records(self, read: Callable[[dict], Any] = lambda record: record,
                what: str = "record") -> list:
        """``read(record)`` of every record logged so far (none when there
        is no log yet). Lines ``read`` refuses (ValueError, KeyError,
        TypeError) or that are no JSON (a torn last line after a crash,
        damage) are skipped with a warning that names them."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return []
        out = []
        lines = raw.split(b"\n")
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                out.append(read(json.loads(line.decode("utf-8"))))
            except (ValueError, KeyError, TypeError) as error:
                torn = number == len(lines)  # no newline after it: cut short by a crash
                log.warning("%s:%d: skipped %s (%s)", self.path, number,
                            "a torn last line" if torn else f"a line that is no {what}",
                            error)
        return out


class RatingLog:
    """The match results of a run, one JSON object a line in
    ``run_dir/ratings.jsonl`` (a :class:`JsonLines` log)."""

    FILENAME = "ratings.jsonl"

    def __init__(self, run_dir: "os.PathLike[str] | str", filename: str = FILENAME):
        self.lines = JsonLines(Path(run_dir) / filename)
        self.path = self.lines.path

    def append(self, result: MatchResult) -> None:
        """Add one result to the log, durably."""
        self.lines.append(asdict(result))

    def results(self) -> list[MatchResult]:
        """The results logged so far; lines that are no result are skipped
        with a warning."""
        return self.lines.records(
            lambda r: MatchResult(r["player"], r["opponent"], r["wins"], r["losses"],
                                  r.get("draws", 0)), "match result")


def _fsync_dir(path: Path) -> None:
    """Make a new file's directory entry durable (where the OS allows it)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


__all__ = ["wilson_interval", "GateDecision", "gate", "MatchResult", "Rating", "fit_elo",
           "elo_table", "against", "elo_history", "JsonLines", "RatingLog", "ELO_PER_NAT"]
