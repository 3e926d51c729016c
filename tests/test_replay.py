"""The self-play replay buffer: shards round-trip, targets from the mover's
view, symmetries applied consistently, the window, atomic writes, bad shards
skipped by name, shared folders and mixed board sizes."""

from __future__ import annotations

import logging
import os
import threading
import time

import numpy as np
import pytest

from imago import fileio
from imago.nn.features import PLANE_SETS, apply_symmetry, symmetry_tables
from imago.training import replay
from imago.training.replay import GameRecord, ReplayBuffer


def make_record(size: int = 5, n: int = 6, winner: int = 1, seed: int = 0,
                plane_set: str = "extended", name: str = "g", mark: float = 0.0) -> GameRecord:
    """A random but valid record; ``searched`` of position i is ``mark/10 +
    i/1000`` so a sampled position can be traced back to its shard and row."""
    rng = np.random.default_rng(seed)
    area = size * size
    planes = rng.integers(0, 2, (n, size, size, PLANE_SETS[plane_set]), dtype=np.uint8)
    moves = rng.integers(0, area + 1, n).astype(np.int16)
    full = np.ones(n, bool)
    full[-1] = False
    policy = rng.random((n, area + 1)).astype(np.float32)
    policy /= policy.sum(axis=1, keepdims=True)
    policy[~full] = 0.0
    score = {1: 4.5, 2: -4.5, 0: 0.0}[winner]
    return GameRecord(size=size, komi=7.5, planes=planes,
                      to_move=np.array([1 + i % 2 for i in range(n)], np.int8),
                      moves=moves, policy=policy, full=full,
                      searched=(mark / 10 + np.arange(n) / 1000).astype(np.float32),
                      winner=winner, score=score,
                      ownership=rng.integers(-1, 2, area).astype(np.int8),
                      plane_set=plane_set, name=name)


