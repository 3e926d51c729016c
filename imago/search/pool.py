"""Many searches sharing one evaluator: every round, each unfinished search
selects its leaves, one evaluator call answers the leaves of all of them,
and each search applies its share. Self-play of many games and analysis of
many positions fill the network's batches this way even when each search
alone would send a handful of positions.

:class:`SearchPool` advances its searches one round at a time, so a caller
can add and drop searches and read partial results between rounds (the
analysis engine); :func:`run_searches` runs a fixed set to the end.
"""

from __future__ import annotations

import itertools
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from imago.game import GameState
from imago.nn.evaluator import Evaluation

from .leaf import Evaluator
from .puct import PUCTSearch
from .tree import CLOSED, SearchNode, encode_priors

_ORDER = itertools.count()


@dataclass
class SearchJob:
    """One search to run: ``search`` from ``state.current`` for ``color``
    until its root has ``visits`` visits. A pool serves higher ``priority``
    first, then the jobs added earlier. ``forbidden`` actions are struck
    out of the root's choices once it is expanded (one move stays open);
    ``root_temperature`` above 1 flattens the root's priors (a wider
    search), below 1 sharpens them. A root with one open move is not
    searched (a player's move needs no search) unless ``lone_move_searched``
    (an analysis reports that move's value)."""
    search: PUCTSearch
    state: GameState
    color: int
    visits: int
    allow_pass: bool = True
    priority: int = 0
    forbidden: frozenset = frozenset()
    root_temperature: float = 1.0
    lone_move_searched: bool = False
    root: Optional[SearchNode] = field(default=None, init=False)
    root_answer: Optional[tuple] = field(default=None, init=False)
    """The evaluator's careful answer for a new root: ``(policy, value,
    margin, ownership)``, each None when the evaluator does not give it."""
    order: int = field(default_factory=lambda: next(_ORDER), init=False)

    def unfinished(self) -> bool:
        root = self.root
        return (root is not None and root.expanded and root.total_visits() < self.visits
                and (self.lone_move_searched or len(root.open_actions()) > 1))

    def _temper_root(self) -> None:
        root = self.root
        if self.root_temperature == 1.0 or root is None or not root.expanded:
            return
        open_mask = np.frombuffer(root.priors, dtype=np.uint8) != CLOSED
        priors = np.where(open_mask, root.prior_values().astype(np.float64), 0.0)
        priors = priors ** (1.0 / self.root_temperature)
        root.priors = encode_priors(priors / priors.sum(), open_mask).tobytes()

    def _strike_forbidden(self) -> None:
        if self.forbidden and self.root is not None:
            self.search.strike_forbidden(self.root, self.forbidden)


