"""Hostile and careless GTP input: lines holding control characters, binary
garbage and over-long lines, and bad arguments of every command -- each line
gets exactly one response, errors are one ``? reason`` line, and the game is
as it was after a refused command."""

from __future__ import annotations

import io
import os
import subprocess
import time
import sys
from pathlib import Path

import pytest

from imago.engine.engine import GameEngine
from imago.engine.random_algorithm import RandomAlgorithm
from imago.game import BLACK, EMPTY, vertex_to_index
from imago.gtp.io import MAX_LINE_BYTES, ImagoIO, read_lines

REPO = Path(__file__).resolve().parent.parent
CLI = REPO / "imagocli.py"


def make_engine(size: int = 9) -> GameEngine:
    return GameEngine(RandomAlgorithm(seed=7), size, 7.5)


def run_bytes(data: bytes, engine: GameEngine = None) -> str:
    """Everything ImagoIO answers to the bytes ``data``, read as from stdin."""
    out = io.StringIO()
    ImagoIO(engine or make_engine(), io.BytesIO(data), out).run()
    return out.getvalue()


def responses(out: str) -> list[str]:
    """The responses of a transcript, each without its closing blank line."""
    assert out == "" or out.endswith("\n\n"), out
    return out.split("\n\n")[:-1]


# ---------------------------------------------------------------- lines
@pytest.mark.parametrize("inside", ["\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85",
                                    "\u2028", "\xc2\x85", "\x00", "\x7f"])
def test_only_lf_ends_a_line(inside):
    data = ("1 name" + inside + "version\n").encode("latin-1", "replace") \
        if inside != "\u2028" else "1 name\u2028version\n".encode()
    answers = responses(run_bytes(data))
    assert len(answers) == 1
    assert answers[0].startswith("?1 ")


def test_control_characters_inside_words_are_dropped():
    assert run_bytes(b"na\rme\r\n\x0cver\x1csion\xc2\x85\n") == \
        "= imago\n\n= " + __import__("imago").__version__ + "\n\n"


def test_crlf_and_lone_cr_lines():
    assert run_bytes(b"1 name\r\n2 protocol_version\r\n\r\n\r3 name") == \
        "=1 imago\n\n=2 2\n\n=3 imago\n\n"


def test_undecodable_bytes_are_replaced_not_fatal():
    answers = responses(run_bytes(b"\xff\xfe\x80 name\nplay b \xe9\xe9\n1 name\n"))
    assert answers == ["? unknown command", "? syntax error", "=1 imago"]


def test_overlong_line_gets_one_answer_and_the_session_goes_on():
    data = b"7 boardsize " + b"9" * (3 * MAX_LINE_BYTES) + b"\n8 name\n"
    assert run_bytes(data) == "?7 line too long\n\n=8 imago\n\n"
    # a line of exactly the limit is still read
    long_ok = b"known_command " + b"x" * (MAX_LINE_BYTES - 15) + b"\n"
    assert run_bytes(long_ok) == "= false\n\n"


def test_read_lines_text_and_bytes_agree():
    text = "a\rb\x0bc\n\nlast"
    assert list(read_lines(io.StringIO(text))) == ["a\rb\x0bc\n", "\n", "last"]
    assert list(read_lines(io.BytesIO(text.encode()))) == ["a\rb\x0bc\n", "\n", "last"]


def test_random_bytes_line_answered_once():
    import random

    rng = random.Random(5)
    for _ in range(50):
        line = bytes(rng.randrange(256) for _ in range(512)).replace(b"\n", b"")
        answers = responses(run_bytes(line + b"\n1 name\n"))
        assert answers[-1] == "=1 imago"
        assert len(answers) <= 2 and all(a[:1] in "=?" for a in answers)
        assert not any("internal error" in a for a in answers)


def test_cli_reads_lf_lines_only():
    proc = subprocess.run([sys.executable, str(CLI), "--algorithm", "random"],
                          input=b"name\rversion\n1 name\x0bversion\n2 name\n",
                          capture_output=True, timeout=60)
    assert proc.returncode == 0
    assert proc.stdout.decode() == "? unknown command\n\n?1 unknown command\n\n=2 imago\n\n"


