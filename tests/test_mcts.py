"""PUCT search: selection, batching with virtual loss, reuse, results."""

from __future__ import annotations

import math

import numpy as np
import pytest

from imago.engine.algorithm import RESIGN, create_algorithm
from imago.search import PlayoutEvaluator, PUCTSearch, action_of
from imago.game import BLACK, WHITE, GameState, index_to_vertex, vertex_to_index


class CountingEvaluator:
    """Uniform priors, value 0; records batch sizes."""

    def __init__(self):
        self.batches = []

    def evaluate(self, nodes):
        self.batches.append(len(nodes))
        size = nodes[0].board.size
        return np.full((len(nodes), size * size + 1), 1.0), np.zeros(len(nodes))

    def check_size(self, size):
        """Every size (as a fully convolutional network)."""


class PreferringEvaluator(CountingEvaluator):
    """Puts almost all prior on one point."""

    def __init__(self, vertex):
        super().__init__()
        self.vertex = vertex

    def evaluate(self, nodes):
        priors, values = super().evaluate(nodes)
        size = nodes[0].board.size
        priors[:] = 0.001
        priors[:, action_of(vertex_to_index(self.vertex, size), size)] = 10.0
        return priors, values


def test_opens_at_the_centre_on_3x3():
    game = GameState(3, komi=0)
    search = PUCTSearch(PlayoutEvaluator(komi=0, seed=1), seed=1)
    # 1,000 visits: at 400 a single-playout search finds B2 with 25 of 30 seeds
    # (the board-holding search before this one too); at 1,000 with all 30
    search.run(game, BLACK, visits=1000)
    assert index_to_vertex(search.results()[0].point, 3) == "B2"


def test_playouts_are_searched_one_leaf_at_a_time():
    alg = create_algorithm("mcts", model="none", visits=50, seed=1, batch_size=16)
    alg.choose_move(GameState(5, komi=0), BLACK)
    assert alg.search.batch_size == 1


def test_the_default_search_opens_at_the_centre_on_small_boards():
    from imago.nn.evaluator import default_model_path
    if default_model_path() is None:
        pytest.skip("the shipped residual network (or TensorFlow) is not installed")
    # 3x3: playouts (below the network's range); 5x5: the shipped network
    for size, centre, visits in ((3, "B2", 1000), (5, "C3", 800)):
        alg = create_algorithm("mcts", visits=visits, seed=1)
        assert index_to_vertex(alg.choose_move(GameState(size, komi=0), BLACK), size) == centre


def test_leaves_are_evaluated_in_batches():
    evaluator = CountingEvaluator()
    search = PUCTSearch(evaluator, batch_size=8)
    search.run(GameState(9), BLACK, visits=200)
    assert max(evaluator.batches) == 8
    assert sum(evaluator.batches) == search.evaluations
    assert search.root.total_visits() >= 150


def test_priors_guide_the_search():
    search = PUCTSearch(PreferringEvaluator("C7"), batch_size=4)
    root = search.run(GameState(9), BLACK, visits=100)
    assert index_to_vertex(search.point_of(root.best_action()), 9) == "C7"
    assert search.results()[0].prior > 0.9


def test_visits_and_values_stay_consistent_after_virtual_loss():
    search = PUCTSearch(PlayoutEvaluator(seed=3), batch_size=16, seed=3)
    root = search.run(GameState(7), BLACK, visits=300)
    # virtual loss fully removed: visits are whole numbers, |Q| <= 1
    for node in (root, *[c for c in root.children if c.expanded]):
        assert np.allclose(node.visits, np.round(node.visits))
        visited = node.visits > 0
        assert np.all(np.abs(node.values[visited] / node.visits[visited]) <= 1 + 1e-9)


def test_tree_is_reused_after_play_and_undo():
    game = GameState(7)
    search = PUCTSearch(PlayoutEvaluator(seed=2), seed=2)
    root = search.run(game, BLACK, visits=200)
    best = search.point_of(root.best_action())
    child_visits = int(root.visits[root.best_edge()])
    game.play(BLACK, best)
    reused = search.set_root(game, WHITE)
    # the child's first visit expanded it; every later one went through an edge
    assert reused.total_visits() == child_visits - 1
    game.undo()
    assert search.set_root(game, BLACK) is root     # undo finds the earlier tree
    game.play(BLACK, best)
    assert search.set_root(game, WHITE) is reused


