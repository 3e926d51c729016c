"""Rules that count every stone standing at the end alive (Tromp-Taylor,
the Computer Go Server, KGS's clean-up phase): dead stones are captured
before passing, a pass is answered by a pass when the board as it stands
wins, and the final count removes nothing."""

from __future__ import annotations

import json

import pytest

from imago.engine.algorithm import create_algorithm
from imago.engine.engine import GameEngine
from imago.game import BLACK, EMPTY, WHITE, area_score, vertex_to_index
from imago.game.rulesets import IMAGO_RULES, parse_rules
from imago.gtp.commands import Session, execute
from imago.search.tactics import capturing_move

from test_seki_pass import DEAD_STONE, game_from

D6 = vertex_to_index("D6", 9)
D6_LIBERTIES = {vertex_to_index(v, 9) for v in ("D7", "C6", "E6", "D5")}
KOMI = 10.5
"""With White's dead D6 removed Black wins DEAD_STONE by 6.5; counted as the
stones stand, D6 makes the points around it neutral and White wins by 3.5."""


@pytest.mark.parametrize("name, friendly", [("tromp-taylor", False), ("chinese", True),
                                            ("japanese", True), ("aga", True)])
def test_only_tromp_taylor_makes_dead_stones_be_captured(name, friendly):
    assert parse_rules(name).friendly_pass_ok is friendly


def test_the_rules_object_reads_friendly_pass_ok_as_katago_does():
    assert parse_rules({}).friendly_pass_ok is False  # KataGo starts from Tromp-Taylor
    assert parse_rules({"friendlyPassOk": True}).friendly_pass_ok is True
    assert parse_rules(IMAGO_RULES).friendly_pass_ok is True  # imago removes them at the count
    with pytest.raises(ValueError, match="friendlyPassOk must be true or false"):
        parse_rules({"friendlyPassOk": "yes"})


def engine_at(rules: str, visits: int = 100) -> tuple[GameEngine, Session]:
    """An engine (random playouts) on DEAD_STONE under ``rules``."""
    engine = GameEngine(create_algorithm("mcts", model="none", visits=visits, seed=1), 9, KOMI)
    session = Session(engine)
    execute(session, "kata-set-rules", [rules])
    state = game_from(DEAD_STONE, KOMI)
    state.take_rules_from(engine.state)
    engine.state = state
    return engine, session


def test_gtp_rules_commands_set_and_report_the_clean_up():
    engine, session = engine_at("tromp-taylor")
    assert engine.state.capture_dead
    assert json.loads(execute(session, "kata-get-rules", []))["friendlyPassOk"] is False
    execute(session, "kata-set-rule", ["friendlyPassOk", "true"])
    assert not engine.state.capture_dead
    execute(session, "kata-set-rule", ["friendlyPassOk", "false"])
    assert engine.state.capture_dead
    execute(session, "kgs-rules", ["chinese"])
    assert not engine.state.capture_dead
    execute(session, "clear_board", [])
    assert json.loads(execute(session, "kata-get-rules", []))["friendlyPassOk"] is True


def test_the_final_count_removes_no_stone_under_tromp_taylor():
    engine, session = engine_at("chinese")
    assert execute(session, "final_score", []) == "B+6.5"
    assert execute(session, "final_status_list", ["dead"]) == "D6"
    engine, session = engine_at("tromp-taylor")
    assert execute(session, "final_score", []) == "W+3.5"
    assert execute(session, "final_status_list", ["dead"]) == ""


def test_capturing_move_takes_a_liberty_of_the_opponents_dead_stones():
    board = game_from(DEAD_STONE, KOMI).board
    assert capturing_move(board, BLACK, [D6]) in D6_LIBERTIES
    assert capturing_move(board, BLACK, []) is None
    assert capturing_move(board, WHITE, [D6]) is None  # its own stone: nothing to capture


def black_plays_until_it_passes(session: Session) -> list[str]:
    """Black's moves, White passing after each, until Black passes."""
    moves: list[str] = []
    while not moves or moves[-1] != "pass":
        assert len(moves) < 8, moves
        moves.append(execute(session, "genmove", ["black"]))
        if moves[-1] != "pass":
            execute(session, "play", ["white", "pass"])
    return moves


def test_dead_stones_are_captured_before_passing_under_tromp_taylor():
    """Black's count wins only with White's D6 removed: under imago's rules
    it passes at once; under Tromp-Taylor it first takes D6's liberties,
    and answers White's pass with a pass once the board as it stands
    wins."""
    engine, session = engine_at("chinese")
    assert black_plays_until_it_passes(session) == ["pass"]
    engine, session = engine_at("tromp-taylor")
    moves = black_plays_until_it_passes(session)
    assert len(moves) > 1
    assert {vertex_to_index(m, 9) for m in moves[:-1]} <= D6_LIBERTIES
    assert area_score(engine.state.board, KOMI) > 0
    assert execute(session, "final_score", []).startswith("B+")


def test_dead_stones_are_captured_whole_before_a_first_pass():
    """With D6 in atari and White not passing, the board as it stands
    already wins for Black, but a pass of its own would let White end the
    game with D6 alive: Black captures it (the margin too)."""
    engine, session = engine_at("tromp-taylor")
    for vertex in ("D7", "C6", "E6"):  # White's moves elsewhere left out: no pass
        engine.state.play(BLACK, vertex_to_index(vertex, 9))
    assert area_score(engine.state.board, KOMI) > 0
    assert execute(session, "genmove", ["black"]) == "D5"
    assert engine.state.board[D6] == EMPTY


def test_a_pass_is_answered_by_a_pass_where_the_board_as_it_stands_wins():
    """White, whose dead D6 still stands in Black's area, answers Black's
    pass with a pass under Tromp-Taylor: the game ends won, D6 alive."""
    engine, session = engine_at("tromp-taylor")
    execute(session, "play", ["black", "pass"])
    assert execute(session, "genmove", ["white"]) == "pass"
    assert execute(session, "final_score", []) == "W+3.5"


def test_kgs_clean_up_captures_dead_stones_whatever_the_rules():
    """kgsGtp's clean-up phase ends with every stone standing alive: its
    moves capture the dead first, and the game's rules stay."""
    engine, session = engine_at("chinese")
    assert vertex_to_index(execute(session, "kgs-genmove_cleanup", ["black"]), 9) \
        in D6_LIBERTIES
    assert not engine.state.capture_dead
