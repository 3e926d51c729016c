"""Every GTP command in the table: answers, effects and the spec's errors."""

from __future__ import annotations

import io

import pytest

import imago
from imago.engine.algorithm import RESIGN, DecisionAlgorithm
from imago.gtp.commands import COMMANDS, GtpError, Session, execute
from imago.engine.engine import GameEngine
from imago.gtp.io import ImagoIO
from imago.engine.random_algorithm import RandomAlgorithm
from imago.engine.timecontrol import ABSOLUTE, BYOYOMI, CANADIAN, NONE
from imago.game import BLACK, EMPTY, WHITE, vertex_to_index

REQUIRED = ["protocol_version", "name", "version", "known_command", "list_commands", "quit",
            "boardsize", "clear_board", "komi", "play", "genmove", "undo", "showboard",
            "final_score", "final_status_list", "fixed_handicap", "place_free_handicap",
            "set_free_handicap", "time_settings", "time_left", "kgs-time_settings",
            "reg_genmove", "kgs-genmove_cleanup", "last_move", "move_history"]


@pytest.fixture
def engine() -> GameEngine:
    return GameEngine(RandomAlgorithm(seed=5), 9, 7.5)


def gtp(engine: GameEngine, *lines: str) -> str:
    """The framed responses to ``lines`` (quit not needed)."""
    out = io.StringIO()
    ImagoIO(engine, io.StringIO("".join(line + "\n" for line in lines)), out).run()
    return out.getvalue()


def ok(engine: GameEngine, line: str) -> str:
    """The text of a successful response."""
    name, *args = line.split()
    return execute(Session(engine), name, args)


def error(engine: GameEngine, line: str) -> str:
    """The error text of a failing command."""
    name, *args = line.split()
    with pytest.raises(GtpError) as info:
        execute(Session(engine), name, args)
    return str(info.value)


def stone(engine: GameEngine, vertex: str) -> int:
    return engine.state.board[vertex_to_index(vertex, engine.size)]


class Resigner(DecisionAlgorithm):
    name = "resigner"

    def choose_move(self, state, color, seconds=None):
        return RESIGN


# ---------------------------------------------------------------- administration
def test_administration(engine):
    assert gtp(engine, "protocol_version", "1 name", "2 version") == (
        f"= 2\n\n=1 imago\n\n=2 {imago.__version__}\n\n")


def test_list_commands_reads_the_table(engine):
    names = ok(engine, "list_commands").split("\n")
    assert names == list(COMMANDS)
    assert set(REQUIRED) <= set(names)
    assert all(" " not in n and n for n in names)


def test_known_command(engine):
    for name in COMMANDS:
        assert ok(engine, f"known_command {name}") == "true"
    assert ok(engine, "known_command foo") == "false"
    assert ok(engine, "known_command PLAY") == "false"  # command names are case-sensitive
    assert error(engine, "known_command") == "syntax error"


def test_unknown_command(engine):
    assert gtp(engine, "7 frobnicate 3") == "?7 unknown command\n\n"


def test_extra_arguments_are_a_syntax_error(engine):
    assert error(engine, "name now") == "syntax error"
    assert error(engine, "play b d4 e5") == "syntax error"


def test_quit(engine):
    assert ok(engine, "quit") == ""
    assert engine.quit_requested


# ---------------------------------------------------------------- set-up
def test_boardsize(engine):
    ok(engine, "play b e5")
    assert gtp(engine, "1 boardsize 13") == "=1\n\n"
    assert engine.size == 13 and engine.state.board.is_empty_board()
    ok(engine, "boardsize 2")
    ok(engine, "boardsize 25")
    assert engine.size == 25
    for bad in ("1", "0", "26", "-9"):
        assert error(engine, f"boardsize {bad}") == "unacceptable size"
    assert engine.size == 25
    assert error(engine, "boardsize nine") == "syntax error"
    assert error(engine, "boardsize") == "syntax error"


def test_clear_board(engine):
    ok(engine, "fixed_handicap 2")
    ok(engine, "play w e5")
    assert ok(engine, "clear_board") == ""
    assert engine.state.board.is_empty_board()
    assert engine.state.handicap == 0 and engine.state.to_move == BLACK
    assert engine.size == 9 and engine.state.komi == 7.5


