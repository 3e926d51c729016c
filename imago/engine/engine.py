"""The engine core: a game, a decision algorithm and a clock.

:class:`GameEngine` is what GTP commands act on. It takes and returns
internal values (colours, point indexes, numbers) and raises exceptions
with readable reasons; it parses and formats no GTP text, so other front
ends (terminal play, self-play, tests) can drive it directly.
"""

from __future__ import annotations

import inspect
import logging
import os
import threading
import time
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional

from imago.game import (BLACK, WHITE, Count, GameMove, GameState, IllegalMoveError,
                        final_ownership, format_board, format_result, index_to_vertex)
from imago.game.rulesets import KataRules, differences_warning

from .algorithm import RESIGN, DecisionAlgorithm, prepare_in_background
from .timecontrol import MIN_SECONDS, TimeControl

if TYPE_CHECKING:
    from imago.search import PUCTSearch

log = logging.getLogger(__name__)

ALIVE, DEAD, SEKI = "alive", "dead", "seki"
STATUSES = (ALIVE, DEAD, SEKI)

def keep_main_line(root: Any, move_number: Optional[int] = None) -> None:
    """Cut an SGF parse tree (``imago.sgf.ASTNode``) down to its main line,
    ending before the node that holds move ``move_number`` (None: to the
    end), so that only what a position needs is converted and checked."""
    def moves(node: Any) -> int:
        return len(node.properties.get("B", ())) + len(node.properties.get("W", ()))

    node, played = root, moves(root)
    while node.children:
        child = node.children[0]
        if move_number is not None and played + moves(child) >= move_number:
            node.children = []
            break
        node.children = [child]
        node, played = child, played + moves(child)


def summary_words(info: Optional[dict], size: int) -> str:
    """``winrate 56.0%, 800 visits, expects D4 E5 C3``: an algorithm's
    :meth:`~imago.engine.algorithm.DecisionAlgorithm.summary` in words
    (empty without one)."""
    if not info:
        return ""
    if "exact" in info:
        return f"solved: {info['exact']:+d} points on the board for the side that moved"
    pv = " ".join(index_to_vertex(p, size) for p in info.get("pv", [])[:6])
    text = f"winrate {info['winrate']:.1%}, {info['visits']} visits"
    return text + (f", expects {pv}" if pv else "")


def algorithm_parameters(algorithm: DecisionAlgorithm) -> set[str]:
    """The keyword arguments the algorithm's ``choose_move`` accepts."""
    try:
        return set(inspect.signature(algorithm.choose_move).parameters)
    except (TypeError, ValueError):
        return set()


