"""Matches between two networks in one process: colours alternate, each
network's searches share its calls, games end and are judged."""

from __future__ import annotations

from imago.game import BLACK, WHITE
from imago.match.arena import ArenaSettings, play_arena
from imago.sgf import dumps, loads

from selfplay_fakes import FakeEvaluator


def settings(**changes) -> ArenaSettings:
    base = dict(size=5, komi=0.5, visits=12, parallel=4, search_batch=4, max_moves=30,
                resign_value=-1.0)
    base.update(changes)
    return ArenaSettings(**base)


def test_colours_alternate_and_each_network_batches_its_own_games():
    first, second = FakeEvaluator(seed=1), FakeEvaluator(seed=2)
    seen = []
    games = list(play_arena([first, second], ["a", "b"], range(3, 9), settings(), seed=1,
                            on_game=seen.append))
    assert sorted(g.number for g in games) == [3, 4, 5, 6, 7, 8] and seen == games
    for game in games:
        assert (game.black, game.white) == (("b", "a") if game.number % 2 else ("a", "b"))
        assert game.winner in (BLACK, WHITE, 0) and game.moves <= 30
        replayed = loads(dumps(game.state))[0]  # every move legal
        assert replayed.root.properties["RE"] == [game.result]
        assert replayed.root.properties["PB"] == [game.black]
    assert max(first.batches) > 4 and max(second.batches) > 4


def test_the_side_that_sees_itself_lost_resigns():
    """Both networks value every position -0.97 for Black: Black resigns,
    whichever network plays it."""
    games = list(play_arena([FakeEvaluator(-0.97), FakeEvaluator(-0.97, seed=3)], ["a", "b"],
                            range(4), settings(resign_value=-0.9)))
    assert all(g.result == "W+R" and g.winner == WHITE for g in games)
    assert sorted(g.winner_name for g in games) == ["a", "a", "b", "b"]
