"""Expert games mixed into the self-play loop's training (``--mix``): SGF
games as replay records (the move played as the policy target, the outcome
as the value, random openings skipped), imported once into the cache with
held-out and unusable games left out by name, and a share of every training
batch drawn from them."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from imago.game import BLACK, WHITE
from imago.sgf import load
from imago.training.data import is_validation_game
from imago.training.expert import (DONE, VERSION, expert_buffer, expert_games, expert_record,
                                   import_games, other_size_games)
from imago.training.rl_trainer import RLTrainConfig, mix_problems

from sgf_fakes import game_sgf

GAME = "(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese]RE[{result}];B[ee];W[cc];B[gg];W[cg];B[gc];W[tt])"
WIDTH = 26  # the extended planes


def write_games(folder, count: int, result: str = "B+10.5"):
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for k in range(count):
        path = folder / f"game-{k:03d}.sgf"
        path.write_text(GAME.format(result=result))
        paths.append(path)
    return paths


def test_a_record_learns_the_moves_played_and_the_outcome(tmp_path):
    path = write_games(tmp_path, 1)[0]
    record = expert_record(load(path)[0], "extended", skip=1, name="g")
    assert record.problems() == []
    assert len(record) == 5  # six moves, the first a random opening
    assert record.to_move.tolist() == [WHITE, BLACK, WHITE, BLACK, WHITE]
    assert record.full.all() and np.allclose(record.policy.sum(axis=1), 1)
    assert record.policy[-1, 81] == 1  # the last move is a pass
    assert record.searched.tolist() == [-1, 1, -1, 1, -1]  # Black won
    assert (record.winner, record.score, record.resigned) == (BLACK, 10.5, False)
    assert record.ownership.shape == (81,) and record.ownership[4 * 9 + 4] == 1  # E5, Black's

    path.write_text(GAME.format(result="W+R"))
    record = expert_record(load(path)[0], "extended")
    assert (record.winner, record.score, record.resigned) == (WHITE, 0.0, True)
    assert record.problems() == []
    path.write_text(GAME.format(result="?"))
    assert expert_record(load(path)[0], "extended") is None


def test_a_record_of_unknown_komi_is_left_out(tmp_path):
    """An even 19x19 game recorded with ``KM[0]`` (a komi left unrecorded,
    see ``komi_unknown``): its outcome is no value target at any komi."""
    path = tmp_path / "km0.sgf"
    path.write_text(game_sgf(2, 19, 20, "B+R", komi=0))
    assert expert_record(load(path)[0], "extended") is None
    path.write_text(game_sgf(2, 19, 20, "B+R", komi=7.5))
    assert expert_record(load(path)[0], "extended") is not None


def test_a_resigned_records_ownership_is_the_counts_view_of_its_last_position(tmp_path):
    """Walls on columns E and F, a lone White stone at B2 in Black's area,
    then White resigned: as the stones stand, columns A-D are nobody's
    (B2 touches them); the count takes B2 off and gives each side its
    area, as self-play keeps for a game a side resigned."""
    moves = "".join(f";B[e{chr(97 + r)}];W[f{chr(97 + r)}]" for r in range(9))
    path = tmp_path / "wall.sgf"
    path.write_text(f"(;GM[1]FF[4]SZ[9]KM[7.5]RU[Chinese]RE[B+R]{moves};B[];W[bh])")
    record = expert_record(load(path)[0], "extended")
    assert record.resigned
    board = record.ownership.reshape(9, 9)
    assert (board[:, :5] == 1).all() and (board[:, 5:] == -1).all()  # A-E Black's, F-J White's


def test_a_game_its_records_refuse_is_skipped_and_named(tmp_path, monkeypatch):
    """Two ai19 records read RE[B+0.0]: a winner without a lead to learn
    (no score target, the winner kept). A record the replay shards would
    refuse all the same is skipped, named, and the import goes on."""
    import imago.training.expert as expert

    data = tmp_path / "data"
    paths = write_games(data, 4)
    paths[0].write_text(GAME.format(result="B+0.0"))
    record = expert_record(load(paths[0])[0], "extended")
    assert (record.winner, record.score, record.resigned) == (BLACK, 0.0, True)
    assert record.problems() == []

    made = expert.expert_record

    def contradicting(state, *args, **kwargs):
        record = made(state, *args, **kwargs)
        if record is not None and record.name.endswith("game-001.sgf"):
            record.score = -3.0  # a White lead in a game Black won
        return record
    monkeypatch.setattr(expert, "expert_record", contradicting)
    lines = []
    buffer = expert_games([str(data)], "extended", 9, cache_dir=tmp_path / "cache",
                          log=lines.append)
    assert any("game-001.sgf: score -3.0 does not agree with winner 1" in line
               for line in lines), lines
    held_out = sum(is_validation_game(str(path), 0.1) for path in paths[1:])
    assert json.loads((buffer.folder / DONE).read_text())["games"] == 3 - held_out


def test_import_leaves_out_held_out_other_size_and_unusable_games(tmp_path):
    data = tmp_path / "data"
    write_games(data, 40)
    (data / "index.tsv").write_text("file\trandom_opening_moves\ngame-000.sgf\t2\n")
    (data / "big.sgf").write_text(GAME.replace("SZ[9]", "SZ[13]").format(result="B+1"))
    (data / "none.sgf").write_text(GAME.format(result=""))
    (data / "broken.sgf").write_text("(;GM[1]SZ[9];B[ee")
    lines = []
    done = import_games([str(data)], tmp_path / "expert", "extended", 9, log=lines.append)
    held = sum(is_validation_game(str(p), 0.1) for p in sorted(data.glob("game-*.sgf")))
    assert held > 0
    assert (done["games"], done["held_out"], done["other_size"], done["no_result"],
            done["unreadable"]) == (40 - held, held, 1, 1, 1)
    first_kept = not is_validation_game(str(data / "game-000.sgf"), 0.1)
    assert done["positions"] == 6 * (40 - held) - 2 * first_kept
    assert any("broken.sgf" in line for line in lines)
    buffer = expert_buffer(tmp_path / "expert")
    assert buffer.positions(9) == done["positions"]
    batch = buffer.sample(8, np.random.default_rng(0), 9)
    assert batch["planes"].shape == (8, 9, 9, WIDTH) and (batch["policy_weight"] == 1).all()

    # imported once: the same sources again keep the folder as it is
    stamp = (tmp_path / "expert" / DONE).stat().st_mtime_ns
    assert import_games([str(data)], tmp_path / "expert", "extended", 9, log=lines.append) == done
    assert (tmp_path / "expert" / DONE).stat().st_mtime_ns == stamp
    with pytest.raises(ValueError, match="no finished 19x19 game"):
        import_games([str(data)], tmp_path / "other", "extended", 19, log=lines.append)
    assert not (tmp_path / "other" / DONE).exists()


def test_an_import_killed_half_way_starts_again(tmp_path):
    data = tmp_path / "data"
    write_games(data, 5)
    folder = tmp_path / "expert"
    import_games([str(data)], folder, "extended", 9, log=lambda _: None)
    (folder / DONE).unlink()  # as if killed before the end
    (folder / "shard-stray.npz").write_bytes(b"half")
    done = import_games([str(data)], folder, "extended", 9, log=lambda _: None)
    assert not (folder / "shard-stray.npz").exists()
    assert json.loads((folder / DONE).read_text()) == done


def test_expert_games_are_cached_per_source_and_planes(tmp_path):
    data = tmp_path / "data"
    write_games(data, 5)
    lines = []
    first = expert_games([str(data)], "extended", 9, cache_dir=tmp_path / "cache",
                         log=lines.append)
    assert first.folder.parent == tmp_path / "cache" / "expert"
    assert any("importing" in line for line in lines)
    lines.clear()
    again = expert_games([str(data)], "extended", 9, cache_dir=tmp_path / "cache",
                         log=lines.append)
    assert again.folder == first.folder and not any("importing" in line for line in lines)
    history = expert_games([str(data)], "history", 9, cache_dir=tmp_path / "cache",
                           log=lines.append)
    assert history.folder != first.folder
    # an import made the way of an earlier version is made again
    done = first.folder / DONE
    done.write_text(json.dumps({**json.loads(done.read_text()), "version": 1}))
    lines.clear()
    expert_games([str(data)], "extended", 9, cache_dir=tmp_path / "cache", log=lines.append)
    assert any("importing" in line for line in lines)
    assert json.loads(done.read_text())["version"] == VERSION


def test_mix_options_are_named_when_wrong(tmp_path):
    assert mix_problems([], 0.25) == []
    assert mix_problems([], 1.0) == [
        "--mix-share must be from 0 up to (not including) 1, not 1.0"]
    assert mix_problems([str(tmp_path / "nowhere")], 0.25) == [
        f"--mix {tmp_path / 'nowhere'}: no such file or folder"]
    # with --mix, the trainer's own configuration names the share
    assert RLTrainConfig(mix_share=-0.1).option_problems() == [
        "--mix-share must be from 0 up to (not including) 1, not -0.1"]


def test_a_folder_imported_from_other_games_is_replaced_not_mixed(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    write_games(one, 3)
    write_games(two, 30)
    folder = tmp_path / "expert"
    (folder).mkdir()
    (folder / "notes.txt").write_text("mine")
    first = import_games([str(one)], folder, "extended", 9, log=lambda _: None)
    second = import_games([str(two)], folder, "extended", 9, log=lambda _: None)
    assert expert_buffer(folder).positions(9) == second["positions"] != first["positions"]
    assert (folder / "notes.txt").read_text() == "mine"


def nine_and_thirteen(tmp_path, nine: int, thirteen: int):
    """A data folder of ``nine`` 9x9 and ``thirteen`` 13x13 games."""
    data = tmp_path / "data"
    write_games(data, nine)
    for k in range(thirteen):
        (data / f"big-{k:02d}.sgf").write_text(
            GAME.replace("SZ[9]", "SZ[13]").format(result="B+1"))
    return data


def nine_and_every_size_networks(tmp_path):
    """A tiny 9x9 network's file and the same made for 9x9, 13x13 and 19x19."""
    from imago.nn.networks import create_network

    net = create_network("residual", 9, "extended", blocks=1, filters=8)
    one_size = net.save(tmp_path / "nine.keras")
    net.metadata["board_sizes"] = [9, 13, 19]
    return one_size, net.save(tmp_path / "every.keras")


