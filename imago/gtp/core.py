"""The core GTP version 2 commands, and the KGS and GNU Go ones controllers
expect: administration, set-up, play, views, scoring, SGF and time.

Each handler parses nothing itself (the table's argument parsers do), asks
the :class:`~imago.engine.engine.GameEngine`, and answers text or raises
:class:`~imago.gtp.table.GtpError` with the specification's error text.
The move generators go through :func:`~imago.gtp.moves.engine_move`, which
gives the engine GoGui's interrupt and live graphics.
"""

from __future__ import annotations

import json
import logging
import os
import time
from typing import Optional, Sequence

import imago
from imago.engine.engine import STATUSES, GameEngine
from imago.game import IllegalMoveError, index_to_vertex, vertex_to_index
from imago.game.constants import COLOR_NAMES
from imago.game.coords import MAX_SIZE
from imago.game.rulesets import KGS_RULES, imago_rules, parse_rules

from .moves import engine_move
from .table import (COMMANDS, GtpError, Session, color, command, handicap_vertex, integer,
                    lower_word, move_vertex, number, word)

log = logging.getLogger(__name__)

PROTOCOL_VERSION = 2
ENGINE_NAME = "imago"


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
    try:
        engine.set_board_size(size)
    except ValueError as error:  # the algorithm's network plays other sizes only
        raise GtpError(f"unacceptable size ({error})") from None
    return ""


@command("rectangular_boardsize", integer, integer)
def _rectangular_boardsize(engine: GameEngine, width: int, height: int) -> str:
    """KataGo's: a board ``width`` by ``height``; imago plays square boards
    only, so this is ``boardsize`` when the two agree."""
    if width != height:
        raise GtpError("unacceptable size (imago plays square boards only)")
    return _boardsize(engine, width)


@command("clear_board")
def _clear_board(engine: GameEngine) -> str:
    engine.clear_board()
    return ""


@command("komi", number)
def _komi(engine: GameEngine, komi: float) -> str:
    engine.set_komi(komi)
    return ""


@command("clear_cache")
def _clear_cache(engine: GameEngine) -> str:
    """Leela Zero's and KataGo's: the next search starts without the kept
    tree and cached network answers."""
    engine.clear_cache()
    return ""


@command("kata-get-rules")
def _kata_get_rules(engine: GameEngine) -> str:
    """The rules imago plays, as KataGo's rules object, with the komi set
    and the scoring (with its seki tax), white handicap bonus and clean-up
    of the rules set last (area, ``0`` and friendly passes by default)."""
    state = engine.state
    rules = imago_rules(state.scoring.upper(), state.handicap_bonus, not state.capture_dead)
    return json.dumps({**rules, "komi": state.komi}, sort_keys=True, separators=(",", ":"))


@command("kata-set-rules", rest=word)
def _kata_set_rules(engine: GameEngine, words: list[str]) -> str:
    """KataGo's rules by name (``chinese``, ``japanese``, ``tromp-taylor``,
    ...) or as a JSON object. Their scoring, white handicap bonus and
    ``friendlyPassOk`` (false: dead stones are captured before passing, as
    Tromp-Taylor has it) are honoured (:meth:`GameEngine.use_rules`);
    imago's board plays its own ko and suicide rules whatever is set, so
    other rules are accepted with a warning on the log that says what
    differs. A ``komi`` in the object
    sets the komi, as ``komi`` does."""
    text = " ".join(words)
    if not text:
        raise GtpError("syntax error")
    try:
        value = json.loads(text) if text.startswith("{") else text
        rules = parse_rules(value)
    except ValueError as error:  # a JSONDecodeError is one
        raise GtpError(f"unknown rules: {error}") from None
    if isinstance(value, dict) and "komi" in value:
        engine.set_komi(rules.komi)
    _play_as_imago(engine, rules, text)
    return ""


@command("kata-set-rule", word, word)
def _kata_set_rule(engine: GameEngine, key: str, value: str) -> str:
    """One of KataGo's rule options (``ko``, ``scoring``, ``tax``,
    ``suicide``, ``hasButton``, ``whiteHandicapBonus``, ``friendlyPassOk``,
    ``komi``) changed,
    the others as :func:`_kata_get_rules` reports them, accepted as
    ``kata-set-rules`` accepts a rules object."""
    options = json.loads(_kata_get_rules(engine))
    if key not in options:
        raise GtpError(f"unknown rules option {key[:40]}; one of {', '.join(sorted(options))}")
    words = {"true": True, "false": False}
    if key == "komi":
        options[key] = number(engine, value)
    else:
        options[key] = words.get(value.lower(), value)
    try:
        rules = parse_rules(options)
    except ValueError as error:
        raise GtpError(f"unknown rules: {error}") from None
    engine.set_komi(rules.komi)
    _play_as_imago(engine, rules, f"{key} {value}")
    return ""


@command("kgs-rules", lower_word)
def _kgs_rules(engine: GameEngine, name: str) -> str:
    """kgsGtp's rules of the game (japanese, chinese, aga, new_zealand):
    accepted as ``kata-set-rules`` accepts them."""
    if name not in KGS_RULES:
        raise GtpError(f"unknown rules: use one of {', '.join(KGS_RULES)}")
    _play_as_imago(engine, parse_rules(name), name)
    return ""


