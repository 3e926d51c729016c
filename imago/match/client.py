"""A GTP client: drive another engine (GNU Go, imago, ...) over its stdin/stdout."""

from __future__ import annotations

import os
import queue
import shlex
import subprocess
import threading
import time
from typing import Optional, Sequence, Union


class GTPError(RuntimeError):
    """The engine answered ``?`` (``message`` is its text)."""


class GTPMalformed(GTPError):
    """The engine answered something that is not a GTP answer."""


class EngineDied(RuntimeError):
    """The engine exited or closed its output."""


class GTPTimeout(RuntimeError):
    """The engine did not answer in time."""


class GTPClient:
    """One engine process. ``send`` writes a command and returns the answer's
    text (without ``=``), raising :class:`GTPError` on ``?`` (its subclass
    :class:`GTPMalformed` for a line that is no GTP answer),
    :class:`EngineDied` if the process is gone and :class:`GTPTimeout` after
    ``timeout`` seconds. Its stderr goes to ``stderr`` (default: discarded).
    Starting it raises OSError when the program cannot be run, ValueError
    for an empty command or unbalanced quotes. The engine runs in a process
    session of its own, so a Ctrl-C at the terminal reaches the program that
    drives it (which ends its games as it sees fit), not the engine."""

    def __init__(self, command: Union[str, Sequence[str]], name: Optional[str] = None,
                 stderr=subprocess.DEVNULL, cwd: Optional[str] = None):
        argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not argv:
            raise ValueError("empty engine command")
        self.command = argv
        self.name = name or os.path.basename(argv[0])
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=stderr, text=True, bufsize=1, cwd=cwd,
                                        start_new_session=True)
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.process.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def exit_code(self, wait: float = 2.0) -> Optional[int]:
        """The engine's exit status, waiting up to ``wait`` seconds for it:
        its output can end a moment before the process is reaped."""
        try:
            return self.process.wait(timeout=wait)
        except subprocess.TimeoutExpired:
            return None

    def send(self, command: str, timeout: Optional[float] = None) -> str:
        """Send one command; return the answer text."""
        try:
            self.process.stdin.write(command.strip() + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as err:
            raise EngineDied(f"{self.name} is not running ({err})") from None
        deadline = None if timeout is None else time.monotonic() + timeout
        lines: list[str] = []
        while True:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                line = self._lines.get(timeout=wait)
            except queue.Empty:
                raise GTPTimeout(f"{self.name} did not answer {command.split()[0]!r} "
                                 f"within {timeout:g} s") from None
            if line is None:
                raise EngineDied(f"{self.name} exited (code {self.exit_code()})")
            line = line.rstrip("\r\n")
            if not lines and not line.strip():
                continue  # stray blank lines between answers
            if not line.strip():
                break
            if not lines and line[:1] not in ("=", "?"):
                # no GTP answer starts so: say so now, not after waiting for a blank line
                raise GTPMalformed(f"malformed answer from {self.name} to "
                                   f"{command.split()[0]!r}: {line[:80]!r}")
            lines.append(line)
        first, rest = lines[0], lines[1:]
        status, text = first[:1], first[1:]
        # drop an echoed id
        head = text.split(" ", 1)
        text = head[1] if len(head) > 1 and head[0].isdigit() else (
            "" if head[0].isdigit() else text)
        body = "\n".join([text.strip()] + rest).strip()
        if status == "?":
            raise GTPError(body)
        return body

    def close(self, timeout: float = 2.0) -> None:
        """Send ``quit`` and wait; kill the process if it lingers."""
        if self.process.poll() is None:
            try:
                self.send("quit", timeout=timeout)
            except (GTPError, EngineDied, GTPTimeout):
                pass
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self) -> "GTPClient":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
