"""Capturing races the count settles (:func:`imago.game.counting.settle_races`):
a race's winner that still dies after its capture (a nakade), and a race's
loser left in atari that keeps nobody from passing. Positions made for these
tests (``X`` Black, ``O`` White, the top row first)."""

from __future__ import annotations

from imago.engine.algorithm import create_algorithm
from imago.game import BLACK, WHITE, GameState, count, index_to_vertex, vertex_to_index
from imago.game.counting import captures_that_change_nothing, settle_races
from imago.game.seki import nakade_vital_point, semeai_races


def game_from(text: str, komi: float = 7.5) -> GameState:
    rows = [line.split() for line in text.strip().splitlines()]
    game = GameState(len(rows), komi=komi)
    stones = {"X": [], "O": []}
    for r, cells in enumerate(rows):
        for c, cell in enumerate(cells):
            if cell in stones:
                stones[cell].append(game.point(c, r))
    game.root.add_setup(black=stones["X"], white=stones["O"])
    return game


def vertices(points) -> list[str]:
    return sorted(index_to_vertex(p, 9) for p in points)


NAKADE_AFTER_THE_RACE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    X X X X X X X X X
    X X X X X X X X X
    X X X O O O O O O
    X X . O O O O O .
    . X X . O . X X X
"""
"""White's D3-J3 has no eye and four liberties: C2 and D1 outside, F1 and
J2 shared with Black's G1-H1-J1, which can play neither (each a losing
self-atari). White wins the race (F1 or J2 puts G1-J1 in atari) but its
capture leaves a straight three on the edge: Black plays H1, the vital
point, and White, with no other eye, is dead all the same."""

WHITE_STONES = ["E1", "D2", "E2", "F2", "G2", "H2", "D3", "E3", "F3", "G3", "H3", "J3"]


def test_the_vital_point_of_a_captured_shape():
    s = 11  # the 9x9 board's stride
    straight, bent = [100, 101, 102], [100, 101, 101 + s]
    assert nakade_vital_point(straight, s) == 101
    assert nakade_vital_point(bent, s) == 101
    assert nakade_vital_point([100], s) is None
    assert nakade_vital_point([100, 101, 102, 103], s) is None  # straight four lives


def test_a_race_won_by_a_group_the_capture_leaves_with_one_eye_kills_the_winner():
    game = game_from(NAKADE_AFTER_THE_RACE)
    board = game.board
    white = board.string_stones(vertex_to_index("F2", 9))
    assert vertices(white) == sorted(WHITE_STONES)
    races = semeai_races(board, white)
    assert [(vertices(board.string_stones(a)), vertices(board.string_stones(b)))
            for a, b in races] == [(["G1", "H1", "J1"], sorted(WHITE_STONES))]
    dead, decided = settle_races(board, sorted(white), races)
    assert vertices(dead) == sorted(WHITE_STONES)  # White stays dead, G1-J1 stand
    assert set(decided) >= set(white) | set(board.string_stones(vertex_to_index("H1", 9)))
    for to_move in (BLACK, WHITE):
        judged = count(board, game.rules, to_move)
        assert vertices(judged.dead) == sorted(WHITE_STONES), to_move
        assert judged.settled and judged.score == 81 - 7.5


SHUT_IN_IN_ATARI = """
    . . . O . X O O O
    . . . O . X X X .
    . . . O O O O X X
    . . . . . . O O O
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""
"""White's G9-H9-J9 is in atari at J8, where it cannot play (suicide);
Black's F9-J7 has no eye and three liberties, E9, E8 and J8. Black wins
the race, but its capture leaves a straight three: White plays H9 and
Black, with no eye, is dead. Every border is closed (the dead stones
removed), and White's string in atari is no reason to play on."""


def test_a_string_in_atari_a_race_has_settled_does_not_keep_the_game_going():
    game = game_from(SHUT_IN_IN_ATARI)
    board = game.board
    judged = count(board, game.rules, WHITE)
    black = board.string_stones(vertex_to_index("F9", 9))
    assert vertices(judged.dead) == vertices(black)
    assert judged.settled
    assert set(judged.decided) >= set(board.string_stones(vertex_to_index("J9", 9)))
    alg = create_algorithm("mcts", model="none", visits=64, seed=1)
    assert alg._game_is_over(game, judged, WHITE)
    game.play(BLACK, None)
    assert alg.choose_move(game, WHITE) is None  # passes back: the game ends, White wins


RACE_LOST_ON_THE_EDGE = """
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . O O
    . . . . . O O O .
    . . . . O . X X X
"""
"""Black's G1-H1-J1 shares its two liberties, F1 and J2, with White's
E1-J3 strings, which have five more (the open board): it can play neither,
and loses the race whoever moves."""


def test_the_loser_of_a_race_the_playouts_left_standing_is_dead_and_settled():
    game = game_from(RACE_LOST_ON_THE_EDGE)
    board = game.board
    loser = board.string_stones(vertex_to_index("H1", 9))
    dead, decided = settle_races(board, [], semeai_races(board, []))
    assert vertices(dead) == ["G1", "H1", "J1"]
    assert set(decided) >= set(loser)


IN_ATARI_INSIDE_A_DEAD_GROUP = """
    . . . . . O X O .
    . . . . . O X X X
    . . . . . O O O O
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
    . . . . . . . . .
"""
"""White's H9 and Black's G9-J8 share their one liberty, J9. Black may take
H9 there, but then has that one point and White takes everything back at
H9: Black is dead either way, and White's H9 in atari is no reason to play
on (no race: either side may play J9)."""


def test_a_string_in_atari_only_a_dead_group_can_take_does_not_keep_the_game_going():
    game = game_from(IN_ATARI_INSIDE_A_DEAD_GROUP)
    board = game.board
    assert semeai_races(board, []) == []
    judged = count(board, game.rules, WHITE)
    assert vertices(judged.dead) == ["G8", "G9", "H8", "J8"]
    assert vertex_to_index("H9", 9) in judged.decided and judged.settled
    assert captures_that_change_nothing(board, judged.dead) == {vertex_to_index("H9", 9)}
    alg = create_algorithm("mcts", model="none", visits=64, seed=1)
    assert alg._game_is_over(game, judged, WHITE)


def test_a_capture_that_gives_the_capturer_life_is_not_nothing():
    """Told that Black's group is dead (as a count might misread it), the
    check still sees that taking H9 at J9 gives it a second eye beside F9:
    White's H9 in atari matters."""
    game = game_from("""
        . . . O X . X O .
        . . . O X X X X X
        . . . O O O O O O
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
        . . . . . . . . .
    """)
    board = game.board
    black = [p for p in board.on_board() if board.cells[p] == BLACK]
    assert captures_that_change_nothing(board, black) == set()
    assert captures_that_change_nothing(board, []) == set()
