"""The high-level SGF API: files and strings to games and back.

``load``/``loads`` read a collection (every game tree of a file) as
:class:`~imago.game.GameState` objects; ``dumps``/``save`` write one game;
``iter_games`` walks files, folders and globs for training and reports bad
files without stopping. Malformed input raises :class:`SGFError`
(a ``ValueError``) naming the file, line and column.

Lenient mode (``lenient=True``) keeps what can be kept: game trees that
parse and convert are returned even when others in the same file are
broken; a game tree cut short (truncated file, unterminated value, missing
``)``) is kept up to its last complete node; illegal moves are kept as
described in :mod:`.convert`; a file whose first game tree lacks the
``;`` before its first node (Nihon Ki-in exports) is read as if it had
it. It still raises :class:`SGFError` when no
game at all can be read.
"""

from __future__ import annotations

import glob
import logging
import os
import re
from pathlib import Path
from typing import Iterable, Iterator, Optional, Union

from imago.game import GameState

from .convert import to_game
from .encoding import decode
from .errors import SGFError
from .files import file_problem, overwrite_problem, read_regular_file, write_text_file
from .nodes import VALUE_BODY_RE, ASTNode
from .sgflex import Source
from .sgfyacc import parse_source
from .writer import dumps

log = logging.getLogger("imago.sgf")

PathLike = Union[str, "os.PathLike[str]"]

_TREE_START = re.compile(r"\(\s*;")
_MISSING_SEMICOLON = re.compile(r"\(\s*(?=[A-Za-z]+\s*\[)")
_TREE_OPEN = re.compile(r"\(")
_SCAN = re.compile(r"\[" + VALUE_BODY_RE + r"\]?|[()]", re.S)  # a value (maybe open), or ( )


def parse(data: Union[str, bytes], *, lenient: bool = False,
          filename: str = "<string>") -> list[ASTNode]:
    """The game trees of an SGF text (or its bytes, decoded as
    :mod:`.encoding` says; a ``CA`` it could not use is logged as a
    warning) as root :class:`ASTNode`."""
    if isinstance(data, (bytes, bytearray)):
        text, _, problem = decode(data)
        if problem:
            log.warning("%s: %s", filename, problem)
    else:
        text = data
    source = Source(text, filename)
    if not lenient:
        return parse_source(source)
    try:
        return parse_source(source)
    except SGFError as err:
        first_error = err
    roots: list[ASTNode] = []
    for start, end in split_game_trees(text):
        try:
            roots.extend(parse_source(source, start, end))
        except SGFError as err:
            repaired = _repair(source, start, err)
            if repaired:
                log.info("%s; kept the game tree up to there", err)
                roots.extend(repaired)
            else:
                log.info("%s; game tree skipped", err)
    if not roots:
        # Nihon Ki-in style exports: '(' straight before the first property
        m = _MISSING_SEMICOLON.search(text)
        if m is not None and m.start() == _TREE_OPEN.search(text).start():
            fixed = text[:m.end()] + ";" + text[m.end():]
            try:
                roots = parse_source(Source(fixed, filename))
            except SGFError:
                roots = []
            if roots:
                log.info("%s; read as if it were there", first_error)
    if not roots:
        raise first_error
    return roots


