"""Streamed, size-mixed training data and runs (``train.py stream``): RE
leads, packed planes that unpack to the ``extended`` planes, lead and
ownership masks, sizes not asked and broken files named, a plan that is a
pure function of seed and step (no sample twice an epoch, validation games
kept out, one size a batch), the komi shift, and a tiny run that resumes
exactly after an interruption and refuses changed data options."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from imago.game import BLACK, WHITE
from imago.nn.features import DEFAULT_KOMI, KOMI_SCALE, encode, komi_plane_value
from imago.training import stream as S
from imago.training.data import is_validation_game
from imago.training.games import load_games

from sgf_fakes import COUNTED, game_sgf


ROOT = Path(__file__).resolve().parent.parent
RESULTS = [COUNTED, "W+R", COUNTED, "B+R", COUNTED, "0"]
"""Counted games (their result their count's), resigned ones, and a draw no
count of its position gives (no ownership to learn)."""


def write_records(folder: Path, count: int, size: int, moves: int = 24, first: int = 0) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(first, first + count):
        (folder / f"g{size}-{i:02d}.sgf").write_text(
            game_sgf(100 * size + i, size, moves, RESULTS[i % len(RESULTS)],
                     komi=(7.5, 6.5, 0.5)[i % 3]))


@pytest.fixture(scope="module")
def records(tmp_path_factory):
    """12 9x9 and 8 13x13 records in two folders, and the shards of both."""
    root = tmp_path_factory.mktemp("records")
    write_records(root / "nine", 12, 9)
    write_records(root / "thirteen", 8, 13)
    shards, problems, built = S.prepare_shards([str(root)], "komi", [9, 13], root / "cache")
    assert problems == [] and built == 2
    return root, shards


# ------------------------------------------------------------------ one game
@pytest.mark.parametrize("text, lead", [
    ("B+3.5", 3.5), ("W+12", -12.0), ("w+0.5", -0.5), ("0", 0.0), ("Draw", 0.0),
    ("Jigo", 0.0), ("B+R", None), ("W+T", None), ("B+Resign", None), ("W+F", None),
    (None, None), ("", None), ("B+", None), ("?", None), ("Void", None),
    ("B+0.0", None), ("W+0", None), ("W+nan", None), ("B+-3", None)])
def test_result_lead(text, lead):
    assert S.result_lead(text) == lead


def test_packed_planes_unpack_to_the_extended_planes(tmp_path):
    path = tmp_path / "g.sgf"
    path.write_text(game_sgf(3, 9, 20, "B+3.5", komi=6.5))
    state = load_games(path)[0]
    arrays = S.game_arrays(state, "komi")
    moves = [n for n in state.root.main_line() if n.is_move]
    assert arrays["planes"].dtype == np.uint8 and arrays["planes"].shape == (20, 81 * 26 // 8 + 1)
    x, y = S.make_batch(arrays, 9, "komi", ("policy", "value", "ownership", "score"), None)
    assert x.shape == (20, 9, 9, 27)
    for i in (0, 1, 7, 19):
        node = moves[i]
        want = encode(node.parent, "extended", node.color)
        assert np.array_equal(x[i, ..., :26], want), i
        assert np.allclose(x[i, ..., 26], komi_plane_value(6.5, node.color))
    assert [int(m) for m in y["policy"]] == [int(m) for m in arrays["moves"]]
    colors = [n.color for n in moves]
    assert arrays["color"].tolist() == colors and np.all(arrays["komi"] == 6.5)


def test_lead_and_ownership_masks_counted_resigned_and_marked(tmp_path):
    counted, resigned, marked = (tmp_path / f"{n}.sgf" for n in ("counted", "resigned", "marked"))
    counted.write_text(game_sgf(1, 9, 16, "B+3.5"))
    resigned.write_text(game_sgf(1, 9, 16, "W+R"))
    marked.write_text(game_sgf(1, 9, 16, "W+R", extra=""))
    marked.write_text(marked.read_text().replace("RE[W+R]", "RE[W+R]TW[aa]"))
    a = S.game_arrays(load_games(counted)[0], "komi")
    black = a["color"] == BLACK
    assert a["lead_mask"].all() and a["own_mask"].all() and a["value_mask"].all()
    assert np.all(a["lead"][black] == 3.5) and np.all(a["lead"][~black] == -3.5)
    assert np.all(a["values"][black] == 1) and np.all(a["values"][~black] == -1)
    r = S.game_arrays(load_games(resigned)[0], "komi")
    assert not r["lead_mask"].any() and not r["own_mask"].any()
    assert np.all(r["lead"] == 0) and r["value_mask"].all()
    m = S.game_arrays(load_games(marked)[0], "komi")
    assert not m["lead_mask"].any() and m["own_mask"].all()  # TB/TW: counted ownership


def test_a_record_of_unknown_komi_gives_no_value_or_lead_and_the_usual_komi(tmp_path):
    """``KM[0]`` in an even 19x19 game is a komi left unrecorded (see
    ``komi_unknown``): the moves are learnt, the winner and the lead are
    not, and the komi input is the usual one."""
    path = tmp_path / "km0.sgf"
    path.write_text(game_sgf(1, 19, 16, "B+3.5", komi=0))
    a = S.game_arrays(load_games(path)[0], "komi")
    assert len(a["moves"]) == 16
    assert not a["lead_mask"].any() and not a["value_mask"].any()
    assert np.all(a["lead"] == 0) and np.all(a["komi"] == DEFAULT_KOMI)
    path.write_text(game_sgf(1, 19, 16, "B+3.5", komi=6.5))
    a = S.game_arrays(load_games(path)[0], "komi")
    assert a["lead_mask"].all() and a["value_mask"].all() and np.all(a["komi"] == 6.5)


def test_other_sizes_and_broken_files_are_named(tmp_path):
    write_records(tmp_path / "in", 2, 9)
    write_records(tmp_path / "in", 1, 13)
    (tmp_path / "in" / "broken.sgf").write_text("(;SZ[9];B[ee];W[ee])")
    shards, problems, built = S.prepare_shards([str(tmp_path / "in")], "komi", [9],
                                               tmp_path / "cache")
    assert built == 1 and [s.size for s in shards] == [9]
    assert sum(c for _, c in shards[0].games) == 2 * 24
    assert any("broken.sgf" in p for p in problems)
    assert any("g13-00.sgf" in p and "13x13" in p for p in problems)
    assert not any("g9-" in p for p in problems)
    # the second time comes from the cache, with the same problems
    again, problems2, built2 = S.prepare_shards([str(tmp_path / "in")], "komi", [9],
                                                tmp_path / "cache")
    assert built2 == 0 and problems2 == problems and again == shards
    # the cache serves other sizes too
    both, problems3, _ = S.prepare_shards([str(tmp_path / "in")], "komi", [9, 13],
                                          tmp_path / "cache")
    assert sorted(s.size for s in both) == [9, 13] and not any("13x13" in p for p in problems3)


def test_chunks_built_in_several_processes_are_those_built_in_one(tmp_path):
    for number, size in enumerate((9, 9, 13)):
        write_records(tmp_path / "in" / f"folder{number}", 3, size, first=3 * number)
    (tmp_path / "in" / "folder0" / "broken.sgf").write_text("(;SZ[9];B[ee];W[ee])")
    said: list[str] = []
    one, problems1, built1 = S.prepare_shards([str(tmp_path / "in")], "komi", [9, 13],
                                              tmp_path / "one")
    many, problems3, built3 = S.prepare_shards([str(tmp_path / "in")], "komi", [9, 13],
                                               tmp_path / "many", progress=said.append,
                                               workers=3)
    assert built1 == built3 == 3 and problems3 == problems1
    assert any("broken.sgf" in p for p in problems3)
    assert [(s.path.name, s.size, s.games) for s in many] == \
        [(s.path.name, s.size, s.games) for s in one]
    for a, b in zip(one, many):
        with np.load(a.path) as x, np.load(b.path) as y:
            assert sorted(x.files) == sorted(y.files)
            assert all(np.array_equal(x[k], y[k]) for k in x.files)
    assert sorted(said) == [f"chunk {n}/3 of folder{n - 1}: built" for n in (1, 2, 3)]
    said.clear()
    again, _, built = S.prepare_shards([str(tmp_path / "in")], "komi", [9, 13],
                                       tmp_path / "many", progress=said.append, workers=3)
    assert built == 0 and again == many
    assert said == [f"3 of 3 chunks found in {tmp_path / 'many' / 'stream'}"]


# ------------------------------------------------------------------ the plan
HEADS = ("policy", "value", "ownership", "score")


def test_plan_is_a_pure_function_of_seed_and_step(records):
    _, shards = records
    one, two = S.Plan(shards, 16, 0.25, seed=5), S.Plan(shards, 16, 0.25, seed=5)
    steps = list(range(0, 3 * one.epoch_steps(0), 5))
    first = {s: one.batch(s, "komi", HEADS) for s in steps}
    for s in reversed(steps):  # another order, another object: the same batches
        x, y = two.batch(s, "komi", HEADS)
        assert np.array_equal(x, first[s][0])
        assert all(np.array_equal(y[k], first[s][1][k]) for k in HEADS)
    other = S.Plan(shards, 16, 0.25, seed=6).batch(steps[1], "komi", HEADS)[0]
    assert other.shape != first[steps[1]][0].shape or not np.array_equal(other,
                                                                         first[steps[1]][0])


def record_batches(monkeypatch) -> tuple[list[tuple[int, list[str]]], dict[str, list[str]]]:
    """Every batch the plan makes from now on, as ``(size, sample ids)``
    (``shard:row``), and each loaded shard's game name per row."""
    names: dict[str, list[str]] = {}
    load = S.load_shard

    def tagged(path):
        arrays = load(path)
        rows = np.arange(len(arrays["moves"]))
        arrays["uid"] = np.array([f"{path.name}:{r}" for r in rows])
        names[path.name] = [str(arrays["names"][g]) for g in arrays["game"]]
        return arrays

    seen: list[tuple[int, list[str]]] = []
    make = S.make_batch

    def recording(rows, size, plane_set, heads, rng):
        seen.append((size, rows["uid"].tolist()))
        return make(rows, size, plane_set, heads, rng)

    monkeypatch.setattr(S, "load_shard", tagged)
    monkeypatch.setattr(S, "make_batch", recording)
    return seen, names


def test_an_epoch_uses_each_training_sample_once_and_no_validation_game(records, monkeypatch):
    _, shards = records
    seen, names = record_batches(monkeypatch)
    plan = S.Plan(shards, 16, 0.25, seed=2)
    steps = plan.epoch_steps(0)
    sizes = set()
    for step in range(steps):
        x, y = plan.batch(step, "komi", HEADS)
        size = x.shape[1]
        sizes.add(size)
        assert x.shape == (16, size, size, 27) and y["policy"].shape == (16,)
        assert y["ownership"].shape == (16, size * size + 1)
        assert seen[-1][0] == size
    assert sizes == {9, 13}
    uids = [u for _, batch in seen for u in batch]
    assert len(uids) == len(set(uids)) == 16 * steps
    for uid in uids:
        shard, row = uid.split(":")
        assert not is_validation_game(names[shard][int(row)], 0.25)
    held = [n for s in shards for n, _ in s.games if is_validation_game(n, 0.25)]
    assert held, "the split should hold some games out"
    # at most a batch short of each size is dropped (one group: every shard)
    train = sum(plan.counts)
    assert train - 2 * 15 <= len(uids) <= train
    # validation samples are the held-out games' only
    val = S.validation_samples(shards, 0.25, 10_000)
    assert set(val) <= {9, 13}
    assert sum(len(v["moves"]) for v in val.values()) == sum(
        c for s in shards for n, c in s.games if is_validation_game(n, 0.25))


@pytest.mark.parametrize("text, shares", [
    ("9:1,19:1", {9: 1.0, 19: 1.0}), (" 19:3 , 9:0.5", {19: 3.0, 9: 0.5}), ("13:2", {13: 2.0})])
def test_size_shares_are_read(text, shares):
    assert S.parse_size_shares(text) == shares
    assert S.parse_size_shares(S.format_size_shares(shares)) == shares


@pytest.mark.parametrize("text, message", [
    ("9", "SIZE:WEIGHT pairs"), ("9:1,nine:1", "SIZE:WEIGHT pairs"), ("9:x", "SIZE:WEIGHT"),
    ("9:0", "9x9 must be a positive number"), ("9:-1", "positive"), ("9:nan", "positive"),
    ("9:1,9:2", "9x9 is given two shares"), ("", "SIZE:WEIGHT pairs")])
def test_bad_size_shares_are_named(text, message):
    with pytest.raises(ValueError, match=message):
        S.parse_size_shares(text)


def test_size_multipliers_use_all_of_the_scarcest_size():
    assert S.size_multipliers({9: 100, 19: 300}, None) == {9: 1.0, 19: 1.0}
    assert S.size_multipliers({9: 100, 19: 300}, {9: 1, 19: 1}) == pytest.approx(
        {9: 1.0, 19: 1 / 3})
    assert S.size_multipliers({9: 100, 19: 300}, {9: 1, 19: 9}) == pytest.approx(
        {9: 1 / 3, 19: 1.0})
    # a size without training samples is left out of the sums
    assert S.size_multipliers({9: 100, 13: 0, 19: 300}, {9: 1, 13: 5, 19: 1}) == \
        pytest.approx({9: 1.0, 13: 1.0, 19: 1 / 3})


def test_size_shares_set_the_mix_of_an_epochs_batches(records, monkeypatch):
    """12 9x9 and 8 13x13 records: in proportion to positions, and then as
    many 13x13 batches as 9x9, every 13x13 sample used once an epoch, a
    part of the 9x9 ones (another part each epoch), the plan still a pure
    function of seed and step."""
    _, shards = records
    natural = S.Plan(shards, 8, 0.25, seed=2)
    assert natural.takes(0) == [natural.group_batches(g) for g in natural.groups(0)]
    even = S.Plan(shards, 8, 0.25, seed=2, shares={9: 1, 13: 1})
    assert even.multipliers[13] == 1.0 and 0 < even.multipliers[9] < 1
    seen, _ = record_batches(monkeypatch)
    by_epoch = []
    start = 0
    for epoch in range(2):
        steps = even.epoch_steps(epoch)
        del seen[:]
        for step in range(start, start + steps):
            even.batch(step, "komi", HEADS)
        start += steps
        sizes = [size for size, _ in seen]
        assert abs(sizes.count(9) - sizes.count(13)) <= 1, sizes
        uids = [u for _, batch in seen for u in batch]
        assert len(uids) == len(set(uids))
        by_epoch.append({u for size, batch in seen if size == 9 for u in batch})
        thirteen = sum(natural.group_batches(g).get(13, 0) for g in natural.groups(epoch))
        assert sizes.count(13) == thirteen
    assert by_epoch[0] != by_epoch[1]
    again = S.Plan(shards, 8, 0.25, seed=2, shares={9: 1, 13: 1})
    x, _ = again.batch(3, "komi", HEADS)
    assert np.array_equal(x, even.batch(3, "komi", HEADS)[0])


def test_too_few_samples_for_a_batch_is_refused(records):
    _, shards = records
    with pytest.raises(ValueError, match="too few training samples"):
        S.Plan(shards, 10_000, 0.25, seed=1).batch(0, "komi", HEADS)


def test_komi_shift_moves_lead_komi_plane_and_value_together(tmp_path):
    path = tmp_path / "g.sgf"
    path.write_text(game_sgf(9, 9, 40, "B+2.5"))
    counted = S.game_arrays(load_games(path)[0], "komi")
    plain_x, plain_y = S.make_batch(counted, 9, "komi", HEADS, None)
    shifted = 0
    for seed in range(4):
        x, y = S.make_batch(counted, 9, "komi", HEADS, np.random.default_rng(seed))
        # the komi plane is flat; its change is the mover's extra komi
        assert np.all(x[..., 26] == x[:, :1, :1, 26])
        extra = (x[:, 0, 0, 26] - plain_x[:, 0, 0, 26]) * KOMI_SCALE
        lead = y["score"][:, 0] * S.SCORE_SCALE
        plain_lead = plain_y["score"][:, 0] * S.SCORE_SCALE
        assert np.allclose(lead - plain_lead, extra, atol=1e-4)
        assert np.all(np.abs(np.round(extra)) <= S.KOMI_SHIFT)
        black = counted["color"] == BLACK
        # Black gives the komi: a bigger komi is a smaller Black lead
        komi_shift = np.where(black, -extra, extra)
        moved = np.abs(komi_shift) > 1e-4
        shifted += int(moved.sum())
        assert np.all(y["value"][moved, 0] == np.sign(lead[moved]))
        assert np.all(y["value"][~moved, 0] == plain_y["value"][~moved, 0])
        assert np.all(y["score"][:, 1] == 1)
    assert shifted > 10
    # a resigned game keeps its komi and value
    path.write_text(game_sgf(9, 9, 40, "W+R"))
    resigned = S.game_arrays(load_games(path)[0], "komi")
    plain_x, plain_y = S.make_batch(resigned, 9, "komi", HEADS, None)
    x, y = S.make_batch(resigned, 9, "komi", HEADS, np.random.default_rng(0))
    assert np.array_equal(x[:, 0, 0, 26], plain_x[:, 0, 0, 26])
    assert np.array_equal(y["value"], plain_y["value"]) and np.all(y["score"][:, 1] == 0)


def test_shift_can_change_the_winner():
    """A 1-point Black win shifted by more than a point flips to White."""
    rows = {"planes": np.zeros((64, 11), np.uint8), "moves": np.zeros(64, np.int16),
            "values": np.ones(64, np.float32), "value_mask": np.ones(64, np.uint8),
            "ownership": np.zeros((64, 9), np.int8), "komi": np.full(64, 7.5, np.float32),
            "color": np.full(64, BLACK, np.int8), "lead": np.full(64, 1.0, np.float32),
            "lead_mask": np.ones(64, np.uint8), "own_mask": np.ones(64, np.uint8)}
    x, y = S.make_batch(rows, 3, "komi", HEADS, np.random.default_rng(1))
    komi = -x[:, 0, 0, 26] * KOMI_SCALE  # Black to move: the plane is -komi
    lead = y["score"][:, 0] * S.SCORE_SCALE
    assert np.allclose(lead, 1.0 - (komi - 7.5), atol=1e-4)
    assert np.all(y["value"][:, 0] == np.where(komi == 7.5, 1.0, np.sign(lead)))
    assert (y["value"][:, 0] == -1).any()
    assert WHITE not in rows["color"]


# ------------------------------------------------------------------ runs
@pytest.fixture(scope="module")
def run_inputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("run")
    write_records(root / "nine", 6, 9, moves=30)
    write_records(root / "thirteen", 5, 13, moves=30)  # g13-04 is held out
    return root


def stream_args(root: Path, run: str, *extra: str) -> list[str]:
    return [str(root / "nine"), str(root / "thirteen"), "--dir", str(root / run),
            "--sizes", "9,13", "--blocks", "1", "--filters", "8", "--steps", "30",
            "--batch-size", "16", "--checkpoint-every", "10", "--report-every", "5",
            "--validation", "0.2", "--validation-positions", "32", "--cache",
            str(root / "cache"), "--no-progress", "--seed", "3", *extra]


@pytest.fixture(scope="module")
def straight_run(run_inputs):
    """Run A: 30 steps without a stop."""
    pytest.importorskip("tensorflow")
    from imago.training.stream_cli import stream_main

    assert stream_main(stream_args(run_inputs, "a", "--output",
                                   str(run_inputs / "out" / "a.keras"))) == 0
    return run_inputs / "a"


def weights(path: Path) -> list[np.ndarray]:
    from imago.nn.networks import NeuralNetwork

    return NeuralNetwork.load(path).model.get_weights()


def test_a_tiny_run_checkpoints_and_writes_its_model(straight_run, run_inputs):
    from imago.nn.networks import NeuralNetwork

    state = json.loads((straight_run / "state.json").read_text())
    assert state["step"] == 30 and state["checkpoint"] == "checkpoint-0000030.keras"
    assert [v["step"] for v in state["validation"]] == [10, 20, 30]
    assert set(state["validation"][-1]) == {"step", "9", "13"}
    assert state["validation"][-1]["13"]["positions"] == 30
    assert [entry["step"] for entry in state["losses"]] == list(range(5, 31, 5))
    assert all(np.isfinite(entry["loss"]) and "score_loss" in entry for entry in state["losses"])
    assert [p.name for p in straight_run.glob("checkpoint-*.keras")] == \
        ["checkpoint-0000030.keras"]
    run = json.loads((straight_run / "run.json").read_text())
    assert run["sizes"] == [9, 13] and run["batch_size"] == 16
    net = NeuralNetwork.load(run_inputs / "out" / "a.keras")
    assert net.plane_set == "komi" and "score" in net.heads and net.board_sizes == [9, 13]
    assert net.metadata["training"]["steps"] == 30
    for size in (9, 13):
        out = net.evaluate(np.zeros((1, size, size, 27), np.float32))
        assert out["policy"].shape == (1, size * size + 1) and out["score"].shape == (1,)
    # a finished run says so and does nothing more
    from imago.training.stream_cli import stream_main

    assert stream_main(stream_args(run_inputs, "a")) == 0


def test_keep_models_keeps_each_checkpoints_network(run_inputs):
    from imago.nn.networks import NeuralNetwork
    from imago.training.stream_cli import stream_main

    args = stream_args(run_inputs, "kept", "--keep-models")
    args[args.index("--steps") + 1] = "20"
    assert stream_main(args) == 0
    run = run_inputs / "kept"
    assert sorted(p.name for p in run.glob("model-*.keras")) == \
        ["model-0000010.keras", "model-0000020.keras"]
    state = json.loads((run / "state.json").read_text())
    for entry in state["validation"]:
        net = NeuralNetwork.load(run / f"model-{entry['step']:07d}.keras")
        assert net.metadata["training"]["steps"] == entry["step"]
        assert net.metadata["metrics"] == entry
    assert weights(run / "model-0000020.keras")[0].tolist() == \
        weights(run / "model.keras")[0].tolist()


def test_an_interrupted_run_resumes_exactly(straight_run, run_inputs, monkeypatch, capsys):
    from imago.training.stream_cli import stream_main

    original = S.Plan.batch
    stopped: list[int] = []
    asked: list[int] = []

    def batch(self, step, *args, **kwargs):
        asked.append(step)
        if step == 17 and not stopped:
            stopped.append(step)
            raise KeyboardInterrupt
        return original(self, step, *args, **kwargs)

    monkeypatch.setattr(S.Plan, "batch", batch)
    assert stream_main(stream_args(run_inputs, "b")) == 130
    assert "interrupted" in capsys.readouterr().err
    b = run_inputs / "b"
    state = json.loads((b / "state.json").read_text())
    assert stopped == [17] and state["step"] == 10
    assert state["checkpoint"] == "checkpoint-0000010.keras"
    asked.clear()
    assert stream_main(stream_args(run_inputs, "b")) == 0
    assert "resuming at step 10" in capsys.readouterr().out
    assert asked == list(range(10, 30))  # every later batch once, in order
    a_state = json.loads((straight_run / "state.json").read_text())
    b_state = json.loads((b / "state.json").read_text())
    assert b_state["step"] == 30 and [v["step"] for v in b_state["validation"]] == [10, 20, 30]
    final_a, final_b = weights(straight_run / "model.keras"), weights(b / "model.keras")
    assert len(final_a) == len(final_b) > 10
    for wa, wb in zip(final_a, final_b):
        assert np.allclose(wa, wb, rtol=1e-5, atol=1e-6)  # bit-equal here on CPU
    drop = ("samples_per_second",)
    assert [{k: v for k, v in e.items() if k not in drop} for e in a_state["losses"]] == \
        [{k: v for k, v in e.items() if k not in drop} for e in b_state["losses"]]


@pytest.mark.parametrize("option, value", [("--sizes", "9"), ("--batch-size", "8")])
def test_other_data_options_are_refused_on_resume(straight_run, run_inputs, capsys,
                                                  option, value):
    from imago.training.stream_cli import stream_main

    before = (straight_run / "state.json").read_text()
    args = stream_args(run_inputs, "a", "--steps", "40")
    args[args.index(option) + 1] = value
    assert stream_main(args) == 1
    err = capsys.readouterr().err
    assert option in err and "give the same ones to resume" in err
    assert (straight_run / "state.json").read_text() == before


def test_help_and_bad_values(tmp_path, capsys):
    from conftest import run_main

    import train as train_script

    status, out, _ = run_main(train_script.main, ["stream", "--help"], capsys)
    assert status == 0 and "--sizes" in out and "--checkpoint-every" in out
    base = [str(tmp_path), "--dir", str(tmp_path / "run")]
    for extra, message in ((["--steps", "0"], "--steps must be at least 1"),
                           (["--sizes", "1"], "--sizes must be board sizes"),
                           (["--sizes", "nine"], "sizes are numbers"),
                           (["--batch-size", "-4"], "--batch-size must be at least 1"),
                           (["--validation", "1.5"], "--validation must be"),
                           (["--sizes", "9,19", "--size-shares", "9:1"],
                            "--size-shares gives 19x19 (one of --sizes) no share"),
                           (["--sizes", "9", "--size-shares", "9:1,13:1"],
                            "--size-shares gives 13x13 a share, but --sizes leaves it out"),
                           (["--size-shares", "9:one"], "--size-shares: size shares are")):
        status, _, err = run_main(train_script.main, ["stream", *base, *extra], capsys)
        assert status == 2 and message in err, (extra, err)
    assert not (tmp_path / "run").exists()


def test_a_run_that_never_reached_a_checkpoint_takes_new_options(run_inputs, capsys):
    """Nothing was learnt before the first checkpoint: a run stopped before
    it (here: no records of the sizes asked) starts again with others."""
    from imago.training.stream_cli import stream_main
    from imago.training.stream_run import StreamConfig, settle_config

    args = stream_args(run_inputs, "c")
    args[args.index("--sizes") + 1] = "19"
    assert stream_main(args) == 1
    assert "no training data of the sizes 19" in capsys.readouterr().err
    run = run_inputs / "c"
    assert json.loads((run / "run.json").read_text())["sizes"] == [19]
    config = StreamConfig(inputs=[str(run_inputs / "nine")], run_dir=str(run), sizes=[9])
    assert settle_config(config, run) is config
    assert json.loads((run / "run.json").read_text())["sizes"] == [9]
    (run / "state.json").write_text(json.dumps({"step": 10, "checkpoint": "x.keras"}))
    with pytest.raises(ValueError, match="--sizes"):
        settle_config(StreamConfig(inputs=config.inputs, run_dir=str(run), sizes=[13]), run)


def test_heldout_measures_a_run_on_the_games_it_held_out(straight_run, run_inputs, capsys):
    from imago.training.heldout import heldout_main

    model = str(run_inputs / "out" / "a.keras")
    args = ["--model", model, str(run_inputs / "nine"), str(run_inputs / "thirteen"),
            "--validation", "0.2", "--positions", "32", "--cache", str(run_inputs / "cache")]
    assert heldout_main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in lines] == ["nine 9x9 a.keras", "thirteen 13x13 a.keras"]
    # the same positions as the run's own validation: the same figures
    last = json.loads((straight_run / "state.json").read_text())["validation"][-1]
    for line, size in zip(lines, ("9", "13")):
        figures = last[size]
        assert f"{figures['positions']} positions, top-1 {figures['top1']:.1%}" in line
        assert f"value {figures['value_mse']:.3f}" in line and "<20%" in line
        # how spread the policy is (a self-play run's policy narrowing shows here)
        entropy = float(line.split("policy entropy ")[1].split(" nats")[0])
        assert 0 < entropy <= np.log(int(size) ** 2 + 1)
    # averaged over the 8 symmetries, as the analysis reports ownership
    assert heldout_main(args + ["--symmetries"]) == 0
    turned = capsys.readouterr().out.splitlines()
    assert [line.split(":")[0] for line in turned] == ["nine 9x9 a.keras, 8 symmetries",
                                                       "thirteen 13x13 a.keras, 8 symmetries"]
    def positions(line):
        return line.split(": ")[1].split(",")[0]
    assert [positions(line) for line in turned] == [positions(line) for line in lines]
    with pytest.raises(SystemExit):
        heldout_main(["--model", str(run_inputs / "none.keras"), str(run_inputs / "nine")])
    assert "no model file" in capsys.readouterr().err


