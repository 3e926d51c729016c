"""Keras, imported without TensorFlow's start-up notices on stderr.

Importing TensorFlow prints, straight to file descriptor 2 and whatever
``TF_CPP_MIN_LOG_LEVEL`` says, absl's "All log messages before
absl::InitializeLog() is called are written to STDERR" and an INFO line that
oneDNN's operations are on, each twice: noise in the terminal game and in a
GUI's GTP log. :func:`quietly` holds file descriptor 2 back while Keras (and
its back end) is imported, drops those known notices and passes every other
line on, so nothing else is lost; if the import fails, everything it printed
is passed on.
"""

from __future__ import annotations

import os
import re
import sys
import tempfile
from typing import Callable, TypeVar

T = TypeVar("T")

NOTICES = re.compile(r"All log messages before absl::InitializeLog\(\) is called are written "
                     r"to STDERR|\] oneDNN custom operations are on\.")
"""Lines of TensorFlow's start-up that tell a player nothing."""


def quietly(action: Callable[[], T]) -> T:
    """``action()`` with what it writes to file descriptor 2 held back and
    passed on afterwards, less the lines :data:`NOTICES` matches (all of it
    if ``action`` raises)."""
    try:
        sys.stderr.flush()
        saved = os.dup(2)
    except (OSError, ValueError, AttributeError):  # no stderr to keep quiet
        return action()
    with tempfile.TemporaryFile() as held:
        os.dup2(held.fileno(), 2)
        failed = True
        try:
            result = action()
            failed = False
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            held.seek(0)
            lines = held.read().decode("utf-8", "replace").splitlines(keepends=True)
            kept = lines if failed else [line for line in lines if not NOTICES.search(line)]
            if kept:
                sys.stderr.write("".join(kept))
                sys.stderr.flush()
    return result


def _import_keras():
    import keras

    return keras


keras = _import_keras() if "keras" in sys.modules else quietly(_import_keras)
