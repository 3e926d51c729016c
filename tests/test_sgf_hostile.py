"""Hostile and careless SGF input (issue 14): nothing but SGFError comes
out, in bounded memory and time, and the errors say what is wrong where.

- The cases of the issue, each a test: ``CA`` values Python knows as
  something else than a text encoding, numbers in other scripts or out of
  range, error messages quoting megabytes of input, files that stop a tool
  reading a folder.
- Their memory, in fresh interpreters (``peak_rss`` of test_game_tree,
  which also keeps the memory per node of big game trees in check): broken
  trees in lenient mode, escapes, thousands of variations.
- A fuzz test: mutations of the real files of ../shared/data/sgf-samples
  (byte flips, truncation, inserted brackets, backslashes and semicolons,
  huge numbers, deep nesting, huge values, odd ``CA``, repeated pieces),
  every input under 100 KB, run in a subprocess under a memory cap. Each
  input must raise nothing but SGFError (with a line and column and a
  short message) and cost under 200 MB of peak memory and 30 s.

The fuzz test tries FUZZ_EXAMPLES inputs, the same ones on every run (a
few seconds). For a longer, random search set ``IMAGO_SGF_FUZZ_EXAMPLES``::

    IMAGO_SGF_FUZZ_EXAMPLES=3000 python -m pytest -q tests/test_sgf_hostile.py -k fuzz

(its time limit grows with the number of examples).
"""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import DATA, REPO
from imago.sgf import SGFError, dumps, iter_games, loads
from imago.sgf.errors import MAX_REASON
from imago.sgf.nodes import Property
from test_game_tree import peak_rss

SAMPLES = DATA / "sgf-samples"
MAX_INPUT = 100_000  # bytes of a fuzzed input
MAX_PEAK_MB = 200  # peak memory one input may add
MAX_SECONDS = 30  # time one input may take (a busy 2-core machine)
FUZZ_EXAMPLES = 200
NOT_TEXT_CODECS = ["hex", "rot13", "base64", "zlib", "bz2", "uu", "quopri"]


def only_sgf_errors(data, lenient: bool, filename: str = "hostile.sgf"):
    """The games, or None after an SGFError that says where and stays short."""
    try:
        return loads(data, lenient=lenient, filename=filename)
    except SGFError as err:
        assert err.filename == filename
        assert err.line is not None and err.line >= 1 and err.column >= 1, err
        assert len(err.reason) <= MAX_REASON + 5, len(err.reason)
        return None


# ---------------------------------------------------------------- CA[...]
@pytest.mark.parametrize("charset", NOT_TEXT_CODECS + [
    "undefined", "idna", "a\x00", "utf-16", "utf-32-be", "cp037", "utf-7", "punycode",
    "unicode_escape", "klingon"])
def test_unusable_charsets_fall_back_with_a_warning(charset, caplog):
    data = b"(;CA[" + charset.encode("ascii") + b"]SZ[9]C[\xff];B[cc])"
    with caplog.at_level(logging.WARNING, logger="imago.sgf"):
        [game] = loads(data, filename="hostile.sgf")
    assert game.root.properties["C"] == ["\xff"]  # not UTF-8: Latin-1
    assert game.root.children[0].point == game.point(2, 2)
    [warning] = [r.getMessage() for r in caplog.records]
    assert warning.startswith("hostile.sgf: CA[") and warning.endswith("read as latin-1")


def test_utf16_declared_on_a_file_of_single_bytes_says_so(caplog):
    with caplog.at_level(logging.WARNING, logger="imago.sgf"):
        [game] = loads(b"(;CA[utf-16]C[\xe9])")
    assert game.root.properties["C"] == ["é"]
    assert "'utf-16' cannot be the charset of a file whose SGF markup is ASCII" in caplog.text


def test_a_utf16_guess_that_hides_the_markup_is_given_up(caplog):
    with caplog.at_level(logging.WARNING, logger="imago.sgf"):
        [game] = loads(b"\xff\xfe(;SZ[9];B[cc])", filename="bom.sgf")
        [other] = loads(b"(;SZ[9]C[" + b"\x00" * 300 + b"];B[cc])", filename="nul.sgf")
    assert game.size == other.size == 9
    assert [r.getMessage() for r in caplog.records] == [
        "bom.sgf: a UTF-16 byte-order mark, but the SGF markup is in single bytes; "
        "read as utf-8",
        "nul.sgf: NUL bytes as in UTF-16, but the SGF markup is in single bytes; "
        "read as utf-8"]
    # real UTF-16 stays UTF-16, silently
    assert loads("(;PB[名人])".encode("utf-16-le"))[0].root.properties["PB"] == ["名人"]
    assert not caplog.records[2:]


