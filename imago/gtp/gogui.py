"""GoGui's analyze commands: the menu GoGui reads from
``gogui-analyze_commands`` and the board displays it runs (policy heat map,
visit counts, ownership, principal variation, search parameters),
registered in the GTP command table.

Asking for the menu (or ``gogui-interrupt``) tells imago the controller is
GoGui, so later move searches draw live graphics
(:func:`~imago.gtp.moves.engine_move`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

import numpy as np

from imago.engine.engine import GameEngine
from imago.game import BLACK, index_to_vertex

from .params import engine_params, param_holders, set_param
from .table import GtpError, Session, color, command, word

if TYPE_CHECKING:
    from imago.search import PUCTSearch, SearchNode

GOGUI_COMMANDS = [
    ("cboard", "Policy heat map", "imago-policy %m"),
    ("sboard", "Visit counts", "imago-visits %m"),
    ("dboard", "Ownership", "imago-ownership"),
    ("var", "Principal variation", "imago-pv %m"),
    ("gfx", "Score lead", "imago-score %m"),
    ("param", "Search parameters", "imago-params"),
]

@command("gogui-analyze_commands", pass_session=True)
def _gogui_analyze_commands(session: Session) -> str:
    session.gogui_gfx = True  # only GoGui asks: its live graphics are wanted
    return "\n".join(f"{kind}/{label}/{cmd}" for kind, label, cmd in GOGUI_COMMANDS)


@command("gogui-interrupt", pass_session=True)
def _gogui_interrupt(session: Session) -> str:
    session.gogui_gfx = True
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
    search = engine.analysis_search()
    root = search.begin(engine.state, who)
    values = {}
    if root.expanded:
        priors = root.choice_priors()
        top = priors.max() or 1.0
        for action in np.flatnonzero(priors > 0):
            point = search.point_of(int(action))
            if point is not None:
                values[point] = heat_colour(priors[action] / top)
    return board_rows(engine, values)


def short_search(session: Session, who: int) -> tuple[PUCTSearch, SearchNode]:
    """A search of a move's effort (the algorithm's visits or the per-move
    time), stoppable by GoGui's interrupt; the search and its root."""
    engine = session.engine
    search = engine.analysis_search()
    visits = int(getattr(engine.algorithm, "visits", 200) or 200)
    seconds = engine.time_control.default_seconds
    root = search.run(engine.state, who, visits=None if seconds else visits, seconds=seconds,
                      stop=session.stream.gogui_interrupt)
    return search, root


@command("imago-visits", color, pass_session=True)
def _imago_visits(session: Session, who: int) -> str:
    engine = session.engine
    search, root = short_search(session, who)
    values = {}
    for action, n in zip(root.moves, root.visits):
        point = search.point_of(int(action))
        if point is not None and n >= 1:
            values[point] = str(int(round(n)))
    return board_rows(engine, values)


@command("imago-ownership")
def _imago_ownership(engine: GameEngine) -> str:
    own = engine.ownership()
    board = engine.state.board
    return board_rows(engine, {p: f"{own[p]:.2f}" for p in board.on_board()})


@command("imago-pv", color, pass_session=True)
def _imago_pv(session: Session, who: int) -> str:
    search, root = short_search(session, who)
    results = search.results(root, limit=1)
    if not results:
        return ""
    return " ".join(index_to_vertex(p, session.engine.state.size) for p in results[0].pv)


@command("imago-score", color, pass_session=True)
def _imago_score(session: Session, who: int) -> str:
    """GoGui graphics: each searched candidate labelled with the lead it
    leaves the side to move, in points (the network's score, backed up by
    the search), and a status line with the position's lead for Black."""
    search, root = short_search(session, who)
    size = session.engine.state.size
    summary = search.summary(root)
    if summary.score_lead is None:
        return "TEXT the network predicts no score (it has no score or ownership head)"
    labels = [f"{index_to_vertex(r.point, size)} {r.score_lead:+.1f}"
              for r in search.results(root, limit=10)
              if r.point is not None and r.score_lead is not None]
    black = summary.score_lead if who == BLACK else -summary.score_lead
    leader = "Black" if black >= 0 else "White"
    lines = [f"LABEL {' '.join(labels)}"] if labels else []
    lines.append(f"TEXT {leader} leads by {abs(black):.1f} ({summary.visits} visits; labels: "
                 f"the lead for {'Black' if who == BLACK else 'White'} after each move)")
    return "\n".join(lines)


@command("imago-params", optional=(word, word))
def _imago_params(engine: GameEngine, key: Optional[str] = None,
                  value: Optional[str] = None) -> str:
    """GoGui's parameter dialog: every parameter of :data:`.params.PARAMS` this
    engine has, ``[string] name value`` a line; or set ``key`` to
    ``value``."""
    if key is None:
        return "\n".join(f"[string] {name} {value}"
                         for name, value in engine_params(engine).items())
    if value is None:
        raise GtpError("syntax error" if param_holders(engine, key) else "unknown parameter")
    set_param(engine, key, value)
    return ""