def split_game_trees(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of the top-level game trees: from each
    ``(;`` outside a tree to its matching ``)`` (or the end of the text),
    brackets inside values skipped."""
    spans = []
    pos, n = 0, len(text)
    while pos < n:
        m = _TREE_START.search(text, pos)
        if m is None:
            break
        start = m.start()
        depth = 0
        end = n
        for item in _SCAN.finditer(text, start):
            c = item.group()
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    end = item.end()
                    break
        spans.append((start, end))
        pos = end
    return spans


def _repair(source: Source, start: int, err: SGFError) -> list[ASTNode]:
    """The game tree at ``start`` cut before the error and closed, or []."""
    cut = getattr(err, "good_end", None)
    if cut is None or err.offset is None:
        return []
    text = source.text
    cut = min(cut, err.offset)
    # back over white space, an opened variation without nodes and a node
    # cut before its properties
    while cut > start and text[cut - 1].isspace():
        cut -= 1
    while cut > start + 2 and text[cut - 1] in "(;":
        cut -= 1
        while cut > start and text[cut - 1].isspace():
            cut -= 1
    if cut <= start + 1:
        return []
    try:
        return parse_source(source, start, cut, close=True)
    except SGFError:
        return []


def loads(data: Union[str, bytes], *, lenient: bool = False,
          filename: str = "<string>") -> list[GameState]:
    """Every game of an SGF text (``str``, or ``bytes`` decoded by ``CA``
    with fallbacks) as a GameState with ``current`` at the root, size,
    komi and handicap from ``SZ``/``KM``/``HA`` and the game info in
    ``root.properties``. Raises :class:`SGFError`."""
    return list(_games(parse(data, lenient=lenient, filename=filename), lenient, filename))


def _games(roots: list[ASTNode], lenient: bool, filename: str) -> Iterator[GameState]:
    """The games of parsed game trees, one at a time. In lenient mode a
    game that does not convert is logged and skipped; raises the first
    error when no game converts."""
    first_error = None
    count = 0
    for root in roots:
        try:
            game = to_game(root, lenient=lenient)
        except SGFError as err:
            if not lenient:
                raise
            log.info("%s; game skipped", err)
            first_error = first_error or err
            continue
        count += 1
        yield game
    if not count:
        if first_error is not None:
            raise first_error
        raise SGFError("no game tree found: expected '(;'", filename)


def load(path: PathLike, *, lenient: bool = False,
         limit: Optional[int] = None) -> list[GameState]:
    """The games of one SGF file (see :func:`loads`). Raises
    :class:`SGFError`, OSError when the file cannot be read, or ValueError
    when ``path`` is no regular file (a directory, device or FIFO) or has
    more than ``limit`` bytes."""
    data = read_regular_file(os.fspath(path), limit)
    return loads(data, lenient=lenient, filename=os.fspath(path))


def save(path: PathLike, game: GameState) -> None:
    """Write ``game`` (its whole tree) to ``path`` as UTF-8 SGF. Raises
    OSError, or ValueError when ``path`` names no regular file (a FIFO, or
    ``/dev/stdout``, where the text could corrupt a protocol) or a file that
    holds something other than SGF (:func:`~imago.sgf.files.overwrite_problem`).
    An SGF file already there is replaced whole or not at all
    (:func:`~imago.sgf.files.write_text_file`): a save that fails leaves the
    last one."""
    text = dumps(game)
    problem = overwrite_problem(os.fspath(path))
    if problem:
        raise ValueError(problem)
    write_text_file(os.fspath(path), text)


def _files_under(entry: str) -> tuple[list[str], str]:
    """The SGF files one input names, or ``([], reason)``."""
    if os.path.isdir(entry):
        found = []
        for folder, _, files in os.walk(entry):
            found.extend(os.path.join(folder, f) for f in files if f.lower().endswith(".sgf"))
        return sorted(found), "no SGF files in this folder"
    if os.path.exists(entry):
        return [entry], ""
    if glob.has_magic(entry):
        found = []
        for match in sorted(glob.glob(entry, recursive=True)):
            found.extend(_files_under(match)[0] if os.path.isdir(match) else [match])
        return found, "no file matches"
    return [], "no such file or folder"


def find_sgf_files(inputs: Union[PathLike, Iterable[PathLike]]) -> tuple[list[Path], list[str]]:
    """The files named by ``inputs``: files, folders (searched recursively
    for ``*.sgf``, any case) and glob patterns, each file once. Returns
    ``(files, problems)``, a problem naming each input that gave nothing."""
    if isinstance(inputs, (str, os.PathLike)):
        inputs = [inputs]
    files: list[Path] = []
    problems: list[str] = []
    seen: set[Path] = set()
    for entry in map(os.fspath, inputs):
        found, reason = _files_under(entry)
        if not found:
            problems.append(f"{entry}: {reason}")
        for name in found:
            key = Path(name).resolve()
            if key not in seen:
                seen.add(key)
                files.append(Path(name))
    return files, problems


def iter_games(paths: Union[PathLike, Iterable[PathLike]], *,
               lenient: bool = True) -> Iterator[tuple[str, GameState]]:
    """``(path, game)`` for every game of every SGF file under the given
    files, folders (searched recursively for ``*.sgf``) and glob patterns.
    A file that cannot be read is logged (a warning naming the file and the
    reason, on the ``imago.sgf`` logger) and skipped, and so is the rest of
    a collection after a game that cannot be read in strict mode. The games
    of a collection are converted one at a time, as they are asked for."""
    files, problems = find_sgf_files(paths)
    for problem in problems:
        log.warning("%s", problem)
    for path in map(str, files):
        try:
            data = read_regular_file(path)  # a FIFO would block for ever
            for game in _games(parse(data, lenient=lenient, filename=path), lenient, path):
                yield path, game
        except SGFError as err:
            log.warning("skipping %s", err)
        except (OSError, ValueError) as err:
            log.warning("skipping %s: %s", path, file_problem(err))


__all__ = ["load", "loads", "dumps", "save", "parse", "iter_games", "find_sgf_files",
           "split_game_trees", "SGFError"]
