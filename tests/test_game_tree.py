"""The board-light game tree: boards rebuilt on demand equal boards built by
replay, navigation stays cheap, and big trees load in little memory."""

from __future__ import annotations

import random
import subprocess
import sys
import textwrap

import pytest

from conftest import DATA, REPO
from imago.game import BLACK, EMPTY, WHITE, GameBoard, GameState, IllegalMoveError, tree
from imago.sgf import dumps, loads

KOGO = DATA / "sgf-samples" / "glift__test_testdata_Kogo_s_Joseki_Dictionary.sgf"


def replayed(node) -> GameBoard:
    """The position after ``node`` built from scratch: the root's setup,
    then every move and setup below it played on one board."""
    path = node.path_from_root()
    board = GameBoard(node.size)
    root = path[0]
    if root.has_setup:
        board.set_stones(root.setup.get(BLACK, []), root.setup.get(WHITE, []),
                         root.setup.get(EMPTY, []))
    for step in path[1:]:
        if step.color is not None:
            board.play(step.point, step.color)
        else:
            setup = step.setup if step.has_setup else {}
            board.set_stones(setup.get(BLACK, []), setup.get(WHITE, []), setup.get(EMPTY, []))
    return board


def assert_same(board: GameBoard, expected: GameBoard) -> None:
    assert board.cells == expected.cells
    assert board.hash == expected.hash
    assert board.history == expected.history
    assert (board.ko_point, board.ko_color) == (expected.ko_point, expected.ko_color)
    assert sorted(board.empties) == sorted(expected.empties)
    for p in board.on_board():
        if board.cells[p] in (BLACK, WHITE):
            assert board.liberties(p) == expected.liberties(p)
            assert sorted(board.string_stones(p)) == sorted(expected.string_stones(p))


def random_tree(rng: random.Random, size: int = 7, nodes: int = 400) -> GameState:
    """A game with variations: random legal moves (passes, captures and ko
    fights included), now and then from an earlier node, a setup node or
    an empty node."""
    game = GameState(size)
    color = BLACK
    for _ in range(nodes):
        roll = rng.random()
        if roll < 0.08 and game.current.number:
            for _ in range(rng.randrange(1, 12)):
                game.back()
        elif roll < 0.11:
            empty = game.current.board.empties
            stone = [rng.choice(empty)] if empty else []
            game.goto(game.current.add_setup_child(black=stone))
            continue
        elif roll < 0.13:
            game.goto(game.current.add_setup_child())
            continue
        board = game.board
        point = board.random_move(color, rng) if rng.random() > 0.05 else None
        game.play(color, point)
        color = 3 - color
    return game


@pytest.mark.parametrize("seed", range(4))
def test_rebuilt_boards_equal_replayed_boards(seed, monkeypatch):
    # a short distance between kept boards and a small cache, so that most
    # lookups rebuild
    monkeypatch.setattr(tree, "KEEP_EVERY", 5)
    monkeypatch.setattr(tree, "CACHE_BOARDS", 6)
    rng = random.Random(seed)
    game = random_tree(rng)
    nodes = list(game.root.iter_tree())
    assert len(nodes) > 300
    for node in rng.sample(nodes, 120):
        assert node.board.hash == node.hash
        assert_same(node.board, replayed(node))


def test_sgf_round_trip_keeps_every_position():
    game = random_tree(random.Random(7), size=9, nodes=300)
    [again] = loads(dumps(game))
    pairs = list(zip(game.root.iter_tree(), again.root.iter_tree()))
    assert len(pairs) == sum(1 for _ in game.root.iter_tree())
    for a, b in pairs:
        assert (a.color, a.point, a.hash, a.captures, a.number, a.to_move) == \
            (b.color, b.point, b.hash, b.captures, b.number, b.to_move)
    for a, b in random.Random(1).sample(pairs, 60):
        assert_same(b.board, a.board)


def test_lenient_repairs_rebuild_the_same_position(monkeypatch):
    monkeypatch.setattr(tree, "KEEP_EVERY", 2)
    monkeypatch.setattr(tree, "CACHE_BOARDS", 1)
    # a suicide at a5, a stone on an occupied point, a ko retaken at once
    text = ("(;SZ[5];B[ba];W[bb];B[ab];W[aa];B[cc];W[cc]"
            ";B[ed];W[dd];B[ec];W[dc];B[de];W[ce];B[cd];W[ee];B[de])")
    [game] = loads(text, lenient=True)
    line = list(game.root.main_line())
    first = [(n.board.cells[:], n.board.hash, set(n.board.history), n.board.ko_point)
             for n in line]
    suicide = line[4]
    assert suicide.color == WHITE and suicide.board[suicide.point] == EMPTY
    assert suicide.board.hash in suicide.board.history and suicide.captures == (1, 0)
    occupied = line[6]
    assert occupied.color is None and occupied.setup == {WHITE: [game.point(2, 2)]}
    assert occupied.to_move == BLACK and occupied.board[game.point(2, 2)] == WHITE
    ko, retake = line[-2], line[-1]
    assert ko.board.ko_point == game.point(3, 4) and ko.captures == (1, 1)
    assert retake.board[retake.point] == BLACK and retake.board[ko.point] == EMPTY
    for node, seen in reversed(list(zip(line, first))):
        board = node.board
        assert (board.cells, board.hash, board.history, board.ko_point) == seen