def test_superko_respected_inside_the_tree():
    # a ko just taken: the immediate retake is absent from the child's moves
    game = GameState(5)
    for color, v in ((BLACK, "B4"), (WHITE, "C4"), (BLACK, "A3"), (WHITE, "D3"),
                     (BLACK, "B2"), (WHITE, "C2"), (BLACK, "C3"), (WHITE, "B3")):
        game.play(color, vertex_to_index(v, 5))
    # white B3 captured C3: black may not retake at C3 at once
    assert game.board.illegal_reason(vertex_to_index("C3", 5), BLACK) == "ko"
    search = PUCTSearch(CountingEvaluator())
    root = search.run(game, BLACK, visits=20)
    assert action_of(vertex_to_index("C3", 5), 5) not in root.open_actions()


def test_mcts_algorithm_plays_legal_moves_and_is_repeatable():
    moves = []
    for _ in range(2):
        game = GameState(7, komi=7.5)
        alg = create_algorithm("mcts", model="none", visits=60, seed=7)
        color, played = BLACK, []
        for _ in range(6):
            move = alg.choose_move(game, color)
            assert move != RESIGN
            assert game.board.illegal_reason(move, color) is None
            game.play(color, move)
            played.append(move)
            color = 3 - color
        moves.append(played)
    assert moves[0] == moves[1]


def test_a_reseeded_search_answers_as_a_fresh_one_so_seeded():
    """``reseed`` forgets the random state, the kept trees and the cached
    evaluations of earlier searches (a benchmark's tests, each alone)."""
    game = GameState(7, komi=7.5)
    for vertex, color in (("D4", BLACK), ("C3", WHITE)):
        game.play(color, vertex_to_index(vertex, 7))

    def searched(alg):
        move = alg.choose_move(game, BLACK)
        return move, alg.summary()

    fresh = searched(create_algorithm("mcts", model="none", visits=60, seed=3))
    used = create_algorithm("mcts", model="none", visits=60, seed=11)
    searched(used)
    other = GameState(7, komi=7.5)
    used.choose_move(other, BLACK)
    used.reseed(3)
    assert searched(used) == fresh


def test_a_run_keeps_its_root_off_the_forbidden_moves_for_itself_only():
    """KataGo's ``allow``: the one move left gets every visit of the run
    (a lone move is searched, not answered at once), and the moves struck
    for the run are open again after it."""
    game = GameState(7, komi=7.5)
    search = PUCTSearch(CountingEvaluator(), batch_size=4, seed=1)
    allowed = action_of(vertex_to_index("C3", 7), 7)
    forbidden = [a for a in range(7 * 7 + 1) if a != allowed]
    root = search.run(game, BLACK, visits=40, forbidden=forbidden)
    assert root.total_visits() >= 40
    assert [int(root.stats[0, e]) for e in range(root.edges)] == [allowed]
    assert len(root.open_actions()) == 7 * 7 + 1
    # a forbidden set that would leave no move restricts nothing
    root = search.run(game, BLACK, visits=80, forbidden=range(7 * 7 + 1))
    assert root.edges > 1


def _edges_by_ply(node, ply=0, found=None):
    """Every tried action of the tree under ``node``, by its ply."""
    found = {} if found is None else found
    for edge in range(node.edges):
        found.setdefault(ply, set()).add(int(node.stats[0, edge]))
        _edges_by_ply(node.children[edge], ply + 1, found)
    return found


def test_restrictions_hold_below_the_root_to_their_depth():
    """KataGo's ``avoid`` and ``allow`` with UNTILDEPTH: White plays only E5
    or C3 at ply 1 (depth 2) and anything at ply 3; Black avoids the D4
    its network prefers at ply 0 (depth 1) and plays it at ply 2, or,
    with depth 3, at neither (White leaves D4 open at ply 1, and takes it
    at ply 3). The restrictions end with the run."""
    from imago.search import MoveRestriction, forbidden_actions

    size = 7
    game = GameState(size, komi=7.5)
    d4 = action_of(vertex_to_index("D4", size), size)
    allowed = {vertex_to_index(v, size) for v in ("E5", "C3")}
    white = MoveRestriction(WHITE, forbidden_actions(size, (), allowed), 2)
    for depth in (1, 3):
        search = PUCTSearch(PreferringEvaluator("D4"), batch_size=4, seed=1)
        root = search.run(game, BLACK, visits=800,
                          restrictions=(MoveRestriction(BLACK, frozenset({d4}), depth), white))
        plies = _edges_by_ply(root)
        assert d4 not in plies[0] and plies[1] <= {action_of(p, size) for p in allowed}
        assert (d4 in plies[2]) == (depth == 1)
        assert depth == 1 or d4 in plies[3]  # White's own D4 once its restriction ends
        assert search.restrictions == ()
        assert d4 in _edges_by_ply(search.run(game, BLACK, visits=100))[0]


