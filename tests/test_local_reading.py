"""Exact reading of small closed-off areas (:mod:`imago.search.local`) and
the root moves it strikes out. Positions made for these tests (``X`` Black,
``O`` White, top row first)."""

from __future__ import annotations

import time

import numpy as np
import pytest

from imago.game import BLACK, WHITE, GameState, index_to_vertex, vertex_to_index
from imago.search import PUCTSearch
from imago.search.leaf import point_actions
from imago.search import rooting
from imago.search.local import LocalReader, OutOfTime, find_areas, forget, losing_moves
from imago.search.tree import CLOSED

from conftest import from_rows

# Black's corner string has no liberty but the straight three A7-B7-C7:
# whoever plays B7 first decides its life. White's wall has plenty outside.
STRAIGHT_THREE = [
    ". . . X O . .",
    "X X X X O . .",
    "O O O O O . .",
    ". . . . . . .",
    ". . . . . . .",
    ". . . . . . .",
    ". . . . . . .",
]

# Black's wall closes off eight points of the bottom-left corner and has
# no liberty outside: White, inside first, can make seki at C2 or B1 only.
EIGHT_POINT_CORNER = [
    ". . . . . . .",
    ". . . . . . .",
    ". . . . . . .",
    "O O O O O O .",
    "X X X X X O .",
    ". . . . X O .",
    ". . . . X O .",
]


# A seki in the top-left corner: Black's A6-A5-B5 and White's B7-C7-C6-C5
# share A7 and B6 and have no other liberty; White's wall below lives with
# the eyes A3 and A1, Black's wall to the right is open.
SEKI = [
    ". O O X . . .",
    "X . O X . . .",
    "X X O X . . .",
    "O O X X . . .",
    ". O X . . . .",
    "O O X . . . .",
    ". O X . . . .",
]


def _points(game: GameState, names: str) -> set[int]:
    return {vertex_to_index(name, game.size) for name in names.split()}


def _names(game: GameState, points) -> set[str]:
    return {index_to_vertex(p, game.size) for p in points}


def test_an_enclosed_corner_is_one_area_and_open_space_is_none():
    game = from_rows(STRAIGHT_THREE)
    areas = find_areas(game.board)
    assert len(areas) == 1  # the big empty region is no area; the corner is
    area = areas[0]
    assert _names(game, area.points) == {"A7", "B7", "C7", "D7", "A6", "B6", "C6", "D6"}
    assert bin(area.white).count("1") == 0  # White's wall is safe, outside the area
    assert area.safe_white and not area.safe_black


def test_the_vital_point_of_a_straight_three_decides_life():
    game = from_rows(STRAIGHT_THREE)
    reader = LocalReader(find_areas(game.board)[0])
    values, passing = reader.move_values(BLACK)
    named = {index_to_vertex(p, game.size): v for p, v in values.items()}
    assert named == {"A7": -8, "B7": 8, "C7": -8}  # alive with two eyes, or dead
    assert passing == -8  # White plays B7
    assert _names(game, losing_moves(game.board, BLACK)) == {"A7", "C7"}
    assert _names(game, losing_moves(game.board, WHITE)) == {"A7", "C7"}


def test_a_reading_past_its_budget_strikes_nothing_and_waits_for_a_later_call():
    game = from_rows(STRAIGHT_THREE)
    forget()
    assert losing_moves(game.board, BLACK, budget=2) == set()
    assert _names(game, losing_moves(game.board, BLACK)) == {"A7", "C7"}


def test_a_reading_past_its_deadline_strikes_nothing_and_reads_again_later():
    game = from_rows(EIGHT_POINT_CORNER)
    reader = LocalReader(find_areas(game.board)[0], ko_master=WHITE,
                         deadline=time.perf_counter() - 1.0)
    with pytest.raises(OutOfTime):
        reader.move_values(WHITE)  # some 17,000 positions: the clock is looked at
    game = from_rows(STRAIGHT_THREE)
    forget()
    assert losing_moves(game.board, BLACK, deadline=time.perf_counter() - 1.0) == set()
    assert _names(game, losing_moves(game.board, BLACK)) == {"A7", "C7"}  # not given up


def test_strings_short_of_outside_liberties_close_no_area():
    # White's wall has two liberties outside (F7, F6): a fight, not an area.
    rows = [
        ". . . X O . X",
        "X X X X O . X",
        "O O O O O X X",
        "X X X X X X .",
        ". . . . . . .",
        ". . . . . . .",
        ". . . . . . .",
    ]
    game = from_rows(rows)
    areas = find_areas(game.board)
    assert all(vertex_to_index("A7", 7) not in area.points or
               vertex_to_index("F7", 7) in area.points for area in areas)


class UniformEvaluator:
    """The same answer everywhere: uniform priors, an even game."""

    def evaluate(self, leaves):
        n = leaves[0].board.size ** 2 + 1
        return np.full((len(leaves), n), 1.0 / n), np.zeros(len(leaves))


