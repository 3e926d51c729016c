"""Analysis for Sabaki: the ``lz-analyze`` / ``kata-analyze`` family,
registered in the GTP command table.

The search is :meth:`GameEngine.analysis_search
<imago.engine.engine.GameEngine.analysis_search>`: the algorithm's own PUCT
search when it has one (so analysis and play share one tree), else a PUCT
search with playouts. Streaming commands answer ``=`` at once, then one
``info ...`` line per interval holding every candidate, until any new
input arrives.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import Optional, Sequence

from imago.engine.ending import dead_at_the_end
from imago.engine.engine import GameEngine
from imago.game import BLACK, WHITE, index_to_vertex, vertex_to_index
from imago.search import (MoveRestriction, PUCTSearch, RootSummary, SearchNode, SearchResult,
                          action_of, forbidden_at)
from imago.search.reports import report_utility, score_stdev

from .moves import engine_move
from .table import GtpError, Session, color, command, integer, lower_word, word

DEFAULT_INTERVAL = 1.0   # seconds between info lines when none is asked for
MIN_INTERVAL = 0.05      # seconds: a faster interval is this one
MAX_ANALYSIS_VISITS = 1_000_000

FLAGS = {"ownership": "ownership", "ownershipstdev": "ownership_stdev",
         "movesownership": "moves_ownership", "movesownershipstdev": "moves_ownership_stdev",
         "pvvisits": "pv_visits", "pvedgevisits": "pv_edge_visits", "rootinfo": "root_info"}
"""KataGo's ``key true|false`` options (keys in lower case) and the
:class:`AnalyzeRequest` field each sets. The four ownership flags are drawn
by ``kata-analyze`` and ``kata-genmove_analyze`` (Leela Zero's format has
no ownership); the others by every analysis command."""


@dataclass
class AnalyzeRequest:
    """What an analysis command asked for: the colour ``who`` to analyse,
    the ``interval`` between info lines in seconds, ``max_moves``
    candidates at most (None: all), at least ``min_moves`` where the
    search has not visited so many (KataGo's ``minmoves``: the legal moves
    it has not visited fill the list, highest prior first, with 0 visits),
    ``ownership`` and ``ownership_stdev``
    (KataGo's ``ownershipStdev``), the same after each candidate
    (``moves_ownership``, ``moves_ownership_stdev``), ``pv_visits`` and
    ``pv_edge_visits`` (each move of a candidate's line with its visits),
    ``root_info`` (the whole search's figures after the candidates), and
    ``restrictions``: every ``avoid`` and ``allow`` with its colour and
    depth, as the search takes them (the first moves they take away are
    not listed either)."""

    who: int
    interval: float = DEFAULT_INTERVAL
    max_moves: Optional[int] = None
    min_moves: int = 0
    ownership: bool = False
    ownership_stdev: bool = False
    moves_ownership: bool = False
    moves_ownership_stdev: bool = False
    pv_visits: bool = False
    pv_edge_visits: bool = False
    root_info: bool = False
    restrictions: list[MoveRestriction] = field(default_factory=list)

    def listed(self, search: PUCTSearch, root: Optional[SearchNode] = None
               ) -> list[SearchResult]:
        """The candidates of a search of ``root`` (default: the search's)
        to list, in order."""
        size, taken = search.size, forbidden_at(self.restrictions, 0, self.who)
        kept = [r for r in search.results(root, limit=size ** 2 + 1)
                if action_of(r.point, size) not in taken]
        if len(kept) < self.min_moves:
            more = (r for r in search.unvisited_results(root)
                    if action_of(r.point, size) not in taken)
            kept += itertools.islice(more, self.min_moves - len(kept))
        return kept if self.max_moves is None else kept[:self.max_moves]


def _count(engine: GameEngine, text: str) -> int:
    value = integer(engine, text)
    if value < 0:
        raise GtpError("syntax error")
    return value


def _vertices(engine: GameEngine, text: str) -> set[Optional[int]]:
    """``D4,Q16,pass``: points on this board (or pass)."""
    try:
        return {vertex_to_index(v, engine.size) for v in text.split(",")}
    except ValueError:
        raise GtpError("syntax error") from None


def parse_analyze_args(engine: GameEngine, words: Sequence[str]) -> AnalyzeRequest:
    """``[colour] [interval] key value ...`` as Leela Zero and KataGo take
    them: the interval in centiseconds (also ``interval N``), ``minmoves
    N``, ``maxmoves N``, ``avoid|allow COLOUR VERTICES UNTILDEPTH`` (the
    vertices comma-separated; they restrict COLOUR's moves in the first
    UNTILDEPTH plies of the search) and KataGo's ``true|false`` flags
    (:data:`FLAGS`). Anything else, or a malformed value, is a ``syntax
    error``; an unknown key is named."""
    items = list(words)
    request = AnalyzeRequest(engine.state.to_move)
    if items and items[0].lower() in ("b", "w", "black", "white"):
        request.who = color(engine, items.pop(0))
    if items and items[0][:1].isdigit():
        request.interval = _count(engine, items.pop(0)) / 100.0
    while items:
        key = lower_word(engine, items.pop(0))
        arity = 3 if key in ("avoid", "allow") else 1
        if len(items) < arity:
            raise GtpError("syntax error")
        values, items = items[:arity], items[arity:]
        if key == "interval":
            request.interval = _count(engine, values[0]) / 100.0
        elif key == "minmoves":
            request.min_moves = _count(engine, values[0])
        elif key == "maxmoves":
            request.max_moves = _count(engine, values[0])
        elif key in FLAGS:
            flag = values[0].lower()
            if flag not in ("true", "false"):
                raise GtpError("syntax error")
            setattr(request, FLAGS[key], flag == "true")
        elif key in ("avoid", "allow"):
            who = color(engine, values[0])
            points = _vertices(engine, values[1])
            depth = _count(engine, values[2])
            if depth < 1 or (who != request.who and depth < 2):
                continue  # no ply of this colour's is concerned
            request.restrictions.append(
                MoveRestriction.of(engine.size, who, points, depth, allow=key == "allow"))
        else:
            raise GtpError(f"unknown analyze option {key[:40]}")
    request.interval = max(request.interval, MIN_INTERVAL)
    return request


MovesOwnership = dict[Optional[int], tuple[list[float], list[float]]]
"""Root moves' ownership and its spread over their subtrees, from the side
to move, by point (see :func:`move_ownership`)."""


def lz_line(results: list[SearchResult], size: int,
            request: Optional[AnalyzeRequest] = None) -> str:
    """Leela Zero's format: winrate, prior and lcb as integers x 10000,
    with the optional ``scoreLead`` (points, for the side to move) that
    Sabaki and Lizzie read, when the network predicts a score; each line
    followed by KataGo's ``pvVisits`` and ``pvEdgeVisits`` where the
    ``request`` asks for them."""
    parts = []
    for order, r in enumerate(results):
        lead = "" if r.score_lead is None else f"scoreLead {r.score_lead:.2f} "
        parts.append(f"info move {index_to_vertex(r.point, size)} visits {r.visits} "
                     f"winrate {round(r.winrate * 10000)} prior {round(r.prior * 10000)} "
                     f"lcb {round(r.lcb * 10000)} {lead}order {order} "
                     f"{_line_words(r, size, request)}")
    return " ".join(parts)


def _line_words(result: SearchResult, size: int, request: Optional[AnalyzeRequest],
                owned: Optional[MovesOwnership] = None) -> str:
    """``pv`` and the candidate's line, then as the request asks
    ``pvVisits`` and ``pvEdgeVisits`` (the same numbers: imago's search is
    a tree, where each position of a line is reached by that line's move
    alone) and the candidate's ``movesOwnership`` and
    ``movesOwnershipStdev`` from ``owned`` (left out for a move the search
    kept no ownership for: random playouts)."""
    words = "pv " + " ".join(index_to_vertex(p, size) for p in result.pv)
    if request is None:
        return words
    visits = " ".join(str(v) for v in result.pv_visits)
    if request.pv_visits:
        words += " pvVisits " + visits
    if request.pv_edge_visits:
        words += " pvEdgeVisits " + visits
    mine = None if owned is None else owned.get(result.point)
    if mine is not None and request.moves_ownership:
        words += " movesOwnership " + " ".join(f"{v:.3f}" for v in mine[0])
    if mine is not None and request.moves_ownership_stdev:
        words += " movesOwnershipStdev " + " ".join(f"{v:.3f}" for v in mine[1])
    return words


def _root_words(summary: RootSummary, lead: float, stdev: float) -> str:
    """KataGo's ``rootInfo``: the whole search's visits, utility, win rate,
    lead and its spread (``lead`` and ``stdev`` where the search has none)."""
    score = lead if summary.score_lead is None else summary.score_lead
    spread = stdev if summary.score_stdev is None else summary.score_stdev
    return (f"rootInfo visits {summary.visits} "
            f"utility {report_utility(summary.winrate, score):.4f} "
            f"winrate {summary.winrate:.4f} scoreMean {score:.2f} scoreStdev {spread:.2f} "
            f"scoreLead {score:.2f} scoreSelfplay {score:.2f}")


def kata_line(results: list[SearchResult], size: int, lead: float, stdev: float,
              ownership: Optional[list[float]],
              ownership_stdev: Optional[list[float]] = None,
              request: Optional[AnalyzeRequest] = None, root: Optional[RootSummary] = None,
              owned: Optional[MovesOwnership] = None) -> str:
    """KataGo's format, its fields in its order: floats in [0, 1];
    ``scoreLead`` for the side to move: each candidate's lead backed up by
    the search from the network's ownership, or (an evaluator without a
    score) ``lead``, the position's count for every candidate, repeated as
    ``scoreMean`` and ``scoreSelfplay`` (imago estimates one score);
    ``scoreStdev`` from the network's ownership after the move
    (:func:`~imago.search.reports.score_stdev`), else ``stdev``, the
    position's; ``utility`` and ``utilityLcb`` as the JSON analysis engine
    reports them (:func:`~imago.search.reports.report_utility`); each
    line's extras as the ``request`` asks (:func:`_line_words`, the moves'
    ownership from ``owned``); with a ``root`` summary KataGo's
    ``rootInfo`` after the candidates; optionally ``ownership`` for the
    side to move, row by row from the top left, and its
    ``ownershipStdev``."""
    parts = []
    for order, r in enumerate(results):
        score = lead if r.score_lead is None else r.score_lead
        spread = stdev if r.score_stdev is None else r.score_stdev
        parts.append(f"info move {index_to_vertex(r.point, size)} visits {r.visits} "
                     f"utility {report_utility(r.winrate, score):.4f} "
                     f"winrate {r.winrate:.4f} scoreMean {score:.2f} scoreStdev {spread:.2f} "
                     f"scoreLead {score:.2f} scoreSelfplay {score:.2f} "
                     f"prior {r.prior:.4f} lcb {r.lcb:.4f} "
                     f"utilityLcb {report_utility(r.lcb, score):.4f} order {order} "
                     f"{_line_words(r, size, request, owned)}")
    if root is not None:
        parts.append(_root_words(root, lead, stdev))
    line = " ".join(parts)
    if ownership is not None:
        line += " ownership " + " ".join(f"{v:.3f}" for v in ownership)
    if ownership_stdev is not None:
        line += " ownershipStdev " + " ".join(f"{v:.3f}" for v in ownership_stdev)
    return line


def side_ownership(engine: GameEngine, who: int) -> list[float]:
    """Ownership of the on-board points, row-major from the top left, from
    ``who``'s side."""
    values = engine.ownership()
    sign = 1.0 if who == BLACK else -1.0
    board = engine.state.board
    return [sign * values[p] for p in board.on_board()]


def ownership_and_stdev(engine: GameEngine, search: PUCTSearch, who: int
                        ) -> tuple[list[float], list[float]]:
    """The ownership from ``who``'s side (the root player's) and its spread
    over the search tree's evaluations (:meth:`PUCTSearch.tree_ownership_spread`,
    one walk over the tree for both), row-major from the top left; where the
    tree kept no ownership (random playouts: one estimate, from the count),
    :func:`side_ownership` and zeros."""
    both = search.tree_ownership_spread(search.root)
    if both is None:
        return side_ownership(engine, who), [0.0] * engine.state.size ** 2
    return [float(v) for v in both[0]], [float(v) for v in both[1]]


def move_ownership(search: PUCTSearch, root: SearchNode, point: Optional[int],
                   size: int) -> Optional[tuple[list[float], list[float]]]:
    """The ownership after the root move ``point`` and its spread over that
    move's subtree, from the root player's side, row-major from the top left
    (:meth:`PUCTSearch.move_ownership_spread`); None where the tree kept no
    ownership."""
    both = search.move_ownership_spread(action_of(point, size), root)
    return None if both is None else ([float(v) for v in both[0]], [float(v) for v in both[1]])


def side_lead(engine: GameEngine, who: int) -> float:
    lead = engine.score()
    return lead if who == BLACK else -lead


OWNERSHIP_GROWTH = 1.25
"""``kata-analyze`` averages the ownership over the tree again once the
tree has grown by this factor: a pass over the tree costs about 2 us a
node, too much to repeat every 0.1 s for a tree of 100,000 nodes."""


class LineExtras:
    """What a ``kata-analyze`` line adds to the candidates, as the request
    asks: the position's lead and :func:`~imago.search.reports.score_stdev`
    (for candidates without their own: random playouts; worked out the
    first time one is missing), the ownership and its spread, and
    each candidate's (``moves_ownership``). The tree-wide ones are averaged
    again once the tree has grown by :data:`OWNERSHIP_GROWTH`; a candidate
    new to the list gets its own at once. Leela Zero's lines (``kata``
    false) add none of them."""

    def __init__(self, engine: GameEngine, request: AnalyzeRequest, kata: bool):
        self.engine, self.request, self.kata = engine, request, kata
        who = request.who
        self.lead = side_lead(engine, who) if kata else 0.0
        self.ownership = side_ownership(engine, who) if kata and request.ownership else None
        self.stdev: Optional[float] = None  # the position's, once a candidate lacks one
        self.spread: Optional[list[float]] = None
        self.spread_wanted = kata and request.ownership_stdev
        self.moves_wanted = kata and (request.moves_ownership or request.moves_ownership_stdev)
        self.owned: MovesOwnership = {}
        self.owned_at = 0  # the root's visits when the ownership was last averaged

    def line(self, search: PUCTSearch, root: SearchNode, results: list[SearchResult]) -> str:
        """The ``info`` line of ``results``, a search of ``root``."""
        request, size = self.request, self.engine.state.size
        if not self.kata:
            return lz_line(results, size, request)
        visits = root.total_visits()
        if (self.ownership is not None or self.spread_wanted or self.moves_wanted) \
                and visits >= OWNERSHIP_GROWTH * self.owned_at:
            if self.spread_wanted:  # the tree's, as it grows
                mean, self.spread = ownership_and_stdev(self.engine, search, request.who)
                self.ownership = None if self.ownership is None else mean
            elif self.ownership is not None:
                self.ownership = side_ownership(self.engine, request.who)
            self.owned = {}
            self.owned_at = max(visits, 1)
        for result in results if self.moves_wanted else ():
            if self.owned.get(result.point) is None:  # new to the list, or kept none yet
                self.owned[result.point] = move_ownership(search, root, result.point, size)
        summary = search.summary(root) if request.root_info else None
        if self.stdev is None and (any(r.score_stdev is None for r in results)
                                   or (summary is not None and summary.score_stdev is None)):
            self.stdev = score_stdev(side_ownership(self.engine, request.who))
        return kata_line(results, size, self.lead, self.stdev or 0.0, self.ownership,
                         self.spread, request, summary, self.owned)


def stream_analysis(session: Session, words: Sequence[str], kata: bool) -> str:
    """Answer ``=`` at once, then search and write one ``info`` line per
    interval until the controller sends anything."""
    engine, stream = session.engine, session.stream
    request = parse_analyze_args(engine, words)
    who = request.who
    stream.begin()
    state = engine.state
    search = engine.analysis_search()
    extras = LineExtras(engine, request, kata)
    if request.restrictions:  # a free search's tree holds lines they leave out
        search.forget()
    search.assume_dead(state.board, lambda: dead_at_the_end(state))
    while not stream.interrupted():
        root = search.run(state, who, visits=MAX_ANALYSIS_VISITS, seconds=request.interval,
                          stop=stream.interrupted, early_stop=False,
                          restrictions=request.restrictions)
        results = request.listed(search, root)
        if results and not stream.line(extras.line(search, root, results)):
            break
        if root.terminal or root.total_visits() >= MAX_ANALYSIS_VISITS:
            while not stream.interrupted():
                time.sleep(0.05)
    if request.restrictions:  # its visits went to the moves allowed: the next search
        search.forget()       # starts afresh
    return ""


@command("lz-analyze", rest=word, pass_session=True)
def _lz_analyze(session: Session, words: list[str]) -> str:
    return stream_analysis(session, words, kata=False)


@command("kata-analyze", rest=word, pass_session=True)
def _kata_analyze(session: Session, words: list[str]) -> str:
    return stream_analysis(session, words, kata=True)


def genmove_analyze(session: Session, words: list[str], kata: bool) -> str:
    """Play ``who``'s move, writing an ``info`` line per interval of its
    search, then ``play MOVE``. ``avoid`` and ``allow`` leave moves out of
    the search (to their depth) and of the move played (as KataGo's do);
    refused before anything is written when the algorithm cannot leave
    moves out or they leave no legal move."""
    engine, stream = session.engine, session.stream
    request = parse_analyze_args(engine, words)
    restrictions = tuple(request.restrictions)
    if restrictions:  # refused now: once the "=" is written, no "?" can follow
        try:
            engine.check_forbidden(request.who, restrictions)
        except ValueError as error:
            raise GtpError(str(error)) from None
    who = request.who
    stream.begin()
    extras = LineExtras(engine, request, kata)

    def progress(search: PUCTSearch) -> None:
        results = request.listed(search)
        if results:
            stream.line(extras.line(search, search.root, results))

    move = engine_move(session, who, progress=progress, interval=request.interval,
                       restrictions=restrictions)
    return f"play {engine.format_move(move)}"


@command("kata-raw-nn", lower_word)
def _kata_raw_nn(engine: GameEngine, which: str) -> str:
    """KataGo's raw network output for the position, from White's side:
    under board symmetry ``which`` (0-7) or the mean of ``all`` 8; the
    policy row by row from the top (``NAN`` where the move is illegal),
    then the pass's; the ownership the same way, +1 for White."""
    if which != "all" and not (which.isdigit() and int(which) < 8):
        raise GtpError("syntax error: a symmetry from 0 to 7, or all")
    networks = getattr(engine.algorithm, "networks", None)
    size, state = engine.size, engine.state
    if networks is None or not networks.uses_network(size):
        raise GtpError(f"no network plays {size}x{size} here")
    evaluator = networks.for_size(size)
    try:
        out = evaluator.raw(state.current, None if which == "all" else int(which))
    except ValueError as error:  # a network made for another size
        raise GtpError(str(error)) from None
    white = 1.0 if state.to_move == WHITE else -1.0
    board = state.board
    lines = [f"symmetry {which}"]
    if "value" in out:
        win = (1.0 + white * float(out["value"].reshape(-1)[0])) / 2.0
        lines += [f"whiteWin {win:.6f}", f"whiteLoss {1.0 - win:.6f}", "noResult 0.000000"]
    if "score" in out:
        lines.append(f"whiteLead {white * float(out['score'].reshape(-1)[0]):.3f}")
    policy = out["policy"]
    legal = [board.illegal_reason(board.index(c, r), state.to_move) is None
             for r in range(size) for c in range(size)]
    cells = [f"{p:.6f}" if ok else "NAN" for p, ok in zip(policy[:-1], legal)]
    lines += ["policy"] + [" ".join(cells[r * size:(r + 1) * size]) for r in range(size)]
    lines.append(f"policyPass {float(policy[-1]):.6f}")
    if "ownership" in out:
        owned = [f"{white * v:.6f}" for v in out["ownership"]]
        lines += ["whiteOwnership"] + [" ".join(owned[r * size:(r + 1) * size])
                                       for r in range(size)]
    return "\n".join(lines)


@command("lz-genmove_analyze", rest=word, pass_session=True)
def _lz_genmove_analyze(session: Session, words: list[str]) -> str:
    return genmove_analyze(session, words, kata=False)


@command("kata-genmove_analyze", rest=word, pass_session=True)
def _kata_genmove_analyze(session: Session, words: list[str]) -> str:
    return genmove_analyze(session, words, kata=True)