def test_a_restriction_that_leaves_a_node_no_move_yields_there():
    """Avoiding every White move at ply 1 leaves those nodes no move: they
    are searched as if unrestricted, not left stuck."""
    from imago.search import MoveRestriction

    size = 5
    game = GameState(size, komi=0.5)
    search = PUCTSearch(CountingEvaluator(), batch_size=4, seed=1)
    everything = frozenset(range(size * size + 1))
    root = search.run(game, BLACK, visits=200,
                      restrictions=(MoveRestriction(WHITE, everything, 2),))
    assert root.total_visits() >= 200 and 2 in _edges_by_ply(root)


def test_no_node_is_proven_while_restrictions_hold():
    """A proof would count the moves left out: where a free search proves
    a 3x3 root, a restricted one proves nothing."""
    from imago.search import MoveRestriction

    state = GameState(3, komi=0)
    for move in ("B2", "B1", "B3", "C2", "A2"):
        state.play(state.to_move, vertex_to_index(move, 3))
    free = create_algorithm("mcts", seed=1)
    free.choose_move(state, WHITE)
    assert free.search.root.exact is not None
    restricted = create_algorithm("mcts", seed=1)
    restricted.choose_move(state, WHITE, restrictions=(MoveRestriction(BLACK, frozenset({9}), 3),))
    assert restricted.search.root.exact is None and restricted.search.restrictions == ()


def test_passes_back_when_already_winning():
    game = GameState(5, komi=0.5)
    game.root.add_setup(black=[vertex_to_index(v, 5) for v in ("C1", "C2", "C3", "C4", "C5")])
    game.play(WHITE, None)
    alg = create_algorithm("mcts", model="none", visits=50, seed=1)
    # black owns nothing but the C column and the west side... Tromp-Taylor:
    # every empty point touches only black, so black wins 25-0 and may pass
    assert alg.choose_move(game, BLACK) is None


def test_results_report_winrate_prior_lcb_and_pv():
    search = PUCTSearch(PlayoutEvaluator(seed=5), seed=5)
    search.run(GameState(5, komi=0), BLACK, visits=300)
    results = search.results()
    assert results and results[0].visits >= results[-1].visits
    for r in results:
        assert 0 <= r.lcb <= r.winrate <= 1
        assert r.pv[0] == r.point


def test_does_not_pass_while_groups_are_unsettled():
    # the opponent has not passed and the board is open: pass is never chosen
    alg = create_algorithm("mcts", model=PassLover(), visits=40, seed=1)
    game = GameState(7, komi=7.5)
    game.play(BLACK, vertex_to_index("D4", 7))
    assert alg.choose_move(game, WHITE) is not None


class PassLover(CountingEvaluator):
    """Puts nearly all the prior on the pass."""

    def evaluate(self, nodes):
        priors, values = super().evaluate(nodes)
        priors[:, -1] = 1000.0
        return priors, values


def test_a_struck_out_root_pass_gets_no_visits():
    game = GameState(5, komi=0.5)
    search = PUCTSearch(PassLover(), batch_size=4, seed=1)
    pass_action = 25

    def pass_visits(root):
        edge = root.edge(pass_action)
        return root.visits[edge] if edge >= 0 else 0

    root = search.run(game, BLACK, visits=60)
    assert pass_visits(root) > 0
    root = search.run(game, BLACK, visits=120, allow_pass=False)
    assert pass_visits(root) == 0 and root.total_visits() == root.visits.sum()
    assert root.best_action() != pass_action
    assert all(r.point is not None for r in search.results(root))
    root = search.run(game, BLACK, visits=200)  # allowed again
    assert pass_visits(root) > 0


def test_a_root_move_selection_never_tries_gets_the_visits_asked_for():
    """visit_root_action searches one root move whatever its prior (the
    engine's pass when a count calls the game over): it gets its visits,
    the other moves keep theirs, and selection is itself again after."""
    search = PUCTSearch(PreferringEvaluator("C7"), batch_size=4, seed=1)
    pass_action = 81
    game = GameState(9)
    root = search.run(game, BLACK, visits=100)
    assert root.edge(pass_action) < 0
    before = root.visits.copy()
    search.visit_root_action(pass_action, 8)
    assert root.visits[root.edge(pass_action)] == 8
    assert np.array_equal(root.visits[:len(before)], before)
    assert root.total_visits() == root.visits.sum() == 108
    search.visit_root_action(pass_action, 8)  # it has them: nothing more
    assert root.total_visits() == 108
    assert search.run(game, BLACK, visits=200, early_stop=False) is root  # searched on
    assert root.visits[root.edge(pass_action)] == 8 and root.total_visits() == 200


