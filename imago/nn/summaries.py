"""TensorBoard scalars for the self-play loop (gate scores, Elo, losses).

TensorFlow is imported only when a :class:`ScalarWriter` is made, and only
when tensorboard is installed too (``tf.summary.scalar`` needs it). Without
them the writer writes nothing and says why in :attr:`ScalarWriter.problem`:
TensorBoard logs are a convenience, never a reason for a run to stop.
"""

from __future__ import annotations

import os
from typing import Optional

PROBLEM = "TensorBoard logs need tensorflow and tensorboard: pip install tensorboard"


class ScalarWriter:
    """Scalars ``(tag, value, step)`` as a TensorBoard event file in
    ``logdir``. ``problem`` is None while it writes; else one readable line
    that says why it writes nothing (then every call is a no-op)."""

    def __init__(self, logdir: "os.PathLike[str] | str"):
        self.logdir = os.fspath(logdir)
        self.problem: Optional[str] = None
        self._tf = None
        self._writer = None
        try:
            import tensorboard  # noqa: F401  (tf.summary.scalar is tensorboard's)
            import tensorflow as tf
        except ImportError:
            self.problem = PROBLEM
            return
        try:
            self._writer = tf.summary.create_file_writer(self.logdir)
        except Exception as error:  # noqa: BLE001  TF raises its own errors for bad paths
            self.problem = f"cannot write TensorBoard logs to {self.logdir}: {_first_line(error)}"
            return
        self._tf = tf

    def scalar(self, tag: str, value: float, step: int) -> None:
        """Log ``value`` under ``tag`` at ``step`` (e.g. the generation)."""
        if self._writer is None:
            return
        with self._writer.as_default():
            self._tf.summary.scalar(tag, float(value), step=int(step))

    def flush(self) -> None:
        """Write what was logged so far to disk."""
        if self._writer is not None:
            self._writer.flush()

    def close(self) -> None:
        """Flush and close the event file; later scalars are dropped."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def __enter__(self) -> "ScalarWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


__all__ = ["ScalarWriter", "PROBLEM"]
