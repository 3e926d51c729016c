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

import time
from typing import Optional, Sequence

from imago.engine.engine import GameEngine
from imago.game import BLACK, index_to_vertex, parse_color
from imago.search import PUCTSearch, SearchResult

from .moves import engine_move
from .table import GtpError, Session, command, word

DEFAULT_INTERVAL = 1.0   # seconds between info lines when none is asked for
MAX_ANALYSIS_VISITS = 1_000_000


def parse_analyze_args(engine: GameEngine, words: Sequence[str]) -> tuple[int, float, dict]:
    """``[colour] [interval]``, ``interval N`` and ``key value`` pairs
    (``ownership true``, ...), in any order; the interval is in centiseconds."""
    who = engine.state.to_move
    interval = DEFAULT_INTERVAL
    options: dict[str, str] = {}
    items = list(words)
    i = 0
    while i < len(items):
        item = items[i]
        low = item.lower()
        if low in ("b", "w", "black", "white"):
            who = parse_color(low)
        elif item.isdigit():
            interval = int(item) / 100.0
        elif i + 1 < len(items):
            value = items[i + 1]
            if low == "interval":
                if not value.isdigit():
                    raise GtpError("syntax error")
                interval = int(value) / 100.0
            else:
                options[low] = value.lower()
            i += 1
        else:
            raise GtpError("syntax error")
        i += 1
    return who, max(interval, 0.05), options


def lz_line(results: list[SearchResult], size: int) -> str:
    """Leela Zero's format: winrate, prior and lcb as integers x 10000."""
    parts = []
    for order, r in enumerate(results):
        pv = " ".join(index_to_vertex(p, size) for p in r.pv)
        parts.append(f"info move {index_to_vertex(r.point, size)} visits {r.visits} "
                     f"winrate {round(r.winrate * 10000)} prior {round(r.prior * 10000)} "
                     f"lcb {round(r.lcb * 10000)} order {order} pv {pv}")
    return " ".join(parts)


def kata_line(results: list[SearchResult], size: int, lead: float,
              ownership: Optional[list[float]]) -> str:
    """KataGo's format: floats in [0, 1]; ``scoreLead`` for the side to move
    (the position's estimate, the same for every candidate); optionally
    ``ownership`` for the side to move, row by row from the top left."""
    parts = []
    for order, r in enumerate(results):
        pv = " ".join(index_to_vertex(p, size) for p in r.pv)
        parts.append(f"info move {index_to_vertex(r.point, size)} visits {r.visits} "
                     f"winrate {r.winrate:.4f} scoreMean {lead:.2f} scoreLead {lead:.2f} "
                     f"prior {r.prior:.4f} lcb {r.lcb:.4f} order {order} pv {pv}")
    line = " ".join(parts)
    if ownership is not None:
        line += " ownership " + " ".join(f"{v:.3f}" for v in ownership)
    return line


def side_ownership(engine: GameEngine, who: int) -> list[float]:
    """Ownership of the on-board points, row-major from the top left, from
    ``who``'s side."""
    values = engine.ownership()
    sign = 1.0 if who == BLACK else -1.0
    board = engine.state.board
    return [sign * values[p] for p in board.on_board()]


def side_lead(engine: GameEngine, who: int) -> float:
    lead = engine.score()
    return lead if who == BLACK else -lead


def stream_analysis(session: Session, words: Sequence[str], kata: bool) -> str:
    """Answer ``=`` at once, then search and write one ``info`` line per
    interval until the controller sends anything."""
    engine, stream = session.engine, session.stream
    who, interval, options = parse_analyze_args(engine, words)
    stream.begin()
    state = engine.state
    search = engine.analysis_search()
    want_ownership = kata and options.get("ownership") == "true"
    lead = side_lead(engine, who) if kata else 0.0
    ownership = side_ownership(engine, who) if want_ownership else None
    size = state.size
    while not stream.interrupted():
        root = search.run(state, who, visits=MAX_ANALYSIS_VISITS, seconds=interval,
                          stop=stream.interrupted, early_stop=False)
        results = search.results(root, limit=size * size + 1)
        if results:
            line = kata_line(results, size, lead, ownership) if kata else lz_line(results, size)
            if not stream.line(line):
                break
        if root.terminal or root.total_visits() >= MAX_ANALYSIS_VISITS:
            while not stream.interrupted():
                time.sleep(0.05)
    return ""


@command("lz-analyze", rest=word, pass_session=True)
def _lz_analyze(session: Session, words: list[str]) -> str:
    return stream_analysis(session, words, kata=False)


@command("kata-analyze", rest=word, pass_session=True)
def _kata_analyze(session: Session, words: list[str]) -> str:
    return stream_analysis(session, words, kata=True)


def genmove_analyze(session: Session, words: list[str], kata: bool) -> str:
    """Play ``who``'s move, writing an ``info`` line per interval of its
    search, then ``play MOVE``."""
    if not words:
        raise GtpError("syntax error")
    engine, stream = session.engine, session.stream
    who, interval, options = parse_analyze_args(engine, words)
    stream.begin()
    size = engine.state.size
    lead = side_lead(engine, who) if kata else 0.0

    def progress(search: PUCTSearch) -> None:
        results = search.results(limit=size * size + 1)
        if results:
            stream.line(kata_line(results, size, lead, None) if kata else lz_line(results, size))

    move = engine_move(session, who, progress=progress, interval=interval)
    return f"play {engine.format_move(move)}"


@command("lz-genmove_analyze", rest=word, pass_session=True)
def _lz_genmove_analyze(session: Session, words: list[str]) -> str:
    return genmove_analyze(session, words, kata=False)


@command("kata-genmove_analyze", rest=word, pass_session=True)
def _kata_genmove_analyze(session: Session, words: list[str]) -> str:
    return genmove_analyze(session, words, kata=True)