def dead_stone_game(komi: float, passed: int) -> GameState:
    """5x5: Black's C column owns the board but for White's dead A3; the
    colour ``passed`` has just passed."""
    game = GameState(5, komi=komi)
    game.root.add_setup(black=[vertex_to_index(v, 5) for v in ("C1", "C2", "C3", "C4", "C5")],
                        white=[vertex_to_index("A3", 5)])
    game.play(passed, None)
    return game


def test_passes_back_counting_dead_stones():
    # black owns the board but for a dead white stone in its area; white passed.
    # Counting A3 alive, the left side is neutral: 15 - 1 - 14.5 loses for
    # black; with A3 dead black has all 25 points and passing wins
    game = dead_stone_game(14.5, WHITE)
    alg = create_algorithm("mcts", model="none", visits=50, seed=1)
    assert alg.choose_move(game, BLACK) is None


def unsettled_stone_game(komi: float):
    """Black's wall on C, a white stone on E3 in Black's half; White passed.
    Counted as the stones stand, Black has 15 points and White 1."""
    game = GameState(5, komi=komi)
    game.root.add_setup(black=[vertex_to_index(v, 5) for v in ("C1", "C2", "C3", "C4", "C5")],
                        white=[vertex_to_index("E3", 5)])
    game.play(WHITE, None)
    return game


def test_does_not_pass_back_while_a_string_is_unsettled(monkeypatch):
    """White passed and the count (E3 judged dead) wins for Black, but E3's
    fate is unclear (a capturing race playouts misread) and decides the
    game: alive, it leaves Black 15 - 1 - 14.5 = -0.5. Black plays on.
    Once E3 is clearly dead, or in seki, Black passes back."""
    import imago.game.counting as counting

    e3 = vertex_to_index("E3", 5)
    game = unsettled_stone_game(14.5)
    ownership = [1.0] * len(game.board.cells)
    monkeypatch.setattr(counting, "final_ownership", lambda board, to_move: ownership)
    alg = create_algorithm("mcts", model="none", visits=50, seed=1)
    ownership[e3] = 0.3  # counted dead (beyond 0.2) but not settled
    assert alg.choose_move(game, BLACK) is not None
    ownership[e3] = 0.9
    assert alg.choose_move(game, BLACK) is None
    ownership[e3] = 0.3
    monkeypatch.setattr(counting, "seki_stones", lambda board, dead: [e3])
    assert alg.choose_move(game, BLACK) is None


def test_passes_back_when_no_unsettled_string_can_turn_the_game(monkeypatch):
    """White passed; E3's fate is unclear, but Black wins even with E3
    alive (15 - 1 - 0.5): Black passes back. Its own unclear strings count
    as dead in that reckoning: with the wall unsettled, it plays on."""
    import imago.game.counting as counting

    game = unsettled_stone_game(0.5)
    ownership = [1.0] * len(game.board.cells)
    ownership[vertex_to_index("E3", 5)] = 0.3
    monkeypatch.setattr(counting, "final_ownership", lambda board, to_move: ownership)
    alg = create_algorithm("mcts", model="none", visits=50, seed=1)
    assert alg.choose_move(game, BLACK) is None
    for v in ("C1", "C2", "C3", "C4", "C5"):
        ownership[vertex_to_index(v, 5)] = 0.5
    assert alg.choose_move(game, BLACK) is not None


def test_passes_rather_than_fill_its_own_eyes(monkeypatch):
    """White passed; the strings look unsettled, but Black's only legal
    moves are its own eyes: it passes instead of destroying itself."""
    import imago.game.counting as counting

    game = GameState(5, komi=0.5)
    eyes = {vertex_to_index(v, 5) for v in ("A1", "C3", "E5")}
    game.root.add_setup(black=[p for p in game.board.on_board() if p not in eyes])
    game.play(WHITE, None)
    monkeypatch.setattr(counting, "final_ownership",
                        lambda board, to_move: [0.3] * len(board.cells))
    alg = create_algorithm("mcts", model="none", visits=50, seed=1)
    assert alg.choose_move(game, BLACK) is None


