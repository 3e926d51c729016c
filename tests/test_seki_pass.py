"""Seki, the end of the game and resignation: positions made for these
tests (diagrams below; ``X`` Black, ``O`` White, row 1 of a diagram is the
top of the board)."""

from __future__ import annotations

from typing import Optional

import numpy as np
import pytest

from imago.engine.algorithm import RESIGN, create_algorithm
import imago.search.puct as puct
from imago.game import (BLACK, EMPTY, WHITE, GameState, area_counts, area_score, count,
                        dead_stones, final_ownership, index_to_vertex, vertex_to_index)
from imago.game.counting import seki_taxed_owners, seki_taxed_score
from imago.nn.evaluator import Evaluation
from imago.search import PUCTSearch, action_of
from imago.game.seki import losing_self_atari, seki_survivors, semeai_races
from imago.search.tactics import fillable_dame, open_points


def game_from(rows, komi: float = 7.5, handicap: int = 0) -> GameState:
    """A game whose root sets up the diagram ``rows`` (top row first)."""
    size = len(rows)
    game = GameState(size, komi=komi)
    black, white = [], []
    for r, line in enumerate(rows):
        cells = line.split()
        assert len(cells) == size, line
        for c, ch in enumerate(cells):
            if ch in "XO":
                (black if ch == "X" else white).append(game.point(c, r))
    game.root.add_setup(black=black, white=white)
    game.handicap = handicap
    return game


def diagram(text: str) -> list[str]:
    return [line.strip() for line in text.strip().splitlines()]


def seki_rows(size: int) -> list[str]:
    """A finished position on any board: in the top-left corner Black's
    A8-A7-B7 and White's B9-C9-C8-C7 (on 9x9) have no eye and share the
    liberties A9 and B8, a seki (whoever fills one is captured); White's
    wall below it lives with eyes on the A column, Black's area runs from
    the C column to the third column from the right, White's wall and
    territory take the last two. Every border is closed."""
    rows = []
    last = size - 3  # Black's last column
    for r in range(size):
        row = ["."] * size
        if r < 3:
            row[:3] = [". O O", "X . O", "X X O"][r].split()
            first = 3
        else:
            row[:2] = ["O", "O"] if (r - 3) % 2 == 0 else [".", "O"]
            first = 2
        eyes = r in (0, 2) or (r >= 3 and (r - 3) % 2 == 1)
        for c in range(first, last + 1):
            row[c] = "." if eyes and (c - first) % 2 == 1 and c < last else "X"
        row[size - 2] = "O"
        rows.append(" ".join(row))
    return rows


def seki_points(size: int) -> set[int]:
    return {vertex_to_index(v, size) for v in (f"A{size}", f"B{size - 1}")}


class Uniform:
    """Uniform priors, value 0, no score."""

    history = 1

    def evaluate(self, leaves):
        size = leaves[0].board.size
        return np.ones((len(leaves), size * size + 1)), np.zeros(len(leaves))


class Tempter(Uniform):
    """Nearly all the prior on ``points``: a network that wants to play them."""

    def __init__(self, points):
        self.points = list(points)

    def evaluate(self, leaves):
        priors, values = super().evaluate(leaves)
        size = leaves[0].board.size
        priors[:] = 0.01
        for p in self.points:
            priors[:, action_of(p, size)] = 50.0
        return priors, values


class AreaEvaluator:
    """Uniform priors; the Tromp-Taylor area of the position as the score
    (margins), and a value that follows it: sure wins for a large lead."""

    history = 1

    def __init__(self, priors=None):
        self.priors = priors  # {point: weight}

    def evaluate(self, leaves):
        size = leaves[0].board.size
        priors = np.ones((len(leaves), size * size + 1))
        for p, weight in (self.priors or {}).items():
            priors[:, action_of(p, size)] = weight
        margins = np.array([self.margin(leaf) for leaf in leaves])
        komi = np.array([leaf.komi if leaf.to_move == BLACK else -leaf.komi for leaf in leaves])
        return Evaluation(priors, np.tanh((margins - komi) / 3.0), margins)

    def margin(self, leaf) -> float:
        """The area lead of the player to move, komi left out."""
        area = area_score(leaf.board, 0.0)
        return area if leaf.to_move == BLACK else -area


def network_or_skip() -> str:
    from imago.nn.evaluator import default_model_path
    if default_model_path() is None:
        pytest.skip("the shipped network (or TensorFlow) is not installed")
    return "default"


