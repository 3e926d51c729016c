"""One count for every caller: the same final positions fed to each place
that judges a game (the engine's final_score and final_status_list,
terminal play's game over, self-play labels, the policy player's and the
search's decision to pass, the match referee without GNU Go) give the same
result as :func:`imago.game.count`.

Positions: finished games of ../shared/data/gnugo9 (RE is GNU Go's
final_score) and katago9 (KataGo's), at the end of the main line, and
hand-made seki and open-border boards."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from imago import sgf
from imago.engine.algorithm import create_algorithm
from imago.engine.engine import GameEngine
from imago.engine.policy_algorithm import PolicyAlgorithm
from imago.game import (BLACK, EMPTY, WHITE, GameState, Rules, count, format_result,
                        passing_wins, vertex_to_index)
from imago.game.counting import SETTLED_THRESHOLD
from imago.match.tool import Referee
from imago.terminal import TerminalGame
from imago.training.selfplay import finish

from conftest import from_rows


def finished_games(folder: Path, count_: int | None) -> list[tuple[str, GameState, str]]:
    """(file, game at the end of its main line, recorded result) of the
    games that ended with two passes, the first ``count_`` (None: all)."""
    rows = [r for r in csv.DictReader(open(folder / "index.tsv"), delimiter="\t")
            if r["end"] == "two_passes"]
    games = []
    for row in rows[:count_]:
        game = sgf.load(folder / row["file"])[0]
        game.goto(list(game.root.main_line())[-1])
        games.append((row["file"], game, row["result"]))
    return games


def moves_of(game: GameState) -> list[tuple[int, int | None]]:
    """The moves from the root (for the referee, which replays them)."""
    return [(n.color, n.point) for n in game.history()]


def winner_letter(black_wins: bool, white_wins: bool) -> str:
    return "B" if black_wins else "W" if white_wins else "0"


def every_entry_point(game: GameState) -> dict[str, object]:
    """What each caller that counts says about ``game`` as it stands."""
    engine = GameEngine(create_algorithm("random"), size=game.size, komi=game.komi)
    engine.state = game
    terminal = TerminalGame(game, {BLACK: None, WHITE: None}, io.StringIO(), io.StringIO())
    board, rules, to_move = game.board, game.rules, game.to_move
    return {
        "final_score": engine.final_score(),
        "final_status_list dead": sorted(p for s in engine.final_status("dead") for p in s),
        "final_status_list seki": sorted(p for s in engine.final_status("seki") for p in s),
        "terminal": terminal.result(),
        "selfplay": finish(game),
        "referee": Referee("imago").score(game, moves_of(game)),
        "wins_now": winner_letter(PolicyAlgorithm.wins_now(game, BLACK),
                                  PolicyAlgorithm.wins_now(game, WHITE)),
        "passing_wins": (passing_wins(board, rules, to_move, BLACK),
                         passing_wins(board, rules, to_move, WHITE)),
    }


def assert_one_count(game: GameState, name: str = "") -> str:
    """Every entry point agrees with :func:`count`; returns the result."""
    judged = count(game.board, game.rules, game.to_move)
    seen = every_entry_point(game)
    expected = {
        "final_score": judged.result,
        "final_status_list dead": sorted(judged.dead),
        "final_status_list seki": sorted(judged.seki),
        "terminal": judged.result,
        "selfplay": judged.result,
        "referee": judged.result,
        "wins_now": judged.result[0],
        "passing_wins": (judged.winner == BLACK and judged.settled,
                         judged.winner == WHITE and judged.settled),
    }
    assert seen == expected, name
    return judged.result


def test_count_is_self_consistent_on_a_finished_game(shared_data):
    [(_, game, recorded)] = finished_games(shared_data / "gnugo9", 2)[1:]
    judged = count(game.board, game.rules, game.to_move)
    board = game.board
    assert judged.result == recorded == "W+0.5"
    assert judged.score == judged.black - judged.white - game.komi
    assert (judged.black, judged.white) == (judged.owners.count(BLACK),
                                            judged.owners.count(WHITE))
    assert judged.dead_black + judged.dead_white == len(judged.dead) == 3
    assert all(judged.owners[p] != board[p] for p in judged.dead)
    stones = [p for p in board.on_board() if board[p] in (BLACK, WHITE)]
    assert judged.settled == all(abs(judged.ownership[p]) >= SETTLED_THRESHOLD
                                 or p in judged.seki for p in stones)
    assert format_result(judged.score) == judged.result


@pytest.mark.parametrize("folder", ["gnugo9", "katago9"])
def test_every_entry_point_gives_the_same_count(shared_data, folder):
    games = finished_games(shared_data / folder, 10)
    assert len(games) == 10
    for name, game, _ in games:
        assert_one_count(game, name)


@pytest.mark.slow
@pytest.mark.parametrize("folder,exact,winner", [
    # measured: gnugo9 370 of 390 exact, 389 winner; katago9 706 of 724, 716
    ("gnugo9", 370, 389),
    ("katago9", 706, 716),
])
def test_every_finished_game_and_the_recorded_referee(shared_data, folder, exact, winner):
    games = finished_games(shared_data / folder, None)
    same = same_winner = 0
    for name, game, recorded in games:
        result = assert_one_count(game, name)
        same += result == recorded
        same_winner += result[0] == recorded[0]
    assert same >= exact and same_winner >= winner


SEKI = [". . . . .",
        ". . . . .",
        "O O O X X",
        "X X X O O",
        ". X . O ."]


def test_a_seki_is_counted_alike_everywhere():
    # black A2-B2-C2-B1 (eye A1) and white D2-E2-D1 (eye E1) share C1
    game = from_rows(SEKI)
    game.play(BLACK, None)
    game.play(WHITE, None)
    judged = count(game.board, game.rules, game.to_move)
    inner = sorted(vertex_to_index(v, 5) for v in ("A2", "B2", "C2", "B1", "D2", "E2", "D1"))
    assert sorted(judged.seki) == inner and not judged.dead
    assert_one_count(game)


def test_open_borders_go_by_the_estimate_everywhere():
    # a black wall on column B and a white wall on column D: column C
    # touches both, so area counting gives it to nobody
    rows = [". X . O ."] * 5
    game = from_rows(rows, komi=0.5)
    board = game.board
    border = [vertex_to_index(f"C{r}", 5) for r in range(1, 6)]
    plain = count(board, game.rules, BLACK, [0.0] * len(board.cells))
    assert all(plain.owners[p] == EMPTY for p in border)
    assert (plain.black, plain.white) == (10, 10) and plain.result == "W+0.5"
    leaning = [0.0] * len(board.cells)
    for p in border:
        leaning[p] = 0.5
    judged = count(board, game.rules, BLACK, leaning)
    assert all(judged.owners[p] == BLACK for p in border)
    assert judged.result == "B+4.5"
    game.play(BLACK, None)
    game.play(WHITE, None)
    assert_one_count(game)


def test_an_unfinished_game_is_counted_alike_everywhere(shared_data):
    [(_, game, _)] = finished_games(shared_data / "katago9", 1)
    *_, middle = list(game.root.main_line())[:30]
    game.goto(middle)
    assert_one_count(game)


def test_the_terminal_shows_the_dead_stones_and_the_count(shared_data):
    [(_, game, recorded)] = finished_games(shared_data / "gnugo9", 2)[1:]
    out = io.StringIO()
    terminal = TerminalGame(game, {BLACK: None, WHITE: None}, io.StringIO(), out)
    terminal.announce_result()
    judged = count(game.board, game.rules, game.to_move)
    text = out.getvalue()
    assert text.startswith("Dead stones: ")
    assert f"Game over: {recorded} (Black {judged.black}, White {judged.white}, komi 7.5, " \
           f"dead: {judged.dead_black} black, {judged.dead_white} white)" in text
    assert text.index("Dead stones: ") < text.index("Game over: ")


def test_rules_accept_only_what_the_board_plays():
    assert GameState(9, 6.5).rules == Rules(6.5)
    assert Rules(7.5) == Rules(komi=7.5, scoring="area", superko="positional", suicide=False)
    for wrong in ({"scoring": "territory"}, {"superko": "situational"}, {"suicide": True}):
        with pytest.raises(ValueError):
            Rules(7.5, **wrong)
