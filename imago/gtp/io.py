"""GTP version 2 input and output: :class:`ImagoIO`.

ImagoIO reads commands from a byte stream, splits it into lines at LF only
(a CR, vertical tab, form feed or any other character never ends a line),
decodes each line leniently (UTF-8, undecodable bytes replaced),
preprocesses it as the specification says (control characters other than
HT dropped, ``#`` comments cut, tabs made spaces, empty lines skipped),
runs it through the command table and writes ``=id result`` / ``?id
error`` responses, each ended by one blank line and flushed: one response
for every line that holds a command. Only protocol goes to the output
stream; logs go through :mod:`logging` (stderr). Bad input and failing
commands never stop the loop; EOF and ``quit`` end it cleanly.

Input is read by a background thread into a bounded queue (a controller
that floods the engine waits, memory does not grow), so a long-running
command can see that new input arrived (:meth:`ImagoIO.input_pending`) and
stop, and can stream lines with :meth:`ImagoIO.write_line` -- what
interruptible analysis commands (``lz-analyze``, GoGui's ``# interrupt``)
need. Each command runs in the loop's :class:`~imago.gtp.table.Session`,
whose ``stream`` is the command's :class:`~imago.gtp.stream.ResponseStream`
while it runs.
"""

from __future__ import annotations

import logging
import queue
import re
import sys
import threading
from dataclasses import dataclass, field
from typing import BinaryIO, Callable, Iterator, Optional, Sequence, TextIO, Union

from imago.engine.engine import GameEngine

from . import commands
from .stream import NullStream, ResponseStream
from .table import GtpError, Session

log = logging.getLogger(__name__)

_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f]")
"""Control characters to drop: all but HT (LF ends the line anyway), the
C1 ones (NEL ...) included."""

MAX_LINE_BYTES = 1 << 16
"""The longest line read as a command (64 KiB; the longest a controller
sends, a full ``set_free_handicap`` or an ``avoid`` list, is a few KB).
A longer line is answered ``? line too long`` and the rest of it skipped
as it arrives, so hostile input cannot fill the memory."""

MAX_QUEUED_LINES = 256
"""Input lines read ahead while a command runs; the reader then waits."""

_ID = re.compile(r"[0-9]+")

Executor = Callable[[Session, str, Sequence[str]], str]
"""Runs one command in a session: name and argument words to response text."""


class OverlongLine(str):
    """An input line longer than :data:`MAX_LINE_BYTES`: its first part,
    which ImagoIO answers with ``? line too long`` (echoing its id)."""


def read_lines(stream: Union[BinaryIO, TextIO]) -> Iterator[str]:
    """The lines of a GTP input stream, each with its LF (the last one may
    lack it): a binary stream is split at LF bytes only and each line
    decoded as UTF-8 with undecodable bytes replaced; a text stream must not
    translate newlines itself (``io.StringIO`` does not). A line longer than
    :data:`MAX_LINE_BYTES` comes as an :class:`OverlongLine` of its start,
    the rest read and dropped."""
    while True:
        chunk = stream.readline(MAX_LINE_BYTES + 1)
        if not chunk:
            return
        newline = b"\n" if isinstance(chunk, bytes) else "\n"
        overlong = len(chunk) > MAX_LINE_BYTES and not chunk.endswith(newline)
        if overlong:
            rest = chunk
            while rest and not rest.endswith(newline):
                rest = stream.readline(MAX_LINE_BYTES)
        text = chunk.decode("utf-8", "replace") if isinstance(chunk, bytes) else chunk
        yield OverlongLine(text) if overlong else text


def preprocess(line: str) -> str:
    """A raw input line as the spec's preprocessing leaves it: control
    characters removed, comment cut, tabs to spaces, ends stripped
    (``''``: nothing to run)."""
    line = _CONTROL.sub("", line)
    line = line.split("#", 1)[0]
    return line.replace("\t", " ").strip(" ")


@dataclass
class GtpCommand:
    """One parsed command line: optional numeric ``id``, ``name``, ``args``."""

    id: Optional[int]
    name: str
    args: list[str] = field(default_factory=list)


def parse_command(line: str) -> Optional[GtpCommand]:
    """Preprocess and split a raw line; None when nothing is left."""
    words = [word for word in preprocess(line).split(" ") if word]
    if not words:
        return None
    cmd_id = None
    if _ID.fullmatch(words[0]):
        cmd_id = int(words.pop(0))
    name = words.pop(0) if words else ""
    return GtpCommand(cmd_id, name, words)


def format_response(cmd_id: Optional[int], success: bool, text: str) -> str:
    """``=id text\\n\\n`` or ``?id text\\n\\n``. A multi-line ``text`` keeps
    its lines but loses empty ones (an empty line would end the response);
    an error message is made one line (control characters, which it may
    quote from a file, made spaces)."""
    mark = "=" if success else "?"
    ident = "" if cmd_id is None else str(cmd_id)
    if success:
        first, *others = text.rstrip().split("\n")
        body = "\n".join([first.rstrip()] + [ln.rstrip() for ln in others if ln.strip()])
    else:
        body = " ".join(_CONTROL.sub(" ", text).split())
    return f"{mark}{ident}{' ' if body else ''}{body}\n\n"