# ------------------------------------------------------------------ seki
@pytest.mark.parametrize("size", [9, 13, 19])
def test_a_seki_liberty_is_a_losing_self_atari_for_both(size):
    game = game_from(seki_rows(size))
    board = game.board
    for color in (BLACK, WHITE):
        losing = {p for p in board.legal_moves(color) if losing_self_atari(board, p, color)}
        assert losing == seki_points(size), (color, [index_to_vertex(p, size) for p in losing])


@pytest.mark.parametrize("size", [9, 19])
def test_the_search_never_fills_a_seki_liberty(size):
    """An evaluator that puts its prior on the seki's liberties: neither
    side's search tries them, at the root or one move down."""
    seki = seki_points(size)
    game = game_from(seki_rows(size))
    for color in (BLACK, WHITE):
        search = PUCTSearch(Tempter(seki), batch_size=8, seed=1)
        root = search.run(game, color, visits=200, allow_pass=False)
        actions = {action_of(p, size) for p in seki}
        assert not actions & set(root.open_actions().tolist())
        assert not actions & set(root.moves.tolist())
        for child in root.children:
            if child.expanded:
                assert not actions & set(child.moves.tolist())
        assert all(r.point not in seki for r in search.results())
        # the option gives them back
        search = PUCTSearch(Tempter(seki), batch_size=8, seed=1, self_atari=True)
        root = search.run(game, color, visits=50, allow_pass=False)
        assert search.point_of(root.best_action()) in seki


ONE_EYE_EACH = diagram("""
    . X . O . O X . X
    X X X O O O X X X
    O O O X X X X . X
    . O X X . X X X X
    O O X . X X . X X
    . O X X X X X X X
    O O X . X . X . X
    . O X X X X X X X
    O O X . X . X . X
""")
"""Black's B9-A8-B8-C8 has the eye A9, White's D9-D8-E8-F8-F9 the eye E9;
they share C9, and each is shut in by the other's living wall: a seki
that whoever fills C9 loses."""


def test_a_seki_with_an_eye_each():
    game = game_from(ONE_EYE_EACH)
    board = game.board
    c9 = vertex_to_index("C9", 9)
    for color, eye in ((BLACK, "A9"), (WHITE, "E9")):  # filling one's own eye loses too
        losing = {p for p in board.legal_moves(color) if losing_self_atari(board, p, color)}
        assert losing == {c9, vertex_to_index(eye, 9)}, [index_to_vertex(p, 9) for p in losing]
    search = PUCTSearch(Tempter([c9]), batch_size=4, seed=1)
    root = search.run(game, WHITE, visits=100, allow_pass=False)
    assert search.point_of(root.best_action()) != c9


@pytest.mark.parametrize("model", ["none", "network"])
def test_imago_passes_or_plays_elsewhere_in_a_seki(model):
    if model == "network":
        model = network_or_skip()
    seki = seki_points(9)
    for color, komi in ((BLACK, 7.5), (WHITE, 7.5), (WHITE, 20.5), (BLACK, 20.5)):
        alg = create_algorithm("mcts", model=model, visits=100, seed=1)
        move = alg.choose_move(game_from(seki_rows(9), komi), color)
        assert move not in seki and move != RESIGN, (color, komi)


@pytest.mark.parametrize("to_move", [BLACK, WHITE])
def test_the_count_keeps_a_seki_alive(to_move):
    """Random playouts fill the seki's liberties, so the playouts alone call
    White's B9 string dead (Black ahead by 13.5); nobody can approach it,
    so the one count keeps both sides alive whoever is to move, and their
    shared liberties A9 and B8 are nobody's: Black 45, White 34, B+3.5."""
    game = game_from(seki_rows(9))
    board = game.board
    estimate = final_ownership(board, to_move)
    assert vertex_to_index("B9", 9) in dead_stones(board, estimate)  # what playouts say
    assert seki_survivors(board, [vertex_to_index("B9", 9)])
    judged = count(board, game.rules, to_move)
    assert judged.settled and not judged.dead
    assert vertex_to_index("B9", 9) in judged.seki and vertex_to_index("A8", 9) in judged.seki
    assert all(judged.owners[p] == EMPTY for p in seki_points(9))
    assert (judged.black, judged.white, judged.result) == (45, 34, "B+3.5")