def read(path) -> dict:
    with np.load(path, allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def row_of(searched: np.ndarray) -> np.ndarray:
    return np.rint(searched * 1000).astype(int) % 100


def marks(searched: np.ndarray) -> set[int]:
    return set((np.rint(searched * 1000).astype(int) // 100).tolist())


def test_round_trip_keeps_planes_and_targets(tmp_path):
    rec = make_record()
    buf = ReplayBuffer(tmp_path)
    path = buf.add([rec], generation=3, worker="w01")
    assert buf.shards() == [path] and path.name.startswith("shard-0003-")
    assert not list(tmp_path.glob("*.tmp.npz"))
    z = read(path)
    area, count = 25, PLANE_SETS["extended"]
    assert z["planes"].shape == (len(rec), (area * count + 7) // 8)
    unpacked = np.unpackbits(z["planes"], axis=1, count=area * count)
    assert np.array_equal(unpacked.reshape(rec.planes.shape), rec.planes)
    assert z["policy"].dtype == np.float16
    assert int(z["size"]) == 5 and str(z["plane_set"]) == "extended"
    assert int(z["plane_count"]) == count and z["komi"].tolist() == [7.5]
    assert np.array_equal(z["moves"], rec.moves) and np.array_equal(z["full"], rec.full)
    assert (buf.positions(), buf.games(), buf.generations()) == (len(rec), 1, [3])

    batch = buf.sample(200, np.random.default_rng(1), size=5, symmetries=False)
    assert batch["planes"].shape == (200, 5, 5, count) and batch["planes"].dtype == np.float32
    rows = row_of(batch["searched"])
    assert np.array_equal(batch["planes"], rec.planes[rows].astype(np.float32))
    assert np.allclose(batch["policy"], rec.policy[rows], atol=2e-3)
    assert np.array_equal(batch["policy_weight"], rec.full[rows].astype(np.float32))
    assert np.array_equal(batch["moves"], rec.moves[rows])
    assert set(rows) == set(range(len(rec)))


def test_targets_are_from_the_movers_view(tmp_path):
    rec = make_record(winner=1)
    buf = ReplayBuffer(tmp_path)
    z = read(buf.add([rec], generation=0))
    black, white = rec.to_move == 1, rec.to_move == 2
    assert (z["value"][black] == 1).all() and (z["value"][white] == -1).all()
    assert (z["score"][black] == 4.5).all() and (z["score"][white] == -4.5).all()
    assert (z["ownership"][black] == rec.ownership).all()
    assert (z["ownership"][white] == -rec.ownership).all()
    batch = buf.sample(100, np.random.default_rng(0), size=5, symmetries=False)
    white_rows = rec.to_move[row_of(batch["searched"])] == 2
    assert white_rows.any()
    assert (batch["value"][white_rows] == -1).all() and (batch["score"][white_rows] == -4.5).all()
    assert np.array_equal(batch["ownership"][white_rows],
                          np.broadcast_to(-rec.ownership, (white_rows.sum(), 25)))

    draw = ReplayBuffer(tmp_path / "draw")
    assert (read(draw.add([make_record(winner=0)], generation=0))["value"] == 0).all()


def test_symmetries_move_planes_policy_and_ownership_together(tmp_path):
    size, area = 7, 49
    rng = np.random.default_rng(3)
    records = []
    for i, move in enumerate([*rng.choice(area, 11, replace=False), area]):
        planes = np.zeros((1, size, size, 2), np.uint8)
        own = np.full(area, -1, np.int8)
        if move < area:
            planes[0, move // size, move % size, 0] = 1
            own[move] = 1
        planes[0, 0, 1, 1] = 1
        policy = np.zeros((1, area + 1), np.float32)
        policy[0, move] = 1.0
        records.append(GameRecord(
            size=size, komi=7.5, planes=planes, to_move=np.array([1], np.int8),
            moves=np.array([move], np.int16), policy=policy, full=np.array([True]),
            searched=np.array([i / 1000], np.float32), winner=1, score=1.5,
            ownership=own, plane_set="basic", name=f"g{i}"))
    buf = ReplayBuffer(tmp_path)
    buf.add(records, generation=1)
    batch = buf.sample(400, np.random.default_rng(4), size=size)
    _, move_map = symmetry_tables(size)
    turned = 0
    for planes, policy, own, played, row in zip(batch["planes"], batch["policy"],
                                                 batch["ownership"], batch["moves"],
                                                 row_of(batch["searched"])):
        original = records[row]
        target = int(policy.argmax())
        assert policy[target] == 1.0 and target == played
        if target == area:
            assert original.moves[0] == area and planes[..., 0].sum() == 0
            assert (own == -1).all()
            continue
        assert np.flatnonzero(planes[..., 0].reshape(-1)).tolist() == [target]
        assert np.flatnonzero(own == 1).tolist() == [target]
        ks = [k for k in range(8) if move_map[k, original.moves[0]] == target]
        assert any(np.array_equal(apply_symmetry(original.planes[0], k), planes) for k in ks)
        turned += target != original.moves[0]
    assert turned > 100


def test_window_and_prune(tmp_path, caplog):
    buf = ReplayBuffer(tmp_path, window=10)
    paths = [buf.add([make_record(n=4, seed=i, name=f"g{i}", mark=i)], generation=i)
             for i in range(6)]
    assert buf.shards() == paths == sorted(paths)
    assert buf.window_shards() == paths[3:] and buf.window_shards(size=5) == paths[3:]
    assert buf.window_shards(size=9) == []
    batch = buf.sample(300, np.random.default_rng(0), size=5)
    assert marks(batch["searched"]) == {3, 4, 5}

    paths[0].write_bytes(b"garbage outside the window")
    with caplog.at_level(logging.WARNING, logger="imago.training"):
        buf.sample(50, np.random.default_rng(1), size=5)
    assert not caplog.records, "a shard outside the window was read"

    assert buf.prune(keep_factor=0.5) == paths[:3]
    assert buf.shards() == paths[3:] and buf.window_shards() == paths[3:]
    assert buf.prune() == []

    newer = buf.add([make_record(n=4, seed=9, mark=6)], generation=6)
    assert buf.window_shards() == [paths[4], paths[5], newer]
    assert marks(buf.sample(300, np.random.default_rng(2), size=5)["searched"]) == {4, 5, 6}
    assert buf.prune(keep_factor=1.2) == [paths[3]]


def test_partial_and_corrupt_shards_are_skipped_by_name(tmp_path, caplog, monkeypatch):
    good = ReplayBuffer(tmp_path).add([make_record(mark=1)], generation=0)
    fresh = tmp_path / ".shard-0001-00000000000000000001-w-1.npz.a1b2c3.tmp"
    stale = tmp_path / ".shard-0001-00000000000000000002-w-2.npz.d4e5f6.tmp"
    stale_old_style = tmp_path / "shard-0001-00000000000000000005-w-5.tmp.npz"
    for tmp in (fresh, stale, stale_old_style):
        tmp.write_bytes(good.read_bytes()[:100])
    old = time.time() - 2 * replay.STALE_TMP_SECONDS
    os.utime(stale, (old, old))
    os.utime(stale_old_style, (old, old))
    truncated = tmp_path / "shard-0000-00000000000000000003-bad-3.npz"
    truncated.write_bytes(good.read_bytes()[:-200])
    missing = tmp_path / "shard-0000-00000000000000000004-bad-4.npz"
    np.savez_compressed(missing, size=np.int32(5))
    with caplog.at_level(logging.WARNING, logger="imago.training"):
        buf = ReplayBuffer(tmp_path)
        assert buf.shards() == [good] and buf.positions() == 6
        batch = buf.sample(20, np.random.default_rng(0), size=5)
    assert marks(batch["searched"]) == {1}
    text = caplog.text
    assert truncated.name in text and missing.name in text and stale.name in text
    assert stale_old_style.name in text
    assert fresh.exists() and not stale.exists() and not stale_old_style.exists()
    caplog.clear()
    buf.shards()
    assert not caplog.records, "a bad shard is named once, not on every call"

    def killed(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(fileio.os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        buf.add([make_record()], generation=2)
    assert buf.shards() == [good] and sorted(tmp_path.glob(".*.tmp")) == [fresh]


def test_buffers_sharing_a_folder_see_each_others_shards(tmp_path):
    a, b = ReplayBuffer(tmp_path, window=100), ReplayBuffer(tmp_path, window=100)
    first = a.add([make_record(mark=1)], generation=0, worker="a")
    assert b.shards() == [first]
    assert marks(b.sample(10, np.random.default_rng(0), size=5)["searched"]) == {1}
    second = b.add([make_record(mark=2)], generation=0, worker="b")
    assert a.shards() == [first, second]
    assert marks(b.sample(200, np.random.default_rng(1), size=5)["searched"]) == {1, 2}
    b.prune(keep_factor=1)
    a.window = 6
    a.prune(keep_factor=1)
    assert a.shards() == b.shards() == [second]
    assert marks(b.sample(10, np.random.default_rng(2), size=5)["searched"]) == {2}


def test_concurrent_adds_get_distinct_valid_names(tmp_path):
    buf = ReplayBuffer(tmp_path)
    paths = []
    threads = [threading.Thread(target=lambda i=i: paths.append(
        buf.add([make_record(n=2, seed=i)], generation=7, worker="host/w 01:x")))
        for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(paths)) == 8 and sorted(paths) == buf.shards()
    assert all(p.parent == tmp_path and "/" not in p.name and ":" not in p.name for p in paths)


def test_mixed_board_sizes_sample_one_size(tmp_path):
    buf = ReplayBuffer(tmp_path, window=5)
    buf.add([make_record(size=5, n=4, mark=1)], generation=0)
    buf.add([make_record(size=7, n=3, mark=2), make_record(size=7, n=4, mark=3)], generation=0)
    buf.add([make_record(size=5, n=4, mark=4)], generation=1)
    assert (buf.positions(), buf.positions(5), buf.positions(7)) == (15, 8, 7)
    assert (buf.games(), buf.games(7)) == (4, 2)
    five = buf.sample(50, np.random.default_rng(0), size=5)
    seven = buf.sample(50, np.random.default_rng(0), size=7)
    assert five["planes"].shape[1:3] == (5, 5) and five["policy"].shape == (50, 26)
    assert seven["planes"].shape[1:3] == (7, 7) and seven["ownership"].shape == (50, 49)
    assert marks(five["searched"]) == {1, 4}
    assert marks(seven["searched"]) == {2, 3}
    assert buf.prune(keep_factor=1) == []
    with pytest.raises(ValueError, match="9x9"):
        buf.sample(4, np.random.default_rng(0), size=9)
    with pytest.raises(ValueError, match="different board sizes"):
        buf.add([make_record(size=5), make_record(size=7)], generation=2)


def test_problems_name_what_is_wrong(tmp_path):
    rec = make_record(name="gen0001-w01-000003")
    assert rec.problems() == [] and len(rec) == 6
    rec.policy = rec.policy[:, :-1]
    assert any("policy" in p and "shape" in p for p in rec.problems())
    buf = ReplayBuffer(tmp_path)
    with pytest.raises(ValueError, match="gen0001-w01-000003: policy"):
        buf.add([make_record(), rec], generation=1)
    assert buf.shards() == []
    other = make_record()
    other.to_move = other.to_move.astype(np.int8) * 3
    other.winner, other.planes = 5, other.planes * 2
    found = " | ".join(other.problems())
    assert "to_move" in found and "winner" in found and "planes" in found
    assert make_record(size=1).problems()[0].startswith("size")
