"""Terminal play: go.py and imago.terminal driven through stdin,
in-process (TerminalGame on string streams) and as a subprocess."""

from __future__ import annotations

import importlib.util
import io
import re
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

from imago import terminal
from imago.engine.algorithm import RESIGN, DecisionAlgorithm
from imago.terminal import COMMANDS, TerminalGame, render_board
from imago.game import BLACK, WHITE, GameState, vertex_to_index
from imago.game.rulesets import parse_rules

REPO = Path(__file__).resolve().parent.parent
GO_PY = REPO / "go.py"

# Black plays E4 capturing D4, which makes a ko: White may not retake at D4 at once.
KO_SETUP = ["c4", "e5", "d5", "e3", "d3", "f4", "a9", "d4", "e4"]


def play(lines: list[str], **options) -> tuple[str, int, TerminalGame]:
    """Run a game in-process on the given input lines; (output, exit code, game).
    The engine is ``random`` unless the test names another (these tests are
    about the terminal game, not the default engine)."""
    options.setdefault("algorithm", "random")
    out = io.StringIO()
    game = TerminalGame.create(io.StringIO("".join(f"{x}\n" for x in lines)), out, **options)
    code = game.run()
    return out.getvalue(), code, game


def hvh(lines: list[str], **options) -> tuple[str, int, TerminalGame]:
    """A human-vs-human game in-process."""
    return play(lines, humans=(BLACK, WHITE), **options)


def run_go(args: list[str], text: str = "") -> subprocess.CompletedProcess:
    """go.py as a subprocess with ``text`` on stdin (engine ``random``
    unless the test names an algorithm)."""
    if "--algorithm" not in args and "--help" not in args:
        args = ["--algorithm", "random", *args]
    return subprocess.run([sys.executable, str(GO_PY), *args], input=text,
                          capture_output=True, text=True, cwd=REPO, timeout=60)


def vertices(game: TerminalGame) -> list[str]:
    """The moves of the game so far as ``B D4`` / ``W pass``."""
    return [f"{'B' if n.color == BLACK else 'W'} {n.vertex}" for n in game.state.history()]


class Scripted(DecisionAlgorithm):
    """A test algorithm that returns the given answers in turn, then passes."""

    name = "scripted"

    def __init__(self, answers: list):
        self.answers = list(answers)
        self.closed = False

    def choose_move(self, state: GameState, color: int,
                    seconds: Optional[float] = None) -> Optional[int]:
        return self.answers.pop(0) if self.answers else None

    def close(self) -> None:
        self.closed = True


def scripted_game(answers: list, lines: list[str], human: int = BLACK):
    """A human against a :class:`Scripted` engine, in-process."""
    state = GameState(9, 7.5)
    engine = Scripted([vertex_to_index(a, 9) if isinstance(a, str) else a for a in answers])
    out = io.StringIO()
    players = {human: None, 3 - human: engine}
    game = TerminalGame(state, players, io.StringIO("".join(f"{x}\n" for x in lines)), out)
    code = game.run()
    return out.getvalue(), code, game, engine


# ---------------------------------------------------------------- the board
@pytest.mark.parametrize("vertex", ["A1", "A9", "E5", "J1", "J9", "B8"])
def test_board_marks_last_move_and_keeps_columns_aligned(vertex):
    state = GameState(9, 7.5)
    state.play(BLACK, vertex_to_index("C3", 9))
    state.play(WHITE, vertex_to_index(vertex, 9))
    lines = render_board(state.board, state.current.point).splitlines()
    assert lines[0] == lines[-1] == "    A B C D E F G H J"
    rows = lines[1:-1]
    assert len({len(r) for r in rows}) == 1, "every row has the same width"
    row = rows[9 - int(vertex[1:])]
    col = "ABCDEFGHJ".index(vertex[0])
    at = 4 + 2 * col  # where the stone sits under its column letter
    assert lines[0][at] == vertex[0]
    assert row[at - 1:at + 2] == "(O)"
    assert rows[6][4 + 2 * 2] == "X"  # C3 under C, unmarked
    # the row numbers keep a space from the board, even beside an edge marker
    assert row.startswith(f" {vertex[1:]} ") and row.endswith(f" {vertex[1:]}")
    assert sum(r.count("(") for r in rows) == 1