@pytest.mark.parametrize("to_move", [BLACK, WHITE])
def test_a_seki_with_an_eye_each_counts_its_eyes_and_leaves_the_shared_point(to_move):
    """Each side's eye is its own point, the shared C9 nobody's, whoever is
    to move (the playouts alone called B+19.5 or B+43.5 by the side to
    move, killing one side or the other)."""
    game = game_from(ONE_EYE_EACH)
    judged = count(game.board, game.rules, to_move)
    owners = {v: judged.owners[vertex_to_index(v, 9)] for v in ("A9", "C9", "E9")}
    assert owners == {"A9": BLACK, "C9": EMPTY, "E9": WHITE}
    assert not judged.dead and judged.result == "B+30.5"


def test_territory_scoring_counts_a_sekis_eyes_for_nobody():
    """Japanese rules' seki tax: the eyes A9 and E9 are nobody's; the
    shared C9 stays so; every other point counts as by area, less the
    stones (setup stones count as put on the board)."""
    area = count(game_from(ONE_EYE_EACH).board, game_from(ONE_EYE_EACH).rules, BLACK)
    game = game_from(ONE_EYE_EACH)
    game.scoring = "territory"
    judged = game.count()
    owners = {v: judged.owners[vertex_to_index(v, 9)] for v in ("A9", "C9", "E9")}
    assert owners == {"A9": EMPTY, "C9": EMPTY, "E9": EMPTY}
    assert (judged.black, judged.white) == (area.black - 1, area.white - 1)
    assert judged.komi == 7.5 + game.stone_difference()
    assert judged.score == pytest.approx(area.score - game.stone_difference())


def test_a_line_of_the_search_ending_in_a_seki_counts_its_eyes_for_nobody_by_territory(
        monkeypatch):
    """A finished line of the search (two passes) is counted as the game
    would be: under territory scoring the seki's eyes A9 and E9 are
    nobody's, a point less for each side than by area (the search's komi
    holds the stones played)."""
    game = game_from(ONE_EYE_EACH)
    board = game.board
    owners = seki_taxed_owners(board)
    assert {v: owners[vertex_to_index(v, 9)] for v in ("A9", "C9", "E9")} == \
        {"A9": EMPTY, "C9": EMPTY, "E9": EMPTY}
    black, white = area_counts(board)
    assert (owners.count(BLACK), owners.count(WHITE)) == (black - 1, white - 1)
    assert seki_taxed_score(board, 7.5) == black - white - 7.5
    search = PUCTSearch(AreaEvaluator(), batch_size=4, seed=1)
    game.scoring = "territory"
    search.set_root(game, BLACK)
    calls = []
    monkeypatch.setattr(puct, "seki_taxed_score",
                        lambda *args: calls.append(args) or seki_taxed_score(*args))
    assert search._terminal_score(board, WHITE, 7.5) == -(black - white - 7.5)
    assert len(calls) == 1  # by territory; by area the plain area count
    game.scoring = "area"
    search.set_root(game, BLACK)
    assert search._terminal_score(board, WHITE, 7.5) == -(black - white - 7.5)  # one eye each
    assert len(calls) == 1


SEKI_WITH_A_CAPTURE_INSIDE = diagram("""
    . . . . . . . . .
    . . . . . . . . .
    O O O O O O O O O
    . . . . . . . . .
    O O O O O O O O O
    X X X X X X X X X
    X X X X X O O O O
    X . X X X O O O O
    X X X X . O . X O
""")
"""White's corner F1-J3 and Black's wall share E1; Black has the eye B2,
White can take H1 at G1 and make an eye there; Black can play neither E1
(it would be captured) nor G1 (suicide): a seki, though one of White's
liberties is a move White may safely play."""


@pytest.mark.parametrize("to_move", [BLACK, WHITE])
def test_a_seki_whose_owner_can_still_capture_inside_stays_alive(to_move):
    """The seki stays; Black's H1, in atari inside White's eye space, is
    dead: White may take it whenever it likes (and makes the eye it then
    counts), Black can neither save it nor approach White."""
    game = game_from(SEKI_WITH_A_CAPTURE_INSIDE)
    judged = count(game.board, game.rules, to_move)
    assert judged.dead == (vertex_to_index("H1", 9),)
    assert judged.owners[vertex_to_index("E1", 9)] == EMPTY
    assert judged.owners[vertex_to_index("G1", 9)] == WHITE
    assert judged.result == "W+41.5"


