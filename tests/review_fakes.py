"""A fake KataGo analysis engine for the review tests: answers shaped like
KataGo's, with the values a test script chooses, computed in no time."""

from __future__ import annotations

import math
from typing import Callable, Optional, Union

from imago.game import BLACK, WHITE, GameBoard, index_to_vertex, vertex_to_index

Leads = Union[dict, Callable[[int], float], None]


def winrate_of(lead: float) -> float:
    """Black's win rate the fake gives a Black lead of ``lead`` points."""
    return 1.0 / (1.0 + math.exp(-lead / 4.0))


class FakeAnalyzer:
    """``analyze(query, on_response)`` answering every turn of a query.

    At turn ``k`` Black leads by ``leads[k]`` points (0 when not given) and
    the best move keeps that lead: so move ``k`` loses, from its mover's
    side, ``sign * (leads[k] - leads[k + 1])``. The best move is the first
    legal point (in the board's order) other than the move played, with a line of
    up to three legal moves. Values are reported from ``perspective``, as
    KataGo's ``reportAnalysisWinratesAs`` does; ``current_player`` (turn ->
    "B"/"W") overrides the ``rootInfo.currentPlayer`` sent. ``queries``
    keeps what was asked.
    """

    def __init__(self, leads: Leads = None, perspective: str = "BLACK",
                 current_player: Optional[dict] = None, best_is_played: tuple = ()):
        self.leads = leads or {}
        self.perspective = perspective
        self.current_player = current_player or {}
        self.best_is_played = set(best_is_played)
        self.queries: list[dict] = []

    def lead(self, turn: int) -> float:
        if callable(self.leads):
            return float(self.leads(turn))
        return float(self.leads.get(turn, 0.0))

    def __call__(self, query: dict, on_response=None) -> list[dict]:
        self.queries.append(query)
        size = query["boardXSize"]
        board = GameBoard(size)
        black = [vertex_to_index(v, size) for c, v in query["initialStones"] if c == "B"]
        white = [vertex_to_index(v, size) for c, v in query["initialStones"] if c == "W"]
        board.set_stones(black=black, white=white)
        moves = query["moves"]
        color = BLACK if query.get("initialPlayer", "B") == "B" else WHITE
        responses = []
        for turn in range(len(moves) + 1):
            if turn < len(moves):
                color = BLACK if moves[turn][0] == "B" else WHITE
            if turn in query["analyzeTurns"]:
                played = moves[turn][1] if turn < len(moves) else None
                response = self.response(query, turn, board, color, played)
                responses.append(response)
                if on_response is not None:
                    on_response(response)
            if turn < len(moves):
                board.play(vertex_to_index(moves[turn][1], size), color)
                color = WHITE if color == BLACK else BLACK
        return sorted(responses, key=lambda r: r["turnNumber"])

    def response(self, query: dict, turn: int, board: GameBoard, color: int,
                 played: Optional[str]) -> dict:
        size = query["boardXSize"]
        player = self.current_player.get(turn, "B" if color == BLACK else "W")
        lead = self.lead(turn)
        flip = self.perspective == "WHITE" or (self.perspective == "SIDETOMOVE" and player == "W")
        winrate = 1.0 - winrate_of(lead) if flip else winrate_of(lead)
        score = -lead if flip else lead
        if turn in self.best_is_played and played is not None:
            pv = [played]
        else:
            pv, scratch, mover = [], board.copy(), color
            for point in scratch.legal_moves(mover):
                if index_to_vertex(point, size) != played:
                    break
            else:
                point = None
            while point is not None and len(pv) < 3:
                pv.append(index_to_vertex(point, size))
                scratch.play(point, mover)
                mover = WHITE if mover == BLACK else BLACK
                legal = scratch.legal_moves(mover)
                point = legal[0] if legal else None
            pv = pv or ["pass"]
        info = {"move": pv[0], "order": 0, "visits": query.get("maxVisits", 10), "prior": 0.5,
                "winrate": winrate, "scoreLead": score, "scoreMean": score, "pv": pv}
        return {"id": query["id"], "isDuringSearch": False, "turnNumber": turn,
                "moveInfos": [info],
                "rootInfo": {"winrate": winrate, "scoreLead": score, "currentPlayer": player,
                             "visits": query.get("maxVisits", 10)}}
