"""imago.analysis.query: KataGo analysis requests read line by line -- the
defaults, every field's errors, the warnings, illegal moves, coordinates,
board sizes, the player of each turn, setup stones, rules and handicap
bonus, actions, and a fuzz that no line makes the reader raise."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from imago.analysis.query import (Action, MoveFilter, ParseOutcome, Query, QueryDefaults,
                                  parse_line, parse_location)
from imago.game import BLACK, EMPTY, WHITE, vertex_to_index


def base(**fields) -> dict:
    """A valid 9x9 query under chinese-ogs (imago's own rules), changed by
    ``fields`` (a value of None removes the field)."""
    query = {"id": "q", "moves": [], "rules": "chinese-ogs", "boardXSize": 9, "boardYSize": 9}
    query.update(fields)
    return {k: v for k, v in query.items() if v is not None}


def parse(obj, defaults: QueryDefaults = None) -> ParseOutcome:
    return parse_line(json.dumps(obj), defaults or QueryDefaults())


def ok(obj, defaults: QueryDefaults = None) -> Query:
    """The query of ``obj``, which must come without any message."""
    outcome = parse(obj, defaults)
    assert outcome.messages == [], outcome.messages
    assert outcome.action is None and outcome.query is not None
    return outcome.query


def refused(obj, field: str) -> str:
    """The one error of ``obj``, which must name ``field``; its message."""
    outcome = parse(obj)
    assert outcome.query is None and outcome.action is None
    errors = outcome.errors
    assert len(errors) == 1, outcome.messages
    assert errors[0]["field"] == field and errors[0]["id"] == "q", errors
    assert outcome.messages[-1] is errors[0]
    return errors[0]["error"]


def warnings(outcome: ParseOutcome) -> list[dict]:
    assert outcome.query is not None and not outcome.errors, outcome.messages
    return [m for m in outcome.messages if "warning" in m]


def point(vertex: str, size: int = 9):
    return vertex_to_index(vertex, size)


# ---------------------------------------------------------------- defaults
def test_defaults():
    query = ok(base(moves=[["B", "D4"], ["W", "E5"]]))
    assert (query.id, query.size, query.komi, query.max_visits, query.pv_len) == \
        ("q", 9, 7.5, 500, 15)
    assert query.report_as == "BLACK" and query.rules.komi == 7.5 and query.game.komi == 7.5
    assert [t.number for t in query.turns] == [2]  # the last turn only
    assert query.turns[0].to_move == BLACK and query.turns[0].priority == 0
    assert not (query.include_ownership or query.include_moves_ownership
                or query.include_policy or query.include_pv_visits)
    assert query.avoid == [] and query.allow == [] and query.overrides == {}
    assert query.report_every is None and query.first_report_after is None
    assert query.root_policy_temperature is None and query.max_time is None
    assert query.handicap_bonus == 0.0


def test_engine_defaults_apply():
    defaults = QueryDefaults(max_visits=50, pv_len=4, report_as="WHITE")
    query = ok(base(), defaults)
    assert (query.max_visits, query.pv_len, query.report_as) == (50, 4, "WHITE")


def test_documented_example():
    line = ('{"id":"foo","initialStones":[["B","Q4"],["B","C4"]],"moves":[["W","P5"],'
            '["B","P6"]],"rules":"tromp-taylor","komi":7.5,"boardXSize":19,"boardYSize":19,'
            '"analyzeTurns":[0,1,2]}')
    outcome = parse_line(line, QueryDefaults())
    # Tromp-Taylor allows suicide: analysed under imago's rules, with a warning
    [warning] = warnings(outcome)
    assert warning["field"] == "rules" and warning["id"] == "foo"
    assert "suicide" in warning["warning"]
    query = outcome.query
    assert [(t.number, t.to_move) for t in query.turns] == [(0, WHITE), (1, BLACK), (2, WHITE)]
    board = query.turns[2].node.board
    for vertex, color in (("Q4", BLACK), ("C4", BLACK), ("P5", WHITE), ("P6", BLACK)):
        assert board[point(vertex, 19)] == color
    assert query.turns[0].node.board[point("P5", 19)] == EMPTY
    assert query.turns[1].node.parent is query.turns[0].node


# ---------------------------------------------------------------- lines
@pytest.mark.parametrize("line", ["", "   ", "\t\r"])
def test_blank_lines_give_nothing(line):
    outcome = parse_line(line, QueryDefaults())
    assert outcome == ParseOutcome()


@pytest.mark.parametrize("line", ["garbage", "{", '{"id": "a",}', "[1, 2]", '"id"', "3",
                                  "null", '{"id": NaN}', '{"id": "a", "komi": Infinity}',
                                  '{"moves": []}', '{"id": 3, "moves": []}',
                                  '{"id": null}', "[" * 100_000])
def test_general_errors(line):
    outcome = parse_line(line, QueryDefaults())
    assert outcome.query is None and outcome.action is None
    assert len(outcome.messages) == 1 and set(outcome.messages[0]) == {"error"}
    assert len(outcome.messages[0]["error"]) < 300


def test_long_values_are_clipped_in_messages():
    message = refused(base(moves=[["B", "x" * 10_000]]), "moves")
    assert len(message) < 200 and "..." in message


# ---------------------------------------------------------------- errors, field by field
@pytest.mark.parametrize("fields, field", [
    ({"boardXSize": None}, "boardXSize"),
    ({"boardYSize": None}, "boardYSize"),
    ({"boardXSize": 1, "boardYSize": 1}, "boardXSize"),
    ({"boardXSize": 26, "boardYSize": 26}, "boardXSize"),
    ({"boardXSize": "9"}, "boardXSize"),
    ({"boardXSize": 9.0}, "boardXSize"),
    ({"boardXSize": True}, "boardXSize"),
    ({"boardYSize": 13}, "boardYSize"),
    ({"moves": None}, "moves"),
    ({"moves": "D4"}, "moves"),
    ({"moves": [["B"]]}, "moves"),
    ({"moves": [["B", "D4", "x"]]}, "moves"),
    ({"moves": [["X", "D4"]]}, "moves"),
    ({"moves": [[1, "D4"]]}, "moves"),
    ({"moves": [["B", "J10"]]}, "moves"),
    ({"moves": [["B", "I3"]]}, "moves"),
    ({"moves": [["B", "(9,0)"]]}, "moves"),
    ({"moves": [["B", "(1,-1)"]]}, "moves"),
    ({"moves": [["B", "D٤"]]}, "moves"),
    ({"initialStones": [["B", "pass"]]}, "initialStones"),
    ({"initialStones": {"B": "D4"}}, "initialStones"),
    ({"initialPlayer": "x"}, "initialPlayer"),
    ({"initialPlayer": 1}, "initialPlayer"),
    ({"analyzeTurns": [1]}, "analyzeTurns"),
    ({"analyzeTurns": [-1]}, "analyzeTurns"),
    ({"analyzeTurns": "0"}, "analyzeTurns"),
    ({"analyzeTurns": [0.0]}, "analyzeTurns"),
    ({"analyzeTurns": [True]}, "analyzeTurns"),
    ({"priorities": [1]}, "priorities"),
    ({"analyzeTurns": [0], "priorities": [1, 2]}, "priorities"),
    ({"analyzeTurns": [0], "priorities": ["1"]}, "priorities"),
    ({"analyzeTurns": [0], "priorities": [1], "priority": 2}, "priority"),
    ({"priority": "1"}, "priority"),
    ({"priority": 2 ** 63}, "priority"),
    ({"rules": None}, "rules"),
    ({"rules": "go"}, "rules"),
    ({"rules": 3}, "rules"),
    ({"rules": {"ko": "WEIRD"}}, "rules"),
    ({"rules": {"suicide": "no"}}, "rules"),
    ({"rules": {"colour": "red"}}, "rules"),
    ({"rules": {"komi": 7.25}}, "rules"),
    ({"komi": 7.25}, "komi"),
    ({"komi": 150.5}, "komi"),
    ({"komi": "7.5"}, "komi"),
    ({"komi": True}, "komi"),
    ({"komi": None, "rules": "chinese", "whiteHandicapBonus": 2}, "whiteHandicapBonus"),
    ({"whiteHandicapBonus": "2"}, "whiteHandicapBonus"),
    ({"overrideSettings": []}, "overrideSettings"),
    ({"overrideSettings": {"maxVisits": 0}}, "overrideSettings"),
    ({"overrideSettings": {"maxVisits": 1.5}}, "overrideSettings"),
    ({"overrideSettings": {"cpuctExploration": "x"}}, "overrideSettings"),
    ({"overrideSettings": {"cpuctExploration": 0}}, "overrideSettings"),
    ({"overrideSettings": {"reportAnalysisWinratesAs": "RED"}}, "overrideSettings"),
    ({"overrideSettings": {"maxTime": 0}}, "overrideSettings"),
    ({"overrideSettings": {"wideRootNoise": 6}}, "overrideSettings"),
    ({"overrideSettings": {"wideRootNoise": -0.1}}, "overrideSettings"),
    ({"maxVisits": 0}, "maxVisits"),
    ({"maxVisits": "100"}, "maxVisits"),
    ({"maxVisits": 1.5}, "maxVisits"),
    ({"maxVisits": True}, "maxVisits"),
    ({"maxVisits": 2 ** 51}, "maxVisits"),
    ({"analysisPVLen": 0}, "analysisPVLen"),
    ({"analysisPVLen": 1001}, "analysisPVLen"),
    ({"rootFpuReductionMax": 3}, "rootFpuReductionMax"),
    ({"rootPolicyTemperature": 0}, "rootPolicyTemperature"),
    ({"includeOwnership": "true"}, "includeOwnership"),
    ({"includeOwnership": 1}, "includeOwnership"),
    ({"includeMovesOwnership": None, "includePolicy": 0}, "includePolicy"),
    ({"includePVVisits": "yes"}, "includePVVisits"),
    ({"includeOwnershipStdev": 1}, "includeOwnershipStdev"),
    ({"reportDuringSearchEvery": 0}, "reportDuringSearchEvery"),
    ({"reportDuringSearchEvery": -1}, "reportDuringSearchEvery"),
    ({"reportDuringSearchEvery": "1"}, "reportDuringSearchEvery"),
    ({"firstReportDuringSearchAfter": 0}, "firstReportDuringSearchAfter"),
    ({"avoidMoves": {}}, "avoidMoves"),
    ({"avoidMoves": ["D4"]}, "avoidMoves"),
    ({"avoidMoves": [{"player": "B", "moves": ["D4"]}]}, "avoidMoves"),
    ({"avoidMoves": [{"player": "B", "moves": ["D4"], "untilDepth": 0}]}, "avoidMoves"),
    ({"avoidMoves": [{"player": "Q", "moves": ["D4"], "untilDepth": 1}]}, "avoidMoves"),
    ({"avoidMoves": [{"player": "B", "moves": ["Z1"], "untilDepth": 1}]}, "avoidMoves"),
    ({"avoidMoves": [{"player": "B", "moves": "D4", "untilDepth": 1}]}, "avoidMoves"),
    ({"allowMoves": [{"player": "B", "moves": ["D4"], "untilDepth": 1}] * 2}, "allowMoves"),
    ({"allowMoves": [], "avoidMoves": []}, "allowMoves"),
])
def test_field_errors(fields, field):
    refused(base(**fields), field)


def test_size_messages_name_the_range():
    assert "2 to 25" in refused(base(boardXSize=26, boardYSize=26), "boardXSize")
    assert "square" in refused(base(boardXSize=9, boardYSize=13), "boardYSize")


def test_too_many_moves():
    moves = [["B", "pass"], ["W", "pass"]] * 3
    assert "at most 5 moves" in parse(base(moves=moves), QueryDefaults(max_moves=5)).errors[0][
        "error"]
    assert parse(base(moves=moves[:5]), QueryDefaults(max_moves=5)).query is not None


# ---------------------------------------------------------------- illegal moves
@pytest.mark.parametrize("stones, moves, index, reason", [
    ([], [["B", "D4"], ["W", "D4"]], 1, "occupied"),
    ([["W", "A2"], ["W", "B1"]], [["B", "A1"]], 0, "suicide"),
    # a ko: White captures at E5, Black retakes at once at D5
    ([["B", "D6"], ["B", "C5"], ["B", "D4"], ["W", "E6"], ["W", "F5"], ["W", "E4"]],
     [["B", "E5"], ["W", "D5"], ["B", "E5"]], 2, "ko"),
])
def test_illegal_moves_drop_the_query(stones, moves, index, reason):
    message = refused(base(initialStones=stones, moves=moves), "moves")
    assert message.startswith(f"Illegal move {index}: ") and reason in message


def test_setup_stones_without_liberty():
    stones = [["W", "A2"], ["W", "B1"], ["B", "A1"]]
    assert "A1" in refused(base(initialStones=stones), "initialStones")


# ---------------------------------------------------------------- coordinates and sizes
def test_locations():
    assert parse_location("D4", 9) == parse_location("d4", 9) == parse_location(" (3,5) ", 9)
    assert parse_location("(0,0)", 9) == point("A9") and parse_location("(8,8)", 9) == point("J1")
    assert parse_location("( 8 , 0 )", 9) == point("J9")
    assert parse_location("pass", 9) is None and parse_location("PASS", 9) is None
    for bad in ("(9,0)", "(0,9)", "(1)", "(1,2,3)", "(a,b)", "(-1,0)", "", "D", "D0", "K1",
                "D10", "4D"):
        with pytest.raises(ValueError):
            parse_location(bad, 9)


def test_xy_moves_equal_gtp_moves():
    a = ok(base(moves=[["B", "(3,5)"], ["W", "(0,0)"]]))
    b = ok(base(moves=[["b", "d4"], ["white", "A9"]]))
    assert [(n.color, n.point) for n in a.turns[0].node.path_from_root()] == \
        [(n.color, n.point) for n in b.turns[0].node.path_from_root()]


@pytest.mark.parametrize("size, corner", [(2, "B2"), (19, "T19"), (25, "Z25")])
def test_sizes(size, corner):
    query = ok(base(boardXSize=size, boardYSize=size, moves=[["B", corner]]))
    assert query.size == size and query.game.size == size
    assert query.turns[0].node.point == vertex_to_index(corner, size)


# ---------------------------------------------------------------- turns and players
def test_turn_players_follow_the_moves_played():
    moves = [["B", "D4"], ["B", "E5"], ["W", "F6"], ["W", "pass"]]
    query = ok(base(moves=moves, analyzeTurns=[0, 1, 2, 3, 4], whiteHandicapBonus="0"))
    assert [t.to_move for t in query.turns] == [BLACK, WHITE, WHITE, BLACK, BLACK]
    assert [t.node.to_move for t in query.turns] == [t.to_move for t in query.turns]
    assert query.turns[4].node.is_pass


def test_initial_player():
    assert ok(base(initialPlayer="W")).turns[0].to_move == WHITE
    assert ok(base()).turns[0].to_move == BLACK
    # given, it is turn 0's player even when the first move is the other colour's
    query = ok(base(initialPlayer="W", moves=[["B", "D4"]], analyzeTurns=[0, 1]))
    assert [t.to_move for t in query.turns] == [WHITE, WHITE]
    # not given: the first move's player
    assert ok(base(moves=[["W", "D4"]], analyzeTurns=[0])).turns[0].to_move == WHITE


def test_handicap_stones_then_white_moves():
    stones = [["B", "C3"], ["B", "G7"]]
    query = ok(base(initialStones=stones))
    assert query.turns[0].to_move == WHITE  # only Black stones: a handicap
    query = ok(base(initialStones=stones, moves=[["W", "E5"], ["B", "D4"]],
                    analyzeTurns=[0, 1, 2]))
    assert [t.to_move for t in query.turns] == [WHITE, BLACK, WHITE]
    board = query.turns[2].node.board
    assert [board[point(v)] for v in ("C3", "G7", "E5", "D4")] == [BLACK, BLACK, WHITE, BLACK]
    assert query.game.root.setup[BLACK] == [point("C3"), point("G7")]
    # stones of both colours are a position, not a handicap: Black moves first
    assert ok(base(initialStones=stones + [["W", "E5"]])).turns[0].to_move == BLACK


def test_setup_stones_and_moves():
    stones = [["B", "D4"], ["W", "D5"], ["B", "D5"]]  # a later stone replaces an earlier one
    query = ok(base(initialStones=stones, moves=[["W", "E4"]], analyzeTurns=[0, 1]))
    root = query.turns[0].node
    assert root is query.game.root and root.board[point("D5")] == BLACK
    assert query.turns[1].node.board[point("E4")] == WHITE


def test_analyze_turns_order_duplicates_and_priorities():
    moves = [["B", "D4"], ["W", "E5"], ["B", "F6"]]
    query = ok(base(moves=moves, analyzeTurns=[3, 0, 3, 1], priorities=[5, 6, 7, 8]))
    assert [(t.number, t.priority) for t in query.turns] == [(3, 7), (0, 6), (1, 8)]
    assert [t.node.number for t in query.turns] == [3, 0, 1]
    query = ok(base(moves=moves, analyzeTurns=[1, 2], priority=-4))
    assert [t.priority for t in query.turns] == [-4, -4]
    assert ok(base(moves=moves, analyzeTurns=[])).turns == []


# ---------------------------------------------------------------- rules and komi
@pytest.mark.parametrize("rules", ["chinese-ogs", "CHINESE_KGS", "chineseogs",
                                   {"ko": "POSITIONAL", "scoring": "AREA", "suicide": False},
                                   {"suicide": False, "friendlyPassOk": True}])
def test_imagos_own_rules_give_no_warning(rules):
    assert ok(base(rules=rules)).komi == 7.5


@pytest.mark.parametrize("rules, words, komi", [
    ("tromp-taylor", ["suicide"], 7.5),
    ("Tromp Taylor", ["suicide"], 7.5),
    ("chinese", ["simple ko"], 7.5),
    ("japanese", ["simple ko"], 6.5),
    ("korean", ["simple ko"], 6.5),
    ("aga", ["situational ko"], 7.5),
    ("new-zealand", ["situational ko", "suicide"], 7.5),
    ("stone-scoring", ["tax all"], 7.5),
    ({"scoring": "TERRITORY", "suicide": False, "tax": "NONE"}, ["tax none"], 6.5),
    ({"hasButton": True, "suicide": False}, ["button"], 7.0),
    ({}, ["suicide"], 7.5),
])
def test_other_rules_warn_and_set_default_komi(rules, words, komi):
    outcome = parse(base(rules=rules))
    [warning] = warnings(outcome)
    assert warning["field"] == "rules"
    assert all(word in warning["warning"] for word in words), warning
    assert outcome.query.komi == komi and outcome.query.rules.scoring == "area"
    territory = isinstance(rules, dict) and rules.get("scoring") == "TERRITORY" \
        or rules in ("japanese", "korean")
    assert outcome.query.game.scoring == \
        ("territory" if territory else "area")


def test_komi():
    assert ok(base(komi=-3)).komi == -3.0
    assert ok(base(komi=0.5)).rules.komi == 0.5
    assert ok(base(rules={"komi": 5, "suicide": False})).komi == 5.0
    assert ok(base(rules={"komi": 5, "suicide": False}, komi=6)).komi == 6.0
    assert ok(base(komi=150)).komi == 150.0


@pytest.mark.parametrize("rules, bonus_rule, bonus", [
    ("chinese-ogs", None, 3), ("aga", None, 2), ("tromp-taylor", None, 0),
    ("chinese-ogs", "0", 0), ("tromp-taylor", "N-1", 2), ("tromp-taylor", "n", 3)])
def test_handicap_bonus_is_extra_komi(rules, bonus_rule, bonus):
    stones = [["B", "C3"], ["B", "G7"], ["B", "G3"]]
    query = parse(base(rules=rules, komi=0.5, initialStones=stones,
                       whiteHandicapBonus=bonus_rule)).query
    assert query.handicap_bonus == bonus
    assert query.komi == query.rules.komi == query.game.komi == 0.5 + bonus


def test_handicap_as_black_moves_warns():
    outcome = parse(base(moves=[["B", "C3"], ["B", "G7"], ["W", "E5"]]))
    [warning] = warnings(outcome)
    assert warning["field"] == "moves" and "initialStones" in warning["warning"]


# ---------------------------------------------------------------- other fields
def test_options():
    query = ok(base(maxVisits=77, analysisPVLen=3, includeOwnership=True,
                    includeMovesOwnership=True, includePolicy=True, includePVVisits=True,
                    reportDuringSearchEvery=0.5, rootPolicyTemperature=1.5,
                    rootFpuReductionMax=0))
    assert (query.max_visits, query.pv_len) == (77, 3)
    assert query.include_ownership and query.include_moves_ownership
    assert query.include_policy and query.include_pv_visits
    assert query.report_every == query.first_report_after == 0.5
    assert query.root_policy_temperature == 1.5 and query.overrides == {"fpu_reduction": 0.0}
    query = ok(base(reportDuringSearchEvery=2, firstReportDuringSearchAfter=0.1))
    assert (query.report_every, query.first_report_after) == (2.0, 0.1)
    query = ok(base(firstReportDuringSearchAfter=3))
    assert (query.report_every, query.first_report_after) == (None, 3.0)


def test_override_settings():
    settings_ = {"cpuctExploration": 2, "rootFpuReductionMax": "0.1", "maxVisits": "40",
                 "reportAnalysisWinratesAs": "sidetomove", "rootPolicyTemperature": 2,
                 "maxTime": 1.5, "wideRootNoise": "0.04"}
    query = ok(base(overrideSettings=settings_))
    assert query.overrides == {"c_puct": 2.0, "fpu_reduction": 0.1, "wide_root_noise": 0.04}
    assert (query.max_visits, query.report_as) == (40, "SIDETOMOVE")
    assert (query.root_policy_temperature, query.max_time) == (2.0, 1.5)
    # top-level fields win over the same settings
    query = ok(base(overrideSettings=settings_, maxVisits=9, rootFpuReductionMax=0.5,
                    rootPolicyTemperature=1))
    assert (query.max_visits, query.overrides["fpu_reduction"]) == (9, 0.5)
    assert query.root_policy_temperature == 1.0


def test_move_filters():
    avoid = [{"player": "B", "moves": ["D4", "pass", "(0,0)"], "untilDepth": 3},
             {"player": "white", "moves": [], "untilDepth": 1}]
    query = ok(base(avoidMoves=avoid))
    assert query.avoid == [MoveFilter(BLACK, frozenset({point("D4"), None, point("A9")}), 3),
                           MoveFilter(WHITE, frozenset(), 1)]
    assert query.allow == []
    query = ok(base(allowMoves=[{"player": "W", "moves": ["E5"], "untilDepth": 1}]))
    assert query.allow == [MoveFilter(WHITE, frozenset({point("E5")}), 1)] and query.avoid == []


# ---------------------------------------------------------------- warnings
def test_unknown_fields_warn_and_the_query_runs():
    outcome = parse(base(boardXsize=9, colour="red"))
    assert [(w["field"], w["id"]) for w in warnings(outcome)] == [("boardXsize", "q"),
                                                                  ("colour", "q")]
    assert ok(base(boardXsize=9), QueryDefaults(warn_unused=False)).size == 9


def test_unknown_setting_warns():
    [warning] = warnings(parse(base(overrideSettings={"playoutDoublingAdvantage": 1.5})))
    assert warning["field"] == "overrideSettings"
    assert "playoutDoublingAdvantage" in warning["warning"]


def test_visits_above_the_limit_are_clamped():
    outcome = parse(base(maxVisits=10 ** 9), QueryDefaults(max_allowed_visits=1000))
    [warning] = warnings(outcome)
    assert warning["field"] == "maxVisits" and outcome.query.max_visits == 1000


def test_ownership_spread_is_asked_for_without_warnings():
    outcome = parse(base(includeOwnershipStdev=True, includeMovesOwnershipStdev=True))
    assert warnings(outcome) == []
    query = outcome.query
    assert query.include_ownership_stdev and query.include_moves_ownership_stdev
    assert not query.include_ownership and not query.include_moves_ownership


def test_warnings_come_with_an_error_too():
    outcome = parse(base(colour="red", komi=0.3))
    assert [("warning" in m, m["field"]) for m in outcome.messages] == [(True, "colour"),
                                                                       (False, "komi")]
    assert outcome.query is None


# ---------------------------------------------------------------- actions
def test_actions():
    outcome = parse({"id": "v", "action": "query_version"})
    assert outcome.action == Action("query_version", "v", request={"id": "v",
                                                                   "action": "query_version"})
    assert outcome.messages == [] and outcome.query is None
    assert parse({"id": "c", "action": "clear_cache", "x": 1}).action.request["x"] == 1
    action = parse({"id": "t", "action": "terminate", "terminateId": "q"}).action
    assert (action.kind, action.terminate_id, action.turn_numbers) == ("terminate", "q", None)
    action = parse({"id": "t", "action": "terminate", "terminateId": "q",
                    "turnNumbers": [1, 2]}).action
    assert action.turn_numbers == [1, 2]
    action = parse({"id": "t", "action": "terminate_all", "turnNumbers": [0]}).action
    assert (action.kind, action.turn_numbers, action.terminate_id) == ("terminate_all", [0], None)


@pytest.mark.parametrize("request_, field", [
    ({"action": "terminate"}, "terminateId"),
    ({"action": "terminate", "terminateId": 5}, "terminateId"),
    ({"action": "terminate", "terminateId": "q", "turnNumbers": "1"}, "turnNumbers"),
    ({"action": "terminate_all", "turnNumbers": [1.5]}, "turnNumbers"),
    ({"action": "restart"}, "action"),
    ({"action": 3}, "action"),
])
def test_action_errors(request_, field):
    outcome = parse({"id": "q", **request_})
    assert outcome.action is None and outcome.query is None
    assert [(m["field"], m["id"]) for m in outcome.messages] == [(field, "q")]


# ---------------------------------------------------------------- fuzz
KEYS = ["id", "moves", "initialStones", "initialPlayer", "rules", "komi", "boardXSize",
        "boardYSize", "analyzeTurns", "maxVisits", "analysisPVLen", "includeOwnership",
        "includePolicy", "avoidMoves", "allowMoves", "overrideSettings", "priority",
        "priorities", "reportDuringSearchEvery", "whiteHandicapBonus", "action", "terminateId",
        "turnNumbers", "rootFpuReductionMax", "untilDepth", "player"]
scalars = st.one_of(st.none(), st.booleans(), st.integers(-30, 30), st.integers(),
                    st.floats(allow_nan=False, allow_infinity=False),
                    st.sampled_from(["B", "W", "b", "pass", "D4", "(1,2)", "A1", "Z25",
                                     "chinese", "japanese", "tromp-taylor", "query_version",
                                     "terminate", "q", "0", "N-1", "BLACK", ""]),
                    st.text(max_size=8))
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=5), st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4),
                                                 inner, max_size=5)), max_leaves=10)
def move_lists(vertices: list[str]):
    return st.lists(st.tuples(st.sampled_from(["B", "W", "b", "white"]),
                              st.sampled_from(vertices)).map(list),
                    max_size=8, unique_by=lambda move: move[1])


moves = move_lists(["D4", "E5", "pass", "A1", "(0,0)", "(8,8)", "J9", "C3", "x"])
# mostly valid queries, then a field or two replaced by anything
valid = st.fixed_dictionaries(
    {"id": st.just("q"), "boardXSize": st.just(9), "boardYSize": st.just(9),
     "rules": st.sampled_from(["chinese", "japanese", "aga", "tromp-taylor", "chinese-ogs"]),
     "moves": move_lists(["D4", "E5", "pass", "A1", "(8,8)", "J9", "C3", "B2"])},
    optional={"initialStones": move_lists(["G7", "C7", "(6,6)", "H8", "J8"]), "analyzeTurns": st.lists(st.integers(0, 8), max_size=4),
              "komi": st.sampled_from([7.5, 0, -3.5, 6]), "initialPlayer": st.just("W"),
              "includeOwnership": st.booleans(), "maxVisits": st.integers(1, 10),
              "avoidMoves": st.just([{"player": "B", "moves": ["D4"], "untilDepth": 2}]),
              "overrideSettings": st.just({"cpuctExploration": 1, "x": 2})})
queries = st.builds(lambda query, changes: {**query, **changes}, valid,
                    st.dictionaries(st.sampled_from(KEYS[1:]), values, max_size=2))


def check_outcome(outcome: ParseOutcome) -> None:
    json.dumps(outcome.messages)
    for message in outcome.messages:
        assert isinstance(message, dict)
        assert isinstance(message.get("error", message.get("warning")), str)
        assert "internal error" not in message.get("error", "")
    if outcome.query is not None:
        assert outcome.action is None and not outcome.errors
        size = outcome.query.size
        assert 2 <= size <= 25
        for turn in outcome.query.turns:
            assert turn.to_move in (BLACK, WHITE) and turn.node.board.size == size
            assert turn.node.number == turn.number and turn.node.to_move == turn.to_move
    elif outcome.action is not None:
        assert not outcome.errors
        json.dumps(outcome.action.request)
    else:
        assert outcome.errors


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=80))
def test_fuzz_text(text):
    outcome = parse_line(text, QueryDefaults())
    if text.strip():
        check_outcome(outcome)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values)
def test_fuzz_json(value):
    check_outcome(parse_line(json.dumps(value), QueryDefaults()))


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queries)
def test_fuzz_queries(query):
    check_outcome(parse_line(json.dumps(query), QueryDefaults()))
