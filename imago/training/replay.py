"""The replay buffer of the self-play loop: finished games in, training batches out.

Self-play workers hand over one :class:`GameRecord` per game: the network
input planes of every position as they were encoded during the game, the
search's visit distribution and value, the move played and the outcome.
:meth:`ReplayBuffer.add` writes the positions of a list of games as one
compressed ``.npz`` shard; :meth:`ReplayBuffer.sample` draws batches from
the most recent ``window`` positions.

- Shards, not SGF replays: the search's visit distribution and value exist
  nowhere in an SGF file, and re-encoding the planes of every position for
  every epoch would cost more than the training step itself.
- Targets are stored from the mover's view (the side to move at that
  position): value +1 when the mover won, -1 when it lost, 0 for a draw;
  final ownership +1 own, -1 the opponent's; score as the mover's lead.
  That is what the network predicts, so a batch needs no colour logic.
- The 0/1 planes are bit-packed (``np.packbits`` over each position's
  flattened ``size*size*planes`` values), the policy is stored as float16:
  shards stay small enough to keep a window of hundreds of thousands of
  positions in memory.
- A shard is written to a hidden ``.shard-*.tmp`` file and renamed with
  ``os.replace`` (:func:`~imago.fileio.replacing`), so a reader never sees
  a half-written shard, even after ``kill -9``; readers ignore those
  files, and one left behind for an hour (a writer killed) is removed
  when a buffer opens. Names (``shard-GGGG-TIME-WORKER-PID.npz``) sort by
  generation, then creation time, and never collide between processes, so
  several workers and the trainer can share one folder.
- A shard records its board size, komi, plane count and plane set; board
  sizes may share a folder, and each size has its own window. A shard that
  cannot be read is skipped with a warning naming it.
- Only the 0/1 planes are stored (:data:`~imago.nn.features.BINARY_PLANES`
  of the plane set): a plane set with a komi plane (``komi``) stores its 26
  binary planes (``packed_planes``, shard version 2), and :meth:`ReplayBuffer.sample`
  adds the komi plane back from each game's komi and the mover's colour
  (:func:`~imago.nn.features.komi_plane_value`). Shards of 0/1 plane sets
  are written as before (version 1).
- ``score_weight`` in a batch is 0 for the positions of resigned games (their
  "final" count is of the position where a side gave up, no real result),
  1 otherwise; the value target of a resigned game is its winner, weight 1.

Numpy only: TensorFlow is not imported here.
"""

from __future__ import annotations

import logging
import math
import os
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import numpy as np

from imago.fileio import replacing
from imago.game import BLACK, WHITE
from imago.game.coords import MAX_SIZE
from imago.nn.features import BINARY_PLANES, PLANE_SETS, symmetry_tables, with_komi_plane

log = logging.getLogger("imago.training")

SHARD_VERSION = 2
"""Version 2 adds ``packed_planes`` (fewer than ``plane_count`` when the
komi plane is rebuilt on reading); shards without a komi plane are still
written as version 1, so older readers keep reading them."""
STALE_TMP_SECONDS = 3600.0
SAMPLED = ("planes", "policy", "full", "value", "ownership", "score", "searched", "moves")
DERIVED = ("komi", "to_move", "score_weight")
"""Per-position arrays :meth:`ReplayBuffer._load` adds from the game arrays."""
REQUIRED = SAMPLED + ("version", "size", "plane_count", "plane_set", "generation", "game")


