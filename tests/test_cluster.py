"""imago.training.cluster: RayExecutor over a real (one-machine, multi-node) Ray
cluster — results, actors spread over nodes, state kept between tasks, a worker
killed mid-task, a node joining while running — and ray_problem()."""

from __future__ import annotations

import concurrent.futures as cf
import importlib
import os
import signal
import sys
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason="Ray is not installed (pip install 'imago[ray]')")
# One test worker runs them all, one after another (pyproject.toml: --dist loadfile):
# two clusters on one machine at once would compete for ports and memory.
from ray.cluster_utils import Cluster  # noqa: E402

from imago.training.cluster import RayExecutor, WorkerLost, ray_problem  # noqa: E402

TESTS = Path(__file__).resolve().parent
# The actors import this module (its functions are pickled by name) and imago.
WORKER_ENV = {"PYTHONPATH": os.pathsep.join([str(TESTS), str(TESTS.parent)])}
STORE = 80 * 1024 * 1024
WAIT = 60.0

_COUNT = 0


def square_where(x: int, pause: float = 0.0) -> tuple[int, str, int, float, float]:
    """(pid, Ray node id, x * x, start, end) of one call, from inside an actor."""
    start = time.time()
    time.sleep(pause)
    return os.getpid(), ray.get_runtime_context().get_node_id(), x * x, start, time.time()


def count_up() -> tuple[int, int]:
    """(pid, how many times this process has been called): a module global
    that lives as long as the actor's process."""
    global _COUNT
    _COUNT += 1
    return os.getpid(), _COUNT


def pid_then_sleep(path: str, seconds: float, value: int) -> tuple[int, int]:
    """Write this process's pid to ``path``, sleep, return (pid, value)."""
    Path(path).write_text(str(os.getpid()))
    time.sleep(seconds)
    return os.getpid(), value


def refuse(x: int) -> None:
    raise ValueError(f"no thanks: {x}")


def _cluster(nodes: int) -> Cluster:
    cluster = Cluster(initialize_head=True, head_node_args={
        "num_cpus": 1, "object_store_memory": STORE, "include_dashboard": False})
    for _ in range(nodes - 1):
        cluster.add_node(num_cpus=1, object_store_memory=STORE)
    cluster.wait_for_nodes()
    return cluster


@pytest.fixture(scope="module")
def two_nodes():
    """A head and one worker node, 1 CPU each, on this machine."""
    cluster = None
    try:
        cluster = _cluster(2)
        yield cluster
    finally:
        ray.shutdown()
        if cluster is not None:
            cluster.shutdown()


@pytest.fixture
def executor(two_nodes):
    log: list[str] = []
    pool = RayExecutor(two_nodes.address, env=WORKER_ENV, log=log.append)
    pool.messages = log
    try:
        yield pool
    finally:
        pool.shutdown()
        ray.shutdown()


def test_results_spread_over_both_nodes(executor):
    assert executor.workers + executor.starting == 2
    futures = [executor.submit(square_where, x, pause=0.3) for x in range(8)]
    results = [f.result(timeout=WAIT) for f in futures]
    assert [r[2] for r in results] == [x * x for x in range(8)]
    assert len({r[1] for r in results}) == 2, "both nodes ran tasks"
    assert len({r[0] for r in results}) == 2
    assert executor.workers == 2
    # One task at a time per actor: a process's calls never overlap.
    for pid in {r[0] for r in results}:
        spans = sorted((r[3], r[4]) for r in results if r[0] == pid)
        assert all(a_end <= b_start for (_, a_end), (b_start, _) in zip(spans, spans[1:]))
    # A task's own exception comes back as itself.
    with pytest.raises(ValueError, match="no thanks: 3"):
        executor.submit(refuse, 3).result(timeout=WAIT)
    assert executor.submit(square_where, 9).result(timeout=WAIT)[2] == 81