def test_playout_evaluator_takes_plain_game_nodes():
    # the evaluator protocol promises only board, parent and to_move
    game = GameState(5)
    priors, values = PlayoutEvaluator(seed=1).evaluate([game.current])
    assert priors.shape == (1, 26) and -1 <= values[0] <= 1


def test_passes_back_after_the_opponents_pass_when_the_count_is_lost_for_good():
    # White's A3 stands dead in Black's area (the count of
    # test_passes_back_counting_dead_stones); Black passed, and with komi
    # 0.5 White loses by 24.5 with no dame left: nothing can turn that.
    # Playing on only feeds Black; passing ends the game with its score,
    # which a resignation would not tell (GNU Go's regression suites ask
    # for the pass there too).
    game = dead_stone_game(0.5, BLACK)
    for options in ({}, {"no_resign": True}):
        alg = create_algorithm("mcts", model="none", visits=50, seed=1, **options)
        alg.choose_move(GameState(5), BLACK)
        assert alg.summary() is not None
        assert alg.choose_move(game, WHITE) is None
        assert alg.summary() is None  # no search ran: the last one's figures are not shown


def test_plays_on_after_a_pass_while_the_dame_could_turn_the_game():
    # Black's wall on B, White's on D: 10 points each and column C's 5
    # dame. With komi -2.5 White is behind by 2.5, less than the dame to
    # fill: White plays on instead of resigning or passing.
    game = GameState(5, komi=-2.5)
    game.root.add_setup(black=[vertex_to_index(f"B{r}", 5) for r in range(1, 6)],
                        white=[vertex_to_index(f"D{r}", 5) for r in range(1, 6)])
    game.play(BLACK, None)
    alg = create_algorithm("mcts", model="none", visits=50, seed=1)
    move = alg.choose_move(game, WHITE)
    assert move not in (None, RESIGN)
    assert alg.summary() is not None


def test_the_policy_target_drops_the_visits_the_root_noise_gave():
    """With a network sure of E5 and strong root noise, the noise drags
    visits onto other moves; the training target keeps E5's visits and
    only what PUCT without the noise would have given the others. Without
    noise the target is the visits as they are."""
    size, best = 9, action_of(vertex_to_index("E5", 9), 9)
    noisy = PUCTSearch(PreferringEvaluator("E5"), seed=3, dirichlet_alpha=0.12,
                       noise_fraction=0.5)
    root = noisy.run(GameState(size, komi=7.5), BLACK, visits=200, early_stop=False)
    raw = np.zeros(size * size + 1)
    raw[root.moves] = root.visits
    target = noisy.policy_target()
    others = np.arange(len(raw)) != best
    assert raw[others].sum() >= 10  # the noise did give other moves visits
    assert target[best] == raw[best] and np.all(target <= raw)
    assert target[others].sum() <= 0.1 * raw[others].sum()

    quiet = PUCTSearch(PreferringEvaluator("E5"), seed=3)
    root = quiet.run(GameState(size, komi=7.5), BLACK, visits=200, early_stop=False)
    raw = np.zeros(size * size + 1)
    raw[root.moves] = root.visits
    assert np.array_equal(quiet.policy_target(), raw)


def searched_root(edges):
    """A 9x9 root whose edges hold ``(action, visits, mean value, spread)``
    as a finished search left them (values from the root player's view)."""
    from imago.search.tree import SearchNode, encode_priors
    root = SearchNode()
    open_points = np.ones(82, dtype=bool)
    root.priors = encode_priors(np.full(82, 1 / 82), open_points).tobytes()
    for action, visits, mean, spread in edges:
        edge, _ = root.add_edge(action)
        root.visits[edge] = visits
        root.values[edge] = visits * mean
        root.squares[edge] = visits * (spread ** 2 + mean ** 2)
        root.total += visits
    return root


def test_the_move_played_is_the_best_lower_confidence_bound():
    search = PUCTSearch(CountingEvaluator())
    # the prior kept most visits on action 10; action 20's 56 visits all say better
    root = searched_root([(10, 385, 0.12, 0.2), (20, 56, 0.34, 0.2), (30, 3, 0.9, 0.1)])
    assert root.best_action() == 10
    assert search.chosen_action(root) == 20
    search.size = 9  # the reports list the move it plays first
    assert [r.visits for r in search.results(root)] == [56, 385, 3]
    search.lcb_z = 0  # off: the most visited
    assert search.chosen_action(root) == 10
    assert [r.visits for r in search.results(root)] == [385, 56, 3]


