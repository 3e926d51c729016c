"""Writing a file whole or not at all, for every layer of imago.

Game records, training state, replay shards and network metadata are all
written the same way: into a temporary file beside the target, flushed to
disk, then renamed over it. A reader sees the old file or the new one, never
half of one, even after a full disk or ``kill -9``; a failed write leaves no
temporary file behind. This module imports nothing of imago, so that the
rules' neighbours (``sgf``, ``nn``) and the layers above can all use it.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from typing import IO, Iterator, Optional

_UMASK = os.umask(0o22)
os.umask(_UMASK)
NEW_FILE_MODE = 0o666 & ~_UMASK
"""The permission bits ``open`` gives a new file (the process's umask read
once, at import: reading it means setting it, which is not safe while
other threads create files); ``mkstemp`` alone would give 0o600."""


@contextlib.contextmanager
def replacing_name(path: str | os.PathLike, mode_bits: Optional[int] = None,
                   suffix: str = "") -> Iterator[str]:
    """:func:`replacing` for a writer that wants a file name, not an open
    file: the name of a new empty temporary file beside ``path``
    (``.NAME.*.tmp``, unique, then ``suffix`` for a writer that insists on
    one: Keras saves models only to names ending in ``.keras``) for the
    block to write; when the block ends without an error, that file is
    ``fsync``-ed, given ``mode_bits`` (else the default for a new file) and
    renamed over ``path``. On an error it is removed and ``path`` is left
    as it was. (The name is hidden and does not end as ``path`` does unless
    ``suffix`` says so, so that no one listing a folder's ``*.sgf`` or
    ``*.npz`` takes a file in the making, or one a crash left, for one.)"""
    path = os.fspath(path)
    folder, name = os.path.split(path)
    handle, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp" + suffix,
                                         dir=folder or ".")
    os.close(handle)
    try:
        yield temporary
        with open(temporary, "r+b") as written:  # writable: Windows syncs only such
            os.fsync(written.fileno())
        os.chmod(temporary, NEW_FILE_MODE if mode_bits is None else mode_bits)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


@contextlib.contextmanager
def replacing(path: str | os.PathLike, binary: bool = False,
              mode_bits: Optional[int] = None) -> Iterator[IO]:
    """A file open for writing whose contents replace ``path`` when the
    block ends without an error: a temporary file (``.NAME.*.tmp``, unique,
    so that two writers never share one) beside ``path``, ``fsync``-ed,
    given ``mode_bits`` (else the default for a new file) and renamed over
    ``path`` (:func:`replacing_name`). On an error the temporary file is
    removed and ``path`` is left as it was. Text is UTF-8 with ``\\n`` line
    ends. The folder must exist; raises OSError as the writes do."""
    with replacing_name(path, mode_bits) as temporary:
        with (open(temporary, "wb") if binary
              else open(temporary, "w", encoding="utf-8", newline="\n")) as f:
            yield f
