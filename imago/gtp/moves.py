"""Moves searched while a GTP controller waits: the protocol's side of
:meth:`GameEngine.choose_move <imago.engine.engine.GameEngine.choose_move>`.

The engine takes plain callables; here they come from the conversation:
``stop`` is the stream's GoGui interrupt (``# interrupt``, not just any
queued command, so a controller sending commands ahead does not cut a
genmove short), ``progress`` the caller's (analysis lines) or, once GoGui
asked for its analyze commands, live graphics: ``gogui-gfx:`` lines on
stderr with the best line and its win rate, cleared when the move is chosen.
"""

from __future__ import annotations

import sys
from typing import Callable, Optional

from imago.engine.engine import GameEngine
from imago.game import BLACK, WHITE, index_to_vertex
from imago.search import PUCTSearch

from .table import Session

GFX_INTERVAL = 0.5
"""Seconds between GoGui live graphics updates."""

_LETTERS = {BLACK: "b", WHITE: "w"}

Progress = Callable[[PUCTSearch], None]


def gfx(text: str) -> None:
    """Write one ``gogui-gfx:`` line to stderr, where GoGui reads them."""
    print(f"gogui-gfx: {text}", file=sys.stderr, flush=True)


def gfx_progress(engine: GameEngine, who: int) -> Progress:
    """A progress callback drawing the best line of ``who``'s search and
    its win rate in GoGui (``VAR`` and ``TEXT`` graphics)."""
    def progress(search: PUCTSearch) -> None:
        results = search.results(limit=1)
        if not results or search.root is None:
            return
        size = engine.state.size
        best = results[0]
        moves, colour = [], who
        for point in best.pv:
            moves.append(f"{_LETTERS[colour]} {index_to_vertex(point, size)}")
            colour = 3 - colour
        gfx(f"VAR {' '.join(moves)}")
        gfx(f"TEXT {index_to_vertex(best.point, size)} winrate {best.winrate:.1%} "
            f"visits {search.root.total_visits()}")

    return progress


def engine_move(session: Session, who: int, play: bool = True,
                progress: Optional[Progress] = None,
                interval: Optional[float] = None,
                restrictions: tuple = ()) -> Optional[int]:
    """``who``'s move from the engine, played when ``play`` (``genmove``)
    or only chosen (``reg_genmove``), stoppable by GoGui's interrupt, never
    one of the moves ``restrictions`` take away (``*-genmove_analyze``'s
    avoid and allow, which hold in the search's lines too). Without a
    ``progress`` of its own, a GoGui session gets live graphics."""
    engine = session.engine
    if progress is None and session.gogui_gfx:
        progress, interval = gfx_progress(engine, who), GFX_INTERVAL
    choose = engine.genmove if play else engine.choose_move
    move = choose(who, stop=session.stream.gogui_interrupt, progress=progress,
                  interval=interval or 1.0, restrictions=restrictions)
    if session.gogui_gfx:
        gfx("CLEAR")
    return move