def _play_as_imago(engine: GameEngine, rules, asked: str) -> None:
    warning = engine.use_rules(rules)
    if warning:
        log.warning("rules %s: %s", asked[:80], warning)


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


@command("set_position", rest=word)
def _set_position(engine: GameEngine, words: list[str]) -> str:
    if len(words) % 2:
        raise GtpError("syntax error")
    stones = []
    for who, vertex in zip(words[0::2], words[1::2]):
        try:
            point = vertex_to_index(vertex, engine.size)
        except ValueError as error:
            raise GtpError(f"syntax error: {error}") from None
        if point is None:
            raise GtpError("syntax error: a stone cannot be a pass")
        stones.append((color(engine, who), point))
    try:
        engine.set_position(stones)
    except ValueError as error:
        raise GtpError(f"illegal position: {error}") from None
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


@command("genmove", color, pass_session=True)
def _genmove(session: Session, who: int) -> str:
    return session.engine.format_move(engine_move(session, who))


@command("reg_genmove", color, pass_session=True)
def _reg_genmove(session: Session, who: int) -> str:
    return session.engine.format_move(engine_move(session, who, play=False))


@command("kgs-genmove_cleanup", color, pass_session=True)
def _kgs_genmove_cleanup(session: Session, who: int) -> str:
    """kgsGtp's move in KGS's clean-up phase (the players disagreed on the
    dead stones, and when it ends every stone standing is alive): a move as
    rules that count the board as it stands have it (Tromp-Taylor,
    ``GameState.capture_dead``), the opponent's dead stones captured before
    passing; the game's rules stay as they were."""
    state = session.engine.state
    before, state.capture_dead = state.capture_dead, True
    try:
        return session.engine.format_move(engine_move(session, who))
    finally:
        state.capture_dead = before


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


@command("gomill-explain_last_move")
def _explain_last_move(engine: GameEngine) -> str:
    """What the search saw when it chose the last move imago generated
    (gomill's ringmaster keeps it in the game record): win rate, visits and
    the line it expected; empty when no search chose a move yet."""
    return engine.explanation


@command("stop")
def _stop(engine: GameEngine) -> str:
    """KataGo's: stop analysis or pondering. Any command line does that
    already (the analysis answers end when input arrives); this one only
    answers."""
    return ""


@command("kgs-game_over")
def _kgs_game_over(engine: GameEngine) -> str:
    """kgsGtp's notice that the game has ended (it sends it to engines that
    know it); imago notes it and waits for the next game."""
    log.info("KGS: the game is over")
    return ""


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
        note = engine.load_sgf(path, move_number)
    except (OSError, ValueError) as error:
        log.warning("cannot load %s: %s", path, error)
        raise GtpError(f"cannot load file: {_file_reason(error)}") from None
    if note:
        log.info("loadsgf %s: %s", path, note)
    return ""


def _file_reason(error: Exception) -> str:
    """Why a file could not be read or written, without its name: the
    system's words for OSError, the line and column of an SGF error
    (``illegal move B[dd]: occupied``), else the error's text."""
    if isinstance(error, OSError):
        return error.strerror or type(error).__name__
    reason = getattr(error, "reason", None) or str(error)
    line = getattr(error, "line", None)
    return f"line {line} column {getattr(error, 'column', '?')}: {reason}" if line else reason


@command("printsgf", optional=(word,))
def _printsgf(engine: GameEngine, path: Optional[str] = None) -> str:
    if path is None:
        return engine.sgf_text()
    try:
        engine.save_sgf(path)
    except (OSError, ValueError) as error:
        log.warning("cannot save %s: %s", path, error)
        raise GtpError(f"cannot save file: {_file_reason(error)}") from None
    return ""


# ---------------------------------------------------------------- time
def _clock_refused(name: str, error: ValueError) -> GtpError:
    """The spec's error for clock numbers the engine refuses (negative,
    huge, not a whole number of stones); the reason goes to the log."""
    log.info("%s refused: %s", name, error)
    return GtpError("syntax error")


@command("time_settings", number, number, integer)
def _time_settings(engine: GameEngine, main: float, byo_yomi: float, stones: int) -> str:
    try:
        engine.time_control.time_settings(main, byo_yomi, stones)
    except ValueError as error:
        raise _clock_refused("time_settings", error) from None
    log.info("time: %s", engine.time_control.describe())
    return ""


@command("kgs-time_settings", lower_word, rest=number)
def _kgs_time_settings(engine: GameEngine, system: str, numbers: list[float]) -> str:
    try:
        engine.time_control.kgs_time_settings(system, *numbers)
    except ValueError as error:
        raise _clock_refused("kgs-time_settings", error) from None
    log.info("time: %s", engine.time_control.describe())
    return ""


@command("time_left", color, number, integer)
def _time_left(engine: GameEngine, who: int, seconds: float, stones: int) -> str:
    try:
        engine.time_control.time_left(who, seconds, stones)
    except ValueError as error:
        raise _clock_refused("time_left", error) from None
    return ""


@command("cputime")
@command("gomill-cpu_time")
def _cputime(engine: GameEngine) -> str:
    """GoGui's ``cputime``: CPU seconds the engine process has used since it
    started, all its threads and any children it waited for included
    (gogui-twogtp and gogui-regress take differences)."""
    children = os.times()
    return f"{time.process_time() + children.children_user + children.children_system:.3f}"
