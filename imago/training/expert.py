"""Expert games mixed into the self-play loop's training.

The loop trains each candidate on its own newest games. Started from a
network learned from a strong engine's games (the shipped 9x9 network: KataGo
at 100 visits, ``../shared/data/katago9``), it drifts from what those games
taught: rl9b's second generation beat its start 66% of 200 games and not the
anchors at all (23 of 100 against 22 of 100). ``--mix FOLDER`` keeps a share
of every training batch (``--mix-share``) on such games, so that a candidate
learns from its own searches without forgetting them (two candidates so
trained won 73 of 250 games against ``katago-gtp 1``, the unmixed networks
57 of 250; see the README).

:func:`import_games` writes the games of SGF files as replay shards (a
folder a :class:`~imago.training.replay.ReplayBuffer` reads): per position
the move played as a one-hot policy target (a "full search"), the outcome as
both the value and the searched value, the final ownership (dead stones from
the record's markup, or GNU Go's ``final_status_list dead`` when given; in a
resigned game imago's count of its last position, as self-play keeps for a
game a side resigned) and Black's lead from ``RE``. The random opening moves ``index.tsv`` lists are
skipped; games of another size or without a result are counted and left
out, unreadable files named, and so are the games the supervised training
holds out for validation (the same split by game,
:func:`~imago.training.data.is_validation_game`), so that held-out figures
stay held out. A ``done.json`` written last says what
the folder holds; a folder without it (an import killed half-way) is
imported again from the start.

A network that plays every size forgets the big boards when it learns 9x9
from 9x9 games alone (rl9e: its 19x19 value error rose from 0.966 to 1.047
and it lost strength on 19x19). :func:`other_size_games` gives the trainer
the ``--mix`` games of the network's other sizes, one buffer a size, for
whole batches of those sizes (:class:`~imago.training.rl_trainer.RLTrainConfig`'s
``other_sizes_share``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Callable, Collection, Iterable, Optional, Sequence

import numpy as np

from imago.game import BLACK, GameState
from imago.sgf import find_sgf_files

from .data import GnuGoDead, default_cache_dir, game_samples, named_games, is_validation_game
from .data import (counted_ownership, komi_unknown, named_error, parse_result, readable_files,
                   write_json)
from .replay import GameRecord, ReplayBuffer
from .selfplay_run import progress_bar
from .stream import binary_plane_set, result_lead

DONE = "done.json"
"""Written last into an imported folder: its sources, plane set and counts."""
VERSION = 3
"""How records are made, kept in :data:`DONE`: a folder imported another way
is imported again (2: a resigned game's ownership is imago's count of its
last position, no longer the stones as they stand; 3: records of unknown
komi are left out, and a counted record's dead stones are taken off by
imago's count where the stones as they stand miss its result)."""
GAMES_PER_SHARD = 200
VALIDATION = 0.1
"""The share of games held out by the supervised training (``train.py
--validation``'s default, with which the shipped networks were trained)."""


def expert_record(state: GameState, plane_set: str, skip: int = 0, name: str = "",
                  path: Optional[Path] = None, gnugo: Optional[GnuGoDead] = None
                  ) -> Optional[GameRecord]:
    """The replay record of one finished game (its main line from move
    ``skip + 1``), or None when it has no result, leaves its komi unsaid
    (:func:`~.data.komi_unknown`: a record's outcome is its value target)
    or has no move to learn."""
    result = (state.root.properties.get("RE") or [None])[0]
    winner = parse_result(result)
    if winner is None or komi_unknown(state):
        return None
    arrays = game_samples(state, binary_plane_set(plane_set), skip, path, gnugo)
    n = len(arrays["moves"])
    if not n:
        return None
    size = state.size
    area = size * size
    colors = np.array([node.color for node in state.root.main_line() if node.is_move][skip:],
                      np.int8)
    policy = np.zeros((n, area + 1), np.float32)
    policy[np.arange(n), arrays["moves"]] = 1.0
    lead = result_lead(result)
    if not arrays["own_mask"][0]:  # resigned or unsettled: the count's view of the last position
        own_black = counted_ownership(state)
    else:
        own_black = arrays["ownership"][0] * (1 if colors[0] == BLACK else -1)
    return GameRecord(
        size=size, komi=float(state.game_komi), planes=arrays["planes"], to_move=colors,
        moves=arrays["moves"], policy=policy, full=np.ones(n, bool),
        searched=arrays["values"], winner=winner,
        score=float(lead) if lead is not None else 0.0,
        ownership=own_black.astype(np.int8), resigned=lead is None,
        plane_set=plane_set, name=name)


def import_games(inputs: Iterable[str], folder: Path, plane_set: str, size: int,
                 gnugo: Optional[GnuGoDead] = None, validation: float = VALIDATION,
                 log: Callable[[str], Any] = print, progress: bool = False,
                 required: bool = True) -> dict[str, Any]:
    """Write the ``size`` x ``size`` games of the SGF files and folders
    ``inputs`` as replay shards in ``folder`` (see the module docstring)
    and return what :data:`DONE` records, with a progress bar of the files
    on a terminal when ``progress``. A folder already imported from
    the same sources with the same planes is kept as it is; otherwise its
    shards are replaced (other files in it are left alone). ValueError when
    no game of the size is found and ``required``; otherwise that import is
    recorded too (``games`` 0), so the sources are not read again for it."""
    return import_sizes(inputs, {size: Path(folder)}, plane_set, gnugo, validation, log,
                        progress, required={size} if required else set())[size]


class _SizeImport:
    """One size's part of :func:`import_sizes`: its folder, buffer and counts."""

    def __init__(self, folder: Path):
        (folder / DONE).unlink(missing_ok=True)  # first: a kill below leaves no false record
        for stale in folder.glob("shard-*.npz"):  # of another import, or one that did not finish
            stale.unlink()
        self.folder = folder
        self.buffer = expert_buffer(folder)
        self.kept: list = []
        self.counts = {"games": 0, "positions": 0, "held_out": 0, "other_size": 0,
                       "no_result": 0}

    def add(self, record) -> None:
        self.kept.append(record)
        self.counts["games"] += 1
        self.counts["positions"] += len(record)
        if len(self.kept) >= GAMES_PER_SHARD:
            self.flush()

    def flush(self) -> None:
        if self.kept:
            self.buffer.add(self.kept, generation=0, worker="expert")
            self.kept.clear()

    def finish(self, about: dict[str, Any], log: Callable[[str], Any]) -> dict[str, Any]:
        """Write :data:`DONE` (``about`` the import, with the counts) last,
        say what the folder holds, and return the record."""
        done, counts, size = {**about, **self.counts}, self.counts, about["size"]
        write_json(self.folder / DONE, done)
        log(f"expert games: {counts['games']} {size}x{size} games, {counts['positions']} "
            f"positions in {self.folder} ({counts['held_out']} held out for validation, "
            f"{counts['other_size']} of other sizes, {counts['no_result']} without a result)")
        return done


def import_sizes(inputs: Iterable[str], folders: dict[int, Path], plane_set: str,
                 gnugo: Optional[GnuGoDead] = None, validation: float = VALIDATION,
                 log: Callable[[str], Any] = print, progress: bool = False,
                 required: Collection[int] = ()) -> dict[int, dict[str, Any]]:
    """:func:`import_games` for several board sizes at once, each into its
    own folder (``folders``: size -> folder), reading the sources once for
    all of them: a network that plays every size mixes in the games of
    each, and a folder of 19x19 records parsed once per size cost minutes.
    Returns each size's :data:`DONE` record; ValueError when a size in
    ``required`` has no game, read now (then not recorded) or before."""
    inputs = list(inputs)
    sources = sorted(str(Path(i).resolve()) for i in inputs)
    results, todo = {}, {}
    for size, folder in folders.items():
        folder = Path(folder)
        done = imported(folder)
        if done is not None and done["sources"] == sources and done["plane_set"] == plane_set \
                and done["size"] == size and done.get("version") == VERSION:
            results[size] = done
        else:
            log(f"expert games: importing {', '.join(sources)} ({size}x{size}) into {folder}")
            todo[size] = _SizeImport(folder)
    if todo:
        problems = _read_sizes(inputs, todo, plane_set, gnugo, validation, progress)
        for problem in problems:
            log(f"expert games: skipped {problem}")
        for size, part in sorted(todo.items()):
            if part.counts["games"] or size not in required:  # else not recorded: raised below
                about = {"sources": sources, "plane_set": plane_set, "size": size,
                         "version": VERSION,
                         "dead": "gnugo" if gnugo is not None else "markup",
                         "unreadable": len(problems)}
                results[size] = part.finish(about, log)
    missing = [size for size in sorted(required) if not results.get(size, {}).get("games")]
    if missing:  # read now or before
        sizes = ", ".join(f"{size}x{size}" for size in missing)
        raise ValueError(f"no finished {sizes} game with a result to learn from in "
                         f"{', '.join(sources)}")
    return results


def _read_sizes(inputs: list, todo: dict[int, _SizeImport], plane_set: str,
                gnugo: Optional[GnuGoDead], validation: float, progress: bool) -> list[str]:
    """:func:`import_sizes`'s reading of the sources: each game of a size
    in ``todo`` counted and written there; returns the problems met
    (files and games skipped, named)."""
    files, problems = find_sgf_files(inputs)
    files = readable_files(files, problems)
    bar = progress_bar(len(files), 0, progress, "expert games", "file")
    try:
        last = None
        for path, name, state, opening in named_games(files, problems):
            if path != last:  # a file's games come together
                last = path
                bar.update(1)
            for other_size, part in todo.items():
                if other_size != state.size:
                    part.counts["other_size"] += 1
            part = todo.get(state.size)
            if part is None:
                continue
            if is_validation_game(name, validation):
                part.counts["held_out"] += 1
                continue
            try:
                record = expert_record(state, plane_set, opening, name, path, gnugo)
            except Exception as err:  # noqa: BLE001 - as build_shard: the game is skipped, named
                problems.append(named_error(err, path, name))
                continue
            if record is None:
                part.counts["no_result"] += 1
                continue
            wrong = record.problems()
            if wrong:  # a shard refuses the whole batch: skip the game, named
                problems.append(f"{name}: {'; '.join(wrong)}")
                continue
            part.add(record)
        for part in todo.values():
            part.flush()
    finally:
        bar.close()
    return problems


def imported(folder: Path) -> Optional[dict[str, Any]]:
    """What an import into ``folder`` finished with, or None (none, or
    killed before the end)."""
    try:
        return json.loads((Path(folder) / DONE).read_text())
    except (OSError, ValueError):
        return None


def expert_buffer(folder: Path) -> ReplayBuffer:
    """The replay buffer of an imported folder, every position in its window."""
    return ReplayBuffer(Path(folder), window=10 ** 9)


def expert_games(inputs: Iterable[str], plane_set: str, size: int,
                 cache_dir: Optional[Path] = None,
                 log: Callable[[str], Any] = print, progress: bool = False,
                 required: bool = True) -> Optional[ReplayBuffer]:
    """The expert games of ``inputs`` as a replay buffer, imported once
    into the cache (``$IMAGO_CACHE`` or ``~/.cache/imago``, under
    ``expert/``; a folder per sources, planes and size) and read from there
    afterwards. When they hold no game to learn from: ValueError, or None
    when not ``required``."""
    return expert_games_by_size(inputs, plane_set, [size], cache_dir, log, progress,
                                required={size} if required else set())[size]


def expert_games_by_size(inputs: Iterable[str], plane_set: str, sizes: Sequence[int],
                         cache_dir: Optional[Path] = None,
                         log: Callable[[str], Any] = print, progress: bool = False,
                         required: Collection[int] = ()) -> dict[int, Optional[ReplayBuffer]]:
    """:func:`expert_games` of each of ``sizes`` (None for a size without
    games, ValueError for such a size in ``required``); the sizes not in
    the cache yet are imported together, in one reading of the sources."""
    cache_dir = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    sources = sorted(str(Path(i).resolve()) for i in inputs)
    folders = {}
    for size in sizes:
        key = hashlib.sha1(json.dumps([sources, plane_set, size]).encode()).hexdigest()[:16]
        folders[size] = cache_dir / "expert" / key
    done = import_sizes(sources, folders, plane_set, gnugo_dead_stones(cache_dir), log=log,
                        progress=progress, required=required)
    return {size: expert_buffer(folder) if done[size]["games"] else None
            for size, folder in folders.items()}


def mixed_games(inputs: Sequence[str], model: Path, size: int,
                log: Callable[[str], Any] = print,
                progress: bool = False) -> Optional[ReplayBuffer]:
    """:func:`expert_games` of ``inputs`` in the planes ``model`` takes
    (the trainer's ``mix``), or None without inputs."""
    return training_mix(inputs, model, size, False, log=log, progress=progress)[0]


def _other_sizes(meta: dict, size: int) -> list[int]:
    """The board sizes but ``size`` that a network (its metadata ``meta``)
    was made for, when it plays any size; else none."""
    if not meta.get("any_size"):
        return []
    return sorted(set(meta.get("board_sizes") or []) - {size})


def other_size_games(inputs: Sequence[str], model: Path, size: int,
                     log: Callable[[str], Any] = print,
                     progress: bool = False) -> dict[int, ReplayBuffer]:
    """The expert games of ``inputs`` of each size ``model`` was made for
    but ``size`` (its ``board_sizes``, when it plays any size), one replay
    buffer a size that has games: what keeps an any-size network's other
    sizes while a run teaches it ``size``. Empty without inputs or for a
    network of one size."""
    if not inputs:
        return {}
    from imago.nn.modelfile import read_metadata

    meta = read_metadata(model)
    buffers = expert_games_by_size(inputs, meta["plane_set"], _other_sizes(meta, size),
                                   log=log, progress=progress)
    return {other: buffer for other, buffer in buffers.items() if buffer is not None}


def training_mix(inputs: Sequence[str], model: Path, size: int, other_sizes: bool,
                 log: Callable[[str], Any] = print, progress: bool = False
                 ) -> tuple[Optional[ReplayBuffer], dict[int, ReplayBuffer]]:
    """What a candidate trains on beside its window: the ``size`` games of
    ``inputs`` (:func:`mixed_games`) and, when ``other_sizes``, those of
    the network's other sizes (:func:`other_size_games`), all imported in
    one reading of ``inputs``. (None, {}) without inputs."""
    if not inputs:
        return None, {}
    from imago.nn.modelfile import read_metadata

    meta = read_metadata(model)
    others = _other_sizes(meta, size) if other_sizes else []
    buffers = expert_games_by_size(inputs, meta["plane_set"], [size, *others], log=log,
                                   progress=progress, required={size})
    mix = buffers.pop(size)
    return mix, {other: buffer for other, buffer in buffers.items() if buffer is not None}


MIX_GNUGO_SECONDS = 30.0
"""How long GNU Go may take over a record's dead stones in a ``--mix``
import: some 19x19 endings (2 of 8 counted ``ai19`` games tried) take it
one to several minutes, and such a record is worth less to the mix than
the wait (it is skipped, named, and remembered as such)."""


def gnugo_dead_stones(cache_dir: Path) -> Optional[GnuGoDead]:
    """GNU Go to find the dead stones of records without markup, or None
    when it is not installed (then stones left on the board count alive)."""
    try:
        return GnuGoDead(cache_dir, timeout=MIX_GNUGO_SECONDS)
    except FileNotFoundError:
        return None


__all__ = ["expert_record", "import_games", "import_sizes", "imported", "expert_buffer",
           "expert_games", "expert_games_by_size", "mixed_games", "other_size_games",
           "training_mix", "gnugo_dead_stones", "DONE", "VALIDATION"]
