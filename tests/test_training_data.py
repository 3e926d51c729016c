"""Training samples: opening skip from index.tsv, outcome and ownership from
the side to move, TB/TW dead stones, shard cache reuse, by-game split, bad
files skipped by name (numpy only)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from imago.game import BLACK, GameState
from imago.nn.features import point_to_move
from imago.training import data as D
from imago.training.games import load_games

from sgf_fakes import game_sgf


def write_games(folder: Path, count: int, index: dict[str, int] | None = None,
                odd_result: str = "B+2.5") -> list[Path]:
    """``count`` records of 30 moves: the even ones resigned (``W+R``), the
    odd ones ending ``odd_result``."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        p = folder / f"game-{i:03d}.sgf"
        p.write_text(game_sgf(i, moves=30, result=odd_result if i % 2 else "W+R"))
        paths.append(p)
    if index is not None:
        lines = ["file\trandom_opening_moves\tmoves"]
        lines += [f"{name}\t{n}\t30" for name, n in index.items()]
        (folder / "index.tsv").write_text("\n".join(lines) + "\n")
    return paths


def test_samples_moves_outcome_and_ownership(tmp_path):
    path = write_games(tmp_path / "g", 1)[0]
    state = load_games(path)[0]
    samples = D.game_samples(state, "history")
    moves = [n for n in state.root.main_line() if n.is_move]
    assert len(samples["moves"]) == len(moves)
    assert [int(m) for m in samples["moves"]] == [point_to_move(n.point, 9) for n in moves]
    # W+R: White won; value +1 for White's moves, -1 for Black's
    for i, node in enumerate(moves):
        assert samples["values"][i] == (1 if node.color != BLACK else -1)
        # the planes are the position before the move, from the mover's side
        before = node.parent.board
        own = samples["planes"][i, ..., 0].reshape(-1)
        cells = np.array([before.cells[p] for p in before.on_board()])
        assert np.array_equal(own == 1, cells == node.color)
    assert samples["value_mask"].all()
    # ownership flips with the mover
    b, w = samples["ownership"][0], samples["ownership"][1]
    assert np.array_equal(b, -w) and set(np.unique(b)) <= {-1, 0, 1}


def test_no_result_means_no_value_target(tmp_path):
    p = tmp_path / "nores.sgf"
    p.write_text(game_sgf(5, moves=30, result=""))
    samples = D.game_samples(load_games(p)[0], "basic")
    assert not samples["value_mask"].any()


def test_an_even_big_board_game_without_komi_teaches_no_value(tmp_path):
    """Real games' records write ``KM[0]`` (or no ``KM``) where the komi went
    unrecorded; on 13x13 and up an even game always has komi, so its
    result says who won but not at which komi: no value target. Handicap
    games, setup stones, 9x9 and a real komi keep theirs."""
    def samples(text):
        path = tmp_path / "g.sgf"
        path.write_text(text)
        state = load_games(path)[0]
        return D.komi_unknown(state), D.game_samples(state, "basic")

    for komi in (0, 7.5):
        unknown, got = samples(game_sgf(3, 19, 30, "W+R", komi=komi))
        assert unknown == (komi == 0) and got["value_mask"].all() == (komi != 0)
        assert len(got["moves"]) == 30  # the moves are learnt all the same
    no_km = game_sgf(3, 13, 20, "B+2.5").replace("KM[7.5]", "")
    assert samples(no_km)[0] and not samples(no_km)[1]["value_mask"].any()
    for kept in (game_sgf(3, 9, 20, "B+R", komi=0),
                 game_sgf(3, 19, 20, "B+R", komi=0).replace("KM[0]", "KM[0]HA[2]AB[dd][pp]"),
                 game_sgf(3, 19, 20, "B+R", komi=0).replace("KM[0]", "KM[0]AW[aa]")):
        unknown, got = samples(kept)
        assert not unknown and got["value_mask"].all()


def test_dead_stones_standing_in_a_counted_record_are_taken_off_by_the_count(tmp_path):
    """Black walls the D column, White the F column (the E column shared);
    a white stone at B5 inside Black's side, never captured, as real
    games' records end. As it stands Black's side is nobody's and the
    count misses the result; imago's count takes B5 off and gives it, and
    that is learnt. A result no count of the position gives leaves the
    ownership unlearnt; a record whose stones count out is read as they
    stand."""
    walls = "".join(f";B[d{row}];W[f{row}]" for row in "abcdefghi") + ";B[];W[]"

    def read(result, setup="AW[be]"):
        path = tmp_path / "walls.sgf"
        path.write_text(f"(;GM[1]FF[4]SZ[9]KM[0.5]RE[{result}]{setup}{walls})")
        state = load_games(path)[0]
        own, how = D.final_ownership(state, path)
        return own, how, D.game_samples(state, "basic")["own_mask"]

    own, how, mask = read("W+0.5")
    assert how == "count" and (own == 1).sum() == 36 and (own == -1).sum() == 36
    assert mask.all()
    own, how, mask = read("B+30.5")
    assert how == "unsettled" and not mask.any() and (own == 1).sum() == 9  # as it stands
    own, how, mask = read("W+0.5", setup="")
    assert how == "none" and (own == 1).sum() == 36 and mask.all()
    assert not read("W+R")[2].any()  # resigned: nothing to learn, as before


