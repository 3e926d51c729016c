"""imago.analysis.response: KataGo responses from hand-made search results --
the fields, perspective conversion for BLACK, WHITE and SIDETOMOVE, the
order of ownership and policy, PV truncation, and the acknowledgements of
actions."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import imago
from imago.analysis.query import Query, QueryDefaults, parse_line
from imago.analysis.response import (GIT_HASH, MoveInfo, TurnAnalysis, action_response, error,
                                     no_results_response, turn_response, utility,
                                     version_response, warning)
from imago.game import vertex_to_index

SIZE = 5


def query(report_as: str = "BLACK", moves=(("B", "C3"),), **fields) -> Query:
    """A 5x5 query; after the default moves White is to move."""
    request = {"id": "r", "moves": [list(m) for m in moves], "rules": "chinese-ogs",
               "boardXSize": SIZE, "boardYSize": SIZE,
               "overrideSettings": {"reportAnalysisWinratesAs": report_as}, **fields}
    outcome = parse_line(json.dumps(request), QueryDefaults())
    assert outcome.messages == [] and outcome.query is not None, outcome.messages
    return outcome.query


def pt(vertex: str):
    return vertex_to_index(vertex, SIZE)


def analysis(q: Query, **changes) -> TurnAnalysis:
    """White to move (the root player) wins 70%, leads by 4 points."""
    moves = [MoveInfo(pt("D4"), 30, 0.7, 4.0, 0.5, 0.6, [pt("D4"), pt("B2"), None],
                      [30, 12, 5], ownership=[0.5] * (SIZE * SIZE)),
             MoveInfo(None, 2, 0.2, -3.0, 0.01, 0.1, [None], [2])]
    fields = dict(query=q, turn=q.turns[-1], moves=moves, root_winrate=0.65,
                  root_score_lead=3.5, root_visits=33, during_search=False,
                  ownership=[i / 100 for i in range(SIZE * SIZE)],
                  policy=[-1.0] + [0.5 / (SIZE * SIZE - 1)] * (SIZE * SIZE - 1) + [0.5])
    fields.update(changes)
    return TurnAnalysis(**fields)


def test_fields_from_the_root_players_view():
    q = query("SIDETOMOVE")
    out = turn_response(analysis(q))
    assert (out["id"], out["turnNumber"], out["isDuringSearch"]) == ("r", 1, False)
    first, second = out["moveInfos"]
    assert first["move"] == "D4" and second["move"] == "pass"
    assert (first["order"], second["order"]) == (0, 1)
    assert first["visits"] == 30 and first["winrate"] == 0.7 and first["prior"] == 0.5
    assert first["scoreLead"] == first["scoreMean"] == first["scoreSelfplay"] == 4.0
    assert first["lcb"] == 0.6 and first["utility"] == utility(0.7, 4.0)
    assert first["utilityLcb"] == utility(0.6, 4.0)
    assert first["pv"] == ["D4", "B2", "pass"] and "pvVisits" not in first
    assert "scoreStdev" not in first and "ownership" not in first
    root = out["rootInfo"]
    assert root == {"winrate": 0.65, "scoreLead": 3.5, "scoreMean": 3.5, "scoreSelfplay": 3.5,
                    "utility": utility(0.65, 3.5), "visits": 33, "currentPlayer": "W",
                    "lcb": 0.65}
    # ownership and policy only when asked for
    assert "ownership" not in out and "policy" not in out
    json.dumps(out, allow_nan=False)


@pytest.mark.parametrize("report_as, sign", [("BLACK", -1), ("WHITE", 1), ("SIDETOMOVE", 1)])
def test_perspective_with_white_to_move(report_as, sign):
    q = query(report_as, includeOwnership=True, includeMovesOwnership=True)
    out = turn_response(analysis(q))
    first = out["moveInfos"][0]
    flip = (lambda p: p) if sign > 0 else (lambda p: 1 - p)
    assert first["winrate"] == pytest.approx(flip(0.7))
    assert first["lcb"] == pytest.approx(flip(0.6))
    assert first["scoreLead"] == sign * 4.0
    assert first["utility"] == pytest.approx(sign * utility(0.7, 4.0))
    assert first["ownership"] == [sign * 0.5] * (SIZE * SIZE)
    assert out["rootInfo"]["winrate"] == pytest.approx(flip(0.65))
    assert out["rootInfo"]["scoreLead"] == sign * 3.5
    assert out["rootInfo"]["currentPlayer"] == "W"
    assert out["ownership"] == [sign * i / 100 + 0.0 for i in range(SIZE * SIZE)]


@pytest.mark.parametrize("report_as, sign", [("BLACK", 1), ("WHITE", -1), ("SIDETOMOVE", 1)])
def test_perspective_with_black_to_move(report_as, sign):
    q = query(report_as, moves=(), includeOwnership=True)
    out = turn_response(analysis(q))
    assert out["rootInfo"]["currentPlayer"] == "B"
    assert out["rootInfo"]["scoreLead"] == sign * 3.5
    assert out["ownership"][1] == sign * 0.01


def test_ownership_and_policy_keep_their_order():
    q = query("WHITE", includeOwnership=True, includePolicy=True)
    made = analysis(q)
    out = turn_response(made)
    # row-major from the top-left, passed through in order (White's view = the root's)
    assert out["ownership"] == made.ownership and len(out["ownership"]) == SIZE * SIZE
    # the policy is no one's view: unchanged, illegal moves stay -1, the pass last
    assert out["policy"] == made.policy and len(out["policy"]) == SIZE * SIZE + 1
    assert out["policy"][0] == -1.0 and out["policy"][-1] == 0.5
    out = turn_response(analysis(query("BLACK", includeOwnership=True, includePolicy=True)))
    assert out["ownership"] == [-v + 0.0 for v in made.ownership] and out["policy"] == made.policy
    assert not any(math.copysign(1, v) < 0 and v == 0 for v in out["ownership"])  # no -0.0


def test_missing_ownership_is_left_out():
    q = query(includeOwnership=True, includePolicy=True, includeMovesOwnership=True)
    out = turn_response(analysis(q, ownership=None, policy=None))
    assert "ownership" not in out and "policy" not in out
    assert "ownership" not in out["moveInfos"][1]


def test_pv_is_cut_to_the_move_and_pv_len_more():
    q = query(analysisPVLen=2, includePVVisits=True)
    long_pv = [pt(v) for v in ("D4", "B2", "B3", "B4", "C2")]
    move = MoveInfo(pt("D4"), 9, 0.5, 0.0, 0.1, 0.4, long_pv, [9, 8, 7, 6, 5])
    bare = MoveInfo(pt("E5"), 1, 0.5, 0.0, 0.1, 0.4, [], [])
    first, second = turn_response(analysis(q, moves=[move, bare]))["moveInfos"]
    assert first["pv"] == ["D4", "B2", "B3"] and first["pvVisits"] == [9, 8, 7]
    assert second["pv"] == ["E5"] and second["pvVisits"] == [1]


def test_unknown_score_is_left_out():
    q = query()
    move = MoveInfo(pt("D4"), 9, 0.5, None, 0.1, 0.4, [pt("D4")], [9])
    out = turn_response(analysis(q, moves=[move], root_score_lead=None))
    assert "scoreLead" not in out["moveInfos"][0] and "scoreLead" not in out["rootInfo"]
    assert out["rootInfo"]["utility"] == pytest.approx(utility(1 - 0.65, 0.0))  # Black's view


def test_numpy_numbers_become_json_numbers():
    q = query(includeOwnership=True, includePolicy=True, includePVVisits=True)
    move = MoveInfo(pt("D4"), np.int64(9), np.float32(0.5), np.float32(1.5), np.float32(0.1),
                    np.float32(0.4), [pt("D4")], [np.int64(9)])
    out = turn_response(analysis(q, moves=[move], root_winrate=np.float32(0.5),
                                 ownership=np.zeros(SIZE * SIZE, np.float32),
                                 policy=np.full(SIZE * SIZE + 1, 0.04, np.float32),
                                 during_search=np.bool_(True)))
    text = json.dumps(out, allow_nan=False)
    assert json.loads(text)["isDuringSearch"] is True


def test_turn_numbers_and_during_search():
    q = query(moves=(("B", "C3"), ("W", "D4")), analyzeTurns=[0, 2])
    out = turn_response(analysis(q, turn=q.turns[0], during_search=True))
    assert (out["turnNumber"], out["isDuringSearch"]) == (0, True)
    assert out["rootInfo"]["currentPlayer"] == "B"


def test_utility_is_odd():
    for winrate, lead in ((0.7, 4.0), (0.1, -30.0), (0.5, 0.0)):
        assert utility(1 - winrate, -lead) == pytest.approx(-utility(winrate, lead))
    assert -1.5 < utility(0.0, -1000) < -1 and 1 < utility(1.0, 1000) < 1.5


def test_messages():
    assert error("bad") == {"error": "bad"}
    assert error("bad", "komi", "q") == {"id": "q", "field": "komi", "error": "bad"}
    assert warning("odd", "rules", "q") == {"id": "q", "field": "rules", "warning": "odd"}
    assert no_results_response("q", 3) == {"id": "q", "turnNumber": 3, "isDuringSearch": False,
                                           "noResults": True}


def test_action_acknowledgements_echo_the_request():
    def action(request):
        return parse_line(json.dumps(request), QueryDefaults()).action

    version = action({"id": "v", "action": "query_version", "extra": [1]})
    assert action_response(version) == version_response(version) == {
        "id": "v", "action": "query_version", "extra": [1], "version": imago.__version__,
        "git_hash": GIT_HASH}
    assert version_response(version, "1.0", "abc")["version"] == "1.0"
    for request in ({"id": "c", "action": "clear_cache"},
                    {"id": "t", "action": "terminate", "terminateId": "q", "turnNumbers": [1]},
                    {"id": "a", "action": "terminate_all"}):
        done = action(request)
        assert action_response(done) == request
        assert action_response(done) is not done.request  # a copy the engine may change
