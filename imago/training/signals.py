"""SIGTERM stops a training command the way Ctrl-C does.

``kill PID``, a process manager or a cluster scheduler ends a long
``train.py`` command with SIGTERM, and a command started in the background
from a script ignores SIGINT (the shell's rule for such jobs), so
``kill -INT`` does nothing to it. Raised as :class:`KeyboardInterrupt` in the
main thread, SIGTERM takes Ctrl-C's path: the local self-play workers are
stopped, the command says where it stopped and how to go on, and exits with
130. A run survives ``kill -9`` as well; this only makes the stop clean.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager
from typing import Iterator


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


@contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises KeyboardInterrupt (main thread only:
    elsewhere Python cannot set handlers, and the block changes nothing)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
