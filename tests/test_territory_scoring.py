"""Territory scoring (Japanese and Korean rules): an area count less the
stones each side put on the board, in the game's count and in every line
of the search."""

from __future__ import annotations

import numpy as np
import pytest

from imago.game import BLACK, WHITE, GameState, vertex_to_index
from imago.game.state import TERRITORY
from imago.nn.evaluator import Evaluation
from imago.search import PUCTSearch, action_of


def _play(game: GameState, *moves: str) -> None:
    color = game.to_move
    for move in moves:
        game.play(color, None if move == "pass" else vertex_to_index(move, game.size))
        color = 3 - color


def test_stone_difference_counts_moves_and_setup_stones_not_passes():
    game = GameState(9, komi=6.5)
    game.set_fixed_handicap(3)
    assert game.stone_difference() == 3
    _play(game, "E5", "C5", "pass", "D4")  # white first
    assert game.stone_difference() == 4  # 3 + 2 black, 1 white
    assert game.scoring_komi == 6.5  # area scoring: the komi alone
    game.scoring = TERRITORY
    assert game.scoring_komi == 10.5 and game.rules.komi == 10.5


def test_a_capture_counts_as_a_prisoner():
    """By territory a captured stone is a point for the capturer: the area
    count gives it through the point, the stone difference through the
    stone the loser put on the board."""
    game = GameState(5, komi=0.5)
    game.scoring = TERRITORY
    _play(game, "B1", "A1", "A2")  # black captures the white stone at A1
    area = GameState(5, komi=0.5)
    _play(area, "B1", "A1", "A2")
    assert game.stone_difference() == 1
    assert game.score() == pytest.approx(area.score() - 1)


class _Recorder:
    """Uniform priors, value 0, no margin; keeps each leaf's komi and the
    stones put on the board along its line (black's minus white's)."""

    history = 1

    def __init__(self, first: int = BLACK):
        self.first = first
        self.seen: list[tuple[float, int, int]] = []

    def evaluate(self, leaves):
        for leaf in leaves:
            size = leaf.board.size
            color, stones = self.first, 0
            for node, edge in leaf.path:
                if int(node.moves[edge]) != size * size:
                    stones += 1 if color == BLACK else -1
                color = 3 - color
            self.seen.append((leaf.komi, stones, leaf.to_move))
        n, actions = len(leaves), leaves[0].board.size ** 2 + 1
        return Evaluation(np.full((n, actions), 1.0 / actions), np.zeros(n), np.zeros(n))


@pytest.mark.parametrize("scoring", ["area", "territory"])
def test_each_leaf_gets_the_komi_of_its_line(scoring):
    game = GameState(9, komi=6.5)
    game.scoring = scoring
    _play(game, "E5", "C3", "G7")  # black has put one stone more on the board
    recorder = _Recorder(WHITE)
    search = PUCTSearch(recorder, batch_size=4, seed=3)
    search.run(game, WHITE, visits=60, early_stop=False)
    assert len(recorder.seen) > 30
    for komi, stones, to_move in recorder.seen:  # and half the stone still to come
        to_come = 0.5 if to_move == BLACK else -0.5
        assert komi == (6.5 + 1 + stones + to_come if scoring == "territory" else 6.5)
    assert len({stones for _, stones, _ in recorder.seen}) > 1


def test_under_territory_scoring_a_stone_in_ones_own_territory_costs_a_point():
    """5x5, black owns columns A-B, white D-E: by area a black stone inside
    black's area changes nothing, by territory it loses a point, as the
    search's evaluation of the move says (White's view after it)."""
    scores = {}
    for scoring in ("area", "territory"):
        game = GameState(5, komi=0.5)
        game.scoring = scoring
        _play(game, "B1", "D1", "B2", "D2", "B3", "D3", "B4", "D4", "B5", "D5", "C1", "C2")
        search = PUCTSearch(_Recorder(), batch_size=1, seed=1)
        search.run(game, BLACK, visits=200, early_stop=False)
        root = search.root
        for action in (action_of(vertex_to_index("A3", 5), 5), 25):  # A3, and the pass
            edge = root.edge(action)
            assert edge >= 0, "searched"
            scores[scoring, action] = root.children[edge].score
    a3 = action_of(vertex_to_index("A3", 5), 5)
    assert scores["area", a3] == pytest.approx(0.5)
    assert scores["territory", a3] == pytest.approx(1.0)  # 1.5, less half a stone to come
    assert scores["area", 25] == pytest.approx(0.5)
    assert scores["territory", 25] == pytest.approx(0.0)  # the pass: one point better
