"""Reading and writing files that a user or a controller names.

A name may point at a directory, a device (``/dev/zero`` never ends,
``/dev/stdout`` would mix SGF into a protocol), a FIFO (whose ``open``
waits for ever for the other end) or a file far larger than a game record.
These functions refuse all of those at once with a reason, instead of
hanging or filling memory.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import IO, Any, Optional

from imago.fileio import replacing

MAX_SGF_BYTES = 2 << 20
"""The largest SGF file a game is loaded from to be played on (GTP
``loadsgf``, go.py's ``load``): 2 MiB, half as much again as Kogo's Joseki
Dictionary. Reading a record costs some 170 times its size in memory (a
2 MiB line of passes: 380 MB and 4 s), so a larger (or endless) file is
refused unread."""


def file_problem(error: Exception) -> str:
    """Why a file could not be read or written, as a user reads it: the
    system's words for an OSError, else the error's own text (not a
    regular file, larger than the limit)."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror
    return str(error)


def open_regular_file(path: str, mode: str, **options: Any) -> IO:
    """``open(path, mode, **options)`` for a regular file only: a
    directory, device (``/dev/zero``, ``/dev/stdout``), FIFO or socket is
    refused with ValueError, without waiting for a FIFO's other end (which
    an ordinary open would, for ever). Raises OSError as ``open`` does."""
    def opener(name: str, flags: int) -> int:
        return os.open(name, flags | getattr(os, "O_NONBLOCK", 0), 0o666)

    f = open(path, mode, opener=opener, **options)
    if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
        f.close()
        raise ValueError("not a regular file")
    return f


def overwrite_problem(path: str) -> Optional[str]:
    """Why a game must not be written over the file at ``path``, or None: a
    non-empty regular file whose text does not open as SGF does (``(``
    after any byte-order mark and blank space) holds something else, which
    a mistyped GTP ``printsgf`` or terminal ``save`` would destroy. SGF files
    are written over, as controllers that save a game again expect."""
    try:
        with open_regular_file(path, "rb", buffering=0) as f:
            head = f.read(4096)
    except (OSError, ValueError):
        return None  # absent, or refused by the write with its own reason
    text = head.lstrip(b"\xef\xbb\xbf \t\r\n\f\v")
    if not head or text.startswith(b"(") or (not text and len(head) < 4096):
        return None
    return "it holds something other than SGF; not written over"


def write_text_file(path: str, text: str) -> None:
    """Write ``text`` (UTF-8, ``\\n`` line ends) to the regular file ``path``.
    A file already there is replaced whole or not at all: the text goes to
    a temporary file beside it, which is flushed to disk and then renamed
    over it with the old file's permission bits, so a write that fails half
    way (a full disk, a killed process) leaves the old file as it was. A
    symbolic link is followed and the file it names replaced. Where the
    folder takes no new file but the file itself may be written, or where
    no file is there yet (nothing to lose), the file is written in place
    (:func:`open_regular_file`). A file the user may not write is refused
    (PermissionError), as writing it in place would be, though its folder
    would let a new file take its name. Raises OSError, or ValueError when
    ``path`` names no regular file."""
    path = os.path.realpath(path)
    try:
        old = os.stat(path)
    except OSError:
        old = None  # absent; any other trouble the write below names
    if old is not None and stat.S_ISREG(old.st_mode):
        if not os.access(path, os.W_OK):  # renaming over it would undo its protection
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
        if os.access(os.path.dirname(path), os.W_OK | os.X_OK):
            with replacing(path, mode_bits=stat.S_IMODE(old.st_mode)) as f:
                f.write(text)
            return
    with open_regular_file(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def read_regular_file(path: str, limit: Optional[int] = None) -> bytes:
    """The bytes of a regular file (see :func:`open_regular_file`) of at
    most ``limit`` bytes (None: any size); a longer file is refused
    (ValueError) after reading ``limit + 1`` bytes of it."""
    with open_regular_file(path, "rb", buffering=0 if limit is not None else -1) as f:
        if limit is None:
            return f.read()
        chunks, size = [], 0
        while size <= limit:
            chunk = f.read(limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    if size > limit:
        raise ValueError(f"larger than {limit} bytes")
    return b"".join(chunks)
