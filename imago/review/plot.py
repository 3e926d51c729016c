"""The review as a picture: Black's win rate and score lead over the game,
the graded mistakes marked.

matplotlib is the optional dependency ``pip install 'imago[review]'``; it is
imported only by :mod:`imago.plotting`, and only when a plot is drawn, on its
own Agg canvas (no pyplot, no window, no global state).
"""

from __future__ import annotations

import math
import os
from typing import Optional

from imago.game import BLACK
from imago.plotting import integer_locator, matplotlib_problem, new_figure, png_bytes
from imago.sgf.files import open_regular_file

from .game import Review, format_lead

COLORS = {"inaccuracy": "#e0b000", "mistake": "#e67e22", "blunder": "#c0392b"}
SIZES = {"inaccuracy": 22, "mistake": 40, "blunder": 60}
LABELLED = 8
"""Mistakes and blunders labelled with their number and vertex, worst first."""
WINRATE_COLOR = "#1f4e79"
SCORE_COLOR = "#7f8c8d"


def _title(review: Review) -> str:
    record = review.record
    title = f"{record.black} (B) vs {record.white} (W)"
    if record.result:
        title += f", {record.result}"
    return title


def render_png(review: Review, dpi: int = 110) -> bytes:
    """The plot as PNG bytes. Raises ImportError without matplotlib."""
    record = review.record
    first = record.start.number
    xs, winrates, scores = [], [], []
    for turn, position in enumerate(review.positions):
        if position is not None:
            xs.append(first + turn)
            winrates.append(100 * position.winrate)
            scores.append(position.score)

    fig = new_figure((10, 4.6), dpi)
    ax = fig.add_subplot()
    lead = ax.twinx()
    ax.set_zorder(lead.get_zorder() + 1)  # win rate and marks above the score line
    ax.patch.set_visible(False)

    # score lead: right axis, symmetric so that an even score sits on the 50% line
    top = max([abs(s) for s in scores] + [5.0]) * 1.1
    top = math.ceil(top / 5) * 5
    lead.set_ylim(-top, top)
    lead.yaxis.set_major_locator(integer_locator(8))
    lead.fill_between(xs, scores, 0, color=SCORE_COLOR, alpha=0.18, linewidth=0, step=None)
    lead.plot(xs, scores, color=SCORE_COLOR, linewidth=1.2, label="Black's score lead")
    lead.set_ylabel("Black's score lead (points)", color=SCORE_COLOR)
    lead.tick_params(axis="y", colors=SCORE_COLOR)

    ax.set_ylim(0, 100)
    ax.axhline(50, color="#999999", linewidth=0.8, linestyle="--")
    ax.plot(xs, winrates, color=WINRATE_COLOR, linewidth=2, label="Black's win rate")
    ax.set_ylabel("Black's win rate (%)", color=WINRATE_COLOR)
    ax.tick_params(axis="y", colors=WINRATE_COLOR)
    ax.set_yticks(range(0, 101, 25))
    ax.set_xlabel("move")
    span = max(len(review.positions) - 1, 1)
    ax.set_xlim(first, first + span + max(0.5, span / 100))  # room for a mark on the last move
    ax.grid(axis="x", color="#eeeeee")

    for grade in ("inaccuracy", "mistake", "blunder"):
        moves = [m for m in review.moves if m.grade == grade]
        if moves:
            ax.scatter([m.number for m in moves], [100 * m.after.winrate for m in moves],
                       s=SIZES[grade], color=COLORS[grade], edgecolors="white",
                       linewidths=0.6, zorder=3, label=f"{grade} ({len(moves)})")
    # labels on the side the curve fell to (below for Black's mistakes, above for
    # White's), on the other side or left out where an earlier label is in the way
    placed: list[tuple[float, float]] = []
    for move in review.worst(LABELLED, minimum=review.thresholds.mistake):
        y = 100 * move.after.winrate
        below = (move.color == BLACK and y > 12) or y > 88
        for side in (below, not below):
            spot = y - 6 if side else y + 5
            if 0 <= spot <= 100 and all(abs(move.number - px) > span * 0.05
                                        or abs(spot - py) > 7 for px, py in placed):
                break
        else:
            continue
        placed.append((move.number, spot))
        ax.annotate(f"{move.number} {move.vertex}", (move.number, y),
                    xytext=(0, -15 if side else 9), textcoords="offset points",
                    ha="center", fontsize=8, color=COLORS[move.grade], zorder=4,
                    bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none",
                              alpha=0.75))

    handles, labels = ax.get_legend_handles_labels()
    more, more_labels = lead.get_legend_handles_labels()
    fig.legend(handles + more, labels + more_labels, loc="outside lower center", fontsize=8,
               ncol=len(labels) + len(more_labels), frameon=False)
    start = review.positions[0] if review.positions else None
    subtitle = f"{record.size}x{record.size}, komi {record.komi:g}, {review.visits} visits"
    if start is not None:
        subtitle += f"; start: {format_lead(start.score)}"
    # the title on its own line, the settings under it: long player names never overlap them
    ax.set_title(_title(review), fontsize=12, loc="left", pad=18)
    ax.annotate(subtitle, xy=(0, 1), xycoords="axes fraction", xytext=(0, 4),
                textcoords="offset points", fontsize=9, color="#666666", va="bottom")

    return png_bytes(fig)


def write_plot(review: Review, path: "os.PathLike[str] | str",
               png: Optional[bytes] = None) -> bytes:
    """Write the plot (``png``, else drawn now) to ``path``; returns the
    bytes. Raises ImportError without matplotlib, OSError, or ValueError
    when ``path`` is no regular file."""
    if png is None:
        png = render_png(review)
    with open_regular_file(os.fspath(path), "wb") as f:
        f.write(png)
    return png


__all__ = ["matplotlib_problem", "render_png", "write_plot"]
