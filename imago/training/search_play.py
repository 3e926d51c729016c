"""Self-play with the tree search: the games the AlphaGo Zero loop learns from.

Many games are played at once, each with its own :class:`PUCTSearch`, all
in one :class:`~imago.search.SearchPool`, so every network call answers the
leaves of all the games' searches (batches of a hundred and more on a CPU
where one search alone sends sixteen). Each game keeps its tree from move
to move (the subtree of the move played).

Per move (AlphaGo Zero, with KataGo's playout-cap randomisation):

- a **full search** (``visits``) with Dirichlet noise at the root, for a
  share ``full_share`` of the moves, or a **cheap search** (``cheap_visits``,
  no noise) for the others; only full searches become policy targets, their
  visits less those the noise alone gave (``prune_targets``,
  :meth:`~imago.search.PUCTSearch.policy_target`, as KataGo prunes);
  with ``forced_playouts`` (KataGo's ``k``), every root move of a full
  search with a prior ``P`` (the noise in it) is read at least
  ``sqrt(k P N)`` times of ``N``, so that a move the network undervalues
  at first sight gets the visits to show it is good, and the target's
  pruning takes back those that did not;
- the move is drawn in proportion to the root's visits for the first
  ``sample_moves`` moves (temperature 1), then the most visited is played;
- a side whose searched value stays below ``resign_value`` for two of its
  moves in a row resigns, except in a share ``no_resign_share`` of the games,
  which play on to check the threshold: a side that would have resigned
  there but won is a *false resignation*;
- each game's komi is ``komi``, or with ``komi_spread`` drawn from
  ``komi +- komi_spread`` (half points) so that a network that sees the
  komi learns how it changes the game (KataGo varies komi so);
- with opening lines given (:mod:`imago.training.openings`), a share
  ``opening_share`` of the games starts after the first moves of another
  player's game, so that the loop meets positions its own line would not
  make;
- a game ends by two passes, a resignation or ``max_moves`` moves, and is
  judged by the one count of :mod:`imago.game` (dead stones removed).

Each finished game is a :class:`~imago.training.replay.GameRecord` (the
0/1 input planes, without a komi plane, which the replay buffer rebuilds
from the game's komi; visit distributions, searched values, outcome, final ownership and score)
and can be written as SGF with the visits of each full search in a comment.
Each full search also measures its *policy surprise*: the Kullback-Leibler
divergence of its policy target from the network's priors at the root (before
the noise), in nats: how far the searches' choices are from the network's (0:
they only repeat it; part of it is the searches' own randomness, which no
network learns).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields
from typing import Iterator, Optional, Sequence

import numpy as np

from imago.game import BLACK, WHITE, GameState, index_to_vertex
from imago.game.counting import SMALL_BOARD
from imago.match.arena import choose_action, outcome, play_action, root_value
from imago.nn.features import BINARY_PLANES, PLANE_SETS, encode_into
from imago.search import PUCTSearch, SearchJob, SearchPool

from .data import owners_from_black
from .openings import OpeningLine, default_opening_moves, start_from_opening
from .replay import GameRecord


@dataclass
class SelfPlaySettings:
    """How self-play games are played (see the module docstring). ``None``
    fields take a default from the board size."""

    size: int = 9
    komi: float = 7.5
    komi_spread: float = 0.0                # each game's komi: komi +- up to this
    visits: int = 100
    cheap_visits: int = 25
    full_share: float = 0.25
    sample_moves: Optional[int] = None      # default: size * size // 8 (10 on 9x9)
    dirichlet_alpha: Optional[float] = None  # default: 10 / size**2 (0.12 on 9x9)
    noise_fraction: float = 0.25
    resign_value: float = -0.9
    no_resign_share: float = 0.1
    max_moves: Optional[int] = None         # default: 2 * size * size
    parallel: int = 32
    search_batch: int = 8
    c_puct: float = 1.5
    fpu_reduction: float = 0.25
    prune_targets: bool = True
    forced_playouts: float = 0.0            # KataGo's k in full searches; 0: none
    local_reading: bool = False             # full searches' roots strike what areas lose
    opening_share: float = 0.0              # games started from an opening line, if given
    opening_moves: Optional[int] = None     # most moves of a line; default: size**2 // 4

    def resolved(self) -> "SelfPlaySettings":
        """A copy with the size-dependent defaults filled in."""
        area = self.size * self.size
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        values["sample_moves"] = area // 8 if self.sample_moves is None else self.sample_moves
        values["dirichlet_alpha"] = (10.0 / area if self.dirichlet_alpha is None
                                     else self.dirichlet_alpha)
        values["max_moves"] = 2 * area if self.max_moves is None else self.max_moves
        values["opening_moves"] = (default_opening_moves(self.size) if self.opening_moves is None
                                   else self.opening_moves)
        return SelfPlaySettings(**values)

    def problems(self) -> list[str]:
        """One line per setting that makes no sense (empty when all do)."""
        out = []
        if not 2 <= self.size <= 25:
            out.append(f"size must be from 2 to 25, not {self.size}")
        if not math.isfinite(self.komi):
            out.append(f"komi must be a number, not {self.komi}")
        if not 0.0 <= self.komi_spread <= 100.0:
            out.append(f"komi-spread must be from 0 to 100 points, not {self.komi_spread}")
        for name in ("visits", "cheap_visits", "parallel", "search_batch"):
            if getattr(self, name) < 1:
                out.append(f"{name.replace('_', '-')} must be at least 1, "
                           f"not {getattr(self, name)}")
        if self.opening_moves is not None and self.opening_moves < 1:
            out.append(f"opening-moves must be at least 1 (0 on the command line: a quarter of "
                       f"the board's points), not {self.opening_moves}")
        for name in ("full_share", "no_resign_share", "noise_fraction", "opening_share"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                out.append(f"{name.replace('_', '-')} must be from 0 to 1, "
                           f"not {getattr(self, name)}")
        if not 0.0 <= self.forced_playouts <= 100.0:
            out.append(f"forced-playouts must be from 0 to 100 (KataGo's self-play: 2), "
                       f"not {self.forced_playouts}")
        if not -1.0 <= self.resign_value <= 1.0:
            out.append(f"resign-value must be from -1 to 1 (-1: never resign), "
                       f"not {self.resign_value}")
        return out


def komi_spread_problem(spread: float, plane_set: str, model: object) -> Optional[str]:
    """Why games of many komis (``spread``) would teach the network named
    ``model``, which takes ``plane_set``, nothing: it does not see the komi
    (only a plane set with a komi plane does); None when they would not."""
    if spread and PLANE_SETS[plane_set] == BINARY_PLANES[plane_set]:
        return (f"--komi-spread needs a network that sees the komi (the komi planes); "
                f"{model} takes the {plane_set} planes")
    return None


@dataclass
class PlayedGame:
    """A finished game: its record for the replay buffer, its game tree
    (for SGF), and what its resignation check found."""

    record: GameRecord
    state: GameState
    result: str
    would_resign: Optional[int] = None
    """In a game that could not resign: the side that would have resigned."""
    surprises: list[float] = field(default_factory=list)
    """The policy surprise of each full search (see the module's text)."""

    @property
    def false_resignation(self) -> bool:
        """A side would have resigned, yet won."""
        return self.would_resign is not None and self.would_resign == self.record.winner


@dataclass
class _Game:
    state: GameState
    search: PUCTSearch
    may_resign: bool
    number: int
    planes: list = field(default_factory=list)
    to_move: list = field(default_factory=list)
    moves: list = field(default_factory=list)
    policy: list = field(default_factory=list)
    full: list = field(default_factory=list)
    searched: list = field(default_factory=list)
    surprises: list = field(default_factory=list)
    low: dict = field(default_factory=lambda: {BLACK: 0, WHITE: 0})
    would_resign: Optional[int] = None
    job: Optional[SearchJob] = None


def play_games(evaluator, settings: SelfPlaySettings, games: int,
               seed: Optional[int] = None, name: str = "game",
               batches: Optional[list[int]] = None,
               openings: Sequence[OpeningLine] = ()) -> Iterator[PlayedGame]:
    """Play ``games`` games with ``evaluator`` (a network evaluator: its
    ``network.plane_set`` names the planes recorded), ``settings.parallel``
    at a time; yields each as it finishes. ``batches``, when given, is the
    pool's list of network call sizes (it grows as the games go). A share
    ``settings.opening_share`` of the games starts from ``openings``
    (:func:`~imago.training.openings.start_from_opening`)."""
    settings = settings.resolved()
    rng = np.random.default_rng(seed)
    plane_set = evaluator.network.plane_set
    problem = komi_spread_problem(settings.komi_spread, plane_set, "this network")
    if problem:
        raise ValueError(problem)
    pool = SearchPool(evaluator, max_leaves=settings.parallel * settings.search_batch)
    if batches is not None:
        pool.batches = batches
    playing: dict[int, _Game] = {}
    started = 0
    while playing or started < games:
        while len(playing) < settings.parallel and started < games:
            started += 1
            game = _new_game(evaluator, settings, rng, started, openings)
            _search(game, pool, settings, rng)
            playing[id(game.job)] = game
        for job in pool.step():
            game = playing.pop(id(job))
            ended = _move(game, settings, rng, plane_set)
            if ended is not None:
                yield _finish(game, settings, plane_set, ended, f"{name}-{game.number:06d}")
                continue
            _search(game, pool, settings, rng)
            playing[id(game.job)] = game


def _new_game(evaluator, settings: SelfPlaySettings, rng: np.random.Generator,
              number: int, openings: Sequence[OpeningLine] = ()) -> _Game:
    search = PUCTSearch(evaluator, c_puct=settings.c_puct,
                        fpu_reduction=settings.fpu_reduction,
                        batch_size=settings.search_batch, noise_fraction=settings.noise_fraction,
                        seed=int(rng.integers(2 ** 31)))
    may_resign = settings.resign_value > -1.0 and rng.random() >= settings.no_resign_share
    komi = settings.komi
    if settings.komi_spread:
        komi += round(rng.uniform(-settings.komi_spread, settings.komi_spread) * 2) / 2
    state = GameState(settings.size, komi)
    if openings and rng.random() < settings.opening_share:
        started = start_from_opening(state, openings, rng)
        state.root.properties["GC"] = [f"started after the first moves of {started}"]
    return _Game(state, search, may_resign, number)


def _search(game: _Game, pool: SearchPool, settings: SelfPlaySettings,
            rng: np.random.Generator) -> None:
    """Start the search for the game's next move, full or cheap."""
    full = rng.random() < settings.full_share
    game.full.append(full)
    game.search.dirichlet_alpha = settings.dirichlet_alpha if full else 0.0
    game.search.forced_playouts = settings.forced_playouts if full else 0.0
    # the policy targets' searches only: reading costs a cheap search too much
    game.search.local_reading = full and settings.local_reading and settings.size >= SMALL_BOARD
    visits = settings.visits if full else settings.cheap_visits
    game.job = SearchJob(game.search, game.state, game.state.to_move, visits)
    pool.add(game.job)


def _move(game: _Game, settings: SelfPlaySettings, rng: np.random.Generator,
          plane_set: str) -> Optional[str]:
    """Record the finished search, play its move; returns how the game
    ended (``"passes"``, ``"resigned"``, ``"length"``) or None."""
    state, root, search = game.state, game.job.root, game.search
    size = settings.size
    color = state.to_move
    visits = np.zeros(size * size + 1, np.float32)
    if root.edges:
        visits[root.moves] = np.maximum(root.visits, 0)
    total = float(visits.sum())
    value = root_value(root)
    full = game.full[-1] = game.full[-1] and total > 0
    # the 0/1 planes only: a komi plane is rebuilt from the record's komi
    planes = np.zeros((size, size, BINARY_PLANES[plane_set]), np.uint8)
    encode_into(planes, state.current, plane_set, color)
    game.planes.append(planes)
    game.to_move.append(color)
    game.searched.append(value)
    if full:
        target = search.policy_target() if settings.prune_targets else visits
        target = target / target.sum()
        game.policy.append(target.astype(np.float32))
        game.surprises.append(policy_surprise(target, search))
    else:
        game.policy.append(np.zeros_like(visits))
    action = choose_action(root, search, state.current.number < settings.sample_moves, rng)
    game.moves.append(action)

    game.low[color] = game.low[color] + 1 if value < settings.resign_value else 0
    if game.low[color] >= 2 and settings.resign_value > -1.0:
        if game.may_resign:
            return "resigned"
        if game.would_resign is None:
            game.would_resign = color
    ended = play_action(state, search, action, settings.max_moves)
    state.current.properties["C"] = [_comment(search, visits, value, full)]
    return ended


def policy_surprise(target: np.ndarray, search: PUCTSearch) -> float:
    """KL(target || priors) in nats, with the search root's priors before
    any noise: how far a full search's policy target is from the network's."""
    priors = search.noiseless_priors
    if priors is None:
        priors = search.root.choice_priors()
    on = target > 0
    return float(np.sum(target[on] * (np.log(target[on]) - np.log(np.maximum(priors[on], 1e-6)))))


def _comment(search: PUCTSearch, visits: np.ndarray, value: float, full: bool) -> str:
    """The SGF comment of a move: the search's visits (the policy target
    of a full search) and its value, for people reading the games."""
    order = np.argsort(-visits, kind="stable")
    shown = [f"{_vertex(search, int(a))} {int(visits[a])}" for a in order[:8] if visits[a] > 0]
    kind = "full search" if full else "cheap search (not a policy target)"
    return (f"{kind}, {int(visits.sum())} visits, value {value:+.2f} for the mover; "
            f"visits: {', '.join(shown) or 'none'}")


def _vertex(search: PUCTSearch, action: int) -> str:
    point = search.point_of(action)
    return "pass" if point is None else index_to_vertex(point, search.size)


def _finish(game: _Game, settings: SelfPlaySettings, plane_set: str, ended: str,
            name: str) -> PlayedGame:
    state = game.state
    size = settings.size
    judged = state.count()
    ownership = owners_from_black(judged, size)
    winner, result = outcome(state, ended == "resigned", judged)
    state.root.properties["RE"] = [result]
    record = GameRecord(
        size=size, komi=float(state.game_komi), planes=np.stack(game.planes),
        to_move=np.asarray(game.to_move, np.int8), moves=np.asarray(game.moves, np.int16),
        policy=np.stack(game.policy), full=np.asarray(game.full[:len(game.moves)], bool),
        searched=np.asarray(game.searched, np.float32), winner=winner,
        score=float(judged.score), ownership=ownership, resigned=ended == "resigned",
        plane_set=plane_set, name=name)
    return PlayedGame(record, state, result, game.would_resign, game.surprises)


__all__ = ["SelfPlaySettings", "PlayedGame", "play_games", "komi_spread_problem",
           "policy_surprise"]