def test_heldout_says_when_a_folder_gives_nothing_to_measure(straight_run, run_inputs,
                                                             tmp_path, capsys):
    """A folder with no held-out game of a size the network plays is named,
    and a command that measured nothing at all fails; a game without a
    result or a counted end gives its figures as none, not as 0."""
    from imago.training.heldout import heldout_main

    model = str(run_inputs / "out" / "a.keras")
    (tmp_path / "empty").mkdir()
    args = ["--model", model, str(tmp_path / "empty"), str(tmp_path / "absent"),
            "--cache", str(tmp_path / "cache")]
    assert heldout_main(args) == 1
    out, err = capsys.readouterr()
    assert f"{tmp_path / 'absent'}: nothing measured (no held-out positions" in out
    assert f"{tmp_path / 'empty'}: nothing measured" in out
    assert "train.py heldout: nothing measured in " in err
    assert heldout_main(args[:2] + [str(tmp_path / "absent"), "--visits", "5"]) == 1
    assert f"{tmp_path / 'absent'}: nothing measured" in capsys.readouterr().out
    (tmp_path / "bare").mkdir()
    (tmp_path / "bare" / "g.sgf").write_text("(;GM[1]SZ[9];B[ee];W[cc])")
    assert heldout_main(["--model", model, str(tmp_path / "bare"), "--validation", "0.99",
                         "--cache", str(tmp_path / "cache")]) == 0
    line = capsys.readouterr().out.strip()
    assert "value none (no game with a result)" in line
    assert "ownership none (no counted game)" in line