def test_komi(engine):
    ok(engine, "komi 6.5")
    assert engine.state.komi == 6.5
    ok(engine, "komi -3")
    assert engine.state.komi == -3
    for bad in ("komi abc", "komi nan", "komi inf", "komi"):
        assert error(engine, bad) == "syntax error"
    assert engine.state.komi == -3


# ---------------------------------------------------------------- play, undo
def test_play_any_case_and_colour_order(engine):
    assert gtp(engine, "1 play b d4", "2 play WHITE E5", "3 play Black c3",
               "4 play black j9", "5 play w pass") == "=1\n\n=2\n\n=3\n\n=4\n\n=5\n\n"
    assert stone(engine, "D4") == BLACK and stone(engine, "e5") == WHITE
    assert stone(engine, "J9") == BLACK
    assert engine.state.current.is_pass and engine.state.to_move == BLACK


def test_play_errors(engine):
    ok(engine, "play b e5")
    assert gtp(engine, "1 play w e5") == "?1 illegal move\n\n"  # occupied
    assert error(engine, "play b j10") == "illegal move"  # off this board
    assert error(engine, "play b z25") == "illegal move"
    assert error(engine, "play b i5") == "syntax error"  # no column I
    assert error(engine, "play b 5e") == "syntax error"
    assert error(engine, "play x e4") == "invalid color"
    assert error(engine, "play b") == "syntax error"
    assert engine.state.current.number == 1


def test_play_suicide_and_ko(engine):
    ok(engine, "play b a2")
    ok(engine, "play b b1")
    assert error(engine, "play w a1") == "illegal move"  # suicide
    ok(engine, "play b a1")  # filling one's own eye is legal
    ok(engine, "clear_board")
    for move in ("b d5", "b c4", "b d3", "w e5", "w f4", "w e3", "b e4", "w d4"):
        ok(engine, f"play {move}")  # white d4 captures e4
    assert stone(engine, "e4") == EMPTY
    assert error(engine, "play b e4") == "illegal move"  # immediate retake: ko
    ok(engine, "play b j9")
    ok(engine, "play w j1")
    ok(engine, "play b e4")  # legal after a ko threat


def test_undo(engine):
    assert gtp(engine, "3 undo") == "?3 cannot undo\n\n"
    ok(engine, "play b e5")
    ok(engine, "play w pass")
    ok(engine, "undo")
    ok(engine, "undo")
    assert engine.state.board.is_empty_board()
    assert error(engine, "undo") == "cannot undo"
    ok(engine, "fixed_handicap 2")
    assert error(engine, "undo") == "cannot undo"  # handicap stones are not moves


# ---------------------------------------------------------------- genmove
def test_genmove_plays_and_answers_a_vertex(engine):
    answer = ok(engine, "genmove b")
    point = vertex_to_index(answer, 9)
    assert engine.state.board[point] == BLACK
    assert engine.state.current.color == BLACK
    answer = ok(engine, "genmove WHITE")
    assert stone(engine, answer) == WHITE
    assert error(engine, "genmove") == "syntax error"
    assert error(engine, "genmove red") == "invalid color"


def test_genmove_passes_when_nothing_is_left():
    engine = GameEngine(RandomAlgorithm(seed=1), 2, 0)
    ok(engine, "play b a1")
    ok(engine, "play b b2")
    assert ok(engine, "genmove b") == "pass"  # only own eyes are left
    assert engine.state.current.is_pass


def test_genmove_resign_changes_nothing():
    engine = GameEngine(Resigner(), 9, 7.5)
    assert gtp(engine, "1 genmove w", "2 reg_genmove b",
               "3 kgs-genmove_cleanup b") == "=1 resign\n\n=2 resign\n\n=3 resign\n\n"
    assert engine.state.current is engine.state.root


def test_reg_genmove_does_not_play(engine):
    answer = ok(engine, "reg_genmove b")
    vertex_to_index(answer, 9)  # a vertex
    assert engine.state.board.is_empty_board()
    assert engine.state.current is engine.state.root


def test_kgs_genmove_cleanup_plays(engine):
    answer = ok(engine, "kgs-genmove_cleanup w")
    assert stone(engine, answer) == WHITE


