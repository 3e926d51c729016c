"""SGF to games and back: conversion, writer round trip, encodings, lenient
mode, the public API."""

from __future__ import annotations

import logging

import pytest

from imago import sgf
from imago.game import BLACK, EMPTY, WHITE, GameState, to_index
from imago.sgf import SGFError, dumps, load, loads, save


def pt(game: GameState, name: str) -> int:
    """Internal index of an SGF point name on the game's board."""
    letters = "abcdefghijklmnopqrstuvwxy"
    return to_index(letters.index(name[0]), letters.index(name[1]), game.size)


def nodes(game: GameState) -> list:
    return list(game.root.main_line())


def tree_signature(root) -> list:
    """Everything a GameMove tree says, node by node in depth-first order
    (with the number of children, which fixes the shape)."""
    return [(node.color, node.point, node.to_move, node.number, node.captures,
             {c: sorted(p) for c, p in node.setup.items() if p},
             node.properties, node.board.hash, tuple(node.board.cells), len(node.children))
            for node in root.iter_tree()]


def same_game(a: GameState, b: GameState) -> None:
    assert (a.size, a.komi, a.handicap) == (b.size, b.komi, b.handicap)
    assert tree_signature(a.root) == tree_signature(b.root)


# ---------------------------------------------------------------- conversion
def test_game_info_and_moves():
    [game] = loads("(;GM[1]FF[4]CA[UTF-8]SZ[9]KM[6.5]RU[Chinese]PB[Black]PW[White]RE[B+R]"
                   ";B[ee];W[cc];B[];W[tt])")
    assert (game.size, game.komi, game.handicap) == (9, 6.5, 0)
    assert game.current is game.root
    props = game.root.properties
    assert props["RU"] == ["Chinese"] and props["PB"] == ["Black"] and props["RE"] == ["B+R"]
    assert props["SZ"] == ["9"] and props["KM"] == ["6.5"]
    assert "FF" not in props and "CA" not in props and "GM" not in props
    line = nodes(game)
    assert [(n.color, n.point) for n in line[1:]] == [
        (BLACK, pt(game, "ee")), (WHITE, pt(game, "cc")), (BLACK, None), (WHITE, None)]
    assert [n.number for n in line] == [0, 1, 2, 3, 4]
    assert line[2].board[pt(game, "cc")] == WHITE and line[2].to_move == BLACK


def test_defaults_without_game_info():
    [game] = loads("(;B[dd])")
    assert (game.size, game.komi, game.handicap) == (19, 0.0, 0)


def test_captures_are_played():
    [game] = loads("(;SZ[5];B[ba];W[aa];B[ab])")
    last = nodes(game)[-1]
    assert last.board[pt(game, "aa")] == EMPTY
    assert last.captures == (1, 0)


def test_setup_stones_at_root_and_later_nodes():
    [game] = loads("(;SZ[9]AB[aa:bb]AW[ee];B[cc];AE[aa]AW[ff]C[setup];W[gg])")
    root, move, setup, last = nodes(game)
    assert sorted(root.setup[BLACK]) == sorted(pt(game, p) for p in ("aa", "ba", "ab", "bb"))
    assert root.setup[WHITE] == [pt(game, "ee")]
    assert setup.color is None and setup.number == 1
    assert setup.setup == {EMPTY: [pt(game, "aa")], WHITE: [pt(game, "ff")]}
    assert setup.board[pt(game, "aa")] == EMPTY and setup.board[pt(game, "ff")] == WHITE
    assert setup.properties == {"C": ["setup"]}
    assert setup.to_move == WHITE  # inherited from the move before
    assert last.board[pt(game, "ff")] == WHITE and last.number == 2


def test_setup_and_move_in_one_node_is_setup_then_move():
    [game] = loads("(;SZ[9];AB[aa]B[bb]C[both])")
    root, setup, move = nodes(game)
    assert setup.setup == {BLACK: [pt(game, "aa")]} and setup.color is None
    assert move.color == BLACK and move.properties == {"C": ["both"]}


def test_several_moves_in_one_node():
    [game] = loads("(;SZ[9];B[aa]W[bb]C[two])")
    root, b, w = nodes(game)
    assert (b.color, w.color) == (BLACK, WHITE) and w.properties == {"C": ["two"]}


def test_pl_sets_to_move():
    [game] = loads("(;SZ[9]AB[cc]PL[W];B[dd]PL[B];W[ee]PL[x])", lenient=True)
    root, b, w = nodes(game)
    assert root.to_move == WHITE and b.to_move == BLACK and w.to_move == BLACK
    with pytest.raises(SGFError, match="PL"):
        loads("(;SZ[9]PL[x])")