def test_heldout_reads_a_new_folder_in_the_workers_it_is_given(straight_run, run_inputs,
                                                              tmp_path, capsys):
    from imago.training.heldout import heldout_main

    model = str(run_inputs / "out" / "a.keras")
    args = ["--model", model, str(run_inputs / "nine"), "--validation", "0.2",
            "--positions", "32"]
    assert heldout_main(args + ["--cache", str(run_inputs / "cache")]) == 0
    cached = capsys.readouterr().out
    assert heldout_main(args + ["--cache", str(tmp_path / "fresh"), "--workers", "1"]) == 0
    assert capsys.readouterr().out == cached  # read anew in one process: the same figures
    with pytest.raises(SystemExit):
        heldout_main(args + ["--workers", "0"])
    assert "--workers must be at least 1" in capsys.readouterr().err


def test_heldout_measures_ownership_after_a_search(straight_run, run_inputs, capsys):
    from imago.training.heldout import heldout_main

    model = str(run_inputs / "out" / "a.keras")
    args = ["--model", model, str(run_inputs / "nine"), "--validation", "0.2",
            "--visits", "12", "--positions", "5"]
    assert heldout_main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "nine 9x9 a.keras: ownership after 12 visits on 5 positions: network ")
    network, search = (float(part.split()[1].rstrip("%"))
                       for part in lines[0].split(": ")[2].split(", ")[:2])
    assert 0 < network <= 100 and 0 < search <= 100
    assert heldout_main(args[:-2]) == 0  # the positions default to 200 (fewer held out here)
    assert "ownership after 12 visits on" in capsys.readouterr().out
    policy_only = str(ROOT / "models" / "conv9.keras")
    assert heldout_main(["--model", policy_only] + args[2:]) == 1
    out, err = capsys.readouterr()
    assert out == "conv9.keras: no ownership head, nothing to measure\n"
    assert "train.py heldout: nothing measured in " in err
    with pytest.raises(SystemExit):
        heldout_main(args[:-4] + ["--visits", "0"])
    assert "--visits must be at least 1" in capsys.readouterr().err


