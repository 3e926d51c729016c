"""The GTP command table: the registry every handler group writes into.

A command is registered with :func:`command`, naming its arguments'
parsers; the table :data:`COMMANDS` is what :func:`execute` dispatches on
and what ``list_commands`` and ``known_command`` read. Handlers receive the
:class:`~imago.engine.engine.GameEngine` (or, registered with
``pass_session=True``, the whole :class:`Session`: the engine, the stream
of the response and what the controller asked for so far) and the parsed
arguments, call the engine, and return the response text; they raise
:class:`GtpError` with the specification's error text (``illegal move``,
``syntax error``, ...).

This module holds no handlers, so the handler groups (:mod:`.core`,
:mod:`.analysis`, :mod:`.gogui`) import it without importing each other;
:mod:`.commands` imports them all, which completes the table. Adding a
command is one decorated function in a group, e.g.::

    @command("imago-ownership")
    def _ownership(engine: GameEngine) -> str:
        ...
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Optional, Sequence

from imago.engine.engine import GameEngine
from imago.game import parse_color, vertex_to_index

from .stream import NullStream, Stream

log = logging.getLogger(__name__)


class GtpError(Exception):
    """A command failed; ``str(error)`` is the GTP error text sent after ``?``."""


ArgParser = Callable[[GameEngine, str], Any]
"""Turns one argument word into a value; raises GtpError when it cannot."""


@dataclass
class Session:
    """What commands run in: the ``engine``, the ``stream`` of the response
    being written (ImagoIO sets it while a command runs; a
    :class:`~imago.gtp.stream.NullStream` otherwise) and what the
    controller asked of the conversation (``gogui_gfx``: GoGui wants live
    graphics on stderr while a move is searched)."""

    engine: GameEngine
    stream: Stream = field(default_factory=NullStream)
    gogui_gfx: bool = False


@dataclass(frozen=True)
class Command:
    """A GTP command: its name, handler, and argument parsers (``args``
    required, then ``optional`` ones, then any number of ``rest``);
    ``pass_session``: the handler gets the :class:`Session`, not the engine."""

    name: str
    handler: Callable[..., str]
    args: tuple[ArgParser, ...] = ()
    optional: tuple[ArgParser, ...] = ()
    rest: Optional[ArgParser] = None
    pass_session: bool = False

    def parse(self, engine: GameEngine, words: Sequence[str]) -> list[Any]:
        """The handler's arguments; ``syntax error`` on a wrong count."""
        fixed = len(self.args) + len(self.optional)
        if len(words) < len(self.args) or (self.rest is None and len(words) > fixed):
            raise GtpError("syntax error")
        parsers = list(self.args) + list(self.optional)
        values = [parse(engine, word) for parse, word in zip(parsers, words)]
        if self.rest is not None:
            values.append([self.rest(engine, word) for word in words[fixed:]])
        return values


COMMANDS: dict[str, Command] = {}
"""Every command imago knows, by name, in registration order."""


def command(name: str, *args: ArgParser, optional: Sequence[ArgParser] = (),
            rest: Optional[ArgParser] = None, pass_session: bool = False
            ) -> Callable[[Callable[..., str]], Callable[..., str]]:
    """Register the decorated function as the handler of GTP ``name``."""
    def register(handler: Callable[..., str]) -> Callable[..., str]:
        if name in COMMANDS:
            raise ValueError(f"GTP command {name!r} registered twice")
        COMMANDS[name] = Command(name, handler, tuple(args), tuple(optional), rest,
                                 pass_session)
        return handler
    return register


def execute(session: Session, name: str, words: Sequence[str]) -> str:
    """Run command ``name`` with argument ``words`` in ``session``; returns
    the response text or raises :class:`GtpError`."""
    cmd = COMMANDS.get(name)
    if cmd is None:
        raise GtpError("unknown command")
    values = cmd.parse(session.engine, words)
    return cmd.handler(session if cmd.pass_session else session.engine, *values)


# ---------------------------------------------------------------- arguments
MAX_INT = 2**31 - 1
"""The largest GTP ``int`` (the specification's range is 0..2^31-1; a sign
is tolerated so that a handler can name what a negative value means)."""

MAX_FLOAT = 3.4028234663852886e38
"""The largest GTP ``float`` (a 32-bit IEEE 754 number)."""

_INTEGER = re.compile(r"[+-]?[0-9]{1,12}")
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4})?")


def integer(engine: GameEngine, word: str) -> int:
    """A decimal integer of ASCII digits within the GTP range (no ``1_000``,
    other scripts' digits, nor more than :data:`MAX_INT`)."""
    if _INTEGER.fullmatch(word) is None or abs(int(word)) > MAX_INT:
        raise GtpError("syntax error")
    return int(word)


def number(engine: GameEngine, word: str) -> float:
    """A decimal float within the GTP range: no ``nan``, ``inf``, ``1e308``
    nor ``1_0``."""
    if _FLOAT.fullmatch(word) is None:
        raise GtpError("syntax error")
    value = float(word)
    if not abs(value) <= MAX_FLOAT:
        raise GtpError("syntax error")
    return value


def color(engine: GameEngine, word: str) -> int:
    """``b``, ``black``, ``w``, ``white`` in any case."""
    try:
        return parse_color(word)
    except ValueError:
        raise GtpError("invalid color") from None


def move_vertex(engine: GameEngine, word: str) -> Optional[int]:
    """A vertex or ``pass`` for ``play``: malformed is a syntax error, off
    this board an illegal move."""
    try:
        return vertex_to_index(word, engine.size)
    except ValueError as error:
        if "off the board" in str(error):
            log.info("illegal move %s: off board", word)
            raise GtpError("illegal move") from None
        raise GtpError("syntax error") from None


def handicap_vertex(engine: GameEngine, word: str) -> int:
    """A vertex on the board (no pass) for ``set_free_handicap``."""
    try:
        point = vertex_to_index(word, engine.size)
    except ValueError:
        point = None
    if point is None:
        raise GtpError("bad vertex list")
    return point


def word(engine: GameEngine, text: str) -> str:
    """Any word, as given."""
    return text


def lower_word(engine: GameEngine, text: str) -> str:
    """Any word, in lower case (case-insensitive keywords)."""
    return text.lower()


__all__ = ["COMMANDS", "MAX_FLOAT", "MAX_INT", "ArgParser", "Command", "GtpError", "Session",
           "color", "command", "execute", "handicap_vertex", "integer", "lower_word",
           "move_vertex", "number", "word"]