def test_whole_game_by_genmove_ends_in_two_passes(engine):
    for _ in range(400):
        if engine.state.consecutive_passes() >= 2:
            break
        ok(engine, f"genmove {'b' if engine.state.to_move == BLACK else 'w'}")
    assert engine.state.consecutive_passes() == 2
    result = ok(engine, "final_score")
    assert result[0] in "BW" or result == "0"


# ---------------------------------------------------------------- views
def test_showboard(engine):
    ok(engine, "play b d4")
    out = gtp(engine, "2 showboard")
    assert out.startswith("=2 \n") and out.endswith("\n\n")
    body = out[len("=2 \n"):-2]
    lines = body.split("\n")
    assert len(lines) == 11 and all(lines)
    assert lines[0].split() == list("ABCDEFGHJ")
    assert "(X)" in lines[6]  # row 4, the last move marked


def test_last_move_and_move_history(engine):
    assert error(engine, "last_move") == "no previous move known"
    assert ok(engine, "move_history") == ""
    ok(engine, "play b d4")
    ok(engine, "play w pass")
    ok(engine, "play w E5")
    assert ok(engine, "last_move") == "white E5"
    assert ok(engine, "move_history") == "white E5\nwhite pass\nblack D4"


# ---------------------------------------------------------------- scoring
def test_final_score(engine):
    assert gtp(engine, "1 final_score") == "=1 W+7.5\n\n"
    ok(engine, "play b e5")
    assert ok(engine, "final_score") == "B+73.5"
    ok(engine, "play w d5")
    assert ok(engine, "final_score") == "W+7.5"  # all dame: 1 - 1 - 7.5
    ok(engine, "komi 0")
    assert ok(engine, "final_score") == "0"


def test_final_score_uses_the_engines_dead_stones(engine, monkeypatch):
    ok(engine, "play b e5")
    ok(engine, "play w a1")
    dead = [vertex_to_index("a1", 9)]
    monkeypatch.setattr(engine, "dead_stones", lambda: dead)
    assert ok(engine, "final_score") == "B+73.5"
    assert ok(engine, "final_status_list dead") == "A1"
    assert ok(engine, "final_status_list alive") == "E5"


def test_final_status_list(engine):
    assert ok(engine, "final_status_list alive") == ""
    # a settled 5x5 position: black lives on the left with two eyes, white on
    # the right; the black stone at E5 inside white's area is dead
    ok(engine, "boardsize 5")
    ok(engine, "clear_board")
    for move in ("b b5", "b b4", "b b3", "b b2", "b b1", "b a3",
                 "w c5", "w c4", "w c3", "w c2", "w c1", "w d3", "w e3", "b e5"):
        ok(engine, f"play {move}")
    alive = ok(engine, "final_status_list alive").splitlines()
    dead = ok(engine, "final_status_list DEAD").splitlines()
    seki = ok(engine, "final_status_list seki").splitlines()
    # one string per line, strings listed from the top of the board
    assert dead == ["E5"]
    assert seki == []
    assert [set(line.split()) for line in alive] == [set("B5 B4 B3 B2 B1 A3".split()),
                                                     set("C5 C4 C3 C2 C1 D3 E3".split())]
    # black 10 points, white 15 (E5 removed), komi 7.5
    assert ok(engine, "final_score") == "W+12.5"
    assert error(engine, "final_status_list zombie") == "syntax error"
    assert error(engine, "final_status_list") == "syntax error"


# ---------------------------------------------------------------- handicap
def test_fixed_handicap(engine):
    assert gtp(engine, "1 fixed_handicap 2") == "=1 C3 G7\n\n"
    assert engine.state.to_move == WHITE and engine.state.handicap == 2
    assert stone(engine, "C3") == BLACK
    assert error(engine, "fixed_handicap 2") == "board not empty"
    ok(engine, "clear_board")
    assert ok(engine, "fixed_handicap 9") == "C3 G7 C7 G3 C5 G5 E3 E7 E5"
    ok(engine, "clear_board")
    for bad in ("1", "10", "0", "-2"):
        assert error(engine, f"fixed_handicap {bad}") == "invalid number of stones"
    assert error(engine, "fixed_handicap two") == "syntax error"
    ok(engine, "boardsize 5")
    assert error(engine, "fixed_handicap 2") == "invalid number of stones"
    ok(engine, "boardsize 9")
    ok(engine, "play b e5")
    assert error(engine, "fixed_handicap 2") == "board not empty"