SEMEAI_WITH_A_NAKADE = diagram("""
    . . . . . . . . .
    . . . . . . . . .
    X X X . . . . . .
    O O X X . . . . .
    . O O X X . . . .
    X X O O X . . . .
    . X X O X . . . .
    O O O O X . . . .
    X X X X X . . . .
""")
"""White's eyeless string A2-D4-A6 and Black's A4-B4-B3-C3 inside it share
their only liberties, A5 and A3. No seki: Black's A3 gives five stones away
in the bulky five, White's capture at A5 leaves it that one eye, and
Black's B3 kills; White can fill neither point."""


@pytest.mark.parametrize("to_move", [BLACK, WHITE])
def test_a_capturing_race_with_a_nakade_inside_is_no_seki_whoever_is_to_move(to_move):
    game = game_from(SEMEAI_WITH_A_NAKADE)
    judged = count(game.board, game.rules, to_move)
    assert not judged.seki
    assert sorted(index_to_vertex(p, 9) for p in judged.dead) == [
        "A2", "A6", "B2", "B5", "B6", "C2", "C4", "C5", "D2", "D3", "D4"]
    assert judged.result == "B+73.5"


def test_self_play_labels_a_seki_as_the_count_does():
    """A self-play game that ends in a seki is scored, and its final
    ownership labelled, with both sides alive: the value and ownership
    targets must not teach the network that a seki dies."""
    from imago.training.data import counted_ownership
    from imago.training.selfplay import finish

    game = game_from(seki_rows(9))
    assert finish(game) == "B+3.5"
    own = counted_ownership(game).reshape(9, 9)
    assert own[0, 1] == -1 and own[1, 0] == 1    # B9 White's, A8 Black's: both alive
    assert own[0, 0] == 0 and own[1, 1] == 0     # A9 and B8, the shared liberties


# ------------------------------------------------------------------ sacrifices
SNAPBACK = diagram("""
    . X O O . O X . .
    . X X O . O X . .
    . . X X X X X . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
""")
"""White's C9-D9-D8 and F9-F8 share the liberties E9 and E8: Black's
throw-in at E9 is a one-stone self-atari; if White takes at E8, Black
takes back the five stones at E9 (a snapback)."""


def test_a_one_stone_throw_in_is_still_played():
    game = game_from(SNAPBACK)
    board = game.board
    e9 = vertex_to_index("E9", 9)
    assert not losing_self_atari(board, e9, BLACK)
    search = PUCTSearch(Tempter([e9]), batch_size=4, seed=1)
    root = search.run(game, BLACK, visits=60)
    assert search.point_of(root.best_action()) == e9
    # and the network's search finds the capture (E9 or E8 both kill)
    model = network_or_skip()
    alg = create_algorithm("mcts", model=model, visits=200, seed=1)
    move = alg.choose_move(game, BLACK)
    assert index_to_vertex(move, 9) in ("E9", "E8")


def test_a_nakade_is_allowed_and_running_into_atari_is_not():
    """White's corner group has the square eye space A9-B9-A8-B8 and no
    other liberty, with Black's A9-B9 inside: a third stone there is a
    self-atari, but White's capture leaves a bent three whose vital point
    Black takes next (a nakade). Black's H5, in atari, gains nothing by
    running to H4: still in atari."""
    rows = diagram("""
        X X O X . . . . .
        . . O X . . . . .
        O O O X . . . . .
        X X X X . . . O .
        . . . . . . O X O
        . . . . . . O . O
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """)
    board = game_from(rows).board
    for v in ("A8", "B8"):
        assert not losing_self_atari(board, vertex_to_index(v, 9), BLACK), v
    assert losing_self_atari(board, vertex_to_index("H4", 9), BLACK)


# ------------------------------------------------------------------ passing
@pytest.mark.parametrize("size", [9, 19])
def test_passes_when_every_border_is_closed(size):
    """Only the seki's liberties are left, and no one can win them
    back: the leader passes, with or without the opponent's pass; the
    other side passes too, and passes back once the opponent passed (the
    game ends with its score; no search runs)."""
    from imago.engine.mcts_algorithm import MCTSAlgorithm

    even = MCTSAlgorithm.judge(game_from(seki_rows(size), 0)).score  # 11 on 9x9
    for leader, komi in ((BLACK, even - 5.5), (WHITE, even + 5.5)):
        game = game_from(seki_rows(size), komi)
        assert open_points(game.board) == 2
        alg = create_algorithm("mcts", model="none", visits=50, seed=1)
        assert alg.choose_move(game, leader) is None, (leader, komi)
        assert alg.choose_move(game, 3 - leader) is None
        game.play(3 - leader, None)
        assert alg.choose_move(game, leader) is None
        game.undo()
        game.play(leader, None)
        assert alg.choose_move(game, 3 - leader) is None and alg.summary() is None