class GameEngine:
    """A GTP engine's state and actions.

    Attributes:
        state: the :class:`GameState` being played.
        algorithm: the :class:`DecisionAlgorithm` that chooses moves.
        time_control: the :class:`TimeControl` (clock and per-move budget).
        quit_requested: set by GTP ``quit``; the I/O loop stops after it.
    """

    def __init__(self, algorithm: DecisionAlgorithm, size: int = 19, komi: float = 7.5,
                 time_control: Optional[TimeControl] = None):
        self.algorithm = algorithm
        self.state = GameState(size, komi)
        self.time_control = time_control if time_control is not None else TimeControl()
        self.quit_requested = False
        self._playout_search: Optional[PUCTSearch] = None
        self._preparing: Optional[threading.Thread] = None
        self._prepares = False  # whether a new board size is prepared in the background
        self._ponder_due = False  # a move of ours was played: the opponent thinks now
        self.explanation = ""  # the last chosen move's search in words (summary_words)
        self.rules_given = False  # rules set by the controller (use_rules) beat a record's RU
        self.algorithm.new_game(self.state)

    def start_preparing(self) -> None:
        """Load the algorithm's network in the background (seconds for
        TensorFlow) while the first commands are answered at once; from
        then on a new board size's network is loaded so too (9x9 has a
        network of its own: without this its first move paid the load)."""
        self._prepares = True
        self._preparing = prepare_in_background(self.algorithm, self.size)

    def _wait_for_network(self) -> float:
        """Wait for a network load under way (a ``genmove`` that came before
        any ``clear_board``) and return the seconds waited: the move's search
        gets that much less, and the wait is not taken for a search that
        overran its budget (which would shorten the next moves)."""
        if self._preparing is None:
            return 0.0
        started = time.monotonic()
        self.wait_until_ready()
        return time.monotonic() - started

    def wait_until_ready(self) -> None:
        """Wait for :meth:`start_preparing`'s load. ``clear_board`` does, so
        that the load is paid when a game is set up, which controllers do
        not time, and not on the clock of the first ``genmove``."""
        if self._preparing is not None:
            if self._preparing.is_alive():
                log.info("waiting for %s to load its network", self.algorithm.name)
            self._preparing.join()
            self._preparing = None

    # ------------------------------------------------------------ set-up
    @property
    def size(self) -> int:
        """The board size."""
        return self.state.size

    def set_board_size(self, size: int) -> None:
        """Change the size and clear the board. Raises ValueError, with the
        reason, for a size the board or the algorithm (a network made for
        9x9 only) does not support; the game is then left as it was."""
        self.algorithm.check_size(size)
        self.state.clear(size)
        self._new_game()
        if self._prepares:
            self._preparing = prepare_in_background(self.algorithm, size)

    def clear_board(self) -> None:
        """Start a new game on an empty board (size and komi kept), once
        the algorithm is ready (:meth:`wait_until_ready`)."""
        self.wait_until_ready()
        self.state.clear()
        self._new_game()

    def set_komi(self, komi: float) -> None:
        """Set the komi (any finite number)."""
        self.state.komi = komi

    def use_rules(self, rules: KataRules) -> Optional[str]:
        """Play under KataGo's ``rules`` (GTP's rules commands, ``imagocli
        --rules``): their scoring, by area or territory (see
        :attr:`GameState.scoring_komi`); White's points for Black's
        handicap stones (``"N"``, Chinese: a point a stone; ``"N-1"``, AGA:
        a point a stone after the first; ``"0"``), which are komi, so the
        game's komi (what the search, the network and the count read) is
        the komi set plus the bonus of the handicap on the board
        (:attr:`GameState.game_komi`); and whether dead stones must be
        captured before passing (Tromp-Taylor). The komi stays; a new game,
        and a game loaded, keep them (:meth:`GameState.apply_rules`).
        Returns the warning of what imago plays otherwise (its board's ko
        and suicide rules), or None. From then on a record's ``RU``
        (:meth:`load_sgf`) no longer changes them."""
        self.rules_given = True
        self.state.apply_rules(rules)
        return differences_warning(rules, "plays this game so")

    def _new_game(self) -> None:
        self.time_control.reset_clocks()
        self.algorithm.new_game(self.state)

    # ------------------------------------------------------------ moves
    def play(self, color: int, point: Optional[int]) -> GameMove:
        """Play a move of either colour (None: pass). Raises
        :class:`IllegalMoveError` with the reason; the game is unchanged."""
        return self.state.play(color, point)

    def choose_move(self, color: int, stop: Optional[Callable[[], bool]] = None,
                    progress: Optional[Callable[[Any], None]] = None,
                    interval: float = 1.0, restrictions: tuple = ()) -> Optional[int]:
        """Ask the algorithm for ``color``'s move (point, None for pass or
        :data:`RESIGN`) within the clock's budget, without playing it.

        Algorithms that accept them get ``stop`` (the search ends once it
        returns true: a controller's interrupt) and ``progress`` (called
        with the search every ``interval`` seconds: analysis lines, live
        graphics); the caller decides what those mean. ``restrictions``
        (:class:`~imago.search.leaf.MoveRestriction`: KataGo's ``avoid`` and
        ``allow`` with their depth) are moves the algorithm may not play,
        nor its search in the lines below (:meth:`check_forbidden` refuses
        them first with ValueError)."""
        if restrictions:
            self.check_forbidden(color, restrictions)
        seconds = self.time_control.seconds_for_move(
            color, self.state.current.number, self.state.size)
        waited = self._wait_for_network()
        if seconds is not None and waited > 0:
            seconds = max(MIN_SECONDS, seconds - waited)
        accepted = algorithm_parameters(self.algorithm)
        extra: dict = {}
        if stop is not None and "stop" in accepted:
            extra["stop"] = stop
        if progress is not None and "progress" in accepted:
            extra["progress"] = progress
            extra["interval"] = interval
        if restrictions:
            extra["restrictions"] = tuple(restrictions)
        started = time.monotonic()
        move = self.algorithm.choose_move(self.state, color, seconds, **extra)
        used = time.monotonic() - started
        self.time_control.record_move(color, used + waited, seconds, waited=waited)
        summary = self.algorithm.summary() or {}
        self.explanation = summary_words(summary, self.size)
        if log.isEnabledFor(logging.INFO):
            found = (f", proven {summary['exact']:+d}" if "exact" in summary else
                     f", {summary['visits']:,} visits" if "visits" in summary else "")
            loading = f", after {waited:.2f} s loading the network" if waited > 0.01 else ""
            log.info("%s chose %s in %.2f s (budget %s%s%s)", self.algorithm.name,
                     self.format_move(move), used,
                     "none" if seconds is None else f"{seconds:.2f} s", found, loading)
        return move

    def genmove(self, color: int, stop: Optional[Callable[[], bool]] = None,
                progress: Optional[Callable[[Any], None]] = None,
                interval: float = 1.0, restrictions: tuple = ()) -> Optional[int]:
        """Choose ``color``'s move (see :meth:`choose_move`) and play it;
        returns the move (point, None for pass, :data:`RESIGN` -- a
        resignation changes nothing)."""
        move = self.choose_move(color, stop, progress, interval, restrictions)
        if move != RESIGN:
            self.play(color, move)
            self._ponder_due = True
        return move

    def check_forbidden(self, color: int, restrictions: tuple) -> None:
        """Refuse ``restrictions`` (see :meth:`choose_move`) with a
        ValueError saying why: the algorithm cannot leave moves out, or they
        leave ``color`` no legal move now (the pass included)."""
        from imago.search.leaf import forbidden_at, legal_move_left

        forbidden = forbidden_at(restrictions, 0, color)
        if "restrictions" not in algorithm_parameters(self.algorithm):
            raise ValueError(f"avoid and allow need a search that can leave moves out: the "
                             f"{self.algorithm.name} algorithm cannot")
        if not legal_move_left(self.state.board, color, forbidden):
            raise ValueError("avoid and allow leave no legal move")

    def ponder(self, stop: Callable[[], bool]) -> int:
        """After a ``genmove`` that played, let the algorithm think on the
        opponent's time until ``stop()`` (the next command came): the I/O
        loop calls this while it waits. Once per move; returns the visits
        added (0 when nothing was due or the algorithm does not ponder)."""
        if not self._ponder_due:
            return 0
        self._ponder_due = False
        started = time.monotonic()
        visits = self.algorithm.ponder(self.state, stop)
        if visits:
            log.info("pondered %s's reply for %.2f s: %s visits",
                     "Black" if self.state.to_move == BLACK else "White",
                     time.monotonic() - started, f"{visits:,}")
        return visits

    def analysis_search(self, ready: bool = True) -> PUCTSearch:
        """The PUCT search analysis runs (GUIs' win rates, candidates,
        principal variations): the algorithm's own ``search`` when it has
        one, so analysis and play share one tree, set up for the position
        as a move would set it (``ready``: the board size's network, as
        after ``boardsize 19`` with no move searched yet; False only to
        read or change its parameters); else one over random playouts, kept
        here between calls, its komi that of the game."""
        from imago.search import PlayoutEvaluator, PUCTSearch

        search = getattr(self.algorithm, "search", None)
        if isinstance(search, PUCTSearch):
            set_up = getattr(self.algorithm, "ready_search", None)
            if ready and set_up is not None:
                set_up(self.state)
            return search
        if self._playout_search is None:
            self._playout_search = PUCTSearch(PlayoutEvaluator(seed=1), batch_size=8, seed=1)
        self._playout_search.evaluator.komi = self.state.game_komi
        return self._playout_search

    def clear_cache(self) -> None:
        """Forget what the searches keep between calls (the tree reused from
        move to move, the cached network answers), so that the next move or
        analysis searches afresh, as on a new engine (GTP ``clear_cache``)."""
        from imago.search import PUCTSearch

        for search in (getattr(self.algorithm, "search", None), self._playout_search):
            if isinstance(search, PUCTSearch):
                search.forget()
                search.cache.clear()

    def undo(self) -> None:
        """Take back the last move: back to the position before it, the
        nodes after it that hold no move (an SGF record's comment or setup
        nodes) dropped with it. Raises ValueError("cannot undo") when no
        move was played (handicap stones are not moves); the game is then
        unchanged."""
        state = self.state
        move = state.current
        while move is not None and not move.is_move:
            move = move.parent
        if move is None:
            raise ValueError("cannot undo")
        while state.current is not move:
            state.undo()
        state.undo()

    # ------------------------------------------------------------ handicap
    def fixed_handicap(self, stones: int) -> list[int]:
        """Place a fixed handicap; returns the points. Raises ValueError
        ("board not empty", "invalid number of stones ...")."""
        return self.state.set_fixed_handicap(stones)

    def place_free_handicap(self, stones: int) -> list[int]:
        """Let imago choose and place ``stones`` handicap stones."""
        return self.state.place_free_handicap(stones)

    def set_free_handicap(self, points: list[int]) -> None:
        """Place handicap stones where the opponent chose."""
        self.state.set_free_handicap(points)

    def set_position(self, stones: list[tuple[int, int]]) -> None:
        """Replace the game with a position of ``stones`` (``(colour,
        point)``) and no history (KataGo's ``set_position``: no ko nor
        superko yet, nothing captured), Black to move; the komi and rules
        stay. Raises ValueError, the game unchanged, for a point given twice
        or stones left without a liberty."""
        placed: dict[int, int] = {}
        for color, point in stones:
            if point in placed:
                raise ValueError(f"{self.format_move(point)} is given twice")
            placed[point] = color
        state = GameState.with_stones(self.size, self.state.komi, placed)
        state.take_rules_from(self.state)
        self.state = state
        self._new_game()

    # ------------------------------------------------------------ scoring
    def ownership(self) -> list[float]:
        """Expected owner of every cell at the end (+1 Black, -1 White), for
        display (analysis): the algorithm's own estimate when it has one (a
        network's ownership head), else :meth:`final_ownership`."""
        estimate = getattr(self.algorithm, "ownership", None)
        values = estimate(self.state) if estimate is not None else None
        return values if values is not None else self.final_ownership()

    def count(self) -> Count:
        """imago's judgement of the position as final, the one behind every
        scoring method here: the stones :meth:`dead_stones` names removed,
        seki found, open borders by the ownership estimate (see
        :func:`imago.game.count`); under rules where dead stones must be
        captured (Tromp-Taylor), every stone standing counted alive
        (:meth:`GameState.final_count`)."""
        state = self.state
        return state.final_count(None if state.capture_dead else self.dead_stones())

    def final_ownership(self) -> list[float]:
        """The estimate that decides dead stones and the final count (see
        :func:`imago.game.final_ownership`)."""
        return final_ownership(self.state.board, self.state.to_move)

    def dead_stones(self) -> list[int]:
        """The stones imago considers dead: strings standing on points the
        ownership estimate gives to the other colour. The other scoring
        methods remove what this names."""
        state = self.state
        return list(state.count().dead)

    def seki_stones(self) -> list[int]:
        """Alive stones that live in seki."""
        return list(self.count().seki)

    def score(self, dead: Optional[Iterable[int]] = None) -> float:
        """Black's lead with komi. With ``dead`` given, the plain area score
        with those stones removed; by default imago's own count
        (:meth:`count`)."""
        if dead is not None:
            return self.state.score(dead)
        return self.count().score

    def final_score(self, dead: Optional[Iterable[int]] = None) -> str:
        """The result: ``B+3.5``, ``W+0.5`` or ``0``."""
        return format_result(self.score(dead))

    def final_status(self, status: str) -> list[list[int]]:
        """The strings (lists of points) with ``status`` ``alive``, ``dead``
        or ``seki``. Raises ValueError for another status."""
        if status not in STATUSES:
            raise ValueError(f"unknown status {status!r}")
        board = self.state.board
        judged = self.count()
        dead, seki = set(judged.dead), set(judged.seki)
        strings, seen = [], set()
        for p in board.on_board():
            if board.cells[p] not in (BLACK, WHITE) or p in seen:
                continue
            stones = board.string_stones(p)
            seen.update(stones)
            kind = DEAD if p in dead else SEKI if p in seki else ALIVE
            if kind == status:
                strings.append(sorted(stones))
        return strings

    def area_owners(self) -> list[int]:
        """Owner of every cell (BLACK, WHITE or EMPTY) as the count gives it:
        dead stones removed, open borders by the estimate."""
        return list(self.count().owners)

    # ------------------------------------------------------------ SGF
    def load_sgf(self, path: str, move_number: Optional[int] = None) -> Optional[str]:
        """Replace the game with the first game of an SGF file, at the
        position before move ``move_number`` of its main line (1: the
        start; None: the end), the rest of the line and the variations
        dropped. The game is counted by the rules its record names in ``RU``
        (``Japanese``: territory, ``Chinese``: a handicap bonus ...) unless
        the controller set rules (:meth:`use_rules`); a name imago does not
        know, or no ``RU``, keeps the rules in force. Returns what changed
        in words, or None.

        The file must be a regular file of at most
        :data:`imago.sgf.files.MAX_SGF_BYTES`.
        Its text is read leniently (a truncated tree, a missing ``;``), but
        the moves up to that position must be legal: a record that
        occupies a point, retakes a ko at once or commits suicide there is
        refused, naming the move, since its moves and its board would
        disagree. Raises OSError or ValueError (``imago.sgf.SGFError`` with
        the line and column); the game is then unchanged."""
        from imago import sgf  # imported on use: playing needs no SGF parser
        from imago.sgf.files import MAX_SGF_BYTES, read_regular_file

        if move_number is not None and move_number < 1:
            raise ValueError(f"move number must be 1 or more, not {move_number}")
        data = read_regular_file(path, MAX_SGF_BYTES)  # no device, FIFO or giant
        root = sgf.parse(data, lenient=True, filename=os.fspath(path))[0]
        keep_main_line(root, move_number)
        state = sgf.to_game(root)  # strict: an illegal move raises SGFError
        node = state.root
        while node.children and (move_number is None
                                 or node.children[0].number < move_number):
            node = node.children[0]
        for child in list(node.children):
            node.remove_child(child)
        state.goto(node)
        state.take_rules_from(self.state)
        name, rules = state.recorded_rules()
        note = None
        if name is not None and not self.rules_given:
            if rules is None:
                note = (f"the record's rules {name[:40]!r} are not a set imago knows: "
                        f"counted by {state.scoring} scoring as before")
            else:
                before = (state.scoring, state.handicap_bonus, state.capture_dead)
                state.apply_rules(rules)
                if (state.scoring, state.handicap_bonus, state.capture_dead) != before:
                    note = (f"counted by the record's rules {name[:40]!r}: {state.scoring} "
                            f"scoring, White's handicap bonus {state.handicap_bonus}"
                            + (", dead stones captured before passing"
                               if state.capture_dead else ""))
        self.state = state
        self._new_game()
        return note

    def sgf_text(self) -> str:
        """The game tree (root to the current moves) as SGF text."""
        from imago import sgf

        return sgf.dumps(self.state)

    def save_sgf(self, path: str) -> None:
        """Write the game to an SGF file (UTF-8). Raises OSError, or
        ValueError when ``path`` names no regular file (a FIFO, or
        ``/dev/stdout``, where the text would corrupt the protocol)."""
        from imago import sgf

        sgf.save(path, self.state)

    # ------------------------------------------------------------ views
    def showboard(self) -> str:
        """The board drawn in text, the last move marked, captures beside it."""
        current = self.state.current
        return format_board(current.board, current.point if current.is_move else None,
                            current.captures)

    def last_move(self) -> Optional[GameMove]:
        """The node of the last move, or None at the start."""
        return self.state.last_move

    def move_history(self) -> list[GameMove]:
        """The moves played, most recent first (GNU Go's ``move_history``)."""
        return list(reversed(self.state.history()))

    def format_move(self, move: Optional[int]) -> str:
        """A move as GTP writes it: vertex, ``pass`` or ``resign``."""
        if move == RESIGN:
            return "resign"
        return index_to_vertex(move, self.state.size)

    def close(self) -> None:
        """Release the algorithm's resources."""
        self.algorithm.close()


__all__ = ["GameEngine", "IllegalMoveError", "STATUSES", "ALIVE", "DEAD", "SEKI",
           "keep_main_line"]