def test_place_free_handicap(engine):
    answer = ok(engine, "place_free_handicap 3")
    vertices = answer.split()
    assert len(vertices) == 3
    assert all(stone(engine, v) == BLACK for v in vertices)
    assert engine.state.to_move == WHITE
    assert error(engine, "place_free_handicap 3") == "board not empty"
    ok(engine, "clear_board")
    assert error(engine, "place_free_handicap 1") == "invalid number of stones"
    assert error(engine, "place_free_handicap 81") == "invalid number of stones"
    assert error(engine, "place_free_handicap") == "syntax error"
    ok(engine, "boardsize 5")
    assert len(ok(engine, "place_free_handicap 4").split()) == 4


def test_set_free_handicap(engine):
    assert gtp(engine, "1 set_free_handicap a1 J9 e5") == "=1\n\n"
    assert [stone(engine, v) for v in ("A1", "J9", "E5")] == [BLACK] * 3
    assert engine.state.handicap == 3 and engine.state.to_move == WHITE
    assert error(engine, "set_free_handicap c3 d4") == "board not empty"
    ok(engine, "clear_board")
    for bad in ("a1", "a1 a1", "a1 pass", "a1 z99", "a1 i3", ""):
        assert error(engine, f"set_free_handicap {bad}") == "bad vertex list", bad
    assert engine.state.board.is_empty_board()


def test_rectangular_boardsize_takes_square_boards(engine):
    ok(engine, "rectangular_boardsize 13 13")
    assert engine.size == 13
    assert error(engine, "rectangular_boardsize 19 13") == \
        "unacceptable size (imago plays square boards only)"
    assert error(engine, "rectangular_boardsize 1 1") == "unacceptable size"
    assert error(engine, "rectangular_boardsize 9") == "syntax error"
    assert engine.size == 13


def test_set_position(engine):
    # KataGo's extension: a position with no history, replacing the board
    ok(engine, "play b a9")
    assert gtp(engine, "1 set_position b C3 w d4 B e5") == "=1\n\n"
    assert [stone(engine, v) for v in ("C3", "D4", "E5", "A9")] == [BLACK, WHITE, BLACK, EMPTY]
    assert engine.state.to_move == BLACK and engine.state.current.number == 0
    assert "AB[cg][ee]" in ok(engine, "printsgf") and "AW[df]" in ok(engine, "printsgf")
    ok(engine, "play w d3")  # the game goes on from there
    for bad, why in (("b a1 w a2 w b1", "illegal position: the stones at A1 have no liberty"),
                     ("b a1 w a1", "illegal position: A1 is given twice"),
                     ("b", "syntax error"), ("b pass", "syntax error: a stone cannot be a pass"),
                     ("b z99", "syntax error: vertex off the board: 'z99'"),
                     ("red a1", "invalid color")):
        assert error(engine, f"set_position {bad}") == why, bad
    assert stone(engine, "D3") == WHITE  # each refusal left the game as it was
    ok(engine, "set_position")
    assert engine.state.board.is_empty_board()


# ---------------------------------------------------------------- time
def test_time_settings(engine):
    clock = engine.time_control
    assert gtp(engine, "1 time_settings 300 30 5") == "=1\n\n"
    assert (clock.system, clock.main_time, clock.byo_yomi_time, clock.byo_yomi_stones) == (
        CANADIAN, 300, 30, 5)
    ok(engine, "time_settings 600 0 0")
    assert clock.system == ABSOLUTE and clock.main_time == 600
    ok(engine, "time_settings 0 1 0")
    assert clock.system == NONE
    for bad in ("time_settings 1 2", "time_settings a 2 3", "time_settings -1 2 3",
                "time_settings 1 2 1.5"):
        assert error(engine, bad) == "syntax error", bad


def test_clear_cache_drops_the_kept_tree_and_network_answers():
    from imago.engine.mcts_algorithm import MCTSAlgorithm

    engine = GameEngine(MCTSAlgorithm(model="none", visits=64, seed=1), 9, 7.5)
    ok(engine, "genmove black")
    search = engine.algorithm.search
    search.cache[1] = "kept"
    assert search.root is not None
    assert ok(engine, "clear_cache") == ""
    assert search.root is None and not search.cache
    assert ok(engine, "genmove white")  # and searches afresh
    random_engine = GameEngine(RandomAlgorithm(seed=5), 9, 7.5)
    assert ok(random_engine, "clear_cache") == ""  # no search kept: nothing to drop