def test_bytes_not_in_the_declared_charset_are_reported(caplog):
    with caplog.at_level(logging.WARNING, logger="imago.sgf"):
        [game] = loads("(;CA[UTF-8]PB[Café])".encode("latin-1"), filename="x.sgf")
        [other] = loads(b"(;CA[GB2312]PB[\xff\xfe\xff])", filename="y.sgf")
        loads("(;CA[GB2312]PB[围棋])".encode("gb2312"))
    assert game.root.properties["PB"] == ["Café"]
    assert "\ufffd" in other.root.properties["PB"][0]
    assert [r.getMessage() for r in caplog.records] == [
        "x.sgf: CA[UTF-8]: some bytes are not utf-8; read as latin-1",
        "y.sgf: CA[GB2312]: some bytes are not gb18030 (replaced by U+FFFD)"]


# ---------------------------------------------------------------- numbers
@pytest.mark.parametrize("text, words", [
    ("(;SZ[١٩])", "SZ[١٩]: the board size is not a number from 2 to 25"),
    ("(;SZ[1e1])", "SZ[1e1]: the board size is not a number from 2 to 25"),
    ("(;SZ[" + "9" * 5000 + "])", "(5,000 characters)]: the board size is not a number"),
    ("(;GM[١])", "not a game of Go"),
    ("(;HA[1e308])", "HA[1e308]: not a number of handicap stones (0..361)"),
    ("(;SZ[9]HA[٣])", "HA[٣]: not a number of handicap stones (0..81)"),
    ("(;HA[7.5])", "HA[7.5]: not a number of handicap stones"),
    ("(;HA[99999999999999999999])", "HA[99999999999999999999]: not a number of handicap"),
    ("(;HA[99999])", "HA[99999]: 99999 handicap stones do not fit on a 19x19 board (0..361)"),
    ("(;SZ[9]HA[-1])", "-1 handicap stones do not fit on a 9x9 board (0..81)"),
])
def test_numbers_are_ascii_digits_in_range(text, words):
    with pytest.raises(SGFError, match=r"^<string>:1:2: ") as err:
        loads(text)
    assert words in str(err.value)


def test_lenient_reads_a_bad_handicap_as_none(caplog):
    with caplog.at_level(logging.INFO, logger="imago.sgf"):
        [game] = loads("(;HA[1e308]AB[dd][pp];W[dp])", lenient=True)
    assert game.handicap == 0 and "read as no handicap" in caplog.text
    [game] = loads("(;HA[2]AB[dd][pp];W[dp])")
    assert game.handicap == 2


def test_typed_values_refuse_other_digits_and_exponents():
    for name, raw in [("SZ", "١٩"), ("MN", "1e3"), ("KM", "1e3"), ("KM", "inf"),
                      ("KM", "٦.٥"), ("DM", "٢"), ("MN", "9" * 19), ("KM", "1_0")]:
        with pytest.raises(ValueError):
            Property(name, [raw]).value
    assert Property("KM", [" 6.5 "]).value == 6.5 and Property("MN", ["+12"]).value == 12
    assert Property("SZ", ["9:9"]).value == (9, 9)
    [game] = loads("(;KM[٦.٥])")
    assert game.komi == 0.0  # no ASCII number in it
    [game] = loads("(;KM[6,5 points])")
    assert game.komi == 6.5


# ---------------------------------------------------------------- messages
@pytest.mark.parametrize("text, words", [
    ("(;" + "A" * 1_000_000 + ")", "expected '[' after property identifier 'AAAA"),
    ("(;" + "a" * 1_000_000 + "[x])", "has no uppercase letter"),
    ("(;B[" + "x" * 1_000_000 + "])", "move B[xxxx"),
    ("(;AB[" + "x" * 1_000_000 + "])", "AB: invalid SGF point"),
    ("(;PL[" + "x" * 1_000_000 + "])", "PL[XXXX"),
    ("(;GM[" + "7" * 1_000_000 + "])", "not a game of Go"),
], ids=["identifier", "lowercase identifier", "move", "setup point", "colour", "GM"])
def test_messages_quote_a_readable_length(text, words):
    with pytest.raises(SGFError) as err:
        loads(text)
    message = str(err.value)
    assert words in message and len(message) < MAX_REASON + 40, len(message)
    assert err.value.line == 1


