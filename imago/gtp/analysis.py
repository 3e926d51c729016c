"""Analysis for GUIs: Sabaki's ``lz-analyze`` / ``kata-analyze`` family and
GoGui's analyze commands, registered in the GTP command table.

The search is the engine's own PUCT search when its algorithm is ``mcts``
(so analysis and play share one tree), else a PUCT search with playouts.
Streaming commands answer ``=`` at once, then one ``info ...`` line per
interval holding every candidate, until any new input arrives.
"""

from __future__ import annotations

import sys
import time
from typing import Optional, Sequence

from imago.game import BLACK, WHITE, index_to_vertex, parse_color

from .commands import GtpError, color, command, word
from imago.engine.engine import GameEngine
from imago.search.mcts import PlayoutEvaluator, PUCTSearch, SearchResult

DEFAULT_INTERVAL = 1.0   # seconds between info lines when none is asked for
MAX_ANALYSIS_VISITS = 1_000_000


def analysis_search(engine: GameEngine) -> PUCTSearch:
    """The search analysis runs: the algorithm's own PUCT search, or one
    with random playouts kept on the engine."""
    search = getattr(engine.algorithm, "search", None)
    if isinstance(search, PUCTSearch):
        return search
    if getattr(engine, "_analysis_search", None) is None:
        engine._analysis_search = PUCTSearch(PlayoutEvaluator(komi=engine.state.komi, seed=1),
                                             batch_size=8, seed=1)
    search = engine._analysis_search
    search.evaluator.komi = engine.state.komi
    return search


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


def stream_analysis(engine: GameEngine, words: Sequence[str], kata: bool) -> str:
    who, interval, options = parse_analyze_args(engine, words)
    stream = engine.stream
    stream.begin()
    state = engine.state
    search = analysis_search(engine)
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


@command("lz-analyze", rest=word)
def _lz_analyze(engine: GameEngine, words: list[str]) -> str:
    return stream_analysis(engine, words, kata=False)


@command("kata-analyze", rest=word)
def _kata_analyze(engine: GameEngine, words: list[str]) -> str:
    return stream_analysis(engine, words, kata=True)


def genmove_analyze(engine: GameEngine, words: list[str], kata: bool) -> str:
    if not words:
        raise GtpError("syntax error")
    who, interval, options = parse_analyze_args(engine, words)
    stream = engine.stream
    stream.begin()
    size = engine.state.size
    lead = side_lead(engine, who) if kata else 0.0

    def progress(search: PUCTSearch) -> None:
        results = search.results(limit=size * size + 1)
        if results:
            stream.line(kata_line(results, size, lead, None) if kata else lz_line(results, size))

    move = engine.genmove(who, progress=progress, interval=interval)
    return f"play {engine.format_move(move)}"


@command("lz-genmove_analyze", rest=word)
def _lz_genmove_analyze(engine: GameEngine, words: list[str]) -> str:
    return genmove_analyze(engine, words, kata=False)


@command("kata-genmove_analyze", rest=word)
def _kata_genmove_analyze(engine: GameEngine, words: list[str]) -> str:
    return genmove_analyze(engine, words, kata=True)


# ---------------------------------------------------------------- GoGui
GOGUI_COMMANDS = [
    ("cboard", "Policy heat map", "imago-policy %m"),
    ("sboard", "Visit counts", "imago-visits %m"),
    ("dboard", "Ownership", "imago-ownership"),
    ("var", "Principal variation", "imago-pv %m"),
    ("param", "Search parameters", "imago-params"),
]
PARAMS = ("visits", "c_puct", "fpu_reduction", "batch_size", "resign_threshold")


def enable_gogui_gfx(engine: GameEngine) -> None:
    """Only GoGui asks for these commands: its live graphics are wanted."""
    engine.gogui_gfx = True
    engine.gfx_progress = gfx_progress(engine)


@command("gogui-analyze_commands")
def _gogui_analyze_commands(engine: GameEngine) -> str:
    enable_gogui_gfx(engine)
    return "\n".join(f"{kind}/{label}/{cmd}" for kind, label, cmd in GOGUI_COMMANDS)


