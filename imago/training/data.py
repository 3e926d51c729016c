"""Training data: SGF inputs -> samples -> cached ``.npz`` shards -> arrays.

A sample is one move of a game record: the planes of the position before
it (from the mover's side), the move played (flat index, pass =
``size*size``), the game's outcome from the mover's side (+1 win, -1 loss,
0 draw; weight 0 when the record has no result) and the final ownership
from the mover's side (+1 own, -1 opponent's, 0 neutral).

- Random opening moves listed in an ``index.tsv`` beside the SGF files
  (column ``random_opening_moves``) are not used as samples (they are still
  played); without an index nothing is skipped.
- A record that leaves its komi unsaid (no ``KM``, or ``KM[0]``, in an even
  game of 13x13 or more: :func:`komi_unknown`) teaches no value: its winner
  is known, not at which komi (collections of real games write ``KM[0]``
  where the komi went unrecorded); its moves and ownership are learnt.
- Final ownership: dead stones come from ``TB``/``TW`` markup of the final
  node when present, else from GNU Go's ``final_status_list dead`` when
  asked (``dead="gnugo"``, answers cached on disk), else every stone is
  alive; then :func:`imago.game.area_owners` of the final position.
- Samples are cached as compressed ``.npz`` shards (planes as uint8) in a
  cache directory, one shard per chunk of source files, keyed by the files
  (path, size, mtime), the plane set, the skip counts and the dead-stone
  method; a second run reads the shards instead of the SGF files.
- Training and validation are split by game (a stable hash of the file
  name), never by position.
- A file that cannot be read or is not SGF, and a game of another size or
  without moves to learn from, is named in :attr:`DataSet.problems` and
  skipped; the others are used.

Numpy only: TensorFlow is not imported here.
"""

from __future__ import annotations

import csv
import hashlib
import json
import logging
import math
import os
import shutil
import signal
import stat
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Optional

import numpy as np

from imago.fileio import replacing
from imago.game import BLACK, WHITE, Count, GameState, area_owners, count, parse_vertex, to_index
from imago.nn.features import DEFAULT_KOMI, board_index, encode_into, num_planes, point_to_move
from imago.sgf import find_sgf_files

from .games import load_games, point_list

log = logging.getLogger("imago.training")

SHARD_VERSION = 3
"""2: records of unknown komi teach no value (:func:`komi_unknown`); 3: a
counted record's dead stones are taken off by imago's count where the
stones as they stand miss its result (:func:`final_ownership`)."""
SHARD_FILES = 128
ARRAYS = ("planes", "moves", "values", "value_mask", "ownership", "own_mask", "game")


def default_cache_dir() -> Path:
    """``$IMAGO_CACHE`` or ``~/.cache/imago``."""
    return Path(os.environ.get("IMAGO_CACHE") or Path.home() / ".cache" / "imago")