def test_errors_name_line_and_column(caplog):
    with pytest.raises(SGFError) as err:
        loads("(;SZ[9]\r\n;B[aa]\n;W[aa])", filename="g.sgf")
    assert (err.value.line, err.value.column) == (3, 1)
    assert str(err.value).startswith("g.sgf:3:1: illegal move W[aa]: occupied")
    # many errors (lenient repairs) use a line index: the same positions
    text = "(;B[aa];W)\n" * 50 + "(;B[aa]\r\n;W\r)\r\n" * 50
    with caplog.at_level(logging.INFO, logger="imago.sgf"):
        games = loads(text, lenient=True, filename="g.sgf")
    assert len(games) == 100
    where = [r.getMessage().split(": ")[0] for r in caplog.records]
    assert where[:3] == ["g.sgf:1:10", "g.sgf:2:10", "g.sgf:3:10"]
    assert where[50:53] == ["g.sgf:53:1", "g.sgf:56:1", "g.sgf:59:1"]


# ---------------------------------------------------------------- folders
def hostile_files(folder) -> dict[str, bytes]:
    """A folder of good and hostile files; returns the hostile ones."""
    folder.mkdir(parents=True, exist_ok=True)
    hostile = {
        "hex.sgf": b"(;CA[hex]SZ[9]C[\xff];B[aa])",  # read, with a warning
        "digits.sgf": "(;SZ[١٩];B[aa])".encode(),
        "handicap.sgf": b"(;SZ[9]HA[99999];B[aa])",
        "name.sgf": b"(;" + b"A" * 200_000 + b")",
        "nul.sgf": b"\x00" * 1000,
        "broken.sgf": b"(;SZ[9];B[aa];W)\n" * 3000,  # lenient keeps each first move
    }
    for name, data in hostile.items():
        (folder / name).write_bytes(data)
    (folder / "good.sgf").write_text("(;SZ[9];B[cc];W[gg])")
    return hostile


def test_iter_games_goes_on_past_hostile_files(tmp_path, caplog):
    hostile_files(tmp_path)
    # lenient (the default): what can be kept is, the rest is named
    with caplog.at_level(logging.WARNING, logger="imago.sgf"):
        names = [os.path.basename(p) for p, _ in iter_games(tmp_path)]
    assert names.count("broken.sgf") == 3000
    assert [n for n in names if n != "broken.sgf"] == [
        "good.sgf", "handicap.sgf", "hex.sgf", "name.sgf"]  # no handicap; an empty root
    warned = [r.getMessage() for r in caplog.records]
    assert [m.split(tmp_path.name + "/")[1].split(":")[0] for m in warned] == [
        "digits.sgf", "hex.sgf", "nul.sgf"]
    # strict: every hostile file but hex.sgf refused, each named in one short line
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="imago.sgf"):
        names = [os.path.basename(p) for p, _ in iter_games(tmp_path, lenient=False)]
    assert names == ["good.sgf", "hex.sgf"]
    for name in ("broken.sgf", "digits.sgf", "handicap.sgf", "name.sgf", "nul.sgf"):
        [message] = [r.getMessage() for r in caplog.records if name in r.getMessage()]
        assert message.startswith("skipping ") and len(message) < 400


def test_training_data_goes_on_past_hostile_files(tmp_path):
    from imago.training import data as D
    from test_training_data import write_games
    folder = tmp_path / "games"
    write_games(folder, 2)
    hostile = hostile_files(folder)
    dataset = D.load_dataset([str(folder)], "basic", 9, tmp_path / "cache", 0.0)
    refused = sorted(name for name in hostile if any(name in p for p in dataset.problems))
    assert refused == ["broken.sgf", "digits.sgf", "handicap.sgf", "name.sgf", "nul.sgf"]
    assert len(dataset.train) == 30 + 30 + 2 + 1  # two random games, good.sgf, hex.sgf