# ---------------------------------------------------------------- numbers
def answer(engine: GameEngine, line: str) -> str:
    """The one response to ``line``, without its blank line."""
    out = run_bytes(line.encode() + b"\n", engine)
    (one,) = responses(out)
    return one


@pytest.mark.parametrize("word", ["nan", "inf", "-inf", "infinity", "1e308", "1e39", "1_0",
                                  "\u0665", "0x10", "", "1e99999", "--1", ".", "1e"])
def test_numbers_outside_gtp_are_syntax_errors(word):
    engine = make_engine()
    for line in (f"komi {word}", f"time_settings {word} 1 1", f"time_left b {word} 0",
                 f"kgs-time_settings absolute {word}"):
        assert answer(engine, line) == "? syntax error", line
    assert engine.state.komi == 7.5 and engine.time_control.unlimited


@pytest.mark.parametrize("word", ["2147483648", "99999999999999999999", "1" * 5000, "\u0669",
                                  "9.0", "1e1", "0x9", "9_0"])
def test_integers_outside_gtp_are_syntax_errors(word):
    engine = make_engine()
    for line in (f"boardsize {word}", f"fixed_handicap {word}", f"time_settings 1 1 {word}",
                 f"time_left b 1 {word}", f"place_free_handicap {word}"):
        assert answer(engine, line) == "? syntax error", line
    assert engine.size == 9 and engine.state.board.is_empty_board()


def test_number_edges_accepted():
    engine = make_engine()
    for line in ("komi -3.5", "komi +.5", "komi 3.4e38", "komi 1E-5", "boardsize +9",
                 "time_settings 2147483647 0 0", "time_left b 2147483647 0"):
        assert answer(engine, line) == "=", line
    assert answer(engine, "final_score").startswith("= ")


def test_huge_clock_then_genmove_answers_within_the_cap():
    from imago.engine.timecontrol import MAX_MOVE_SECONDS

    engine = make_engine()
    assert answer(engine, "time_settings 1e300 1 1") == "? syntax error"
    assert engine.time_control.unlimited  # nothing changed
    for line in ("time_settings 2147483647 2147483647 2147483647",
                 "kgs-time_settings byoyomi 2147483647 0.000001 2147483647",
                 "time_left w 2147483647 2147483647"):
        assert answer(engine, line) == "=", line
        assert answer(engine, "genmove w")[:2] == "= "
        assert engine.time_control.seconds_for_move(3 - engine.state.to_move, 2, 9) \
            <= MAX_MOVE_SECONDS
    for line in ("time_settings -1 0 0", "time_settings 1 -1 1", "time_settings 1 1 -1",
                 "time_left b -5 0", "time_left b 5 -1", "kgs-time_settings canadian 1 1 -1",
                 "kgs-time_settings byoyomi 1 1 1.5", "kgs-time_settings absolute 1 2"):
        assert answer(engine, line) == "? syntax error", line


# ---------------------------------------------------------------- cputime
def test_cputime_counts_the_engine_s_cpu_seconds():
    engine = make_engine()
    first = float(answer(engine, "cputime")[2:])
    started = time.process_time()
    while time.process_time() - started < 0.2:
        pass
    second = float(answer(engine, "cputime")[2:])
    assert 0 <= first and second - first >= 0.19
    assert answer(engine, "known_command cputime") == "= true"
    assert answer(engine, "cputime now") == "? syntax error"


# ---------------------------------------------------------------- loadsgf
def game_facts(engine: GameEngine) -> tuple:
    """What a refused command must leave as it was."""
    return (engine.size, engine.state.komi, engine.showboard(),
            answer(engine, "move_history"), engine.state.current.number)


@pytest.fixture
def played() -> GameEngine:
    engine = make_engine()
    for line in ("komi 5.5", "play b e5", "play w c3", "play b pass"):
        assert answer(engine, line) == "="
    return engine