@dataclass
class GameRecord:
    """One finished self-play game, position by position (see the module
    docstring); ``problems()`` says what is wrong with it, if anything.
    ``planes`` holds the 0/1 planes of ``plane_set`` (``BINARY_PLANES``
    wide, 26 for ``komi``); a full-width array is accepted too, its komi
    plane dropped (it is rebuilt from ``komi`` on reading)."""

    size: int
    komi: float
    planes: np.ndarray
    to_move: np.ndarray
    moves: np.ndarray
    policy: np.ndarray
    full: np.ndarray
    searched: np.ndarray
    winner: int
    score: float
    ownership: np.ndarray
    resigned: bool = False
    plane_set: str = "extended"
    name: str = ""

    def __len__(self) -> int:
        return int(np.shape(self.moves)[0]) if np.ndim(self.moves) else 0

    def problems(self) -> list[str]:
        """Readable reasons this record cannot be stored (empty when it can)."""
        if not isinstance(self.size, (int, np.integer)) or not 2 <= self.size <= MAX_SIZE:
            return [f"size must be an integer from 2 to {MAX_SIZE}, not {self.size!r}"]
        if self.plane_set not in PLANE_SETS:
            return [f"unknown plane set {self.plane_set!r}; known: {', '.join(PLANE_SETS)}"]
        n, size, area = len(self), int(self.size), int(self.size) ** 2
        binary, full_width = BINARY_PLANES[self.plane_set], PLANE_SETS[self.plane_set]
        width = binary
        if (isinstance(self.planes, np.ndarray) and self.planes.ndim == 4
                and self.planes.shape[-1] == full_width):
            width = full_width  # the komi plane, if any, is dropped on storing
        expected = {"planes": ((n, size, size, width), "ubf" if width > binary else "ub"),
                    "to_move": ((n,), "iu"), "moves": ((n,), "iu"),
                    "policy": ((n, area + 1), "f"), "full": ((n,), "b"),
                    "searched": ((n,), "f"), "ownership": ((area,), "iu")}
        out = []
        for field_name, (shape, kinds) in expected.items():
            value = getattr(self, field_name)
            if not isinstance(value, np.ndarray):
                out.append(f"{field_name} is a {type(value).__name__}, not a numpy array")
            elif value.dtype.kind not in kinds:
                out.append(f"{field_name} has dtype {value.dtype}")
            elif value.shape != shape:
                out.append(f"{field_name} has shape {value.shape}, not {shape}")
        if out:
            return out
        if n and not np.isin(self.planes[..., :binary], (0, 1)).all():
            out.append("planes hold values other than 0 and 1")
        if not np.isin(self.to_move, (BLACK, WHITE)).all():
            out.append("to_move holds values other than 1 (Black) and 2 (White)")
        if n and (self.moves.min() < 0 or self.moves.max() > area):
            out.append(f"moves outside 0..{area}")
        if not np.isfinite(self.policy).all() or (self.policy < 0).any():
            out.append("policy holds negative or non-finite values")
        elif not np.allclose(self.policy[self.full].sum(axis=1), 1.0, atol=1e-3):
            out.append("policy rows of full searches do not sum to 1")
        if not (np.abs(self.searched) <= 1.0 + 1e-3).all():
            out.append("searched values outside [-1, 1]")
        if not np.isin(self.ownership, (-1, 0, 1)).all():
            out.append("ownership holds values other than -1, 0 and 1")
        if self.winner not in (0, BLACK, WHITE):
            out.append(f"winner must be 0, 1 or 2, not {self.winner!r}")
        if not _finite(self.komi) or not _finite(self.score):
            out.append(f"komi {self.komi!r} and score {self.score!r} must be finite numbers")
        elif not self.resigned and self.winner in (0, BLACK, WHITE):
            if self.winner != (BLACK if self.score > 0 else WHITE if self.score < 0 else 0):
                out.append(f"score {self.score} does not agree with winner {self.winner}")
        return out


def _finite(x: object) -> bool:
    return isinstance(x, (int, float, np.integer, np.floating)) and math.isfinite(x)