def test_board_shows_star_points_and_coordinates_on_19x19():
    state = GameState(19, 7.5)
    text = render_board(state.board)
    lines = text.splitlines()
    assert lines[0] == "    A B C D E F G H J K L M N O P Q R S T"
    assert lines[1].startswith("19  ") and lines[1].endswith("  19")
    assert lines[19].startswith(" 1  ") and lines[19].endswith("  1")
    assert lines[4][4 + 2 * 3] == "+"  # D16 hoshi
    assert "(" not in text


# ---------------------------------------------------------------- human vs human
def test_human_vs_human_capture_is_shown():
    out, code, game = hvh(["e5", "d5", "a1", "e4", "b1", "e6", "c1", "f5", "quit"])
    assert code == 0
    assert "Captures: Black 0, White 1." in out
    assert game.state.current.captures == (0, 1)
    assert game.state.board[vertex_to_index("E5", 9)] == 0  # the stone is gone
    assert "Move 8: White F5." in out
    assert "Black (X) to play, move 9." in out
    assert "Game abandoned." in out and out.rstrip().endswith("Bye.")


def test_moves_accept_either_case_and_pass_in_capitals():
    out, code, game = hvh(["d4", "E5", "PASS", "quit"])
    assert vertices(game) == ["B D4", "W E5", "B pass"]
    assert "illegal" not in out and "unknown" not in out


def test_prompt_names_the_side_and_move_number_and_echoes_piped_input():
    out, _, _ = hvh(["d4", "quit"])
    assert "Black (X) move 1> d4\n" in out
    assert "White (O) move 2> quit\n" in out


def test_ko_is_refused_with_the_reason_and_the_game_is_unchanged():
    out, _, game = hvh(KO_SETUP + ["d4", "board", "j1", "j9", "d4", "quit"])
    assert "illegal move: ko (D4 would retake the ko at once; play elsewhere first)" in out
    # after the refusal White still moves, then Black, then White retakes legally
    assert vertices(game)[-4:] == ["B E4", "W J1", "B J9", "W D4"]
    assert game.state.current.captures == (1, 1)


def test_occupied_and_suicide_are_refused_with_reasons():
    # White B1 and A2 make A1 a suicide point for Black
    out, _, game = hvh(["e5", "b1", "e4", "a2", "e5", "a1", "quit"])
    assert "illegal move: occupied (E5 already has a stone)" in out
    assert "illegal move: suicide (A1 would leave your own stones without liberties)" in out
    assert vertices(game) == ["B E5", "W B1", "B E4", "W A2"]
    assert game.state.to_move == BLACK


@pytest.mark.parametrize("line, answer", [
    ("z99", "not a vertex: z99; on this board columns are A-J and rows 1-9"),
    ("k5", "not a vertex: k5;"),
    ("a10", "not a vertex: a10;"),
    ("a0", "not a vertex: a0;"),
    ("i5", "not a vertex: i5 (columns skip I);"),
    ("foo", "unknown command 'foo' (type help)"),
    ("d4 e5", "a move takes no argument: 'd4 e5'"),
    ("d4\te5", "a move takes no argument: 'd4\\te5'"),
    ("undo please", "undo takes no argument"),
    ("4d", "unknown command '4d' (type help)"),
    ("%$#", "unknown command '%$#' (type help)"),
])
def test_bad_input_gets_a_reason_never_a_traceback(line, answer):
    out, code, game = hvh([line, "quit"])
    assert code == 0
    assert answer in out
    assert "Traceback" not in out
    assert game.state.history() == []


def test_blank_lines_are_ignored():
    out, _, game = hvh(["", "   ", "d4", "quit"])
    assert vertices(game) == ["B D4"]
    assert "unknown" not in out


# ---------------------------------------------------------------- undo, score, help
def test_undo_between_humans_takes_back_one_move():
    out, _, game = hvh(["undo", "d4", "e5", "undo", "quit"])
    assert "nothing to undo" in out
    assert "Took back E5." in out
    assert vertices(game) == ["B D4"]
    assert game.state.to_move == WHITE


