"""Self-play runs: games played by worker processes or Ray actors, stored as
replay shards and SGF files, resumable after any interruption.

The driver cuts the games still to play into *chunks* (by default twice the
games a worker plays at once, smaller when that would leave workers idle)
and keeps one chunk in flight per worker.
A worker (a local process, or a Ray actor with ``--ray``) loads the network
once and keeps it, plays its chunk with :func:`~imago.training.search_play.play_games`
and returns the records; the driver writes each chunk as one replay shard
(an atomic rename), then its SGF files. So:

- a run stopped by anything, ``kill -9`` included, keeps every chunk that
  was written and loses only the chunks in flight (never half a game);
  running the same command again plays only the games still missing
  (the shards of the folder count them, per generation);
- a worker that dies (its process killed, its node gone) costs its chunk,
  which is played again by a replacement; a local worker whose driver is
  gone (killed) stops within a second instead of playing on for nobody;
- the network travels with the task as bytes when the workers may sit on
  other machines (Ray), so the cluster needs no shared folder.
"""

from __future__ import annotations

import hashlib
import os
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path
from typing import Callable, Optional, Sequence

from .openings import OpeningLine
from .replay import GameRecord, ReplayBuffer, write_record
from .search_play import SelfPlaySettings, play_games

Log = Callable[[str], object]


@dataclass
class ChunkTask:
    """Games for one worker: ``games`` games with ``settings`` and the
    network at ``model`` (or, where that path does not exist, the model
    rebuilt from ``model_data``: the ``.keras`` and ``.json`` bytes)."""

    model: str
    settings: SelfPlaySettings
    games: int
    seed: int
    name: str
    threads: Optional[int] = None
    model_data: Optional[tuple[bytes, bytes]] = None
    openings: tuple = ()


@dataclass
class ChunkResult:
    """What a worker played: records, SGF texts, resignation checks
    (``(would_resign, winner)`` per game that could not resign), the network
    batch sizes, seconds, where it ran, and the policy surprise of each full
    search."""

    name: str
    records: list[GameRecord]
    sgf: list[str]
    checks: list[tuple[int, int]]
    batches: list[int]
    seconds: float
    worker: str
    surprises: list[float] = field(default_factory=list)


_NETWORKS: dict[str, object] = {}
"""The evaluator of each model a worker process has loaded (kept between chunks)."""


def play_chunk(task: ChunkTask) -> ChunkResult:
    """Play one chunk in this process (a worker): the module-level function
    the executors run."""
    from imago.sgf import dumps

    evaluator = _evaluator(task)
    start = time.perf_counter()
    records, texts, checks, batches, surprises = [], [], [], [], []
    for played in play_games(evaluator, task.settings, task.games, task.seed, task.name,
                             batches, task.openings):
        records.append(played.record)
        played.state.root.properties["PB"] = played.state.root.properties["PW"] = [
            f"imago self-play ({Path(task.model).name})"]
        texts.append(dumps(played.state))
        if played.would_resign is not None:
            checks.append((played.would_resign, played.record.winner))
        surprises.extend(played.surprises)
    return ChunkResult(task.name, records, texts, checks, batches,
                       time.perf_counter() - start, f"{os.uname().nodename}:{os.getpid()}",
                       surprises)


def _evaluator(task: ChunkTask):
    from imago.nn.evaluator import NetworkEvaluator

    path = Path(task.model)
    if not path.exists() and task.model_data is not None:
        path = _unpacked(task.model_data, path.name)
    key = f"{path}:{path.stat().st_mtime_ns}"
    evaluator = _NETWORKS.get(key)
    if evaluator is None:
        _NETWORKS.clear()
        evaluator = _NETWORKS[key] = NetworkEvaluator(str(path), threads=task.threads)
    return evaluator


def _unpacked(data: tuple[bytes, bytes], name: str) -> Path:
    """A model sent as bytes, written once per content into a temporary folder."""
    digest = hashlib.sha256(data[0]).hexdigest()[:16]
    folder = Path(tempfile.gettempdir()) / "imago-models" / digest
    path = folder / (Path(name).stem + ".keras")
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        for suffix, content in ((".json", data[1]), (".keras", data[0])):
            tmp = folder / f".{os.getpid()}{suffix}"
            tmp.write_bytes(content)
            os.replace(tmp, path.with_suffix(suffix))
    return path


