"""Ray as an optional back end for the self-play workers: :class:`RayExecutor`.

The self-play driver hands chunks of work to a :class:`concurrent.futures.Executor`
(locally a ``ProcessPoolExecutor``). :class:`RayExecutor` is the same interface
over a Ray cluster, so ``--ray ADDRESS`` spreads the games over many machines.

Why actors: a task function such as ``selfplay_run.play_chunk`` caches its loaded
network in a module global of the process it runs in. One-off Ray tasks would
land in arbitrary worker processes and reload the network again and again; each
worker here is a persistent Ray actor (one process) that calls ``fn(*args)`` in
that process, so the cache survives from task to task, as in a process pool.
Each actor runs at most one task at a time; the others wait in one FIFO queue,
so every actor's network stays busy and no actor holds two batches of games.

On worker loss (the actor's process killed, its node gone, its result lost) the
task's future raises :class:`WorkerLost`, naming the worker, its pid and node,
and the executor starts a replacement actor wherever the cluster has room; the
driver resubmits the task, so a game is replayed or dropped, never half-written.
A task that raises an exception of its own re-raises it from its future.

With ``workers=None`` the executor keeps one actor per ``num_cpus_per_worker``
CPUs of the cluster, and grows when nodes join (checked on submit, at most every
``resize_every`` seconds): a node added while running gets work.

A cluster in two lines: ``ray start --head`` on one machine and
``ray start --address=HEAD:6379`` on the others; then run the same self-play
command with ``--ray HEAD:6379``. ``imago`` must be installed on every node;
where Ray's token authentication is on (``~/.ray/auth_token`` on the head), every
node and the driver's machine need that same token file.

This is the only module of imago that imports Ray, and only when used.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Optional

RAY_MISSING = "--ray needs Ray: pip install 'imago[ray]' (or: pip install ray)"


class WorkerLost(RuntimeError):
    """A task's worker (a Ray actor, or its node) died while running it: the
    task did not finish and may be submitted again."""


def ray_problem() -> Optional[str]:
    """None when Ray can be imported, else one line telling how to install it."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return RAY_MISSING
    return None


class _Worker:
    """The body of each actor: one process that runs the tasks given to it."""

    def where(self) -> tuple[int, str, str]:
        """(pid, hostname, Ray node id) of this actor's process."""
        import ray

        return os.getpid(), socket.gethostname(), ray.get_runtime_context().get_node_id()

    def run(self, fn: Callable, *args, **kwargs):
        """``fn(*args, **kwargs)`` in this process (its module globals persist)."""
        return fn(*args, **kwargs)


@dataclass
class _Job:
    future: cf.Future
    fn: Callable
    args: tuple
    kwargs: dict


@dataclass
class _Slot:
    """One actor: started once it has answered ``where``; ``job`` while busy."""

    number: int
    actor: Any
    started: bool = False
    pid: Optional[int] = None
    host: str = "?"
    node: str = "?"
    job: Optional[_Job] = None

    def describe(self) -> str:
        if not self.started:
            return f"Ray worker {self.number} (not yet started)"
        return f"Ray worker {self.number} (pid {self.pid} on {self.host}, node {self.node[:12]})"


def _first_line(error: BaseException, limit: int = 240) -> str:
    text = str(error).strip() or type(error).__name__
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), text)
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _fn_name(fn: Callable) -> str:
    return getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)


def _check_reachable(address: str, timeout: float = 10.0) -> None:
    """Raise a readable ConnectionError when ``HOST:PORT`` does not answer: Ray
    itself retries an unreachable head for minutes before giving up."""
    host, _, port = address.rpartition(":")
    if not host or "://" in address or not port.isdigit():
        return
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as error:
        raise ConnectionError(
            f"cannot reach Ray at {address}: {error.strerror or error} "
            "(is `ray start --head` running there?)") from error


