"""The gate's anchor half (``--gate-anchor-games``): a candidate that beats
the best network must also score against the fixed anchors at least the
best network's share, on games kept apart from the ratings."""

from __future__ import annotations

import pytest

pytest.importorskip("tensorflow")

from imago.training import rl, rl_rating  # noqa: E402
from imago.training.rating import RatingLog  # noqa: E402
from imago.training.rl import RLConfig, start_run  # noqa: E402

ANCHOR_WINS = {"gen-0000": 2, "cand-0001": 3, "gen-0001": 2, "cand-0002": 1}
"""Wins of each network in 4 games against the anchor."""


@pytest.fixture
def only_katago_installed(monkeypatch):
    """KataGo stands in as the one installed anchor; GNU Go is absent."""
    import imago.match.tool as tool

    monkeypatch.setattr(tool, "find_gnugo", lambda: None)
    monkeypatch.setattr(rl_rating, "_katago", lambda: "/bin/true")


@pytest.fixture
def anchor_matches(monkeypatch, only_katago_installed):
    """Anchor matches that play nothing: each network wins its
    ``ANCHOR_WINS``; returns the list of (name, games, command) played."""
    import imago.match.tool as tool
    from imago.match.tool import EngineStats

    played = []

    class FakeMatch:
        def __init__(self, settings, referee):
            self.settings = settings
            self.stats = [EngineStats(settings.names[0]), EngineStats(settings.names[1])]

        def play(self, out=print):
            name, games = self.settings.names[0], self.settings.games
            played.append((name, games, self.settings.commands[0]))
            self.stats[0].wins = ANCHOR_WINS[name] * games // 4
            self.stats[0].losses = games - self.stats[0].wins
            for number in range(games):
                out(f"game {number + 1}")

    monkeypatch.setattr(tool, "Match", FakeMatch)
    return played


@pytest.fixture
def candidates_win_head_to_head(monkeypatch):
    """Every gate match won by the candidate, colours alternating."""
    def play_versus(models, names, games, *args, **kwargs):
        return [{"number": n, "black": names[n % 2], "white": names[1 - n % 2],
                 "winner": names[0], "result": "B+R" if n % 2 == 0 else "W+R"}
                for n in range(games)]

    monkeypatch.setattr(rl, "play_versus", play_versus)


def test_a_gate_winner_is_promoted_only_if_it_holds_its_ground_against_the_anchor(
        tmp_path, tiny_model, anchor_matches, candidates_win_head_to_head):
    config = RLConfig(visits=2, cheap_visits=2, parallel=2, gate_games=4, rate_games=4,
                      gate_anchor_games=4, anchors=["katago"], resign_value=-1.0)
    run, config, state = start_run(tmp_path / "run", tiny_model, config, log=lambda _: None)
    rl_rating.rate(run, config, state, 0, lambda _: None)
    assert [p[:2] for p in anchor_matches] == [("gen-0000", 4)]

    rl._copy_model(run.model(0), run.candidate(1))
    lines: list[str] = []
    assert rl._gate(run, config, state, lines.append)
    assert state["best_generation"] == 1
    assert state["history"][-1]["anchors"] == {
        "katago-gtp-1": {"candidate": [3, 4], "best": [2, 4], "passed": True}}
    assert "--seed 180001{game}" in anchor_matches[-1][2]  # apart from gen-0001's 10001{game}
    assert any("the anchor games decide" in line for line in lines)
    assert any("cand-0001 3 of 4 (75%" in line and "gen-0000 2 of 4 (50%" in line
               for line in lines), lines
    # the candidate's anchor games stay out of the ratings: its generation plays fresh ones
    assert [(r.player, r.opponent) for r in RatingLog(run.root).results()] == [
        ("gen-0000", "katago-gtp-1"), ("cand-0001", "gen-0000")]
    rl_rating.rate(run, config, state, 1, lambda _: None)
    assert [p[:2] for p in anchor_matches] == [("gen-0000", 4), ("cand-0001", 4),
                                               ("gen-0001", 4)]

    state["iteration"] = 1
    rl._copy_model(run.model(0), run.candidate(2))
    lines.clear()
    assert not rl._gate(run, config, state, lines.append)
    assert state["best_generation"] == 1 and not state["history"][-1]["promoted"]
    assert state["history"][-1]["wins"] == 4  # it won its head-to-head games
    assert any("cand-0002 is not promoted" in line for line in lines), lines
    anchor_matches.clear()
    assert not rl._gate(run, config, state, lambda _: None)  # a resumed gate: logged games count
    assert anchor_matches == []


