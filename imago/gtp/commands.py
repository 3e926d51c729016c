"""The GTP command table: every command imago answers, in one place.

A command is registered with :func:`command`, naming its arguments'
parsers; the table :data:`COMMANDS` is what :func:`execute` dispatches on
and what ``list_commands`` and ``known_command`` read. Handlers receive the
:class:`~imago.engine.engine.GameEngine` and the parsed arguments, call the
engine, and return the response text; they raise :class:`GtpError` with the
specification's error text (``illegal move``, ``syntax error``, ...).

Adding a command is one decorated function here, e.g.::

    @command("imago-ownership")
    def _ownership(engine: GameEngine) -> str:
        ...
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Any, Callable, Optional, Sequence

import imago
from imago.game import IllegalMoveError, index_to_vertex, parse_color, vertex_to_index
from imago.game.constants import COLOR_NAMES
from imago.game.coords import MAX_SIZE

from imago.engine.engine import STATUSES, GameEngine

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 2
ENGINE_NAME = "imago"


class GtpError(Exception):
    """A command failed; ``str(error)`` is the GTP error text sent after ``?``."""


ArgParser = Callable[[GameEngine, str], Any]
"""Turns one argument word into a value; raises GtpError when it cannot."""


@dataclass(frozen=True)
class Command:
    """A GTP command: its name, handler, and argument parsers (``args``
    required, then ``optional`` ones, then any number of ``rest``)."""

    name: str
    handler: Callable[..., str]
    args: tuple[ArgParser, ...] = ()
    optional: tuple[ArgParser, ...] = ()
    rest: Optional[ArgParser] = None

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
            rest: Optional[ArgParser] = None) -> Callable[[Callable[..., str]], Callable[..., str]]:
    """Register the decorated function as the handler of GTP ``name``."""
    def register(handler: Callable[..., str]) -> Callable[..., str]:
        if name in COMMANDS:
            raise ValueError(f"GTP command {name!r} registered twice")
        COMMANDS[name] = Command(name, handler, tuple(args), tuple(optional), rest)
        return handler
    return register


def execute(engine: GameEngine, name: str, words: Sequence[str]) -> str:
    """Run command ``name`` with argument ``words``; returns the response
    text or raises :class:`GtpError`."""
    cmd = COMMANDS.get(name)
    if cmd is None:
        raise GtpError("unknown command")
    return cmd.handler(engine, *cmd.parse(engine, words))


# ---------------------------------------------------------------- arguments
def integer(engine: GameEngine, word: str) -> int:
    """A decimal integer."""
    try:
        return int(word)
    except ValueError:
        raise GtpError("syntax error") from None


def number(engine: GameEngine, word: str) -> float:
    """A finite float."""
    try:
        value = float(word)
    except ValueError:
        raise GtpError("syntax error") from None
    if not math.isfinite(value):
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


def _vertices(engine: GameEngine, points: Sequence[Optional[int]]) -> str:
    return " ".join(index_to_vertex(p, engine.size) for p in points)


# ---------------------------------------------------------------- administration
@command("protocol_version")
def _protocol_version(engine: GameEngine) -> str:
    return str(PROTOCOL_VERSION)


@command("name")
def _name(engine: GameEngine) -> str:
    return ENGINE_NAME


@command("version")
def _version(engine: GameEngine) -> str:
    return imago.__version__


@command("known_command", word)
def _known_command(engine: GameEngine, name: str) -> str:
    return "true" if name in COMMANDS else "false"


@command("list_commands")
def _list_commands(engine: GameEngine) -> str:
    return "\n".join(COMMANDS)


@command("quit")
def _quit(engine: GameEngine) -> str:
    engine.quit_requested = True
    return ""


# ---------------------------------------------------------------- set-up
@command("boardsize", integer)
def _boardsize(engine: GameEngine, size: int) -> str:
    if not 2 <= size <= MAX_SIZE:
        raise GtpError("unacceptable size")
    engine.set_board_size(size)
    return ""


@command("clear_board")
def _clear_board(engine: GameEngine) -> str:
    engine.clear_board()
    return ""


@command("komi", number)
def _komi(engine: GameEngine, komi: float) -> str:
    engine.set_komi(komi)
    return ""


def _handicap_error(error: ValueError) -> GtpError:
    if "board not empty" in str(error):
        return GtpError("board not empty")
    return GtpError("invalid number of stones")


@command("fixed_handicap", integer)
def _fixed_handicap(engine: GameEngine, stones: int) -> str:
    try:
        return _vertices(engine, engine.fixed_handicap(stones))
    except ValueError as error:
        raise _handicap_error(error) from None


@command("place_free_handicap", integer)
def _place_free_handicap(engine: GameEngine, stones: int) -> str:
    try:
        return _vertices(engine, engine.place_free_handicap(stones))
    except ValueError as error:
        raise _handicap_error(error) from None


@command("set_free_handicap", rest=handicap_vertex)
def _set_free_handicap(engine: GameEngine, points: list[int]) -> str:
    try:
        engine.set_free_handicap(points)
    except ValueError as error:
        if "board not empty" in str(error):
            raise GtpError("board not empty") from None
        log.info("set_free_handicap refused: %s", error)
        raise GtpError("bad vertex list") from None
    return ""


# ---------------------------------------------------------------- play
@command("play", color, move_vertex)
def _play(engine: GameEngine, who: int, point: Optional[int]) -> str:
    try:
        engine.play(who, point)
    except IllegalMoveError as error:
        log.info("illegal move %s %s: %s", COLOR_NAMES[who],
                 index_to_vertex(point, engine.size), error.reason)
        raise GtpError("illegal move") from None
    return ""


@command("genmove", color)
def _genmove(engine: GameEngine, who: int) -> str:
    return engine.format_move(engine.genmove(who))


@command("reg_genmove", color)
def _reg_genmove(engine: GameEngine, who: int) -> str:
    return engine.format_move(engine.choose_move(who))


@command("kgs-genmove_cleanup", color)
def _kgs_genmove_cleanup(engine: GameEngine, who: int) -> str:
    # the same as genmove until imago has a dead-stone estimate to clean up
    return engine.format_move(engine.genmove(who))


@command("undo")
def _undo(engine: GameEngine) -> str:
    try:
        engine.undo()
    except ValueError:
        raise GtpError("cannot undo") from None
    return ""


# ---------------------------------------------------------------- views
@command("showboard")
def _showboard(engine: GameEngine) -> str:
    return "\n" + engine.showboard()


@command("last_move")
def _last_move(engine: GameEngine) -> str:
    node = engine.last_move()
    if node is None:
        raise GtpError("no previous move known")
    return f"{COLOR_NAMES[node.color]} {node.vertex}"


@command("move_history")
def _move_history(engine: GameEngine) -> str:
    return "\n".join(f"{COLOR_NAMES[n.color]} {n.vertex}" for n in engine.move_history())


# ---------------------------------------------------------------- scoring
@command("final_score")
def _final_score(engine: GameEngine) -> str:
    try:
        return engine.final_score()
    except ValueError as error:
        log.warning("cannot score: %s", error)
        raise GtpError("cannot score") from None


@command("final_status_list", lower_word)
def _final_status_list(engine: GameEngine, status: str) -> str:
    if status not in STATUSES:
        raise GtpError("syntax error")
    return "\n".join(_vertices(engine, stones) for stones in engine.final_status(status))


# ---------------------------------------------------------------- SGF
@command("loadsgf", word, optional=(integer,))
def _loadsgf(engine: GameEngine, path: str, move_number: Optional[int] = None) -> str:
    if move_number is not None and move_number < 1:
        raise GtpError("syntax error")
    try:
        engine.load_sgf(path, move_number)
    except (OSError, ValueError) as error:
        log.warning("cannot load %s: %s", path, error)
        raise GtpError("cannot load file") from None
    return ""


@command("printsgf", optional=(word,))
def _printsgf(engine: GameEngine, path: Optional[str] = None) -> str:
    if path is None:
        return engine.sgf_text()
    try:
        engine.save_sgf(path)
    except OSError as error:
        log.warning("cannot save %s: %s", path, error)
        raise GtpError("cannot save file") from None
    return ""


# ---------------------------------------------------------------- time
@command("time_settings", number, number, integer)
def _time_settings(engine: GameEngine, main: float, byo_yomi: float, stones: int) -> str:
    try:
        engine.time_control.time_settings(main, byo_yomi, stones)
    except ValueError:
        raise GtpError("syntax error") from None
    log.info("time: %s", engine.time_control.describe())
    return ""


@command("kgs-time_settings", lower_word, rest=number)
def _kgs_time_settings(engine: GameEngine, system: str, numbers: list[float]) -> str:
    try:
        engine.time_control.kgs_time_settings(system, *numbers)
    except ValueError:
        raise GtpError("syntax error") from None
    log.info("time: %s", engine.time_control.describe())
    return ""


@command("time_left", color, number, integer)
def _time_left(engine: GameEngine, who: int, seconds: float, stones: int) -> str:
    try:
        engine.time_control.time_left(who, seconds, stones)
    except ValueError:
        raise GtpError("syntax error") from None
    return ""


__all__ = ["COMMANDS", "Command", "GtpError", "command", "execute"]


# analysis commands register themselves in this same table
from . import analysis  # noqa: E402,F401