def write_json(path: Path, data, indent: Optional[int] = None) -> None:
    """Write ``data`` as JSON to ``path`` atomically and durably (a hidden
    temporary file beside it, flushed to disk, then renamed), making its
    folder if missing: a reader sees the old file or the new, never half."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path) as fh:
        json.dump(data, fh, indent=indent)
        fh.write("\n")


# ------------------------------------------------------------------ inputs
_INDEX_CACHE: dict[Path, dict[str, int]] = {}


def opening_moves_to_skip(path: Path) -> int:
    """``random_opening_moves`` for ``path`` from the ``index.tsv`` beside
    it (0 when there is no index or no row)."""
    index = path.parent / "index.tsv"
    table = _INDEX_CACHE.get(index)
    if table is None:
        table = {}
        if index.is_file():
            with open(index, newline="", encoding="utf-8") as fh:
                for row in csv.DictReader(fh, delimiter="\t"):
                    try:
                        table[row["file"]] = int(row.get("random_opening_moves") or 0)
                    except (KeyError, ValueError):
                        continue
        _INDEX_CACHE[index] = table
    return table.get(path.name, 0)


def named_error(err: Exception, path: Path, name: Optional[str] = None) -> str:
    """A problem line for ``err`` met in ``path`` that names the file once:
    the error as it is when it names it already (SGF errors, GNU Go's),
    else prefixed with ``name`` (the game's) or the path."""
    text = str(err)
    return text if str(path) in text else f"{name or path}: {text}"


def named_games(files: Iterable[Path], problems: list[str]
                ) -> Iterator[tuple[Path, str, GameState, int]]:
    """Each game of ``files`` as ``(path, name, state, opening)``: ``name``
    the stable name the train / held-out split hashes (the file, with
    ``#k`` for the k-th game of a collection), ``opening`` the random
    opening moves to skip (``index.tsv``). Files that cannot be read are
    named in ``problems`` and skipped."""
    for path in files:
        try:
            games = load_games(path)
        except OSError as err:
            problems.append(f"{path}: cannot read it ({err.strerror or err})")
            continue
        except Exception as err:  # noqa: BLE001 - any unreadable file is skipped, by name
            problems.append(named_error(err, path))
            continue
        opening = opening_moves_to_skip(path)
        for k, state in enumerate(games):
            yield path, str(path) if len(games) == 1 else f"{path}#{k}", state, opening


def readable_files(files: Iterable[Path], problems: list[str]) -> list[Path]:
    """The regular, readable files of ``files``; each other one is named in
    ``problems`` (with the reason) and left out. Checked before the shard
    cache is keyed, so a file that cannot be read now is not cached as
    skipped: it is read again once it can be."""
    out = []
    for path in files:
        try:
            if not stat.S_ISREG(path.stat().st_mode):
                problems.append(f"{path}: not a regular file")
                continue
        except OSError as err:
            problems.append(f"{path}: cannot read it ({err.strerror or err})")
            continue
        if not os.access(path, os.R_OK):
            problems.append(f"{path}: cannot read it (permission denied)")
            continue
        out.append(path)
    return out


# ------------------------------------------------------------------ one game
def parse_result(result: Optional[str]) -> Optional[int]:
    """Winner of an SGF ``RE`` value: BLACK, WHITE, 0 for a draw, None when
    unknown (missing, ``?``, ``Void``)."""
    if not result:
        return None
    text = result.strip().upper()
    if text.startswith("B+"):
        return BLACK
    if text.startswith("W+"):
        return WHITE
    if text in ("0", "DRAW", "JIGO"):
        return 0
    return None


def result_lead(result: Optional[str]) -> Optional[float]:
    """Black's final lead from an ``RE`` value (``B+3.5``: 3.5, ``W+12``:
    -12, ``0``/``Draw``/``Jigo``: 0); None for a resignation, a loss on
    time, a forfeit, no result or anything else, a win by nothing too
    (``B+0.0``, two ai19 records: a winner and a lead that disagree)."""
    if not result:
        return None
    text = result.strip().upper()
    if text in ("0", "DRAW", "JIGO"):
        return 0.0
    if len(text) > 2 and text[0] in "BW" and text[1] == "+":
        try:
            lead = float(text[2:])
        except ValueError:
            return None
        if not lead > 0:  # B+0, W+0.0, W+nan
            return None
        return lead if text[0] == "B" else -lead
    return None


def counted(state: GameState) -> bool:
    """Whether the game's ``RE`` gives a score: it was played out and counted."""
    return result_lead((state.root.properties.get("RE") or [None])[0]) is not None


WALL_PER_CPU = 10
"""A GNU Go limited to N seconds of CPU time is stopped after 10 N seconds
of wall-clock time all the same (a machine too busy to give it its time:
not remembered as a failure)."""


def _cpu_limited(command: list[str], seconds: float) -> Optional[list[str]]:
    """``command`` run with at most ``seconds`` of CPU time (SIGXCPU then),
    through the shell's ``ulimit -t``; None where there is no POSIX shell."""
    if os.name != "posix" or not os.path.exists("/bin/sh"):
        return None
    cpu = max(1, math.ceil(seconds))
    return ["/bin/sh", "-c", f'ulimit -S -t {cpu} && exec "$0" "$@"', *command]


class GnuGoDead:
    """Dead stones of a record's final position by GNU Go
    (``loadsgf`` + ``final_status_list dead``), cached on disk by file
    content so each record is asked once: a record GNU Go could not judge
    (no answer, or none within ``timeout`` seconds of its own CPU time, so
    that a busy machine does not fail it: some 19x19 endings take it
    minutes) is cached as such, and raises ValueError again at once (delete
    its file under ``gnugo-dead/`` to ask again)."""

    def __init__(self, cache_dir: Path, binary: Optional[str] = None, timeout: float = 120.0):
        self.binary = binary or shutil.which("gnugo") or "/usr/games/gnugo"
        if not os.path.exists(self.binary):
            raise FileNotFoundError("GNU Go is not installed (needed for --gnugo-dead)")
        self.dir = Path(cache_dir) / "gnugo-dead"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.timeout = timeout

    def __call__(self, path: Path, size: int) -> list[int]:
        digest = hashlib.sha1(path.read_bytes()).hexdigest()
        cached = self.dir / f"{digest}.json"
        if cached.exists():
            answer = json.loads(cached.read_text())
            if isinstance(answer, dict):  # GNU Go failed on it before
                raise ValueError(f"{path}: {answer.get('error')} (remembered in {cached})")
            vertices = answer
        else:
            vertices = self._ask(path, cached)
        out_points = []
        for v in vertices:
            cr = parse_vertex(v, size)
            if cr is not None:
                out_points.append(to_index(cr[0], cr[1], size))
        return out_points

    def _ask(self, path: Path, cached: Path) -> list[str]:
        """GNU Go's dead stones of ``path`` as vertices, written to
        ``cached``; a failure is written there too, then raised."""
        gtp = f"loadsgf {path.resolve()}\nfinal_status_list dead\nquit\n"
        command = [self.binary, "--mode", "gtp", "--chinese-rules"]
        limited = _cpu_limited(command, self.timeout)
        limit = limited is not None
        try:
            done = subprocess.run(limited or command, input=gtp, capture_output=True, text=True,
                                  timeout=self.timeout * (WALL_PER_CPU if limit else 1))
        except subprocess.TimeoutExpired:
            if limit:  # its CPU time was not up: a busy machine, worth another try later
                raise ValueError(f"{path}: GNU Go found no dead stones within "
                                 f"{self.timeout * WALL_PER_CPU:g} s on a busy machine") from None
            done = None
        answers = [a.strip() for a in done.stdout.split("\n\n") if a.strip()] if done else []
        if done is None or (limit and done.returncode == -signal.SIGXCPU):
            failure = f"GNU Go found no dead stones within {self.timeout:g} s of its time"
        elif len(answers) >= 2 and answers[1].startswith("="):
            failure = None
        else:
            failure = f"GNU Go could not score it: {answers[:2]}"
        if failure is not None:
            write_json(cached, {"error": failure})
            raise ValueError(f"{path}: {failure}")
        vertices = answers[1][1:].split()
        write_json(cached, vertices)
        return vertices


def final_ownership(state: GameState, path: Optional[Path] = None,
                    gnugo: Optional[GnuGoDead] = None) -> tuple[np.ndarray, str]:
    """Final ownership from Black's side (+1 Black, -1 White, 0 neutral) as
    a flat ``(size*size,)`` int8 array, and how dead stones were found:
    ``markup`` (``TB``/``TW``), ``gnugo`` (GNU Go's ``final_status_list
    dead``, asked only about a counted game: the last position of a
    resigned game is unfinished, no final ownership to learn, and GNU Go
    can take minutes on one), ``none`` (the stones as they stand: a
    resigned game, or a counted one whose stones count out to its result),
    ``count`` (imago's count of the last position, where the stones as they
    stand miss a counted result and the count gives it) or ``unsettled``
    (neither gives the result: the stones as they stand, not a final
    ownership to learn). Records of real games end with dead stones on the
    board and no markup: as they stand, dead stones make the area around
    them nobody's (in ai19's and gnugo9's counted games, 62 and 18 points
    of a game on average; 5 and 0 with GNU Go's verdict)."""
    line = list(state.root.main_line())
    last = line[-1]
    board = last.board
    size = board.size
    props = last.properties
    if "TB" not in props and "TW" not in props:
        props = state.root.properties
    dead: list[int] = []
    how = "none"
    if "TB" in props or "TW" in props:
        how = "markup"
        cells = board.cells
        for p in point_list(props.get("TB", []), size):
            if cells[p] == WHITE:
                dead.append(p)
        for p in point_list(props.get("TW", []), size):
            if cells[p] == BLACK:
                dead.append(p)
    elif gnugo is not None and path is not None and counted(state):
        dead = gnugo(path, size)
        how = "gnugo"
    owners = np.array(area_owners(board, dead), dtype=np.int8)[board_index(size)]
    own = np.zeros(size * size, dtype=np.int8)
    own[owners == BLACK] = 1
    own[owners == WHITE] = -1
    if how == "none" and counted(state) and not counts_out(own, state):
        judged = counted_ownership(state)
        if counts_out(judged, state):
            return judged, "count"
        how = "unsettled"
    return own, how


RESULT_TOLERANCE = 2.0
"""Points by which an area count may miss a record's result and still be
its count: a dame, territory against area counting."""


def counts_out(own_black: np.ndarray, state: GameState) -> bool:
    """Whether final ownership ``own_black`` (from Black's side) counts out
    to the record's numeric result by area, to within
    :data:`RESULT_TOLERANCE` (a komi left unsaid taken as the usual one)."""
    lead = result_lead((state.root.properties.get("RE") or [None])[0])
    komi = DEFAULT_KOMI if komi_unknown(state) else state.game_komi
    return lead is not None and abs(float(own_black.sum()) - komi - lead) <= RESULT_TOLERANCE


def ownership_known(state: GameState, how: str) -> bool:
    """Whether a record's final ownership found ``how``
    (:func:`final_ownership`) is one to learn: marked, or a count of a
    counted game that gives its result."""
    return how == "markup" or (counted(state) and how != "unsettled")


def owners_from_black(judged: Count, size: int) -> np.ndarray:
    """A count's owners as a flat ``(size*size,)`` int8 array from Black's
    side (+1 Black, -1 White, 0 neutral)."""
    owners = np.asarray(judged.owners)[board_index(size)]
    return np.where(owners == BLACK, 1, np.where(owners == WHITE, -1, 0)).astype(np.int8)


def counted_ownership(state: GameState) -> np.ndarray:
    """Black's ownership of the last position of ``state``'s main line by
    imago's count (dead stones by random playouts), as self-play judges a
    game a side resigned: :func:`owners_from_black`."""
    last = list(state.root.main_line())[-1]
    to_move = WHITE if last.color == BLACK else BLACK
    return owners_from_black(count(last.board, state.rules, to_move), state.size)


UNSAID_KOMI_MIN_SIZE = 13
"""From this board size on, an even game is never played without komi."""


def komi_unknown(state: GameState) -> bool:
    """Whether a record leaves its komi unsaid: no ``KM``, or ``KM[0]``, in
    an even game (no handicap, no setup stones) on a board of
    :data:`UNSAID_KOMI_MIN_SIZE` or more, where modern even games always
    have komi. Collections of real games write ``KM[0]`` where the komi was
    not recorded: of the 62 counted even ``KM[0]`` games of ``ai19``, 60
    count out with 7.5 to within 2 points, none with 0. Such a record's
    result says who won, not at which komi, so its value and score are not
    learnt (nor its komi taken as an input: the stream puts
    :data:`~imago.nn.features.DEFAULT_KOMI` in its place)."""
    if state.size < UNSAID_KOMI_MIN_SIZE or state.komi != 0 or state.handicap:
        return False
    first = next((node for node in state.root.main_line() if node.is_move), None)
    return first is None or first.parent.board.is_empty_board()


def game_samples(state: GameState, plane_set: str, skip: int = 0,
                 path: Optional[Path] = None, gnugo: Optional[GnuGoDead] = None
                 ) -> dict[str, np.ndarray]:
    """The samples of one game's main line (see the module docstring)."""
    size = state.size
    planes_n = num_planes(plane_set)
    moves = [n for n in state.root.main_line() if n.is_move]
    winner = parse_result((state.root.properties.get("RE") or [None])[0])
    if komi_unknown(state):
        winner = None
    own_black, how = final_ownership(state, path, gnugo)
    use = moves[skip:]
    n = len(use)
    planes = np.zeros((n, size, size, planes_n), dtype=np.uint8)
    targets = np.empty(n, dtype=np.int16)
    values = np.zeros(n, dtype=np.float32)
    mask = np.zeros(n, dtype=np.uint8)
    ownership = np.empty((n, size * size), dtype=np.int8)
    for i, node in enumerate(use):
        color = node.color
        encode_into(planes[i], node.parent, plane_set, color)
        targets[i] = point_to_move(node.point, size)
        sign = 1 if color == BLACK else -1
        ownership[i] = own_black * sign
        if winner is not None:
            mask[i] = 1
            values[i] = 0.0 if winner == 0 else (1.0 if winner == color else -1.0)
    return {"planes": planes, "moves": targets, "values": values, "value_mask": mask,
            "ownership": ownership,
            "own_mask": np.full(n, ownership_known(state, how), dtype=np.uint8)}


# ------------------------------------------------------------------ shards
def _file_key(path: Path) -> list:
    st = path.stat()
    return [str(path.resolve()), st.st_size, st.st_mtime_ns, opening_moves_to_skip(path)]


def shard_key(files: list[Path], plane_set: str, board_size: int, dead: str) -> str:
    """The cache key of a shard: source files, plane set, size, dead method."""
    blob = json.dumps({"v": SHARD_VERSION, "planes": plane_set, "size": board_size,
                       "dead": dead, "files": [_file_key(f) for f in files]})
    return hashlib.sha1(blob.encode()).hexdigest()[:20]


def build_shard(files: list[Path], plane_set: str, board_size: int,
                gnugo: Optional[GnuGoDead] = None) -> tuple[dict[str, np.ndarray], list[str]]:
    """Samples of a chunk of files; returns ``(arrays, problems)`` where
    each problem names a file that was skipped and why."""
    parts: list[dict[str, np.ndarray]] = []
    problems: list[str] = []
    names: list[str] = []

    def skip(problem: str) -> None:
        problems.append(problem)
        log.info("skipping %s", problem)

    unreadable: list[str] = []
    for path, name, state, opening in named_games(files, unreadable):
        if state.size != board_size:
            skip(f"{name}: {state.size}x{state.size} game, not {board_size}x{board_size}")
            continue
        try:
            arrays = game_samples(state, plane_set, opening, path, gnugo)
        except Exception as err:  # noqa: BLE001 - a game that cannot be encoded is skipped
            skip(f"{name}: {err}")
            continue
        if not len(arrays["moves"]):
            skip(f"{name}: no moves" + (f" after the {opening} opening moves that "
                                        "index.tsv says to skip" if opening else ""))
            continue
        arrays["game"] = np.full(len(arrays["moves"]), len(names), dtype=np.int32)
        names.append(name)
        parts.append(arrays)
    for problem in unreadable:
        skip(problem)
    if parts:
        out = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    else:
        planes = num_planes(plane_set)
        out = {"planes": np.zeros((0, board_size, board_size, planes), np.uint8),
               "moves": np.zeros(0, np.int16), "values": np.zeros(0, np.float32),
               "value_mask": np.zeros(0, np.uint8),
               "ownership": np.zeros((0, board_size * board_size), np.int8),
               "own_mask": np.zeros(0, np.uint8), "game": np.zeros(0, np.int32)}
    out["names"] = np.array(names, dtype=str)
    return out, problems


@dataclass
class Samples:
    """Sample arrays (planes uint8, see the module docstring) plus the name
    of each sample's game."""

    planes: np.ndarray
    moves: np.ndarray
    values: np.ndarray
    value_mask: np.ndarray
    ownership: np.ndarray
    own_mask: np.ndarray
    """1 where the game's final ownership is one to learn (:func:`ownership_known`)."""
    games: np.ndarray  # game name per sample

    def __len__(self) -> int:
        return len(self.moves)

    def subset(self, index: np.ndarray) -> "Samples":
        return Samples(self.planes[index], self.moves[index], self.values[index],
                       self.value_mask[index], self.ownership[index], self.own_mask[index],
                       self.games[index])

    def known_ownership(self) -> np.ndarray:
        """The ownership targets with the rows of games whose final
        ownership is unknown zeroed: every point neutral, none measured."""
        return self.ownership * self.own_mask[:, None].astype(self.ownership.dtype)


@dataclass
class DataSet:
    """Training and validation samples and what went into them."""

    train: Samples
    validation: Samples
    files: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    shards: list[str] = field(default_factory=list)
    shards_built: int = 0


HELDOUT_SHARE = 0.05
"""The share of games held out (split by :func:`is_validation_game`) by the
size-mixed training (``train.py stream``) and every measurement on games it
never saw (``train.py heldout``, ``python -m imago.bench ownership``): one
figure, so that the games they measure are the games it held out."""


def is_validation_game(name: str, fraction: float) -> bool:
    """Stable by-game split: a hash of the file's folder and name."""
    p = Path(name.split("#")[0])
    key = f"{p.parent.name}/{p.name}{name[len(str(p)):]}"
    h = int(hashlib.sha1(key.encode()).hexdigest()[:8], 16)
    return (h % 10000) < fraction * 10000


def folder_chunks(files: list[Path], per_chunk: int) -> list[list[Path]]:
    """``files`` cut into chunks of up to ``per_chunk`` that never mix
    folders, so adding games to one folder rebuilds its last chunk only."""
    chunks: list[list[Path]] = []
    for f in files:
        if chunks and chunks[-1][0].parent == f.parent and len(chunks[-1]) < per_chunk:
            chunks[-1].append(f)
        else:
            chunks.append([f])
    return chunks


def load_shard(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def save_shard(path: Path, arrays: dict[str, np.ndarray]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with replacing(path, binary=True) as fh:
        np.savez_compressed(fh, **arrays)


def load_dataset(inputs: Iterable[str], plane_set: str = "history", board_size: int = 9,
                 cache_dir: Optional[Path] = None, validation: float = 0.1,
                 dead: str = "markup", max_games: Optional[int] = None,
                 progress=None) -> DataSet:
    """Read (or build and cache) the samples of ``inputs`` and split them
    by game. ``dead`` is ``markup`` (TB/TW, else all alive) or ``gnugo``."""
    cache_dir = Path(cache_dir) if cache_dir else default_cache_dir()
    files, problems = find_sgf_files(inputs)
    files = readable_files(files, problems)
    if max_games:
        files = files[:max_games]
    gnugo = GnuGoDead(cache_dir) if dead == "gnugo" else None
    shard_dir = cache_dir / "shards"
    chunks = folder_chunks(files, SHARD_FILES)
    parts, shard_names, built = [], [], 0
    for chunk in chunks:
        key = shard_key(chunk, plane_set, board_size, dead)
        path = shard_dir / f"{plane_set}-{board_size}-{key}.npz"
        problems_path = path.with_suffix(".problems.json")
        fresh = not path.exists()
        if not fresh:
            arrays = load_shard(path)
            if problems_path.exists():
                problems.extend(json.loads(problems_path.read_text()))
        else:
            arrays, chunk_problems = build_shard(chunk, plane_set, board_size, gnugo)
            save_shard(path, arrays)
            write_json(problems_path, chunk_problems)
            problems.extend(chunk_problems)
            built += 1
        if progress:
            progress(f"shard {path.name}: {len(arrays['moves'])} samples"
                     f"{' (built)' if fresh else ' (cached)'}")
        names, game = arrays.pop("names"), arrays.pop("game")
        # a shard without samples has no names to index (a chunk of bad or short games)
        arrays["games"] = names[game] if len(names) else np.zeros(0, dtype=str)
        parts.append(arrays)
        shard_names.append(str(path))
    if not parts:
        raise ValueError("no training data: " + ("; ".join(problems) or "no input files"))
    merged = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    samples = Samples(merged["planes"], merged["moves"].astype(np.int32), merged["values"],
                      merged["value_mask"], merged["ownership"], merged["own_mask"],
                      merged["games"])
    unique = np.unique(samples.games)
    val_games = {g for g in unique if is_validation_game(str(g), validation)}
    is_val = np.isin(samples.games, list(val_games)) if val_games else np.zeros(len(samples), bool)
    return DataSet(samples.subset(~is_val), samples.subset(is_val),
                   [str(f) for f in files], problems, shard_names, built)


__all__ = [
    "find_sgf_files", "opening_moves_to_skip", "parse_result", "result_lead", "counted",
    "named_error", "final_ownership", "counts_out", "ownership_known", "komi_unknown",
    "owners_from_black", "counted_ownership", "named_games",
    "game_samples", "build_shard", "load_dataset", "DataSet", "Samples", "GnuGoDead",
    "default_cache_dir", "is_validation_game", "shard_key", "readable_files", "write_json",
]
