"""The reviewed game as SGF: the original record with the engine's view
at every analysed node.

On each analysed move node (and on the node the analysis starts from):

- a comment (``C``, after the record's own comment): the move, its grade
  and loss, Black's win rate and the score lead after it, the engine's best
  move and its line;
- ``SBKV``: Black's win rate after the move in percent, two decimals, as
  Sabaki writes and graphs it; ``SBKS``: Black's score lead, as Sabaki's
  score graph reads it;
- the grade as the standard SGF move annotation: ``BM[2]`` (very bad) for a
  blunder, ``BM[1]`` for a mistake, ``DO[]`` (doubtful) for an inaccuracy,
  replacing the record's own ``BM``/``DO``/``IT``/``TE`` there;
- for a mistake or a blunder, the engine's best line as a variation beside
  the move played (a sibling in the tree), its first node commented.

The text goes through imago's SGF writer, which escapes ``\\`` and ``]``.
"""

from __future__ import annotations

import os
from typing import Optional

from imago.game import GameMove, GameState, IllegalMoveError, opponent, vertex_to_index
from imago.sgf import save

from .game import MoveReview, Position, Review, format_lead, format_winrate

PV_MOVES = 10
"""Moves of the engine's line written as a variation."""

MARKS = {"blunder": ("BM", "2"), "mistake": ("BM", "1"), "inaccuracy": ("DO", "")}
_ANNOTATIONS = ("BM", "DO", "IT", "TE")


def _number(value: float) -> str:
    """A value with at most two decimals, as Sabaki writes ``SBKV``."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def _add_comment(node: GameMove, text: str) -> None:
    old = node.comment
    node.properties["C"] = [f"{old}\n\n{text}" if old else text]


def _set_values(node: GameMove, position: Position) -> None:
    node.properties["SBKV"] = [_number(100 * position.winrate)]
    node.properties["SBKS"] = [_number(position.score)]


def move_comment(move: MoveReview) -> str:
    """The comment of a reviewed move (several lines)."""
    head = f"Move {move.number} {move.label}"
    if move.grade is not None:
        head += f": {move.grade}"
        if move.is_best:
            head += ", imago's choice too"
        head += (f" (loss {max(move.points_lost, 0.0) + 0.0:.1f} points, "
                 f"{100 * max(move.winrate_lost, 0.0) + 0.0:.1f}% win rate)")
    elif move.is_best:
        head += ": imago's choice too"
    lines = [head]
    if move.after is not None:
        lines.append(f"After it: Black {format_winrate(move.after.winrate)}, "
                     f"{format_lead(move.after.score)}")
    before = move.before
    if before is not None and before.best is not None and before.to_move == move.color:
        lines.append(f"Best: {before.best} (Black {format_winrate(before.best_winrate)}, "
                     f"{format_lead(before.best_score)})")
        if len(before.pv) > 1:
            lines.append("Line: " + " ".join(before.pv[:PV_MOVES]))
    return "\n".join(lines)


def start_comment(review: Review) -> str:
    """The comment on the node the analysis starts from: the settings, the
    grading and the start position's values."""
    t = review.thresholds
    lines = [f"imago review: {review.visits} visits a position, komi "
             f"{review.record.komi:g}, {review.rules_words()}.",
             f"Grades by points lost against imago's best move: inaccuracy >= "
             f"{t.inaccuracy:g}, mistake >= {t.mistake:g}, blunder >= {t.blunder:g}."]
    lines.extend(note[0].upper() + note[1:] + "." for note in review.record.notes)
    start = review.positions[0] if review.positions else None
    if start is not None:
        lines.append(f"Start: Black {format_winrate(start.winrate)}, {format_lead(start.score)}")
    return "\n".join(lines)


def add_variation(move: MoveReview, pv_moves: int = PV_MOVES) -> Optional[GameMove]:
    """The engine's best line before ``move`` as a variation beside it
    (the first node commented, with ``SBKV``); the line stops at a move
    that is illegal or not a vertex. None when the line is empty or starts
    with the move played."""
    before = move.before
    if before is None or not before.pv or move.is_best:
        return None
    size = move.node.size
    parent, color, first = move.node.parent, move.color, None
    for vertex in before.pv[:pv_moves]:
        try:
            node = parent.play(color, vertex_to_index(vertex, size))
        except (IllegalMoveError, ValueError):
            break
        if first is None:
            first = node
        parent, color = node, opponent(color)
    if first is not None:
        loss = f", {max(move.points_lost or 0.0, 0.0) + 0.0:.1f} points better" \
            if move.points_lost is not None else ""
        _add_comment(first, f"imago's move instead of {move.number} {move.label}{loss}: "
                            f"Black {format_winrate(before.best_winrate)}, "
                            f"{format_lead(before.best_score)}")
        first.properties["SBKV"] = [_number(100 * before.best_winrate)]
        first.properties["SBKS"] = [_number(before.best_score)]
    return first


def annotate(review: Review, pv_moves: int = PV_MOVES) -> GameState:
    """Write the review into the record's game tree (changed in place, and
    returned): comments, ``SBKV``/``SBKS``, grade marks, and a variation at
    each mistake and blunder."""
    record = review.record
    start = review.positions[0] if review.positions else None
    _add_comment(record.start, start_comment(review))
    if start is not None:
        _set_values(record.start, start)
    for move in review.moves:
        node = move.node
        if move.after is not None:
            _set_values(node, move.after)
        _add_comment(node, move_comment(move))
        mark = MARKS.get(move.grade or "")
        if mark is not None:
            for name in _ANNOTATIONS:
                node.properties.pop(name, None)
            node.properties[mark[0]] = [mark[1]]
        if move.grade in ("mistake", "blunder"):
            add_variation(move, pv_moves)
    return record.game


def write_review_sgf(review: Review, path: "os.PathLike[str] | str",
                     pv_moves: int = PV_MOVES) -> None:
    """Annotate the game (:func:`annotate`) and save it to ``path`` as
    UTF-8 SGF. Raises OSError, or ValueError when ``path`` is no regular
    file."""
    save(path, annotate(review, pv_moves))


__all__ = ["MARKS", "PV_MOVES", "add_variation", "annotate", "move_comment", "start_comment",
           "write_review_sgf"]
