"""The network, search and architecture benchmarks measure 13x13 and 19x19
beside 9x9. Quick mode with a tiny network: the figures are printed, never
checked; these tests check that every size is measured and reported."""

from __future__ import annotations

import pytest

pytest.importorskip("tensorflow")

from imago.bench import arch, mcts, nn  # noqa: E402
from imago.nn.evaluator import NetworkEvaluator  # noqa: E402


def test_feature_encoding_is_measured_on_every_size(capsys):
    nn.bench_features(quick=True)
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split() == ["plane", "set", "9x9", "13x13", "19x19"]
    assert len(lines) > 2
    for line in lines[2:]:
        assert all(float(figure) > 0 for figure in line.split()[1:4])


def test_a_model_that_plays_any_size_is_measured_on_every_size(capsys, monkeypatch,
                                                                 tiny_model):
    monkeypatch.setattr(nn, "MODELS", tiny_model.parent)
    nn.bench_models(quick=True)
    lines = capsys.readouterr().out.splitlines()[1:]
    sizes = [line.split()[1] for line in lines]
    assert sizes == ["9x9", "13x13", "19x19", "13x13", "19x19", "9x9", "19x19"]
    assert all(line.count("batch") == 4 for line in lines[:3])
    assert all("the 9x9 rate" in line for line in lines[3:5])
    for line in lines[5:]:  # the model as trained against its inference copy
        assert "as trained" in line and "folded float32" in line and "folded bfloat16" in line


@pytest.mark.parametrize("size", mcts.SIZES[1:])
def test_search_speed_on_larger_boards(capsys, tiny_model, size):
    assert mcts.SIZES == (9, 13, 19)
    evaluator = NetworkEvaluator(str(tiny_model), batch_size=4)
    rate = mcts.speed(evaluator, size, 4, quick=True)
    out = capsys.readouterr().out
    assert rate > 0
    assert [line.split()[0] for line in out.splitlines()] == [f"{size}x{size}"] * 3


def test_arch_searches_19x19_and_measures_each_candidate(capsys, monkeypatch, tiny_model):
    states = arch.positions()
    assert [s.size for s in states.values()] == [19, 19]
    assert [s.current.number for s in states.values()] == [0, arch.MIDGAME]
    monkeypatch.setattr(arch, "SHIPPED", tiny_model)
    monkeypatch.setattr(arch, "SECONDS", 0.3)
    monkeypatch.setattr(arch, "QUICK_CANDIDATES", ((1, 8), (2, 8)))
    assert arch.main(["--quick"]) == 0
    out = capsys.readouterr().out
    assert "(residual 1x8)" in out
    for size in arch.SIZES:
        assert all(f"{size}x{size} b{b}" in out for b in arch.BATCHES)
    rows = [line.split() for line in out.splitlines() if line.startswith(("  1 x 8", "  2 x 8"))]
    assert len(rows) == 2 and all(len(row) == 3 + 2 + 6 + 1 for row in rows)