def outcome_targets(to_move: np.ndarray, winner: int, ownership: np.ndarray, score: float
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A game's value, ownership and score targets at each of its positions
    (``to_move`` their movers), from each mover's view: +1 when the mover
    won (0 for a draw, ``winner`` 0), the final ``ownership`` (from Black's
    side, one row for all) signed for the mover, the mover's lead."""
    to_move = np.asarray(to_move)
    sign = np.where(to_move == BLACK, 1, -1).astype(np.int8)
    if winner == 0:
        value = np.zeros(len(to_move), np.float32)
    else:
        value = np.where(to_move == winner, 1.0, -1.0).astype(np.float32)
    owned = (sign[:, None] * np.asarray(ownership).astype(np.int8)[None, :]).astype(np.int8)
    return value, owned, (sign * np.float32(score)).astype(np.float32)


def write_shard(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """Write ``arrays`` as the shard ``path`` through a hidden temporary
    file that readers ignore, renamed into place: a reader sees no shard or all of it
    (the old one, when ``path`` is rewritten), even after ``kill -9``."""
    with replacing(path, binary=True) as fh:
        np.savez_compressed(fh, **arrays)


def write_record(path: Path, text: str) -> None:
    """Write the SGF record ``text`` to ``path`` (UTF-8) whole or not at
    all (:func:`~imago.fileio.replacing`): a reader of the run's ``sgf/``
    folder sees the old record or the new one, never half."""
    with replacing(path) as fh:
        fh.write(text)


def _position_arrays(record: GameRecord, game: int) -> dict[str, np.ndarray]:
    n = len(record)
    to_move = record.to_move.astype(np.int8)
    value, ownership, score = outcome_targets(to_move, record.winner, record.ownership,
                                              record.score)
    binary = record.planes[..., :BINARY_PLANES[record.plane_set]].astype(np.uint8)
    return {"planes": np.packbits(binary.reshape(n, -1), axis=1),
            "policy": record.policy.astype(np.float16),
            "full": record.full.astype(bool),
            "searched": np.clip(record.searched, -1.0, 1.0).astype(np.float32),
            "moves": record.moves.astype(np.int16),
            "to_move": to_move,
            "value": value,
            "ownership": ownership,
            "score": score,
            "game": np.full(n, game, np.int32)}


_stamp_lock = threading.Lock()
_last_stamp = [0]


def _stamp() -> int:
    """Nanoseconds since the epoch, strictly increasing within the process."""
    with _stamp_lock:
        _last_stamp[0] = max(time.time_ns(), _last_stamp[0] + 1)
        return _last_stamp[0]


def shard_name(generation: int, worker: str) -> str:
    """A new shard's file name: sorts by generation then time, unique per process."""
    safe = re.sub(r"[^A-Za-z0-9_-]+", "_", worker).strip("_-")[:40] or "local"
    return f"shard-{generation:04d}-{_stamp():020d}-{safe}-{os.getpid()}.npz"


@dataclass(frozen=True)
class _Shard:
    path: Path
    size: int
    plane_count: int
    plane_set: str
    generation: int
    positions: int
    games: int
    packed: int  # the planes stored bit-packed (plane_count less a komi plane)


class ReplayBuffer:
    """A folder of self-play shards; the newest ``window`` positions of each
    board size are the ones :meth:`sample` draws from. Several buffers (in
    several processes) may share a folder: each call looks at the folder
    again, and a shard's arrays are read only while it is in the window."""

    def __init__(self, folder: Path, window: int = 250_000):
        if window < 1:
            raise ValueError(f"window must be at least 1 position, not {window}")
        self.folder = Path(folder)
        self.window = int(window)
        self.folder.mkdir(parents=True, exist_ok=True)
        self._info: dict[str, _Shard] = {}
        self._bad: set[str] = set()
        self._loaded: dict[str, tuple[_Shard, dict[str, np.ndarray]]] = {}
        self._remove_stale_tmp()

    # ------------------------------------------------------------ writing
    def add(self, records: list[GameRecord], generation: int, worker: str = "local") -> Path:
        """Write the positions of ``records`` as one new shard and return its
        path. ValueError (naming each record and its problems) when a record
        is bad, sizes or plane sets are mixed, or there is no position."""
        if not isinstance(generation, (int, np.integer)) or generation < 0:
            raise ValueError(f"generation must be a non-negative integer, not {generation!r}")
        problems = [f"{r.name or f'record {i}'}: {p}"
                    for i, r in enumerate(records) for p in r.problems()]
        if not problems and len({(r.size, r.plane_set) for r in records}) > 1:
            problems.append("records of different board sizes or plane sets")
        if not problems and not sum(len(r) for r in records):
            problems.append("no positions to store")
        if problems:
            raise ValueError("cannot store these games: " + "; ".join(problems))
        parts = [_position_arrays(r, g) for g, r in enumerate(records)]
        arrays = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
        first = records[0]
        packed, plane_count = BINARY_PLANES[first.plane_set], PLANE_SETS[first.plane_set]
        if packed != plane_count:
            arrays["packed_planes"] = np.int32(packed)
        arrays.update(
            version=np.int32(SHARD_VERSION if packed != plane_count else 1),
            size=np.int32(first.size), plane_count=np.int32(plane_count),
            plane_set=np.array(first.plane_set), generation=np.int32(generation),
            names=np.array([r.name for r in records], dtype=str),
            komi=np.array([r.komi for r in records], np.float32),
            winner=np.array([r.winner for r in records], np.int8),
            final_score=np.array([r.score for r in records], np.float32),
            resigned=np.array([r.resigned for r in records], bool))
        path = self.folder / shard_name(int(generation), worker)
        write_shard(path, arrays)
        return path

    def prune(self, keep_factor: float = 2) -> list[Path]:
        """Delete the shards of each board size entirely older than its
        newest ``window * keep_factor`` positions (``keep_factor`` below 1
        counts as 1: the window is never deleted); the deleted paths, oldest first."""
        keep = self.window * max(float(keep_factor), 1.0)
        removed = []
        for size in sorted({s.size for s in self._scan()}):
            newer = 0
            for shard in reversed(self._scan(size)):
                if newer >= keep:
                    shard.path.unlink(missing_ok=True)
                    self._loaded.pop(shard.path.name, None)
                    removed.append(shard.path)
                newer += shard.positions
        return sorted(removed)

    # ------------------------------------------------------------ reading
    def shards(self, generation: Optional[int] = None) -> list[Path]:
        """The readable shards (of one generation, or all), oldest first."""
        return [s.path for s in self._scan() if generation is None or s.generation == generation]

    def positions(self, size: Optional[int] = None, generation: Optional[int] = None) -> int:
        """Positions stored (of one board size and generation, or all)."""
        return sum(s.positions for s in self._scan(size)
                   if generation is None or s.generation == generation)

    def games(self, size: Optional[int] = None, generation: Optional[int] = None) -> int:
        """Games stored (of one board size and generation, or all): a
        resumed run counts what it has already played."""
        return sum(s.games for s in self._scan(size)
                   if generation is None or s.generation == generation)

    def generations(self) -> list[int]:
        """The generations that have shards, ascending."""
        return sorted({s.generation for s in self._scan()})

    def window_shards(self, size: Optional[int] = None) -> list[Path]:
        """The newest shards (of one board size, or all) covering at least
        ``window`` positions, oldest first."""
        return [s.path for s in self._window(self._scan(size))]

    def sample(self, n: int, rng: np.random.Generator, size: int = 9,
               symmetries: bool = True) -> dict[str, np.ndarray]:
        """``n`` positions drawn uniformly from the window of ``size``, each
        under a random one of the 8 board symmetries (with ``symmetries``):
        float32 ``planes`` (n, size, size, P; a komi plane rebuilt from the
        game's komi and the mover), ``policy`` (n, size*size+1),
        ``policy_weight`` (1 on full-search rows), ``value``, ``ownership``
        (n, size*size), ``score`` (the mover's final lead in points, komi
        included), ``score_weight`` (0 in resigned games), ``searched``, all
        from the mover's view, ``komi`` (the game's; NaN where an old shard
        lacks it) and ``moves`` (the move played, turned). ValueError
        without data."""
        window = self._window_arrays(size)
        if not window:
            raise ValueError(f"no {size}x{size} positions in {self.folder}")
        kinds = {(s.plane_set, s.plane_count) for s, _ in window}
        if len(kinds) > 1:
            raise ValueError(f"the {size}x{size} window of {self.folder} mixes plane sets "
                             f"{', '.join(sorted(k[0] for k in kinds))}")
        counts = np.array([s.positions for s, _ in window])
        ends = np.cumsum(counts)
        picks = rng.integers(0, ends[-1], size=n)
        which = np.searchsorted(ends, picks, side="right")
        rows = picks - (ends - counts)[which]
        keys = SAMPLED + DERIVED
        batch = {k: np.empty((n,) + window[0][1][k].shape[1:], window[0][1][k].dtype)
                 for k in keys}
        for i in np.unique(which):
            chosen = which == i
            for k in keys:
                batch[k][chosen] = window[i][1][k][rows[chosen]]
        area, plane_count = size * size, window[0][0].plane_count
        packed = window[0][0].packed
        gather, move_map = symmetry_tables(size)
        syms = rng.integers(0, 8, size=n) if symmetries else np.zeros(n, np.intp)
        idx = gather[syms]
        bits = np.unpackbits(batch["planes"], axis=1, count=area * packed)
        planes = np.take_along_axis(bits.reshape(n, area, packed), idx[:, :, None], axis=1)
        planes = planes.reshape(n, size, size, packed)
        if packed < plane_count:  # the komi plane, the same on every point
            planes = with_komi_plane(planes, batch["komi"], batch["to_move"])
        policy = batch["policy"].astype(np.float32)
        policy[:, :area] = np.take_along_axis(policy[:, :area], idx, axis=1)
        totals = policy.sum(axis=1, keepdims=True)
        np.divide(policy, totals, out=policy, where=totals > 0)
        ownership = np.take_along_axis(batch["ownership"], idx, axis=1)
        return {"planes": planes.astype(np.float32),
                "policy": policy,
                "policy_weight": batch["full"].astype(np.float32),
                "value": batch["value"].astype(np.float32),
                "ownership": ownership.astype(np.float32),
                "score": batch["score"].astype(np.float32),
                "score_weight": batch["score_weight"],
                "komi": batch["komi"],
                "searched": batch["searched"].astype(np.float32),
                "moves": move_map[syms, batch["moves"].astype(np.intp)]}

    # ------------------------------------------------------------ internals
    def _remove_stale_tmp(self) -> None:
        now = time.time()
        for tmp in [*self.folder.glob(".shard-*.tmp"), *self.folder.glob("*.tmp.npz")]:
            try:
                if now - tmp.stat().st_mtime > STALE_TMP_SECONDS:
                    tmp.unlink()
                    log.warning("removed %s: a partial shard left by a writer that stopped", tmp)
            except OSError:
                continue

    def _skip(self, path: Path, reason: object) -> None:
        self._bad.add(path.name)
        self._loaded.pop(path.name, None)
        log.warning("skipping replay shard %s: %s", path, reason)

    def _scan(self, size: Optional[int] = None) -> list[_Shard]:
        names = sorted(p.name for p in self.folder.glob("shard-*.npz")
                       if not p.name.endswith(".tmp.npz"))
        present = set(names)
        for gone in [k for k in self._info if k not in present]:
            del self._info[gone]
            self._loaded.pop(gone, None)
        out = []
        for name in names:
            if name in self._bad:
                continue
            shard = self._info.get(name) or self._read_info(self.folder / name)
            if shard is not None and (size is None or shard.size == size):
                out.append(shard)
        return out

    def _read_info(self, path: Path) -> Optional[_Shard]:
        try:
            with np.load(path, allow_pickle=False) as z:
                missing = [k for k in REQUIRED if k not in z.files]
                if missing:
                    raise KeyError(f"no {', '.join(missing)} array")
                version = int(z["version"])
                if version > SHARD_VERSION:
                    raise ValueError(f"written by a newer imago (shard version {version})")
                games = z["names"].shape[0] if "names" in z.files else 0
                plane_count = int(z["plane_count"])
                packed = int(z["packed_planes"]) if "packed_planes" in z.files else plane_count
                if not 0 < packed <= plane_count or plane_count - packed > 1:
                    raise ValueError(f"{packed} packed planes of {plane_count}")
                shard = _Shard(path, int(z["size"]), plane_count,
                               str(z["plane_set"]), int(z["generation"]),
                               int(z["game"].shape[0]), int(games), packed)
        except FileNotFoundError:
            self._bad.add(path.name)
            return None
        except Exception as err:  # noqa: BLE001 - any unreadable shard is skipped, by name
            self._skip(path, err)
            return None
        self._info[path.name] = shard
        return shard

    def _window(self, shards: list[_Shard]) -> list[_Shard]:
        start, total = len(shards), 0
        while start > 0 and total < self.window:
            start -= 1
            total += shards[start].positions
        return shards[start:]

    def _load(self, shard: _Shard) -> Optional[dict[str, np.ndarray]]:
        n, area = shard.positions, shard.size ** 2
        width = (area * shard.packed + 7) // 8
        shapes = {"planes": (n, width), "policy": (n, area + 1), "ownership": (n, area)}
        try:
            with np.load(shard.path, allow_pickle=False) as z:
                arrays = {k: z[k] for k in SAMPLED}
                games = {k: z[k] for k in ("game", "to_move", "komi", "resigned")
                         if k in z.files}
            for k, a in arrays.items():
                if a.shape != shapes.get(k, (n,)):
                    raise ValueError(f"{k} has shape {a.shape}, not {shapes.get(k, (n,))}")
            arrays.update(_derived(shard, games))
        except FileNotFoundError:
            self._bad.add(shard.path.name)
            return None
        except Exception as err:  # noqa: BLE001 - any unreadable shard is skipped, by name
            self._skip(shard.path, err)
            return None
        return arrays

    def _window_arrays(self, size: int) -> list[tuple[_Shard, dict[str, np.ndarray]]]:
        while True:
            window = self._window(self._scan(size))
            for shard in window:
                name = shard.path.name
                if name not in self._loaded:
                    arrays = self._load(shard)
                    if arrays is None:
                        break
                    self._loaded[name] = (shard, arrays)
            else:
                break
        names = {s.path.name for s in window}
        for name in [k for k, (s, _) in self._loaded.items() if s.size == size
                     and k not in names]:
            del self._loaded[name]
        return [self._loaded[s.path.name] for s in window]


def _derived(shard: _Shard, games: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Each position's komi, mover and score weight (0 in a resigned game)
    from a shard's game arrays; a shard that lacks ``komi`` or ``to_move``
    while its komi plane needs them cannot be read."""
    n, game = shard.positions, games["game"].astype(np.intp)
    if game.shape != (n,) or (n and (game.min() < 0)):
        raise ValueError(f"game has shape {game.shape} or negative numbers")
    needed = shard.packed < shard.plane_count
    out = {}
    for key, default in (("komi", np.nan), ("resigned", False)):
        per_game = games.get(key)
        if per_game is None or (n and game.max() >= len(per_game)):
            if needed and key == "komi":
                raise ValueError("no komi for each game, which the komi plane needs")
            out[key] = np.full(n, default)
        else:
            out[key] = per_game[game]
    to_move = games.get("to_move")
    if to_move is None or to_move.shape != (n,):
        if needed:
            raise ValueError("no to_move for each position, which the komi plane needs")
        to_move = np.zeros(n, np.int8)
    return {"komi": out["komi"].astype(np.float32), "to_move": to_move.astype(np.int8),
            "score_weight": (~out["resigned"].astype(bool)).astype(np.float32)}


__all__ = ["GameRecord", "ReplayBuffer", "shard_name", "SHARD_VERSION", "outcome_targets",
           "write_record", "write_shard"]
