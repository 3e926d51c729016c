"""Whole-game review: every position of a game analysed by imago's
analysis engine, each move graded by the points it lost, the game written
back as annotated SGF, with a plot and an HTML report on request.

- :mod:`.game`: the record (:func:`load_record`), the KataGo analysis
  query (:func:`build_query`), and the per-move judgement
  (:func:`review_game` -> :class:`Review` of :class:`MoveReview`), against
  any ``analyze(query, on_response)`` callable;
- :mod:`.sgfout`: the annotated SGF (comments, ``SBKV``, ``BM``/``DO``,
  the best line as a variation at each mistake);
- :mod:`.report`: each player's accuracy and grades as text and HTML;
- :mod:`.plot`: the win rate and score graph (matplotlib, optional,
  drawn through :mod:`imago.plotting` and only when asked);
- :mod:`.cli`: ``imago review`` / ``python -m imago.review``.

The analysis engine is imported only by the command line, when it runs.
"""

from .game import (Analyze, GameRecord, MoveReview, Position, Review, ReviewError, Thresholds,
                   build_query, load_record, record_of, review_game)
from .report import html_report, player_stats, summary_text
from .sgfout import annotate, write_review_sgf

__all__ = ["Analyze", "GameRecord", "MoveReview", "Position", "Review", "ReviewError",
           "Thresholds", "annotate", "build_query", "html_report", "load_record",
           "player_stats", "record_of", "review_game", "summary_text", "write_review_sgf"]
