"""KataGo analysis requests: one JSON line read as a :class:`Query` (positions
to analyse), an :class:`Action` (``query_version``, ``clear_cache``,
``terminate``, ``terminate_all``), or the errors and warnings KataGo's
analysis engine writes for it.

:func:`parse_line` never raises: whatever the line holds, the outcome is a
query, an action, or at least one error message (a blank line, which KataGo
skips, gives nothing at all). Messages have KataGo's shapes:
``{"error": MSG}`` for a line that is no JSON object or has no string
``id``, ``{"id": ID, "field": NAME, "error": MSG}`` for a bad field (the
request is dropped), ``{"id": ID, "field": NAME, "warning": MSG}`` for
something ignored or approximated (the request still runs).

One :class:`~imago.game.GameState` is built per query: ``initialStones``
as setup stones on the root, then ``moves`` played in order (colours as
given, repeats allowed); turn k is the node after k moves. An illegal move
drops the whole query, as in KataGo. Rules are read by
:mod:`imago.game.rulesets`. This module imports only :mod:`imago.game`
and the standard library.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional

from imago.game import (BLACK, WHITE, GameMove, GameState, IllegalMoveError, Rules,
                        index_to_vertex, parse_color, rulesets, to_index, vertex_to_index)
from imago.game.coords import MAX_SIZE

REPORT_AS = ("BLACK", "WHITE", "SIDETOMOVE")
ACTIONS = ("query_version", "clear_cache", "terminate", "terminate_all")
MAX_PRIORITY = 2 ** 62 - 1
MAX_PV_LEN = 1000
MAX_UNTIL_DEPTH = 1_000_000_000
MAX_VISITS = 2 ** 50
REPORT_SECONDS = (0.001, 1_000_000.0)
CLIP = 60

QUERY_FIELDS = frozenset((
    "id", "moves", "initialStones", "initialPlayer", "rules", "komi", "whiteHandicapBonus",
    "boardXSize", "boardYSize", "analyzeTurns", "maxVisits", "rootPolicyTemperature",
    "rootFpuReductionMax", "analysisPVLen", "includeOwnership", "includeOwnershipStdev",
    "includeMovesOwnership", "includeMovesOwnershipStdev", "includePolicy", "includePVVisits",
    "avoidMoves", "allowMoves", "overrideSettings", "reportDuringSearchEvery",
    "firstReportDuringSearchAfter", "priority", "priorities"))
BOOLEAN_FIELDS = {"includeOwnership": "include_ownership",
                  "includeOwnershipStdev": "include_ownership_stdev",
                  "includeMovesOwnership": "include_moves_ownership",
                  "includeMovesOwnershipStdev": "include_moves_ownership_stdev",
                  "includePolicy": "include_policy", "includePVVisits": "include_pv_visits"}


@dataclass
class QueryDefaults:
    """What a query gets for the fields it leaves out, and the limits on it
    (the engine's configuration)."""

    max_visits: int = 500
    pv_len: int = 15
    report_as: str = "BLACK"
    max_allowed_visits: int = 1_000_000  # larger maxVisits are clamped, with a warning
    max_moves: int = 10_000  # a longer ``moves`` is refused (KataGo has no limit)
    warn_unused: bool = True  # warn about top-level fields imago does not know


@dataclass(frozen=True)
class MoveFilter:
    """An ``avoidMoves`` or ``allowMoves`` entry: ``color``'s moves at
    ``points`` (internal indexes, None for the pass) are forbidden (avoid) or
    the only ones allowed (allow) in the first ``until_depth`` plies."""

    color: int
    points: frozenset
    until_depth: int


@dataclass
class Turn:
    """One position to analyse: ``number`` as in ``analyzeTurns``, ``node``
    the game-tree node after that many moves (its ancestors hold the
    history), ``to_move`` the player to move there."""

    number: int
    node: GameMove
    to_move: int
    priority: int = 0


@dataclass
class Query:
    """An analysis request, checked and with its positions built.

    ``komi`` is what the game is scored with: the query's komi (or the
    rules' default) plus ``handicap_bonus``, the points the rules give White
    for handicap stones (``game.komi`` is the same). ``rules`` is what the
    game is counted by at its current node (:attr:`GameState.rules`).
    ``overrides`` holds the search settings of ``overrideSettings`` and the
    top-level ``rootFpuReductionMax``, under imago's names (``c_puct``,
    ``fpu_reduction``, ``wide_root_noise``); the ``maxVisits``, ``reportAnalysisWinratesAs``,
    ``rootPolicyTemperature`` and ``maxTime`` settings land in
    ``max_visits``, ``report_as``, ``root_policy_temperature`` and
    ``max_time`` (a top-level field wins over the same setting).
    ``report_every`` and ``first_report_after`` are seconds (None: no
    reports during the search)."""

    id: str
    size: int
    komi: float
    game: GameState
    turns: list[Turn]
    max_visits: int
    pv_len: int
    report_as: str
    include_ownership: bool = False
    include_ownership_stdev: bool = False
    include_moves_ownership: bool = False
    include_moves_ownership_stdev: bool = False
    include_policy: bool = False
    include_pv_visits: bool = False
    avoid: list[MoveFilter] = field(default_factory=list)
    allow: list[MoveFilter] = field(default_factory=list)
    report_every: Optional[float] = None
    first_report_after: Optional[float] = None
    overrides: dict = field(default_factory=dict)
    root_policy_temperature: Optional[float] = None
    max_time: Optional[float] = None
    handicap_bonus: float = 0.0

    @property
    def rules(self) -> Rules:
        """The game's rules (area, or territory by the stones put on the
        board, with ``komi``): derived from ``game``, so never apart."""
        return self.game.rules


@dataclass
class Action:
    """A special action. ``kind`` is one of :data:`ACTIONS`; ``terminate_id``
    is set for ``terminate``; ``turn_numbers`` None means every turn.
    ``request`` is the request object as read, which KataGo echoes back."""

    kind: str
    id: str
    terminate_id: Optional[str] = None
    turn_numbers: Optional[list[int]] = None
    request: dict = field(default_factory=dict)


@dataclass
class ParseOutcome:
    """What one line gives: a query or an action (never both), and the
    messages to write first, errors and warnings in KataGo's shapes. With an
    error, neither a query nor an action."""

    query: Optional[Query] = None
    action: Optional[Action] = None
    messages: list[dict] = field(default_factory=list)

    @property
    def errors(self) -> list[dict]:
        """The error messages alone."""
        return [m for m in self.messages if "error" in m]


def _message(kind: str, message: str, field: Optional[str], id: Optional[str]) -> dict:
    out: dict = {}
    if id is not None:
        out["id"] = id
    if field is not None:
        out["field"] = field
    out[kind] = message
    return out


def error_message(message: str, field: Optional[str] = None, id: Optional[str] = None) -> dict:
    """KataGo's error line: ``{"error": ...}``, with ``field`` and ``id``
    when the request they belong to is known."""
    return _message("error", message, field, id)


def warning_message(message: str, field: Optional[str] = None, id: Optional[str] = None) -> dict:
    """KataGo's warning line: ``{"id": ..., "field": ..., "warning": ...}``."""
    return _message("warning", message, field, id)


def clip(text: str, limit: int = CLIP) -> str:
    """``text`` cut to ``limit`` characters, marked when cut."""
    return text if len(text) <= limit else text[:limit] + "..."


def quote(value: Any) -> str:
    """A user's value as JSON text, clipped, for messages."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        text = "(unprintable value)"
    return clip(text)


def parse_location(text: str, size: int) -> Optional[int]:
    """A move location as KataGo reads it: a GTP vertex (``D4``, ``d4``;
    columns skip I), ``pass``, or ``(x,y)`` with x from the left and y from
    the top, both from 0. Returns the internal index, None for a pass.
    Raises ValueError."""
    word = text.strip()
    if word.lower() == "pass":
        return None
    if word.startswith("(") and word.endswith(")"):
        parts = [part.strip() for part in word[1:-1].split(",")]
        if len(parts) == 2 and all(p.isascii() and p.isdigit() and len(p) <= 3 for p in parts):
            col, row = int(parts[0]), int(parts[1])
            if col < size and row < size:
                return to_index(col, row, size)
        raise ValueError(f"not a location on the {size}x{size} board: {quote(text)}")
    if not word.isascii():
        raise ValueError(f"not a vertex: {quote(text)}")
    try:
        return vertex_to_index(word, size)
    except ValueError:
        raise ValueError(f"not a vertex on the {size}x{size} board: {quote(text)}") from None


def parse_line(line: str, defaults: Optional[QueryDefaults] = None) -> ParseOutcome:
    """Read one request line; see the module doc. Never raises."""
    defaults = defaults or QueryDefaults()
    text = line.strip()
    if not text:
        return ParseOutcome()
    try:
        request = json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        return _general(f"could not read the line as JSON ({exc.msg} at column {exc.colno}): "
                        f"{clip(text)}")
    except (ValueError, RecursionError) as exc:
        return _general(f"could not read the line as JSON ({clip(str(exc))}): {clip(text)}")
    if not isinstance(request, dict):
        return _general(f"the line is JSON but not an object: {clip(text)}")
    ident = request.get("id")
    if not isinstance(ident, str):
        return _general('every request needs an "id" field holding a string')
    try:
        if "action" in request:
            return _parse_action(request, ident)
        return _QueryReader(request, ident, defaults).read()
    except Exception as exc:  # a bug here must cost one request, not the engine
        return ParseOutcome(messages=[error_message(
            f"internal error reading the request: {clip(repr(exc))}", id=ident)])


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _general(message: str) -> ParseOutcome:
    return ParseOutcome(messages=[error_message(message)])


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _int_list(value: Any) -> Optional[list[int]]:
    if isinstance(value, list) and all(_is_int(v) for v in value):
        return value
    return None


def _parse_action(request: dict, ident: str) -> ParseOutcome:
    kind = request["action"]
    if not isinstance(kind, str) or kind not in ACTIONS:
        return ParseOutcome(messages=[error_message(
            f"unknown action {quote(kind)}; the actions are {', '.join(ACTIONS)}", "action",
            ident)])
    try:
        json.dumps(request)  # the acknowledgement echoes it
    except (ValueError, RecursionError):
        return ParseOutcome(messages=[error_message("request too deeply nested", id=ident)])
    action = Action(kind, ident, request=request)
    if kind == "terminate":
        target = request.get("terminateId")
        if not isinstance(target, str):
            return ParseOutcome(messages=[error_message(
                'terminate needs a "terminateId" field holding a string', "terminateId", ident)])
        action.terminate_id = target
    if kind in ("terminate", "terminate_all") and "turnNumbers" in request:
        numbers = _int_list(request["turnNumbers"])
        if numbers is None:
            return ParseOutcome(messages=[error_message(
                "must be a list of integers (the turns to terminate)", "turnNumbers", ident)])
        action.turn_numbers = list(numbers)
    return ParseOutcome(action=action)


class _Refusal(Exception):
    """An error in one field: the query is dropped."""

    def __init__(self, field: str, message: str):
        super().__init__(message)
        self.field = field
        self.message = message


class _QueryReader:
    """Reads one query object, field by field, in about KataGo's order."""

    def __init__(self, request: dict, ident: str, defaults: QueryDefaults):
        self.request = request
        self.id = ident
        self.defaults = defaults
        self.messages: list[dict] = []

    def warn(self, field: str, message: str) -> None:
        self.messages.append(warning_message(message, field, self.id))

    def read(self) -> ParseOutcome:
        try:
            query = self._query()
        except _Refusal as refusal:
            self.messages.append(error_message(refusal.message, refusal.field, self.id))
            return ParseOutcome(messages=self.messages)
        return ParseOutcome(query=query, messages=self.messages)

    # ------------------------------------------------------------ field readers
    def _int(self, name: str, low: int, high: int, what: str, source: Optional[dict] = None,
             label: Optional[str] = None) -> int:
        value = (self.request if source is None else source)[name]
        if not _is_int(value) or not low <= value <= high:
            raise _Refusal(label or name, what)
        return value

    def _number(self, name: str, low: float, high: float, what: str) -> float:
        value = self.request[name]
        if not _is_number(value) or not low <= value <= high:  # NaN fails too
            raise _Refusal(name, what)
        return float(value)

    def _bool(self, name: str) -> bool:
        value = self.request[name]
        if not isinstance(value, bool):
            raise _Refusal(name, "must be true or false")
        return value

    def _color(self, value: Any, field: str, where: str = "") -> int:
        try:
            if isinstance(value, str):
                return parse_color(value)
        except ValueError:
            pass
        raise _Refusal(field, f'{where}the player must be "B" or "W", not {quote(value)}')

    def _moves(self, name: str, size: int, allow_pass: bool) -> list[tuple[int, Optional[int]]]:
        value = self.request[name]
        shape = 'must be a list of ["B" or "W", location] pairs'
        if not isinstance(value, list):
            raise _Refusal(name, shape)
        if name == "moves" and len(value) > self.defaults.max_moves:
            raise _Refusal(name, f"imago analyses games of at most {self.defaults.max_moves} "
                                 f"moves, not {len(value)}")
        moves = []
        for i, item in enumerate(value):
            if not (isinstance(item, list) and len(item) == 2
                    and all(isinstance(part, str) for part in item)):
                raise _Refusal(name, f"{shape}; entry {i} is {quote(item)}")
            color = self._color(item[0], name, f"entry {i}: ")
            try:
                point = parse_location(item[1], size)
            except ValueError as exc:
                raise _Refusal(name, f"entry {i}: {exc}") from None
            if point is None and not allow_pass:
                raise _Refusal(name, f"entry {i}: a stone cannot be a pass")
            moves.append((color, point))
        return moves

    # ------------------------------------------------------------ the query
    def _query(self) -> Query:
        request, defaults = self.request, self.defaults
        if defaults.warn_unused:
            for key in request:
                if key not in QUERY_FIELDS:
                    self.warn(key, "unused field: imago does not know it and ignores it")
        size = self._size()
        stones = self._moves("initialStones", size, False) if "initialStones" in request else []
        if "moves" not in request:
            raise _Refusal("moves", 'required: a list of ["B" or "W", location] pairs '
                                    "(empty for a position without history)")
        moves = self._moves("moves", size, True)
        initial_player = None
        if "initialPlayer" in request:
            initial_player = self._color(request["initialPlayer"], "initialPlayer")
        turn_numbers, priorities = self._turns(len(moves))
        kata_rules, komi, bonus_rule = self._rules()

        query_fields: dict[str, Any] = {
            "max_visits": defaults.max_visits, "pv_len": defaults.pv_len,
            "report_as": defaults.report_as, "overrides": {}}
        if "overrideSettings" in request:
            self._settings(query_fields)
        if "maxVisits" in request:
            query_fields["max_visits"] = self._visits(
                self._int("maxVisits", 1, MAX_VISITS, "must be an integer from 1 to 2^50"),
                "maxVisits")
        if "analysisPVLen" in request:
            query_fields["pv_len"] = self._int("analysisPVLen", 1, MAX_PV_LEN,
                                               f"must be an integer from 1 to {MAX_PV_LEN}")
        if "rootFpuReductionMax" in request:
            query_fields["overrides"]["fpu_reduction"] = self._number(
                "rootFpuReductionMax", 0.0, 2.0, "must be a number from 0 to 2")
        if "rootPolicyTemperature" in request:
            query_fields["root_policy_temperature"] = self._number(
                "rootPolicyTemperature", 0.01, 100.0, "must be a number from 0.01 to 100")
        for name, attribute in BOOLEAN_FIELDS.items():
            if name in request:
                query_fields[attribute] = self._bool(name)
        self._reports(query_fields)
        priority = 0
        if "priority" in request:
            if "priorities" in request:
                raise _Refusal("priority", "give either priority or priorities, not both")
            priority = self._int("priority", -MAX_PRIORITY, MAX_PRIORITY,
                                 "must be an integer from -2^62 to 2^62")
        query_fields["avoid"], query_fields["allow"] = self._filters(size)

        game, nodes, bonus = self._game(size, komi, bonus_rule, stones, moves, initial_player)
        turns = [Turn(n, nodes[n], nodes[n].to_move, priorities.get(n, priority))
                 for n in turn_numbers]
        warning = rulesets.differences_warning(kata_rules)
        if warning:
            self.warn("rules", warning)
        game.scoring = kata_rules.scoring.lower()  # the turns' cursors take it from the game
        game.capture_dead = not kata_rules.friendly_pass_ok  # a finished turn's count
        return Query(id=self.id, size=size, komi=game.komi, game=game, turns=turns,
                     handicap_bonus=float(bonus), **query_fields)

    def _size(self) -> int:
        what = f"required: an integer from 2 to {MAX_SIZE}"
        for name in ("boardXSize", "boardYSize"):
            if name not in self.request:
                raise _Refusal(name, what)
        size = self._int("boardXSize", 2, MAX_SIZE, what)
        height = self._int("boardYSize", 2, MAX_SIZE, what)
        if height != size:
            raise _Refusal("boardYSize", f"imago plays square boards only: boardYSize must "
                                         f"equal boardXSize ({size}), not {height}")
        return size

    def _turns(self, moves: int) -> tuple[list[int], dict[int, int]]:
        """The turns to analyse (default: the last), duplicates dropped, and
        the priority of each turn given one by ``priorities``."""
        request = self.request
        if "analyzeTurns" not in request:
            if "priorities" in request:
                raise _Refusal("priorities", "only with analyzeTurns, one priority per turn")
            return [moves], {}
        turns = _int_list(request["analyzeTurns"])
        if turns is None:
            raise _Refusal("analyzeTurns", "must be a list of integers (turn numbers)")
        for number in turns:
            if not 0 <= number <= moves:
                raise _Refusal("analyzeTurns", f"no turn {number}: this game has turns 0 to "
                                               f"{moves}")
        priorities: dict[int, int] = {}
        if "priorities" in request:
            given = _int_list(request["priorities"])
            if given is None or any(not -MAX_PRIORITY <= p <= MAX_PRIORITY for p in given):
                raise _Refusal("priorities", "must be a list of integers from -2^62 to 2^62")
            if len(given) != len(turns):
                raise _Refusal("priorities", f"must have one priority per turn of analyzeTurns "
                                             f"({len(turns)}), not {len(given)}")
            priorities = dict(zip(turns, given))  # a repeated turn: the last one's, as KataGo
        return list(dict.fromkeys(turns)), priorities

    def _rules(self) -> tuple[rulesets.KataRules, float, str]:
        request = self.request
        if "rules" not in request:
            raise _Refusal("rules", 'required: a rules name such as "chinese" or '
                                    '"tromp-taylor", or an object of rule options')
        try:
            kata_rules = rulesets.parse_rules(request["rules"])
        except ValueError as exc:
            raise _Refusal("rules", f"{exc}: {quote(request['rules'])}") from None
        komi = kata_rules.komi
        if "komi" in request:
            try:
                komi = rulesets.check_komi(request["komi"])
            except ValueError as exc:
                raise _Refusal("komi", str(exc)) from None
        bonus_rule = kata_rules.handicap_bonus
        if "whiteHandicapBonus" in request:
            try:
                bonus_rule = rulesets.parse_handicap_bonus(request["whiteHandicapBonus"])
            except ValueError as exc:
                raise _Refusal("whiteHandicapBonus", str(exc)) from None
        return kata_rules, komi, bonus_rule

    def _visits(self, visits: int, field: str) -> int:
        limit = self.defaults.max_allowed_visits
        if visits > limit:
            self.warn(field, f"imago allows at most {limit} visits; using {limit}")
            return limit
        return visits

    def _settings(self, query_fields: dict) -> None:
        """``overrideSettings``: the search settings imago has; a warning for
        each other one. KataGo reads every value as text, so numbers may come
        as strings."""
        settings = self.request["overrideSettings"]
        if not isinstance(settings, dict):
            raise _Refusal("overrideSettings", "must be an object of settings")
        for key, value in settings.items():
            if key == "maxVisits":
                visits = _setting_number(value, integer=True)
                if visits is None or not 1 <= visits <= MAX_VISITS:
                    raise _Refusal("overrideSettings", "maxVisits must be an integer from 1 "
                                                       "to 2^50")
                query_fields["max_visits"] = self._visits(int(visits), "overrideSettings")
            elif key == "reportAnalysisWinratesAs":
                word = value.strip().upper() if isinstance(value, str) else None
                if word not in REPORT_AS:
                    raise _Refusal("overrideSettings", "reportAnalysisWinratesAs must be "
                                                       "BLACK, WHITE or SIDETOMOVE")
                query_fields["report_as"] = word
            elif key in _NUMBER_SETTINGS:
                attribute, low, high, overridden = _NUMBER_SETTINGS[key]
                number = _setting_number(value)
                if number is None or not low <= number <= high:
                    raise _Refusal("overrideSettings", f"{key} must be a number from {low:g} "
                                                       f"to {high:g}")
                (query_fields["overrides"] if overridden else query_fields)[attribute] = number
            else:
                self.warn("overrideSettings",
                          f"unknown or unsupported setting {quote(key)}: ignored")

    def _reports(self, query_fields: dict) -> None:
        low, high = REPORT_SECONDS
        what = f"must be a number of seconds from {low:g} to {high:g}"
        if "reportDuringSearchEvery" in self.request:
            every = self._number("reportDuringSearchEvery", low, high, what)
            query_fields["report_every"] = query_fields["first_report_after"] = every
        if "firstReportDuringSearchAfter" in self.request:
            query_fields["first_report_after"] = self._number(
                "firstReportDuringSearchAfter", low, high, what)

    def _filters(self, size: int) -> tuple[list[MoveFilter], list[MoveFilter]]:
        request = self.request
        if "allowMoves" in request and "avoidMoves" in request:
            raise _Refusal("allowMoves", "give either allowMoves or avoidMoves, not both")
        for name in ("avoidMoves", "allowMoves"):
            if name not in request:
                continue
            shape = "must be a list of objects with player, moves and untilDepth"
            entries = request[name]
            if not isinstance(entries, list):
                raise _Refusal(name, shape)
            if name == "allowMoves" and len(entries) > 1:
                raise _Refusal(name, "may hold one entry only (as in KataGo)")
            filters = []
            for i, entry in enumerate(entries):
                if not (isinstance(entry, dict) and {"player", "moves", "untilDepth"} <= entry.keys()):
                    raise _Refusal(name, f"{shape}; entry {i} is {quote(entry)}")
                color = self._color(entry["player"], name, f"entry {i}: ")
                locations = entry["moves"]
                if not (isinstance(locations, list) and all(isinstance(m, str) for m in locations)):
                    raise _Refusal(name, f"entry {i}: moves must be a list of locations")
                try:
                    points = frozenset(parse_location(m, size) for m in locations)
                except ValueError as exc:
                    raise _Refusal(name, f"entry {i}: {exc}") from None
                depth = self._int("untilDepth", 1, MAX_UNTIL_DEPTH,
                                  f"entry {i}: untilDepth must be a positive integer",
                                  source=entry, label=name)
                filters.append(MoveFilter(color, points, depth))
            return (filters, []) if name == "avoidMoves" else ([], filters)
        return [], []

    def _game(self, size: int, komi: float, bonus_rule: str, stones: list, moves: list,
              initial_player: Optional[int]) -> tuple[GameState, list[GameMove], int]:
        """The game: setup stones (a later stone on a point replaces an
        earlier one), the player of turn 0, then the moves. Returns it, the
        node of each turn and the handicap bonus in points."""
        placed: dict[int, int] = {}
        for color, point in stones:
            placed[point] = color
        black = [p for p, c in placed.items() if c == BLACK]
        white = [p for p, c in placed.items() if c == WHITE]
        handicap = len(black) if not white else 0
        bonus = rulesets.handicap_bonus_points(bonus_rule, handicap)
        if bonus_rule != "0" and not white and _leading_black_moves(moves) >= 2:
            self.warn("moves", "handicap stones given as Black moves get no handicap bonus "
                               "here; give them as initialStones")
        try:
            game = GameState.with_stones(size, komi + bonus, placed)
        except ValueError as error:
            raise _Refusal("initialStones", str(error)) from None
        root = game.root
        if initial_player is None:
            initial_player = moves[0][0] if moves else (WHITE if handicap else BLACK)
        root.to_move = initial_player
        nodes = [root]
        for k, (color, point) in enumerate(moves):
            try:
                nodes.append(game.play(color, point))
            except IllegalMoveError as exc:
                raise _Refusal("moves", f"Illegal move {k}: {'B' if color == BLACK else 'W'} "
                                        f"{index_to_vertex(point, size)} ({exc.reason})") from None
        return game, nodes, bonus


# overrideSettings keys that are numbers: (attribute, low, high, whether it is
# a search setting for Query.overrides rather than a Query attribute)
_NUMBER_SETTINGS = {
    "cpuctExploration": ("c_puct", 0.01, 100.0, True),
    "rootFpuReductionMax": ("fpu_reduction", 0.0, 2.0, True),
    "rootPolicyTemperature": ("root_policy_temperature", 0.01, 100.0, False),
    "wideRootNoise": ("wide_root_noise", 0.0, 5.0, True),
    "maxTime": ("max_time", 0.001, 1_000_000.0, False),
}


def _setting_number(value: Any, integer: bool = False) -> Optional[float]:
    """A setting's number, given as a JSON number or as text; None if it is
    none (or not an integer when ``integer``)."""
    if isinstance(value, str) and value.strip().isascii() and len(value) <= 40:
        try:
            value = int(value) if integer else float(value)
        except ValueError:
            return None
    if integer:
        return value if _is_int(value) else None
    if not _is_number(value) or value != value:
        return None
    return float(value) if abs(value) < 1e300 else None


def _leading_black_moves(moves: list) -> int:
    """Black stones played before White's first move (KataGo counts two or
    more as handicap)."""
    count = 0
    for color, point in moves:
        if color != BLACK:
            break
        count += point is not None
    return count


__all__ = ["Action", "MoveFilter", "ParseOutcome", "Query", "QueryDefaults", "Turn",
           "error_message", "warning_message", "parse_line", "parse_location", "clip", "quote",
           "REPORT_AS", "ACTIONS"]