DEAD_STONE = diagram("""
    . X . X X O . O .
    X X X X X O O O O
    . X . . . X O . O
    X X . O . X O O O
    . X . . . X O . O
    X X X X X X O O O
    . X . X X O O . O
    X X X X X O . O O
    . X . X X O . O .
""")
"""Black's area holds White's dead D6: with it removed Black has 49
points to White's 32; counted as it stands, D6 makes the points around
it neutral, and Black has 40 to White's 33."""


def test_passes_back_when_the_count_with_dead_stones_wins():
    game = game_from(DEAD_STONE, komi=10.5)
    board = game.board
    assert area_score(board, 10.5) < 0 < area_score(board, 10.5, [vertex_to_index("D6", 9)])
    game.play(WHITE, None)
    alg = create_algorithm("mcts", model="none", visits=50, seed=1)
    assert alg.choose_move(game, BLACK) is None
    assert alg.choose_move(game_from(DEAD_STONE, komi=10.5), BLACK) is None


OPEN_BORDER = diagram("""
    . X . X X O . O .
    X X X X X O O O O
    . X . . . . . . .
    X X . . . . . O O
    . X . . . . . . O
    X X X . . . . O O
    . X . X . . O . O
    X X X X X O . O O
    . X . X X O . O .
""")
"""Black and White walls with the middle still open: many points to
gain."""


@pytest.mark.parametrize("model", ["none", "network"])
def test_does_not_pass_while_a_border_is_open(model):
    if model == "network":
        model = network_or_skip()
    alg = create_algorithm("mcts", model=model, visits=100, seed=1)
    for komi in (-20.5, 7.5):
        game = game_from(OPEN_BORDER, komi)
        game.play(WHITE, vertex_to_index("J1", 9))  # a move, so Black is to move
        assert alg.choose_move(game, BLACK) not in (None, RESIGN)


def in_danger_rows() -> list[str]:
    """The closed seki position, but White's wall below the seki has a
    straight three (A7-A8-A9 of the diagram's bottom) for its only eye
    space: White must take its vital point or die."""
    rows = seki_rows(9)
    rows[3:] = [line for line in diagram("""
        O O X X X X X O .
        O O X . X . X O .
        O O X X X X X O .
        . O X . X . X O .
        . O X X X X X O .
        . O X . X . X O .
    """)]
    return rows


@pytest.mark.parametrize("model", ["none", "network"])
def test_does_not_pass_while_a_group_is_in_danger(model):
    if model == "network":
        model = network_or_skip()
    game = game_from(in_danger_rows(), komi=30.5)  # White far ahead by komi
    alg = create_algorithm("mcts", model=model, visits=200, seed=1)
    move = alg.choose_move(game, WHITE)
    assert move not in (None, RESIGN)
    if model != "none":
        assert index_to_vertex(move, 9) == "A2"


class HiddenRace(AreaEvaluator):
    """The area count, except that White wins by 20 points once it has a
    stone on ``point``: a capturing race the count cannot see, which only
    the search (its evaluator) reads. ``pass_prior``: the pass's weight
    among the moves' 1 (20, a network's share; 0.001, a pass selection
    would never try)."""

    def __init__(self, point: Optional[int], pass_prior: float = 20.0):
        super().__init__(priors={None: pass_prior})
        self.point = point

    def margin(self, leaf) -> float:
        if self.point is not None and leaf.board.cells[self.point] == WHITE:
            return -20.0 if leaf.to_move == BLACK else 20.0
        return super().margin(leaf)