def test_undo_against_the_engine_takes_back_the_reply_and_your_move():
    out, _, game = play(["e5", "c3", "undo", "quit"], seed=3)
    assert len(game.state.history()) == 2
    first_two = vertices(game)
    assert first_two[0] == "B E5"
    assert "Took back C3, " in out
    assert game.state.to_move == BLACK
    # once more, then nothing is left to take back
    out, _, game = play(["e5", "undo", "undo", "quit"], seed=3)
    assert game.state.history() == [] and game.state.to_move == BLACK
    assert "nothing to undo" in out


def test_undo_as_white_does_not_take_back_the_engines_first_move():
    out, _, game = play(["undo", "e5", "undo", "quit"], humans=(WHITE,), seed=5)
    assert "nothing to undo" in out
    assert len(game.state.history()) == 1
    assert game.state.history()[0].color == BLACK
    assert game.state.to_move == WHITE


def test_score_is_the_current_area_score():
    out, _, game = hvh(["score", "e5", "score", "quit"])
    assert "Score: W+7.5 (Black 0, White 0, komi 7.5)" in out
    assert "Score: B+73.5 (Black 81, White 0, komi 7.5)" in out
    assert game.state.score() == 73.5


def test_help_lists_every_command():
    out, _, _ = hvh(["help", "quit"])
    for name, entry in COMMANDS.items():
        assert name in out and entry.help in out
    for name in ("pass", "undo", "resign", "score", "help", "quit"):
        assert name in COMMANDS
    assert "D4, d4" in out


def test_a_new_command_is_one_table_entry():
    def hello(game, argument):
        game.say(f"hello {argument}")
    COMMANDS["hello"] = terminal.Command("hello", hello, "say hello", "NAME")
    try:
        out, _, _ = hvh(["hello", "hello world", "help", "quit"])
    finally:
        del COMMANDS["hello"]
    assert "usage: hello NAME" in out
    assert "hello world\n" in out.split("hello world\n", 1)[1]  # the answer, after the echo
    assert "hello NAME" in out and "say hello" in out


# ---------------------------------------------------------------- the end
def test_two_passes_end_the_game_with_the_area_score():
    out, code, game = hvh(["e5", "pass", "pass", "d4", "score", "quit"])
    assert code == 0
    assert "Game over: B+73.5 (Black 81, White 0, komi 7.5)" in out
    assert "Dead stones: none.\nGame over: B+73.5" in out
    assert "game over> d4" in out
    assert "the game is over (undo to take moves back, or quit)" in out
    assert "Score: B+73.5" in out
    assert vertices(game) == ["B E5", "W pass", "B pass"]
    assert "Game abandoned" not in out


def test_undo_after_the_end_reopens_the_game():
    out, _, game = hvh(["pass", "pass", "undo", "d4", "quit"])
    assert "Game over: W+7.5" in out
    assert vertices(game) == ["B pass", "W D4"]


def test_human_resigns():
    out, code, game = hvh(["d4", "resign", "pass", "quit"])
    assert code == 0
    assert "White resigns." in out
    assert "Game over: White resigned, B+R" in out
    assert "the game is over" in out  # the pass after it is refused
    assert vertices(game) == ["B D4"]


def test_end_of_input_ends_cleanly():
    out, code, _ = hvh(["d4"])
    assert code == 0
    assert out.rstrip().endswith("End of input: game left unfinished. Bye.")
    out, code, _ = hvh(["pass", "pass"])
    assert code == 0
    assert out.rstrip().endswith("End of input. Bye.")


