"""Reviews of real games with imago's own analysis engine: a 9x9 game with
the shipped network, 19x19 games with a handicap and with the Fox server's
komi; the reviewed SGF read back with sgfmill."""

from __future__ import annotations

from pathlib import Path

import pytest

from imago.review import cli

DATA = Path(__file__).resolve().parent / "data"
MODEL = Path(__file__).resolve().parent.parent / "models" / "residual9.keras"
sgfmill_sgf = pytest.importorskip("sgfmill.sgf", reason="the read-back needs sgfmill "
                                                        "(pip install -e '.[test]')")


def review(name: str, tmp_path: Path, *options: str) -> tuple:
    out = tmp_path / f"{name}-review.sgf"
    status = cli.main([str(DATA / name), "-o", str(out), "-q", *options])
    assert status == 0
    game = sgfmill_sgf.Sgf_game.from_bytes(out.read_bytes())
    return game, [node for node in game.get_main_sequence() if node.get_move()[0]]


@pytest.mark.skipif(not MODEL.exists(), reason="the shipped model is missing")
def test_a_real_9x9_game_reviewed_with_the_network(tmp_path, capsys):
    game, moves = review("katago9-game-00001.sgf", tmp_path, "--visits", "16",
                         "--model", str(MODEL))
    assert len(moves) == 60
    for number, node in enumerate(moves, 1):
        assert node.get("C").startswith(f"Move {number} ")
        assert 0 <= float(node.get_raw("SBKV")) <= 100
    marked = [node for node in moves if node.has_property("BM")]
    for node in marked:  # each mistake has the best line beside it
        siblings = node.parent
        assert len(siblings) >= 2
        line = [child for child in siblings if child is not node][0]
        assert line.get_move()[0] == node.get_move()[0]
    summary = capsys.readouterr().out
    assert "accuracy" in summary and "W+14.5" in summary


@pytest.mark.skipif(not MODEL.exists(), reason="the shipped model is missing")
def test_a_real_19x19_handicap_game(tmp_path):
    game, moves = review("ai19-game-01515.sgf", tmp_path, "--visits", "4",
                         "--model", str(MODEL))
    root = game.get_root()
    setup = [node for node in game.get_main_sequence() if node.has_property("AB")]
    assert root.get("HA") == 2 and len(setup[0].get("AB")) == 2 and len(moves) == 92
    assert moves[0].get_move()[0] == "w" and moves[0].get("C").startswith("Move 1 ")
    assert all(node.has_property("SBKV") for node in moves)


def test_fox_komi_is_read_as_the_komi(tmp_path, capsys):
    game, moves = review("ai19-game-00321.sgf", tmp_path, "--visits", "1", "--model", "none")
    assert len(moves) == 208
    assert "komi 7.5" in capsys.readouterr().out