class RayExecutor(cf.Executor):
    """A :class:`concurrent.futures.Executor` over persistent Ray actors (see the
    module docstring).

    ``address``: ``"auto"`` (the cluster this machine belongs to), ``"HOST:PORT"``
    or ``"local"`` (a private Ray on this machine, for tests or one machine); if
    Ray is already initialised in this process that connection is used and left
    open at shutdown. ``workers``: how many actors (default: the cluster's CPUs //
    ``num_cpus_per_worker``, at least 1, growing as nodes join). ``env``: environment
    variables of the actors' processes (Ray's ``runtime_env={"env_vars": env}``).
    ``log``: where one-line progress messages go.
    """

    def __init__(
        self,
        address: str,
        workers: Optional[int] = None,
        num_cpus_per_worker: float = 1.0,
        env: Optional[dict] = None,
        log: Callable[[str], Any] = print,
        resize_every: float = 5.0,
    ) -> None:
        problem = ray_problem()
        if problem:
            raise RuntimeError(problem)
        import ray

        if workers is not None and workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        if num_cpus_per_worker <= 0:
            raise ValueError(f"num_cpus_per_worker must be positive, not {num_cpus_per_worker}")
        self._ray = ray
        self._log = log
        self._fixed = workers
        self._cpus = float(num_cpus_per_worker)
        self._resize_every = resize_every
        self._owns = False
        if not ray.is_initialized():
            _check_reachable(address)
            try:
                if address == "local":
                    ray.init(include_dashboard=False)
                else:
                    ray.init(address=address)
            except Exception as error:  # Ray raises ConnectionError, ValueError...
                raise ConnectionError(
                    f"cannot connect to Ray at {address!r}: {_first_line(error)} "
                    "(start one with `ray start --head`)") from error
            self._owns = True
        options: dict = {
            "num_cpus": self._cpus,
            "scheduling_strategy": "SPREAD",
            "max_restarts": 0,
            "max_task_retries": 0,
        }
        if env:
            options["runtime_env"] = {"env_vars": {str(k): str(v) for k, v in env.items()}}
        self._actor_class = ray.remote(_Worker).options(**options)

        self._lock = threading.RLock()
        self._idle = threading.Condition(self._lock)
        self._slots: dict[int, _Slot] = {}
        self._queue: deque[_Job] = deque()
        # future of an ObjectRef -> (what, actor, job, the ObjectRef kept alive)
        self._watch: dict[cf.Future, tuple[str, _Slot, Optional[_Job], Any]] = {}
        self._wake: cf.Future = cf.Future()
        self._numbered = 0
        self._last_resize = 0.0
        self._start_error: Optional[str] = None
        self._closing = False
        self._stopped = False

        resources = ray.cluster_resources()
        nodes = sum(1 for n in ray.nodes() if n.get("Alive"))
        self._log(f"ray: connected to {address}: {resources.get('CPU', 0):g} CPUs "
                  f"on {nodes} node(s)")
        self.resize()
        self._thread = threading.Thread(target=self._monitor, name="ray-executor", daemon=True)
        self._thread.start()

    # --- public interface -------------------------------------------------

    @property
    def workers(self) -> int:
        """How many actors are up (started and not known dead)."""
        with self._lock:
            return sum(1 for s in self._slots.values() if s.started)

    @property
    def starting(self) -> int:
        """How many actors were asked for and have not started yet (waiting
        for room in the cluster, or starting their process)."""
        with self._lock:
            return sum(1 for s in self._slots.values() if not s.started)

    def target(self) -> int:
        """How many actors this executor keeps: ``workers`` if given, else the
        cluster's CPUs // ``num_cpus_per_worker``, at least 1."""
        if self._fixed is not None:
            return self._fixed
        cpus = self._ray.cluster_resources().get("CPU", 0.0)
        return max(1, int(cpus / self._cpus + 1e-9))

    def resize(self) -> int:
        """Start actors up to :meth:`target` (started and starting ones count);
        return the number of actors asked for now."""
        target = self.target()
        with self._lock:
            self._last_resize = time.monotonic()
            if self._closing:
                return 0
            missing = target - len(self._slots)
            for _ in range(max(0, missing)):
                self._new_slot()
            if missing > 0 and self._numbered > missing:
                self._log(f"ray: starting {missing} more worker(s), {target} in all")
            elif missing > 0:
                self._log(f"ray: starting {missing} worker(s)")
            self._poke()
            return max(0, missing)

    def submit(self, fn: Callable, /, *args, **kwargs) -> cf.Future:
        """Queue ``fn(*args, **kwargs)`` for the next free actor; its future
        gives the result, the task's own exception, or :class:`WorkerLost`."""
        if self._fixed is None and time.monotonic() - self._last_resize >= self._resize_every:
            try:
                self.resize()
            except Exception as error:  # Ray unreachable for a moment: try later
                self._log(f"ray: could not check the cluster's size: {_first_line(error)}")
        future: cf.Future = cf.Future()
        with self._lock:
            if self._closing:
                raise RuntimeError("cannot schedule new futures after shutdown")
            self._queue.append(_Job(future, fn, args, kwargs))
            settle = self._dispatch()
            self._poke()
        self._settle(settle)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Stop taking tasks; with ``wait`` let queued and running ones finish
        (unless ``cancel_futures`` cancels the queued ones); then kill the actors
        and disconnect from Ray if this executor connected. Without ``wait`` the
        queued tasks are cancelled and running ones raise :class:`WorkerLost`."""
        settle: list = []
        with self._lock:
            if self._stopped:
                return
            self._closing = True
            if cancel_futures or not wait:
                while self._queue:
                    self._queue.popleft().future.cancel()
            if wait:
                while self._queue or any(s.job for s in self._slots.values()):
                    self._poke()
                    self._idle.wait(1.0)
            for slot in self._slots.values():
                if slot.job is not None:
                    settle.append((slot.job.future, WorkerLost(
                        f"{slot.describe()}: executor shut down while running "
                        f"{_fn_name(slot.job.fn)}")))
                    slot.job = None
            slots = list(self._slots.values())
            self._slots.clear()
            self._watch.clear()
            self._stopped = True
            self._poke()
        self._settle(settle)
        self._thread.join(timeout=10)
        for slot in slots:
            self._kill(slot)
        if self._owns:
            self._ray.shutdown()

    # --- inside ---------------------------------------------------------

    def _new_slot(self) -> _Slot:
        self._numbered += 1
        slot = _Slot(self._numbered, self._actor_class.remote())
        self._slots[slot.number] = slot
        ref = slot.actor.where.remote()
        self._watch[ref.future()] = ("start", slot, None, ref)
        return slot

    def _kill(self, slot: _Slot) -> None:
        try:
            self._ray.kill(slot.actor, no_restart=True)
        except Exception:  # already dead, or Ray gone: nothing to kill
            pass

    def _poke(self) -> None:
        """Wake the monitor thread (the set of futures it waits on changed)."""
        if not self._wake.done():
            self._wake.set_result(None)

    def _dispatch(self) -> list:
        """Give queued jobs to idle started actors (under the lock); returns
        futures to settle outside the lock."""
        settle: list = []
        idle = [s for s in self._slots.values() if s.started and s.job is None]
        while idle and self._queue:
            job = self._queue.popleft()
            if not job.future.set_running_or_notify_cancel():
                continue
            slot = idle.pop(0)
            try:
                ref = slot.actor.run.remote(job.fn, *job.args, **job.kwargs)
            except Exception as error:  # e.g. the function or its arguments cannot be pickled
                settle.append((job.future, error))
                idle.insert(0, slot)
                continue
            slot.job = job
            self._watch[ref.future()] = ("run", slot, job, ref)
        if self._queue and not self._slots and self._start_error:
            # Nothing will ever take these: no actor is up or starting.
            while self._queue:
                job = self._queue.popleft()
                if job.future.set_running_or_notify_cancel():
                    settle.append((job.future, RuntimeError(
                        f"no Ray worker could start: {self._start_error}")))
        return settle

    @staticmethod
    def _settle(settle: list) -> None:
        for future, outcome in settle:
            if isinstance(outcome, BaseException):
                future.set_exception(outcome)
            else:
                future.set_result(outcome[0])

    def _monitor(self) -> None:
        """The executor's thread: waits for actors to start and tasks to end,
        settles futures, replaces lost actors, feeds the queue."""
        while True:
            with self._lock:
                if self._stopped:
                    return
                if self._wake.done():
                    self._wake = cf.Future()
                waiting = list(self._watch) + [self._wake]
            done, _ = cf.wait(waiting, timeout=self._resize_every,
                              return_when=cf.FIRST_COMPLETED)
            settle: list = []
            lost = False
            with self._lock:
                if self._stopped:
                    return
                for ref_future in done:
                    entry = self._watch.pop(ref_future, None)
                    if entry is not None:
                        lost |= self._finished(ref_future, *entry[:3], settle)
                settle += self._dispatch()
                self._idle.notify_all()
                queued = bool(self._queue)
            self._settle(settle)
            due = time.monotonic() - self._last_resize >= self._resize_every
            if lost or (queued and due and self._fixed is None):
                try:
                    self.resize()
                except Exception as error:  # Ray unreachable for a moment: try later
                    self._log(f"ray: could not check the cluster's size: {_first_line(error)}")

    def _finished(self, ref_future: cf.Future, kind: str, slot: _Slot,
                  job: Optional[_Job], settle: list) -> bool:
        """One watched call ended (under the lock); True when an actor was lost."""
        ray = self._ray
        error = ref_future.exception()
        if kind == "start":
            if error is None:
                slot.pid, slot.host, slot.node = ref_future.result()
                slot.started = True
                self._start_error = None
                return False
            self._slots.pop(slot.number, None)
            self._start_error = _first_line(error)
            self._log(f"ray: worker {slot.number} could not start: {self._start_error}")
            self._kill(slot)
            return False
        slot.job = None
        if error is None:
            settle.append((job.future, (ref_future.result(),)))
            return False
        if isinstance(error, ray.exceptions.RayTaskError):
            cause = getattr(error, "cause", None)
            settle.append((job.future, cause if isinstance(cause, BaseException) else error))
            return False
        # Any other Ray error (actor or worker died, node died, object lost,
        # out of memory...) means the actor's process is gone or unusable.
        message = (f"{slot.describe()} was lost while running {_fn_name(job.fn)}: "
                   f"{type(error).__name__}: {_first_line(error)}")
        self._log(f"ray: {message}; starting a replacement")
        self._slots.pop(slot.number, None)
        self._kill(slot)
        lost = WorkerLost(message)
        lost.__cause__ = error
        settle.append((job.future, lost))
        return True