@dataclass
class SelfPlaySummary:
    """Figures of a self-play run (of the games played by this call)."""

    games: int = 0
    positions: int = 0
    seconds: float = 0.0
    resigned: int = 0
    checked: int = 0
    false_resignations: int = 0
    batches: list[int] = field(default_factory=list)
    workers: set = field(default_factory=set)
    lost_chunks: int = 0
    already: int = 0
    surprises: list[float] = field(default_factory=list)

    @property
    def games_per_hour(self) -> float:
        return 3600.0 * self.games / self.seconds if self.seconds > 0 else 0.0

    @property
    def mean_batch(self) -> float:
        return statistics.mean(self.batches) if self.batches else 0.0

    @property
    def false_resignation_rate(self) -> Optional[float]:
        return self.false_resignations / self.checked if self.checked else None

    @property
    def policy_surprise(self) -> Optional[float]:
        """The mean KL divergence (nats) of the full searches' policy
        targets from the network's priors; None without full searches."""
        return statistics.mean(self.surprises) if self.surprises else None

    def line(self) -> str:
        rate = self.false_resignation_rate
        checked = (f", false resignations {self.false_resignations}/{self.checked}"
                   if rate is not None else "")
        surprise = self.policy_surprise
        taught = f", policy surprise {surprise:.3f}" if surprise is not None else ""
        moves = self.positions / self.games if self.games else 0
        return (f"{self.games} games in {self.seconds:.0f} s ({self.games_per_hour:.0f} games/h, "
                f"{moves:.0f} moves a game, network batch {self.mean_batch:.0f}, "
                f"{len(self.workers)} workers), {self.resigned} resigned{checked}{taught}")


