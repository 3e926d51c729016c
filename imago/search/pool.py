"""Many searches sharing one evaluator: every round, each unfinished search
selects its leaves, one evaluator call answers the leaves of all of them,
and each search applies its share. Self-play of many games and analysis of
many positions fill the network's batches this way even when each search
alone would send a handful of positions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from imago.game import GameState

from .puct import Evaluator, PUCTSearch
from .tree import SearchNode


@dataclass
class SearchJob:
    """One search to run: ``search`` from ``state.current`` for ``color``
    until its root has ``visits`` visits."""
    search: PUCTSearch
    state: GameState
    color: int
    visits: int
    allow_pass: bool = True
    root: Optional[SearchNode] = field(default=None, init=False)

    def unfinished(self) -> bool:
        root = self.root
        return (root is not None and root.expanded and root.total_visits() < self.visits
                and len(root.open_actions()) > 1)


def run_searches(jobs: list[SearchJob], evaluator: Optional[Evaluator] = None,
                 batches: Optional[list[int]] = None) -> list[SearchNode]:
    """Run every job to its visit budget, one call of ``evaluator`` (default:
    the first job's) per round for the leaves of all searches; returns the
    roots in the jobs' order. ``batches``, when given, receives the size of
    every evaluator call."""
    if not jobs:
        return []
    evaluator = evaluator if evaluator is not None else jobs[0].search.evaluator
    for job in jobs:
        job.search.set_root(job.state, job.color)
    asked = [job for job in jobs if job.search.needs_root_answer()]
    answers: dict[int, tuple] = {}
    if asked:
        careful = getattr(evaluator, "evaluate_all_symmetries", evaluator.evaluate)
        priors, values = careful([job.search.root_request() for job in asked])
        for k, job in enumerate(asked):
            answers[id(job)] = (priors[k], values[k])
            job.search.evaluations += 1
    for job in jobs:
        job.root = job.search.prepare(job.allow_pass, answers.get(id(job)))
    active = [job for job in jobs if job.unfinished()]
    while active:
        shares = []
        for job in active:
            budget = min(job.search.batch_size, job.visits - job.root.total_visits())
            shares.append((job, job.search.select(max(1, budget))))
        leaves = [leaf for _, share in shares for leaf in share]
        if leaves:
            priors, values = evaluator.evaluate(leaves)
            if batches is not None:
                batches.append(len(leaves))
            start = 0
            for job, share in shares:
                end = start + len(share)
                job.search.apply(share, priors[start:end], values[start:end])
                job.search.evaluations += len(share)
                start = end
        active = [job for job in active if job.unfinished()]
    return [job.root for job in jobs]
