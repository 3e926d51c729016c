"""``train.py recount``: a self-play folder's outcome labels made again by
today's count, on a folder made here: a game that ended in a seki,
labelled as the count before 2026-11-29 had it (White's seki stones dead)."""

from __future__ import annotations

import numpy as np

from imago.game import BLACK, WHITE
from imago.training.recount import recount_folder, recount_main
from imago.training.replay import GameRecord, ReplayBuffer
from test_bench_count import sgf_of
from test_seki_pass import seki_rows

POSITIONS = 3


def record(name: str, winner: int, score: float, owner: int, resigned: bool = False
           ) -> GameRecord:
    """A 9x9 record of three positions (Black, White, Black to move) whose
    final labels are ``winner``, ``score`` and every point ``owner``'s."""
    return GameRecord(
        size=9, komi=7.5, planes=np.zeros((POSITIONS, 9, 9, 18), np.uint8),
        to_move=np.array([BLACK, WHITE, BLACK], np.int8), moves=np.zeros(POSITIONS, np.int16),
        policy=np.full((POSITIONS, 82), 1 / 82, np.float32), full=np.ones(POSITIONS, bool),
        searched=np.zeros(POSITIONS, np.float32), winner=winner, score=score,
        ownership=np.full(81, 1 if owner == BLACK else -1, np.int8), resigned=resigned,
        plane_set="history", name=name)


def run_folder(tmp_path, records: list[GameRecord], sgf_names: list[str]):
    folder = tmp_path / "run"
    ReplayBuffer(folder / "replay").add(records, generation=0, worker="test")
    games = folder / "sgf" / "gen-0000"
    games.mkdir(parents=True)
    for name in sgf_names:
        (games / f"{name}.sgf").write_text(sgf_of(seki_rows(9), "W+13.5"))
    return folder


def shard_of(folder):
    (path,) = (folder / "replay").glob("shard-*.npz")
    with np.load(path) as z:
        return {k: z[k] for k in z.files}


def test_a_seki_game_gets_the_winner_and_targets_of_todays_count(tmp_path):
    folder = run_folder(tmp_path, [record("seki", WHITE, -13.5, WHITE),
                                   record("resigned", BLACK, 0.0, BLACK, resigned=True),
                                   record("lost", WHITE, -1.5, WHITE)],
                        ["seki", "resigned"])
    before = shard_of(folder)
    dry = recount_folder(folder, write=False)
    assert (dry.games, dry.changed, dry.flipped, dry.missing, dry.records) == (3, 2, 1, 1, 1)
    assert all(np.array_equal(before[k], v) for k, v in shard_of(folder).items())

    records = folder / "sgf" / "gen-0000"
    assert "RE[W+13.5]" in (records / "seki.sgf").read_text()     # the dry run wrote nothing
    tally = recount_folder(folder)
    assert (tally.changed, tally.flipped, tally.rewritten, tally.records) == (2, 1, 1, 1)
    assert "RE[B+3.5]" in (records / "seki.sgf").read_text()
    assert "RE[W+13.5]" in (records / "resigned.sgf").read_text()  # a resignation stands
    after = shard_of(folder)
    assert after["winner"].tolist() == [BLACK, BLACK, WHITE]   # the resigned game keeps its winner
    assert after["final_score"].tolist() == [3.5, 3.5, -1.5]
    seki = after["game"] == 0
    assert after["value"][seki].tolist() == [1.0, -1.0, 1.0]   # from each mover's side
    assert after["score"][seki].tolist() == [3.5, -3.5, 3.5]
    b9, a9 = 1, 0                                              # row-major from the top-left
    assert after["ownership"][seki][:, b9].tolist() == [-1, 1, -1]   # White's seki stone lives
    assert after["ownership"][seki][:, a9].tolist() == [0, 0, 0]     # a shared liberty
    resigned = after["game"] == 1
    assert after["value"][resigned].tolist() == before["value"][resigned].tolist()
    lost = after["game"] == 2                                  # no record: as it was
    assert after["value"][lost].tolist() == before["value"][lost].tolist()
    assert recount_folder(folder).changed == 0                 # a second recount changes nothing


def test_the_command_says_what_changed_and_refuses_a_folder_without_games(tmp_path, capsys):
    folder = run_folder(tmp_path, [record("seki", WHITE, -13.5, WHITE)], ["seki"])
    (folder / "replay" / "shard-0000-broken.npz").write_bytes(b"not a shard")
    assert recount_main([str(folder), "--dry-run", "--no-progress"]) == 1
    captured = capsys.readouterr()
    assert "1 relabelled (1 with the other winner)" in captured.out
    assert "1 shards and 1 records' results would be rewritten, 1 left unreadable" \
        in captured.out
    assert "shard-0000-broken.npz: left as it is" in captured.err
    (folder / "sgf" / "gen-0000" / "seki.sgf").write_text("(;SZ[9]AB[zz")
    assert recount_main([str(folder), "--dry-run", "--no-progress"]) == 1
    captured = capsys.readouterr()
    assert "seki.sgf: its game left as it is" in captured.err
    assert "0 relabelled" in captured.out and "1 without a readable record" in captured.out
    assert recount_main([str(tmp_path / "nothing")]) == 1
    assert "no folder" in capsys.readouterr().err