def test_kata_get_rules_says_what_imago_plays_with_the_komi(engine):
    import json

    ok(engine, "komi 6.5")
    assert json.loads(ok(engine, "kata-get-rules")) == {
        "ko": "POSITIONAL", "scoring": "AREA", "tax": "NONE", "suicide": False,
        "hasButton": False, "whiteHandicapBonus": "0", "komi": 6.5,
        "friendlyPassOk": True}  # imago removes dead stones at its count


def test_kata_set_rules_accepts_rules_by_name_or_object_and_says_what_differs(engine, caplog):
    ok(engine, "kata-set-rules tromp-taylor")  # suicide allowed there: a warning
    assert "not with suicide allowed" in caplog.text
    caplog.clear()
    ok(engine, 'kata-set-rules {"ko": "POSITIONAL", "scoring": "AREA", "suicide": false}')
    assert caplog.text == ""
    assert engine.state.komi == 7.5  # rules alone leave the komi
    ok(engine, "kata-set-rules Japanese")
    assert caplog.text.rstrip().endswith("not with simple ko")  # territory, seki tax: played
    caplog.clear()
    ok(engine, "kata-set-rules chinese")
    assert "handicap bonus" not in caplog.text  # honoured: see the test below
    ok(engine, 'kata-set-rules {"suicide": false, "komi": 5.5}')
    assert engine.state.komi == 5.5 and '"komi":5.5' in ok(engine, "kata-get-rules")
    assert '"scoring":"AREA"' in ok(engine, "kata-get-rules")  # imago's, whatever was set
    assert error(engine, "kata-set-rules") == "syntax error"
    assert error(engine, "kata-set-rules chess").startswith("unknown rules: unknown rules;")
    assert error(engine, 'kata-set-rules {"scoring": "NONE"}') == \
        "unknown rules: rules option scoring must be one of AREA, TERRITORY"
    assert error(engine, "kata-set-rules {not json").startswith("unknown rules: Expecting")
    assert error(engine, 'kata-set-rules {"komi": 0.3}').startswith("unknown rules: must be")
    assert engine.state.komi == 5.5


def test_kata_set_rule_changes_one_option(engine, caplog):
    import json

    ok(engine, "kata-set-rule scoring TERRITORY")
    assert engine.state.scoring == "territory" and engine.state.komi == 7.5
    ok(engine, "kata-set-rule whiteHandicapBonus N")
    ok(engine, "kata-set-rule komi 6.5")
    rules = json.loads(ok(engine, "kata-get-rules"))
    assert (rules["scoring"], rules["whiteHandicapBonus"], rules["komi"]) == ("TERRITORY", "N",
                                                                             6.5)
    ok(engine, "kata-set-rule suicide true")
    assert "not with suicide allowed" in caplog.text
    assert error(engine, "kata-set-rule scoring NONE") == \
        "unknown rules: rules option scoring must be one of AREA, TERRITORY"
    assert error(engine, "kata-set-rule colour red").startswith("unknown rules option colour;")
    assert error(engine, "kata-set-rule komi 0.3").startswith("unknown rules: must be")
    assert error(engine, "kata-set-rule komi x") == "syntax error"
    assert error(engine, "kata-set-rule scoring") == "syntax error"
    assert engine.state.komi == 6.5 and engine.state.scoring == "territory"


def test_small_commands_other_controllers_send(engine):
    assert ok(engine, "stop") == "" and ok(engine, "kgs-game_over") == ""
    assert float(ok(engine, "gomill-cpu_time")) >= 0
    assert ok(engine, "gomill-explain_last_move") == ""  # nothing chosen yet
    ok(engine, "genmove b")
    assert ok(engine, "gomill-explain_last_move") == ""  # the random algorithm has no search


def test_explain_last_move_tells_what_the_search_saw():
    from imago.engine.mcts_algorithm import MCTSAlgorithm

    engine = GameEngine(MCTSAlgorithm(model="none", visits=50, seed=1, ponder=True,
                                      ponder_visits=300), 9, 7.5)
    move = ok(engine, "genmove b")
    words = ok(engine, "gomill-explain_last_move")
    assert words.startswith("winrate ") and " visits, expects " + move in words
    engine.ponder(lambda: False)  # the tree moved on to White's replies
    assert ok(engine, "gomill-explain_last_move") == words