@pytest.mark.parametrize("pass_prior", [20.0, 0.001])
def test_a_game_the_count_calls_over_is_played_on_when_the_search_wins_more(pass_prior):
    """Black leads the closed seki position by 5.5 and the count calls the
    game over; White to move plays on where its search finds a win (a race
    the count settled the wrong way), and passes where it finds none, also
    when the priors give the pass nothing (it is searched all the same)."""
    from imago.engine.mcts_algorithm import MCTSAlgorithm

    even = MCTSAlgorithm.judge(game_from(seki_rows(9), 0)).score
    game = game_from(seki_rows(9), even - 5.5)
    alg = create_algorithm("mcts", model="none", visits=300, seed=1)
    judged = alg.judge(game)
    assert judged.settled and judged.winner == BLACK and alg._game_is_over(game, judged, WHITE)
    j5 = vertex_to_index("J5", 9)  # in White's territory: a move that costs nothing
    alg.playouts = HiddenRace(j5, pass_prior)
    assert alg.choose_move(game, WHITE) == j5
    alg = create_algorithm("mcts", model="none", visits=300, seed=1)
    alg.playouts = HiddenRace(None, pass_prior)  # no race: nothing to gain
    assert alg.choose_move(game, WHITE) is None


ONE_DAME = diagram("""
    . X . X O . O . O
    X X X X O O O O O
    . X . X O . O . O
    X X X X O O O O O
    . X . X . O . O .
    X X X X O O O O O
    . X . X O . O . O
    X X X X O O O O O
    . X . X O . O . O
""")
"""Both sides alive with eyes, every border closed but E5, a dame between
Black's D5 and White's wall: Black 36 points, White 44, one neutral."""


@pytest.mark.parametrize("color", [BLACK, WHITE])
def test_a_game_the_count_calls_over_still_fills_its_dame(color):
    """Black leads by 5.5 or 6.5 (komi -13.5; the count gives the dame to
    whom its playouts do) and the count calls the game over (the margin
    is larger than the one dame): the winner and the loser
    alike fill E5 rather than pass, a point by area that the opponent
    would otherwise take, though no win rate changes with it. Once it is
    filled, nothing is left and both pass."""
    from imago.engine.mcts_algorithm import MCTSAlgorithm

    game = game_from(ONE_DAME, komi=-13.5)
    judged = MCTSAlgorithm.judge(game)
    assert judged.settled and open_points(game.board) == 1
    assert fillable_dame(game.board, color) == 1
    assert MCTSAlgorithm._game_is_over(game, judged, color)
    e5 = vertex_to_index("E5", 9)
    alg = create_algorithm("mcts", model="none", visits=300, seed=1)
    alg.playouts = AreaEvaluator()
    assert alg.choose_move(game, color) == e5
    game.play(color, e5)
    for player in (BLACK, WHITE):
        alg = create_algorithm("mcts", model="none", visits=300, seed=1)
        alg.playouts = AreaEvaluator()
        assert alg.choose_move(game, player) is None, player


class DameUndervalued(AreaEvaluator):
    """The area count, except that a stone of ``color`` on ``dame`` counts
    ``discount`` points less for it: a network that sees the dame's point
    only in part, as networks judging a finished position do."""

    def __init__(self, color: int, dame: int, discount: float = 0.8):
        super().__init__()
        self.color, self.dame, self.discount = color, dame, discount

    def margin(self, leaf) -> float:
        margin = super().margin(leaf)
        if leaf.board.cells[self.dame] == self.color:
            margin += -self.discount if leaf.to_move == self.color else self.discount
        return margin


@pytest.mark.parametrize("color", [BLACK, WHITE])
def test_a_dame_is_filled_though_the_search_sees_less_than_its_point(color):
    """As above, with leads that value the filled dame 0.8 points short of
    its point: the search's lead for E5 over the pass falls within noise
    of nothing (a few visits of the pass against hundreds of the move), and
    a dame is filled all the same unless the pass leads by a point."""
    game = game_from(ONE_DAME, komi=-13.5)
    e5 = vertex_to_index("E5", 9)
    alg = create_algorithm("mcts", model="none", visits=300, seed=1)
    alg.playouts = DameUndervalued(color, e5)
    assert alg.choose_move(game, color) == e5
    alg = create_algorithm("mcts", model="none", visits=300, seed=1)
    alg.playouts = DameUndervalued(color, e5, discount=3.0)  # the search: E5 loses points
    assert alg.choose_move(game, color) is None