ILLEGAL = ("(;GM[1]FF[4]SZ[9]KM[6.5]\n"
           ";B[ee];W[dd]\n"
           "(;B[dd]C[occupied];W[cc])\n"
           "(;B[cc];W[aa]))\n")


def test_loadsgf_refuses_an_illegal_move_naming_it(played, tmp_path):
    path = tmp_path / "illegal.sgf"
    path.write_text(ILLEGAL, encoding="utf-8")
    before = game_facts(played)
    assert answer(played, f"loadsgf {path}") == \
        "? cannot load file: line 3 column 2: illegal move B[dd]: occupied"
    assert game_facts(played) == before
    # the position before the illegal move is fine, and so is the file
    # without it: the variation's moves are never checked (nor kept)
    assert answer(played, f"loadsgf {path} 3") == "="
    assert answer(played, "move_history") == "= white D6\nblack E5"
    assert played.state.current.children == []
    path.write_text(ILLEGAL.replace("B[dd]C", "B[gg]C"), encoding="utf-8")
    assert answer(played, f"loadsgf {path}") == "="
    assert answer(played, "move_history") == "= white C7\nblack G3\nwhite D6\nblack E5"


def test_undo_after_loadsgf_takes_back_moves_not_comment_nodes(played, tmp_path):
    path = tmp_path / "comments.sgf"
    path.write_text("(;GM[1]SZ[9]AB[aa];B[ee]C[one];C[two];W[dd];C[three]LB[dd:x])")
    assert answer(played, f"loadsgf {path}") == "="
    assert answer(played, "undo") == "="
    assert answer(played, "move_history") == "= black E5"
    assert played.state.board.cells[vertex_to_index("D6", 9)] == EMPTY
    assert answer(played, "undo") == "="
    assert answer(played, "move_history") == "="
    assert played.state.board.cells[vertex_to_index("E5", 9)] == EMPTY
    assert answer(played, "undo") == "? cannot undo"  # setup stones are no move
    assert played.state.board.cells[vertex_to_index("A9", 9)] == BLACK


@pytest.mark.parametrize("record, why", [
    ("(;GM[1]SZ[5]AB[ba][ab][bc]AW[ca][bb][db][cc];B[cb];W[bb])", "illegal move W[bb]: ko"),
    ("(;GM[1]SZ[5]AB[ba][ab];W[aa])", "illegal move W[aa]: suicide"),
    ("(;GM[1]SZ[9];B[zz])", "off the 9x9 board"),
])
def test_loadsgf_refuses_other_unplayable_records(played, tmp_path, record, why):
    path = tmp_path / "bad.sgf"
    path.write_text(record, encoding="utf-8")
    before = game_facts(played)
    refusal = answer(played, f"loadsgf {path}")
    assert refusal.startswith("? cannot load file: line 1 column ") and why in refusal
    assert game_facts(played) == before


def test_loadsgf_refuses_hostile_files_at_once(played, tmp_path):
    import os

    from imago.sgf.files import MAX_SGF_BYTES

    huge = tmp_path / "huge.sgf"
    with open(huge, "wb") as f:  # 50 MB, sparse: nothing is written
        f.write(b"(;GM[1]SZ[9]")
        f.truncate(50 << 20)
    just_over = tmp_path / "over.sgf"
    just_over.write_bytes(b"(;GM[1]SZ[9]C[" + b"x" * MAX_SGF_BYTES + b"])")
    garbage = tmp_path / "garbage.sgf"
    garbage.write_bytes(bytes(range(256)) * 64)
    fifo = tmp_path / "fifo.sgf"
    os.mkfifo(fifo)
    before = game_facts(played)
    started = time.perf_counter()
    for path, reason in ((huge, f"larger than {MAX_SGF_BYTES} bytes"),
                         (just_over, f"larger than {MAX_SGF_BYTES} bytes"),
                         (garbage, "no game tree found"),
                         (fifo, "not a regular file"),
                         ("/dev/zero", "not a regular file"),
                         (tmp_path, "Is a directory"),
                         (tmp_path / "none.sgf", "No such file or directory")):
        refusal = answer(played, f"5 loadsgf {path}")
        assert refusal.startswith("?5 cannot load file: ") and reason in refusal, path
        assert "\n" not in refusal
    assert time.perf_counter() - started < 5
    assert game_facts(played) == before
    assert answer(played, f"loadsgf {garbage} -1") == "? syntax error"
    assert answer(played, f"loadsgf {garbage} 99999999999") == "? syntax error"