def test_rules_with_a_white_handicap_bonus_add_it_to_the_komi_of_handicap_games(engine,
                                                                                 tmp_path):
    """Chinese rules give White a point a handicap stone, AGA's a point a
    stone after the first: by area that is komi, which the search and the
    count read; the komi set stays what kata-get-rules reports."""
    import json

    ok(engine, "komi 0.5")
    ok(engine, "kata-set-rules chinese")
    assert engine.state.game_komi == 0.5  # no handicap yet
    ok(engine, "fixed_handicap 4")
    assert engine.state.game_komi == 4.5 and engine.state.komi == 0.5
    rules = json.loads(ok(engine, "kata-get-rules"))
    assert rules["whiteHandicapBonus"] == "N" and rules["komi"] == 0.5
    ok(engine, "play w e5")
    assert engine.count().komi == 4.5  # what final_score counts with
    # the komi set, the handicap and the rules that add the bonus (SGF readers count so)
    assert "KM[0.5]HA[4]RU[Chinese]" in ok(engine, "printsgf")
    ok(engine, "kgs-rules aga")
    assert engine.state.game_komi == 3.5
    assert "KM[0.5]HA[4]RU[AGA]" in ok(engine, "printsgf")
    ok(engine, "komi 7.5")
    assert engine.state.game_komi == 10.5
    ok(engine, "clear_board")
    assert engine.state.game_komi == 7.5
    ok(engine, "set_free_handicap c3 g7")
    assert engine.state.game_komi == 8.5
    record = tmp_path / "handicap.sgf"
    record.write_text("(;GM[1]SZ[9]HA[3]KM[0.5]AB[cc][gg][cg];W[ee])")
    ok(engine, f"loadsgf {record}")  # the file's komi is the komi set
    assert engine.state.game_komi == 2.5 and engine.state.komi == 0.5
    ok(engine, 'kata-set-rules {"ko": "POSITIONAL", "suicide": false}')  # no bonus
    assert engine.state.game_komi == 0.5
    assert json.loads(ok(engine, "kata-get-rules"))["whiteHandicapBonus"] == "0"


def test_the_search_plays_a_handicap_game_with_the_bonus_as_komi(engine):
    """The search (its root's komi, the network's komi input) reads the
    komi with White's handicap bonus, and a new game keeps the rules."""
    ok(engine, "komi 0.5")
    ok(engine, "kata-set-rules chinese")
    ok(engine, "fixed_handicap 3")
    search = engine.analysis_search()
    search.set_root(engine.state, WHITE)
    assert search.komi == search.root_komi == 3.5
    ok(engine, "clear_board")
    ok(engine, "fixed_handicap 2")
    assert engine.state.game_komi == 2.5 and engine.state.handicap_bonus == "N"


def test_territory_rules_count_the_stones_each_side_put_on_the_board(engine):
    """Japanese and Korean rules: territory and prisoners, which is the area
    count less the stones each side has put on the board (handicap stones
    included). A stone inside one's own territory then costs a point."""
    import json

    ok(engine, "boardsize 5")
    ok(engine, "komi 0.5")
    for move in ("b b1", "w d1", "b b2", "w d2", "b b3", "w d3", "b b4", "w d4", "b b5",
                 "w d5"):
        ok(engine, f"play {move}")
    assert ok(engine, "final_score") == "W+0.5"  # by area: 10 points each
    ok(engine, "kgs-rules japanese")
    assert engine.state.scoring == "territory" and engine.state.komi == 0.5
    rules = json.loads(ok(engine, "kata-get-rules"))
    assert (rules["scoring"], rules["tax"]) == ("TERRITORY", "SEKI")  # as imago counts
    assert ok(engine, "final_score") == "W+0.5"  # 5 points each
    ok(engine, "play b a1")  # fills its own territory: a point by territory, none by area
    assert ok(engine, "final_score") == "W+1.5"
    ok(engine, "kata-set-rules chinese")
    assert ok(engine, "final_score") == "W+0.5"
    ok(engine, "kata-set-rules japanese")
    ok(engine, "boardsize 9")  # the rules stay for the next game
    ok(engine, "fixed_handicap 2")  # handicap stones are stones put on the board
    assert engine.state.scoring == "territory" and engine.state.scoring_komi == 2.5


