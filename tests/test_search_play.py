"""Self-play with the tree search: many games sharing network calls, legal
to the end, recorded as replay-buffer games, resignations checked."""

from __future__ import annotations

import numpy as np
import pytest

from imago.game import BLACK, WHITE
from imago.sgf import dumps, loads
from imago.training.replay import ReplayBuffer
from imago.training.search_play import SelfPlaySettings, play_games, policy_surprise

from selfplay_fakes import FakeEvaluator


def settings(**changes) -> SelfPlaySettings:
    base = dict(size=5, komi=0.5, visits=16, cheap_visits=4, full_share=0.5, parallel=4,
                search_batch=4, resign_value=-1.0, max_moves=40)
    base.update(changes)
    return SelfPlaySettings(**base)


def test_games_share_network_calls_and_make_valid_records(tmp_path):
    evaluator = FakeEvaluator()
    played = list(play_games(evaluator, settings(), 6, seed=2, name="t"))
    assert len(played) == 6 and max(evaluator.batches) > 4  # several games per call
    assert sorted(game.record.name for game in played) == [f"t-{k:06d}" for k in range(1, 7)]
    buffer = ReplayBuffer(tmp_path)
    buffer.add([game.record for game in played], generation=0)
    assert buffer.games() == 6
    for game in played:
        record = game.record
        assert record.problems() == []
        assert len(record) == len(game.state.current.path_from_root()) - 1
        full = record.full
        assert np.allclose(record.policy[full].sum(axis=1), 1.0)
        assert not record.policy[~full].any()
        assert list(record.to_move[:2]) == [BLACK, WHITE]
        text = dumps(game.state)
        assert "search" in text and "visits" in text
        assert loads(text)[0].root.properties["RE"] == [game.result]  # every move legal


def test_a_losing_side_resigns_unless_the_game_checks_resignation():
    """Black's value is -0.95 everywhere (the network says so, and with komi
    25.5 no finished line the search reaches lets Black win; at komi 0.5 a
    search of 16 visits sometimes found one, about one game in a hundred):
    Black resigns on its second move, except in games chosen to play on,
    which report who would have."""
    lost = FakeEvaluator(lean=-0.95)
    resigned = list(play_games(lost, settings(resign_value=-0.9, no_resign_share=0.0,
                                              komi=25.5), 2))
    assert all(g.record.resigned and g.result == "W+R" for g in resigned)
    assert all(len(g.record) == 3 for g in resigned)  # B, W, then Black's second low move
    checked = list(play_games(FakeEvaluator(lean=-0.95),
                              settings(resign_value=-0.9, no_resign_share=1.0, komi=25.5),
                              2))
    assert all(not g.record.resigned and g.would_resign == BLACK for g in checked)
    assert all(g.false_resignation == (g.record.winner == BLACK) for g in checked)


def test_settings_are_checked_and_defaults_follow_the_size():
    assert SelfPlaySettings(size=9).resolved().sample_moves == 10
    assert SelfPlaySettings(size=19).resolved().max_moves == 722
    problems = SelfPlaySettings(visits=0, full_share=1.5, resign_value=-2).problems()
    assert len(problems) == 3 and any("full-share" in p for p in problems)


@pytest.mark.parametrize("full_share", [0.0, 1.0])
def test_the_share_of_full_searches_is_respected(full_share):
    played = list(play_games(FakeEvaluator(), settings(full_share=full_share), 2, seed=4))
    flags = np.concatenate([g.record.full for g in played])
    assert flags.all() if full_share else not flags.any()


def test_policy_targets_are_pruned_unless_told_not_to():
    """The same games (same seed) with and without pruning: the pruned
    targets never put more weight on a move than the visits did relative to
    the most visited move, and somewhere they drop a move the noise gave."""
    options = dict(full_share=1.0, dirichlet_alpha=0.3, noise_fraction=0.5)
    pruned = list(play_games(FakeEvaluator(), settings(**options), 2, seed=5))
    kept = list(play_games(FakeEvaluator(), settings(prune_targets=False, **options), 2, seed=5))
    dropped = 0
    for a, b in zip(pruned, kept):
        assert np.array_equal(a.record.moves, b.record.moves)  # pruning changes no move
        p, v = a.record.policy, b.record.policy
        assert np.allclose(p.sum(axis=1), 1.0)
        ratio_p = p / p.max(axis=1, keepdims=True)
        ratio_v = v / v.max(axis=1, keepdims=True)
        assert np.all(ratio_p <= ratio_v + 1e-6)
        dropped += int(((v > 0) & (p == 0)).sum())
    assert dropped > 0


def test_each_full_search_measures_its_policy_surprise():
    """One figure per full search: the KL divergence of its policy target
    from the root's priors before the noise, never negative, and not 0
    everywhere (the searches do differ from the network)."""
    played = list(play_games(FakeEvaluator(), settings(dirichlet_alpha=0.3), 3, seed=4))
    for game in played:
        assert len(game.surprises) == int(game.record.full.sum()) > 0
        assert all(np.isfinite(s) and s >= -1e-9 for s in game.surprises)
    assert any(s > 0.01 for game in played for s in game.surprises)


def test_a_target_equal_to_the_priors_has_no_surprise():
    class Search:
        noiseless_priors = np.array([0.5, 0.25, 0.25, 0.0])

    assert policy_surprise(Search.noiseless_priors.copy(), Search()) == pytest.approx(0.0)
    sharper = np.array([1.0, 0.0, 0.0, 0.0])
    assert policy_surprise(sharper, Search()) == pytest.approx(np.log(2))


def test_local_reading_is_the_full_searches_own_from_5x5_up():
    """``local_reading``: a full search (a policy target's) strikes at its
    root what the closed-off areas read as lost, as the engine that plays
    does (not below 5x5, where the search alone plays; not in cheap
    searches, which it would slow down by half); off unless asked for."""
    from imago.training.search_play import _new_game, _search

    class Pool:
        def add(self, job):
            pass

    rng = np.random.default_rng(1)
    for size, asked, full, wanted in ((9, True, 1.0, True), (9, False, 1.0, False),
                                      (4, True, 1.0, False), (9, True, 0.0, False)):
        chosen = settings(size=size, local_reading=asked, full_share=full).resolved()
        game = _new_game(FakeEvaluator(), chosen, rng, 1)
        _search(game, Pool(), chosen, rng)
        assert game.search.local_reading is wanted, (size, asked, full)
    played = list(play_games(FakeEvaluator(), settings(local_reading=True), 1, seed=2))
    assert played and played[0].record.policy.shape[0] > 0


def test_forced_playouts_widen_full_searches_and_pruning_takes_them_back():
    """With KataGo's forced playouts (k = 4 here) a full search reads many
    more root moves (the moves its visits reached, per search, on average);
    the pruned policy targets keep about as few as a search without them
    (the forced visits were not earned). A negative k is refused."""
    options = dict(full_share=1.0, visits=64, cheap_visits=8)

    def moves_read(**more) -> float:
        played = play_games(FakeEvaluator(), settings(**options, **more), 2, seed=6)
        return float(np.mean([(g.record.policy > 0).sum(axis=1).mean() for g in played]))

    plain = moves_read(prune_targets=False)
    forced = moves_read(prune_targets=False, forced_playouts=4)
    pruned = moves_read(forced_playouts=4)
    assert forced > plain + 3
    assert pruned < plain + 1.5
    assert any("forced-playouts" in p for p in SelfPlaySettings(forced_playouts=-1).problems())