def test_parse_result():
    assert D.parse_result("B+3.5") == BLACK and D.parse_result("W+R") == 2
    assert D.parse_result("0") == 0 and D.parse_result("?") is None and D.parse_result(None) is None


def test_tb_tw_markup_marks_dead_stones(tmp_path):
    # Black wall on column 4; a White stone at B2 inside Black's area, marked dead by TB
    moves = "".join(f";B[e{chr(97 + r)}];W[f{chr(97 + r)}]" for r in range(9))
    p = tmp_path / "tb.sgf"
    p.write_text(f"(;SZ[9]KM[0.5]RE[B+10.5]{moves};B[];W[bh];B[];W[]TB[bh])")
    state = load_games(p)[0]
    own, how = D.final_ownership(state)
    assert how == "markup"
    grid = own.reshape(9, 9)
    assert grid[7, 1] == 1  # dead white stone counts for Black
    assert (grid[:, :5] == 1).all() and (grid[:, 5:] == -1).all()
    # without markup imago's count takes the stone off, as that gives the result
    p2 = tmp_path / "nomark.sgf"
    p2.write_text(f"(;SZ[9]KM[0.5]RE[B+10.5]{moves};B[];W[bh];B[];W[])")
    own2, how2 = D.final_ownership(load_games(p2)[0])
    assert how2 == "count" and np.array_equal(own2, own)
    # a result no count gives: the stones as they stand, B2 making Black's area neutral
    p2.write_text(f"(;SZ[9]KM[0.5]RE[W+5.5]{moves};B[];W[bh];B[];W[])")
    own3, how3 = D.final_ownership(load_games(p2)[0])
    assert how3 == "unsettled" and own3.reshape(9, 9)[7, 1] == -1 and own3.reshape(9, 9)[0, 0] == 0


def test_opening_moves_skipped_from_index(tmp_path):
    folder = tmp_path / "idx"
    paths = write_games(folder, 2, index={"game-000.sgf": 4, "game-001.sgf": 0})
    assert D.opening_moves_to_skip(paths[0]) == 4
    assert D.opening_moves_to_skip(paths[1]) == 0
    shard, problems = D.build_shard(paths, "basic", 9)
    assert not problems
    full0 = D.game_samples(load_games(paths[0])[0], "basic")
    first = shard["moves"][shard["game"] == 0]
    assert np.array_equal(first, full0["moves"][4:])
    assert (shard["game"] == 1).sum() == 30
    # no index beside the files: nothing skipped
    other = write_games(tmp_path / "noidx", 1)
    assert D.opening_moves_to_skip(other[0]) == 0


def test_bad_file_skipped_with_its_name(tmp_path, caplog):
    folder = tmp_path / "mixed"
    write_games(folder, 3)
    bad = folder / "broken.sgf"
    bad.write_text("(;SZ[9];B[ee];W[ee])")  # occupied point: illegal
    garbage = folder / "garbage.sgf"
    garbage.write_text("this is not sgf")
    data = D.load_dataset([str(folder)], "basic", 9, tmp_path / "cache", 0.0)
    assert len(data.problems) == 2
    assert any("broken.sgf" in p for p in data.problems)
    assert any("garbage.sgf" in p for p in data.problems)
    assert len(data.train) == 90
    assert not any("broken" in str(g) for g in data.train.games)


def test_missing_input_is_reported(tmp_path):
    files, problems = D.find_sgf_files([str(tmp_path / "nothing-here")])
    assert not files and "nothing-here" in problems[0]


def test_globs_and_dirs(tmp_path):
    write_games(tmp_path / "a", 2)
    write_games(tmp_path / "b", 3)
    files, problems = D.find_sgf_files([str(tmp_path / "a"), str(tmp_path / "b" / "*.sgf"),
                                        str(tmp_path / "a" / "game-000.sgf")])
    assert len(files) == 5 and not problems


def test_shard_cache_is_reused_and_invalidated(tmp_path, monkeypatch):
    folder = tmp_path / "games"
    paths = write_games(folder, 4)
    cache = tmp_path / "cache"
    first = D.load_dataset([str(folder)], "history", 9, cache, 0.25)
    assert first.shards_built == 1
    shards = list((cache / "shards").glob("*.npz"))
    assert len(shards) == 1

    calls = []
    monkeypatch.setattr(D, "load_games", lambda p: calls.append(p) or load_games(p))
    second = D.load_dataset([str(folder)], "history", 9, cache, 0.25)
    assert second.shards_built == 0 and not calls
    assert np.array_equal(first.train.planes, second.train.planes)
    assert np.array_equal(first.validation.moves, second.validation.moves)
    # another plane set is another shard
    third = D.load_dataset([str(folder)], "basic", 9, cache, 0.25)
    assert third.shards_built == 1 and third.train.planes.shape[-1] == 2
    # a changed file rebuilds
    paths[0].write_text(game_sgf(99, moves=30, result="B+2.5"))
    fourth = D.load_dataset([str(folder)], "history", 9, cache, 0.25)
    assert fourth.shards_built == 1 and calls


