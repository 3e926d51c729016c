"""Small boards solved: 2x2 to 5x5 with komi 0.

Known optimal results (area scoring, positional superko, stones counted as
they stand): 2x2 B+1, 3x3 B+9 (Black opens at the centre), 4x4 B+2, 5x5
B+25. imago's own engine (the search alone below 5x5, proving results from
the lines that end with two passes) must play them in self-play and never
lose to GNU Go; the self-play games on 5x5 and the GNU Go games are slow
(``--run-slow``)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from imago import match
from imago.engine.algorithm import RESIGN, create_algorithm
from imago.game import BLACK, WHITE, GameState, count, index_to_vertex, vertex_to_index

REPO = Path(__file__).resolve().parent.parent
OPTIMAL = {2: 1, 3: 9, 4: 2, 5: 25}
"""Black's lead with perfect play, komi 0."""


def play_out(size: int, seconds: float | None = None, seed: int = 1,
             max_moves: int = 100) -> tuple[GameState, list[str]]:
    """A self-play game of the default engine (one algorithm playing both
    sides, as a GTP engine asked for both colours); the final state and the
    moves as GTP vertices."""
    algorithm = create_algorithm("mcts", seed=seed)
    state = GameState(size, komi=0)
    algorithm.new_game(state)
    moves: list[str] = []
    while not state.is_over and len(moves) < max_moves:
        point = algorithm.choose_move(state, state.to_move, seconds)
        assert point != RESIGN, f"resigned on {size}x{size} after {moves}"
        state.play(state.to_move, point)
        moves.append(index_to_vertex(point, size))
    assert state.is_over, f"no end after {moves}"
    return state, moves


def result(state: GameState) -> str:
    return count(state.board, state.rules, state.to_move).result


def test_small_boards_are_counted_as_the_stones_stand():
    """2x2: White's A2 faces Black's A1-B1, both in atari at B2; playouts
    would capture either way, but the count takes the board as it stands."""
    state = GameState(2, komi=0)
    state.root.add_setup(black=[vertex_to_index("A1", 2), vertex_to_index("B1", 2)],
                         white=[vertex_to_index("A2", 2)])
    judged = count(state.board, state.rules, BLACK)
    assert judged.result == "B+1" and judged.dead == () and judged.settled


def test_the_search_proves_a_2x2_ending_and_passes():
    """White passed after this fight. Black's B2 would capture A2, but
    White's A2 then takes all three stones and the board; White's own B2
    capture is barred by superko. Passing ends the game at B+1, a result
    the search knows exactly (the line ends with two passes): it passes."""
    moves = ["A1", "B2", "B1", "A2", "B1", "A1", "B1", "A2", "A1", "pass"]
    state = GameState(2, komi=0)
    for move in moves:
        state.play(state.to_move, vertex_to_index(move, 2))
    algorithm = create_algorithm("mcts", seed=1)
    assert algorithm.choose_move(state, BLACK) is None
    root = algorithm.search.root
    passed = root.children[int(np.flatnonzero(root.moves == 4)[0])]
    assert passed.terminal and passed.exact == -1.0  # White to move, a point behind
    state.play(BLACK, None)
    assert state.is_over and result(state) == "B+1"


def test_a_proven_root_ends_the_search_early():
    # the 3x3 board after Black's centre and four more moves is proven
    # won for Black well before 4,000 visits
    state = GameState(3, komi=0)
    for move in ("B2", "B1", "B3", "C2", "A2"):
        state.play(state.to_move, vertex_to_index(move, 3))
    algorithm = create_algorithm("mcts", seed=1)
    algorithm.choose_move(state, WHITE)
    root = algorithm.search.root
    assert root.exact is not None and root.total_visits() < 4000


def test_small_boards_are_searched_for_the_score_not_just_the_win():
    """4x4: White has just filled its own liberty; its seven stones are in
    atari at A4. Passing wins for sure (White passes, B+1); capturing wins
    the whole board with best play (B+16 by an exact solver). A search for
    the win alone passes; on the small boards the search plays for the
    score and captures (the search itself: the exact solver, which plays
    4x4 by default, is turned off)."""
    moves = ["C3", "B2", "B3", "C2", "D2", "D3", "A2", "A3", "D4", "A1", "B4", "B1",
             "D3", "pass", "D1", "C1", "pass", "A2"]
    state = GameState(4, komi=0)
    for move in moves:
        state.play(state.to_move, vertex_to_index(move, 4))
    algorithm = create_algorithm("mcts", seed=1, exact_seconds=0)
    assert index_to_vertex(algorithm.choose_move(state, BLACK), 4) == "A4"