def test_loadsgf_of_an_unreadable_file_says_so(played, tmp_path):
    import os

    path = tmp_path / "secret.sgf"
    path.write_text("(;GM[1]SZ[9];B[ee])")
    path.chmod(0)
    if os.access(path, os.R_OK):
        pytest.skip("running as root: no file is unreadable")
    assert answer(played, f"loadsgf {path}") == "? cannot load file: Permission denied"


def test_printsgf_writes_regular_files_only(played, tmp_path):
    import os

    fifo = tmp_path / "fifo.sgf"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # someone is listening
    try:
        for path, reason in ((fifo, "not a regular file"), ("/dev/null", "not a regular file"),
                             (tmp_path, "Is a directory")):
            assert answer(played, f"printsgf {path}") == f"? cannot save file: {reason}"
        assert os.read(reader, 100) == b""
    finally:
        os.close(reader)
    lonely = tmp_path / "lonely.fifo"
    os.mkfifo(lonely)  # nobody reads: refused at once, not waited on
    assert answer(played, f"printsgf {lonely}").startswith("? cannot save file: ")
    out = tmp_path / "game.sgf"
    assert answer(played, f"printsgf {out}") == "="
    assert out.read_text(encoding="utf-8").startswith("(;")


def test_printsgf_writes_over_sgf_files_only(played, tmp_path):
    """A file holding something else (a mistyped name) is left as it was;
    an SGF file (byte-order mark and blank space before it too) or an
    empty one is written over, as a controller saving a game again expects."""
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n(;not a game)", encoding="utf-8")
    assert answer(played, f"printsgf {notes}") == (
        "? cannot save file: it holds something other than SGF; not written over")
    assert notes.read_text(encoding="utf-8") == "my notes\n(;not a game)"
    for name, before in (("old.sgf", "\ufeff \n(;GM[1]SZ[9])"), ("empty.sgf", ""),
                         ("blank.sgf", " \n")):
        path = tmp_path / name
        path.write_text(before, encoding="utf-8")
        assert answer(played, f"printsgf {path}") == "="
        assert path.read_text(encoding="utf-8").startswith("(;"), name


def test_loadsgf_up_to_the_size_limit_reads(played, tmp_path):
    from imago.sgf.files import MAX_SGF_BYTES

    path = tmp_path / "long comment.sgf"
    head = b"(;GM[1]SZ[9]C["
    path.write_bytes(head + b"x" * (MAX_SGF_BYTES - len(head) - 2) + b"])")
    assert answer(played, f"loadsgf {path}") == "? syntax error"  # a space in the name
    path = path.rename(tmp_path / "limit.sgf")
    assert answer(played, f"loadsgf {path}") == "="
    assert played.state.board.is_empty_board()


# ---------------------------------------------------------------- fuzz
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from imago.engine.timecontrol import TimeControl  # noqa: E402
from imago.gtp import commands, table  # noqa: E402
from imago.gtp.io import OverlongLine, parse_command  # noqa: E402
from imago.gtp.table import GtpError  # noqa: E402

FUZZ_EXAMPLES = int(os.environ.get("IMAGO_GTP_FUZZ_EXAMPLES", "40"))
"""Examples per fuzz test: a few seconds by default; raise it for a long hunt."""

FUZZ_DIR = "{fuzz}"
"""Stands for the fuzz test's scratch folder in generated lines."""
SGF_PATHS = ["/dev/zero", "/nonexistent.sgf", FUZZ_DIR, f"{FUZZ_DIR}/legal.sgf",
             f"{FUZZ_DIR}/illegal.sgf", f"{FUZZ_DIR}/garbage.sgf"]
