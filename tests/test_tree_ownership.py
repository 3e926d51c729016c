"""Ownership averaged over the search tree (what analysis reports), beside
the network's answer for the root alone."""

from __future__ import annotations

import numpy as np
import pytest

from imago.engine.mcts_algorithm import MCTSAlgorithm
from imago.game import BLACK, WHITE, GameState, vertex_to_index
from imago.nn.evaluator import Evaluation
from imago.nn.features import ownership_cells
from imago.search import PUCTSearch, SearchJob, run_searches
from imago.search.tree import SearchNode


class StoneCountingEvaluator:
    """Uniform priors, value 0; ownership +1 for the player to move on
    every point of its own stones and on empty points, -1 on the
    opponent's stones, so the answer changes as stones are played."""

    history = 1

    def __init__(self):
        self.calls = 0

    def evaluate(self, leaves):
        self.calls += 1
        size = leaves[0].board.size
        n, actions = len(leaves), size * size + 1
        ownership = np.array([self.owned(leaf.board, leaf.to_move) for leaf in leaves])
        return Evaluation(np.full((n, actions), 1.0 / actions), np.zeros(n),
                          ownership.sum(axis=1), ownership)

    @staticmethod
    def owned(board, to_move):
        other = WHITE if to_move == BLACK else BLACK
        return np.array([-1.0 if board.cells[p] == other else 1.0 for p in board.on_board()],
                        dtype=np.float32)

    def ownership(self, node, to_move):
        """The root's ownership per cell, +1 Black (as NetworkEvaluator)."""
        return ownership_cells(node.board, self.owned(node.board, to_move), to_move)


def node_with(ownership, *children):
    node = SearchNode()
    node.ownership = None if ownership is None else np.array(ownership, dtype=np.float16)
    for k, child in enumerate(children):
        edge, made = node.add_edge(k)
        node.children[edge] = child
    return node


def test_the_tree_mean_counts_every_answered_position_from_the_nodes_side():
    grandchild = node_with([0.5, 0.5])
    child = node_with([1.0, -1.0], grandchild)
    unanswered = node_with(None, node_with([-1.0, -1.0]))  # e.g. a cached or finished line
    root = node_with([1.0, 1.0], child, unanswered)
    search = PUCTSearch(StoneCountingEvaluator())
    # root + (-child) + grandchild + (the unanswered node's child, two plies down)
    expected = (np.array([1.0, 1.0]) - np.array([1.0, -1.0]) + np.array([0.5, 0.5])
                + np.array([-1.0, -1.0])) / 4
    assert search.tree_ownership(root) == pytest.approx(expected)
    assert search.tree_ownership(child) == pytest.approx((np.array([1.0, -1.0])
                                                          - np.array([0.5, 0.5])) / 2)
    assert search.tree_ownership(unanswered) is None
    assert search.tree_ownership(grandchild) == pytest.approx([0.5, 0.5])


def test_nodes_keep_ownership_only_when_the_search_asks():
    game = GameState(5)
    kept = PUCTSearch(StoneCountingEvaluator(), batch_size=4, seed=1, keep_ownership=True)
    root = kept.run(game, BLACK, visits=60, early_stop=False)
    assert root.ownership is not None and root.ownership.dtype == np.float16
    assert all(child.ownership is not None for child in root.children if child.expanded)
    tree = kept.tree_ownership()
    assert tree.shape == (25,)
    # replies put stones of the opponent's on the board: the tree sees less of it owned
    assert tree.mean() < float(root.ownership.mean()) == 1.0
    plain = PUCTSearch(StoneCountingEvaluator(), batch_size=4, seed=1)
    root = plain.run(game, BLACK, visits=60, early_stop=False)
    assert root.ownership is None and plain.tree_ownership() is None


def test_searches_in_a_pool_keep_ownership_too():
    evaluator = StoneCountingEvaluator()
    searches = [PUCTSearch(evaluator, batch_size=4, seed=k, keep_ownership=True)
                for k in range(2)]
    games = [GameState(5), GameState(5)]
    games[1].play(BLACK, vertex_to_index("C3", 5))
    run_searches([SearchJob(s, g, g.to_move, 30) for s, g in zip(searches, games)], evaluator)
    for search in searches:
        assert search.root.ownership is not None
        assert search.tree_ownership() is not None


def test_the_engine_reports_the_trees_ownership_after_searching_the_position():
    algorithm = MCTSAlgorithm(model=None, visits=80, seed=1)
    evaluator = StoneCountingEvaluator()
    algorithm.networks.for_size = lambda size: evaluator
    algorithm.networks.uses_network = lambda size: True
    game = GameState(7)
    game.play(BLACK, vertex_to_index("D4", 7))
    before = algorithm.ownership(game)
    algorithm.choose_move(game, WHITE)
    after = algorithm.ownership(game)
    on_board = list(game.board.on_board())
    network = [before[p] for p in on_board]
    searched = [after[p] for p in on_board]
    assert network != searched
    # White to move: the network gives White everything but Black's stone
    assert min(network) == -1.0 and sum(v > 0 for v in network) == 1
    # the tree: the same side, tempered by the stones its lines add
    assert searched[on_board.index(vertex_to_index("D4", 7))] > 0
    assert sum(searched) > sum(network)
    # another position (a move played): back to the network's answer
    game.play(WHITE, vertex_to_index("C3", 7))
    assert algorithm.ownership(game) == evaluator.ownership(game.current, game.to_move)


def test_the_analysis_engine_reports_the_trees_ownership_for_the_root_and_each_move():
    import json
    import threading

    from imago.analysis import AnalysisEngine

    answers, arrived = [], threading.Event()

    def write(message):
        if "turnNumber" in message and not message.get("isDuringSearch"):
            answers.append(message)
            arrived.set()

    evaluator = StoneCountingEvaluator()
    evaluator.check_size = lambda size: None
    engine = AnalysisEngine("none", write=write, seed=1, max_searches=1)
    engine.networks.for_size = lambda size: evaluator
    engine.networks.uses_network = lambda size: True
    try:
        engine.submit_line(json.dumps({
            "id": "q", "moves": [["B", "E5"], ["W", "C3"]], "rules": "chinese", "komi": 7.5,
            "boardXSize": 9, "boardYSize": 9, "maxVisits": 60, "includeOwnership": True,
            "includeMovesOwnership": True}))
        assert arrived.wait(60)
    finally:
        engine.close(wait=False)
    answer = answers[0]
    ownership = answer["ownership"]  # Black to move; row 0 is the top row
    e5, c3 = 4 * 9 + 4, 6 * 9 + 2
    assert ownership[e5] == 1.0 and ownership[c3] == -1.0  # stones stay in every line
    # the network says +1 on every empty point; the tree's lines put White stones there
    assert min(v for k, v in enumerate(ownership) if k not in (e5, c3)) < 1.0
    best = answer["moveInfos"][0]
    column, row = "ABCDEFGHJ".index(best["move"][0]), 9 - int(best["move"][1:])
    assert best["ownership"][row * 9 + column] == 1.0  # the candidate's own stone
    assert best["visits"] > 2 and min(best["ownership"]) == -1.0
    assert len([v for v in best["ownership"] if -1.0 < v < 1.0]) > 0