def test_handicap_stones_give_white_the_move():
    [game] = loads("(;SZ[19]HA[2]KM[0.5]AB[dp][pd];W[dd])")
    assert game.handicap == 2 and game.komi == 0.5
    assert game.root.to_move == WHITE
    assert sorted(game.root.setup[BLACK]) == sorted([pt(game, "dp"), pt(game, "pd")])
    [plain] = loads("(;SZ[19]AB[dp][pd])")
    assert plain.root.to_move == BLACK


def test_comments_and_unknown_properties_kept():
    [game] = loads("(;SZ[9]C[root \\] comment]XX[private][two];B[aa]C[line1\r\nline2]"
                   "LB[bb:A]TR[cc]MULTIGOGM[1])")
    assert game.root.properties["C"] == ["root ] comment"]
    assert game.root.properties["XX"] == ["private", "two"]
    move = game.root.children[0]
    assert move.comment == "line1\nline2"
    assert move.properties["LB"] == ["bb:A"] and move.properties["MULTIGOGM"] == ["1"]


def test_every_variation_kept_in_order_even_identical_ones():
    [game] = loads("(;SZ[9];B[aa](;W[bb];B[cc])(;W[bb]C[same move])(;W[dd]))")
    b = game.root.children[0]
    assert [c.point for c in b.children] == [pt(game, "bb"), pt(game, "bb"), pt(game, "dd")]
    assert b.children[1].properties == {"C": ["same move"]}
    assert len(b.children[0].children) == 1


def test_ast_subtree_to_moves():
    from imago.sgf import add_subtree, parse
    [root] = parse("(;SZ[9];B[ee](;W[cc];B[dd])(;W[dc]C[x]))")
    [game] = loads("(;SZ[9];B[ee])")
    b = game.root.children[0]
    variation = root.children[0].children[1]
    node = add_subtree(variation, b)
    assert node.parent is b and b.children == [node]
    assert node.color == WHITE and node.properties == {"C": ["x"]}
    assert node.board[pt(game, "ee")] == BLACK and node.number == 2
    whole = add_subtree(root.children[0], game.root)
    assert [len(whole.children), whole.children[0].children[0].color] == [2, BLACK]


def test_move_in_the_root_node():
    [game] = loads("(;SZ[9]PB[x]B[ee];W[cc])")
    assert game.root.color is None and game.root.properties == {"SZ": ["9"], "PB": ["x"]}
    assert [n.color for n in nodes(game)] == [None, BLACK, WHITE]


# a ko on 4x4: white bb is in atari, black cb takes it, then cb is in atari
KO_SETUP = "(;SZ[4]AB[ba][ab][bc]AW[ca][db][cc][bb]"


def test_superko_repetition_is_accepted():
    # after two passes white retakes: the position before black's capture
    # comes back, which positional superko forbids but records may hold
    [game] = loads(KO_SETUP + ";B[cb];W[];B[];W[bb])")
    last = nodes(game)[-1]
    assert last.color == WHITE and last.board[pt(game, "cb")] == EMPTY
    assert last.captures == (1, 1)


@pytest.mark.parametrize("text, reason, line, column", [
    ("(;SZ[9]\n;B[aa]\n;W[aa])", "occupied", 3, 1),
    ("(;SZ[9]AB[ba][ab]\n;W[aa])", "suicide", 2, 1),
    (KO_SETUP + "\n;B[cb]\n  ;W[bb])", "ko", 3, 3),
])
def test_illegal_moves_report_the_node(text, reason, line, column):
    with pytest.raises(SGFError) as info:
        loads(text, filename="bad.sgf")
    err = info.value
    assert str(err).endswith(": " + reason) and (err.line, err.column) == (line, column)
    assert str(err).startswith(f"bad.sgf:{line}:{column}: illegal move")


def test_ko_property_forces_an_illegal_move():
    [game] = loads(KO_SETUP + ";B[cb];W[bb]KO[])")
    last = nodes(game)[-1]
    assert last.color == WHITE and last.board[pt(game, "cb")] == EMPTY
    assert last.properties == {"KO": [""]}


def test_lenient_ko_retake_is_played():
    [game] = loads(KO_SETUP + ";B[cb];W[bb])", lenient=True)
    last = nodes(game)[-1]
    assert last.color == WHITE and last.board[pt(game, "bb")] == WHITE
    assert last.board[pt(game, "cb")] == EMPTY