WORDS = SGF_PATHS + [
         "b", "w", "B", "white", "black", "pass", "PASS", "resign", "A1", "a1", "E5", "D4",
         "C3", "T19", "J10", "Z1", "I5", "A0", "E5,D4", "D4,,C3", "0", "1", "2", "3", "5", "9",
         "19", "25", "26", "-1", "+9", "1.5", "-0.5", "1e308", "1e-308", "nan", "inf", "-inf",
         "2147483647", "2147483648", "99999999999999999999", "1_0", "\u0665", "\u00b2",
         "interval", "avoid", "allow", "minmoves", "maxmoves", "ownership", "pvVisits",
         "true", "false", "visits", "c_puct", "batch_size", "resign_threshold",
         "fpu_reduction", "absolute", "byoyomi", "canadian", "none", "fischer", "alive",
         "dead", "seki"]
NAMES = [name for name in commands.COMMANDS if name != "quit"] + ["nosuch", "", "="] \
    + ["play"] * 8 + ["genmove"] * 3 + ["undo", "boardsize", "loadsgf"]
NOISE = ["\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x00", "\x7f", "\t", "#", " ",
         "\u0085", "\u2028", "\ufffd"]

word = st.one_of(st.sampled_from(WORDS), st.integers(-10**12, 10**12).map(str),
                 st.floats(allow_nan=True, allow_infinity=True).map(repr),
                 st.text(st.characters(blacklist_categories=("Cs",),
                                       blacklist_characters="\n "), min_size=1, max_size=8))


vertex = st.builds("{}{}".format, st.sampled_from("ABCDEFGHJKLMNOPQRSTUVWXYZ"),
                   st.integers(1, 26)) | st.sampled_from(["pass", "Z1", "A0", "I5"])
ARGUMENTS = {table.integer: st.integers(-2, 30).map(str) | word,
             table.number: st.floats(-1000, 10**6).map(repr) | word,
             table.color: st.sampled_from(["b", "w", "black", "WHITE", "x"]),
             table.move_vertex: vertex, table.handicap_vertex: vertex,
             table.word: word, table.lower_word: word}


@st.composite
def well_formed_args(draw, name: str) -> list[str]:
    """Arguments shaped as the command table's parsers read them (the
    values still anything plausible), so that commands also succeed."""
    spec = commands.COMMANDS.get(name)
    if spec is None:
        return []
    parsers = list(spec.args) + list(spec.optional[:draw(st.integers(0, len(spec.optional)))])
    if spec.rest is not None:
        parsers += [spec.rest] * draw(st.integers(0, 4))
    args = [draw(ARGUMENTS.get(parse, word)) for parse in parsers]
    if name == "loadsgf":
        args[0] = draw(st.sampled_from(SGF_PATHS))
    return args


@st.composite
def command_line(draw) -> bytes:
    """One command from the table with arguments that may be anything or
    of the right shape, perhaps an id, perhaps control characters or bytes
    thrown in."""
    name = draw(st.sampled_from(NAMES))
    if draw(st.booleans()):
        args = draw(well_formed_args(name))
    else:
        args = draw(st.lists(word, max_size=6))
    if name == "printsgf" and args:  # it writes files: only into the scratch folder
        args = [f"{FUZZ_DIR}/out.sgf"]
    parts = ([str(draw(st.integers(0, 10**6)))] if draw(st.booleans()) else []) + [name] + args
    text = " ".join(parts)
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(NOISE)) + text[at:]
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 9)) == 0:
        data += draw(st.binary(max_size=20))
    return data.replace(b"\n", b"")


any_line = st.one_of(command_line(), command_line(), command_line(),
                     st.binary(max_size=300).map(lambda b: b.replace(b"\n", b"")))


def snapshot(engine: GameEngine) -> tuple:
    """The game a refused command must leave untouched."""
    state = engine.state
    return (state.size, state.komi, state.handicap, state.to_move, engine.showboard(),
            [(n.color, n.point) for n in engine.move_history()],
            engine.time_control.describe())


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory) -> bytes:
    folder = tmp_path_factory.mktemp("fuzz")
    (folder / "legal.sgf").write_text("(;GM[1]SZ[7]KM[0.5];B[dd];W[cc](;B[ee])(;B[aa]))")
    (folder / "illegal.sgf").write_text(ILLEGAL)
    (folder / "garbage.sgf").write_bytes(b"(;" + bytes(range(256)))
    return str(folder).encode()


