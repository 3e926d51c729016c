"""Streamed, size-mixed training data: packed shards on disk, a replayable plan.

The records of every board size go into one run. Each chunk of
:data:`CHUNK_FILES` SGF files (never mixing folders) is read once and cached
as one shard per board size it holds (``.npz``), with a small manifest
(``.json``) of the games and sample counts in it, so a run can plan its
batches without loading a shard. Planes are stored bit-packed (the 0/1
planes only; the komi plane is rebuilt from each sample's komi and colour),
about 1.2 KB per 19x19 position, and only one group of shards is in memory
at a time: the data never has to fit in memory.

A sample is one move of a record (the random opening moves ``index.tsv``
lists are skipped), from the mover's view: the move (policy target), the
game's winner (value; weight 0 without a result), the final ownership
(weight 1 only when the game was counted: a numeric result or ``TB``/``TW``
markup; a resigned game's last position says little about ownership; nor
a counted one whose dead stones neither the stones as they stand nor
imago's count account for: :func:`~imago.training.data.final_ownership`), the
final lead in points with the komi (weight 1 for a numeric result, ``RE``
``B+3.5``), the komi and the colour. A record that leaves its komi unsaid
(:func:`~imago.training.data.komi_unknown`) gives no value or lead, and
the usual komi as its input.

The order of batches is a pure function of the seed and the step
(:class:`Plan`): epoch ``e`` shuffles the shards with ``seed, e``, takes
them :data:`GROUP_SHARDS` at a time, shuffles each size's training samples
in the group and cuts full batches of one size (a network call takes one
size), and shuffles the group's batches. With size shares a group keeps a
part of each size's batches (:func:`size_multipliers`, the rounding carried
from group to group), so that an epoch's batches stand as the shares say.
A run stopped at any step goes on from that very batch. Augmentation (a
random symmetry per sample and, for counted games, a random komi shift that
moves the lead and perhaps the winner with it) is seeded by the step too.

NumPy only: Keras is not imported here.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Optional, Sequence

import numpy as np

from imago.nn.features import (BINARY_PLANES, DEFAULT_KOMI, SCORE_SCALE, augment_batch,
                               num_planes, with_komi_plane)
from imago.sgf import find_sgf_files

from .data import (_file_key, folder_chunks, game_samples, is_validation_game, komi_unknown,
                   load_shard, named_games, readable_files, result_lead, save_shard, write_json)

log = logging.getLogger("imago.training")

STREAM_VERSION = 3
"""2: records of unknown komi teach no value or score (:func:`~.data.komi_unknown`);
3: dead stones standing in a counted record are taken off by imago's count
(:func:`~.data.final_ownership`)."""
CHUNK_FILES = 32
"""SGF files per cached chunk."""
GROUP_SHARDS = 16
"""Shards in memory at once; batches mix the samples of one group."""
KOMI_SHIFT = 8
"""Counted games get a random komi shift of up to this many points."""


def binary_plane_set(plane_set: str) -> str:
    """The plane set whose planes are the 0/1 planes of ``plane_set``."""
    return "extended" if plane_set == "komi" else plane_set


# ------------------------------------------------------------------ one game
def game_arrays(state, plane_set: str, skip: int = 0, path: Optional[Path] = None,
                gnugo=None) -> dict[str, np.ndarray]:
    """The samples of one game for a stream shard (see the module docstring)."""
    arrays = game_samples(state, binary_plane_set(plane_set), skip, path, gnugo)
    n = len(arrays["moves"])
    if not n:
        return arrays  # named as a game without moves by the caller
    size = state.size
    planes = arrays.pop("planes")
    arrays["planes"] = np.packbits(planes.reshape(n, -1), axis=1)
    moves = [node for node in state.root.main_line() if node.is_move][skip:]
    color = np.array([node.color for node in moves], dtype=np.int8)
    black = np.where(color == 1, 1.0, -1.0).astype(np.float32)
    result = (state.root.properties.get("RE") or [None])[0]
    lead = result_lead(result)
    komi = state.game_komi
    if komi_unknown(state):
        lead, komi = None, DEFAULT_KOMI
    arrays["komi"] = np.full(n, komi, dtype=np.float32)
    arrays["color"] = color
    arrays["lead"] = (black * (lead or 0.0)).astype(np.float32)
    arrays["lead_mask"] = np.full(n, lead is not None, dtype=np.uint8)
    arrays["ownership"] = arrays["ownership"].reshape(n, size * size)
    return arrays


# ------------------------------------------------------------------ shards
def chunk_key(files: list[Path], plane_set: str, dead: str) -> str:
    blob = json.dumps({"v": STREAM_VERSION, "planes": plane_set, "dead": dead,
                       "files": [_file_key(f) for f in files]})
    return hashlib.sha1(blob.encode()).hexdigest()[:20]


def build_chunk(files: list[Path], plane_set: str, gnugo=None
                ) -> tuple[dict[int, dict[str, np.ndarray]], list[str]]:
    """Read a chunk of files: ``({size: arrays}, problems)``, each problem a
    file or game that was skipped and why."""
    by_size: dict[int, list[dict]] = {}
    names: dict[int, list[str]] = {}
    problems: list[str] = []
    for path, name, state, opening in named_games(files, problems):
        try:
            arrays = game_arrays(state, plane_set, opening, path, gnugo)
        except Exception as err:  # noqa: BLE001 - a game that cannot be encoded is skipped
            problems.append(f"{name}: {err}")
            continue
        if not len(arrays["moves"]):
            problems.append(f"{name}: no moves to learn from")
            continue
        size = state.size
        arrays["game"] = np.full(len(arrays["moves"]), len(names.setdefault(size, [])),
                                 dtype=np.int32)
        names[size].append(name)
        by_size.setdefault(size, []).append(arrays)
    out = {}
    for size, parts in by_size.items():
        merged = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        merged["names"] = np.array(names[size], dtype=str)
        out[size] = merged
    return out, problems


@dataclass
class Shard:
    """One cached shard: its file, board size and the sample count of each
    game in it (from the manifest)."""

    path: Path
    size: int
    games: list[tuple[str, int]]


def build_cached_chunk(chunk: list[Path], plane_set: str, manifest_path: Path, gnugo=None
                       ) -> None:
    """Read one chunk of SGF files and write its shards (one per board size)
    and then its manifest beside ``manifest_path``; the manifest comes last,
    so a chunk whose manifest exists is whole."""
    by_size, chunk_problems = build_chunk(chunk, plane_set, gnugo)
    manifest = {"problems": chunk_problems, "sizes": {}}
    stem = manifest_path.name[:-len(".json")]
    for size, arrays in by_size.items():
        games = [(str(n), int(c)) for n, c in
                 zip(arrays["names"], np.bincount(arrays["game"]))]
        save_shard(manifest_path.parent / f"{stem}-{size}.npz", arrays)
        manifest["sizes"][str(size)] = games
    write_json(manifest_path, manifest)


def _build_job(job: tuple) -> None:
    build_cached_chunk(*job)


def default_workers() -> int:
    """Processes that build a shard cache unless told: one a core."""
    return os.cpu_count() or 1


def build_chunks(jobs: list[tuple[list[Path], Path]], plane_set: str, gnugo=None,
                 workers: int = 1, done: Optional[Callable[[int], None]] = None) -> None:
    """Build the chunks ``jobs`` (``(files, manifest path)`` each), in
    ``workers`` processes when there are several jobs (serially with GNU Go,
    whose one referee process cannot be shared); ``done(i)`` after job ``i``."""
    if workers <= 1 or len(jobs) < 2 or gnugo is not None:
        for number, (chunk, manifest_path) in enumerate(jobs):
            build_cached_chunk(chunk, plane_set, manifest_path, gnugo)
            if done:
                done(number)
        return
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from multiprocessing import get_context

    with ProcessPoolExecutor(min(workers, len(jobs)), mp_context=get_context("spawn")) as pool:
        futures = {pool.submit(_build_job, (chunk, plane_set, manifest_path)): number
                   for number, (chunk, manifest_path) in enumerate(jobs)}
        for future in as_completed(futures):
            future.result()
            if done:
                done(futures[future])


def prepare_shards(inputs: Iterable[str], plane_set: str, sizes: Sequence[int],
                   cache_dir: Path, dead: str = "markup", gnugo=None,
                   progress: Optional[Callable[[str], None]] = None, workers: int = 1
                   ) -> tuple[list[Shard], list[str], int]:
    """Build (or find cached) the shards of ``inputs`` for the board sizes
    ``sizes``: ``(shards, problems, chunks built)``, the missing chunks in
    ``workers`` processes. Games of other sizes are named in the problems
    and left out."""
    files, problems = find_sgf_files(inputs)
    files = readable_files(files, problems)
    chunks = folder_chunks(files, CHUNK_FILES)
    folder = cache_dir / "stream"
    manifests = [folder / f"{plane_set}-{chunk_key(chunk, plane_set, dead)}.json"
                 for chunk in chunks]
    fresh = [number for number, path in enumerate(manifests) if not path.exists()]

    def built(job: int) -> None:
        if progress:
            number = fresh[job]
            progress(f"chunk {number + 1}/{len(chunks)} of {chunks[number][0].parent.name}: "
                     "built")

    build_chunks([(chunks[n], manifests[n]) for n in fresh], plane_set, gnugo, workers, built)
    shards: list[Shard] = []
    for number, manifest_path in enumerate(manifests):
        manifest = json.loads(manifest_path.read_text())
        problems.extend(manifest["problems"])
        for size_text, games in manifest["sizes"].items():
            size = int(size_text)
            if size in sizes:
                shard_path = manifest_path.with_name(f"{manifest_path.stem}-{size}.npz")
                shards.append(Shard(shard_path, size, [(n, c) for n, c in games]))
            else:
                problems.extend(f"{n}: {size}x{size} game, not one of the sizes "
                                f"{', '.join(map(str, sizes))}" for n, _ in games)
    if progress and len(fresh) < len(chunks):
        progress(f"{len(chunks) - len(fresh)} of {len(chunks)} chunks found in {folder}")
    return shards, problems, len(fresh)


# ------------------------------------------------------------------ samples
def split_mask(shard_arrays: dict, validation: float) -> np.ndarray:
    """True for the samples of a shard's validation games."""
    names = shard_arrays["names"]
    val_game = np.array([is_validation_game(str(n), validation) for n in names], dtype=bool)
    return val_game[shard_arrays["game"]] if len(names) else np.zeros(0, bool)