class ImagoIO:
    """The GTP loop: reads ``input``, answers on ``output``.

    ``input`` is a binary stream (default: standard input's bytes) or a text
    stream that leaves newlines alone (see :func:`read_lines`). ``execute``
    runs one command (default: :func:`commands.execute`, the command table)
    in :attr:`session`, which keeps the conversation's state between
    commands. Use :meth:`run` to serve until EOF or ``quit``.
    """

    def __init__(self, engine: GameEngine, input: Union[BinaryIO, TextIO, None] = None,
                 output: Optional[TextIO] = None, execute: Executor = commands.execute):
        self.engine = engine
        self.session = Session(engine)
        self.input = input if input is not None else getattr(sys.stdin, "buffer", sys.stdin)
        self.output = output if output is not None else sys.stdout
        self.execute = execute
        self.lines: "queue.Queue[Optional[str]]" = queue.Queue(MAX_QUEUED_LINES)
        self._reader: Optional[threading.Thread] = None
        self._closed = False

    # ------------------------------------------------------------ input
    def _read_input(self) -> None:
        try:
            for line in read_lines(self.input):
                self.lines.put(line)
        except Exception:  # a broken input stream ends the session like EOF
            log.exception("reading GTP input failed")
        finally:
            self.lines.put(None)

    def start_reader(self) -> None:
        """Start the thread that queues input lines (done by :meth:`run`)."""
        if self._reader is None:
            self._reader = threading.Thread(target=self._read_input, name="gtp-input",
                                            daemon=True)
            self._reader.start()

    def reader_blocked(self) -> bool:
        """True while the input thread still waits in a read (the session
        ended by ``quit`` before the controller closed our input)."""
        return self._reader is not None and self._reader.is_alive()

    def next_line(self, timeout: Optional[float] = None) -> Optional[str]:
        """The next raw input line; None at EOF. Raises queue.Empty when a
        ``timeout`` passes first."""
        self.start_reader()
        line = self.lines.get(timeout=timeout)
        if line is None:
            self.lines.put(None)  # EOF stays visible to later calls
        return line

    def input_pending(self) -> bool:
        """True when input (or EOF) is waiting: a streaming command should
        stop and end its response."""
        return not self.lines.empty()

    # ------------------------------------------------------------ output
    def write(self, text: str) -> bool:
        """Write and flush; False (and the loop ends) if the output is gone."""
        try:
            self.output.write(text)
            self.output.flush()
            return True
        except (OSError, ValueError) as error:
            log.error("GTP output closed: %s", error)
            self._closed = True
            return False

    def write_line(self, text: str) -> bool:
        """One line of a streamed response (analysis ``info ...`` lines)."""
        return self.write(text.rstrip("\n") + "\n")

    # ------------------------------------------------------------ commands
    def handle(self, line: str) -> Optional[str]:
        """Run one raw input line; the framed response, or None for a line
        with no command."""
        cmd_id = None
        stream: Optional[ResponseStream] = None
        try:
            cmd = parse_command(line)
            if isinstance(line, OverlongLine):
                log.warning("input line over %d bytes skipped", MAX_LINE_BYTES)
                cmd_id = cmd.id if cmd is not None else None
                raise GtpError("line too long")
            if cmd is None:
                return None
            log.debug("<< %s", line.rstrip("\n"))
            cmd_id = cmd.id
            stream = ResponseStream(self, cmd_id)
            self.session.stream = stream
            text = self.execute(self.session, cmd.name, cmd.args)
            success = True
        except GtpError as error:
            text, success = str(error), False
        except Exception as error:  # a bug must not end the session
            log.exception("command %r failed", line.strip())
            text, success = f"internal error: {type(error).__name__}: {error}", False
        finally:
            self.session.stream = NullStream()
        if stream is not None and stream.started:
            # the "=id" line went out already: send the rest and the blank line
            if not success:
                log.error("streamed command failed after its answer began: %s", text)
            lines = [ln.rstrip() for ln in text.split("\n") if ln.strip()] if success else []
            body = "\n".join(lines)
            response = (body + "\n" if body else "") + "\n"
            log.debug(">> (streamed) %s", body)
            return response
        response = format_response(cmd_id, success, text)
        log.debug(">> %s", response.rstrip("\n"))
        return response

    def run(self) -> None:
        """Serve commands until EOF, ``quit`` or a closed output."""
        while not self._closed:
            line = self.next_line()
            if line is None:
                log.debug("end of input")
                break
            response = self.handle(line)
            if response is None:
                continue
            if not self.write(response) or self.engine.quit_requested:
                break
            self._ponder()

    def _ponder(self) -> None:
        """Let the engine think on the opponent's time (when it ponders,
        after a move of its own) until the next input line comes."""
        try:
            self.engine.ponder(self.input_pending)
        except Exception:  # pondering is a bonus: never the end of the session
            log.exception("pondering failed")
