"""The review's substance: a game record, the analysis query for it, and
what the answers say about each move.

A review is computed against any ``analyze(query, on_response) -> list of
responses`` callable that speaks KataGo's JSON analysis protocol (imago's
``imago.analysis.AnalysisEngine.analyze`` in the command line, a fake in
the tests), so this module needs neither a network nor a search.

- :func:`load_record` / :func:`record_of`: the main line of an SGF game as
  the moves to analyse, the position they start from and the game info.
  A setup node in the middle of the main line (``AB``/``AW``/``AE`` after
  the first move) starts the analysed sequence afresh from its position:
  the moves before it are listed in :attr:`GameRecord.notes` as not
  analysed, since no move sequence leads to the position after it.
- :func:`build_query`: one query, every turn from the start to the end.
- :func:`review_game`: :class:`Review` with a :class:`MoveReview` per move.

Each move is judged from the mover's side (the engine's own choice loses
nothing): ``points_lost`` is the score
lead of the engine's best move in the position before it minus the score
lead of the position after it (the root's), and ``winrate_lost`` the same
for the win rate. The grade follows the points lost (:class:`Thresholds`).
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from imago.game.rulesets import IMAGO_RULES, parse_rules
from imago.game import BLACK, WHITE, GameMove, GameState, color_letter, index_to_vertex, opponent
from imago.sgf import SGFError, load
from imago.sgf.files import MAX_SGF_BYTES, file_problem

Response = dict[str, Any]
Analyze = Callable[[dict, Optional[Callable[[Response], None]]], list[Response]]
"""``analyze(query, on_response)``: the final responses of a KataGo
analysis query; ``on_response`` (may be None) is called with each as it
arrives."""

PERSPECTIVES = ("BLACK", "WHITE", "SIDETOMOVE")
"""KataGo's ``reportAnalysisWinratesAs`` values: whose win rate and score
lead the responses give."""

DEFAULT_KOMI = 7.5
DEFAULT_HANDICAP_KOMI = 0.5
"""Komi assumed when the record has no ``KM``: 7.5 (Chinese rules, as
imago plays), 0.5 in a handicap game (as go.py sets it)."""

GRADES = ("good", "inaccuracy", "mistake", "blunder")


class ReviewError(Exception):
    """A game that cannot be reviewed, or an analysis that failed; the
    message is one line for the user."""


@dataclass(frozen=True)
class Thresholds:
    """Points lost from which a move is an inaccuracy, a mistake, a blunder.

    The defaults are KaTrain's class boundaries (its ``eval_thresholds``
    12, 6, 3, 1.5, 0.5, 0 points): its two worst classes make a blunder
    here (6 or more), then mistake (3), inaccuracy (1.5); anything less is
    good. Points are points on any board size: a 3-point slip is as big a
    share of a close 9x9 game as of a 19x19 one.
    """

    inaccuracy: float = 1.5
    mistake: float = 3.0
    blunder: float = 6.0

    def __post_init__(self) -> None:
        values = (self.inaccuracy, self.mistake, self.blunder)
        if not all(math.isfinite(v) and v > 0 for v in values) or \
                not self.inaccuracy <= self.mistake <= self.blunder:
            raise ValueError("thresholds must be positive numbers in increasing order "
                             f"(inaccuracy <= mistake <= blunder), not {values}")

    @classmethod
    def parse(cls, text: str) -> "Thresholds":
        """``"1.5,3,6"`` (inaccuracy, mistake, blunder). Raises ValueError."""
        parts = [p.strip() for p in text.split(",")]
        if len(parts) != 3:
            raise ValueError(f"expected three numbers INACCURACY,MISTAKE,BLUNDER, not {text!r}")
        try:
            values = [float(p) for p in parts]
        except ValueError:
            raise ValueError(f"not numbers: {text!r}") from None
        return cls(*values)

    def grade(self, points_lost: float) -> str:
        """The grade of a move that lost ``points_lost`` points."""
        if points_lost >= self.blunder:
            return "blunder"
        if points_lost >= self.mistake:
            return "mistake"
        if points_lost >= self.inaccuracy:
            return "inaccuracy"
        return "good"


@dataclass
class GameRecord:
    """What a review needs of a game: the analysed moves and where they start.

    ``start`` is the node whose position the analysis starts from (the root,
    or the last setup node of the main line); ``moves`` the move nodes of
    the main line after it; ``komi`` the komi used (``KM``, or the default
    with a note); ``notes`` what the reader should know (assumed komi, moves
    left out, a collection's other games).
    """

    game: GameState
    start: GameMove
    moves: list[GameMove]
    komi: float
    notes: list[str] = field(default_factory=list)
    name: str = ""

    @property
    def size(self) -> int:
        return self.game.size

    def info(self, key: str, default: str = "") -> str:
        """A root property's text (``PB``, ``RE``...), or ``default``."""
        values = self.game.root.properties.get(key)
        text = " ".join(values[0].split()) if values else ""
        return text or default

    @property
    def black(self) -> str:
        return self.info("PB", "Black")

    @property
    def white(self) -> str:
        return self.info("PW", "White")

    @property
    def result(self) -> str:
        """``RE`` as written (``B+R``, ``W+3.5``), or ``''``."""
        return self.info("RE")

    def start_player(self) -> int:
        """The colour to move at the start: the first move's, else the
        start node's turn."""
        return self.moves[0].color if self.moves else self.start.to_move

    def to_move(self, turn: int) -> int:
        """The colour to move at ``turn`` (0: the start position)."""
        if turn < len(self.moves):
            return self.moves[turn].color
        return opponent(self.moves[-1].color) if self.moves else self.start.to_move


def record_of(game: GameState, komi: Optional[float] = None, name: str = "") -> GameRecord:
    """The main line of ``game`` as a :class:`GameRecord` (see the module
    doc for setup nodes). ``komi`` overrides the record's; one that is not a
    whole or half number is rounded to one (with a note), one beyond
    +-150 raises :class:`ReviewError`."""
    notes: list[str] = []
    start = game.root
    moves: list[GameMove] = []
    skipped = 0
    for node in game.root.main_line():
        if node is game.root:
            continue
        if node.has_setup:
            skipped += len(moves)
            start, moves = node, []
        elif node.is_move:
            moves.append(node)
    if start is not game.root:
        where = f"after move {start.number}" if start.number else "before the first move"
        notes.append(f"setup stones {where}: the review starts there"
                     + (f" ({skipped} earlier move{'s' if skipped != 1 else ''} not analysed)"
                        if skipped else ""))
    moves = _legal_prefix(moves, notes)
    if komi is None:
        if "KM" in game.root.properties:
            komi = game.komi
        else:
            komi = DEFAULT_HANDICAP_KOMI if game.handicap else DEFAULT_KOMI
            notes.append(f"no komi (KM) in the record: {komi:g} assumed")
    komi = float(komi)
    if not (math.isfinite(komi) and abs(komi) <= MAX_KOMI):
        raise ReviewError(f"komi {komi:g} is beyond what the analysis takes (-150 to 150); "
                          "give one with --komi")
    if (komi * 2) % 1:
        rounded = round(komi * 2) / 2
        notes.append(f"komi {komi:g} rounded to {rounded:g} (the analysis takes whole "
                     "and half points)")
        komi = rounded
    return GameRecord(game, start, moves, komi, notes, name)


ILLEGAL_WORDS = {
    "superko": "it repeats an earlier whole-board position, which imago's rules (positional "
               "superko) forbid",
    "ko": "it retakes a ko at once",
    "suicide": "it is a suicide, which imago's rules forbid",
    "occupied": "its point is taken",
}
"""Why a recorded move cannot be analysed, by :meth:`GameBoard.illegal_reason`."""


def _legal_prefix(moves: list[GameMove], notes: list[str]) -> list[GameMove]:
    """The moves up to the first one illegal under imago's rules (a record
    played under rules that allow a repetition, such as a triple ko under
    Japanese rules), with a note saying where and why the review stops."""
    for index, node in enumerate(moves):
        reason = node.parent.board.illegal_reason(node.point, node.color)
        if reason is None:
            continue
        left = len(moves) - index
        notes.append(f"move {node.number} ({color_letter(node.color)} {node.vertex}): "
                     f"{ILLEGAL_WORDS.get(reason, reason)}; the review stops before it "
                     f"({left} move{'s' if left != 1 else ''} not analysed)")
        return moves[:index]
    return moves


def load_record(path: str, *, game_index: int = 0, komi: Optional[float] = None) -> GameRecord:
    """The game ``game_index`` (0 the first) of the SGF file at ``path``.
    Raises :class:`ReviewError` with one line naming the file and why."""
    kept = ""
    try:
        games = load(path, limit=MAX_SGF_BYTES)
    except SGFError as err:  # reads "FILE:LINE:COLUMN: reason"
        games = _read_leniently(path, err, game_index)
        kept = (f"{err} (read leniently, as far as the file goes; a move the rules forbid "
                "in the main line ends the review)")
    except (OSError, ValueError) as err:
        raise ReviewError(f"cannot read {path}: {file_problem(err)}") from None
    if not 0 <= game_index < len(games):
        raise ReviewError(f"{path} has {len(games)} game{'s' if len(games) != 1 else ''}, "
                          f"no game {game_index + 1}")
    record = record_of(games[game_index], komi, os.path.basename(path))
    if kept:
        record.notes.insert(0, kept)
    if len(games) > 1:
        record.notes.append(f"game {game_index + 1} of {len(games)} in the file")
    return record


def _read_leniently(path: str, refusal: SGFError, game_index: int) -> list[GameState]:
    """The games of ``path`` read leniently (moves the rules forbid kept, a
    tree left open closed, a missing ``;`` supplied), after a strict read
    refused the file (``refusal``), so that a game cut short or played
    under other rules is reviewed as far as it goes. Raises
    :class:`ReviewError` with the refusal where that read fails too or finds
    no move in game ``game_index``."""
    try:
        games = load(path, limit=MAX_SGF_BYTES, lenient=True)
    except (OSError, ValueError):
        games = []
    if not 0 <= game_index < len(games) or not any(
            node.is_move for node in games[game_index].root.main_line()):
        raise ReviewError(str(refusal))
    return games


MAX_KOMI = 150.0
"""KataGo's komi range: -150 to 150."""


def build_query(record: GameRecord, visits: int, *, query_id: str = "review",
                rules: Any = None) -> dict:
    """The KataGo analysis query for every turn of ``record``: 0 (the start
    position) to ``len(moves)`` (after the last move), so that move ``k`` has
    the position before it (turn ``k``) and after it (turn ``k + 1``).
    ``rules`` defaults to :data:`IMAGO_RULES`."""
    size = record.size
    stones = []
    board = record.start.board
    for point in board.on_board():
        color = board[point]
        if color in (BLACK, WHITE):
            stones.append([color_letter(color), index_to_vertex(point, size)])
    moves = [[color_letter(n.color), index_to_vertex(n.point, size)] for n in record.moves]
    return {
        "id": query_id,
        "moves": moves,
        "initialStones": stones,
        "initialPlayer": color_letter(record.start_player()),
        "rules": IMAGO_RULES if rules is None else rules,
        "komi": record.komi,
        "boardXSize": size,
        "boardYSize": size,
        "analyzeTurns": list(range(len(moves) + 1)),
        "maxVisits": visits,
    }


@dataclass
class Position:
    """One analysed turn, every value from Black's side (win rate 0..1,
    score lead in points): the root's, and the best move's with its line."""

    turn: int
    to_move: int
    winrate: float
    score: float
    visits: int
    best: Optional[str] = None
    best_winrate: Optional[float] = None
    best_score: Optional[float] = None
    pv: list[str] = field(default_factory=list)


@dataclass
class MoveReview:
    """One move of the analysed sequence and the engine's view of it.

    ``turn`` is the query turn of the position before the move;
    ``points_lost`` and ``winrate_lost`` are from the mover's side (None
    when a position is missing from the answers, or the engine analysed it
    for the other colour); ``grade`` one of :data:`GRADES` or None.
    """

    turn: int
    node: GameMove
    before: Optional[Position]
    after: Optional[Position]
    points_lost: Optional[float] = None
    winrate_lost: Optional[float] = None
    grade: Optional[str] = None

    @property
    def number(self) -> int:
        """The move's number in the game (1 the first move)."""
        return self.node.number

    @property
    def color(self) -> int:
        return self.node.color

    @property
    def vertex(self) -> str:
        return self.node.vertex

    @property
    def is_best(self) -> bool:
        """True when the move played is the engine's best move."""
        return self.before is not None and self.before.best is not None \
            and self.before.best.upper() == self.vertex.upper()

    @property
    def label(self) -> str:
        """``B D4`` style."""
        return f"{color_letter(self.color)} {self.vertex}"


@dataclass
class Review:
    """A reviewed game: the record, each turn's position (None where the
    answers lack it), each move's review, and the settings used."""

    record: GameRecord
    positions: list[Optional[Position]]
    moves: list[MoveReview]
    thresholds: Thresholds
    visits: int
    rules: Any = None
    """The rules the positions were analysed under (the query's ``rules``:
    a KataGo name or object); None: imago's (:data:`IMAGO_RULES`)."""

    def rules_words(self) -> str:
        """``area scoring, positional superko`` (imago's rules), or the
        scoring, the handicap bonus and the name of the rules given."""
        return rules_words(self.rules)

    def graded(self, color: Optional[int] = None) -> list[MoveReview]:
        """The moves with a grade (of ``color`` only, if given)."""
        return [m for m in self.moves if m.grade is not None
                and (color is None or m.color == color)]

    def worst(self, count: int = 10, minimum: Optional[float] = None) -> list[MoveReview]:
        """The ``count`` moves that lost most points (at least ``minimum``;
        default: the inaccuracy threshold), worst first."""
        floor = self.thresholds.inaccuracy if minimum is None else minimum
        moves = [m for m in self.graded() if m.points_lost >= floor]
        moves.sort(key=lambda m: (-m.points_lost, m.number))
        return moves[:count]


def format_lead(score: float) -> str:
    """A score lead from Black's side as ``B+2.5``, ``W+0.5`` or ``even``."""
    if abs(score) < 0.05:
        return "even"
    return f"{'B' if score > 0 else 'W'}+{abs(score):.1f}"


def format_winrate(winrate: float) -> str:
    """A win rate (0..1) as ``52.3%``."""
    return f"{100 * winrate:.1f}%"


def _to_black(value: float, score: bool, reported_for: int) -> float:
    if reported_for == BLACK:
        return value
    return -value if score else 1.0 - value


def position_of(response: Response, to_move: int, perspective: str = "BLACK") -> Position:
    """A response as a :class:`Position` from Black's side. ``to_move`` is
    the colour the record has to move (the response's ``currentPlayer``
    wins when it has one); ``perspective`` whose view the response gives
    (KataGo's ``reportAnalysisWinratesAs``)."""
    root = response.get("rootInfo") or {}
    player = root.get("currentPlayer")
    if player in ("B", "W"):
        to_move = BLACK if player == "B" else WHITE
    reported_for = {"BLACK": BLACK, "WHITE": WHITE}.get(perspective, to_move)
    infos = response.get("moveInfos") or []
    best = min(infos, key=lambda info: info.get("order", 0)) if infos else None
    try:
        position = Position(
            turn=int(response["turnNumber"]), to_move=to_move,
            winrate=_to_black(float(root["winrate"]), False, reported_for),
            score=_to_black(float(root.get("scoreLead", 0.0)), True, reported_for),
            visits=int(root.get("visits", 0)))
        if best is not None:
            position.best = str(best["move"])
            position.best_winrate = _to_black(float(best["winrate"]), False, reported_for)
            position.best_score = _to_black(float(best.get("scoreLead", 0.0)), True,
                                            reported_for)
            position.pv = [str(m) for m in best.get("pv") or [position.best]]
    except (KeyError, TypeError, ValueError) as err:
        raise ReviewError(f"analysis response for turn {response.get('turnNumber')} "
                          f"is malformed: {err!r}") from None
    return position


def judge(move: MoveReview, thresholds: Thresholds) -> None:
    """Set ``move``'s losses and grade from its two positions."""
    before, after = move.before, move.after
    if before is None or after is None or before.to_move != move.color:
        return
    if before.best is not None and before.best.upper() == move.vertex.upper():
        # the engine's own choice loses nothing by definition; comparing two
        # searches (this one and the next position's) would only add their noise
        move.points_lost = move.winrate_lost = 0.0
        move.grade = thresholds.grade(0.0)
        return
    sign = 1.0 if move.color == BLACK else -1.0
    best_score = before.best_score if before.best_score is not None else before.score
    best_winrate = before.best_winrate if before.best_winrate is not None else before.winrate
    move.points_lost = sign * (best_score - after.score)
    move.winrate_lost = sign * (best_winrate - after.winrate)
    move.grade = thresholds.grade(move.points_lost)


def rules_words(rules: Any) -> str:
    """What the analysis ``rules`` (a KataGo name or object; None: imago's)
    count by, in words: ``territory scoring, positional superko (japanese
    rules)``. imago plays positional superko whatever the rules say."""
    if rules is None:
        return "area scoring, positional superko"
    kata = parse_rules(rules)
    words = f"{kata.scoring.lower()} scoring"
    if kata.handicap_bonus != "0":
        words += f", White's handicap bonus {kata.handicap_bonus}"
    name = rules if isinstance(rules, str) else "given"
    return f"{words}, positional superko ({name} rules)"


def record_rules(record: GameRecord) -> Optional[str]:
    """The rules the record's ``RU`` names when imago knows them (KataGo's
    names: ``Japanese``, ``Chinese``, ``AGA``, ...), else None."""
    name, rules = record.game.recorded_rules()
    return name if rules is not None else None


def review_game(record: GameRecord, analyze: Analyze, *, visits: int = 100,
                thresholds: Thresholds = Thresholds(), perspective: str = "BLACK",
                on_response: Optional[Callable[[Response], None]] = None,
                query_id: str = "review", rules: Any = None) -> Review:
    """Analyse every turn of ``record`` with one query through ``analyze``
    under ``rules`` (a KataGo rules name or object; None: imago's) and
    judge each move. ``on_response`` sees each final response as it
    arrives (a progress bar). Raises :class:`ReviewError` when the engine
    answers with an error or malformed responses."""
    if perspective not in PERSPECTIVES:
        raise ValueError(f"perspective must be one of {PERSPECTIVES}, not {perspective!r}")
    query = build_query(record, visits, query_id=query_id, rules=rules)
    responses = analyze(query, on_response)
    positions: list[Optional[Position]] = [None] * (len(record.moves) + 1)
    for response in responses:
        if "error" in response:
            field_name = response.get("field")
            raise ReviewError("the analysis engine refused the game: " + str(response["error"])
                              + (f" (field {field_name})" if field_name else ""))
        if "turnNumber" not in response or response.get("isDuringSearch"):
            continue  # a warning, or a report during the search
        turn = response["turnNumber"]
        if isinstance(turn, int) and 0 <= turn < len(positions):
            positions[turn] = position_of(response, record.to_move(turn), perspective)
    moves = []
    for turn, node in enumerate(record.moves):
        move = MoveReview(turn, node, positions[turn], positions[turn + 1])
        judge(move, thresholds)
        moves.append(move)
    return Review(record, positions, moves, thresholds, visits, rules)


__all__ = ["Analyze", "GameRecord", "GRADES", "IMAGO_RULES", "MoveReview", "PERSPECTIVES",
           "Position", "Response", "Review", "ReviewError", "Thresholds", "build_query",
           "format_lead", "format_winrate", "judge", "load_record", "position_of", "record_of",
           "review_game"]