def test_the_reported_lcb_is_the_bound_the_move_choice_ranks():
    search = PUCTSearch(CountingEvaluator())
    search.size = 9
    # the binomial bound of the win rates ranks the 385-visit move higher;
    # the values backed up through the 40-visit one say it is the better
    root = searched_root([(10, 385, 0.12, 0.9), (20, 40, 0.25, 0.1), (30, 20, 0.9, 0.05)])
    played, most, few = search.results(root)
    assert played.visits == 40 and most.visits == 385
    assert played.winrate - 1.96 * math.sqrt(played.winrate * (1 - played.winrate) / 40) \
        < most.winrate - 1.96 * math.sqrt(most.winrate * (1 - most.winrate) / 385)
    assert played.lcb == pytest.approx((0.25 - 3 * 0.1 / math.sqrt(40) + 1) / 2)
    assert most.lcb == pytest.approx((0.12 - 3 * 0.9 / math.sqrt(385) + 1) / 2)
    assert played.lcb > most.lcb
    # a move below a tenth of the visits is never chosen: its lcb is at most
    # the binomial one, not its narrow bound from 20 alike values
    assert few.lcb == pytest.approx(0.95 - 1.96 * math.sqrt(0.95 * 0.05 / 20))
    assert few.lcb < (0.9 - 3 * 0.05 / math.sqrt(20) + 1) / 2
    search.lcb_z = 0  # off: the binomial bound of the win rate, as before
    assert search.results(root)[0].lcb == pytest.approx(
        0.56 - 1.96 * math.sqrt(0.56 * 0.44 / 385))


def test_a_better_mean_from_few_or_scattered_visits_is_not_played():
    search = PUCTSearch(CountingEvaluator())
    # below a tenth of the most visited move's visits: not a candidate
    assert search.chosen_action(searched_root([(10, 385, 0.12, 0.2), (20, 30, 0.5, 0.2)])) == 10
    # its values so scattered that three standard errors reach below the other's bound
    assert search.chosen_action(searched_root([(10, 385, 0.12, 0.2), (20, 56, 0.34, 0.9)])) == 10
    # a struck move is never chosen, however good it looked
    root = searched_root([(10, 385, 0.12, 0.2), (20, 56, 0.34, 0.2)])
    root.strike(20)
    assert search.chosen_action(root) == 10


def test_the_lcb_option_reaches_the_search():
    assert create_algorithm("mcts", model="none", lcb_z=0).search.lcb_z == 0
    assert create_algorithm("mcts", model="none").search.lcb_z > 0
    with pytest.raises(ValueError):
        create_algorithm("mcts", model="none", lcb_z=-1)


def test_forced_playouts_apply_with_a_network_up_to_13x13():
    # KataGo's forced root visits help a network's search on 9x9 and 13x13;
    # on 19x19 they spread too few visits over too many moves, and uniform
    # playout priors would spread them over every point
    alg = create_algorithm("mcts", model=CountingEvaluator(), visits=8, seed=1)
    for size, wanted in ((9, 2.0), (13, 2.0), (19, 0.0), (9, 2.0)):
        alg.choose_move(GameState(size, komi=7.5), BLACK)
        assert alg.search.forced_playouts == wanted, size
    playouts = create_algorithm("mcts", model="none", visits=8, seed=1)
    playouts.choose_move(GameState(9, komi=7.5), BLACK)
    assert playouts.search.forced_playouts == 0.0


def test_analysis_sets_the_search_up_for_the_boards_size():
    # GUIs analyse a new board before any move is searched on it: the
    # analysis search must not keep the last size's settings (nor, with
    # shipped networks, the last size's network)
    from imago.engine.engine import GameEngine
    from imago.gtp.commands import Session, execute

    alg = create_algorithm("mcts", model=CountingEvaluator(), visits=8, seed=1)
    engine = GameEngine(alg, size=9)
    session = Session(engine)
    execute(session, "genmove", ["b"])
    assert alg.search.forced_playouts == 2.0
    execute(session, "boardsize", ["19"])
    assert engine.analysis_search().forced_playouts == 0.0
    execute(session, "boardsize", ["3"])
    execute(session, "imago-policy", ["b"])  # GoGui's policy display searches on 3x3
    assert alg.search.evaluator is alg.playouts
    execute(session, "imago-params", ["forced_playouts", "3"])  # its parameters: no set-up
    assert alg.search.forced_playouts == 3.0
