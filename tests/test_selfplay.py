"""Policy self-play: legal games to the end, counted, saved as SGF records
that the training data reader takes."""

from __future__ import annotations

import numpy as np
import pytest

from imago.game import BLACK, GameState, vertex_to_index
from imago.sgf import load

pytest.importorskip("tensorflow")

from imago.training.selfplay import choose_moves, main, write_games  # noqa: E402


@pytest.fixture(scope="module")
def network():
    from imago.nn.networks import create_network

    return create_network("residual", 9, "history", blocks=1, filters=8)


def test_games_are_legal_finished_and_saved(tmp_path, network):
    lines: list = []
    summary = write_games(network, tmp_path, 6, parallel=4, seed=3, progress=lines.append)
    files = sorted(tmp_path.glob("selfplay-*.sgf"))
    assert [f.name for f in files] == [f"selfplay-{k:06d}.sgf" for k in range(1, 7)]
    assert summary["games"] == 6 and summary["black_wins"] + summary["white_wins"] <= 6
    assert lines and lines[-1].startswith("6/6 games")
    for f in files:
        game = load(f)[0]  # replaying checks every move's legality
        result = game.root.properties["RE"][0]
        assert result[0] in "BW0"
        last = game.root
        while last.children:
            last = last.children[0]
        assert last.number <= 2 * 81
    # numbering continues after the files already there
    write_games(network, tmp_path, 1, parallel=1, seed=4)
    assert (tmp_path / "selfplay-000007.sgf").exists()


def test_moves_never_fill_own_eyes_and_follow_the_policy():
    game = GameState(5)
    # a black eye at A1 (B1, A2, B2 black)
    game.board.set_stones(black=[vertex_to_index(v, 5) for v in ("B1", "A2", "B2")])
    policy = np.zeros(26)
    policy[20] = 1.0  # A1 is row 4, column 0 of the policy: the eye
    rng = np.random.default_rng(0)
    assert choose_moves(policy[None], [game], [1.0], rng) == [None]  # only the eye: pass
    policy[12] = 1.0  # C3
    moves = choose_moves(np.repeat(policy[None], 20, 0), [game] * 20, [1.0] * 20, rng)
    assert set(moves) == {vertex_to_index("C3", 5)}
    assert game.to_move == BLACK


def test_command_line_refuses_a_missing_model(tmp_path, capsys):
    assert main(["--model", str(tmp_path / "none.keras"), "--games", "1",
                 "--output", str(tmp_path / "out")]) == 1
    assert "cannot load" in capsys.readouterr().err


@pytest.mark.parametrize("options,message", [
    (["--games", "0"], "--games must be at least 1, not 0"),
    (["--parallel", "-1"], "--parallel must be at least 1, not -1"),
    (["--size", "30"], "--size must be 2 to 25, not 30"),
    (["--komi", "inf"], "--komi must be a number from -81 to 81 on 9x9, not inf"),
    (["--temperature", "0"], "--temperature must be a positive number, not 0"),
    (["--late-temperature", "nan"], "--late-temperature must be a positive number, not nan"),
    (["--sample-moves", "-3"], "--sample-moves must be 0 or more, not -3"),
    (["--seed", "-1"], "--seed must be from 0 to 2**32 - 1, not -1"),
])
def test_command_line_refuses_nonsense_before_loading_a_model(tmp_path, capsys, options,
                                                              message):
    with pytest.raises(SystemExit) as exit_:
        main(["--output", str(tmp_path / "out"), "--model", "no-such.keras"] + options)
    assert exit_.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last == f"python -m imago.training.selfplay: error: {message}"
    assert not (tmp_path / "out").exists()


def test_command_line_refuses_an_output_that_is_a_file(tmp_path, capsys):
    (tmp_path / "out").write_text("a file")
    with pytest.raises(SystemExit) as exit_:
        main(["--output", str(tmp_path / "out"), "--model", "no-such.keras"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip().endswith(
        f"error: --output: {tmp_path / 'out'} is a file, not a folder")