def test_kgs_rules_takes_kgs_names(engine, caplog):
    for name in ("japanese", "chinese", "aga", "new_zealand", "Chinese"):
        assert ok(engine, f"kgs-rules {name}") == ""
    assert error(engine, "kgs-rules ing") == \
        "unknown rules: use one of japanese, chinese, aga, new_zealand"
    assert error(engine, "kgs-rules") == "syntax error"


def test_kgs_time_settings(engine):
    clock = engine.time_control
    ok(engine, "kgs-time_settings byoyomi 600 30 5")
    assert (clock.system, clock.main_time, clock.byo_yomi_time, clock.byo_yomi_stones) == (
        BYOYOMI, 600, 30, 5)
    ok(engine, "kgs-time_settings canadian 60 300 25")
    assert clock.system == CANADIAN
    ok(engine, "kgs-time_settings absolute 900")
    assert clock.system == ABSOLUTE and clock.main_time == 900
    ok(engine, "kgs-time_settings NONE")
    assert clock.system == NONE
    for bad in ("kgs-time_settings", "kgs-time_settings fischer 1 2",
                "kgs-time_settings absolute", "kgs-time_settings byoyomi 1 2",
                "kgs-time_settings absolute x"):
        assert error(engine, bad) == "syntax error", bad


def test_time_left(engine):
    ok(engine, "time_settings 300 30 5")
    assert gtp(engine, "1 time_left w 120 0", "2 time_left b 25 3") == "=1\n\n=2\n\n"
    assert engine.time_control.clock(WHITE).main == 120
    black = engine.time_control.clock(BLACK)
    assert (black.main, black.period, black.stones) == (0, 25, 3)
    assert error(engine, "time_left x 1 0") == "invalid color"
    assert error(engine, "time_left b 1") == "syntax error"
    assert error(engine, "time_left b -1 0") == "syntax error"


def test_genmove_uses_the_clock(engine):
    seen = []

    class Spy(DecisionAlgorithm):
        name = "spy"

        def choose_move(self, state, color, seconds=None):
            seen.append(seconds)
            return None

    engine.algorithm = Spy()
    ok(engine, "genmove b")
    ok(engine, "time_settings 0 10 1")
    ok(engine, "time_left b 10 1")
    ok(engine, "genmove b")
    assert seen[0] is None
    assert 0 < seen[1] < 10


# ---------------------------------------------------------------- SGF
@pytest.fixture
def sgf_file(tmp_path):
    pytest.importorskip("imago.sgf")
    path = tmp_path / "game.sgf"
    path.write_text("(;GM[1]FF[4]SZ[13]KM[0.5]HA[2]AB[dj][jd]PL[W]"
                    ";W[gg](;B[gh];W[hh];B[tt])(;B[aa]))\n", encoding="utf-8")
    return path


def test_loadsgf_whole_main_line(engine, sgf_file):
    assert gtp(engine, f"1 loadsgf {sgf_file}") == "=1\n\n"
    assert engine.size == 13 and engine.state.komi == 0.5
    assert engine.state.handicap == 2
    assert stone(engine, "D4") == BLACK and stone(engine, "K10") == BLACK
    assert ok(engine, "move_history") == "black pass\nwhite H6\nblack G6\nwhite G7"
    assert engine.state.to_move == WHITE


def test_loadsgf_before_move_n(engine, sgf_file):
    ok(engine, f"loadsgf {sgf_file} 3")  # moves 1 and 2 played
    assert ok(engine, "move_history") == "black G6\nwhite G7"
    assert engine.state.to_move == WHITE
    ok(engine, f"loadsgf {sgf_file} 1")  # the handicap position
    assert ok(engine, "move_history") == ""
    assert stone(engine, "D4") == BLACK and engine.state.to_move == WHITE
    assert error(engine, "undo") == "cannot undo"
    ok(engine, f"loadsgf {sgf_file} 99")
    assert engine.state.current.number == 4
    # the rest of the record is dropped: genmove continues from here
    ok(engine, f"loadsgf {sgf_file} 2")
    assert engine.state.current.children == []


