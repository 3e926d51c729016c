"""``train.py versus``: two networks head to head at equal visits, the
loop's gate as a command. A match goes on where it stopped, never mixes the
games of another match, and reads its record back with the Wilson
interval."""

from __future__ import annotations

import json
import shutil

import pytest

pytest.importorskip("tensorflow")

from imago.training import versus  # noqa: E402

FAST = ["--visits", "2", "--parallel", "2", "--size", "9", "--no-progress"]


def games_in(folder) -> list[int]:
    return sorted(json.loads(line)["number"]
                  for line in (folder / "games.jsonl").read_text().splitlines())


def test_a_match_is_played_saved_and_continued(tmp_path, tiny_model, capsys):
    out = tmp_path / "match"
    assert versus.versus_main([str(tiny_model), str(tiny_model), "--out", str(out),
                               "--games", "2", *FAST]) == 0
    line = capsys.readouterr().out.splitlines()[-1]
    assert line.startswith("tiny-1 vs tiny-2: ") and "in 2 games at 2 visits" in line
    assert "95% " in line and "Black " in line and "White " in line
    assert games_in(out) == [0, 1] and len(list((out / "sgf").glob("game-*.sgf"))) == 2

    assert versus.versus_main([str(tiny_model), str(tiny_model), "--out", str(out),
                               "--games", "3", *FAST]) == 0
    assert games_in(out) == [0, 1, 2]
    assert "in 3 games" in capsys.readouterr().out


def test_a_folder_keeps_its_own_match(tmp_path, tiny_model, capsys):
    out = tmp_path / "match"
    other = tmp_path / "other.keras"
    shutil.copy(tiny_model, other)
    shutil.copy(tiny_model.with_suffix(".json"), other.with_suffix(".json"))  # its metadata
    assert versus.versus_main([str(tiny_model), str(other), "--out", str(out),
                               "--games", "1", *FAST]) == 0
    capsys.readouterr()
    # more visits, or another network under the same name: not the same match
    assert versus.versus_main([str(tiny_model), str(other), "--out", str(out), "--games", "2",
                               *FAST, "--visits", "3"]) == 1
    assert "holds another match (visits 2 (asked: 3))" in capsys.readouterr().err
    other.write_bytes(other.read_bytes() + b"\0")  # same name, other content
    assert versus.versus_main([str(tiny_model), str(other), "--out", str(out), "--games", "2",
                               *FAST]) == 1
    assert "sha256" in capsys.readouterr().err
    assert games_in(out) == [0]


def test_a_damaged_settings_file_is_named(tmp_path, tiny_model, capsys):
    out = tmp_path / "match"
    out.mkdir()
    (out / "versus.json").write_text("{not json")
    assert versus.versus_main([str(tiny_model), str(tiny_model), "--out", str(out), *FAST]) == 1
    assert f"{out / 'versus.json'} is not readable JSON" in capsys.readouterr().err


def test_bad_options_are_named(tmp_path, tiny_model, capsys):
    with pytest.raises(SystemExit) as exit_:
        versus.versus_main([str(tiny_model), str(tmp_path / "missing.keras"),
                            "--out", str(tmp_path), "--games", "0", "--komi", "100"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "no model file" in err and "missing.keras" in err
    assert "--games must be at least 1" in err
    assert "--komi must be a number from -81 to 81 on 9x9, not 100" in err


def test_a_model_that_cannot_play_is_named_before_the_folder_is_made(tmp_path, tiny_model,
                                                                     capsys):
    junk = tmp_path / "junk.keras"
    junk.write_text("not a model")
    out = tmp_path / "match"
    with pytest.raises(SystemExit):
        versus.versus_main([str(junk), str(tiny_model), "--out", str(out), *FAST])
    assert f"{junk} is not a Keras model file" in capsys.readouterr().err
    bare = tmp_path / "bare.keras"
    shutil.copy(tiny_model, bare)  # no metadata beside it
    with pytest.raises(SystemExit):
        versus.versus_main([str(tiny_model), str(bare), "--out", str(out), *FAST])
    assert "has no metadata file bare.json" in capsys.readouterr().err
    assert not out.exists()


def test_the_record_counts_draws_as_half_and_the_colours_apart():
    records = [{"number": 0, "black": "a", "white": "b", "winner": "a"},
               {"number": 1, "black": "b", "white": "a", "winner": None},
               {"number": 2, "black": "a", "white": "b", "winner": "b"},
               {"number": 3, "black": "b", "white": "a", "winner": "a"}]
    decision = versus.record_of(records, "a", threshold=0.6)
    assert (decision.wins, decision.losses, decision.draws) == (2, 1, 1)
    assert decision.score == pytest.approx(0.625) and decision.promoted
    assert versus.colour_record(records, "a") == "Black 1/2, White 1/2"


def test_a_log_of_other_players_is_refused(tmp_path):
    log = tmp_path / "games.jsonl"
    log.write_text(json.dumps({"number": 0, "black": "x", "white": "b", "result": "B+R",
                               "winner": "x"}) + "\n")
    with pytest.raises(ValueError, match="holds games of x, not only of a and b"):
        versus.play_versus(["a.keras", "b.keras"], ["a", "b"], 1, None, log, tmp_path)


def test_names_are_the_file_stems_told_apart():
    assert versus.match_names(["runs/gen-0003.keras", "models/residual9.keras"]) == \
        ["gen-0003", "residual9"]
    assert versus.match_names(["a/model.keras", "b/model.keras"]) == ["model-1", "model-2"]


def test_a_match_one_colour_always_wins_is_flagged():
    """5x5 at komi 0: Black wins whichever network plays it, so a gate
    there says nothing; the record says so."""
    def game(n, winner_colour):
        black, white = ("a", "b") if n % 2 == 0 else ("b", "a")
        return {"number": n, "black": black, "white": white,
                "winner": black if winner_colour == "black" else white}

    lopsided = [game(n, "black") for n in range(19)] + [game(19, "white")]
    assert versus.one_colour_wins(lopsided) == (
        "Black won 19 of 20 decided games: at this komi the match barely tells the networks "
        "apart (choose a komi both colours can win at)")
    assert versus.one_colour_wins(lopsided[:19]) is None  # too few games to say
    mixed = [game(n, "black" if n % 3 else "white") for n in range(30)]
    assert versus.one_colour_wins(mixed) is None
    assert "White won 20 of 20" in versus.one_colour_wins([game(n, "white") for n in range(20)])