def train_count(shard: Shard, validation: float) -> int:
    """Training samples of a shard, from its manifest."""
    return sum(c for n, c in shard.games if not is_validation_game(n, validation))


def take(arrays: dict, index: np.ndarray) -> dict:
    """The rows ``index`` of a shard's per-sample arrays."""
    return {k: v[index] for k, v in arrays.items() if k not in ("names",)}


def concat(parts: list[dict]) -> dict:
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def make_batch(rows: dict, size: int, plane_set: str, heads: Sequence[str],
               rng: Optional[np.random.Generator]) -> tuple[np.ndarray, dict]:
    """``(planes float32, targets by head)`` of the samples ``rows`` (a
    dict of per-sample arrays of one size); with ``rng``, a random symmetry
    per sample and a random komi shift for counted games."""
    n = len(rows["moves"])
    binary = BINARY_PLANES[plane_set]
    bits = np.unpackbits(rows["planes"], axis=1, count=size * size * binary)
    planes = bits.reshape(n, size, size, binary)
    moves = rows["moves"].astype(np.int64)
    own = rows["ownership"].astype(np.float32)
    komi = rows["komi"].astype(np.float32)
    lead = rows["lead"].astype(np.float32)
    value = rows["values"].astype(np.float32)
    if rng is not None:
        planes, moves, own = augment_batch(planes, moves, own, rng.integers(0, 8, size=n))
        shift = rng.integers(-KOMI_SHIFT, KOMI_SHIFT + 1, size=n).astype(np.float32)
        shift *= (rows["lead_mask"] == 1) & (rng.random(n) < 0.5)
        komi = komi + shift
        # a bigger komi lowers Black's lead, raises White's
        lead = lead - shift * np.where(rows["color"] == 1, 1.0, -1.0)
        value = np.where(shift != 0, np.sign(lead), value).astype(np.float32)
    x = planes.astype(np.float32)
    if num_planes(plane_set) > binary:
        x = with_komi_plane(planes, komi, rows["color"])
    y = {"policy": moves.astype(np.int32)}
    if "value" in heads:
        y["value"] = np.stack([value, rows["value_mask"].astype(np.float32)], axis=1)
    if "ownership" in heads:
        y["ownership"] = np.concatenate([own, rows["own_mask"][:, None].astype(np.float32)],
                                        axis=1)
    if "score" in heads:
        y["score"] = np.stack([lead / SCORE_SCALE, rows["lead_mask"].astype(np.float32)],
                              axis=1)
    return x, y


