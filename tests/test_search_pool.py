"""Board-free search trees, many searches sharing one evaluator, and search
loops that end by construction."""

from __future__ import annotations

import threading
import tracemalloc

import numpy as np

from imago.engine.algorithm import RESIGN, create_algorithm
from imago.engine.engine import GameEngine
from imago.game import BLACK, WHITE, GameBoard, GameState, vertex_to_index
from imago.search import PlayoutEvaluator, PUCTSearch, SearchJob, action_of, run_searches


class RandomEvaluator:
    """Peaked random priors and small random values; records batch sizes and
    the board sizes it was asked about."""

    history = 8

    def __init__(self, seed: int = 1):
        self.rng = np.random.default_rng(seed)
        self.batches: list[int] = []

    def evaluate(self, leaves):
        self.batches.append(len(leaves))
        actions = leaves[0].board.size ** 2 + 1
        priors = self.rng.random((len(leaves), actions)) ** 8
        return priors, self.rng.uniform(-0.5, 0.5, len(leaves))


def random_game(size: int, moves: int, seed: int) -> GameState:
    import random

    rng = random.Random(seed)
    game = GameState(size)
    for _ in range(moves):
        game.play(game.to_move, game.board.random_move(game.to_move, rng))
    return game


def test_many_searches_share_each_evaluator_call():
    evaluator = RandomEvaluator()
    games = [random_game(9, 10 + k, k) for k in range(12)]
    jobs = [SearchJob(PUCTSearch(evaluator, batch_size=1, seed=k), game, game.to_move, 40)
            for k, game in enumerate(games)]
    batches: list[int] = []
    roots = run_searches(jobs, evaluator, batches)
    assert all(root.total_visits() >= 40 for root in roots)
    assert max(batches) == 12 and sum(batches) / len(batches) > 10
    for job, root in zip(jobs, roots):
        best = job.search.point_of(root.best_action())
        assert job.state.board.illegal_reason(best, job.color) is None


def test_a_pooled_search_equals_the_same_search_alone():
    game = random_game(7, 12, 3)
    alone = PUCTSearch(PlayoutEvaluator(seed=5), batch_size=1, seed=5)
    alone.run(game, game.to_move, visits=120, early_stop=False)
    pooled = PUCTSearch(PlayoutEvaluator(seed=5), batch_size=1, seed=5)
    run_searches([SearchJob(pooled, game, game.to_move, 120)])
    assert [r.visits for r in alone.results()] == [r.visits for r in pooled.results()]
    assert [r.point for r in alone.results()] == [r.point for r in pooled.results()]


def test_nodes_hold_no_board_and_little_memory():
    """About a kilobyte a visit on 19x19 (a board with its strings is tens)."""
    search = PUCTSearch(RandomEvaluator(), batch_size=16, seed=1)
    game = GameState(19)
    search.run(game, BLACK, visits=50, early_stop=False)
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    search.run(game, BLACK, visits=2050, early_stop=False)
    grown = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    assert not any(isinstance(getattr(search.root, name), GameBoard)
                   for name in type(search.root).__slots__)
    assert grown / 2000 < 1000


def test_a_ko_retake_inside_the_tree_is_never_an_edge():
    """After White captures at B3 in the tree, Black's immediate retake at C3
    repeats a position of the path: the scratch board's history (the game's
    positions plus the path's) strikes it, though the priors love it."""
    game = GameState(5)
    for color, v in ((BLACK, "B4"), (WHITE, "C4"), (BLACK, "A3"), (WHITE, "D3"),
                     (BLACK, "B2"), (WHITE, "C2"), (BLACK, "C3")):
        game.play(color, vertex_to_index(v, 5))
    b3, c3 = action_of(vertex_to_index("B3", 5), 5), action_of(vertex_to_index("C3", 5), 5)

    class LovesTheKo(RandomEvaluator):
        def evaluate(self, leaves):
            priors, values = super().evaluate(leaves)
            priors[:, [b3, c3]] = 100.0
            return priors, values

    search = PUCTSearch(LovesTheKo(), batch_size=4, seed=2)
    root = search.run(game, WHITE, visits=200, early_stop=False)
    child = root.children[root.edge(b3)]
    assert child.expanded and child.total_visits() > 0
    assert child.edge(c3) < 0 and child.is_struck(c3)