def test_one_held_out_share_for_training_and_every_measurement():
    """The stream run holds out the games that ``train.py heldout`` and its
    search variant measure (the ownership bench: test_bench_ownership)."""
    import inspect

    from imago.training.data import HELDOUT_SHARE
    from imago.training.heldout import heldout_figures
    from imago.training.heldout_search import searched_ownership_figures
    from imago.training.stream_run import StreamConfig

    assert StreamConfig(inputs=[], run_dir="x").validation == HELDOUT_SHARE
    for function in (heldout_figures, searched_ownership_figures):
        assert inspect.signature(function).parameters["validation"].default == HELDOUT_SHARE


def test_a_run_keeps_its_size_shares(tmp_path):
    """Another mix of sizes is another plan: a resumed run refuses it; a run
    folder from before the option (no ``size_shares`` in run.json) resumes."""
    from imago.training.stream_run import StreamConfig, settle_config

    run = tmp_path / "run"
    run.mkdir()
    config = StreamConfig(inputs=["x"], run_dir=str(run), sizes=[9, 19], size_shares="9:1,19:1")
    assert config.problems() == [] and config.shares() == {9: 1.0, 19: 1.0}
    settle_config(config, run)
    (run / "state.json").write_text(json.dumps({"step": 10, "checkpoint": "x.keras"}))
    assert settle_config(config, run) is config
    with pytest.raises(ValueError, match="--size-shares"):
        settle_config(StreamConfig(inputs=["x"], run_dir=str(run), sizes=[9, 19],
                                   size_shares="9:1,19:2"), run)
    before = json.loads((run / "run.json").read_text())
    del before["size_shares"]
    (run / "run.json").write_text(json.dumps(before))
    plain = StreamConfig(inputs=["x"], run_dir=str(run), sizes=[9, 19])
    assert settle_config(plain, run) is plain