def test_lenient_illegal_moves_are_kept_for_display():
    [game] = loads("(;SZ[9];B[aa];W[aa];B[ab]C[after])", lenient=True)
    root, b, w, b2 = nodes(game)
    assert w.color is None and w.setup == {WHITE: [pt(game, "aa")]}
    assert w.to_move == BLACK and w.board[pt(game, "aa")] == WHITE
    assert b2.properties == {"C": ["after"]}
    [game] = loads("(;SZ[9]AB[ba][ab];W[aa];B[cc])", lenient=True)
    root, w, b = nodes(game)
    assert w.color == WHITE and w.board[pt(game, "aa")] == EMPTY  # suicide removed
    assert w.captures == (1, 0)


def test_off_board_moves():
    with pytest.raises(SGFError, match=r"B\[jj\] is off the 9x9 board") as info:
        loads("(;SZ[9]\n;B[jj])")
    assert info.value.line == 2
    [game] = loads("(;SZ[9];B[jj];W[aa])", lenient=True)
    assert nodes(game)[1].is_pass


@pytest.mark.parametrize("text, words", [
    ("(;SZ[19:13])", "non-square boards are not supported"),
    ("(;SZ[26])", "board size 26 is not supported"),
    ("(;SZ[1])", "board size 1 is not supported"),
    ("(;SZ[big])", "not a number"),
    ("(;GM[2]SZ[9])", "not a game of Go"),
    ("(;SZ[9]AB[zz])", "AB"),
])
def test_unsupported_games(text, words):
    with pytest.raises(SGFError, match=words) as info:
        loads(text, filename="x.sgf")
    assert (info.value.line, info.value.column) == (1, 2)


def test_square_size_written_with_colon_is_fine():
    assert loads("(;SZ[13:13])")[0].size == 13
    assert loads("(;SZ[25];B[yy])")[0].size == 25


# ---------------------------------------------------------------- writer
def test_round_trip_keeps_everything():
    text = ("(;FF[3]GM[1]CA[UTF-8]SZ[13]KM[5.5]HA[2]AB[dd][jj]RU[Japanese]PB[Bl\\]ack]"
            "C[multi\nline \\\\ comment]XX[unknown][two]"
            ";W[dj]C[first];B[];W[tt]"
            "(;B[jd]LB[jd:A]TR[dj](;W[ee])(;W[ff];AE[ee]AB[gg]PL[W]))"
            "(;B[aa]C[var];AW[bb:cc]C[setup node]))")
    [game] = loads(text)
    written = dumps(game)
    [again] = loads(written)
    same_game(game, again)
    assert dumps(again) == written
    assert written.startswith("(;FF[4]GM[1]CA[UTF-8]SZ[13]KM[5.5]HA[2]AB[dd][jj]")
    assert "PB[Bl\\]ack]" in written and "C[multi\nline \\\\ comment]" in written


def test_written_game_from_play():
    game = GameState(9, 7.5)
    game.set_fixed_handicap(2)
    game.play(WHITE, game.point(4, 4))
    game.play(BLACK, None)
    game.current.properties["C"] = ["a ] b"]
    text = dumps(game)
    assert "HA[2]" in text and "KM[7.5]" in text and "SZ[9]" in text and "C[a \\] b]" in text
    [again] = loads(text)
    # the reader keeps SZ and KM as written, which the played game had
    # only as fields
    assert again.root.properties.pop("SZ") == ["9"]
    assert again.root.properties.pop("KM") == ["7.5"]
    same_game(game, again)


def test_pl_written_only_when_needed():
    game = GameState(9, 0)
    game.root.to_move = WHITE
    text = dumps(game)
    assert "PL[W]" in text
    assert loads(text)[0].root.to_move == WHITE
    assert "PL" not in dumps(loads("(;SZ[9];B[aa];W[bb])")[0])


def test_save_and_load_file(tmp_path):
    [game] = loads("(;SZ[9]PB[Ünïcödé 名人];B[aa])")
    path = tmp_path / "out.sgf"
    save(path, game)
    assert "CA[UTF-8]" in path.read_text(encoding="utf-8")
    [again] = load(path)
    same_game(game, again)
    [again] = load(str(path))
    assert again.root.properties["PB"] == ["Ünïcödé 名人"]