def test_genmove_after_two_passes_plays_on():
    """Two passes after three moves: a controller asking for a move there
    wants the game to go on (GNU Go's regression suites ask so), so the
    engine searches the position as resumed and plays a board move, in
    time; the search alone still treats such a root as the game's end."""
    engine = GameEngine(create_algorithm("mcts", model="none", seed=1), size=9)
    for color, vertex in ((BLACK, "F7"), (WHITE, "G7"), (BLACK, "G6"), (WHITE, "pass"),
                          (BLACK, "pass")):
        engine.play(color, None if vertex == "pass" else vertex_to_index(vertex, 9))
    assert PUCTSearch(RandomEvaluator()).set_root(engine.state, WHITE).terminal
    answer = []
    worker = threading.Thread(target=lambda: answer.append(engine.genmove(WHITE)), daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert answer, "genmove after two passes did not answer within 30 s"
    assert answer[0] is not None and answer[0] != RESIGN, "the unfinished game was not played on"


def test_search_loops_end_on_each_condition():
    """Visits, time, stop() and a single legal choice each end a search."""
    game = GameState(9)
    for run in (dict(visits=50), dict(visits=None, seconds=0.3),
                dict(visits=10**9, stop=lambda: True)):
        search = PUCTSearch(RandomEvaluator(), batch_size=4, seed=1)
        done = []
        worker = threading.Thread(target=lambda: done.append(search.run(game, BLACK, **run)),
                                  daemon=True)
        worker.start()
        worker.join(timeout=30)
        assert done, f"the search did not end: {run}"


class CarefulEvaluator(RandomEvaluator):
    """A random evaluator whose careful (8-symmetry) answer for a root puts
    almost all the prior on one empty point; counts the careful calls."""

    def __init__(self, seed: int = 1):
        super().__init__(seed)
        self.careful: list[int] = []

    def evaluate_all_symmetries(self, leaves):
        self.careful.append(len(leaves))
        actions = leaves[0].board.size ** 2 + 1
        priors = np.full((len(leaves), actions), 1e-4)
        for k, leaf in enumerate(leaves):
            priors[k, action_of(leaf.board.empties[0], leaf.board.size)] = 1.0
        return priors, np.zeros(len(leaves))


def test_a_reused_root_keeps_its_visits_and_takes_the_careful_priors():
    """The next turn's search goes on from the subtree of the move played;
    the pool asks for that root's careful answer with the other new roots."""
    evaluator = CarefulEvaluator()
    game = random_game(9, 6, 2)
    search = PUCTSearch(evaluator, batch_size=4, seed=1)
    (first,) = run_searches([SearchJob(search, game, game.to_move, 200)])
    action = first.best_action()
    child = first.children[first.edge(action)]
    kept = child.total_visits()
    assert kept > 0 and not child.careful
    game.play(game.to_move, search.point_of(action))
    job = SearchJob(search, game, game.to_move, kept + 30)
    other = SearchJob(PUCTSearch(evaluator, batch_size=4, seed=2), random_game(9, 9, 5),
                      BLACK, 30)
    evaluator.careful.clear()
    run_searches([job, other])
    assert job.root is child and child.careful
    assert evaluator.careful == [2]  # both roots in one careful call
    assert child.total_visits() >= kept + 30
    assert child.prior_values()[action_of(game.board.empties[0], 9)] > 0.9


def test_a_pipelined_pool_starts_searches_added_while_it_runs():
    """New roots' careful answers ride with the next batch; a search
    dropped while its root's answer is in flight just leaves the pool."""
    from imago.search import SearchPool

    evaluator = CarefulEvaluator()
    pool = SearchPool(evaluator, max_leaves=16, pipelined=True)
    jobs = [SearchJob(PUCTSearch(evaluator, batch_size=4, seed=k), random_game(9, 8 + k, k),
                      BLACK if k % 2 else WHITE, 50) for k in range(6)]
    pool.add(jobs[0])
    pool.step()
    for job in jobs[1:]:
        pool.add(job)
    pool.step()
    pool.discard(jobs[5])
    finished = []
    while len(pool):
        finished.extend(pool.step())
    pool.close()
    assert {id(job) for job in finished} == {id(job) for job in jobs[:5]}
    for job in jobs[:5]:
        assert job.root.careful and job.root.total_visits() == 50
        assert float(job.root.visits.sum()) == 50.0