def test_anchor_games_show_their_progress(tmp_path, tiny_model, anchor_matches, capsys):
    """A line at the start and one at the end in a log (stderr is no
    terminal here), with the games and the network's wins."""
    config = RLConfig(visits=2, cheap_visits=2, parallel=2, rate_games=4, anchors=["katago"],
                      resign_value=-1.0)
    run, config, state = start_run(tmp_path / "run", tiny_model, config, log=lambda _: None)
    capsys.readouterr()
    rl_rating.rate(run, config, state, 0, lambda _: None, progress=True)
    err = capsys.readouterr().err
    assert "rl: gen-0000 vs katago-gtp-1: 0 of 4 games" in err, err
    assert "rl: gen-0000 vs katago-gtp-1: 4 of 4 games" in err and "gen-0000 won 2" in err, err


def test_a_candidate_that_loses_its_gate_plays_no_anchor_games(tmp_path, tiny_model,
                                                               anchor_matches, monkeypatch):
    monkeypatch.setattr(rl, "play_versus", lambda models, names, games, *a, **k: [
        {"number": n, "black": names[n % 2], "white": names[1 - n % 2], "winner": names[1],
         "result": "W+R"} for n in range(games)])
    config = RLConfig(visits=2, cheap_visits=2, parallel=2, gate_games=4, rate_games=4,
                      gate_anchor_games=4, anchors=["katago"], resign_value=-1.0)
    run, config, state = start_run(tmp_path / "run", tiny_model, config, log=lambda _: None)
    rl_rating.rate(run, config, state, 0, lambda _: None)
    rl._copy_model(run.model(0), run.candidate(1))
    anchor_matches.clear()
    assert not rl._gate(run, config, state, lambda _: None)
    assert anchor_matches == [] and "anchors" not in state["history"][-1]


def test_the_anchor_gate_needs_rating_games_to_compare_with():
    assert RLConfig(gate_anchor_games=-1).problems() == [
        "--gate-anchor-games must be 0 or more, not -1"]
    problem = ("--gate-anchor-games compares a candidate with the best network's rating "
               "games: give --rate-games 1 or more and an anchor")
    assert RLConfig(gate_anchor_games=10, rate_games=0).problems() == [problem]
    assert RLConfig(gate_anchor_games=10, anchors=[]).problems() == [problem]
    assert RLConfig(gate_anchor_games=10).problems() == []


def test_a_candidate_whose_anchor_games_all_failed_is_not_promoted(tmp_path, tiny_model,
                                                                     anchor_matches, monkeypatch,
                                                                     candidates_win_head_to_head):
    """A match whose games all broke off counts no game: the check fails and
    says so, it does not divide by zero."""
    import imago.match.tool as tool

    config = RLConfig(visits=2, cheap_visits=2, parallel=2, gate_games=4, rate_games=4,
                      gate_anchor_games=4, anchors=["katago"], resign_value=-1.0)
    run, config, state = start_run(tmp_path / "run", tiny_model, config, log=lambda _: None)
    rl_rating.rate(run, config, state, 0, lambda _: None)

    class AllBroken(tool.Match):
        def play(self, out=print):
            super().play(out)
            self.stats[0].wins = self.stats[0].losses = 0

    monkeypatch.setattr(tool, "Match", AllBroken)
    rl._copy_model(run.model(0), run.candidate(1))
    lines: list[str] = []
    assert not rl._gate(run, config, state, lines.append)
    assert any("cand-0001 no games counted" in line and "failed" in line for line in lines)