# ---------------------------------------------------------------- encodings
@pytest.mark.parametrize("charset, codec, text", [
    ("ISO-8859-1", "latin-1", "Café Noël"),
    ("latin1", "latin-1", "Åsa"),
    ("GB2312", "gb2312", "围棋 比赛"),
    ("GBK", "gbk", "圍棋"),
    ("Big5", "big5", "圍棋"),
    ("Shift_JIS", "shift_jis", "本因坊 秀策"),
    ("SJIS", "shift_jis", "囲碁"),
    ("EUC-KR", "euc-kr", "바둑"),
    ("UTF-8", "utf-8", "碁 ☃"),
])
def test_charsets(tmp_path, charset, codec, text):
    data = f"(;CA[{charset}]SZ[9]PB[{text}];B[aa]C[{text}])".encode(codec)
    path = tmp_path / "enc.sgf"
    path.write_bytes(data)
    [game] = load(path)
    assert game.root.properties["PB"] == [text]
    assert game.root.children[0].comment == text


def test_default_is_utf8_and_bad_bytes_fall_back():
    assert loads("(;PB[名人])".encode("utf-8"))[0].root.properties["PB"] == ["名人"]
    # declared UTF-8 but Latin-1 bytes: read as Latin-1, no crash
    [game] = loads("(;CA[UTF-8]PB[Café])".encode("latin-1"))
    assert game.root.properties["PB"] == ["Café"]
    # declared GB2312 with bytes that are neither GB nor UTF-8: replaced
    [game] = loads(b"(;CA[GB2312]PB[\xff\xfe\xff])")
    assert "\ufffd" in game.root.properties["PB"][0]
    # unknown charset: treated as absent
    [game] = loads("(;CA[klingon]PB[é])".encode("utf-8"))
    assert game.root.properties["PB"] == ["é"]


@pytest.mark.parametrize("codec, text", [
    ("cp932", "(;GM[1]SZ[19]PB[井山裕太]PW[一力遼]C[黒の勝ち。白は中押しで投了しました。])"),
    ("gb18030", "(;GM[1]SZ[19]PB[柯洁]PW[申真谞]C[黑中盘胜。这是一盘精彩的对局。])"),
    ("cp949", "(;GM[1]SZ[19]PB[이세돌]PW[커제]C[흑 불계승. 좋은 대국이었습니다.])"),
    ("cp950", "(;GM[1]SZ[19]PB[周俊勳]PW[林海峰]C[黑中盤勝。這是一盤精彩的對局。])"),
])
def test_east_asian_files_without_ca_are_recognised(codec, text, caplog):
    # Japanese and Chinese servers write such files; read as Latin-1 the
    # names were noise, and a Shift-JIS trail byte 0x5C read as an escape
    with caplog.at_level(logging.WARNING, logger="imago.sgf"):
        [game] = loads(text.encode(codec), filename="asia.sgf")
    assert game.root.properties["PB"][0] in text
    assert game.root.properties["C"][0] in text
    [warning] = [r.getMessage() for r in caplog.records]
    assert warning == f"asia.sgf: no CA[]; the bytes read as {codec} (a guess)"


def test_a_shift_jis_trail_byte_like_a_backslash_does_not_escape():
    text = "(;GM[1]SZ[9]PB[本因坊秀策]PW[表]C[ソ表能十申])"  # 0x5C trail bytes
    assert b"\\]" in text.encode("cp932")
    [game] = loads(text.encode("cp932"))
    assert game.root.properties["PW"] == ["表"]
    assert game.root.properties["C"] == ["ソ表能十申"]


@pytest.mark.parametrize("name, comment", [
    ("Jérôme Hubert", "Très belle partie. Schöne Partie, Jürgen Müller!"),
    ("Café Noël", "Åsa Ström"),
    ("Søren Ærø", "¡Qué partida! Ça va, señor?"),
])
def test_western_files_without_ca_stay_latin1(name, comment):
    [game] = loads(f"(;SZ[9]PB[{name}]C[{comment}])".encode("latin-1"))
    assert game.root.properties["PB"] == [name]
    assert game.root.properties["C"] == [comment]


def test_byte_order_marks_and_utf16():
    assert loads(b"\xef\xbb\xbf(;PB[\xc3\xa9])")[0].root.properties["PB"] == ["é"]
    for codec in ("utf-16", "utf-16-le", "utf-16-be"):
        data = "(;CA[UTF-16]PB[名人];B[aa])".encode(codec)
        assert loads(data)[0].root.properties["PB"] == ["名人"]