@pytest.mark.parametrize("seed", [1, 2])
def test_2x2_self_play_ends_black_plus_1(seed):
    state, moves = play_out(2, seed=seed)
    assert result(state) == "B+1", moves


@pytest.mark.parametrize("seed", [1, 2])
def test_3x3_self_play_takes_the_board_from_the_centre(seed):
    state, moves = play_out(3, seed=seed)
    assert moves[0] == "B2" and result(state) == "B+9", moves


def test_4x4_self_play_ends_black_plus_2():
    """The exact solver plays 4x4 (the empty board takes it about 15 s,
    the rest of the game little: its table keeps what it proved)."""
    state, moves = play_out(4)
    assert result(state) == "B+2", moves


@pytest.mark.parametrize("moves, best, not_this", [
    ("", "C3", None),
    # GNU Go's invasion line: capturing at C5 lets White live in the corner
    # (KataGo at 2,000 visits: D3 B+23, C5 B+11)
    ("C3 C4 B4 B3 D4 C2", "D3", "C5"),
])
def test_the_5x5_network_plays_to_take_the_whole_board(moves, best, not_this):
    """The shipped 5x5 network (the multi-size one taught 5x5 by
    self-play) with 200 visits, komi 0: it plays the move that keeps the
    whole board and knows that it does (a lead of 15 points and more; the
    multi-size network, never shown 5x5, saw +8 after D3)."""
    pytest.importorskip("keras")
    algorithm = create_algorithm("mcts", visits=200, seed=1)
    state = GameState(5, komi=0)
    algorithm.new_game(state)
    for move in moves.split():
        state.play(state.to_move, vertex_to_index(move, 5))
    assert algorithm.networks.for_size(5).path.name == "residual5.keras"
    assert index_to_vertex(algorithm.choose_move(state, state.to_move), 5) == best
    root, search = algorithm.search.root, algorithm.search
    children = {index_to_vertex(search.point_of(int(a)), 5): i for i, a in enumerate(root.moves)}
    chosen = children[best]
    assert root.scores[chosen] / root.visits[chosen] > 15  # Black's lead, the mover's view
    if not_this:
        assert root.visits[chosen] > 2 * root.visits[children[not_this]]


@pytest.mark.slow
@pytest.mark.parametrize("seed", [1, 2])
def test_5x5_self_play_takes_the_board_from_the_centre(seed):
    pytest.importorskip("keras")
    state, moves = play_out(5, seconds=1.0, seed=seed)
    assert moves[0] == "C3" and result(state) == "B+25", moves


@pytest.mark.slow
@pytest.mark.parametrize("size", [2, 3, 4, 5])
def test_never_loses_to_gnugo_on_small_boards(size, gnugo_path, tmp_path, capsys):
    """Two games a size, one with each colour, komi 0, scored by imago's
    count (the rules' count as the stones stand below 5x5): with Black imago
    gets at least the optimal result, with White it concedes no more.
    imago plays with its defaults below 5x5 (4x4: the exact solver), at 1 s
    a move on 5x5."""
    clock = ["--time", "1"] if size >= 5 else []
    status = match.main([
        "--engine1", " ".join([sys.executable, str(REPO / "imagocli.py"), *clock]),
        "--engine2", f"{gnugo_path} --mode gtp --level 10 --chinese-rules --seed {{game}}",
        "--name1", "imago", "--name2", "gnugo", "--games", "2", "--size", str(size),
        "--komi", "0", *clock, "--referee", "imago", "--sgf-dir", str(tmp_path)])
    out = capsys.readouterr().out
    print(out)
    assert status == 0
    games = re.findall(r"^game \d+: B (\S+) - W \S+: (\S+) \(", out, re.M)
    assert len(games) == 2, out
    for black, outcome in games:
        lead = black_lead(outcome, size)
        if black == "imago":
            assert lead >= OPTIMAL[size], out
        else:
            assert lead <= OPTIMAL[size], out


def black_lead(outcome: str, size: int) -> float:
    """Black's lead in a result: B+3 is 3, W+2 is -2, 0 is 0; a win by
    resignation, time or forfeit (B+R, W+T, W+F) counts as the whole board."""
    if outcome == "0":
        return 0.0
    lead = size * size if outcome[2:] in ("R", "T", "F") else float(outcome[2:])
    return lead if outcome[0] == "B" else -lead