# ---------------------------------------------------------------- the engine
def test_random_engine_plays_legal_replies_repeatably():
    lines = ["e5", "c3", "g7", "c7", "g3", "quit"]
    out, code, game = play(lines, seed=11)
    again, _, game2 = play(lines, seed=11)
    assert code == 0
    assert out == again, "the same seed gives the same game"
    moves = game.state.history()
    assert len(moves) >= 8 and len(moves) % 2 == 0
    assert [n.color for n in moves] == [BLACK, WHITE] * (len(moves) // 2)
    assert out.count("White (random) plays ") == len(moves) // 2
    # replaying the moves on a fresh state checks they were all legal
    fresh = GameState(9, 7.5)
    for node in moves:
        fresh.play(node.color, node.point)


def test_engine_moves_first_when_the_human_is_white():
    out, _, game = play(["quit"], humans=(WHITE,), seed=1)
    assert len(game.state.history()) == 1
    assert "Black (random) plays " in out
    assert "White (O) move 2> quit" in out


def test_handicap_stones_and_white_moves_first():
    out, _, game = play(["quit"], handicap=2, seed=1)
    assert "imago: 9x9, komi 0.5, handicap 2." in out
    board = game.state.board
    for vertex in ("C3", "G7"):
        assert board[vertex_to_index(vertex, 9)] == BLACK
    assert [n.color for n in game.state.history()] == [WHITE]
    assert "Black (X) move 2> quit" in out


def test_engine_resignation_ends_the_game():
    out, code, game, engine = scripted_game([RESIGN], ["e5", "d4", "quit"])
    assert code == 0
    assert "White (scripted) resigns." in out
    assert "Game over: White resigned, B+R" in out
    assert vertices(game) == ["B E5"]
    assert engine.closed


def test_engine_illegal_move_is_refused():
    out, _, game, _ = scripted_game(["E5"], ["e5", "quit"])
    assert "engine error: scripted chose an illegal move (E5: occupied); it passes instead." \
        in out
    assert vertices(game) == ["B E5", "W pass"]


def test_engine_pass_after_human_pass_ends_the_game():
    out, _, game, _ = scripted_game([None], ["pass", "quit"])
    assert "White (scripted) passes." in out
    assert "Game over: W+7.5 (Black 0, White 0, komi 7.5)" in out


def test_unknown_algorithm_option_is_a_value_error():
    with pytest.raises(ValueError, match="unknown algorithm"):
        TerminalGame.create(io.StringIO(), io.StringIO(), algorithm="nope")
    with pytest.raises(ValueError, match="handicap"):
        TerminalGame.create(io.StringIO(), io.StringIO(), handicap=1)
    with pytest.raises(ValueError, match="board size"):
        TerminalGame.create(io.StringIO(), io.StringIO(), size=26)


# ---------------------------------------------------------------- SGF files
def test_save_writes_the_game_and_its_result(tmp_path):
    from imago import sgf
    path = tmp_path / "game.sgf"
    out, _, game = hvh(["e5", "d5", f"save {path}", "pass", "pass", f"save {path}", "quit"])
    assert f"Saved 2 moves to {path}." in out
    assert f"Saved 4 moves to {path}." in out
    [saved] = sgf.load(path)
    props = saved.root.properties
    assert props["RE"] == ["W+7.5"] and props["PB"] == ["human"] and props["PW"] == ["human"]
    assert [(n.color, n.vertex) for n in saved.root.main_line() if n.is_move] == \
        [(BLACK, "E5"), (WHITE, "D5"), (BLACK, "pass"), (WHITE, "pass")]
    assert saved.komi == 7.5 and saved.size == 9


def test_save_names_the_engine_and_a_resignation(tmp_path):
    from imago import sgf
    path = tmp_path / "resigned.sgf"
    out, _, game = play(["e5", "resign", f"save {path}", "quit"], seed=2)
    [saved] = sgf.load(path)
    assert saved.root.properties["RE"] == ["W+R"]
    assert saved.root.properties["PW"] == ["imago (random)"]
    assert saved.root.properties["PB"] == ["human"]


def test_load_goes_on_from_the_end_of_the_main_line(tmp_path):
    path = tmp_path / "opening.sgf"
    path.write_text("(;GM[1]SZ[9]KM[6.5];B[ee];W[dc](;B[cg])(;B[gg]))", encoding="utf-8")
    out, _, game = hvh([f"load {path}", "undo", "quit"])
    assert f"Loaded {path}: 9x9, komi 6.5, 3 moves." in out
    assert "Move 3: Black C3." in out and "White (O) to play, move 4." in out
    assert vertices(game) == ["B E5", "W D7"]  # after the undo
    assert game.state.komi == 6.5


def test_load_lets_the_engine_answer_when_it_is_to_move(tmp_path):
    path = tmp_path / "black-moved.sgf"
    path.write_text("(;SZ[9];B[ee])", encoding="utf-8")
    out, _, game = play([f"load {path}", "quit"], seed=4)
    assert "White (random) plays " in out
    assert len(game.state.history()) == 2 and game.state.to_move == BLACK


def test_load_a_finished_game_announces_the_result(tmp_path):
    path = tmp_path / "over.sgf"
    path.write_text("(;SZ[9]KM[7.5];B[ee];W[];B[])(;SZ[13])", encoding="utf-8")
    out, _, game = hvh([f"load {path}", "d4", "quit"])
    assert "(the first of 2 games)" in out
    assert "Game over: B+73.5 (Black 81, White 0, komi 7.5)" in out
    assert "the game is over" in out


# ---------------------------------------------------------------- rules
def test_japanese_rules_count_by_territory_with_their_komi():
    out, _, game = hvh(["e5", "d5", "score", "pass", "pass", "quit"], rules=parse_rules("japanese"))
    assert "imago: 9x9, komi 6.5, territory scoring." in out
    assert "Rules: imago plays positional superko and no suicide, and plays so, not with " \
        "simple ko." in out
    # by area 40.5 - 40.5 = 0 less komi; by territory both put a stone on the board
    assert "Score: W+6.5 (Black 1, White 1, komi 6.5; by territory: both put as many " \
        "stones on the board)" in out
    assert game.state.scoring == "territory"


def test_territory_counts_the_stones_each_side_played_against_it():
    # Black B1 and A2 capture White's A1: territory 79 and a prisoner, less 6.5
    # (by area B+74.5)
    out, _, _ = hvh(["b1", "a1", "a2", "pass", "pass", "quit"], rules=parse_rules("japanese"))
    assert "Game over: B+73.5 (Black 81, White 0, komi 6.5; by territory: Black put 1 " \
        "stone more on the board)" in out


def test_chinese_rules_give_white_a_point_a_handicap_stone():
    out, _, game = play(["quit"], handicap=3, seed=1, rules=parse_rules("chinese"))
    assert "imago: 9x9, komi 0.5 and White's handicap bonus 3, handicap 3." in out
    assert game.state.game_komi == 3.5 and game.state.komi == 0.5
    assert game.state.scoring == "area"


def test_a_loaded_game_is_counted_by_the_rules_given(tmp_path):
    path = tmp_path / "over.sgf"
    path.write_text("(;SZ[9]KM[6.5];B[ee];W[];B[])", encoding="utf-8")
    out, _, game = hvh([f"load {path}", "quit"], rules=parse_rules("japanese"))
    assert "Game over: B+73.5 (Black 81, White 0, komi 6.5; by territory: Black put 1 " \
        "stone more on the board)" in out
    assert game.state.scoring == "territory"


def test_a_loaded_game_is_counted_by_its_records_rules(tmp_path):
    japanese = tmp_path / "japanese.sgf"
    japanese.write_text("(;SZ[9]KM[6.5]RU[Japanese];B[ee];W[];B[])", encoding="utf-8")
    out, _, game = hvh([f"load {japanese}", "quit"])
    assert f"Loaded {japanese}: 9x9, komi 6.5, territory scoring, 3 moves." in out
    assert "Game over: B+73.5 (Black 81, White 0, komi 6.5; by territory: Black put 1 " \
        "stone more on the board)" in out
    chinese = tmp_path / "chinese.sgf"
    chinese.write_text("(;SZ[9]KM[0.5]HA[2]RU[Chinese]AB[cc][gg];W[ee])", encoding="utf-8")
    out, _, game = hvh([f"load {chinese}", "quit"])
    assert f"Loaded {chinese}: 9x9, komi 0.5 and White's handicap bonus 2, handicap 2, " \
        "1 move." in out
    assert game.state.game_komi == 2.5
    odd = tmp_path / "odd.sgf"
    odd.write_text("(;SZ[9]KM[7.5]RU[Chess];B[ee])", encoding="utf-8")
    out, _, game = hvh([f"load {odd}", "quit"])
    assert f"Loaded {odd}: 9x9, komi 7.5, 1 move; its rules 'Chess' are not a set imago " \
        "knows: counted by area." in out
    assert game.state.scoring == "area"
    # rules given on the command line win over the record's
    out, _, game = hvh([f"load {japanese}", "quit"], rules=parse_rules("chinese"))
    assert game.state.scoring == "area" and game.state.handicap_bonus == "N"


def test_a_game_saved_under_japanese_rules_loads_under_them(tmp_path):
    path = tmp_path / "saved.sgf"
    hvh(["e5", "d5", f"save {path}", "quit"], rules=parse_rules("japanese"))
    assert "RU[Japanese]" in path.read_text(encoding="utf-8")
    out, _, game = hvh([f"load {path}", "quit"])
    assert game.state.scoring == "territory" and game.state.komi == 6.5


def test_go_py_rules_option():
    proc = run_go(["--human-vs-human", "--rules", "korean"], "e5\npass\npass\nquit\n")
    assert proc.returncode == 0
    assert "imago: 9x9, komi 6.5, territory scoring." in proc.stdout
    assert "Game over: B+73.5" in proc.stdout
    proc = run_go(["--human-vs-human", "--rules", '{"scoring": "TERRITORY", "suicide": false}'],
                  "quit\n")
    assert "imago: 9x9, komi 6.5, territory scoring." in proc.stdout


def test_load_and_save_errors_are_reasons_not_tracebacks(tmp_path):
    bad = tmp_path / "bad.sgf"
    bad.write_text("(;SZ[9];B[ee];W[ee", encoding="utf-8")
    missing = tmp_path / "missing.sgf"
    unwritable = tmp_path / "no" / "such" / "dir.sgf"
    out, code, game = hvh(["d4", f"load {bad}", f"load {missing}", f"save {unwritable}",
                           "load", "save", "quit"])
    assert code == 0
    assert f"cannot load {bad}:1:" in out
    assert f"cannot load {missing}: No such file or directory" in out
    assert f"cannot save {unwritable}: No such file or directory" in out
    assert "usage: load FILE" in out and "usage: save FILE" in out
    assert vertices(game) == ["B D4"], "a failed load keeps the game"
    assert "Traceback" not in out


# ---------------------------------------------------------------- go.py itself
def test_go_py_main_in_process(monkeypatch, capsys):
    spec = importlib.util.spec_from_file_location("go_under_test", GO_PY)
    go = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(go)
    monkeypatch.setattr(sys, "stdin", io.StringIO("e5\nd5\nscore\nquit\n"))
    assert go.main(["--human-vs-human", "--size", "7", "--komi", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "imago: 7x7, komi 0.5." in out
    assert "Black (X): human" in out and "White (O): human" in out
    assert "Score: " in out and "komi 0.5)" in out


def test_go_py_human_vs_human_game_through_a_pipe():
    moves = ["e5", "d5", "a1", "e4", "b1", "e6", "c1", "f5", "pass", "pass"]
    proc = run_go(["--human-vs-human"], "\n".join(moves) + "\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "Captures: Black 0, White 1." in proc.stdout
    assert "Game over: W+" in proc.stdout
    assert proc.stdout.rstrip().endswith("End of input. Bye.")


def test_go_py_against_the_random_engine_through_a_pipe():
    proc = run_go(["--seed", "7", "--color", "white", "--time", "1"], "e5\nc3\nundo\nquit\n")
    assert proc.returncode == 0, proc.stderr
    assert "Black (X): engine (random)" in proc.stdout
    assert proc.stdout.count("Black (random) plays ") >= 2
    assert "Took back " in proc.stdout
    assert "Traceback" not in proc.stdout + proc.stderr


def test_go_py_algorithm_options_reach_the_algorithm():
    by_seed = run_go(["--seed", "9"], "e5\nc3\nquit\n")
    by_option = run_go(["-o", "seed=9"], "e5\nc3\nquit\n")
    assert by_seed.returncode == by_option.returncode == 0
    assert by_seed.stdout == by_option.stdout
    assert by_seed.stdout != run_go(["--seed", "10"], "e5\nc3\nquit\n").stdout


def test_model_names_the_network_for_both_command_lines():
    from imago.gtp.cli import build_parser as gtp_parser, engine_options
    from imago.terminal_cli import build_parser as play_parser

    for parser in (gtp_parser(), play_parser()):
        args = parser.parse_args(["--algorithm", "mcts", "--model", "multi"])
        assert engine_options(args)["model"] == "multi"
        args = parser.parse_args(["--algorithm", "mcts", "--model", "multi", "-o", "model=none"])
        assert engine_options(args)["model"] is None  # -o wins (none: playouts), as for all


def test_go_py_end_of_input_exits_zero():
    proc = run_go([], "")
    assert proc.returncode == 0
    assert "End of input: game left unfinished. Bye." in proc.stdout
    assert proc.stderr == ""


def test_go_py_survives_bytes_that_are_not_utf8():
    proc = subprocess.run([sys.executable, str(GO_PY), "--human-vs-human"],
                          input=b"\xff\xfe\nd4\nquit\n", capture_output=True,
                          cwd=REPO, timeout=60)
    assert proc.returncode == 0
    assert b"unknown command" in proc.stdout
    assert b"Move 1: Black D4." in proc.stdout
    assert proc.stderr == b""


def test_go_py_help():
    proc = run_go(["--help"])
    assert proc.returncode == 0
    for option in ("--color", "--human-vs-human", "--size", "--komi", "--handicap",
                   "--algorithm", "--seed", "--time", "--rules"):
        assert option in proc.stdout
    for name in COMMANDS:
        assert f"\n  {name}" in proc.stdout


@pytest.mark.parametrize("args, reason", [
    (["--handicap", "1"], "handicap must be 0 (none) or at least 2 stones"),
    (["--handicap", "10"], "invalid number of stones"),
    (["--size", "1"], "board size must be 2..25"),
    (["--algorithm", "nope"], "unknown algorithm 'nope'"),
    (["--color", "green"], "invalid choice"),
    (["--time", "0"], "--time must be positive"),
    (["-o", "bogus=1"], "algorithm 'random' refused the options {'bogus': 1}"),
    (["--model", "multi"], "the random algorithm uses no network, so --model means nothing"),
    (["-o", "bogus"], "expected KEY=VALUE, not 'bogus'"),
    (["--rules", "chess"], "argument --rules: unknown rules"),
    (["--rules", "{scoring"], "argument --rules: not a JSON object of rule options"),
    (["--rules", '{"scoring": "EYES"}'],
     "argument --rules: rules option scoring must be one of AREA, TERRITORY"),
])
def test_go_py_refuses_bad_options_with_reasons(args, reason):
    proc = run_go(args)
    assert proc.returncode == 2
    assert reason in proc.stderr
    assert "Traceback" not in proc.stderr


# ---------------------------------------------------------------- hint, stats
def test_hint_suggests_a_legal_move_without_playing_it():
    out, code, game = play(["e5", "hint", "quit"], algorithm="uct", seed=3,
                           options={"visits": 200})
    assert code == 0
    hint = [line for line in out.splitlines() if line.startswith("hint: ")]
    assert len(hint) == 1
    vertex = hint[0].split()[1]
    point = vertex_to_index(vertex, 9)
    assert game.state.board.illegal_reason(point, BLACK) is None
    assert "winrate" in hint[0] and "visits" in hint[0]
    assert len(game.state.history()) == 2  # e5 and the engine's reply only


def test_hint_between_two_humans_uses_a_quick_search():
    out, code, game = hvh(["hint", "quit"])
    assert code == 0 and "hint: " in out and not game.state.history()


def test_stats_line_after_engine_moves():
    out, code, game = play(["e5", "quit"], algorithm="uct", seed=3, options={"visits": 100})
    assert "winrate" not in out
    game_out = run_go(["--algorithm", "uct", "-o", "visits=100", "--seed", "3", "--stats"],
                      "e5\nquit\n").stdout
    assert re.search(r"\(winrate \d+\.\d%, 100 visits, expects [A-HJ-T]\d+", game_out)


def test_visits_and_no_resign_reach_the_engine():
    proc = run_go(["--algorithm", "uct", "--visits", "40", "--no-resign", "--stats"], "e5\nquit\n")
    assert proc.returncode == 0 and ", 40 visits" in proc.stdout
    assert run_go(["--algorithm", "random", "--visits", "5"], "quit\n").returncode == 2


# ---------------------------------------------------------------- disputes
ONE_DEAD_STONE = ["X X X X X . ."] + [". . . . X . ."] * 2 + [". O . . X . ."] \
    + [". . . . X . ."] * 2 + ["X X X X X . ."]
"""One white stone in Black's area: the count takes it as dead."""


def test_dead_stones_can_be_disputed_after_the_game(tmp_path):
    from conftest import from_rows

    state = from_rows(ONE_DEAD_STONE, komi=0.5)
    state.play(BLACK, None)
    path = tmp_path / "disputed.sgf"
    out = io.StringIO()
    lines = ["pass", "dead b4", "score", f"save {path}", "dead b4", "dead z9", "dead b4",
             "dead e4", "quit"]
    game = TerminalGame(state, {BLACK: None, WHITE: None},
                        io.StringIO("".join(f"{x}\n" for x in lines)), out)
    game.run()
    text = out.getvalue()
    before, disputed, back, _, black_dead = text.split("Game over: ")[1:6]
    assert "Dead stones: white B4." in text and "Disagree? Type dead VERTEX" in text
    assert before.startswith("B+") and "dead: 0 black, 1 white" in before
    assert "White B4 and its string (1 stones) now count as alive." in text
    assert "Dead stones: none." in text
    assert disputed.split()[0] != before.split()[0]  # the live stone spoils Black's area
    assert f"Score: {disputed.split()[0]}" in text
    from imago import sgf
    [saved] = sgf.load(path)
    assert saved.root.properties["RE"] == [disputed.split()[0]]
    assert back.split()[0] == before.split()[0]  # marked dead again
    assert "not a vertex: z9" in text
    assert "Black E4 and its string (15 stones) now count as dead." in text
    assert black_dead.startswith("W+49.5 (Black 0, White 49")


def test_under_tromp_taylor_every_stone_standing_at_the_end_is_alive():
    from conftest import from_rows

    state = from_rows(ONE_DEAD_STONE, komi=0.5)
    state.apply_rules(parse_rules("tromp-taylor"))
    state.play(BLACK, None)
    out = io.StringIO()
    game = TerminalGame(state, {BLACK: None, WHITE: None},
                        io.StringIO("pass\ndead b4\nquit\n"), out)
    game.run()
    text = out.getvalue()
    assert "dead: " not in text.split("Game over: ")[1].split(")")[0]  # B4 counted alive
    assert "every stone standing at the end is alive" in text


def test_dead_is_refused_while_the_game_goes_on():
    out, _, _ = hvh(["e5", "dead e5", "quit"])
    assert "dead marks stones after two passes end the game" in out


def test_long_or_odd_input_is_quoted_short():
    out, code, game = hvh(["x" * 100_000, "e" + "9" * 50_000, "e5 " + "y" * 10_000,
                           "\x00\x01e5", "quit"])
    assert code == 0 and not game.state.history()
    answers = [line for line in out.splitlines() if "> " not in line]  # not the echoes
    assert max(len(line) for line in answers) < 200
    assert "(100,000 characters) (type help)" in out
    assert "(50,001 characters)" in out
    assert "unknown command '\\x00\\x01e5'" in out


def test_load_and_save_refuse_devices_fifos_and_giants_at_once(tmp_path):
    import os

    from imago.sgf.files import MAX_SGF_BYTES

    fifo = tmp_path / "fifo.sgf"
    os.mkfifo(fifo)
    giant = tmp_path / "giant.sgf"
    giant.write_bytes(b"(;C[" + b"x" * MAX_SGF_BYTES + b"])")
    out, code, game = hvh(["load /dev/zero", f"load {fifo}", f"load {giant}",
                           f"save {fifo}", "e5", "quit"])
    assert "cannot load /dev/zero: not a regular file" in out
    assert f"cannot load {fifo}: not a regular file" in out
    assert f"cannot load {giant}: larger than {MAX_SGF_BYTES} bytes" in out
    assert f"cannot save {fifo}: " in out
    assert code == 0 and vertices(game) == ["B E5"]


def test_the_introduction_names_what_judges_the_engines_positions():
    from imago.engine.algorithm import create_algorithm
    from imago.nn.evaluator import SIZE_MODELS, networks_can_run

    assert create_algorithm("uct").guide(9) == "random playouts"
    assert create_algorithm("random").guide(9) == ""
    mcts = create_algorithm("mcts", model="none")
    assert mcts.guide(9) == "random playouts"
    out, code, _ = play(["quit"], algorithm="uct", options={"visits": 10})
    assert code == 0 and "White (O): engine (uct, random playouts)" in out
    if networks_can_run() and SIZE_MODELS[9].exists():
        network = create_algorithm("mcts")
        assert network.guide(9) == f"network {SIZE_MODELS[9].stem}"
        assert network.guide(3) == "random playouts"  # below 5x5 the search alone
        assert create_algorithm("policy", model="multi").guide(19) == "network multi"
