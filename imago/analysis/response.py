"""KataGo analysis responses: the JSON objects (as dicts) the analysis engine
writes for an analysed turn, a terminated turn without results, an action's
acknowledgement, an error or a warning.

The engine fills a :class:`TurnAnalysis` (plain numbers from the root
player's view) and :func:`turn_response` turns it into KataGo's response,
every win rate, score, utility and ownership seen from the query's
``report_as`` side (``BLACK``, ``WHITE`` or ``SIDETOMOVE``, the player to
move at the analysed turn). Where imago has no counterpart of a KataGo
number:

- ``scoreMean`` and ``scoreSelfplay`` repeat ``scoreLead`` (imago estimates
  one score); ``scoreStdev`` is :func:`~imago.search.reports.score_stdev`
  of the network's ownership (left out where the search kept none);
  ``thisHash`` and ``symHash`` of ``rootInfo`` are left out;
- ``utility`` is :func:`~imago.search.reports.report_utility`, a fixed
  mix of win rate and score lead (GTP ``kata-analyze`` gives the same);
  ``utilityLcb`` is the same mix of ``lcb`` and the score lead;
- ``lcb`` for the other side is ``1 - lcb`` (KataGo converts it the same
  way); ``rootInfo``'s ``lcb`` is its win rate;
- ``pv`` holds the move and up to ``analysisPVLen`` moves after it, as
  KataGo's does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import imago
from imago.game import BLACK, WHITE, index_to_vertex
from imago.search.reports import SCORE_UTILITY_FACTOR, SCORE_UTILITY_SCALE
from imago.search.reports import report_utility as utility

from .query import Action, Query, Turn, error_message, warning_message

GIT_HASH = "<omitted>"
"""What ``query_version`` gives as the git hash (KataGo's word for none)."""

error = error_message
warning = warning_message


@dataclass
class MoveInfo:
    """One candidate move at the root, from the root player's view.

    ``point`` is an internal board index (None: pass); ``score_lead`` the
    expected lead in points, komi included (None when the evaluator predicts
    no score); ``pv`` starts with the move itself; ``pv_visits`` has the
    visits of each ``pv`` move; ``ownership`` (only when the query asks for
    moves' ownership) has one value per point, row-major from the top-left,
    +1 for the root player; ``score_stdev`` the spread of the final score
    (None: not known)."""

    point: Optional[int]
    visits: int
    winrate: float
    score_lead: Optional[float]
    prior: float
    lcb: float
    pv: list
    pv_visits: list
    ownership: Optional[list] = None
    ownership_stdev: Optional[list] = None
    score_stdev: Optional[float] = None


@dataclass
class TurnAnalysis:
    """A search of one turn of a query, from the root player's view (the
    player to move at ``turn``). ``moves`` most visited first;
    ``ownership`` one value per point, row-major from the top-left (row 0
    is GTP row ``size``), +1 for the root player; ``policy`` the network's
    ``size * size + 1`` priors in the same order, then the pass, -1 for
    illegal moves."""

    query: Query
    turn: Turn
    moves: list
    root_winrate: float
    root_score_lead: Optional[float]
    root_visits: int
    during_search: bool
    ownership: Optional[list] = None
    ownership_stdev: Optional[list] = None
    policy: Optional[list] = None
    root_score_stdev: Optional[float] = None


def perspective_sign(report_as: str, to_move: int) -> int:
    """+1 when ``report_as`` is the root player's side, else -1."""
    if report_as == "BLACK":
        return 1 if to_move == BLACK else -1
    if report_as == "WHITE":
        return 1 if to_move == WHITE else -1
    return 1


def _side(value: float, sign: int) -> float:
    """A value that changes sign with the side (score, ownership); no -0.0."""
    return float(value) * sign + 0.0


def _chance(value: float, sign: int) -> float:
    """A probability seen by the other side when ``sign`` is -1."""
    return float(value) if sign > 0 else 1.0 - float(value)


def _scores(out: dict, score_lead: Optional[float], sign: int) -> Optional[float]:
    """Put the score fields into ``out``; the converted lead (None: none)."""
    if score_lead is None:
        return None
    lead = _side(score_lead, sign)
    out["scoreLead"] = out["scoreMean"] = out["scoreSelfplay"] = lead
    return lead


def move_info(move: MoveInfo, order: int, query: Query, sign: int) -> dict:
    """One ``moveInfos`` entry."""
    size = query.size
    out: dict = {"move": index_to_vertex(move.point, size), "visits": int(move.visits),
                 "winrate": _chance(move.winrate, sign)}
    lead = _scores(out, move.score_lead, sign)
    if lead is not None and move.score_stdev is not None:
        out["scoreStdev"] = float(move.score_stdev)
    lcb = _chance(move.lcb, sign)
    out.update(prior=float(move.prior), lcb=lcb, utility=utility(out["winrate"], lead),
               utilityLcb=utility(lcb, lead), order=order)
    pv = list(move.pv[:query.pv_len + 1]) or [move.point]
    out["pv"] = [index_to_vertex(point, size) for point in pv]
    if query.include_pv_visits:
        visits = [int(v) for v in move.pv_visits[:len(pv)]]
        out["pvVisits"] = visits or [int(move.visits)]
    if query.include_moves_ownership and move.ownership is not None:
        out["ownership"] = [_side(v, sign) for v in move.ownership]
    if query.include_moves_ownership_stdev and move.ownership_stdev is not None:
        out["ownershipStdev"] = [float(v) for v in move.ownership_stdev]
    return out


def turn_response(analysis: TurnAnalysis) -> dict:
    """KataGo's response for one analysed turn (final, or a report during
    the search), seen from the query's ``report_as`` side."""
    query, turn = analysis.query, analysis.turn
    sign = perspective_sign(query.report_as, turn.to_move)
    root: dict = {"winrate": _chance(analysis.root_winrate, sign)}
    lead = _scores(root, analysis.root_score_lead, sign)
    if lead is not None and analysis.root_score_stdev is not None:
        root["scoreStdev"] = float(analysis.root_score_stdev)
    root.update(utility=utility(root["winrate"], lead), visits=int(analysis.root_visits),
                currentPlayer="B" if turn.to_move == BLACK else "W", lcb=root["winrate"])
    out = {"id": query.id, "turnNumber": turn.number, "isDuringSearch": bool(analysis.during_search),
           "moveInfos": [move_info(move, order, query, sign)
                         for order, move in enumerate(analysis.moves)],
           "rootInfo": root}
    if query.include_ownership and analysis.ownership is not None:
        out["ownership"] = [_side(v, sign) for v in analysis.ownership]
    if query.include_ownership_stdev and analysis.ownership_stdev is not None:
        out["ownershipStdev"] = [float(v) for v in analysis.ownership_stdev]
    if query.include_policy and analysis.policy is not None:
        out["policy"] = [float(p) for p in analysis.policy]
    return out


def no_results_response(query_id: str, turn_number: int) -> dict:
    """The response for a turn terminated before any analysis."""
    return {"id": query_id, "turnNumber": turn_number, "isDuringSearch": False,
            "noResults": True}


def version_response(action: Action, version: Optional[str] = None,
                     git_hash: str = GIT_HASH) -> dict:
    """``query_version``'s answer: the request echoed, with ``version``
    (imago's, unless given) and ``git_hash``."""
    out = dict(action.request)
    out["version"] = imago.__version__ if version is None else version
    out["git_hash"] = git_hash
    return out


def action_response(action: Action) -> dict:
    """The acknowledgement of an action, as KataGo writes it once the action
    is done: the request echoed (with the version for ``query_version``)."""
    if action.kind == "query_version":
        return version_response(action)
    return dict(action.request)


__all__ = ["MoveInfo", "TurnAnalysis", "turn_response", "move_info", "no_results_response",
           "version_response", "action_response", "utility", "perspective_sign", "error",
           "warning", "SCORE_UTILITY_FACTOR", "SCORE_UTILITY_SCALE", "GIT_HASH"]