def test_navigation_replays_few_moves(monkeypatch):
    """Going forward, back and to a far node, asking each time for the
    boards of the current node and its 8 nearest ancestors (as the feature
    encoders do), replays a bounded number of nodes per step."""
    game = GameState(19)
    rng = random.Random(3)
    color = BLACK
    for _ in range(1500):
        game.play(color, game.board.random_move(color, rng))
        color = 3 - color
    replays = []
    original = tree.GameMove._replay

    def counting(node, board):
        replays.append(node)
        original(node, board)

    monkeypatch.setattr(tree.GameMove, "_replay", counting)

    def features():
        node = game.current
        for _ in range(9):
            assert node.board.hash == node.hash
            node = node.parent

    [end] = loads(dumps(game))
    game.root, game.current = end.root, end.root
    game.goto(list(end.root.main_line())[-1])
    features()
    assert len(replays) < 2 * tree.KEEP_EVERY
    replays.clear()
    steps = 600
    for _ in range(steps):
        game.back()
        features()
    assert len(replays) <= 2 * steps
    replays.clear()
    for _ in range(steps):
        game.forward()
        features()
    assert len(replays) <= 2 * steps
    replays.clear()
    for _ in range(200):
        game.play(color, game.board.random_move(color, rng))
        color = 3 - color
        features()
        game.undo()
        game.play(color, game.board.random_move(color, rng))
        color = 3 - color
        features()
    assert len(replays) <= 2 * tree.KEEP_EVERY


def test_nodes_hold_no_empty_containers():
    [game] = loads("(;SZ[9];B[ee];W[cc]C[hi](;B[dd])(;B[gg]))")
    b, w = game.root.children[0], game.root.children[0].children[0]
    assert b._properties is None and b._setup is None
    assert w.children[1]._children is None and w.children[1].children == []
    assert w.comment == "hi" and not b.has_properties and w.has_properties
    with pytest.raises(TypeError):
        w.children[1].children.append(b)
    assert game.root.board.size == 9 and b.hash == b.board.hash != 0


def test_undo_forgets_and_variations_stay():
    game = GameState(9)
    game.play(BLACK, game.point(4, 4))
    d4 = game.play(WHITE, game.point(3, 3))
    game.back()
    c3 = game.play(WHITE, game.point(2, 2))
    assert game.current.parent.children == [d4, c3]
    assert game.board[game.point(2, 2)] == WHITE and game.board[game.point(3, 3)] == EMPTY
    game.undo()
    assert game.current.children == [d4]
    game.forward()
    assert game.board[game.point(3, 3)] == WHITE and game.current is d4
    with pytest.raises(IllegalMoveError):
        game.play(BLACK, game.point(3, 3))
    assert game.current is d4


def test_setup_on_a_node_with_children_is_refused():
    game = GameState(9)
    game.play(BLACK, game.point(4, 4))
    with pytest.raises(ValueError):
        game.root.add_setup(black=[game.point(0, 0)])
    leaf = game.current
    leaf.add_setup(white=[game.point(0, 0)])
    assert leaf.board[game.point(0, 0)] == WHITE and leaf.hash == leaf.board.hash
    assert leaf.board.history == {0, leaf.parent.hash, leaf.hash}


def peak_rss(code: str) -> tuple[float, float]:
    """Run ``code`` in a fresh interpreter; the peak RSS (MB) after the
    imports and at the end."""
    script = textwrap.dedent("""
        import sys
        import imago.sgf, imago.game
        from imago.bench import peak_rss_mb as rss
        base = rss()
    """) + textwrap.dedent(code) + "\nprint(base, rss())\n"
    out = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                         text=True, timeout=120, check=True).stdout
    base, peak = map(float, out.split()[-2:])
    return base, peak


def test_70000_empty_nodes_load_in_little_memory():
    base, peak = peak_rss("""
        [game] = imago.sgf.loads("(;" + ";" * 70000 + ")")
        last = list(game.root.main_line())[-1]
        assert last.board.is_empty_board() and last.board.history == {0}
    """)
    assert peak - base < 80


def test_a_4000_move_line_costs_little_memory():
    # nearly all positions differ (see random_game_text)
    base, peak = peak_rss("""
        from imago.bench.sgf import random_game_text
        text = random_game_text(4000, seed=5)
        [again] = imago.sgf.loads(text)
        line = list(again.root.main_line())
        assert len(set(n.hash for n in line)) > 3500
        assert len(line[-1].board.history) > 3500
    """)
    assert peak - base < 60


def test_a_300_move_19x19_game_loads_under_30_mb():
    base, peak = peak_rss("""
        import random
        game = imago.game.GameState(19)
        rng, color = random.Random(9), imago.game.BLACK
        for _ in range(300):
            game.play(color, game.board.random_move(color, rng))
            color = 3 - color
        text = imago.sgf.dumps(game)
        del game
        [again] = imago.sgf.loads(text)
        assert again.root.children[0].board.stone_count(imago.game.BLACK) == 1
    """)
    assert peak < 30 + base and peak - base < 10


@pytest.mark.skipif(not KOGO.exists(), reason="the Kogo joseki file is not in shared data")
def test_kogo_joseki_dictionary_loads_under_250_mb():
    base, peak = peak_rss(f"""
        import time
        start = time.perf_counter()
        [game] = imago.sgf.load({str(KOGO)!r}, lenient=True)
        took = time.perf_counter() - start
        nodes = sum(1 for _ in game.root.iter_tree())
        assert nodes > 60000, nodes
        assert took < 20, took  # about 1.5 s; a wide margin for busy machines
    """)
    assert peak < 250


def test_goto_end_follows_the_main_line_past_variations():
    game = loads("(;SZ[9]KM[7.5];B[ee];W[cc](;B[gg];W[gc])(;B[cg]))")[0]
    assert game.current is game.root
    game.goto_end()
    assert game.current.number == 4 and not game.current.children
    assert game.board[game.point(6, 2)] == WHITE           # W[gc] on the main line
    assert game.count().result == game.result(game.count().dead)
