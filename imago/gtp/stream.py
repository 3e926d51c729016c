"""Streamed GTP responses: analysis lines and interrupts while a command runs."""

from __future__ import annotations

from typing import Any, Optional, Protocol


INTERRUPT = "# interrupt"
"""GoGui's interrupt: this comment line arrives while a command runs."""


class Stream(Protocol):
    """What a command handler writes a streamed response to and asks
    whether the controller wants it to stop."""

    started: bool

    def begin(self) -> None: ...

    def line(self, text: str) -> bool: ...

    def interrupted(self) -> bool: ...

    def gogui_interrupt(self) -> bool: ...


class ResponseStream:
    """Lets a command answer in parts, as analysis commands do: ``begin``
    writes ``=id`` and a newline at once, ``line`` writes and flushes one
    line, and ImagoIO ends the response with the blank line when the
    handler returns. ``interrupted`` is true once any input is waiting (the
    controller wants to go on); ``gogui_interrupt`` only for GoGui's
    ``# interrupt`` line (other queued commands must not stop a genmove)."""

    def __init__(self, io: Any, cmd_id: Optional[int]):
        self.io = io
        self.cmd_id = cmd_id
        self.started = False

    def begin(self) -> None:
        if not self.started:
            self.started = True
            self.io.write("=" + ("" if self.cmd_id is None else str(self.cmd_id)) + "\n")

    def line(self, text: str) -> bool:
        self.begin()
        return self.io.write_line(text)

    def interrupted(self) -> bool:
        return self.io.input_pending()

    def gogui_interrupt(self) -> bool:
        pending = list(self.io.lines.queue)
        return any(line is not None and line.strip() == INTERRUPT for line in pending)


class NullStream:
    """The stream of a command run outside ImagoIO (a
    :class:`~imago.gtp.table.Session` built by hand, as tests do): lines are
    dropped and nothing interrupts."""

    started = False

    def begin(self) -> None:
        pass

    def line(self, text: str) -> bool:
        return True

    def interrupted(self) -> bool:
        return False

    def gogui_interrupt(self) -> bool:
        return False
