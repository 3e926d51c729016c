"""The review summed up: each player's accuracy and grades, the biggest
mistakes, as plain text (the command line prints it) and as a small
self-contained HTML page (no external assets; the plot embedded as a
``data:`` PNG).

Accuracy is the share of a player's graded moves that are *good*: they lost
less than the inaccuracy threshold (1.5 points by default) against the
engine's best move. The mean loss counts a negative loss (the position
looked better after the move than the engine's best move promised, which
search noise does) as 0.
"""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass
from typing import Optional

from imago.game import BLACK, WHITE

from .game import GRADES, Review, format_lead, format_winrate

WORST = 10
"""Biggest mistakes listed."""


@dataclass
class PlayerStats:
    """One player's graded moves: count, accuracy (0..1, None without
    moves), mean points lost, and the count of each grade."""

    color: int
    name: str
    moves: int
    accuracy: Optional[float]
    mean_loss: Optional[float]
    grades: dict[str, int]


def player_stats(review: Review, color: int) -> PlayerStats:
    """The statistics of ``color``'s graded moves."""
    moves = review.graded(color)
    grades = {grade: 0 for grade in GRADES}
    for move in moves:
        grades[move.grade] += 1
    count = len(moves)
    name = review.record.black if color == BLACK else review.record.white
    return PlayerStats(color, name, count,
                       grades["good"] / count if count else None,
                       sum(max(m.points_lost, 0.0) for m in moves) / count if count else None,
                       grades)


def game_line(review: Review) -> str:
    """``Black (B) vs White (W), 9x9, komi 7.5, result B+R, 61 moves``."""
    record = review.record
    parts = [f"{record.black} (B) vs {record.white} (W)", f"{record.size}x{record.size}",
             f"komi {record.komi:g}"]
    if record.game.handicap:
        parts.append(f"handicap {record.game.handicap}")
    parts.append(f"result {record.result}" if record.result else "no result recorded")
    parts.append(f"{len(record.moves)} move{'s' if len(record.moves) != 1 else ''} analysed")
    return ", ".join(parts)


def _percent(value: Optional[float]) -> str:
    return "-" if value is None else f"{100 * value:.0f}%"


def _points(value: Optional[float]) -> str:
    return "-" if value is None else f"{value:.2f}"


def _rows(review: Review) -> list[tuple[str, str, str]]:
    black, white = player_stats(review, BLACK), player_stats(review, WHITE)
    rows = [("", "Black", "White"), ("moves graded", str(black.moves), str(white.moves)),
            ("accuracy", _percent(black.accuracy), _percent(white.accuracy)),
            ("mean loss (points)", _points(black.mean_loss), _points(white.mean_loss))]
    for grade in GRADES[1:]:
        rows.append((grade + "s" if grade != "inaccuracy" else "inaccuracies",
                     str(black.grades[grade]), str(white.grades[grade])))
    return rows


def summary_text(review: Review, worst: int = WORST) -> str:
    """The review in a few lines of text."""
    t = review.thresholds
    lines = [game_line(review), f"imago, {review.visits} visits a position; grades by points "
             f"lost: inaccuracy >= {t.inaccuracy:g}, mistake >= {t.mistake:g}, blunder >= "
             f"{t.blunder:g}; accuracy: moves losing < {t.inaccuracy:g}"]
    lines.extend("note: " + note for note in review.record.notes)
    if not review.moves:
        lines.append("no moves to review")
        return "\n".join(lines)
    lines.append("")
    width = max(len(r[0]) for r in _rows(review))
    for label, black, white in _rows(review):
        lines.append(f"  {label:<{width}}  {black:>7}  {white:>7}")
    moves = review.worst(worst)
    lines.append("")
    if not moves:
        lines.append("No move lost as much as an inaccuracy.")
    else:
        lines.append("Biggest mistakes:")
        for move in moves:
            best = f"best {move.before.best}" if move.before.best else ""
            lines.append(f"  move {move.number:>3}  {move.label:<7} {move.grade:<10} "
                         f"-{move.points_lost:.1f} points  -{100 * max(move.winrate_lost, 0):.0f}%"
                         f"  {best}")
    return "\n".join(lines)


_STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 60em; color: #222; }
h1 { font-size: 1.4em; } h2 { font-size: 1.15em; margin-top: 1.5em; }
table { border-collapse: collapse; margin: 0.5em 0; }
th, td { padding: 0.25em 0.8em; border-bottom: 1px solid #ddd; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.blunder { color: #b00020; font-weight: bold; } .mistake { color: #d35400; }
.inaccuracy { color: #9a7d0a; }
img { max-width: 100%; } .note { color: #666; font-size: 0.9em; }
"""


def html_report(review: Review, png: Optional[bytes] = None, worst: int = WORST) -> str:
    """A self-contained HTML page of the review; ``png`` (the plot) is
    embedded when given."""
    e = html.escape
    record, t = review.record, review.thresholds
    title = f"Review: {record.black} vs {record.white}"
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{e(title)}</title><style>{_STYLE}</style></head><body>",
           f"<h1>{e(title)}</h1>", f"<p>{e(game_line(review))}.</p>",
           f'<p class="note">Analysed by imago with {review.visits} visits a position. A '
           f"move's loss is the score lead of imago's best move minus the lead after the move "
           f"played, from the mover's side. Grades: inaccuracy &ge; {t.inaccuracy:g}, "
           f"mistake &ge; {t.mistake:g}, blunder &ge; {t.blunder:g} points. Accuracy: the "
           f"share of moves losing less than {t.inaccuracy:g} points.</p>"]
    out.extend(f'<p class="note">Note: {e(note)}.</p>' for note in record.notes)
    if png:
        data = base64.b64encode(png).decode("ascii")
        out.append(f'<img alt="Black\'s win rate and score lead by move" '
                   f'src="data:image/png;base64,{data}">')
    if review.moves:
        out.append("<h2>Players</h2><table>")
        for i, row in enumerate(_rows(review)):
            cell = "th" if i == 0 else "td"
            out.append("<tr>" + "".join(f"<{cell}>{e(c)}</{cell}>" for c in row) + "</tr>")
        out.append("</table>")
        moves = review.worst(worst)
        out.append("<h2>Biggest mistakes</h2>")
        if not moves:
            out.append("<p>No move lost as much as an inaccuracy.</p>")
        else:
            out.append("<table><tr><th>move</th><th>player</th><th>played</th><th>grade</th>"
                       "<th>points lost</th><th>win rate lost</th><th>imago's line</th>"
                       "<th>Black after</th></tr>")
            for m in moves:
                player = "Black" if m.color == BLACK else "White"
                out.append(
                    f"<tr><td>{m.number}</td><td>{player}</td><td>{e(m.vertex)}</td>"
                    f'<td class="{m.grade}">{m.grade}</td><td>{m.points_lost:.1f}</td>'
                    f"<td>{100 * max(m.winrate_lost, 0):.1f}%</td>"
                    f"<td>{e(' '.join(m.before.pv[:6]) or '-')}</td>"
                    f"<td>{format_winrate(m.after.winrate)}, {format_lead(m.after.score)}</td>"
                    "</tr>")
            out.append("</table>")
    else:
        out.append("<p>No moves to review.</p>")
    out.append("</body></html>\n")
    return "\n".join(out)


__all__ = ["PlayerStats", "game_line", "html_report", "player_stats", "summary_text"]