def test_loadsgf_errors_leave_the_game(engine, sgf_file, tmp_path):
    ok(engine, "play b e5")
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;GM[1]SZ[9];B[ee", encoding="utf-8")
    chess = tmp_path / "chess.sgf"
    chess.write_text("(;GM[3])", encoding="utf-8")
    for path, reason in ((tmp_path / "missing.sgf", "No such file or directory"),
                         (tmp_path, "Is a directory"),
                         (chess, "line 1 column 2: GM[3]: not a game of Go")):
        assert gtp(engine, f"4 loadsgf {path}").startswith(f"?4 cannot load file: {reason}")
    assert error(engine, f"loadsgf {sgf_file} 0") == "syntax error"
    assert error(engine, f"loadsgf {sgf_file} x") == "syntax error"
    assert error(engine, "loadsgf") == "syntax error"
    assert engine.size == 9 and stone(engine, "E5") == BLACK


def test_loadsgf_counts_by_the_records_rules_unless_rules_were_set(engine, tmp_path, caplog):
    import logging

    japanese = tmp_path / "japanese.sgf"
    japanese.write_text("(;GM[1]SZ[9]KM[6.5]RU[Japanese];B[ee];W[cc])", encoding="utf-8")
    chinese = tmp_path / "chinese.sgf"
    chinese.write_text("(;GM[1]SZ[9]HA[2]KM[0.5]RU[Chinese]AB[cc][gg];W[ee])",
                       encoding="utf-8")
    odd = tmp_path / "odd.sgf"
    odd.write_text("(;GM[1]SZ[9]RU[Klingon];B[ee])", encoding="utf-8")
    with caplog.at_level(logging.INFO, logger="imago.gtp"):
        ok(engine, f"loadsgf {japanese}")
    assert engine.state.scoring == "territory" and engine.state.komi == 6.5
    assert "counted by the record's rules 'Japanese': territory scoring" in caplog.text
    ok(engine, f"loadsgf {chinese}")
    assert (engine.state.scoring, engine.state.handicap_bonus) == ("area", "N")
    assert engine.state.game_komi == 2.5  # a point for each of the two handicap stones
    caplog.clear()
    with caplog.at_level(logging.INFO, logger="imago.gtp"):
        ok(engine, f"loadsgf {odd}")  # unknown: the rules in force stay
    assert (engine.state.scoring, engine.state.handicap_bonus) == ("area", "N")
    assert "'Klingon' are not a set imago knows" in caplog.text
    cgos = tmp_path / "cgos.sgf"  # the Computer Go Server's name for its rules
    cgos.write_text("(;GM[1]SZ[9]KM[7.5]RU[Tromp/Taylor];B[ee])", encoding="utf-8")
    with caplog.at_level(logging.INFO, logger="imago.gtp"):
        ok(engine, f"loadsgf {cgos}")
    assert engine.state.capture_dead and engine.state.handicap_bonus == "0"
    assert "dead stones captured before passing" in caplog.text
    assert "RU[Tromp-Taylor]" in ok(engine, "printsgf")  # KataGo's name, read back the same
    ok(engine, f"loadsgf {chinese}")
    assert not engine.state.capture_dead
    ok(engine, "kata-set-rules tromp-taylor")  # the controller's rules win from now on
    ok(engine, f"loadsgf {japanese}")
    assert (engine.state.scoring, engine.state.handicap_bonus) == ("area", "0")


def test_printsgf(engine, sgf_file, tmp_path):
    pytest.importorskip("imago.sgf")
    ok(engine, "komi 6.5")
    ok(engine, "play b e5")
    ok(engine, "play w pass")
    text = ok(engine, "printsgf")
    assert text.startswith("(;") and "SZ[9]" in text and "KM[6.5]" in text
    assert "B[ee]" in text and "W[]" in text
    out = tmp_path / "out.sgf"
    assert gtp(engine, f"2 printsgf {out}") == "=2\n\n"
    ok(engine, "clear_board")
    ok(engine, f"loadsgf {out}")
    assert stone(engine, "E5") == BLACK and engine.state.current.is_pass
    assert error(engine, f"printsgf {tmp_path / 'no' / 'such' / 'dir.sgf'}") == \
        "cannot save file: No such file or directory"
    assert "RU" not in ok(engine, "printsgf")
    ok(engine, "kata-set-rules japanese")
    assert "RU[Japanese]" in ok(engine, "printsgf")  # counted by territory
