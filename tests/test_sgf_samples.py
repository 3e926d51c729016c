"""Every real-world file of ../shared/data/sgf-samples loads, or fails with
the SGFError named here; the gnugo9 training games all load."""

from __future__ import annotations

import os

import pytest

from imago.sgf import SGFError, dumps, load, loads, parse
from test_sgf_convert import tree_signature

# file -> words of the SGFError a strict load must raise
STRICT_FAILURES = {
    "gnugo__regression_games_pending_nightmare.sgf": "no game tree found",  # empty file
    "littlego__sgf_Illegal_games_not-an-sgf-file.sgf": "no game tree found",
    "sabakisgf__tests_sgf_encoding_nihon-kiin.sgf":
        "expected ';' after '('",  # no ';' before the first node
    "libsgfcpp__test_test-files_escaping.sgf": "GM[19]: not a game of Go",
    "littlego__sgf_19x19_Fuego_vs._Fuego.sgf": "expected ')' before the end of the input",
    "littlego__sgf_Illegal_games_encoding-unsupported.sgf":
        "expected ')' before the end of the input",  # unbalanced '('
    "littlego__sgf_sgfc_test.sgf":
        "expected '[' after property identifier 'illegal'",  # SGFC's torture test
    "littlego__sgf_Illegal_games_illegal-move.sgf": "illegal move W[hd]: occupied",
    "littlego__sgf_Illegal_games_suicide.sgf": "illegal move W[aa]: suicide",
    # the FF[4] example file plays a suicide on purpose ("all B stones get
    # captured"), legal under New Zealand rules only
    "littlego__sgf_sgfc_ff4_ex.sgf": "illegal move B[qs]: suicide",
    "littlego__sgf_sgfc_ff4_ex-rewritten-by-sgfc.sgf": "illegal move B[qs]: suicide",
    # a 1.3 MB joseki dictionary with a suicide in one of its variations
    "glift__test_testdata_Kogo_s_Joseki_Dictionary.sgf": "illegal move B[nr]: suicide",
}

# file -> words of the SGFError even a lenient load must raise
LENIENT_FAILURES = {
    "gnugo__regression_games_pending_nightmare.sgf": "no game tree found",
    "littlego__sgf_Illegal_games_not-an-sgf-file.sgf": "no game tree found",
    "libsgfcpp__test_test-files_escaping.sgf": "GM[19]: not a game of Go",
}

# loading builds a board per node: ~60,000 19x19 boards take seconds and GBs
BIG = 1_000_000


def sample_files(shared_data):
    folder = shared_data / "sgf-samples"
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() == ".sgf")
    assert len(files) >= 200
    return files


def check(path, lenient: bool, expected: dict) -> None:
    name = path.name
    if name in expected:
        with pytest.raises(SGFError) as info:
            load(path, lenient=lenient)
        err = info.value
        assert expected[name] in str(err), str(err)
        assert err.filename == os.fspath(path)
        if "no game tree" not in str(err) and "GM[" not in str(err):
            assert err.line and err.column
        return
    games = load(path, lenient=lenient)
    assert games, name
    for game in games:
        assert game.current is game.root and 2 <= game.size <= 25


def test_every_sample_strict(shared_data):
    for path in sample_files(shared_data):
        if path.stat().st_size < BIG:
            check(path, False, STRICT_FAILURES)


def test_every_sample_lenient(shared_data):
    for path in sample_files(shared_data):
        if path.stat().st_size < BIG:
            check(path, True, LENIENT_FAILURES)


def test_big_samples_parse(shared_data):
    for path in sample_files(shared_data):
        if path.stat().st_size >= BIG:
            roots = parse(path.read_bytes(), filename=str(path))
            assert sum(1 for _ in roots[0].iter_tree()) > 10_000


@pytest.mark.slow
def test_big_samples_load(shared_data):
    for path in sample_files(shared_data):
        if path.stat().st_size >= BIG:
            check(path, False, STRICT_FAILURES)
            check(path, True, LENIENT_FAILURES)


def test_expected_failures_exist(shared_data):
    names = {p.name for p in sample_files(shared_data)}
    assert set(STRICT_FAILURES) <= names and set(LENIENT_FAILURES) <= names


def test_sample_details(shared_data):
    folder = shared_data / "sgf-samples"
    [game] = load(folder / "sabakisgf__tests_sgf_chinese.sgf")
    assert game.root.properties["PB"] == ["古力"]
    [game] = load(folder / "sabakisgf__tests_sgf_korean.sgf")
    assert game.root.properties["PW"] == ["박정환"]
    [game] = load(folder / "sabakisgf__tests_sgf_utf16le.sgf")
    assert game.root.properties["PW"] == ["Go Seigen"]
    [game] = load(folder / "littlego__sgf_19x19_Fuego_vs._Fuego.sgf", lenient=True)
    assert sum(1 for _ in game.root.main_line()) > 300
    games = load(folder / "littlego__sgf_sgfc_test.sgf", lenient=True)
    assert len(games) >= 2


def test_gnugo9_games_load(shared_data):
    folder = shared_data / "gnugo9"
    files = sorted(folder.glob("game-*.sgf"))
    assert files
    for path in files[:100]:
        [game] = load(path)
        moves = sum(1 for n in game.root.main_line() if n.is_move)
        assert game.size == 9 and game.komi == 7.5 and moves > 0
        assert game.root.properties["RE"][0][0] in "BW"


def test_sample_texts_round_trip(shared_data):
    for path in sample_files(shared_data)[::7]:
        if path.name in STRICT_FAILURES or path.stat().st_size >= BIG:
            continue
        for game in load(path):
            [again] = loads(dumps(game))
            assert tree_signature(game.root) == tree_signature(again.root)