def run_selfplay(model: str | os.PathLike, settings: SelfPlaySettings, games: int,
                 out: str | os.PathLike, workers: int = 1, ray: Optional[str] = None,
                 generation: int = 0, seed: Optional[int] = None,
                 chunk_games: Optional[int] = None, progress: bool = True,
                 log: Log = print, openings: Sequence[OpeningLine] = ()) -> SelfPlaySummary:
    """Make ``out/replay`` hold ``games`` games of ``generation`` (playing
    the ones missing) with ``workers`` local processes, or Ray actors on the
    cluster at ``ray``; SGF files go to ``out/sgf/gen-GGGG/``; a share
    ``settings.opening_share`` of them starts from ``openings``
    (:mod:`~imago.training.openings`). ValueError when the network is not
    made for ``settings.size``."""
    from imago.nn.modelfile import check_model_size

    check_model_size(model, settings.size)
    out = Path(out)
    buffer = ReplayBuffer(out / "replay")
    sgf_folder = out / "sgf" / f"gen-{generation:04d}"
    summary = SelfPlaySummary(already=buffer.games(settings.size, generation))
    missing = games - summary.already
    if missing <= 0:
        return summary
    chunk = chunk_games or max(1, min(2 * settings.parallel, -(-missing // max(workers, 1))))
    seed = int.from_bytes(os.urandom(4), "little") if seed is None else seed
    model = Path(model).resolve()
    data = None
    if ray is not None:
        data = (model.read_bytes(), model.with_suffix(".json").read_bytes())
    # a worker's share of the cores: a Ray actor holds one CPU of its node
    threads = max(1, (os.cpu_count() or 2) // workers) if ray is None else 1
    base = len(buffer.shards(generation))  # chunk numbers go on after the stored ones

    def task(index: int, size: int) -> ChunkTask:
        return ChunkTask(str(model), settings, size, seed + 7919 * (base + index) + generation,
                         f"gen{generation:04d}-{seed % 10000:04d}-{base + index:05d}",
                         threads, data, tuple(openings))

    sizes = [min(chunk, missing - k) for k in range(0, missing, chunk)]
    pending = [task(i, n) for i, n in enumerate(sizes)]
    bar = progress_bar(games, summary.already, progress)
    start = time.perf_counter()
    executor = _executor(workers, ray, log)
    running: dict[Future, ChunkTask] = {}
    try:
        while pending or running:
            while pending and len(running) < _capacity(executor, workers):
                job = pending.pop(0)
                running[executor.submit(play_chunk, job)] = job
            done, _ = wait(list(running), return_when=FIRST_COMPLETED)
            for future in done:
                job = running.pop(future)
                try:
                    result = future.result()
                except Exception as err:  # noqa: BLE001 - a lost worker: play the chunk again
                    if not _worker_lost(err):
                        raise
                    summary.lost_chunks += 1
                    log(f"selfplay: a worker was lost ({err}); chunk {job.name} is played again")
                    pending.insert(0, job)
                    if isinstance(err, BrokenProcessPool):
                        for other in running.values():
                            pending.insert(0, other)
                        running.clear()
                        executor.shutdown(wait=False, cancel_futures=True)
                        executor = _executor(workers, ray, log)
                    continue
                _store(result, buffer, sgf_folder, generation, summary)
                summary.seconds = time.perf_counter() - start
                bar.set_postfix_str(_postfix(summary), refresh=False)
                bar.update(len(result.records))
    except BaseException:
        _abandon(executor)
        raise
    finally:
        bar.close()
        executor.shutdown(wait=False, cancel_futures=True)
    summary.seconds = time.perf_counter() - start
    return summary


def _store(result: ChunkResult, buffer: ReplayBuffer, sgf_folder: Path, generation: int,
           summary: SelfPlaySummary) -> None:
    """The chunk as one shard (atomic), then its SGF files, then the figures."""
    if result.records:
        buffer.add(result.records, generation, worker=result.worker.replace(":", "-"))
    sgf_folder.mkdir(parents=True, exist_ok=True)
    for record, text in zip(result.records, result.sgf):
        write_record(sgf_folder / f"{record.name}.sgf", text)
    summary.games += len(result.records)
    summary.positions += sum(len(r) for r in result.records)
    summary.resigned += sum(r.resigned for r in result.records)
    summary.checked += len(result.checks)
    summary.false_resignations += sum(would == winner for would, winner in result.checks)
    summary.batches.extend(result.batches)
    summary.surprises.extend(result.surprises)
    summary.workers.add(result.worker)


def _postfix(summary: SelfPlaySummary) -> str:
    return (f"{summary.games_per_hour:.0f} games/h, batch {summary.mean_batch:.0f}, "
            f"{summary.resigned} resigned")


def _executor(workers: int, ray: Optional[str], log: Log):
    if ray is not None:
        from .cluster import RayExecutor

        return RayExecutor(ray, workers=workers if workers > 1 else None, log=log)
    return ProcessPoolExecutor(workers, mp_context=get_context("spawn"),
                               initializer=watch_driver, initargs=(os.getpid(),))


def _abandon(executor) -> None:
    """Stop local workers at once when the driver gives up (an interrupt,
    an error): their chunks would be played to the end for nobody, and
    the interpreter waits for them before it exits (minutes, on 9x9 with
    the shipped network). A chunk is stored only when it comes back whole,
    so nothing half-played is kept. Ray actors are the cluster's to stop."""
    processes = list((getattr(executor, "_processes", None) or {}).values())  # gone after shutdown
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        process.terminate()


def watch_driver(driver: int, interval: float = 0.5) -> None:
    """A local worker's initializer: end the worker as soon as ``driver``
    (its parent) is gone. A driver killed outright (``kill -9``, SIGTERM)
    cannot stop its workers, which would otherwise play their chunks to the
    end for nobody, beside the run that goes on."""
    def watch() -> None:
        while os.getppid() == driver:
            time.sleep(interval)
        os._exit(1)

    threading.Thread(target=watch, name="imago-driver-watch", daemon=True).start()


def _capacity(executor, workers: int) -> int:
    """Chunks to keep in flight: one per worker, counting Ray actors still
    starting (they take their chunk as soon as they are up)."""
    if hasattr(executor, "workers"):
        return max(1, int(executor.workers) + int(getattr(executor, "starting", 0)))
    return workers


def _worker_lost(err: BaseException) -> bool:
    if isinstance(err, BrokenProcessPool):
        return True
    try:
        from .cluster import WorkerLost
    except ImportError:
        return False
    return isinstance(err, WorkerLost)


class _NoBar:
    n = 0

    def update(self, n: int) -> None:
        self.n += n

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        pass

    def close(self) -> None:
        pass


class _LogLines(_NoBar):
    """Progress for a stderr that is a log file, where a bar's redrawing
    would be noise: what the bar would show, as a line at the start, then
    at most every ``every`` seconds, and once the count is complete."""

    def __init__(self, total: int, done: int, desc: str, unit: str, every: float = 60.0):
        self.total, self.n, self.desc, self.unit, self.every = total, done, desc, unit, every
        self.postfix = ""
        self.last = time.monotonic()
        self._say()

    def update(self, n: int) -> None:
        self.n += n
        now = time.monotonic()
        if now - self.last >= self.every or self.n >= self.total:
            self.last = now
            self._say()

    def _say(self) -> None:
        tail = f", {self.postfix}" if self.postfix else ""
        print(f"{self.desc}: {self.n} of {self.total} {self.unit}s{tail}", file=sys.stderr,
              flush=True)

    def set_postfix_str(self, text: str, refresh: bool = True) -> None:
        self.postfix = text


def progress_bar(total: int, done: int, shown: bool, desc: str = "self-play",
                 unit: str = "game"):
    """A tqdm progress bar on a terminal (nothing there without tqdm); when
    stderr is a log file, a line a minute (:class:`_LogLines`: a long run in
    the background shows how far it is); nothing when not ``shown``."""
    if not shown:
        return _NoBar()
    if not sys.stderr.isatty():
        return _LogLines(total, done, desc, unit)
    try:
        from tqdm import tqdm
    except ImportError:
        return _NoBar()
    return tqdm(total=total, initial=done, unit=unit, desc=desc, dynamic_ncols=True,
                smoothing=0.1)


__all__ = ["ChunkTask", "ChunkResult", "SelfPlaySummary", "play_chunk", "run_selfplay",
           "progress_bar"]