def test_module_state_persists_per_actor(executor):
    seen: dict[int, list[int]] = {}
    for _ in range(6):
        pid, count = executor.submit(count_up).result(timeout=WAIT)
        seen.setdefault(pid, []).append(count)
    assert max(len(counts) for counts in seen.values()) >= 3
    for counts in seen.values():
        assert counts == list(range(counts[0], counts[0] + len(counts)))


def test_killed_worker_raises_worker_lost_and_is_replaced(executor, tmp_path):
    path = tmp_path / "pid"
    future = executor.submit(pid_then_sleep, str(path), 60.0, 1)
    deadline = time.monotonic() + WAIT
    while not (path.exists() and path.read_text()):
        assert time.monotonic() < deadline, "the task never started"
        time.sleep(0.05)
    pid = int(path.read_text())
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(WorkerLost, match=f"pid {pid} .*lost while running pid_then_sleep"):
        future.result(timeout=WAIT)
    assert any("lost" in m for m in executor.messages)
    # The driver resubmits the same task: it runs on a replacement actor.
    again_pid, value = executor.submit(pid_then_sleep, str(path), 0.1, 1).result(timeout=WAIT)
    assert value == 1 and again_pid != pid
    deadline = time.monotonic() + WAIT
    while executor.workers < 2:
        assert time.monotonic() < deadline, "no replacement actor started"
        time.sleep(0.1)
    futures = [executor.submit(square_where, x, pause=0.2) for x in range(4)]
    assert [f.result(timeout=WAIT)[2] for f in futures] == [0, 1, 4, 9]


def test_node_added_while_running_gets_work():
    cluster = None
    pool = None
    try:
        cluster = _cluster(1)
        pool = RayExecutor(cluster.address, env=WORKER_ENV, log=lambda _: None,
                           resize_every=0.5)
        first = pool.submit(square_where, 2).result(timeout=WAIT)
        assert first[2] == 4 and pool.workers == 1
        cluster.add_node(num_cpus=1, object_store_memory=STORE)
        cluster.wait_for_nodes()
        nodes: set[str] = set()
        deadline = time.monotonic() + WAIT
        while len(nodes) < 2:
            assert time.monotonic() < deadline, f"ran only on {nodes}; {pool.workers} workers"
            futures = [pool.submit(square_where, x, pause=0.2) for x in range(4)]
            done, _ = cf.wait(futures, timeout=WAIT)
            results = [f.result() for f in done]
            assert sorted(r[2] for r in results) == [0, 1, 4, 9]
            nodes |= {r[1] for r in results}
        assert first[1] in nodes
        assert pool.workers == 2
    finally:
        if pool is not None:
            pool.shutdown()
        ray.shutdown()
        if cluster is not None:
            cluster.shutdown()


def test_ray_problem(monkeypatch):
    assert ray_problem() is None
    monkeypatch.setitem(sys.modules, "ray", None)
    problem = ray_problem()
    assert problem == "--ray needs Ray: pip install 'imago[ray]' (or: pip install ray)"
    # The module imports without Ray; the executor refuses with the same line.
    monkeypatch.delitem(sys.modules, "imago.training.cluster")
    fresh = importlib.import_module("imago.training.cluster")
    with pytest.raises(RuntimeError, match="needs Ray"):
        fresh.RayExecutor("local")


def test_bad_arguments_and_submit_after_shutdown():
    with pytest.raises(ValueError, match="workers"):
        RayExecutor("local", workers=0)
    # Ray alone would retry an unreachable head for minutes.
    with pytest.raises(ConnectionError, match="cannot reach Ray at 127.0.0.1:1"):
        RayExecutor("127.0.0.1:1")
    pool = None
    try:
        pool = RayExecutor("local", workers=1, env=WORKER_ENV, log=lambda _: None)
        assert pool.submit(count_up).result(timeout=WAIT)[1] >= 1
        pool.shutdown()
        assert not ray.is_initialized(), "the executor disconnects what it connected"
        with pytest.raises(RuntimeError, match="after shutdown"):
            pool.submit(count_up)
    finally:
        if pool is not None:
            pool.shutdown()
        ray.shutdown()
