"""imago's own final_score and final_status_list against recorded results:
GNU Go's final_score in ../shared/data/gnugo9 and KataGo's in katago9, on
games that ended with two passes."""

from __future__ import annotations

import csv
import subprocess

import pytest

from conftest import from_rows
from imago import sgf
from imago.engine.algorithm import create_algorithm
from imago.engine.engine import GameEngine
from imago.game import (BLACK, GameState, Rules, count, dead_stones, index_to_vertex,
                        vertex_to_index)


def finished_games(folder, count):
    rows = [r for r in csv.DictReader(open(folder / "index.tsv"), delimiter="\t")
            if r["end"] == "two_passes"]
    for row in rows[:count]:
        game = sgf.load(folder / row["file"])[0]
        game.goto_end()
        engine = GameEngine(create_algorithm("random"), size=game.size, komi=game.komi)
        engine.state = game
        yield engine, row["result"]


@pytest.mark.parametrize("folder,count,exact,winner", [
    # measured on all finished games: katago9 706/724 exact, 716/724 winner;
    # gnugo9 370/390 exact, 389/390 winner
    ("katago9", 60, 0.9, 0.95),
    ("gnugo9", 60, 0.9, 0.95),
])
def test_final_score_agrees_with_the_recorded_referee(shared_data, folder, count, exact, winner):
    same = same_winner = total = 0
    for engine, recorded in finished_games(shared_data / folder, count):
        mine = engine.final_score()
        total += 1
        same += mine == recorded
        same_winner += mine[0] == recorded[0]
    assert total == count
    assert same / total >= exact
    assert same_winner / total >= winner


def test_dead_stones_follow_the_ownership_estimate():
    game = GameState(5, komi=0.5)
    game.root.add_setup(black=[vertex_to_index(v, 5) for v in ("B2", "D4")],
                        white=[vertex_to_index(v, 5) for v in ("B4",)])
    board = game.board
    ownership = [0.0] * len(board.cells)
    for p in board.on_board():
        ownership[p] = 0.9 if board.colrow(p)[1] >= 2 else -0.9  # white owns the top rows
    dead = dead_stones(board, ownership)
    assert dead == [vertex_to_index("D4", 5)]
    judged = count(board, Rules(0.5), BLACK, ownership)
    assert list(judged.dead) == dead
    # 15 black points (rows 1-3), 10 white (rows 4-5, D4 included once removed)
    assert judged.score == 15 - 10 - 0.5
    assert (judged.black, judged.white) == (15, 10)


def test_a_finished_gnugo_game_with_dead_stones(shared_data):
    game = sgf.load(shared_data / "gnugo9" / "game-00002.sgf")[0]
    game.goto(list(game.root.main_line())[-1])
    engine = GameEngine(create_algorithm("random"), size=9, komi=game.komi)
    engine.state = game
    assert game.result() == "W+4.5"              # everything counted alive
    assert len(engine.dead_stones()) == 3
    assert engine.final_score() == "W+0.5"       # GNU Go's recorded result


def test_dead_stones_agree_with_gnugo(shared_data, gnugo_path):
    """imago's dead list equals GNU Go's final_status_list dead (measured
    38 of the first 40 finished games)."""
    folder = shared_data / "gnugo9"
    rows = [r for r in csv.DictReader(open(folder / "index.tsv"), delimiter="\t")
            if r["end"] == "two_passes"][:20]
    commands = "".join(f"loadsgf {folder / r['file']}\nfinal_status_list dead\n" for r in rows)
    out = subprocess.run([gnugo_path, "--mode", "gtp", "--chinese-rules"], input=commands + "quit\n",
                         capture_output=True, text=True, timeout=120).stdout
    # answers: loadsgf, final_status_list, ... then quit's
    answers = [block.lstrip("= ").split() for block in out.split("\n\n")[1:40:2]]
    identical = total = 0
    for (engine, _), theirs in zip(finished_games(folder, 20), answers):
        total += 1
        mine = sorted(index_to_vertex(p, 9) for p in engine.dead_stones())
        identical += mine == sorted(theirs)
    assert total == len(answers) == 20
    assert identical >= 17


def test_seki_strings_are_reported_as_seki():
    # black A2-B2-C2-B1 (eye A1) and white D2-E2-D1 (eye E1) share C1
    game = from_rows([". . . . .",
                      ". . . . .",
                      "O O O X X",
                      "X X X O O",
                      ". X . O ."], komi=0.5)
    engine = GameEngine(create_algorithm("random"), size=5, komi=0.5)
    engine.state = game
    seki = sorted(p for s in engine.final_status("seki") for p in s)
    inner = sorted(vertex_to_index(v, 5) for v in ("A2", "B2", "C2", "B1", "D2", "E2", "D1"))
    assert seki == inner
    alive = [p for s in engine.final_status("alive") for p in s]
    assert not set(alive) & set(seki)


def test_a_loaded_record_goes_to_its_end_and_counts_as_the_one_count(shared_data):
    path = shared_data / "katago9" / "game-00001.sgf"
    if not path.is_file():
        pytest.skip(f"no {path}")
    game = sgf.load(path)[0]
    assert game.current is game.root
    game.goto_end()
    assert game.current is list(game.root.main_line())[-1] and not game.current.children
    assert game.count() == count(game.board, game.rules, game.to_move)
