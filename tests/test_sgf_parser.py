"""SGF lexer and parser: tokens, grammar, values, error positions."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from imago.sgf import ASTNode, Property, SGFError, parse
from imago.sgf.nodes import escape, expand_point_list, property_name, simple_text, unescape
from imago.sgf.sgflex import tokenize


def one(text: str) -> ASTNode:
    roots = parse(text)
    assert len(roots) == 1
    return roots[0]


def chain(root: ASTNode) -> list[dict]:
    return [node.properties for node in root.main_line()]


# ---------------------------------------------------------------- lexer
def test_tokens_are_parens_and_runs_of_nodes():
    toks = tokenize("(;FF[4]C[a]\n;B[aa];W[bb](;B[cc])(;B[dd] ( ;W[ee] ) ) )")
    assert [t for t, _ in toks] == ["LPAREN", "NODES", "LEAF", "LPAREN", "NODES",
                                    "LEAF", "RPAREN", "RPAREN"]
    first, last = toks[1][1]
    assert first.properties == {"FF": ["4"], "C": ["a"]}
    assert last.properties == {"W": ["bb"]}
    assert last.parent.parent is first
    # a game tree without variations is one token
    [(kind, (first, last))] = tokenize(" ( ;GN[x]\n ;B[aa] \n)\n")
    assert kind == "LEAF" and first.properties == {"GN": ["x"]}
    assert last.properties == {"B": ["aa"]} and last.parent is first


def test_whitespace_between_every_token():
    text = " \n ( \r\n ; \t FF \n [4] \n C [x] [y] ; B\n[aa]\n ( ; W [bb] ) ( ;W[cc] ) ) \n"
    root = one(text)
    assert root.properties == {"FF": ["4"], "C": ["x", "y"]}
    move = root.children[0]
    assert move.properties == {"B": ["aa"]}
    assert [c.properties for c in move.children] == [{"W": ["bb"]}, {"W": ["cc"]}]


def test_escapes_kept_raw_and_unescaped_on_demand():
    root = one(r"(;C[a \] b \\ c \: d]N[x\\])")
    assert root.properties["C"] == [r"a \] b \\ c \: d"]
    assert root["C"].value == "a ] b \\ c : d"
    assert root.properties["N"] == ["x\\\\"]
    assert root["N"].value == "x\\"


def test_soft_line_break_and_line_breaks():
    root = one("(;C[one \\\ntwo\r\nthree\\\r\nfour]GN[a\nb])")
    assert root["C"].value == "one two\nthreefour"
    assert root["GN"].value == "a b"  # simple text: line breaks become spaces
    assert unescape("a\\\n\rb") == "ab"
    assert simple_text("a\tb\nc") == "a b c"
    assert escape("x]y\\z") == "x\\]y\\\\z"


def test_bracket_and_semicolon_and_parens_inside_values():
    root = one(r"(;C[(;B[aa\]) [ ; ( ]B[aa])")
    assert root.properties == {"C": [r"(;B[aa\]) [ ; ( "], "B": ["aa"]}
    assert root["C"].value == "(;B[aa]) [ ; ( "


def test_ff3_lowercase_property_names():
    root = one("(;GaMe[1]SiZe[9]AddBlack[aa][bb]AddWhite[cc];Black[dd];White[ee])")
    assert root.properties == {"GM": ["1"], "SZ": ["9"], "AB": ["aa", "bb"], "AW": ["cc"]}
    assert chain(root)[1:] == [{"B": ["dd"]}, {"W": ["ee"]}]
    assert property_name("AddBlack") == "AB" and property_name("KM") == "KM"


def test_repeated_identifier_in_a_node_joins_values():
    assert one("(;AB[aa]AW[bb]AB[cc])").properties == {"AB": ["aa", "cc"], "AW": ["bb"]}


def test_compressed_point_lists():
    root = one("(;SZ[9]AB[aa:bc][ee]AW[cc:cc])")
    assert root["AB"].value == [(0, 0), (1, 0), (0, 1), (1, 1), (0, 2), (1, 2), (4, 4)]
    assert root["AW"].value == [(2, 2)]
    assert expand_point_list(["cc:aa"], 9) == expand_point_list(["aa:cc"], 9)
    with pytest.raises(ValueError):
        expand_point_list(["aa:zz"], 9)


def test_passes_empty_and_tt():
    root = one("(;SZ[19];B[];W[tt])")
    b, w = list(root.main_line())[1:]
    assert b["B"].value is None and w["W"].value is None
    big = one("(;SZ[21];B[tt])")
    assert big.children[0]["B"].value == (19, 19)  # not a pass beyond 19x19


def test_typed_values():
    root = one("(;GM[1]SZ[13]KM[6.5]HA[2]PL[W]C[hi]LB[aa:one\\:two]GB[2]DO[]"
               "AP[imago:1.0]PB[B  player]RE[W+R])")
    assert root["SZ"].value == 13 and root["SZ"].kind == "number"
    assert root["KM"].value == 6.5 and root["KM"].kind == "real"
    assert root["PL"].value == "W" and root["PL"].kind == "colour"
    assert root["GB"].value == 2 and root["GB"].kind == "double"
    assert root["DO"].value is None and root["DO"].kind == "none"
    assert root["LB"].value == ("aa", "one:two")
    assert root["AP"].value == ("imago", "1.0")
    assert root.get("RE") == "W+R" and root.get("XX", 7) == 7
    assert root.size == 13 and root.komi == 6.5 and root.handicap == 2
    info = root.game_info
    assert info["SZ"] == 13 and info["KM"] == 6.5 and info["PB"] == "B  player"
    assert Property("B", ["cc"], 9).value == (2, 2)


def test_game_info_defaults_and_odd_values():
    root = one("(;KM[6.5 points]HA[x])")
    assert root.size == 19 and root.komi == 6.5 and root.handicap == 0
    assert one("(;KM[what])").komi == 0.0


def test_fox_komi_times_a_hundred_is_read_as_the_komi():
    assert one("(;KM[750])").komi == 7.5 and one("(;KM[-650])").komi == -6.5
    assert one("(;KM[150])").komi == 150.0
    assert one("(;KM[99999999])").komi == 99999999.0 and one("(;KM[333])").komi == 333.0


def test_chinese_servers_komi_in_stones_times_a_hundred_is_read_in_points():
    # Chinese counting gives komi in stones: 3.75 stones are 7.5 points
    assert one("(;KM[375]RU[Chinese])").komi == 7.5 and one("(;KM[325])").komi == 6.5
    assert one("(;KM[-375])").komi == -7.5


def test_variations_and_several_game_trees():
    roots = parse("(;GN[a];B[aa](;W[bb];B[cc])(;W[cc](;B[dd])(;B[ee])))\n(;GN[b])(;GN[c])")
    assert [r.properties["GN"] for r in roots] == [["a"], ["b"], ["c"]]
    b = roots[0].children[0]
    assert [c.properties for c in b.children] == [{"W": ["bb"]}, {"W": ["cc"]}]
    assert [c.properties for c in b.children[1].children] == [{"B": ["dd"]}, {"B": ["ee"]}]
    assert all(c.parent is b for c in b.children)
    assert sum(1 for _ in roots[0].iter_tree()) == 7


def test_junk_outside_game_trees_is_ignored():
    roots = parse("header (not sgf) ;B[aa]\n(;GN[a]) between ) [x (;GN[b])\ntrailer ;W[bb]")
    assert [r.properties for r in roots] == [{"GN": ["a"]}, {"GN": ["b"]}]


def test_node_positions():
    text = "(;GN[a]\n  ;B[aa]\n(;W[bb]C[x\ny])\n(;W[cc]))"
    root = one(text)
    b = root.children[0]
    assert (root.line, root.column) == (1, 2)
    assert (b.line, b.column) == (2, 3)
    assert [(c.line, c.column) for c in b.children] == [(3, 2), (5, 2)]
    assert text[b.children[1].offset] == ";"


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize("text, line, column, words", [
    ("", 1, 1, "no game tree"),
    ("just text", 1, 10, "no game tree"),
    ("(\nGM[1];B[aa])", 1, 1, "expected ';' after '('"),
    ("(;GN[a]\n;B[aa]", 2, 7, "expected ')'"),
    ("(;GN[a]\n;B[aa] C[never closed\n;W)", 2, 9, "expected ']'"),
    ("(;GN[a]\n  ;B", 2, 5, "expected '[' after property identifier 'B'"),
    ("(;GN[a]\n;B[aa]\n;[x])", 3, 2, "value without a property identifier"),
    ("(;GN[a]\n;B[aa]\n;[x;W[bb)", 3, 2, "expected ']'"),
    ("(;GN[a];B[aa]()", 1, 15, "expected ';' (a node) after '('"),
    ("(;GN[a] @)", 1, 9, "unexpected character '@'"),
    ("(;GN[a](;B[aa])\n ;W[bb])", 2, 2, "a node cannot follow the variations"),
    ("(;GN[a]((;B[aa])))", 1, 9, "expected ';' (a node) after '(', found '('"),
    ("(;GN[a]\n;add[aa])", 2, 1, "no uppercase letter"),
])
def test_error_positions(text, line, column, words):
    with pytest.raises(SGFError) as info:
        parse(text, filename="game.sgf")
    err = info.value
    assert isinstance(err, ValueError)
    assert (err.filename, err.line, err.column) == ("game.sgf", line, column)
    assert words in str(err)
    assert str(err).startswith(f"game.sgf:{line}:{column}: ")


def test_values_after_values_belong_to_the_property():
    assert one("(;GN[a]\n [b] [c])").properties == {"GN": ["a", "b", "c"]}


def test_line_and_column_with_any_line_ending():
    from imago.sgf.errors import line_column
    text = "ab\r\ncd\ref\ngh"
    assert [line_column(text, i) for i in (0, 3, 4, 7, 10, 12)] == [
        (1, 1), (1, 4), (2, 1), (3, 1), (4, 1), (4, 3)]
    with pytest.raises(SGFError) as info:
        parse("(;GN[a]\r\n;B[aa]\r\n;W[bb] @)")
    assert (info.value.line, info.value.column) == (3, 8)


def test_error_pickles_with_its_fields():
    import pickle
    with pytest.raises(SGFError) as info:
        parse("(;B[aa]", filename="x.sgf")
    again = pickle.loads(pickle.dumps(info.value))
    assert str(again) == str(info.value)
    assert (again.filename, again.line, again.column) == ("x.sgf", 1, 8)


def test_value_without_identifier():
    with pytest.raises(SGFError, match="without a property identifier") as info:
        parse("(;GN[a];\n[b])")
    assert info.value.line == 2


def test_parse_bytes_decodes():
    roots = parse("(;CA[latin1]C[café])".encode("latin-1"))
    assert roots[0]["C"].value == "café"


def test_import_writes_nothing_and_prints_nothing(tmp_path):
    code = ("import imago.sgf as s; g = s.loads('(;B[aa])'); "
            "assert s.parse('(;C[x])')[0].properties == {'C': ['x']}")
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=repo + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""
    assert os.listdir(tmp_path) == []
    package = os.path.join(repo, "imago", "sgf")
    assert not any(n.startswith(("parsetab", "parser.out", "lextab")) for n in os.listdir(package))


def test_files_that_are_no_regular_files_are_refused_or_skipped_at_once(tmp_path, caplog):
    import os

    from imago import sgf

    fifo = tmp_path / "a.sgf"
    os.mkfifo(fifo)
    (tmp_path / "b.sgf").write_text("(;SZ[9];B[ee])")
    with caplog.at_level("WARNING", logger="imago.sgf"):
        assert [os.path.basename(p) for p, _ in sgf.iter_games([tmp_path])] == ["b.sgf"]
    assert f"skipping {fifo}: not a regular file" in caplog.text
    for path in (fifo, "/dev/zero"):
        with pytest.raises(ValueError, match="not a regular file"):
            sgf.load(path)
        with pytest.raises((OSError, ValueError)):  # a FIFO without a reader: ENXIO
            sgf.save(path, sgf.loads("(;SZ[9])")[0])
    with pytest.raises(ValueError, match="larger than 5 bytes"):
        sgf.load(tmp_path / "b.sgf", limit=5)
    assert len(sgf.load(tmp_path / "b.sgf", limit=100)) == 1


def test_saved_records_get_an_ordinary_file_mode(tmp_path):
    """A saved record is data: readable and writable as the umask allows,
    never executable (os.open's default mode is 0o777)."""
    import stat

    from imago import sgf

    path = tmp_path / "game.sgf"
    old = os.umask(0o022)
    try:
        sgf.save(path, sgf.loads("(;SZ[9];B[ee])")[0])
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644


def test_a_save_that_fails_leaves_the_last_one_whole(tmp_path, monkeypatch):
    """Saving over a record goes by way of a temporary file renamed over
    it: a write that fails half way (here the disk fills at the flush)
    leaves the old record as it was and no temporary file behind."""
    from imago import sgf

    path = tmp_path / "game.sgf"
    path.write_text("(;SZ[9];B[ee];W[cc])", encoding="utf-8")

    def disk_full(descriptor):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", disk_full)
    with pytest.raises(OSError, match="No space left"):
        sgf.save(path, sgf.loads("(;SZ[9];B[gg])")[0])
    assert path.read_text(encoding="utf-8") == "(;SZ[9];B[ee];W[cc])"
    assert os.listdir(tmp_path) == ["game.sgf"]


def test_a_record_the_user_may_not_write_is_not_replaced(tmp_path, monkeypatch):
    """A read-only record stays as it was, though its folder would let the
    temporary file be renamed over it (os.access is faked: the tests may
    run as root, who may write anything)."""
    from imago import sgf

    path = tmp_path / "game.sgf"
    path.write_text("(;SZ[9];B[ee])", encoding="utf-8")
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: (
        False if os.fspath(p) == str(path) and mode == os.W_OK else real_access(p, mode, **kw)))
    with pytest.raises(PermissionError):
        sgf.save(path, sgf.loads("(;SZ[9];B[gg])")[0])
    assert path.read_text(encoding="utf-8") == "(;SZ[9];B[ee])"
    assert os.listdir(tmp_path) == ["game.sgf"]


def test_saving_over_a_record_keeps_its_mode_and_links(tmp_path):
    """The replaced record keeps its permission bits; a record saved
    through a symbolic link is the linked file, the link staying a link."""
    import stat

    from imago import sgf

    path = tmp_path / "game.sgf"
    path.write_text("(;SZ[9])", encoding="utf-8")
    os.chmod(path, 0o640)
    sgf.save(path, sgf.loads("(;SZ[9];B[ee])")[0])
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert "B[ee]" in path.read_text(encoding="utf-8")
    link = tmp_path / "latest.sgf"
    link.symlink_to(path)
    sgf.save(link, sgf.loads("(;SZ[9];B[cc])")[0])
    assert link.is_symlink() and "B[cc]" in path.read_text(encoding="utf-8")
    assert sorted(os.listdir(tmp_path)) == ["game.sgf", "latest.sgf"]