@command("gogui-interrupt")
def _gogui_interrupt(engine: GameEngine) -> str:
    enable_gogui_gfx(engine)
    return ""


def board_rows(engine: GameEngine, values: dict) -> str:
    """N lines of N tokens, the first line the top row (GoGui's boards)."""
    board = engine.state.board
    size = board.size
    return "\n".join(" ".join(values.get(board.index(c, r), '""') for c in range(size))
                     for r in range(size))


def heat_colour(p: float) -> str:
    """#rrggbb from blue (0) to red (1), by sqrt of the probability."""
    x = min(1.0, max(0.0, p)) ** 0.5
    return f"#{int(255 * x):02x}00{int(255 * (1 - x)):02x}"


@command("imago-policy", color)
def _imago_policy(engine: GameEngine, who: int) -> str:
    search = analysis_search(engine)
    root = search.set_root(engine.state, who)
    if not root.expanded and not root.terminal:
        search._evaluate([root])
    values = {}
    if root.expanded:
        top = max(root.priors) or 1.0
        for point, prior in zip(root.moves, root.priors):
            if point is not None and prior > 0:
                values[point] = heat_colour(prior / top)
    return board_rows(engine, values)


def short_search(engine: GameEngine, who: int):
    search = analysis_search(engine)
    visits = int(getattr(engine.algorithm, "visits", 200) or 200)
    seconds = engine.time_control.default_seconds
    root = search.run(engine.state, who, visits=None if seconds else visits, seconds=seconds,
                      stop=engine.stream.gogui_interrupt)
    return search, root


@command("imago-visits", color)
def _imago_visits(engine: GameEngine, who: int) -> str:
    search, root = short_search(engine, who)
    values = {}
    for point, n in zip(root.moves, root.visits if root.expanded else []):
        if point is not None and n >= 1:
            values[point] = str(int(round(n)))
    return board_rows(engine, values)


@command("imago-ownership")
def _imago_ownership(engine: GameEngine) -> str:
    own = engine.ownership()
    board = engine.state.board
    return board_rows(engine, {p: f"{own[p]:.2f}" for p in board.on_board()})


@command("imago-pv", color)
def _imago_pv(engine: GameEngine, who: int) -> str:
    search, root = short_search(engine, who)
    results = search.results(root, limit=1)
    if not results:
        return ""
    return " ".join(index_to_vertex(p, engine.state.size) for p in results[0].pv)


@command("imago-params", optional=(word, word))
def _imago_params(engine: GameEngine, key: Optional[str] = None,
                  value: Optional[str] = None) -> str:
    search = analysis_search(engine)
    holders = {"visits": engine.algorithm, "resign_threshold": engine.algorithm}
    if key is None:
        lines = []
        for name in PARAMS:
            holder = holders.get(name, search)
            if hasattr(holder, name):
                lines.append(f"[string] {name} {getattr(holder, name)}")
        return "\n".join(lines)
    if key not in PARAMS or value is None:
        raise GtpError("unknown parameter")
    holder = holders.get(key, search)
    if not hasattr(holder, key):
        raise GtpError("unknown parameter")
    try:
        parsed = type(getattr(holder, key))(value)
    except ValueError:
        raise GtpError("syntax error") from None
    setattr(holder, key, parsed)
    if key == "c_puct":
        search.c_puct = float(parsed)
    return ""


def gfx_progress(engine: GameEngine):
    """A progress callback writing GoGui live graphics to stderr."""
    letter = {BLACK: "b", WHITE: "w"}

    def progress(search: PUCTSearch) -> None:
        results = search.results(limit=1)
        if not results or search.root is None:
            return
        size = engine.state.size
        best = results[0]
        moves, colour = [], search.root.to_move
        for point in best.pv:
            moves.append(f"{letter[colour]} {index_to_vertex(point, size)}")
            colour = 3 - colour
        print(f"gogui-gfx: VAR {' '.join(moves)}", file=sys.stderr)
        print(f"gogui-gfx: TEXT {index_to_vertex(best.point, size)} winrate "
              f"{best.winrate:.1%} visits {search.root.total_visits()}", file=sys.stderr, flush=True)

    return progress
