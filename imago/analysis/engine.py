"""The analysis engine behind ``imago analysis``: KataGo's JSON protocol
served by many PUCT searches sharing one network.

Queries come in as lines (:meth:`AnalysisEngine.submit_line`, any thread)
or dicts (:meth:`AnalysisEngine.analyze`, blocking, for in-process tools
such as the review). Each analysed turn becomes a search; one worker thread
keeps up to ``max_searches`` of them running in a
:class:`~imago.search.SearchPool`, the highest priorities first, so the
positions of every open query fill the network's batches together. A turn
whose search is done is answered at once, in whatever order turns finish.
"""

from __future__ import annotations

import heapq
import itertools
import json
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import numpy as np

from imago.engine.ending import dead_at_the_end
from imago.engine.mcts_algorithm import MIN_NETWORK_SIZE, SizedEvaluators
from imago.game import BLACK, GameState, count, point_to_move
from imago.search import (MoveRestriction, PlayoutEvaluator, PUCTSearch, SearchJob, SearchPool,
                          action_of, forbidden_at)
from imago.search.puct import READING_SHARE

from .query import Action, Query, QueryDefaults, Turn, parse_line
from .response import (MoveInfo, TurnAnalysis, action_response, error, no_results_response,
                       turn_response)

log = logging.getLogger(__name__)

Sink = Callable[[dict], None]


class AnalysisError(ValueError):
    """A query :meth:`AnalysisEngine.analyze` could not run; ``messages``
    are the protocol's error dicts."""

    def __init__(self, messages: list[dict]):
        super().__init__("; ".join(f"{m.get('field', 'query')}: {m['error']}"
                                   for m in messages if "error" in m))
        self.messages = messages


@dataclass
class _Task:
    """One turn of one query, waiting or being searched."""
    query: Query
    turn: Turn
    sink: Sink
    job: Optional[SearchJob] = None
    started: float = 0.0
    next_report: float = 0.0
    terminated: bool = False
    follower: Optional["_Task"] = None
    """The next turn of the same query, which waits for this one and then
    continues its search tree (see :meth:`AnalysisEngine._chain`)."""
    after: Optional["_Task"] = None
    queued: bool = False


@dataclass
class _Open:
    """What is left of one query: its tasks, and a callback when all of
    them have answered."""
    tasks: list = field(default_factory=list)
    done: Optional[Callable[[], None]] = None