def test_an_any_size_networks_other_sizes_get_a_buffer_each(tmp_path, monkeypatch):
    """The --mix games of the sizes an any-size network was made for, other
    than the run's: one buffer a size with games; a size without games is
    recorded as imported (not read again) and left out; nothing for a
    network of one size or without --mix."""
    pytest.importorskip("tensorflow")
    monkeypatch.setenv("IMAGO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr("imago.training.expert.gnugo_dead_stones", lambda cache: None)
    data = nine_and_thirteen(tmp_path, 5, 10)
    one_size, every_size = nine_and_every_size_networks(tmp_path)
    assert other_size_games([str(data)], one_size, 9) == {}
    assert other_size_games([], every_size, 9) == {}
    lines = []
    others = other_size_games([str(data)], every_size, 9, log=lines.append)
    assert list(others) == [13] and others[13].positions(13) > 0
    assert others[13].positions(9) == 0
    assert any("0 19x19 games" in line for line in lines), lines
    lines.clear()
    assert list(other_size_games([str(data)], every_size, 9, log=lines.append)) == [13]
    assert not any("importing" in line for line in lines), lines
    assert list(other_size_games([str(data)], every_size, 13)) == [9]  # a 13x13 run keeps 9x9


def test_every_size_of_a_training_mix_is_imported_in_one_reading(tmp_path, monkeypatch):
    """An any-size network's mix (its run's size and the others) parses
    each SGF file once, not once a size; each size gets its own folder and
    count, a size without games is recorded, and the run's own size is
    required."""
    pytest.importorskip("tensorflow")
    import imago.training.expert as expert

    monkeypatch.setenv("IMAGO_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(expert, "gnugo_dead_stones", lambda cache: None)
    read = []
    named_games = expert.named_games
    monkeypatch.setattr(expert, "named_games",
                        lambda files, problems: (read.append(len(files)),
                                                 named_games(files, problems))[1])
    data = nine_and_thirteen(tmp_path, 30, 20)
    every_size = nine_and_every_size_networks(tmp_path)[1]
    lines = []
    mix, others = expert.training_mix([str(data)], every_size, 9, True, log=lines.append)
    assert read == [50]  # one reading of the 50 files for the three sizes
    assert mix.positions(9) > 0 and mix.positions(13) == 0
    assert list(others) == [13] and others[13].positions(13) > 0
    counts = [re.search(r"(\d+) (\d+)x\d+ games.*\((\d+) held out for validation, (\d+) "
                        r"of other sizes", line).groups()
              for line in lines if "positions in" in line]
    (games9, _, held9, other9), (games13, _, held13, other13), nineteen = \
        [tuple(map(int, c)) for c in counts]
    assert (games9 + held9, other9, games13 + held13, other13) == (30, 20, 20, 30)
    assert games9 and games13 and nineteen == (0, 19, 0, 50)
    assert expert.training_mix([str(data)], every_size, 9, True)[0].positions(9) \
        == mix.positions(9) and read == [50]  # from the cache: not read again
    with pytest.raises(ValueError, match="no finished 19x19 game"):
        expert.training_mix([str(data)], every_size, 19, False)


def test_the_mix_gives_gnu_go_half_a_minute_a_record(tmp_path, gnugo_path):
    import imago.training.expert as expert

    judge = expert.gnugo_dead_stones(tmp_path)
    assert judge is not None and judge.timeout == expert.MIX_GNUGO_SECONDS == 30.0