# ---------------------------------------------------------------- lenient
def test_lenient_collection_keeps_the_good_games(caplog):
    text = "(;GN[one];B[aa])\n(;GN[two];B[bb] C)\n(;GM[3]GN[three])\n(;GN[four];W[cc])"
    with pytest.raises(SGFError):
        loads(text)
    with caplog.at_level(logging.INFO, logger="imago.sgf"):
        games = loads(text, lenient=True, filename="mixed.sgf")
    names = [g.root.properties["GN"] for g in games]
    assert names == [["one"], ["two"], ["four"]]  # 'two' kept up to its last good node
    assert len(games[1].root.children) == 1
    assert any("mixed.sgf:2:" in r.getMessage() for r in caplog.records)
    assert any("not a game of Go" in r.getMessage() for r in caplog.records)


def test_lenient_truncated_file_keeps_the_complete_nodes():
    text = "(;SZ[9];B[aa];W[bb](;B[cc];W[dd])(;B[ee];W[f"
    with pytest.raises(SGFError, match="expected ']'"):
        loads(text)
    [game] = loads(text, lenient=True)
    w = nodes(game)[2]
    assert len(w.children) == 2 and len(w.children[1].children) == 0
    [game] = loads("(;SZ[9];B[aa];W[bb](;B[cc]", lenient=True)
    assert len(nodes(game)) == 4


def test_lenient_still_fails_with_nothing_to_keep():
    with pytest.raises(SGFError, match="no game tree"):
        loads("not sgf at all", lenient=True)
    with pytest.raises(SGFError, match="non-square"):
        loads("(;SZ[9:5])", lenient=True)


# ---------------------------------------------------------------- iter_games
def test_iter_games_walks_and_reports_bad_files(tmp_path, caplog):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "one.sgf").write_text("(;SZ[9];B[aa])(;SZ[9];B[bb])")
    (tmp_path / "a" / "bad.sgf").write_text("(;SZ[9:7])")
    (tmp_path / "a" / "notes.txt").write_text("(;SZ[9])")
    (tmp_path / "two.SGF").write_text("(;SZ[13])")
    (tmp_path / "empty.sgf").write_bytes(b"")
    with caplog.at_level(logging.WARNING, logger="imago.sgf"):
        found = list(sgf.iter_games([tmp_path / "a", str(tmp_path / "*.SGF"),
                                     tmp_path / "empty.sgf", tmp_path / "missing.sgf"]))
    assert [(p.rsplit("/", 1)[-1], g.size) for p, g in found] == [
        ("one.sgf", 9), ("one.sgf", 9), ("two.SGF", 13)]
    messages = " ".join(r.getMessage() for r in caplog.records)
    assert "bad.sgf" in messages and "non-square" in messages
    assert "empty.sgf" in messages and "missing.sgf" in messages
    assert [g.size for _, g in sgf.iter_games(str(tmp_path / "a" / "one.sgf"))] == [9, 9]


def test_find_sgf_files_names_each_file_once_and_why_an_input_gave_nothing(tmp_path):
    (tmp_path / "a" / "deep").mkdir(parents=True)
    (tmp_path / "a" / "deep" / "x.SGF").write_text("(;SZ[9])")
    (tmp_path / "a" / "y.sgf").write_text("(;SZ[9])")
    (tmp_path / "empty").mkdir()
    files, problems = sgf.find_sgf_files([tmp_path / "a", str(tmp_path / "a" / "*.sgf"),
                                          tmp_path / "empty", str(tmp_path / "z*.sgf"),
                                          tmp_path / "gone.sgf"])
    assert [f.name for f in files] == ["x.SGF", "y.sgf"]
    assert problems == [f"{tmp_path / 'empty'}: no SGF files in this folder",
                        f"{tmp_path / 'z*.sgf'}: no file matches",
                        f"{tmp_path / 'gone.sgf'}: no such file or folder"]


def test_a_komi_beyond_any_game_reads_back_as_written_not_as_fox_komi():
    from imago.game import GameState
    from imago.sgf import loads
    from imago.sgf.writer import dumps

    text = dumps(GameState(9, 200.0))
    assert "KM[200.0]" in text
    assert loads(text)[0].komi == 200.0
    assert loads("(;GM[1]FF[4]SZ[9]KM[750])")[0].komi == 7.5


def test_a_game_counted_by_territory_is_written_with_japanese_rules():
    from imago.game import GameState

    game = GameState(9, 6.5)
    game.scoring = "territory"
    assert "KM[6.5]RU[Japanese]" in dumps(game)
    loaded = loads("(;GM[1]SZ[9]RU[Chinese]KM[7.5];B[ee])")[0]
    assert "RU[Chinese]" in dumps(loaded)  # area: the record's rules as read
    loaded.scoring = "territory"
    written = dumps(loaded)
    assert "RU[Japanese]" in written and "Chinese" not in written
    assert "RU" not in dumps(GameState(9, 7.5))
