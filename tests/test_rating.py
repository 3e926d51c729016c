"""The self-play loop's yardsticks: the gate's statistics, Elo ratings fitted
to match results, their log on disk, the Elo curve and TensorBoard scalars."""

from __future__ import annotations

import json
import logging
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from imago.training.rating import (ELO_PER_NAT, GateDecision, MatchResult, Rating, RatingLog,
                                   against, elo_history, elo_table, fit_elo, gate,
                                   wilson_interval)

from conftest import REPO

TRUE = {"gnugo-10": 0.0, "gen-0": -350.0, "gen-1": -120.0, "gen-2": 40.0, "gen-3": 230.0,
        "katago-gtp-1": 650.0}


def expected(p: float) -> float:
    return 1 / (1 + 10 ** (-p / 400))


def round_robin(true: dict[str, float], games: int, rng=None) -> list[MatchResult]:
    """Every pair's results under the Elo model: expected counts, or drawn
    at random with ``rng``."""
    names = list(true)
    out = []
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            p = expected(true[a] - true[b])
            wins = rng.binomial(games, p) if rng is not None else games * p
            out.append(MatchResult(a, b, wins, games - wins))
    return out


# ------------------------------------------------------------------ gating
def test_wilson_interval_known_values():
    assert wilson_interval(55, 100) == pytest.approx((0.4524, 0.6439), abs=5e-4)
    assert wilson_interval(0, 10) == pytest.approx((0.0, 0.2775), abs=5e-4)
    assert wilson_interval(10, 10) == pytest.approx((0.7225, 1.0), abs=5e-4)
    assert wilson_interval(220, 400) == pytest.approx((0.5011, 0.5980), abs=5e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    # a wider z, a wider interval; draws as half wins
    low, high = wilson_interval(55, 100, z=2.576)
    assert low < 0.4524 and high > 0.6439
    assert wilson_interval(5.5, 10)[0] < 0.55 < wilson_interval(5.5, 10)[1]
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_gate_promotes_at_the_threshold_with_draws_as_half_wins():
    passed = gate(220, 180, 0)
    assert isinstance(passed, GateDecision)
    assert passed.promoted and passed.games == 400 and passed.score == pytest.approx(0.55)
    assert passed.threshold == 0.55
    assert passed.interval == pytest.approx(wilson_interval(220, 400))
    assert not gate(219, 181, 0).promoted
    drawn = gate(50, 40, 20)  # 60 points of 110
    assert drawn.score == pytest.approx(60 / 110) and not drawn.promoted
    assert gate(50, 40, 20, threshold=0.5).promoted
    assert gate(0, 0, 10, threshold=0.5).promoted
    empty = gate(0, 0, 0)
    assert not empty.promoted and empty.interval == (0.0, 1.0)
    assert "promoted" in str(passed) and "55.0%" in str(passed)
    assert str(gate(1, 3, 0)).startswith("rejected")
    with pytest.raises(ValueError):
        gate(-1, 3, 0)
    with pytest.raises(ValueError):
        gate(1, 3, 0, threshold=1.5)


# --------------------------------------------------------------------- Elo
def test_fit_elo_recovers_known_ratings_with_one_anchor():
    ratings = fit_elo(round_robin(TRUE, 2000), {"gnugo-10": 0.0})
    assert set(ratings) == set(TRUE)
    assert ratings["gnugo-10"] == Rating(0.0, 0.0, 10000.0, anchor=True)
    for name, elo in TRUE.items():
        assert ratings[name].elo == pytest.approx(elo, abs=8), name
        assert ratings[name].games == 5 * 2000
    # random results: every rating within three standard errors of the truth
    ratings = fit_elo(round_robin(TRUE, 300, np.random.default_rng(7)), {"gnugo-10": 0.0})
    for name, elo in TRUE.items():
        if name != "gnugo-10":
            assert 5 < ratings[name].stderr < 60
            assert abs(ratings[name].elo - elo) < 3 * ratings[name].stderr, name


def test_fit_elo_holds_two_anchors_fixed():
    anchors = {"gnugo-10": 0.0, "katago-gtp-1": 650.0}
    results = [r for r in round_robin(TRUE, 1000)
               if {r.player, r.opponent} != {"gnugo-10", "katago-gtp-1"}]
    ratings = fit_elo(results, anchors)
    for name, elo in anchors.items():
        assert ratings[name].elo == elo and ratings[name].stderr == 0 and ratings[name].anchor
    for name, elo in TRUE.items():
        assert ratings[name].elo == pytest.approx(elo, abs=10), name
    # the anchors stay where they are told, however the games disagree
    stretched = fit_elo(results, {"gnugo-10": 0.0, "katago-gtp-1": 1300.0})
    assert stretched["katago-gtp-1"].elo == 1300.0
    assert stretched["gen-3"].elo > ratings["gen-3"].elo + 20


def test_fit_elo_standard_error_from_the_curvature():
    # 100 games at 50% against an anchor: one standard error is
    # 400 / ln 10 / sqrt(100 * 1/4), about 35 Elo (a little less with the priors)
    ratings = fit_elo([MatchResult("gen-1", "gnugo-10", 50, 50)], {"gnugo-10": 0.0})
    assert ratings["gen-1"].elo == pytest.approx(0, abs=1e-6)
    assert ratings["gen-1"].stderr == pytest.approx(ELO_PER_NAT / 5, rel=0.03)
    # further from the anchor, less certain
    chain = [MatchResult("gen-1", "gnugo-10", 50, 50), MatchResult("gen-2", "gen-1", 50, 50)]
    ratings = fit_elo(chain, {"gnugo-10": 0.0})
    assert ratings["gen-2"].stderr > ratings["gen-1"].stderr * 1.3


def test_a_perfect_record_stays_finite():
    ratings = fit_elo([MatchResult("gen-9", "gnugo-10", 100, 0)], {"gnugo-10": 0.0})
    elo = ratings["gen-9"].elo
    assert math.isfinite(elo) and math.isfinite(ratings["gen-9"].stderr)
    nearly = fit_elo([MatchResult("gen-9", "gnugo-10", 90, 10)], {"gnugo-10": 0.0})
    assert 300 < nearly["gen-9"].elo < elo < 1500  # 90%: 382 Elo without priors
    lost = fit_elo([MatchResult("gen-0", "gnugo-10", 0, 100)], {"gnugo-10": 0.0})
    assert lost["gen-0"].elo == pytest.approx(-elo)


def test_players_without_a_path_to_an_anchor_are_rated_never_nan():
    results = [MatchResult("gen-1", "gnugo-10", 30, 20),
               MatchResult("old-a", "old-b", 8, 2), MatchResult("lonely", "old-b", 0, 0)]
    ratings = fit_elo(results, {"gnugo-10": 0.0})
    for rating in ratings.values():
        assert math.isfinite(rating.elo) and math.isfinite(rating.stderr)
    assert ratings["old-a"].elo > ratings["old-b"].elo
    assert ratings["old-a"].stderr > 5 * ratings["gen-1"].stderr  # it says how little it means
    assert fit_elo([], {}) == {}
    none_fixed = fit_elo([MatchResult("a", "b", 3, 1)], {})
    assert none_fixed["a"].elo == pytest.approx(-none_fixed["b"].elo)


def test_match_results_refuse_nonsense():
    for bad in (("a", "a", 1, 1), ("", "b", 1, 1), ("a", "b", -1, 1), ("a", "b", 1, math.nan),
                ("a", "b", True, 1)):
        with pytest.raises(ValueError):
            MatchResult(*bad)
    with pytest.raises(ValueError):
        fit_elo([], {"a": math.inf})
    # numpy counts become plain numbers (the log writes them as JSON)
    result = MatchResult("a", "b", np.int64(3), np.float64(1.5))
    assert type(result.wins) is int and type(result.losses) is float


def test_elo_table_and_history():
    ratings = {"gnugo-10": Rating(0.0, 0.0, 400, anchor=True), "gen-1": Rating(-123.4, 31.6, 200),
               "gen-2": Rating(87.6, 25.2, 400.5)}
    table = elo_table(ratings)
    lines = table.splitlines()
    assert lines[0].split() == ["player", "Elo", "±", "games"]
    assert [line.split() for line in lines[1:]] == [["gen-2", "88", "25", "400.5"],
                                                    ["gnugo-10", "0", "anchor", "400"],
                                                    ["gen-1", "-123", "32", "200"]]
    assert len({len(line) for line in lines}) == 1  # columns line up
    ordered = elo_table(ratings, order=["gen-1", "gen-2", "unknown"]).splitlines()
    assert [line.split()[0] for line in ordered] == ["player", "gen-1", "gen-2"]
    assert elo_history(ratings, [(2, "gen-2"), (1, "gen-1"), (3, "gen-3")]) == [
        (1, -123.4, 31.6), (2, 87.6, 25.2)]


def test_a_second_fit_on_the_anchor_games_alone():
    """Gate matches won against one's own ancestor raise the chain's
    ratings; the games against the fixed opponents alone do not."""
    results = [MatchResult("gen-1", "gen-0", 70, 30), MatchResult("gen-2", "gen-1", 70, 30),
               MatchResult("gen-0", "gnugo-10", 5, 5), MatchResult("gen-1", "gnugo-10", 5, 5),
               MatchResult("gen-2", "gnugo-10", 5, 5), MatchResult("gen-2", "kata", 3, 7)]
    anchor_games = against(results, ["gnugo-10", "kata"])
    assert anchor_games == results[2:]
    everything = fit_elo(results, {"gnugo-10": 0.0})
    anchored = fit_elo(anchor_games, {"gnugo-10": 0.0})
    assert everything["gen-2"].elo > everything["gen-0"].elo + 200
    assert abs(anchored["gen-2"].elo - anchored["gen-0"].elo) < 60
    del anchored["gen-1"]
    lines = elo_table(everything, anchored=anchored).splitlines()
    assert lines[0].split() == ["player", "Elo", "±", "games", "anchor-games", "Elo", "±"]
    rows = {line.split()[0]: line.split()[1:] for line in lines[1:]}
    assert rows["gnugo-10"][-2:] == ["0", "anchor"] and rows["gen-1"][-2:] == ["-", "-"]
    assert rows["gen-2"][-2] == f"{anchored['gen-2'].elo:.0f}"
    assert len({len(line) for line in lines}) == 1


# --------------------------------------------------------------------- log
def test_rating_log_round_trip_and_a_torn_last_line(tmp_path, caplog, monkeypatch):
    run = tmp_path / "run"
    log = RatingLog(run)
    assert log.results() == []
    synced = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    results = [MatchResult("gen-1", "gnugo-10", 12, 8, 1), MatchResult("gen-2", "gen-1", 7, 3),
               MatchResult("gen-2", "katago-gtp-1", 0.5, 9.5)]
    for result in results:
        log.append(result)
    assert len(synced) >= 3
    assert log.path == run / "ratings.jsonl"
    assert RatingLog(run).results() == results
    assert [json.loads(line)["player"] for line in log.path.read_text().splitlines()] == [
        "gen-1", "gen-2", "gen-2"]

    # kill -9 in the middle of a write: half a line, no newline
    with open(log.path, "ab") as f:
        f.write(b'{"player":"gen-3","opponent":"gen-2","wi')
    with caplog.at_level(logging.WARNING, logger="imago.training"):
        assert RatingLog(run).results() == results
    assert "ratings.jsonl:4" in caplog.text and "torn last line" in caplog.text

    # the loop goes on: the next result is not glued to the torn line
    caplog.clear()
    more = MatchResult("gen-3", "gen-2", 6, 4)
    log.append(more)
    with caplog.at_level(logging.WARNING, logger="imago.training"):
        assert log.results() == results + [more]
    assert "ratings.jsonl:4" in caplog.text
    assert fit_elo(log.results(), {"gnugo-10": 0.0})["gen-3"].games == 10


# ------------------------------------------------------------ curve, scalars
def test_elo_curve_png(tmp_path):
    pytest.importorskip("matplotlib", reason="plots need matplotlib (pip install "
                        "'imago[review]')")
    from imago.plotting import elo_curve_png

    curves = {"best": [(0, -300.0, 40.0), (1, -120.0, 30.0), (2, 40.0, 25.0)],
              "candidates": [(1, -150.0, 35.0), (2, math.nan, 1.0)], "empty": []}
    png = elo_curve_png(curves, {"gnugo-10": 0.0, "katago-gtp-1": 650.0}, "9x9 run")
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
    assert elo_curve_png({}, {}, "nothing yet").startswith(b"\x89PNG")


def test_the_elo_curve_of_one_generation_counts_whole_generations():
    """A run's first curve has one point: its axis must not read -0.045."""
    pytest.importorskip("matplotlib", reason="plots need matplotlib (pip install "
                        "'imago[review]')")
    from imago.plotting import elo_curve_figure

    axes = elo_curve_figure({"imago": [(0, 124.0, 110.0)]}, {"gnugo-10": 0.0}, "13x13").axes[0]
    low, high = axes.get_xlim()
    shown = [tick for tick in axes.get_xticks() if low <= tick <= high]
    assert shown == [0.0]


def test_light_imports():
    """Ratings need neither matplotlib nor TensorFlow; the modules that
    draw or log import theirs only when used."""
    code = ("import sys, imago.training.rating, imago.plotting, imago.nn.summaries, "
            "imago.review.plot; "
            "print(sorted(m for m in ('matplotlib', 'tensorflow', 'tensorboard') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                         text=True, check=True).stdout
    assert out.strip() == "[]"


def test_scalar_writer_without_tensorboard_says_why(tmp_path, monkeypatch):
    from imago.nn import summaries

    monkeypatch.setitem(sys.modules, "tensorboard", None)  # import tensorboard fails
    writer = summaries.ScalarWriter(tmp_path / "tb")
    assert writer.problem == ("TensorBoard logs need tensorflow and tensorboard: "
                              "pip install tensorboard")
    writer.scalar("elo/best", 1.0, 1)
    writer.close()
    assert not (tmp_path / "tb").exists()


def test_scalar_writer_writes_an_event_file(tmp_path):
    pytest.importorskip("tensorboard", reason="TensorBoard logs need tensorboard")
    tf = pytest.importorskip("tensorflow", reason="TensorBoard logs need tensorflow")
    from imago.nn.summaries import ScalarWriter

    with ScalarWriter(tmp_path) as writer:
        assert writer.problem is None
        writer.scalar("gate/score", 0.56, 3)
        writer.scalar("elo/best", 120.5, 4)
    events = list(tmp_path.glob("events.out.tfevents.*"))
    assert len(events) == 1
    seen = {}
    for event in tf.compat.v1.train.summary_iterator(str(events[0])):
        for value in event.summary.value:
            seen[value.tag] = (event.step, float(tf.make_ndarray(value.tensor)))
    assert seen == {"gate/score": (3, pytest.approx(0.56)), "elo/best": (4, 120.5)}
