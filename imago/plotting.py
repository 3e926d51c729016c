"""Pictures: the one module of imago that imports matplotlib.

matplotlib is optional (``pip install 'imago[review]'``) and imported only
when a figure is drawn, so ``import imago.plotting`` never needs it. Figures
live on their own Agg canvas (no pyplot, no window, no global state), which
keeps drawing safe in threads and in processes without a display.

Bottom layer: imports nothing of imago. The review's plot
(:mod:`imago.review.plot`) and the self-play loop's Elo curve
(:func:`elo_curve_png`) draw through it.
"""

from __future__ import annotations

import io
import math
from typing import Mapping, Optional, Sequence

ANCHOR_COLOR = "#7f8c8d"


def matplotlib_problem() -> Optional[str]:
    """Why a plot cannot be drawn here (matplotlib missing), or None."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return "plots need matplotlib: pip install 'imago[review]' (or: pip install matplotlib)"
    return None


def new_figure(figsize: tuple[float, float], dpi: int = 110, layout: str = "constrained"):
    """A matplotlib ``Figure`` on its own Agg canvas. Raises ImportError
    without matplotlib."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=figsize, dpi=dpi, layout=layout)
    FigureCanvasAgg(fig)
    return fig


def png_bytes(fig) -> bytes:
    """The figure drawn as PNG bytes."""
    out = io.BytesIO()
    fig.savefig(out, format="png")
    return out.getvalue()


def integer_locator(nbins: int = 8):
    """Axis ticks at whole numbers, at most ``nbins`` intervals (one tick
    where the axis holds a single whole number)."""
    from matplotlib.ticker import MaxNLocator

    return MaxNLocator(nbins=nbins, integer=True, min_n_ticks=1)


def elo_curve_png(curves: Mapping[str, Sequence[tuple[int, float, float]]],
                  anchors: Mapping[str, float], title: str, dpi: int = 110) -> bytes:
    """Elo per generation as PNG bytes (see :func:`elo_curve_figure`).
    Raises ImportError without matplotlib."""
    return png_bytes(elo_curve_figure(curves, anchors, title, dpi))


def elo_curve_figure(curves: Mapping[str, Sequence[tuple[int, float, float]]],
                     anchors: Mapping[str, float], title: str, dpi: int = 110):
    """Elo per generation: one line with error bars (± one standard error)
    for each curve of ``(generation, elo, stderr)`` points, the ``anchors``
    (fixed reference players, e.g. GNU Go) as dashed horizontal lines.
    Points that are not finite are left out. The generation axis reaches
    half a generation beyond the first and last, so that it shows whole
    generations even while there is only one."""
    fig = new_figure((9, 4.8), dpi)
    ax = fig.add_subplot()
    generations = []
    for name, points in curves.items():
        points = sorted((int(g), float(e), float(s)) for g, e, s in points
                        if math.isfinite(e) and math.isfinite(s))
        if not points:
            continue
        gens, elos, errs = zip(*points)
        generations.extend(gens)
        ax.errorbar(gens, elos, yerr=errs, marker="o", markersize=4, linewidth=1.6,
                    capsize=3, elinewidth=0.9, label=name)
    for name, elo in anchors.items():
        if math.isfinite(elo):
            ax.axhline(elo, color=ANCHOR_COLOR, linewidth=1, linestyle="--", zorder=0)
            # the anchor's name just above its line, at the left edge of the axes
            ax.annotate(f"{name} ({elo:g})", xy=(0, elo), xycoords=("axes fraction", "data"),
                        xytext=(4, 2), textcoords="offset points", fontsize=8,
                        color=ANCHOR_COLOR, va="bottom")
    ax.xaxis.set_major_locator(integer_locator())
    if generations:
        ax.set_xlim(min(generations) - 0.5, max(generations) + 0.5)
    ax.set_xlabel("generation")
    ax.set_ylabel("Elo")
    ax.grid(color="#eeeeee")
    ax.set_title(title, fontsize=12, loc="left")
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, frameon=False, loc="best")
    return fig


__all__ = ["matplotlib_problem", "new_figure", "png_bytes", "integer_locator",
           "elo_curve_png", "elo_curve_figure"]