class SearchPool:
    """Searches sharing ``evaluator`` (default: the first job's), advanced
    by :meth:`step`. A round sends at most about ``max_leaves`` leaves to
    the evaluator, the highest-priority searches first.

    ``pipelined``: the evaluator answers one batch in a thread of its own
    while this thread selects the next batch's leaves from the other
    searches and applies the previous answer, so the network (which
    releases the GIL) and the tree work overlap on two cores. A search has
    at most one batch in flight."""

    def __init__(self, evaluator: Optional[Evaluator] = None, max_leaves: int = 256,
                 pipelined: bool = False):
        self.evaluator = evaluator
        self.max_leaves = max(1, int(max_leaves))
        self.new: list[SearchJob] = []
        self.starting: list[SearchJob] = []  # their roots' answers in flight
        self.running: list[SearchJob] = []
        self.batches: list[int] = []  # the size of every evaluator call, newest last
        self._executor = ThreadPoolExecutor(1, "imago-evaluator") if pipelined else None
        self._in_flight: Optional[tuple] = None  # (future, shares, starting jobs)
        self._ready: list[SearchJob] = []        # started in a landing, already finished

    def add(self, job: SearchJob) -> None:
        """Start ``job`` at the next round."""
        if self.evaluator is None:
            self.evaluator = job.search.evaluator
        self.new.append(job)

    def discard(self, job: SearchJob) -> None:
        """Stop ``job`` (its tree keeps what it found so far; a batch in
        flight for it is still applied when it comes back)."""
        for jobs in (self.new, self.starting, self.running, self._ready):
            if job in jobs:
                jobs.remove(job)

    def __len__(self) -> int:
        return len(self.new) + len(self.starting) + len(self.running) + len(self._ready)

    def step(self) -> list[SearchJob]:
        """One round: set up the searches added since the last round (one
        careful evaluator call for all their new roots; in a pipelined pool
        that call rides with the next batch), then one batch of leaves from
        the running searches. Returns the jobs that finished in this round
        (they leave the pool)."""
        asked: list[SearchJob] = []
        if self.new:
            started, self.new = self.new, []
            asked = self._begin(started)
            if asked and self._executor is None:
                self._answer_roots(asked, self._careful(asked))
                asked = []
        if self.running or asked:
            busy = self._round(asked) if self._executor is not None else self._plain_round()
            still = []
            for job in self.running:
                (still if id(job) in busy or job.unfinished() else self._ready).append(job)
            self.running = still
        elif self._in_flight is not None:
            self._land()
        finished, self._ready = self._ready, []
        return finished

    def close(self) -> None:
        """Wait for a batch in flight and stop the evaluator's thread."""
        self._land()
        if self._executor is not None:
            self._executor.shutdown()

    def _begin(self, jobs: list[SearchJob]) -> list[SearchJob]:
        """Set the jobs' roots; those that need no evaluator answer are
        made ready at once. Returns the ones that need an answer."""
        asked = []
        for job in jobs:
            job.search.set_root(job.state, job.color)
            if job.search.needs_root_answer():
                asked.append(job)
            else:
                self._prepare(job, None)
        return asked

    def _careful(self, asked: list[SearchJob]):
        careful = getattr(self.evaluator, "evaluate_all_symmetries", self.evaluator.evaluate)
        return careful([job.search.root_request() for job in asked])

    def _answer_roots(self, asked: list[SearchJob], answer) -> None:
        """Expand the roots of ``asked`` with the evaluator's answer."""
        margins = getattr(answer, "margins", None)
        ownership = getattr(answer, "ownership", None)
        for k, job in enumerate(asked):
            job.search.scored = job.search.scored or margins is not None
            job.root_answer = (answer[0][k], float(answer[1][k]),
                               None if margins is None else float(margins[k]),
                               None if ownership is None else ownership[k])
            job.search.evaluations += 1
            self._prepare(job, (answer[0][k], answer[1][k],
                                None if ownership is None else ownership[k]))

    def _prepare(self, job: SearchJob, answer: Optional[tuple]) -> None:
        job.root = job.search.prepare(job.allow_pass, answer)
        job._temper_root()
        job._strike_forbidden()
        (self.running if job.unfinished() else self._ready).append(job)

    def _select(self, busy: set) -> tuple[list, list]:
        """Leaves of the running searches not in ``busy``, the highest
        priority first, up to about ``max_leaves``: ``(shares, leaves)``."""
        shares, wanted = [], 0
        for job in sorted(self.running, key=lambda j: (-j.priority, j.order)):
            if wanted >= self.max_leaves:
                break
            if id(job) in busy:
                continue
            budget = min(job.search.batch_size, job.visits - job.root.total_visits())
            share = job.search.select(max(1, budget))
            shares.append((job, share))
            wanted += len(share)
        return shares, [leaf for _, share in shares for leaf in share]

    def _plain_round(self) -> set:
        shares, leaves = self._select(set())
        if leaves:
            self._apply(shares, self.evaluator.evaluate(leaves))
        return set()

    def _round(self, asked: list[SearchJob]) -> set:
        """A pipelined round: select for the searches with no batch in
        flight, send their batch (with the careful answers ``asked`` for
        new roots), then apply the one in flight. Returns the ids of the
        jobs whose batch is now in flight."""
        landing = self._in_flight
        busy = {id(job) for job, _ in landing[1]} if landing else set()
        shares, leaves = self._select(busy)
        self._in_flight = None
        if leaves or asked:
            self.starting.extend(asked)
            self._in_flight = (self._executor.submit(self._evaluate, asked, leaves), shares,
                               asked)
        if landing is not None:
            self._settle(landing)
        return {id(job) for job, _ in shares}

    def _evaluate(self, asked: list[SearchJob], leaves: list) -> tuple:
        """The evaluator's thread: careful answers for new roots, then the
        leaves' batch."""
        return (self._careful(asked) if asked else None,
                self.evaluator.evaluate(leaves) if leaves else None)

    def _settle(self, landing: tuple) -> None:
        future, shares, asked = landing
        roots, answer = future.result()
        if asked:
            kept = [job for job in asked if job in self.starting]
            for job in asked:
                if job in self.starting:
                    self.starting.remove(job)
            if kept:
                self._answer_roots(kept, _rows(roots, [asked.index(job) for job in kept]))
        if shares:
            self._apply(shares, answer)

    def _land(self) -> None:
        if self._in_flight is not None:
            landing, self._in_flight = self._in_flight, None
            self._settle(landing)

    def _apply(self, shares: list, answer) -> None:
        priors, values, margins = answer[0], answer[1], getattr(answer, "margins", None)
        ownership = getattr(answer, "ownership", None)
        self.batches.append(sum(len(share) for _, share in shares))
        start = 0
        for job, share in shares:
            end = start + len(share)
            job.search.apply(share, priors[start:end], values[start:end],
                             None if margins is None else margins[start:end],
                             None if ownership is None else ownership[start:end])
            job.search.evaluations += len(share)
            start = end


def _rows(answer, index: list[int]) -> Evaluation:
    """The rows ``index`` of an evaluator answer (margins and ownership too)."""
    if index == list(range(len(answer[0]))):
        return answer
    margins = getattr(answer, "margins", None)
    ownership = getattr(answer, "ownership", None)
    return Evaluation(np.asarray(answer[0])[index], np.asarray(answer[1])[index],
                      None if margins is None else np.asarray(margins)[index],
                      None if ownership is None else np.asarray(ownership)[index])


def run_searches(jobs: list[SearchJob], evaluator: Optional[Evaluator] = None,
                 batches: Optional[list[int]] = None) -> list[SearchNode]:
    """Run every job to its visit budget, one call of ``evaluator`` (default:
    the first job's) per round for the leaves of all searches; returns the
    roots in the jobs' order. ``batches``, when given, receives the size of
    every evaluator call."""
    if not jobs:
        return []
    pool = SearchPool(evaluator if evaluator is not None else jobs[0].search.evaluator,
                      max_leaves=sum(job.search.batch_size for job in jobs))
    for job in jobs:
        pool.add(job)
    while len(pool):
        pool.step()
    if batches is not None:
        batches.extend(pool.batches)
    return [job.root for job in jobs]
