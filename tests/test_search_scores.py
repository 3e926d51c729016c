"""Score leads backed up by the search beside win rates, and the search pool
served round by round (priorities, dropped and restricted searches)."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from imago.game import BLACK, WHITE, GameState, to_index, vertex_to_index
from imago.nn.evaluator import Evaluation
from imago.search import PlayoutEvaluator, PUCTSearch, SearchJob, SearchPool, action_of
from imago.search.tree import CLOSED


class WhiteAheadEvaluator:
    """Uniform priors, value 0, and White ahead on the board by ``lead``
    points in every position (margins are from the view of the player to
    move)."""

    history = 1

    def __init__(self, lead: float = 10.0):
        self.lead = lead
        self.batches: list[int] = []

    def evaluate(self, leaves):
        self.batches.append(len(leaves))
        n, actions = len(leaves), leaves[0].board.size ** 2 + 1
        margins = np.array([self.lead if leaf.to_move == WHITE else -self.lead
                            for leaf in leaves])
        return Evaluation(np.full((n, actions), 1.0 / actions), np.zeros(n), margins)


def test_every_candidate_and_the_root_get_the_score_lead_with_komi():
    game = GameState(9, komi=7.5)
    search = PUCTSearch(WhiteAheadEvaluator(10.0), batch_size=4, seed=1)
    search.run(game, BLACK, visits=200, early_stop=False)
    results = search.results(limit=100)
    assert results and all(r.score_lead == pytest.approx(-17.5) for r in results)
    summary = search.summary()
    assert summary.score_lead == pytest.approx(-17.5) and summary.visits >= 199
    white = PUCTSearch(WhiteAheadEvaluator(10.0), batch_size=4, seed=1)
    game.play(BLACK, vertex_to_index("E5", 9))
    white.run(game, WHITE, visits=100, early_stop=False)
    assert white.summary().score_lead == pytest.approx(17.5)


def test_an_evaluator_without_margins_gives_no_score():
    class PlainEvaluator(WhiteAheadEvaluator):
        def evaluate(self, leaves):
            priors, values = super().evaluate(leaves)
            return priors, values

    search = PUCTSearch(PlainEvaluator(), batch_size=4, seed=1)
    search.run(GameState(9), BLACK, visits=50, early_stop=False)
    assert all(r.score_lead is None for r in search.results())
    assert search.summary().score_lead is None


def test_playouts_score_a_won_position_for_its_owner():
    game = GameState(5, komi=0.5)
    for vertex in ("A3", "B3", "C3", "D3", "E3"):
        game.play(BLACK, vertex_to_index(vertex, 5))
        game.play(WHITE, None)
    for vertex in ("A2", "B2", "C2", "D2", "E2"):
        game.play(BLACK, vertex_to_index(vertex, 5))
        game.play(WHITE, None)
    search = PUCTSearch(PlayoutEvaluator(komi=0.5, seed=2), batch_size=1, seed=2)
    search.run(game, BLACK, visits=100, early_stop=False)
    assert search.summary().score_lead > 10


def test_pv_visits_follow_the_line():
    search = PUCTSearch(PlayoutEvaluator(seed=3), batch_size=1, seed=3)
    search.run(GameState(5, komi=0.5), BLACK, visits=300, early_stop=False)
    best = search.results(limit=1, pv_length=4)[0]
    assert len(best.pv) == len(best.pv_visits) <= 4
    assert best.pv_visits[0] == best.visits
    assert all(a >= b for a, b in zip(best.pv_visits, best.pv_visits[1:]))


def positions(game: GameState, count: int) -> list[GameState]:
    """``count`` views of one game at its first positions (each its own
    cursor, sharing the tree)."""
    nodes = [game.root]
    while len(nodes) < count:
        nodes.append(nodes[-1].play(nodes[-1].to_move, None if len(nodes) % 7 == 0 else
                                    game.board.empties[len(nodes) * 3]))
    views = []
    for node in nodes:
        view = copy.copy(game)
        view.current = node
        views.append(view)
    return views


def test_the_pool_serves_higher_priorities_first_and_batches_across_searches():
    evaluator = WhiteAheadEvaluator()
    views = positions(GameState(9), 6)
    pool = SearchPool(evaluator, max_leaves=8)
    jobs = [SearchJob(PUCTSearch(evaluator, batch_size=4, seed=k), view, view.to_move, 40,
                      priority=10 if k >= 4 else 0) for k, view in enumerate(views)]
    for job in jobs:
        pool.add(job)
    done_order = []
    while len(pool):
        done_order += [jobs.index(job) for job in pool.step()]
    assert sorted(done_order) == list(range(6))
    assert set(done_order[:2]) == {4, 5}
    assert max(evaluator.batches) == 8


def test_a_discarded_search_stops_and_forbidden_moves_are_never_searched():
    evaluator = WhiteAheadEvaluator()
    game = GameState(9)
    pool = SearchPool(evaluator, max_leaves=64)
    forbidden = frozenset(action_of(vertex_to_index(v, 9), 9) for v in ("E5", "C3", "G7"))
    kept = SearchJob(PUCTSearch(evaluator, batch_size=8, seed=1), game, BLACK, 300,
                     forbidden=forbidden)
    dropped = SearchJob(PUCTSearch(evaluator, batch_size=8, seed=2), game, BLACK, 10_000)
    pool.add(kept)
    pool.add(dropped)
    pool.step()
    pool.discard(dropped)
    while len(pool):
        pool.step()
    assert dropped.root.total_visits() < 100
    assert kept.root.total_visits() >= 300
    assert not forbidden & set(int(a) for a in kept.root.moves)


def test_a_new_root_keeps_the_evaluators_careful_answer_and_children_can_be_asked():
    evaluator = WhiteAheadEvaluator()
    game = GameState(9)
    game.play(BLACK, vertex_to_index("E5", 9))
    job = SearchJob(PUCTSearch(evaluator, batch_size=4, seed=1), game, WHITE, 20)
    pool = SearchPool(evaluator)
    pool.add(job)
    while len(pool):
        pool.step()
    policy, value, margin, ownership = job.root_answer
    assert len(policy) == 82 and value == 0 and margin == 10.0 and ownership is None
    child = job.search.child_request(action_of(vertex_to_index("C3", 9), 9))
    assert child.to_move == BLACK and child.board.stone_count(WHITE) == 1
    assert child.board.stone_count(BLACK) == 1


def test_a_search_whose_visits_all_end_the_game_still_reports_its_score():
    """After a pass, the pass that ends the game is searched at once; a
    search of only such visits knows its score from the count."""
    evaluator = WhiteAheadEvaluator()
    game = GameState(9, komi=7.5)
    game.play(BLACK, None)
    board_moves = frozenset(range(81))
    job = SearchJob(PUCTSearch(evaluator, batch_size=4, seed=1), game, WHITE, 5,
                    forbidden=board_moves - {0})
    pool = SearchPool(evaluator)
    pool.add(job)
    while len(pool):
        pool.step()
    summary = job.search.summary()
    assert summary.score_lead is not None
    assert [r.score_lead for r in job.search.results() if r.point is None] == [7.5]


def test_a_pipelined_pool_finishes_every_search_with_its_visits():
    """The evaluator's thread answers one batch while the next is selected;
    every search still ends with exactly its visits and no virtual loss."""
    evaluator = WhiteAheadEvaluator()
    views = positions(GameState(9), 12)
    pool = SearchPool(evaluator, max_leaves=16, pipelined=True)
    jobs = [SearchJob(PUCTSearch(evaluator, batch_size=4, seed=k), view, view.to_move, 60)
            for k, view in enumerate(views)]
    for job in jobs:
        pool.add(job)
    while len(pool):
        pool.step()
    pool.close()
    for job in jobs:
        root = job.root
        assert root.total_visits() == 60 and float(root.visits.sum()) == 60.0
        assert job.search.summary().score_lead == pytest.approx(
            -17.5 if job.color == BLACK else 17.5)
    assert max(evaluator.batches) <= 16 + 4


def test_wide_root_noise_spreads_the_roots_visits():
    # KataGo's wideRootNoise (analysis): the root's priors flattened and a
    # random bonus on tried moves, so that more moves get a look
    class Peaked(WhiteAheadEvaluator):
        def evaluate(self, leaves):
            answer = super().evaluate(leaves)
            priors, values = answer
            priors[:, :] = 0.001
            priors[:, 40] = 0.9  # one move the network loves
            return Evaluation(priors / priors.sum(axis=1, keepdims=True), values,
                              answer.margins)

    tried = []
    for noise in (0.0, 0.5):
        search = PUCTSearch(Peaked(), batch_size=4, seed=1)
        search.wide_root_noise = noise
        root = search.run(GameState(9), BLACK, visits=200, early_stop=False)
        tried.append(int((root.visits > 0).sum()))
        assert root.total_visits() >= 199 and search.chosen_action() == 40
    assert tried[1] > 2 * tried[0]
    # occupied points stay closed however wide the root (a power of their
    # -inf prior was NaN, which argmax takes for the best)
    game = GameState(9)
    for vertex in ("C3", "G7", "C7", "G3", "E5"):
        game.play(BLACK, vertex_to_index(vertex, 9))
        game.play(WHITE, None)
    search = PUCTSearch(Peaked(), batch_size=4, seed=1)
    search.wide_root_noise = 5.0
    choose, closed = search._choose, []

    def watched(node, *args):
        action, edge = choose(node, *args)
        if node is search.root and node.priors[action] == CLOSED:
            closed.append(action)
        return action, edge

    search._choose = watched
    root = search.run(game, BLACK, visits=300, early_stop=False)
    assert root.total_visits() >= 299 and (root.visits > 0).sum() > 40 and closed == []


class FirstSightEvaluator(WhiteAheadEvaluator):
    """Black's move ``HIDDEN`` (prior 0.02) looks lost at first sight
    (White to move after it is valued +0.6 for White) and wins once any
    reply is read (+0.9 for Black from then on); ``FAVOURITE``
    (prior 0.9) is a steady +0.3 for Black. Values are from the view of
    the player to move."""

    HIDDEN, FAVOURITE = 10, 40

    def evaluate(self, leaves):
        answer = super().evaluate(leaves)
        priors, values = answer
        size = leaves[0].board.size
        priors[:, :] = 0.08 / (priors.shape[1] - 2)
        priors[:, self.HIDDEN], priors[:, self.FAVOURITE] = 0.02, 0.9
        hidden, favourite = (to_index(a % size, a // size, size)
                             for a in (self.HIDDEN, self.FAVOURITE))
        for i, leaf in enumerate(leaves):
            cells, stones = leaf.board.cells, size * size - len(leaf.board.empties)
            if cells[hidden] == BLACK:
                values[i] = 0.6 if stones == 1 else 0.9 if leaf.to_move == BLACK else -0.9
            elif cells[favourite] == BLACK:
                values[i] = -0.3 if leaf.to_move == WHITE else 0.3
        return Evaluation(priors, values, answer.margins)


def test_forced_playouts_read_a_move_misjudged_at_first_sight():
    # KataGo's forced playouts: each root move of prior P gets sqrt(k P N)
    # of the N visits; without them one bad first value hides a move of
    # low prior for thousands of visits (a seki's vital point)
    chosen, hidden_visits = [], []
    for k in (0.0, 2.0):
        search = PUCTSearch(FirstSightEvaluator(), batch_size=1, seed=1, forced_playouts=k)
        root = search.run(GameState(9), BLACK, visits=400, early_stop=False)
        chosen.append(search.chosen_action())
        edge = root.edge(FirstSightEvaluator.HIDDEN)
        hidden_visits.append(0.0 if edge < 0 else float(root.visits[edge]))
    assert chosen == [FirstSightEvaluator.FAVOURITE, FirstSightEvaluator.HIDDEN]
    assert hidden_visits[0] <= 1 and hidden_visits[1] > 200