class Flat:
    """Every position of OPEN_BORDER's game scored as the position itself
    counts by area (Black 33 to 24: the score a game ended by two passes
    gets), a sure win for Black, or 3 points more for Black once Black has
    a stone on ``best``. The priors favour ``best`` (default A9) and the
    pass over the other moves."""

    history = 1
    komi = 0.0

    def __init__(self, best: int):
        self.best = best

    def evaluate(self, leaves):
        size = leaves[0].board.size
        sign = np.array([1.0 if leaf.to_move == BLACK else -1.0 for leaf in leaves])
        gained = np.array([leaf.board.cells[self.best] == BLACK for leaf in leaves])
        margins = sign * (9.0 + 3.0 * gained * (self.best != A9))
        priors = np.ones((len(leaves), size * size + 1))
        priors[:, action_of(self.best, size)] = 10.0
        priors[:, -1] = 3.0
        return Evaluation(priors, 0.95 * sign, margins)


A9 = vertex_to_index("A9", 9)


def test_passes_when_the_score_says_no_move_gains():
    """Won and settled, but the border is open, so only the search can
    tell whether a move gains: by an evaluator that scores every position
    alike, none does and Black passes (though A9 has the most visits); by
    one that gives C5 3 points, Black plays it."""
    game = game_from(OPEN_BORDER, komi=0.5)
    assert open_points(game.board) is None
    c5 = vertex_to_index("C5", 9)
    for best, expected in ((A9, None), (c5, c5)):
        alg = create_algorithm("mcts", model="none", visits=300, seed=1)
        alg.playouts = Flat(best)
        assert alg.choose_move(game, BLACK) == expected
        assert alg.search.point_of(alg.search.root.best_action()) == best


# ------------------------------------------------------------------ endgame
ENDGAME = diagram("""
    . X . X X O . O .
    X X X . X O O O O
    . X . . X O . O .
    X X . . X O O O O
    . X . . . O . O .
    X X . . X O O O O
    . X . . X O . O .
    X X X X X O O O O
    . X . X . O . O .
""")
"""Black wins whatever happens (komi -10.5); E5 closes Black's wall
around the 11 points C3-D8 (worth 12 points; D5 behind it, one less), E1
is a dame (worth 1)."""


def test_takes_the_biggest_endgame_move_when_every_move_wins():
    game = game_from(ENDGAME, komi=-10.5)
    e5, e9 = vertex_to_index("E5", 9), vertex_to_index("E1", 9)
    # the prior prefers the small move: only the score can tell them apart
    search = PUCTSearch(AreaEvaluator({e9: 20.0}), batch_size=4, seed=1)
    root = search.run(game, BLACK, visits=400, early_stop=False)
    results = {r.point: r for r in search.results(limit=100)}
    assert results[e5].winrate > 0.9 and results[e9].winrate > 0.9
    assert results[e5].score_lead > results[e9].score_lead + 5
    # E5, or D5 next to it, which the area count values as much
    assert index_to_vertex(search.point_of(root.best_action()), 9) in ("E5", "D5")
    # by the win rate alone, the prior's small move
    search = PUCTSearch(AreaEvaluator({e9: 20.0}), batch_size=4, seed=1, score_utility=0)
    root = search.run(game, BLACK, visits=400, early_stop=False)
    assert search.point_of(root.best_action()) == e9


def test_the_network_takes_the_biggest_endgame_move():
    model = network_or_skip()
    alg = create_algorithm("mcts", model=model, visits=200, seed=1)
    move = alg.choose_move(game_from(ENDGAME, komi=-10.5), BLACK)
    assert index_to_vertex(move, 9) in ("E5", "D5")  # D5 lets White have E5 only


# ------------------------------------------------------------------ resigning
class Verdict:
    """Every position is lost for White (win rate 1%) by ``lead`` points."""

    history = 1

    def __init__(self, lead: float):
        self.lead = lead

    def evaluate(self, leaves):
        size = leaves[0].board.size
        n = len(leaves)
        sign = np.array([1.0 if leaf.to_move == BLACK else -1.0 for leaf in leaves])
        priors = np.ones((n, size * size + 1))
        komi = np.array([leaf.komi for leaf in leaves])
        return Evaluation(priors, 0.98 * sign, sign * (self.lead + komi))


def resigning_algorithm(lead: float):
    alg = create_algorithm("mcts", model="none", visits=40, seed=1)
    alg.playouts = alg.search.evaluator = Verdict(lead)
    return alg