def test_a_rating_stopped_mid_match_keeps_the_games_it_finished(tmp_path, tiny_model,
                                                                 monkeypatch,
                                                                 only_katago_installed):
    import imago.match.tool as tool
    from imago.match.tool import EngineStats

    asked = []

    class StoppedOnce:
        """Finishes one game (a win) of the first match, then is stopped."""
        def __init__(self, settings, referee):
            self.settings = settings
            self.stats = [EngineStats(settings.names[0]), EngineStats(settings.names[1])]
            self.played = 0

        def play(self, out=print):
            asked.append((self.settings.games, self.settings.concurrent))
            self.stats[0].wins, self.played = 1, 1
            if len(asked) == 1:
                raise KeyboardInterrupt
            self.stats[0].losses, self.played = self.settings.games - 1, self.settings.games

    monkeypatch.setattr(tool, "Match", StoppedOnce)
    config = RLConfig(visits=2, cheap_visits=2, parallel=2, rate_games=4, workers=2,
                      anchors=["katago"], resign_value=-1.0)
    run, config, state = start_run(tmp_path / "run", tiny_model, config, log=lambda _: None)
    with pytest.raises(KeyboardInterrupt):
        rl_rating.rate(run, config, state, 0, lambda _: None)
    rl_rating.rate(run, config, state, 0, lambda _: None)
    assert asked == [(4, 2), (3, 2)]  # the resumed rating plays the 3 games still missing
    assert [(r.player, r.wins, r.losses) for r in RatingLog(run.root).results()] == [
        ("gen-0000", 1, 0), ("gen-0000", 1, 2)]


def test_an_anchor_gate_stopped_mid_match_plays_only_the_games_still_missing(
        tmp_path, tiny_model, anchor_matches, monkeypatch, candidates_win_head_to_head):
    import imago.match.tool as tool

    config = RLConfig(visits=2, cheap_visits=2, parallel=2, gate_games=4, rate_games=4,
                      gate_anchor_games=4, anchors=["katago"], resign_value=-1.0)
    run, config, state = start_run(tmp_path / "run", tiny_model, config, log=lambda _: None)
    rl_rating.rate(run, config, state, 0, lambda _: None)
    playing = tool.Match

    class StoppedAfterOneWin(playing):
        def play(self, out=print):
            self.stats[0].wins, self.played = 1, 1
            raise KeyboardInterrupt

    monkeypatch.setattr(tool, "Match", StoppedAfterOneWin)
    rl._copy_model(run.model(0), run.candidate(1))
    with pytest.raises(KeyboardInterrupt):
        rl._gate(run, config, state, lambda _: None)
    monkeypatch.setattr(tool, "Match", playing)
    lines: list[str] = []
    assert rl._gate(run, config, state, lines.append)
    assert [p[:2] for p in anchor_matches] == [("gen-0000", 4), ("cand-0001", 3)]
    assert any("cand-0001 against katago-gtp-1, 3 games more (it has 1, --gate-anchor-games 4)" in line
               for line in lines), lines
    # 1 win kept + 2 of the 3 played now (ANCHOR_WINS: 3 of 4, rounded down)
    assert state["history"][-1]["anchors"]["katago-gtp-1"]["candidate"] == [3, 4]


def test_an_anchor_game_lost_by_a_failure_is_logged_with_what_went_wrong(
        tmp_path, tiny_model, monkeypatch, only_katago_installed):
    import imago.match.tool as tool
    from imago.match.tool import EngineStats

    forfeit = ("game 2: B katago-gtp-1 - W gen-0000: W+F (illegal, 96 moves: katago-gtp-1 "
               "played 'N1': suicide)")

    class ForfeitingMatch:
        def __init__(self, settings, referee):
            self.settings = settings
            self.stats = [EngineStats(settings.names[0]), EngineStats(settings.names[1])]
            self.played = 0

        def play(self, out=print):
            self.stats[0].wins, self.stats[0].losses = 1, 1
            out("game 1: B gen-0000 - W katago-gtp-1: W+R (resign, 80 moves)")
            out(forfeit)

    monkeypatch.setattr(tool, "Match", ForfeitingMatch)
    config = RLConfig(visits=2, cheap_visits=2, parallel=2, rate_games=2, anchors=["katago"],
                      resign_value=-1.0)
    run, config, state = start_run(tmp_path / "run", tiny_model, config, log=lambda _: None)
    lines: list[str] = []
    rl_rating.rate(run, config, state, 0, lines.append)
    assert f"rl: gen-0000 vs katago-gtp-1, {forfeit}" in lines
    assert not any("(resign," in line for line in lines)
