"""Go rules: board, game tree, the rules object and the one end-of-game
count, coordinates, handicap.

This package imports nothing else of imago.
"""

from .board import GameBoard, IllegalMoveError
from .constants import BLACK, EDGE, EMPTY, WHITE, color_letter, opponent, parse_color
from .coords import (format_sgf_point, format_vertex, from_index, index_to_vertex,
                     move_to_point, parse_sgf_point, parse_vertex, point_to_move, to_index,
                     vertex_to_index)
from .counting import (Count, Rules, count, dead_stones, final_ownership, lost_for_good,
                       passing_wins, seki_stones, wins_whatever_unsettled)
from .display import format_board
from .handicap import fixed_handicap_points, free_handicap_points, max_fixed_handicap
from .scoring import area_counts, area_owners, area_score, format_result
from .state import GameState
from .tree import GameMove

__all__ = [
    "BLACK", "WHITE", "EMPTY", "EDGE", "opponent", "parse_color", "color_letter",
    "GameBoard", "IllegalMoveError", "GameMove", "GameState",
    "to_index", "from_index", "parse_vertex", "format_vertex", "vertex_to_index",
    "index_to_vertex", "parse_sgf_point", "format_sgf_point", "point_to_move", "move_to_point",
    "Rules", "Count", "count", "passing_wins", "lost_for_good", "wins_whatever_unsettled",
    "final_ownership", "dead_stones", "seki_stones",
    "area_score", "area_counts", "area_owners", "format_result",
    "fixed_handicap_points", "free_handicap_points", "max_fixed_handicap",
    "format_board",
]