# ------------------------------------------------------------------ the plan
def parse_size_shares(text: str) -> dict[int, float]:
    """``"9:1,19:2"`` as ``{9: 1.0, 19: 2.0}``: each board size's share of
    the training batches, as relative weights. ValueError saying what is
    wrong."""
    shares: dict[int, float] = {}
    for part in text.split(","):
        size, sep, weight = part.strip().partition(":")
        try:
            if not sep:
                raise ValueError
            size_n, weight_f = int(size), float(weight)
        except ValueError:
            raise ValueError(f"size shares are SIZE:WEIGHT pairs separated by commas "
                             f"(e.g. 9:1,19:1), not {text!r}") from None
        if not (weight_f > 0 and np.isfinite(weight_f)):
            raise ValueError(f"the share of {size_n}x{size_n} must be a positive number, "
                             f"not {weight}")
        if size_n in shares:
            raise ValueError(f"{size_n}x{size_n} is given two shares in {text!r}")
        shares[size_n] = weight_f
    return shares


def format_size_shares(shares: dict[int, float]) -> str:
    """The canonical text of ``shares`` (sizes in order), as a run keeps it."""
    return ",".join(f"{size}:{shares[size]:g}" for size in sorted(shares))


def size_multipliers(totals: dict[int, int], shares: Optional[dict[int, float]]
                     ) -> dict[int, float]:
    """The part of each size's batches an epoch uses, so that the sizes'
    batches stand to each other as ``shares`` say (``totals``: each size's
    training samples). The size that is scarcest for its share uses all
    its batches, the others a part, drawn anew each epoch; without
    ``shares`` every batch is used (each size in proportion to its
    samples)."""
    sizes = [s for s, n in totals.items() if n > 0]
    if not shares or not sizes:
        return {s: 1.0 for s in totals}
    wanted = sum(shares[s] for s in sizes)
    have = sum(totals[s] for s in sizes)
    ratio = {s: (shares[s] / wanted) / (totals[s] / have) for s in sizes}
    most = max(ratio.values())
    return {s: ratio[s] / most if s in ratio else 1.0 for s in totals}