# ---------------------------------------------------------------- memory
def nested_variations(levels: int) -> str:
    """``levels`` nested game trees, each with a one-node variation after
    its subtree: every variation waits while the main line goes deeper."""
    return "(;SZ[19]" + "(;B[]" * levels + "(;C[y]))" * levels + ")"


# (case, code that loads it in a fresh interpreter, MB it may add); the
# comments give what it added before the fix and after, on a 2-core machine
MEMORY_CASES = [
    ("8,000 broken trees, lenient (88 KB)",  # 342 MB -> 5 MB
     'imago.sgf.parse("(;B[aa];W)\\n" * 8000, lenient=True)', 40),
    ("3,000 broken trees through iter_games (33 KB)",  # 147 MB -> 4 MB
     'open("broken.sgf", "w").write("(;B[aa];W)\\n" * 3000)\n'
     'assert sum(1 for _ in imago.sgf.iter_games("broken.sgf")) == 3000', 30),
    ("12,000 sibling variations (96 KB)",  # 298 MB -> 9 MB
     'imago.sgf.loads("(;SZ[19];B[aa]" + "(;W[bb])" * 12000 + ")")', 40),
    ("7,000 nested variations (91 KB)",  # 178 MB -> 16 MB
     f'imago.sgf.loads({nested_variations(7000)!r})', 50),
    ("2,000 AE[aa:yy] nodes on 25x25 (20 KB)",  # 39 MB -> 14 MB
     'imago.sgf.loads("(;SZ[25]" + ";AE[aa:yy]" * 2000 + ")")', 25),
    ("70,000 empty nodes through iter_games (70 KB)",  # 31 MB
     'open("nodes.sgf", "w").write("(;" + ";" * 70000 + ")")\n'
     'games = list(imago.sgf.iter_games("nodes.sgf"))', 60),
]


@pytest.mark.parametrize("case, code, limit", MEMORY_CASES, ids=[c[0] for c in MEMORY_CASES])
def test_hostile_input_costs_bounded_memory(case, code, limit, tmp_path):
    base, peak = peak_rss(f"import os\nos.chdir({str(tmp_path)!r})\n{code}")
    assert peak - base < limit, f"{case}: {peak - base:.0f} MB"


@pytest.mark.skipif(sys.version_info < (3, 11),
                    reason="possessive patterns (no regex backtracking stack) need Python 3.11")
def test_a_comment_of_escapes_costs_what_its_text_does():
    # a million escaped backslashes (2 MB): 166 MB before (the regex engine
    # kept state for each escape), 15 MB now
    base, peak = peak_rss(r"""
        [game] = imago.sgf.loads("(;C[" + "\\\\" * 1_000_000 + "])")
        assert game.root.properties["C"] == ["\\" * 1_000_000]
    """)
    assert peak - base < 50


def test_a_collection_of_33000_empty_games_costs_bounded_memory():
    # each game's root board comes from one shared empty snapshot, and a
    # converted game keeps no board in its cache (1,074 MB before, 22 now)
    base, peak = peak_rss('games = imago.sgf.loads("(;)" * 33000)\n'
                          'assert games[-1].board.is_empty_board()')
    assert peak - base < 50


# ---------------------------------------------------------------- fuzzing
def sample_files() -> list[bytes]:
    """The sample files small enough to mutate quickly (the Kogo file is
    covered by test_game_tree)."""
    if not SAMPLES.is_dir():
        return [b"(;GM[1]FF[4]SZ[9]KM[7.5]AB[aa:bb]C[a \\] b\\\n c];B[ee](;W[cc];B[dd]"
                b"LB[dd:x])(;W[dc]C[(;B[aa])]))\n(;SZ[5];B[cc];W[];B[tt])"]
    return [p.read_bytes() for p in sorted(SAMPLES.glob("*.sgf")) if p.stat().st_size < 40_000]


INSERTS = [b"[", b"]", b"(", b")", b";", b"\\", b"(;", b"\\]", b")(", b"[]", b"\\\\",
           b"\r", b"\n", b":", b"\x00", b"\xff", b"\xe9"]
NUMBERS = [b"99999999999999999999", b"1e308", "١٩".encode(), b"-1", b"0", b"26", b"3:5",
           b"9" * 5000, b"nan", b"inf", b"1_000", b"", b" 19 ", b"0x13", b"+7.5"]
