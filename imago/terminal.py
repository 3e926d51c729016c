"""Terminal play: a human against the engine, or two humans, on a text board.

:class:`TerminalGame` reads commands line by line from an input stream and
writes the board, prompts and answers to an output stream (flushed after
every write), so it works the same on a terminal, through a pipe and inside
tests. It needs no readline and no terminal features.

Commands live in one table, :data:`COMMANDS` (name -> handler, argument
synopsis, help text); a line that is not a command is read as a vertex
(``D4``, ``d4``) and played. Adding a command is one decorated method.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from typing import Any, Callable, Optional, TextIO

from imago.game import (BLACK, WHITE, Count, GameBoard, GameState, IllegalMoveError,
                        area_counts, format_board, index_to_vertex, opponent,
                        vertex_to_index)
from imago.game.coords import GTP_COLUMNS
from imago.game.display import STONE_CHARS
from imago.game.rulesets import KataRules, differences_warning
from imago.game.state import TERRITORY
from imago import sgf
from imago.sgf.errors import clip, quote
from imago.sgf.files import MAX_SGF_BYTES, file_problem

from imago.engine.algorithm import (DEFAULT_ALGORITHM, RESIGN, DecisionAlgorithm,
                                    UnknownOptionError, create_algorithm, pondering,
                                    prepare_in_background)
from imago.engine.engine import summary_words

DEFAULT_SIZE = 9
DEFAULT_KOMI = 7.5
HANDICAP_KOMI = 0.5
"""Komi when a handicap is given and none is named (the usual half point)."""

COLOR_WORDS = {BLACK: "Black", WHITE: "White"}

ILLEGAL_EXPLANATIONS = {
    "occupied": "{v} already has a stone",
    "suicide": "{v} would leave your own stones without liberties",
    "ko": "{v} would retake the ko at once; play elsewhere first",
    "superko": "{v} would repeat an earlier whole-board position",
    "off board": "{v} is not on the board",
}

_VERTEX_LIKE = re.compile(r"^[a-z][0-9]+$", re.IGNORECASE)


def color_name(color: int) -> str:
    """``Black (X)`` or ``White (O)``: the colour with its board symbol."""
    return f"{COLOR_WORDS[color]} ({STONE_CHARS[color]})"


def render_board(board: GameBoard, last_move: Optional[int] = None) -> str:
    """The board with GTP coordinates on all sides, ``X`` Black, ``O`` White,
    ``+`` star points, and the last move in parentheses (GTP showboard's
    drawing, :func:`imago.game.format_board`)."""
    return format_board(board, last_move, margin=2)


def new_game_state(size: int = DEFAULT_SIZE, komi: Optional[float] = None,
                   handicap: int = 0, rules: Optional[KataRules] = None) -> GameState:
    """A fresh game; ``handicap`` >= 2 places fixed handicap stones (White
    then moves first). ``komi`` None means 7.5 (the ``rules``' own komi
    when given: 6.5 for Japanese), or 0.5 with a handicap. ``rules``
    (None: area scoring, no handicap bonus) are applied by
    :meth:`GameState.apply_rules`. Raises ValueError with a readable reason."""
    if not 2 <= size <= len(GTP_COLUMNS):
        raise ValueError(f"board size must be 2..{len(GTP_COLUMNS)}, not {size}")
    if handicap == 1 or handicap < 0:
        raise ValueError(f"handicap must be 0 (none) or at least 2 stones, not {handicap}")
    if komi is None:
        komi = HANDICAP_KOMI if handicap else DEFAULT_KOMI if rules is None else rules.komi
    state = GameState(size, komi)
    if handicap:
        state.set_fixed_handicap(handicap)
    if rules is not None:
        state.apply_rules(rules)
    return state


def settings_words(state: GameState) -> str:
    """``9x9, komi 0.5 and White's handicap bonus 2, handicap 2``: the size,
    the komi (and bonus), the handicap and, where it is not area, the
    scoring."""
    words = f"{state.size}x{state.size}, komi {state.komi:g}"
    if state.bonus_points:
        words += f" and White's handicap bonus {state.bonus_points}"
    if state.handicap:
        words += f", handicap {state.handicap}"
    if state.scoring == TERRITORY:
        words += ", territory scoring"
    return words


def record_rules(state: GameState) -> tuple[Optional[KataRules], str]:
    """The rules a loaded record names in its ``RU`` (KataGo's names:
    ``Japanese``, ``Chinese``, ``AGA``, ...), and what to tell the player:
    ``(None, "")`` without one, ``(None, reason)`` for one imago does not
    know (the game is then counted by area)."""
    name, rules = state.recorded_rules()
    if name is None or rules is not None:
        return rules, ""
    return None, f"its rules {quote(clip(name))} are not a set imago knows: counted by area"


def count_words(state: GameState, black: int, white: int) -> str:
    """``Black 45, White 36, komi 7.5``: what a count of ``state`` (``black``
    and ``white`` the points by area) adds up from: the komi, with White's
    handicap bonus where the rules give one, and under territory scoring
    the stones played, which count against each side."""
    words = f"Black {black}, White {white}, komi {state.komi:g}"
    if state.bonus_points:
        words += f" and White's handicap bonus {state.bonus_points}"
    if state.scoring != TERRITORY:
        return words
    more = state.stone_difference()
    played = ("both put as many stones on the board" if more == 0 else
              f"{'Black' if more > 0 else 'White'} put {abs(more)} "
              f"stone{'s' if abs(more) != 1 else ''} more on the board")
    return f"{words}; by territory: {played}"


@dataclass(frozen=True)
class Command:
    """One entry of the command table."""

    name: str
    handler: Callable[["TerminalGame", str], None]
    help: str
    argument: str = ""
    """Synopsis of the argument (``FILE``); empty: the command takes none."""
    during_play: bool = False
    """True: refused once the game is over (moves, pass, resign)."""


COMMANDS: dict[str, Command] = {}
"""The in-game commands by name, in the order ``help`` lists them."""


def command(name: str, help: str, argument: str = "",
            during_play: bool = False) -> Callable:
    """Register a :class:`TerminalGame` method as the command ``name``."""
    def register(func: Callable[["TerminalGame", str], None]) -> Callable:
        COMMANDS[name] = Command(name, func, help, argument, during_play)
        return func
    return register


class TerminalGame:
    """A game played in a text terminal (or any pair of streams).

    ``players`` maps each colour to the :class:`DecisionAlgorithm` that
    plays it, or None for a human at the keyboard. ``seconds`` is the time
    allowed per engine move. ``echo`` repeats each input line after its
    prompt, so transcripts of piped input read like a session (default: on
    when the input is not a terminal).
    """

    def __init__(self, state: GameState, players: dict[int, Optional[DecisionAlgorithm]],
                 stdin: TextIO, stdout: TextIO, seconds: Optional[float] = None,
                 echo: Optional[bool] = None):
        self.state = state
        self.players = {BLACK: players.get(BLACK), WHITE: players.get(WHITE)}
        self.stdin = stdin
        self.stdout = stdout
        self.seconds = seconds
        if echo is None:
            isatty = getattr(stdin, "isatty", None)
            echo = not (isatty and isatty())
        self.echo = echo
        self.resigned: Optional[int] = None
        self.finished = False  # quit was asked for
        self.stats = False     # a winrate line after each engine move
        self.hint_algorithm: Optional[DecisionAlgorithm] = None
        self.ponder_due: Optional[DecisionAlgorithm] = None
        """The engine that just moved: it may ponder while the person thinks."""
        self.preparing: list[threading.Thread] = []
        self.dead_marks: Optional[set[int]] = None
        """Dead stones as the players settled them with ``dead``; None: as
        the count judges them."""
        self.rules: Optional[KataRules] = None
        """The rules given for the game (go.py's ``--rules``; None: area
        scoring), applied again to a game loaded with ``load``; without
        them a loaded game is counted by its record's ``RU``."""

    @classmethod
    def create(cls, stdin: TextIO, stdout: TextIO, size: int = DEFAULT_SIZE,
               komi: Optional[float] = None, handicap: int = 0,
               humans: tuple[int, ...] = (BLACK,), algorithm: str = DEFAULT_ALGORITHM,
               seed: Optional[int] = None, seconds: Optional[float] = None,
               echo: Optional[bool] = None,
               options: Optional[dict[str, Any]] = None,
               rules: Optional[KataRules] = None) -> "TerminalGame":
        """Set up a game from command-line choices: the colours in
        ``humans`` are played at the keyboard, the others by ``algorithm``
        (with its ``options`` and ``seed`` when given), counted by ``rules``
        (None: area scoring). Raises ValueError with the reason."""
        state = new_game_state(size, komi, handicap, rules)
        engine = None
        if any(color not in humans for color in (BLACK, WHITE)):
            options = dict(options or {})
            if seed is not None:
                options["seed"] = seed
            try:
                engine = create_algorithm(algorithm, **options)
            except (TypeError, UnknownOptionError) as exc:
                raise ValueError(f"algorithm {algorithm!r} refused the options "
                                 f"{options}: {exc}") from exc
            engine.check_size(size)
        players = {color: None if color in humans else engine for color in (BLACK, WHITE)}
        game = cls(state, players, stdin, stdout, seconds, echo)
        game.rules = rules
        return game

    # ------------------------------------------------------------ output
    def say(self, text: str = "") -> None:
        """Write a line and flush (pipes must see it at once)."""
        self.stdout.write(text + "\n")
        self.stdout.flush()

    def show_board(self) -> None:
        """The board, the last move, captures and whose turn it is."""
        node = self.state.current
        self.say(render_board(self.state.board, node.point if node.is_move else None))
        black, white = node.captures
        if node.is_move:
            last = f"Move {node.number}: {COLOR_WORDS[node.color]} {node.vertex}"
        else:
            last = "No moves yet"
        self.say(f"{last}. Captures: Black {black}, White {white}.")
        if not self.is_over:
            self.say(f"{color_name(self.state.to_move)} to play, move {node.number + 1}.")

    def score_text(self) -> str:
        """``B+3.5 (Black 45, White 36, komi 7.5)``: the area score now,
        every stone on the board counted as alive."""
        state = self.state
        black, white = area_counts(state.board)
        return f"{state.result()} ({count_words(state, black, white)})"

    def count_text(self, judged: Count) -> str:
        """``B+3.5 (Black 45, White 36, komi 7.5, dead: 2 black, 1 white)``:
        the final count ``judged`` and what it adds up from."""
        dead = (f", dead: {judged.dead_black} black, {judged.dead_white} white"
                if judged.dead else "")
        words = count_words(self.state, judged.black, judged.white)
        return f"{judged.result} ({words}{dead})"

    def final_count(self) -> Count:
        """The position judged as final, as the engine's ``final_score``
        judges it (:func:`imago.game.count`: dead stones removed, open
        borders by the ownership estimate; under Tromp-Taylor every stone
        standing alive, :meth:`GameState.final_count`)."""
        dead = None if self.dead_marks is None else sorted(self.dead_marks)
        return self.state.final_count(dead)

    def dead_text(self, judged: Count) -> str:
        """``Dead stones: black C3 D4; white E5.`` (``none`` if none)."""
        size = self.state.size
        parts = []
        for color in (BLACK, WHITE):
            stones = [p for p in judged.dead if self.state.board[p] == color]
            if stones:
                names = " ".join(index_to_vertex(p, size) for p in stones)
                parts.append(f"{COLOR_WORDS[color].lower()} {names}")
        return f"Dead stones: {'; '.join(parts) or 'none'}."

    # ------------------------------------------------------------ state
    @property
    def is_over(self) -> bool:
        """True after a resignation or two passes in a row."""
        return self.resigned is not None or self.state.is_over

    def is_human(self, color: int) -> bool:
        """True if ``color`` is played at the keyboard."""
        return self.players[color] is None

    def engine_to_move(self) -> bool:
        """True if the game goes on and the side to move is an engine."""
        return not self.is_over and not self.is_human(self.state.to_move)

    # ------------------------------------------------------------ the loop
    def run(self) -> int:
        """Play until the input ends or ``quit``; returns the exit code (0)."""
        try:
            self.introduce()
            if not self.engine_to_move():
                self.show_board()
            self._after_change()
            while not self.finished:
                line = self.read_line(self.prompt())
                if line is None:
                    if self.is_over:
                        self.say("End of input. Bye.")
                    else:
                        self.say("End of input: game left unfinished. Bye.")
                    return 0
                self.execute(line)
            return 0
        finally:
            for algorithm in set(p for p in self.players.values() if p is not None):
                algorithm.close()

    def introduce(self) -> None:
        """The opening lines: the game's settings and who plays what."""
        state = self.state
        self.say(f"imago: {settings_words(state)}.")
        warning = None if self.rules is None else differences_warning(self.rules, "plays so")
        if warning:
            self.say(f"Rules: {warning}.")
        for color in (BLACK, WHITE):
            player = self.players[color]
            guide = "" if player is None else player.guide(state.size)
            who = "human" if player is None else \
                f"engine ({player.name}{', ' + guide if guide else ''})"
            self.say(f"{color_name(color)}: {who}")
        self.say("Type a vertex such as D4 to play, or help for the commands.")
        for player in set(p for p in self.players.values() if p is not None):
            player.new_game(state)
            self.preparing.append(prepare_in_background(player, state.size))

    def wait_until_ready(self) -> None:
        """Before an engine's first move: wait for its network to load,
        saying so when that takes a while (TensorFlow: several seconds)."""
        for thread in self.preparing:
            thread.join(0.2)
            if thread.is_alive():
                self.say("(imago is loading its network; a few seconds the first time)")
                thread.join()
        self.preparing = []

    def prompt(self) -> str:
        """The prompt: whose turn and which move, or that the game is over."""
        if self.is_over:
            return "game over> "
        return f"{color_name(self.state.to_move)} move {self.state.current.number + 1}> "

    def read_line(self, prompt: str) -> Optional[str]:
        """Prompt and read one line; None at the end of the input."""
        self.stdout.write(prompt)
        self.stdout.flush()
        thinker, self.ponder_due = self.ponder_due, None
        if thinker is not None and not self.is_over and self.is_human(self.state.to_move):
            with pondering(thinker, self.state):  # a no-op unless it was told to ponder
                line = self.stdin.readline()
        else:
            line = self.stdin.readline()
        if not line:
            self.stdout.write("\n")
            return None
        if self.echo:
            self.stdout.write(line if line.endswith("\n") else line + "\n")
        self.stdout.flush()
        return line.strip()

    def execute(self, line: str) -> None:
        """Run one input line: a command from :data:`COMMANDS` or a vertex."""
        if not line:
            return
        word, *rest = line.split(None, 1)
        name, argument = word.lower(), (rest[0].strip() if rest else "")
        entry = COMMANDS.get(name)
        if entry is None:
            if _VERTEX_LIKE.match(word):
                if argument:
                    self.say(f"a move takes no argument: {quote(line)}")
                    return
                self.play_vertex(word)
            else:
                self.say(f"unknown command {quote(word)} (type help)")
            return
        if entry.during_play and self.is_over:
            self.say("the game is over (undo to take moves back, or quit)")
            return
        if entry.argument and not argument:
            self.say(f"usage: {entry.name} {entry.argument}")
            return
        if not entry.argument and argument:
            self.say(f"{entry.name} takes no argument")
            return
        entry.handler(self, argument)

    # ------------------------------------------------------------ moves
    def play_vertex(self, word: str) -> None:
        """Play the human's move at a typed vertex, if it is on the board."""
        if self.is_over:
            self.say("the game is over (undo to take moves back, or quit)")
            return
        size = self.state.size
        try:
            point = vertex_to_index(word, size)
        except ValueError:
            letters = GTP_COLUMNS[:size]
            hint = " (columns skip I)" if word[0].lower() == "i" else ""
            self.say(f"not a vertex: {clip(word)}{hint}; on this board columns are "
                     f"{letters[0]}-{letters[-1]} and rows 1-{size}")
            return
        self.human_move(point)

    def human_move(self, point: Optional[int]) -> None:
        """Play ``point`` (None: pass) for the side to move, reporting an
        illegal move with its reason; then let the engine answer."""
        color = self.state.to_move
        try:
            self.state.play(color, point)
        except IllegalMoveError as exc:
            vertex = index_to_vertex(point, self.state.size)
            explanation = ILLEGAL_EXPLANATIONS.get(exc.reason, "{v}").format(v=vertex)
            self.say(f"illegal move: {exc.reason} ({explanation})")
            return
        if self.engine_to_move():
            self.say(f"{COLOR_WORDS[color]} {self.move_words()}.")
        else:
            self.show_board()
        self._after_change()

    def engine_move(self) -> None:
        """Ask the side to move's algorithm for a move and play it. A move
        the rules forbid is refused (the engine passes instead)."""
        color = self.state.to_move
        algorithm = self.players[color]
        assert algorithm is not None
        self.wait_until_ready()
        point = algorithm.choose_move(self.state, color, self.seconds)
        if point == RESIGN:
            self.say(f"{COLOR_WORDS[color]} ({algorithm.name}) resigns.")
            self.resigned = color
            return
        reason = self.state.board.illegal_reason(point, color)
        if reason is not None:
            vertex = index_to_vertex(point, self.state.size) \
                if isinstance(point, int) and 0 <= point < len(self.state.board.cells) \
                else repr(point)
            self.say(f"engine error: {algorithm.name} chose an illegal move "
                     f"({vertex}: {reason}); it passes instead.")
            point = None
        self.state.play(color, point)
        self.ponder_due = algorithm
        self.say(f"{COLOR_WORDS[color]} ({algorithm.name}) {self.move_words()}.")
        if self.stats:
            line = self.summary_words(algorithm)
            if line:
                self.say(f"  ({line})")
        self.show_board()

    def summary_words(self, algorithm: DecisionAlgorithm) -> str:
        """``winrate 56.0%, 800 visits, expects D4 E5 C3`` for the last search."""
        return summary_words(algorithm.summary(), self.state.size)

    def move_words(self) -> str:
        """``plays D4`` or ``passes``: the current node's move as words."""
        node = self.state.current
        return "passes" if node.is_pass else f"plays {node.vertex}"

    def _after_change(self) -> None:
        """Let engines move while it is their turn, then announce the end
        of the game if it has come."""
        self.dead_marks = None
        while self.engine_to_move():
            self.engine_move()
        if self.is_over:
            self.announce_result()

    def result(self) -> str:
        """The SGF result of the finished game: ``B+R``, ``W+3.5``, ``0``
        (the count of :meth:`final_count`)."""
        if self.resigned is not None:
            return "B+R" if opponent(self.resigned) == BLACK else "W+R"
        return self.final_count().result

    def announce_result(self) -> None:
        """Print how the game ended (the dead stones, then the count) and
        what can still be done."""
        if self.resigned is not None:
            self.say(f"Game over: {COLOR_WORDS[self.resigned]} resigned, {self.result()}")
        else:
            judged = self.final_count()
            self.say(self.dead_text(judged))
            self.say(f"Game over: {self.count_text(judged)}")
            self.say("Disagree? Type dead VERTEX to mark a string dead, or alive again.")
        self.say("Type save FILE to keep it, undo to take moves back, score, or quit.")

    # ------------------------------------------------------------ commands
    @command("pass", "pass your turn (two passes in a row end the game)", during_play=True)
    def cmd_pass(self, argument: str) -> None:
        self.human_move(None)

    @command("resign", "give up the game", during_play=True)
    def cmd_resign(self, argument: str) -> None:
        color = self.state.to_move
        self.say(f"{COLOR_WORDS[color]} resigns.")
        self.resigned = color
        self.announce_result()

    @command("undo", "take back your last move (and the engine's reply to it)")
    def cmd_undo(self, argument: str) -> None:
        # back to the position before the latest move of a human player
        target = None
        for node in reversed(self.state.history()):
            if self.is_human(node.color):
                target = node.parent
                break
        if target is None:
            self.say("nothing to undo")
            return
        taken = []
        while self.state.current is not target:
            taken.append(self.state.current.vertex)
            self.state.undo()
        self.resigned = None
        self.say(f"Took back {', '.join(reversed(taken))}.")
        self.show_board()
        self._after_change()

    @command("dead", "after two passes: mark the string at VERTEX dead, or alive if it was "
                     "counted dead; the count follows", "VERTEX")
    def cmd_dead(self, argument: str) -> None:
        if not self.state.is_over or self.resigned is not None:
            self.say("dead marks stones after two passes end the game")
            return
        if self.state.capture_dead:
            self.say("under these rules (Tromp-Taylor) every stone standing at the end is "
                     "alive: dead stones had to be captured before passing")
            return
        size = self.state.size
        board = self.state.board
        try:
            point = vertex_to_index(argument, size)
        except ValueError:
            self.say(f"not a vertex: {clip(argument)}")
            return
        if point is None or board[point] not in (BLACK, WHITE):
            self.say(f"no stone at {argument.upper()}")
            return
        if self.dead_marks is None:
            self.dead_marks = set(self.final_count().dead)
        string = set(board.string_stones(point))
        marked_dead = not string <= self.dead_marks
        self.dead_marks = (self.dead_marks | string) if marked_dead else (self.dead_marks - string)
        status = "dead" if marked_dead else "alive"
        self.say(f"{COLOR_WORDS[board[point]]} {argument.upper()} and its string "
                 f"({len(string)} stones) now count as {status}.")
        judged = self.final_count()
        self.say(self.dead_text(judged))
        self.say(f"Game over: {self.count_text(judged)}")

    @command("score", "the score now (every stone counted as alive); "
                      "after two passes, the final count")
    def cmd_score(self, argument: str) -> None:
        if self.is_over and self.resigned is None:
            self.say(f"Score: {self.count_text(self.final_count())}")
        else:
            self.say(f"Score: {self.score_text()}")

    @command("board", "show the board again")
    def cmd_board(self, argument: str) -> None:
        self.show_board()

    @command("save", "write the game to an SGF file", "FILE")
    def cmd_save(self, argument: str) -> None:
        props = self.state.root.properties
        for color, key in ((BLACK, "PB"), (WHITE, "PW")):
            player = self.players[color]
            props.setdefault(key, ["human" if player is None else f"imago ({player.name})"])
        if self.is_over:
            props["RE"] = [self.result()]
        else:
            props.pop("RE", None)
        try:
            sgf.save(os.path.expanduser(argument), self.state)
        except (OSError, ValueError) as exc:  # ValueError: a FIFO or device
            self.say(f"cannot save {argument}: {file_problem(exc)}")
            return
        self.say(f"Saved {self.state.current.number} moves to {argument}.")

    @command("load", "go on with the game in an SGF file (the end of its main line)",
             "FILE")
    def cmd_load(self, argument: str) -> None:
        try:
            games = sgf.load(os.path.expanduser(argument), limit=MAX_SGF_BYTES)
        except sgf.SGFError as exc:  # it reads "FILE:LINE:COLUMN: reason"
            self.say(f"cannot load {exc}")
            return
        except (OSError, ValueError) as exc:  # no such file, a device, FIFO or giant
            self.say(f"cannot load {argument}: {file_problem(exc)}")
            return
        state = games[0]
        *_, state.current = state.root.main_line()
        rules, problem = (self.rules, "") if self.rules is not None else record_rules(state)
        if rules is not None:
            state.apply_rules(rules)
        self.state = state
        self.resigned = None
        for player in set(p for p in self.players.values() if p is not None):
            player.new_game(state)
        extra = f" (the first of {len(games)} games)" if len(games) > 1 else ""
        moves = state.current.number
        self.say(f"Loaded {argument}{extra}: {settings_words(state)}, {moves} "
                 f"move{'' if moves == 1 else 's'}" + (f"; {problem}." if problem else "."))
        self.show_board()
        self._after_change()

    @command("hint", "suggest a move for the side to move", during_play=True)
    def cmd_hint(self, argument: str) -> None:
        color = self.state.to_move
        algorithm = self.players[3 - color] or self.players[color]
        if algorithm is None:  # two humans: a quick search helps
            if self.hint_algorithm is None:
                self.hint_algorithm = create_algorithm("uct", visits=2000, seed=1)
            algorithm = self.hint_algorithm
        point = algorithm.choose_move(self.state, color, self.seconds)
        if point == RESIGN:
            self.say("hint: the position looks lost (resigning is an option)")
            return
        words = self.summary_words(algorithm)
        self.say(f"hint: {index_to_vertex(point, self.state.size)}" + (f" ({words})" if words else ""))

    @command("help", "list the commands")
    def cmd_help(self, argument: str) -> None:
        width = max(len(f"{c.name} {c.argument}") for c in COMMANDS.values())
        self.say(f"  {'D4, d4':<{width}}  play a stone there (columns skip I)")
        for entry in COMMANDS.values():
            synopsis = f"{entry.name} {entry.argument}".strip()
            self.say(f"  {synopsis:<{width}}  {entry.help}")

    @command("quit", "leave the program")
    def cmd_quit(self, argument: str) -> None:
        if not self.is_over:
            self.say("Game abandoned.")
        self.say("Bye.")
        self.finished = True


__all__ = ["TerminalGame", "COMMANDS", "Command", "command", "render_board",
           "new_game_state", "DEFAULT_SIZE", "DEFAULT_KOMI"]