class Plan:
    """Which batch comes at which step (see the module docstring). With
    ``shares`` (board size -> weight) each epoch uses a part of the sizes'
    batches so that they stand as the weights say
    (:func:`size_multipliers`); which part is a function of the seed and
    epoch too."""

    def __init__(self, shards: list[Shard], batch_size: int, validation: float, seed: int,
                 shares: Optional[dict[int, float]] = None):
        self.shards = shards
        self.batch_size = batch_size
        self.validation = validation
        self.seed = seed
        self.counts = [train_count(s, validation) for s in shards]
        self.totals: dict[int, int] = {}  # training samples by board size
        for shard, count in zip(shards, self.counts):
            self.totals[shard.size] = self.totals.get(shard.size, 0) + count
        self.multipliers = size_multipliers(self.totals, shares)
        self._epochs: dict[int, list[list[int]]] = {}
        self._takes: dict[int, list[dict[int, int]]] = {}
        self._lengths: list[int] = []  # steps of epochs 0, 1, ...
        self._group: Optional[tuple] = None  # (epoch, group number, batches)

    def groups(self, epoch: int) -> list[list[int]]:
        """The shard numbers of each group of ``epoch``."""
        if epoch not in self._epochs:
            order = np.random.default_rng([self.seed, epoch]).permutation(len(self.shards))
            self._epochs[epoch] = [order[i:i + GROUP_SHARDS].tolist()
                                   for i in range(0, len(order), GROUP_SHARDS)]
        return self._epochs[epoch]

    def group_batches(self, group: list[int]) -> dict[int, int]:
        """Full batches of each size that a group's samples make."""
        per_size: dict[int, int] = {}
        for i in group:
            per_size[self.shards[i].size] = per_size.get(self.shards[i].size, 0) + self.counts[i]
        return {size: count // self.batch_size for size, count in per_size.items()}

    def takes(self, epoch: int) -> list[dict[int, int]]:
        """The batches of each size that each group of ``epoch`` uses: all
        of them, or the size's multiplier's part, rounded so that the epoch's
        total of each size is its part of the whole (the rounding carried
        from group to group)."""
        if epoch not in self._takes:
            carried: dict[int, float] = {}
            takes = []
            for group in self.groups(epoch):
                take_now = {}
                for size, batches in self.group_batches(group).items():
                    before = carried.get(size, 0.0)
                    carried[size] = before + batches * self.multipliers[size]
                    take_now[size] = int(np.floor(carried[size] + 1e-9)) \
                        - int(np.floor(before + 1e-9))
                takes.append(take_now)
            self._takes[epoch] = takes
        return self._takes[epoch]

    def epoch_steps(self, epoch: int) -> int:
        """Steps of one epoch (it varies a little: each group drops the
        samples short of a full batch of each size)."""
        while len(self._lengths) <= epoch:
            takes = self.takes(len(self._lengths))
            self._lengths.append(sum(sum(t.values()) for t in takes))
        return self._lengths[epoch]

    def locate(self, step: int) -> tuple[int, int, int]:
        """``(epoch, group, batch within the group)`` of a step."""
        if self.epoch_steps(0) < 1:
            raise ValueError(f"too few training samples for one batch of {self.batch_size} "
                             "of one size")
        epoch, rest = 0, step
        while rest >= self.epoch_steps(epoch):
            rest -= self.epoch_steps(epoch)
            epoch += 1
        for number, take_now in enumerate(self.takes(epoch)):
            count = sum(take_now.values())
            if rest < count:
                return epoch, number, rest
            rest -= count
        raise AssertionError("step beyond its epoch")

    def _load_group(self, epoch: int, number: int) -> list[tuple[int, dict, np.ndarray]]:
        """The batches of a group: ``(size, samples, index)`` each."""
        group = self.groups(epoch)[number]
        by_size: dict[int, list[dict]] = {}
        for i in group:
            shard = self.shards[i]
            arrays = load_shard(shard.path)
            keep = np.flatnonzero(~split_mask(arrays, self.validation))
            by_size.setdefault(shard.size, []).append(take(arrays, keep))
        rng = np.random.default_rng([self.seed, epoch, number, 1])
        take_now = self.takes(epoch)[number]
        batches = []
        for size in sorted(by_size):
            samples = concat(by_size[size])
            order = rng.permutation(len(samples["moves"]))
            for k in range(take_now[size]):
                batches.append((size, samples, order[k * self.batch_size:(k + 1) * self.batch_size]))
        return [batches[i] for i in rng.permutation(len(batches))]

    def batch(self, step: int, plane_set: str, heads: Sequence[str], augment: bool = True
              ) -> tuple[np.ndarray, dict]:
        """The inputs and targets of training step ``step``."""
        epoch, number, k = self.locate(step)
        if self._group is None or self._group[:2] != (epoch, number):
            self._group = (epoch, number, self._load_group(epoch, number))
        size, samples, index = self._group[2][k]
        rng = np.random.default_rng([self.seed, step, 2]) if augment else None
        return make_batch(take(samples, index), size, plane_set, heads, rng)


def validation_samples(shards: list[Shard], validation: float, per_size: int,
                       seed: int = 0) -> dict[int, dict]:
    """Up to ``per_size`` validation samples of each size (a fixed random
    choice), as per-sample arrays."""
    by_size: dict[int, list[dict]] = {}
    for shard in shards:
        if all(not is_validation_game(n, validation) for n, _ in shard.games):
            continue
        arrays = load_shard(shard.path)
        by_size.setdefault(shard.size, []).append(
            take(arrays, np.flatnonzero(split_mask(arrays, validation))))
    out = {}
    for size, parts in by_size.items():
        samples = concat(parts)
        count = len(samples["moves"])
        index = np.sort(np.random.default_rng([seed, size]).permutation(count)[:per_size])
        if len(index):
            out[size] = take(samples, index)
    return out


__all__ = ["result_lead", "game_arrays", "build_chunk", "prepare_shards", "Shard", "Plan",
           "parse_size_shares", "format_size_shares", "size_multipliers",
           "make_batch", "validation_samples", "binary_plane_set", "STREAM_VERSION"]
