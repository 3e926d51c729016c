"""Self-play games started from other players' positions (``--openings``):
which records give opening lines, how far a game starts into one, and that
only the moves the searches played become training positions."""

from __future__ import annotations

import numpy as np
import pytest

from imago.game import GameState
from imago.sgf import dumps, loads
from imago.training import rl_cli
from imago.training.openings import (default_opening_moves, load_openings, opening_lines,
                                     start_from_opening)
from imago.training.rl_config import RLConfig
from imago.training.search_play import SelfPlaySettings, play_games

from selfplay_fakes import FakeEvaluator
from sgf_fakes import game_sgf


@pytest.fixture
def records(tmp_path):
    folder = tmp_path / "games"
    folder.mkdir()
    (folder / "long.sgf").write_text(game_sgf(1, size=5, moves=16))
    (folder / "short.sgf").write_text(game_sgf(2, size=5, moves=1))  # half a move: nothing
    (folder / "other-size.sgf").write_text(game_sgf(3, size=7, moves=16))
    (folder / "setup.sgf").write_text("(;GM[1]FF[4]SZ[5]AB[aa]AW[bb];B[cc];W[dd];B[ee];W[ab])")
    (folder / "passed.sgf").write_text("(;GM[1]FF[4]SZ[5];B[cc];W[];B[dd];W[bb];B[ee];W[ab])")
    (folder / "broken.sgf").write_text("(;GM[1]SZ[5];B[cc")
    return folder


def test_lines_come_from_games_of_the_size_cut_to_half_and_before_a_pass(records):
    problems: list[str] = []
    lines = load_openings([records], 5, most_moves=6, problems=problems)
    by_name = {line.name.rsplit("/", 1)[-1]: line for line in lines}
    assert sorted(by_name) == ["long.sgf"]  # passed.sgf: one move before its pass, half of 1
    assert len(by_name["long.sgf"]) == 6  # the most moves asked for (half of 16 is 8)
    assert len(problems) == 1 and "broken.sgf" in problems[0]
    assert len(load_openings([records], 5, most_moves=50, problems=[])[0]) == 8
    assert default_opening_moves(13) == 42 and default_opening_moves(19) == 90


def test_a_game_starts_between_one_move_and_the_whole_line(records):
    lines = load_openings([records], 5, 6, [])
    expected = [(n.color, n.point) for n in loads((records / "long.sgf").read_text())[0]
                .root.main_line() if n.is_move][:6]
    starts = set()
    rng = np.random.default_rng(4)
    for _ in range(60):
        state = GameState(5)
        described = start_from_opening(state, lines, rng)
        played = [(n.color, n.point) for n in state.root.main_line() if n.is_move]
        assert played == expected[:len(played)] and described.endswith(f"{len(played)} moves")
        starts.add(len(played))
    assert starts == set(range(1, 7))
    assert start_from_opening(GameState(5), [], rng) is None


def test_only_the_searched_moves_are_recorded(records):
    lines = load_openings([records], 5, 6, [])
    base = dict(size=5, komi=0.5, visits=8, cheap_visits=4, full_share=0.5, parallel=4,
                search_batch=4, resign_value=-1.0, max_moves=40)
    played = list(play_games(FakeEvaluator(), SelfPlaySettings(opening_share=1.0, **base), 4,
                             seed=3, openings=lines))
    for game in played:
        comment = game.state.root.properties["GC"][0]
        start = int(comment.rsplit(", ", 1)[1].split()[0])
        moves = len(game.state.current.path_from_root()) - 1
        assert 1 <= start <= 6 and len(game.record) == moves - start
        assert game.record.to_move[0] == (1 if start % 2 == 0 else 2)
        assert loads(dumps(game.state))[0].root.properties["RE"] == [game.result]
    never = play_games(FakeEvaluator(), SelfPlaySettings(opening_share=0.0, **base), 2,
                       seed=3, openings=lines)
    assert all("GC" not in game.state.root.properties for game in never)


def test_openings_are_checked_and_named(records, tmp_path):
    with pytest.raises(ValueError, match="no 9x9 game"):
        opening_lines([records], 9, default_opening_moves(9), print)
    logged: list[str] = []
    assert len(opening_lines([records], 5, default_opening_moves(5), logged.append)) == 1
    assert "1 5x5 games" in logged[0] and "broken.sgf" in logged[0]
    assert opening_lines([], 5, default_opening_moves(5), logged.append) == []
    refused = ("opening-moves must be at least 1 (0 on the command line: a quarter of the "
               "board's points), not {}")
    assert SelfPlaySettings(opening_moves=0).problems() == [refused.format(0)]
    assert "opening-share" in SelfPlaySettings(opening_share=2).problems()[0]
    assert RLConfig(opening_moves=-1).problems() == [refused.format(-1)]  # once, not twice
    assert RLConfig(opening_moves=0).problems() == []
    assert RLConfig().selfplay_settings(-0.9).opening_share == 0.0  # no lines, no share
    config = RLConfig(openings=[str(records)], opening_moves=7)
    assert (config.selfplay_settings(-0.9).opening_share,
            config.selfplay_settings(-0.9).opening_moves) == (0.5, 7)


def test_selfplay_starts_games_from_openings_or_names_the_problem(tmp_path, tiny_model, capsys):
    pytest.importorskip("tensorflow")
    folder = tmp_path / "nine"
    folder.mkdir()
    for k in range(3):
        (folder / f"g{k}.sgf").write_text(game_sgf(10 + k, size=9, moves=30))
    base = ["--model", str(tiny_model), "--size", "9", "--visits", "4", "--cheap-visits", "2",
            "--parallel", "2", "--no-progress", "--resign-value", "-1"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert rl_cli.selfplay_main([*base, "--games", "1", "--out", str(tmp_path / "a"),
                                 "--openings", str(empty)]) == 1
    assert "no 9x9 game" in capsys.readouterr().err
    assert rl_cli.selfplay_main([*base, "--games", "2", "--out", str(tmp_path / "b"),
                                 "--openings", str(folder), "--opening-share", "1"]) == 0
    assert "3 9x9 games to start from (up to 20 moves, 15 on average)" in capsys.readouterr().err
    texts = [p.read_text() for p in (tmp_path / "b" / "sgf").rglob("*.sgf")]
    assert len(texts) == 2 and all("started after the first moves of g" in t for t in texts)


def test_a_run_older_than_the_options_takes_them_on_resuming(tmp_path, tiny_model, records):
    """A run.json written before the opening options existed reads them as
    their defaults: giving a default changes nothing, giving lines is logged
    against the default."""
    import json

    from imago.training.rl import start_run

    run, _, _ = start_run(tmp_path / "run", tiny_model, RLConfig(), log=lambda _: None)
    saved = json.loads((run.root / "run.json").read_text())
    for key in ("openings", "opening_share", "opening_moves"):
        del saved[key]
    (run.root / "run.json").write_text(json.dumps(saved))
    logged: list[str] = []
    start_run(tmp_path / "run", tiny_model, RLConfig(), {"opening_share": 0.5},
              log=logged.append)
    assert not any("changed" in line for line in logged)
    _, config, _ = start_run(tmp_path / "run", tiny_model, RLConfig(),
                             {"openings": [str(records)]}, log=logged.append)
    assert f"openings [] -> ['{records}']" in logged[-2] and config.openings == [str(records)]