def moves_into_19x19(count: int, handicap: int = 0) -> GameState:
    game = GameState(19, komi=0.5 if handicap else 7.5)
    if handicap:
        game.set_fixed_handicap(handicap)
    color = WHITE if handicap else BLACK
    rng = np.random.default_rng(3)
    for _ in range(count):
        empties = game.board.empties
        point = empties[int(rng.integers(len(empties)))]
        while game.board.illegal_reason(point, color) is not None:
            point = empties[int(rng.integers(len(empties)))]
        game.play(color, point)
        color = 3 - color
    return game


def test_resigns_on_19x19_only_when_lost_by_far_and_late_enough():
    # 60 moves into an even game, White 40 points behind: resigns on the
    # third search in a row
    game = moves_into_19x19(61)
    assert game.to_move == WHITE
    alg = resigning_algorithm(40.0)
    answers = [alg.choose_move(game, WHITE) for _ in range(3)]
    assert answers[:2] != [RESIGN, RESIGN] and answers[2] == RESIGN
    # 5 points behind is close on 19x19: plays on
    alg = resigning_algorithm(5.0)
    assert all(alg.choose_move(game, WHITE) != RESIGN for _ in range(4))
    # the same lost position 20 moves in: too early
    early = moves_into_19x19(21)
    alg = resigning_algorithm(40.0)
    assert all(alg.choose_move(early, WHITE) != RESIGN for _ in range(4))


def test_never_resigns_early_in_a_handicap_game():
    # nine stones, 40 moves in: White is far behind by any count, as it
    # should be, and plays on
    game = moves_into_19x19(40, handicap=9)
    assert game.to_move == WHITE
    alg = resigning_algorithm(60.0)
    assert all(alg.choose_move(game, WHITE) != RESIGN for _ in range(4))
    assert alg.resign_from(game) > 90


RACE_WITH_OUTSIDE_LIBERTIES = diagram("""
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . O O
    . . . . . O O O .
    . . . . O . X X X
""")
"""Black's G1-H1-J1 has two liberties, F1 and J2, both White's too; White's
F2-J3 string has five more. Black can play neither of its own (each is a
losing self-atari: E1 and J3 are White's) and White fills them when it
likes: Black is dead whoever moves, though it could play on White's
outside liberties."""


def race_losers(board) -> set[int]:
    """The stones the count's race step kills where the playouts killed
    none."""
    from imago.game.counting import settle_races

    return set(settle_races(board, [], semeai_races(board, []))[0])


def test_a_string_shut_in_against_two_outside_liberties_loses_its_race():
    game = game_from(RACE_WITH_OUTSIDE_LIBERTIES)
    losers = race_losers(game.board)
    assert sorted(index_to_vertex(p, 9) for p in losers) == ["G1", "H1", "J1"]
    judged = count(game.board, game.rules, BLACK)  # by the count, whoever is to move
    assert vertex_to_index("G1", 9) in judged.dead


def test_against_one_outside_liberty_the_race_turns_on_the_move():
    rows = [list(row.split()) for row in RACE_WITH_OUTSIDE_LIBERTIES]
    for vertex in ("E2", "F3", "G3", "J4"):  # black stones on White's outside liberties
        col, row = "ABCDEFGHJ".index(vertex[0]), 9 - int(vertex[1:])
        rows[row][col] = "X"
    game = game_from([" ".join(row) for row in rows])  # White keeps H4 alone
    assert race_losers(game.board) == set()


def test_a_string_that_can_reach_a_friend_is_not_shut_in():
    rows = [list(row.split()) for row in RACE_WITH_OUTSIDE_LIBERTIES]
    rows[8][4] = "."  # no white E1: Black's F1 now has E1 beside it
    game = game_from([" ".join(row) for row in rows])
    assert race_losers(game.board) == set()


def test_a_race_winner_the_playouts_killed_stands_when_it_lives_after_the_capture():
    """As though the playouts had called White's F2-J3 dead and left Black's
    G1-J1 standing: with G1-J1 captured White lives, so the count turns it
    round."""
    from imago.game.counting import settle_races

    game = game_from(RACE_WITH_OUTSIDE_LIBERTIES)
    board = game.board
    white = board.string_stones(vertex_to_index("F2", 9))
    revived, decided = settle_races(board, sorted(white), semeai_races(board, white))
    assert sorted(index_to_vertex(p, 9) for p in revived) == ["G1", "H1", "J1"]
    for to_move in (BLACK, WHITE):
        judged = count(board, game.rules, to_move)
        assert sorted(index_to_vertex(p, 9) for p in judged.dead) == ["G1", "H1", "J1"]