CHARSETS = NOT_TEXT_CODECS + ["undefined", "idna", "a\x00", "utf-16", "utf-32", "cp037",
                              "utf-7", "punycode", "unicode_escape", "GB2312", "Big5",
                              "Shift_JIS", "latin1", "UTF-8", "klingon", ""]


@st.composite
def mutated_samples(draw) -> bytes:
    data = bytearray(draw(st.sampled_from(sample_files())))
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.integers(0, 10))
        i = draw(st.integers(0, len(data)))
        if kind == 0 and i < len(data):  # flip bits of a byte
            data[i] ^= draw(st.integers(1, 255))
        elif kind == 1:  # truncate
            del data[i:]
        elif kind == 2:  # insert brackets, backslashes, semicolons...
            data[i:i] = draw(st.sampled_from(INSERTS)) * draw(st.integers(1, 3))
        elif kind == 3:  # delete a slice
            del data[i:i + draw(st.integers(1, 20))]
        elif kind == 4:  # a property with a huge or odd number
            name = draw(st.sampled_from([b"SZ", b"HA", b"KM", b"GM", b"MN", b"DM", b"FF"]))
            data[i:i] = name + b"[" + draw(st.sampled_from(NUMBERS)) + b"]"
        elif kind == 5:  # deep nesting
            k = draw(st.integers(1, 20_000))
            data[i:i] = draw(st.sampled_from([b"(;" * k, b"(" * k, b"(;" * k + b")" * k,
                                              b")" * k, b";" * k]))
        elif kind == 6:  # a huge value
            k = draw(st.integers(1, 40_000))
            data[i:i] = b"C[" + draw(st.sampled_from([b"x", b"\\\\", b"\\]", b"\\\n", b"("])) \
                * k + b"]"
        elif kind == 7:  # a charset
            charset = draw(st.sampled_from(CHARSETS)).encode("ascii")
            data[i:i] = b"CA[" + charset + b"]"
        elif kind == 8:  # random bytes
            data[i:i] = draw(st.binary(min_size=1, max_size=30))
        elif kind == 9:  # a piece repeated: collections, broken trees...
            piece = bytes(data[i:i + draw(st.integers(1, 40))]) or b"(;B[aa];W)"
            data[i:i] = piece * draw(st.integers(1, MAX_INPUT // len(piece)))
        else:  # a byte-order mark
            data[:0] = draw(st.sampled_from([b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff"]))
    return bytes(data[:MAX_INPUT])


def _peak_mb_since_reset() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def _reset_peak() -> bool:
    """Reset this process's peak RSS (Linux); False where that cannot be done."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def check_one_input(data: bytes) -> None:
    """Strict and lenient loads (and writing what loads) raise nothing but
    SGFError and stay within the time and memory limits."""
    measured = _reset_peak()
    base = _peak_mb_since_reset()
    start = time.perf_counter()
    for lenient in (False, True):
        loaded = only_sgf_errors(data, lenient) or []
        for game in loaded:
            dumps(game)
        del loaded
    took = time.perf_counter() - start
    assert took < MAX_SECONDS, f"{len(data)} bytes took {took:.1f} s"
    if measured:
        added = _peak_mb_since_reset() - base
        assert added < MAX_PEAK_MB, f"{len(data)} bytes took {added:.0f} MB"


def run_fuzz(examples: int, derandomize: bool) -> None:
    """The fuzz search itself (run in a subprocess by the test below)."""
    logging.getLogger("imago.sgf").setLevel(logging.ERROR)  # the expected CA warnings
    search = settings(max_examples=examples, deadline=None, derandomize=derandomize,
                      database=None if derandomize else settings.default.database,
                      suppress_health_check=list(HealthCheck))(
        given(mutated_samples())(check_one_input))
    search()


def test_fuzzed_samples_raise_only_sgf_error_in_bounded_memory():
    requested = os.environ.get("IMAGO_SGF_FUZZ_EXAMPLES")
    examples = int(requested) if requested else FUZZ_EXAMPLES
    script = textwrap.dedent(f"""
        import resource, sys
        sys.path.insert(0, {str(REPO / "tests")!r})
        limit = 3 * 1024 ** 3  # a runaway input fails here, not the machine
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        import test_sgf_hostile
        test_sgf_hostile.run_fuzz({examples}, derandomize={not requested})
    """)
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True,
                            text=True, timeout=60 + 2 * examples)
    assert result.returncode == 0, (result.stdout + result.stderr)[-6000:]