@settings(max_examples=FUZZ_EXAMPLES, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(lines=st.lists(any_line, min_size=1, max_size=12))
def test_fuzz_every_line_gets_one_answer(fuzz_dir, lines):
    data = b"\n".join(lines).replace(FUZZ_DIR.encode(), fuzz_dir) + b"\n"
    changed_by_refusal = []

    def execute(session, name, words):
        before = snapshot(session.engine)
        try:
            return commands.execute(session, name, words)
        except GtpError:
            if snapshot(session.engine) != before:
                changed_by_refusal.append((name, words))
            raise

    engine = GameEngine(RandomAlgorithm(seed=3), 9, 7.5, TimeControl(0.02))
    out = io.StringIO()
    here = os.getcwd()
    before_here = set(os.listdir(here))
    os.chdir(fuzz_dir)  # a mangled path given to printsgf lands there, not in the checkout
    try:
        ImagoIO(engine, io.BytesIO(data), out, execute=execute).run()
    finally:
        os.chdir(here)
    assert not (set(os.listdir(here)) - before_here) & set(WORDS), "written into the checkout"
    expected = sum(1 for line in read_lines(io.BytesIO(data))
                   if isinstance(line, OverlongLine) or parse_command(line) is not None)
    answers = responses(out.getvalue())
    assert len(answers) == expected <= len(lines)
    assert all(a[:1] in ("=", "?") for a in answers), answers
    assert not [a for a in answers if "internal error" in a]
    assert all("\n" not in a for a in answers if a.startswith("?"))
    assert not changed_by_refusal


RECORD = (b"(;GM[1]FF[4]CA[UTF-8]SZ[9]KM[6.5]HA[2]AB[cc][gg]PL[W]C[a comment]\n"
          b";W[ee];B[ec](;W[dc];B[dd]LB[dd:x])(;W[pass]);B[]\n;W[ed]KO[];B[tt])")


@settings(max_examples=FUZZ_EXAMPLES, deadline=None)
@given(cuts=st.lists(st.tuples(st.integers(0, len(RECORD)), st.integers(0, 6), st.binary(
    max_size=4)), max_size=4), move=st.none() | st.integers(1, 12))
def test_fuzz_loadsgf_of_mangled_records(fuzz_dir, cuts, move):
    """Records with bytes cut and inserted load, or are refused with a
    reason and nothing changed."""
    data = RECORD
    for at, length, insert in cuts:
        data = data[:at] + insert + data[at + length:]
    path = Path(fuzz_dir.decode()) / "mangled.sgf"
    path.write_bytes(data)
    engine = make_engine()
    assert answer(engine, "play b e5") == "="
    before = snapshot(engine)
    reply = answer(engine, f"loadsgf {path}" + ("" if move is None else f" {move}"))
    if reply.startswith("?"):
        assert reply.startswith("? cannot load file: ") and "internal error" not in reply
        assert snapshot(engine) == before
    else:
        assert reply == "="
        # the board is the history's: take every move back and play it again
        board, moves = answer(engine, "showboard"), answer(engine, "move_history")
        history = moves[2:].split("\n") if moves != "=" else []
        node, setup_between = engine.state.current, False
        while node.parent is not None:
            setup_between |= node.has_setup
            node = node.parent
        if not setup_between:
            assert all(answer(engine, "undo") == "=" for _ in history)
            assert answer(engine, "undo") == "? cannot undo"
            for move in reversed(history):
                assert answer(engine, f"play {move}") == "=", move
            unmarked = str.maketrans("()", "  ")  # the last move's mark aside
            assert answer(engine, "showboard").translate(unmarked) == board.translate(unmarked)
        assert answer(engine, "genmove b")[:2] == "= "