@pytest.mark.parametrize("reading", [True, False])
def test_the_root_strikes_out_the_moves_read_as_lost(reading):
    game = from_rows(STRAIGHT_THREE)
    search = PUCTSearch(UniformEvaluator(), seed=1, local_reading=reading)
    root = search.begin(game, BLACK)
    closed = np.frombuffer(root.priors, dtype=np.uint8) == CLOSED
    actions = point_actions(game.size)
    struck = {p for p in _points(game, "A7 B7 C7") if closed[actions[p]]}
    assert _names(game, struck) == ({"A7", "C7"} if reading else set())


@pytest.fixture
def asked(monkeypatch):
    """The deadlines the root's reading is given (it reads nothing)."""
    deadlines = []

    def losing(board, color, deadline=None):
        deadlines.append(deadline)
        return set()

    monkeypatch.setattr(rooting, "losing_moves", losing)
    return deadlines


def test_a_timed_search_reads_its_root_within_a_share_of_its_time(asked):
    game = from_rows(STRAIGHT_THREE)
    search = PUCTSearch(UniformEvaluator(), seed=1, local_reading=True)
    start = time.perf_counter()
    search.run(game, BLACK, visits=None, seconds=0.4)
    assert len(asked) == 1 and start < asked[0] <= start + 0.1 + 0.05
    search = PUCTSearch(UniformEvaluator(), seed=1, local_reading=True)
    search.run(game, BLACK, visits=16)
    assert asked[1] is None  # a search by visits reads its whole budget
    assert search.read_deadline is None


def test_a_move_searched_in_slices_reads_for_a_share_of_the_whole_move(asked):
    # analysis lines every 0.05 s: the reading still gets a quarter of the move's 0.4 s
    from imago.engine.mcts_algorithm import MCTSAlgorithm

    game = from_rows(STRAIGHT_THREE)
    algorithm = MCTSAlgorithm(model=None, seed=1)
    start = time.perf_counter()
    algorithm.choose_move(game, BLACK, seconds=0.4, progress=lambda search: None,
                          interval=0.05)
    assert asked and start + 0.09 <= asked[0] <= start + 0.1 + 0.05


def test_an_invasion_of_a_closed_corner_makes_seki_at_two_points_only():
    game = from_rows(EIGHT_POINT_CORNER)
    (area,) = find_areas(game.board)
    values, passing = LocalReader(area, ko_master=WHITE).move_values(WHITE)
    named = {index_to_vertex(p, game.size): v for p, v in values.items()}
    # by White's count: a seki leaves Black its 7 wall stones, life all 15 points
    assert {name for name, v in named.items() if v == -7} == {"C2", "B1"}
    assert all(v == -15 for name, v in named.items() if name not in ("C2", "B1"))
    assert passing == -15
    # when Black wins the kos, nothing White tries there helps: nothing is struck
    values, _ = LocalReader(area, ko_master=BLACK).move_values(WHITE)
    assert set(values.values()) == {-15}
    assert losing_moves(game.board, WHITE) == set()


def test_a_reading_cut_short_goes_on_where_it_stopped():
    # The seki's reading takes some 20,000 positions: 3,000 a call finish it
    # in a few calls, where starting over each time never would.
    game = from_rows(SEKI)
    forget()
    calls, struck = 0, set()
    while not struck and calls < 20:
        calls += 1
        struck = losing_moves(game.board, BLACK, budget=3_000)
    assert 1 < calls < 20
    assert _names(game, struck) == {"A7", "B6"}


def test_a_seki_s_shared_liberties_are_lost_for_both():
    game = from_rows(SEKI)
    for color in (BLACK, WHITE):
        assert _names(game, losing_moves(game.board, color)) == {"A7", "B6"}


def test_the_benchmark_reads_a_folder_of_games_and_names_a_bad_file(tmp_path, capsys):
    from imago.bench import local as bench_local

    (tmp_path / "a.sgf").write_text("(;GM[1]SZ[7];B[aa];W[ba];B[ab];W[bb];B[ca];W[cb];B[ac]"
                                    ";W[bc];B[dd];W[ad])")
    (tmp_path / "b.sgf").write_text("(;GM[1]SZ[7];B[zz")
    assert bench_local.main([f"--dir={tmp_path}", "--quick"]) == 0
    out, err = capsys.readouterr()
    assert "b.sgf" in err
    assert out.startswith(f"local {tmp_path.name}: 2 positions of 1 games, 0 with an area")


def test_a_reused_root_drops_the_visits_of_moves_read_as_lost():
    # Black's search reads nothing at White's replies; when the game goes
    # down the tree, the new root strikes A7 and C7 with what they had.
    game = from_rows(STRAIGHT_THREE)
    search = PUCTSearch(UniformEvaluator(), seed=1, local_reading=True)
    root = search.run(game, WHITE, visits=3000, early_stop=False)
    far = vertex_to_index("G1", game.size)
    child = root.children[root.edge(point_actions(game.size)[far])]
    below = {p: child.visits[child.edge(point_actions(game.size)[p])]
             for p in _points(game, "A7 C7") if child.edge(point_actions(game.size)[p]) >= 0}
    assert below and max(below.values()) > 0  # tried there before the game went on
    game.play(WHITE, far)
    root = search.run(game, BLACK, visits=1, early_stop=False)
    for p in _points(game, "A7 C7"):
        action = point_actions(game.size)[p]
        assert root.is_struck(action)
        edge = root.edge(action)
        assert edge < 0 or root.visits[edge] == 0