def test_split_is_by_game(tmp_path):
    folder = tmp_path / "split"
    write_games(folder, 20)
    data = D.load_dataset([str(folder)], "basic", 9, tmp_path / "cache", 0.3)
    train_games = set(data.train.games.tolist())
    val_games = set(data.validation.games.tolist())
    assert val_games and train_games and not (train_games & val_games)
    assert len(data.train) + len(data.validation) == 20 * 30
    again = D.load_dataset([str(folder)], "basic", 9, tmp_path / "cache2", 0.3)
    assert set(again.validation.games.tolist()) == val_games


@pytest.mark.parametrize("name", ["katago9", "gnugo9"])
def test_real_records_give_samples(shared_data, name, tmp_path):
    folder = shared_data / name
    files = sorted(folder.glob("*.sgf"))[:3]
    shard, problems = D.build_shard(files, "history", 9)
    assert not problems and len(shard["moves"]) > 30
    skip = D.opening_moves_to_skip(files[0])
    state = load_games(files[0])[0]
    moves = [n for n in state.root.main_line() if n.is_move]
    assert (shard["game"] == 0).sum() == len(moves) - skip


def test_gnugo_dead_stones_are_cached(tmp_path, gnugo_path):
    # the dead white stone of the TB test, this time judged by GNU Go
    moves = "".join(f";B[e{chr(97 + r)}];W[f{chr(97 + r)}]" for r in range(9))
    p = tmp_path / "dead.sgf"
    p.write_text(f"(;SZ[9]KM[0.5]RE[B+10.5]{moves};B[];W[bh];B[];W[])")
    judge = D.GnuGoDead(tmp_path / "cache", gnugo_path)
    dead = judge(p, 9)
    assert dead == [GameState(9).point(1, 7)]
    assert len(list((tmp_path / "cache" / "gnugo-dead").glob("*.json"))) == 1
    own, how = D.final_ownership(load_games(p)[0], p, judge)
    assert how == "gnugo" and own.reshape(9, 9)[7, 1] == 1
    judge.binary = "/nonexistent"  # cached: GNU Go is not asked again
    assert judge(p, 9) == dead


def test_gnu_go_is_asked_only_about_counted_games(tmp_path):
    """A resigned game's last position is unfinished: no final ownership
    to learn from it, and GNU Go can spend minutes on one (most ai19
    records), so it is not asked; a counted one is."""
    asked = []

    def judge(path, size):
        asked.append(path.name)
        return []
    moves = ";B[ee];W[ff];B[dd];W[gg]"
    for name, result in (("resigned", "W+R"), ("time", "B+T"), ("counted", "W+3.5"),
                         ("draw", "0")):
        p = tmp_path / f"{name}.sgf"
        p.write_text(f"(;SZ[9]KM[7.5]RE[{result}]{moves})")
        state = load_games(p)[0]
        own, how = D.final_ownership(state, p, judge)
        assert how == ("gnugo" if name in ("counted", "draw") else "none"), name
        assert D.counted(state) == (how == "gnugo")
    assert asked == ["counted.sgf", "draw.sgf"]


def test_a_record_gnu_go_cannot_judge_in_time_is_remembered(tmp_path):
    """A GNU Go that spends its CPU time without an answer (some 19x19
    endings take it minutes): the record is named and skipped, and the
    next import skips it at once instead of waiting again. One that only
    waits (a machine too busy to run it) is not remembered."""
    import time

    busy = tmp_path / "busy-gnugo"
    busy.write_text("#!/bin/sh\nwhile :; do :; done\n")
    busy.chmod(0o755)
    p = tmp_path / "game.sgf"
    p.write_text("(;SZ[9]KM[0.5]RE[B+10.5];B[ee];W[ff];B[];W[])")
    judge = D.GnuGoDead(tmp_path / "cache", str(busy), timeout=1)
    with pytest.raises(ValueError, match=r"game.sgf: GNU Go found no dead stones within 1 s of"):
        judge(p, 9)
    started = time.monotonic()
    with pytest.raises(ValueError, match="within 1 s of its time .remembered in"):
        judge(p, 9)
    assert time.monotonic() - started < 0.5

    waiting = tmp_path / "waiting-gnugo"
    waiting.write_text("#!/bin/sh\nsleep 30\n")
    waiting.chmod(0o755)
    judge = D.GnuGoDead(tmp_path / "other", str(waiting), timeout=0.1)
    for _ in range(2):  # asked again: nothing was remembered
        with pytest.raises(ValueError, match="within 1 s on a busy machine"):
            judge(p, 9)
    assert not list((tmp_path / "other" / "gnugo-dead").glob("*.json"))