class AnalysisEngine:
    """KataGo-compatible analysis with ``model`` (a path, ``default`` for
    the shipped network, ``none`` for random playouts).

    ``max_searches`` turns are searched at once (KataGo's
    ``numAnalysisThreads``); a round sends at most ``max_leaves`` positions
    to the network, shared out among the running searches: each selects
    ``max_leaves / running`` leaves a round, between ``min_batch`` (many
    positions: less virtual loss, the batch still full) and
    ``search_batch`` (one position alone: the engine's batch in play).
    ``write`` receives every response of queries given as lines (default:
    one JSON line on stdout). ``settings`` are search options (``c_puct``,
    ``fpu_reduction``, ``wide_root_noise``; ``local_reading``, True by
    default: each root strikes the moves that lose in its closed-off areas,
    read out, as the engine that plays does, within a share of a timed
    search, :data:`~imago.search.puct.READING_SHARE`; not below 5x5, where
    the search alone plays) for every query; a
    query's ``overrideSettings`` may change the first three for itself."""

    def __init__(self, model: Optional[str] = "default",
                 defaults: Optional[QueryDefaults] = None, max_searches: int = 64,
                 search_batch: int = 16, min_batch: int = 4, max_leaves: int = 256,
                 symmetries: str = "random",
                 seed: Optional[int] = None, settings: Optional[dict] = None,
                 write: Optional[Sink] = None):
        self.defaults = defaults or QueryDefaults()
        self.max_searches = max(1, int(max_searches))
        self.search_batch = max(1, int(search_batch))
        self.min_batch = max(1, min(int(min_batch), self.search_batch))
        self.max_leaves = max(1, int(max_leaves))
        self.settings = dict(settings or {})
        self.seed = seed
        self.write = write or _print_json
        self.networks = SizedEvaluators(model, seed, self.search_batch, symmetries)
        self._pools: dict[Any, SearchPool] = {}
        self._caches: dict[tuple[float, str], dict] = {}
        self._waiting: list = []          # heap of (-priority, order, task)
        self._order = itertools.count()
        self._running: list[_Task] = []
        self._open: dict[int, _Open] = {}  # id(query) -> what is left of it
        self._lock = threading.Condition()
        self._write_lock = threading.Lock()
        self._closing = False
        self._worker = threading.Thread(target=self._work, name="imago-analysis", daemon=True)
        self._worker.start()

    # ------------------------------------------------------------ input
    def submit_line(self, line: str) -> None:
        """Take one protocol line: a query is queued (its responses go to
        ``write``), an action done, and errors and warnings written."""
        outcome = parse_line(line, self.defaults)
        for message in outcome.messages:
            self._emit(self.write, message)
        if outcome.action is not None:
            self._act(outcome.action)
        elif outcome.query is not None:
            self._enqueue(outcome.query, self.write)

    def analyze(self, query: dict, on_response: Optional[Sink] = None,
                on_warning: Optional[Sink] = None) -> list[dict]:
        """Analyse one KataGo query dict and wait: returns its final
        responses sorted by turn number. ``on_response`` gets each final
        response as it comes (progress); warnings go to ``on_warning``
        (default: the log). Raises :class:`AnalysisError` for a query the
        protocol refuses."""
        outcome = parse_line(json.dumps(query), self.defaults)
        errors = [m for m in outcome.messages if "error" in m]
        if errors or outcome.query is None:
            raise AnalysisError(errors or [error("not an analysis query", "action")])
        for message in outcome.messages:
            (on_warning or (lambda m: log.warning("%s", m.get("warning"))))(message)
        finals: list[dict] = []
        finished = threading.Event()

        def collect(response: dict) -> None:
            if not response.get("isDuringSearch"):
                finals.append(response)
                if on_response is not None:
                    on_response(response)

        self._enqueue(outcome.query, collect, finished.set)
        finished.wait()
        return sorted(finals, key=lambda r: r.get("turnNumber", 0))

    def clear_cache(self) -> None:
        """Forget every cached network answer (KataGo's ``clear_cache``)."""
        for cache in list(self._caches.values()):
            cache.clear()

    def close(self, wait: bool = True) -> None:
        """Stop taking queries; with ``wait``, finish the open ones first,
        else terminate them (each still gets its final response)."""
        if not wait:
            self._terminate(lambda task: True)
        with self._lock:
            self._closing = True
            self._lock.notify_all()
        self._worker.join()
        for pool in self._pools.values():
            pool.close()

    # ------------------------------------------------------------ queue
    def _enqueue(self, query: Query, sink: Sink, done: Optional[Callable[[], None]] = None
                 ) -> None:
        tasks = [_Task(query, turn, sink) for turn in query.turns]
        self._chain(tasks)
        with self._lock:
            if self._closing:
                raise RuntimeError("the analysis engine is closed")
            self._open[id(query)] = _Open(list(tasks), done)
            for task in tasks:
                if task.after is None:
                    self._queue(task)
        if not tasks and done is not None:
            done()

    def _queue(self, task: _Task) -> None:
        task.queued = True
        heapq.heappush(self._waiting, (-task.turn.priority, next(self._order), task))
        self._lock.notify_all()

    def _chain(self, tasks: list[_Task]) -> None:
        """Link consecutive turns of one query into chains: a turn waits for
        the one before it and its search goes on from that search's subtree
        of the move between them, as a GTP engine keeps its tree from move
        to move, so the visits already spent there count. The query's
        turns are cut into about ``max_searches / 4`` chains, searched side
        by side, so the network's batches stay full."""
        ordered = sorted(tasks, key=lambda t: t.turn.number)
        chains = max(1, self.max_searches // 4)
        length = -(-len(ordered) // chains)
        for k in range(1, len(ordered)):
            before, task = ordered[k - 1], ordered[k]
            if k % length and task.turn.number == before.turn.number + 1:
                before.follower, task.after = task, before

    def _act(self, action: Action) -> None:
        if action.kind == "clear_cache":
            self.clear_cache()
        elif action.kind in ("terminate", "terminate_all"):
            target, turns = action.terminate_id, action.turn_numbers

            def chosen(task: _Task) -> bool:
                return ((action.kind == "terminate_all" or task.query.id == target)
                        and (turns is None or task.turn.number in turns))
            self._terminate(chosen)
        self._emit(self.write, action_response(action))

    def _terminate(self, chosen: Callable[[_Task], bool]) -> None:
        with self._lock:
            for left in self._open.values():
                for task in left.tasks:
                    if not chosen(task):
                        continue
                    task.terminated = True
                    if not task.queued:  # answer now, not after the turn before it
                        task.after.follower, task.after = None, None
                        self._queue(task)
            self._lock.notify_all()

    # ------------------------------------------------------------ the worker
    def _work(self) -> None:
        while True:
            with self._lock:
                while not self._waiting and not self._running and not self._closing:
                    self._lock.wait()
                if not self._waiting and not self._running:
                    return
                dropped = self._start_tasks()
                now = time.monotonic()
                stopped = [t for t in self._running if t.terminated or self._out_of_time(t, now)]
            for task in dropped:
                self._emit(task.sink, no_results_response(task.query.id, task.turn.number))
                self._answered(task)
            for task in stopped:
                self._finish(task)
            if stopped:
                continue
            self._share_batches()
            try:
                finished = [job for pool in list(self._pools.values()) for job in pool.step()]
            except Exception as exc:  # a network failure must not hang every client
                log.exception("analysis search failed")
                self._fail_running(exc)
                continue
            done = {id(job) for job in finished}
            for task in [t for t in self._running if id(t.job) in done]:
                self._finish(task)
            self._report_during_search()

    def _start_tasks(self) -> list[_Task]:
        """Move waiting turns into searches, highest priority first, up to
        ``max_searches``; returns the terminated ones never started."""
        dropped = []
        while self._waiting and (len(self._running) < self.max_searches
                                 or self._waiting[0][2].terminated):
            _, _, task = heapq.heappop(self._waiting)
            if task.terminated:
                dropped.append(task)
                continue
            try:
                pool = self._pool_for(task.query)
            except ValueError as exc:  # the network cannot play this size
                self._emit(task.sink, error(str(exc), "boardXSize", task.query.id))
                dropped.append(task)
                continue
            task.job = self._job(task, pool.evaluator)
            pool.add(task.job)
            task.started = time.monotonic()
            first = task.query.first_report_after
            task.next_report = task.started + (first if first is not None
                                               else task.query.report_every or 0.0)
            self._running.append(task)
        return dropped

    def _share_batches(self) -> None:
        """Each network search's leaves per round: the round's room shared
        out among the running network searches."""
        searches = [t.job.search for t in self._running
                    if not isinstance(t.job.search.evaluator, PlayoutEvaluator)]
        if searches:
            share = max(self.min_batch, min(self.search_batch, self.max_leaves // len(searches)))
            for search in searches:
                search.batch_size = share

    def _time_limit(self, task: _Task) -> Optional[float]:
        """The query's ``maxTime``, else the config's; None for none."""
        limit = task.query.max_time
        return self.settings.get("max_time") if limit is None else limit

    def _out_of_time(self, task: _Task, now: float) -> bool:
        limit = self._time_limit(task)
        return bool(limit) and now - task.started >= limit

    def _job(self, task: _Task, evaluator) -> SearchJob:
        query, turn = task.query, task.turn
        before = task.after.job if task.after is not None else None
        if before is not None and before.search.evaluator is evaluator:
            search = before.search  # set_root keeps the subtree of the move played
        else:
            settings = {**self.settings, **query.overrides}
            search = PUCTSearch(evaluator, c_puct=settings.get("c_puct", 1.5),
                                fpu_reduction=settings.get("fpu_reduction", 0.25),
                                batch_size=1 if isinstance(evaluator, PlayoutEvaluator)
                                else self.search_batch,
                                seed=self.seed, keep_ownership=True,
                                local_reading=bool(settings.get("local_reading", True))
                                and query.game.size >= MIN_NETWORK_SIZE)
            search.wide_root_noise = settings.get("wide_root_noise", 0.0)
            search.cache = self._caches.setdefault((query.komi, query.game.scoring), {})
        limit = self._time_limit(task)
        # the root's reading of closed-off areas takes a share of a timed search
        search.read_deadline = None if not limit else \
            time.perf_counter() + READING_SHARE * limit
        state = _cursor(query, turn)
        search.assume_dead(state.board, lambda: dead_at_the_end(state))
        search.restrictions = _restrictions(query)  # its lines; the root's move: the job's strike
        return SearchJob(search, state, turn.to_move, query.max_visits, priority=turn.priority,
                         forbidden=forbidden_at(search.restrictions, 0, turn.to_move),
                         root_temperature=query.root_policy_temperature or 1.0,
                         lone_move_searched=True)

    def _pool_for(self, query: Query) -> SearchPool:
        """The pool of the query's evaluator: the network of its board size
        (from 5x5 up, as in play), or random playouts for the query's komi
        (playouts score with their own komi). Raises ValueError when the
        network cannot play the size."""
        if self.networks.uses_network(query.size):
            key: Any = self.networks.for_size(query.size)
            key.check_size(query.size)
        else:
            key = ("playouts", query.komi)
        pool = self._pools.get(key)
        if pool is None:
            evaluator = PlayoutEvaluator(query.komi, self.seed) if isinstance(key, tuple) else key
            # not pipelined: on 2 cores a network with both of them beats a
            # network on one core beside the tree work (python -m imago.bench
            # analysis, 2026-11-23: 3.2 s against 4.1 s a query)
            pool = self._pools[key] = SearchPool(evaluator, self.max_leaves)
        return pool

    def _finish(self, task: _Task) -> None:
        """Answer a finished or terminated search and drop it."""
        for pool in self._pools.values():
            pool.discard(task.job)
        with self._lock:
            if task in self._running:
                self._running.remove(task)
        self._emit(task.sink, self._response(task, during=False))
        self._answered(task)

    def _fail_running(self, exc: Exception) -> None:
        with self._lock:
            failed, self._running = self._running, []
        for task in failed:
            for pool in self._pools.values():
                pool.discard(task.job)
            self._emit(task.sink, error(f"analysis failed: {exc}", None, task.query.id))
            self._answered(task)

    def _answered(self, task: _Task) -> None:
        """``task`` has its final answer: queue the turn that waited for it,
        and call the query's ``done`` when it was the last."""
        with self._lock:
            if task.follower is not None:
                self._queue(task.follower)
                task.follower = None
            left = self._open.get(id(task.query))
            if left is None:
                return
            left.tasks.remove(task)
            if left.tasks:
                return
            del self._open[id(task.query)]
        if left.done is not None:
            left.done()

    def _report_during_search(self) -> None:
        now = time.monotonic()
        for task in list(self._running):
            every = task.query.report_every
            if every and now >= task.next_report and task.job.root is not None:
                task.next_report = now + every
                self._emit(task.sink, self._response(task, during=True))

    # ------------------------------------------------------------ responses
    def _response(self, task: _Task, during: bool) -> dict:
        query, turn, job = task.query, task.turn, task.job
        root = job.root
        if root is None or (not root.expanded and not root.terminal):
            return no_results_response(query.id, turn.number)
        search = job.search
        if root.terminal:
            analysis = self._finished_game(task, during)
            if not during:
                self._add_extras(analysis, job, None)
            return turn_response(analysis)
        results = search.results(root, limit=query.size ** 2 + 1, pv_length=query.pv_len + 1)
        summary = search.summary(root)
        moves = [MoveInfo(r.point, r.visits, r.winrate, _lead(r.score_lead, summary.score_lead),
                          r.prior, r.lcb, r.pv, r.pv_visits, score_stdev=r.score_stdev)
                 for r in results]
        answer = job.root_answer
        if not moves:  # no visit beyond the root: its best prior, as the network sees it
            action = int(np.argmax(root.choice_priors()))
            winrate = (answer[1] + 1) / 2 if answer else 0.5
            moves = [MoveInfo(search.point_of(action), 0, winrate,
                              _lead(None, summary.score_lead), float(root.choice_priors()[action]),
                              winrate, [search.point_of(action)], [0])]
        root_winrate = summary.winrate if summary.visits else moves[0].winrate
        analysis = TurnAnalysis(query, turn, moves, root_winrate,
                                _lead(summary.score_lead, moves[0].score_lead),
                                summary.visits, during, root_score_stdev=summary.score_stdev)
        if not during:
            self._add_extras(analysis, job, answer)
        return turn_response(analysis)

    def _add_extras(self, analysis: TurnAnalysis, job: SearchJob,
                    answer: Optional[tuple]) -> None:
        """Ownership, policy and the ownership after each move, when asked:
        the search tree's ownership (:meth:`PUCTSearch.tree_ownership`, as
        KataGo reports it), else the network's for the root. Called before
        the turn's search goes on to the next turn (the ownership after an
        unsearched move asks the search's root position)."""
        query, turn, search = analysis.query, analysis.turn, job.search
        board = job.state.board
        if query.include_ownership or query.include_ownership_stdev:
            spread = search.tree_ownership_spread(job.root)
            if spread is not None:
                analysis.ownership = [float(v) for v in spread[0]]
                analysis.ownership_stdev = [float(v) for v in spread[1]]
            else:  # one estimate, no spread
                if answer is not None and answer[3] is not None:
                    analysis.ownership = [float(v) for v in answer[3]]
                else:
                    judged = count(board, job.state.rules, turn.to_move)
                    sign = 1.0 if turn.to_move == BLACK else -1.0
                    analysis.ownership = [sign * judged.ownership[p] for p in board.on_board()]
                analysis.ownership_stdev = [0.0] * len(analysis.ownership)
        if query.include_policy and answer is not None:
            policy = np.asarray(answer[0], dtype=np.float64)
            legal = np.zeros(len(policy), dtype=bool)
            legal[-1] = True
            for p in board.empties:
                if board.illegal_reason(p, turn.to_move) is None:
                    legal[point_to_move(p, query.size)] = True
            total = policy[legal].sum()
            policy = np.where(legal, policy / total if total > 0 else 0.0, -1.0)
            analysis.policy = [float(v) for v in policy]
        if query.include_moves_ownership or query.include_moves_ownership_stdev:
            self._add_moves_ownership(analysis, job)

    @staticmethod
    def _add_moves_ownership(analysis: TurnAnalysis, job: SearchJob) -> None:
        """Each candidate's ownership from the root player's view: its
        subtree's mean (and spread), or the network's answer for a child the
        tree did not evaluate (a spread of 0)."""
        search, root, size = job.search, job.root, analysis.query.size
        unsearched = []
        for move in analysis.moves:
            action = action_of(move.point, size)
            spread = search.move_ownership_spread(action, root) if root is not None else None
            if spread is not None:
                move.ownership = [float(v) for v in spread[0]]
                move.ownership_stdev = [float(v) for v in spread[1]]
            else:
                unsearched.append((move, action))
        if unsearched and hasattr(search.evaluator, "ownerships"):
            requests = [search.child_request(action) for _, action in unsearched]
            owned = search.evaluator.ownerships(requests, averaged=False)
            if owned is not None:
                for (move, _), row in zip(unsearched, owned):
                    move.ownership = [-float(v) for v in row]
                    move.ownership_stdev = [0.0] * len(row)

    def _finished_game(self, task: _Task, during: bool) -> TurnAnalysis:
        """A position after two passes: the count is the answer (every stone
        standing alive under rules that say so, Tromp-Taylor)."""
        query, turn = task.query, task.turn
        judged = task.job.state.final_count()
        lead = judged.score if turn.to_move == BLACK else -judged.score
        winrate = 1.0 if lead > 0 else 0.0 if lead < 0 else 0.5
        return TurnAnalysis(query, turn, [], winrate, lead, 0, during)

    def _emit(self, sink: Sink, message: dict) -> None:
        with self._write_lock:
            sink(message)


def _lead(score: Optional[float], fallback: Optional[float]) -> float:
    """A score lead, or the fallback, or 0 when neither is known."""
    if score is not None:
        return score
    return fallback if fallback is not None else 0.0


def _cursor(query: Query, turn: Turn) -> GameState:
    """A game cursor standing on the turn's node (the query's tree shared,
    so the search sees the game's history and superko)."""
    state = GameState(query.size, query.komi)
    state.scoring, state.capture_dead = query.game.scoring, query.game.capture_dead
    node = turn.node
    while node.parent is not None:
        node = node.parent
    state.root, state.current = node, turn.node
    return state


def _restrictions(query: Query) -> list[MoveRestriction]:
    """``avoidMoves`` and ``allowMoves`` as the search takes them: for each
    entry, the actions its player may not play in its first plies."""
    return [MoveRestriction.of(query.size, f.color, f.points, f.until_depth, allow)
            for filters, allow in ((query.avoid, False), (query.allow, True)) for f in filters]


def _print_json(message: dict) -> None:
    print(json.dumps(message, separators=(",", ":"), allow_nan=False), flush=True)
