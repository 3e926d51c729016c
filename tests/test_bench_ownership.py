"""``python -m imago.bench ownership``: an analysis engine's ownership on
held-out counted games, scored against their final ownership. The games
and the stand-in engine are made up here; one test asks imago's own
analysis engine."""

from __future__ import annotations

import sys
import textwrap

import pytest

from imago.bench import ownership
from imago.training.data import HELDOUT_SHARE, is_validation_game

# Black walls the D column, White the F column: Black owns A-D (36 points),
# White F-J (36), the E column is neutral; 18 moves, then two passes.
WALLS = "(;GM[1]FF[4]SZ[9]KM[0.5]RE[W+0.5]" + "".join(
    f";B[d{row}];W[f{row}]" for row in "abcdefghi") + ";B[];W[])"

FAKE = textwrap.dedent("""\
    import json, sys
    MODE = sys.argv[1]
    for line in sys.stdin:
        query = json.loads(line)
        size = query["boardXSize"]
        if MODE == "error":
            print(json.dumps({"id": query["id"], "error": "no such thing", "field": "moves"}))
            continue
        if MODE == "junk":  # not objects, no numbers, then a crash
            print("[1, 2]")
            print(json.dumps({"id": query["id"], "turnNumber": 0, "ownership": ["x"] * 81}))
            print(json.dumps({"id": query["id"], "turnNumber": 1, "ownership": [0.5] * 80}))
            print("broken down", file=sys.stderr)
            sys.exit(3)
        for turn in query["analyzeTurns"]:
            if MODE == "black":   # Black owns every point
                own = [1.0] * (size * size)
            else:                 # the walls' true owners, from Black's side
                own = [0.9 if x < 4 else -0.8 if x > 4 else 0.0
                       for y in range(size) for x in range(size)]
            print(json.dumps({"id": query["id"], "turnNumber": turn,
                              "isDuringSearch": True}), flush=True)
            print(json.dumps({"id": query["id"], "turnNumber": turn, "isDuringSearch": False,
                              "ownership": own}), flush=True)
    """)


def held_out_names(folder_name: str, count: int) -> list[str]:
    """File names that the by-game split holds out in a folder so named."""
    names, k = [], 0
    while len(names) < count:
        name = f"g{k}.sgf"
        if is_validation_game(f"/x/{folder_name}/{name}", HELDOUT_SHARE):
            names.append(name)
        k += 1
    return names


@pytest.fixture
def games(tmp_path):
    folder = tmp_path / "walls"
    folder.mkdir()
    held = held_out_names("walls", 2)
    for name in held:
        (folder / name).write_text(WALLS)
    (folder / "trained.sgf").write_text(WALLS)  # not held out (checked below)
    (folder / held_out_names("walls", 3)[2]).write_text(WALLS.replace("RE[W+0.5]", "RE[B+R]"))
    assert not is_validation_game(str(folder / "trained.sgf"), HELDOUT_SHARE)
    fake = tmp_path / "fake.py"
    fake.write_text(FAKE)
    return folder, fake


def run(argv, capsys) -> tuple[int, str, str]:
    status = ownership.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_held_out_counted_games_are_asked_every_turn_after_the_opening(games):
    folder, _ = games
    found, problems = ownership.held_out_games(folder)
    assert len(found) == 2  # the resigned one has no final ownership to learn
    assert any("neither counted (RE B+R)" in p for p in problems)
    queries, wanted = ownership.build_queries(found, 400, 50)
    assert len(queries) == 2 and len(wanted) == 2 * 20
    query = queries[0]
    assert query["analyzeTurns"] == list(range(20)) and query["maxVisits"] == 50
    assert query["moves"][:2] == [["B", "D9"], ["W", "F9"]] and query["moves"][-1] == ["W", "pass"]
    assert query["includeOwnership"] and query["komi"] == 0.5
    position = wanted[(query["id"], 0)]
    assert position.filled == 0.0 and (position.owners == 1).sum() == 36
    assert (position.owners == -1).sum() == 36
    assert wanted[(query["id"], 18)].filled == pytest.approx(18 / 81)
    assert len(ownership.build_queries(found, 10, 50)[1]) == 2 * 5  # every 4th turn


def test_the_engine_is_scored_on_owned_points_by_phase(games, capsys):
    folder, fake = games
    status, out, err = run([f"--dir={folder}", f"--engine={sys.executable} {fake} true"],
                           capsys)
    assert status == 0, err
    assert "ownership accuracy 100.0% on 40 positions (2880 owned points" in out
    assert "<20% 100.0%, 20-40% 100.0%" in out
    status, out, _ = run([f"--dir={folder}", f"--engine={sys.executable} {fake} black"],
                         capsys)
    assert status == 0 and "ownership accuracy 50.0% on 40 positions" in out


def test_all_takes_every_counted_game_of_a_folder_no_network_learnt_from(games, capsys):
    folder, fake = games
    found, _ = ownership.held_out_games(folder, every_game=True)
    assert len(found) == 3  # trained.sgf too; the resigned game still has no final ownership
    status, out, err = run([f"--dir={folder}", "--all", f"--engine={sys.executable} {fake} true"],
                           capsys)
    assert status == 0, err
    assert "60 positions of 3 games" in out and "held-out" not in out
    assert "ownership accuracy 100.0% on 60 positions" in out


def test_engine_errors_and_bad_options_are_named(games, capsys, tmp_path):
    folder, fake = games
    status, _, err = run([f"--dir={folder}", f"--engine={sys.executable} {fake} error"], capsys)
    assert status == 1
    assert "no such thing" in err and "40 of 40 turns got no ownership" in err
    assert "the engine answered no turn with an ownership" in err
    status, _, err = run([f"--dir={folder}", f"--engine={sys.executable} {fake} junk"], capsys)
    assert status == 1 and "turn 0: no ownership of the board's size" in err
    assert "turn 1: no ownership of the board's size" in err
    assert "the engine: exit status 3: broken down" in err
    status, _, err = run([f"--dir={folder}", "--engine=/no/such/engine"], capsys)
    assert status == 2 and "cannot start /no/such/engine" in err
    status, _, err = run([f"--dir={folder}", "--engine=x", "--model=m.keras"], capsys)
    assert status == 2 and "give one of them" in err
    status, _, err = run([f"--dir={tmp_path / 'nowhere'}"], capsys)
    assert status == 2 and "no folder" in err
    (tmp_path / "empty").mkdir()
    status, _, err = run([f"--dir={tmp_path / 'empty'}"], capsys)
    assert status == 2 and "no held-out counted or marked game" in err


def test_imago_analysis_engine_answers_it(games, capsys):
    folder, _ = games
    status, out, err = run([f"--dir={folder}", "--visits=2"], capsys)
    assert status == 0, err
    assert "imago.analysis" in out and "on 40 positions" in out
    accuracy = float(out.split("ownership accuracy ")[1].split("%")[0])
    assert accuracy > 70.0  # the walls are plain to any 9x9 network after a few moves


def test_gnugo_dead_takes_the_dead_stones_named_off_the_final_position(tmp_path, monkeypatch,
                                                                      capsys):
    """Records of real games end with dead stones standing: a white stone
    left inside Black's wall makes Black's side nobody's as it stands;
    with the stone GNU Go names dead taken off, Black owns it again. A game
    GNU Go cannot judge is skipped and named. (Without GNU Go imago's own
    count takes the stone off, as it gives the recorded result.)"""
    from imago.game.coords import to_index

    folder = tmp_path / "real"
    folder.mkdir()
    judged, unjudged = held_out_names("real", 2)
    dead_stone = WALLS.replace("KM[0.5]", "KM[0.5]AW[be]")
    (folder / judged).write_text(dead_stone)
    (folder / unjudged).write_text(dead_stone)

    def gnugo(path, size):
        if path.name == unjudged:
            raise ValueError(f"{path}: GNU Go could not score it")
        return [to_index(1, 4, size)]  # B5, the white stone

    counted, _ = ownership.held_out_games(folder)
    assert all((owners == 1).sum() == 36 for _, _, _, owners in counted)
    unsettled = folder / held_out_names("real", 3)[2]
    unsettled.write_text(dead_stone.replace("RE[W+0.5]", "RE[B+30.5]"))  # no count gives it
    counted, problems = ownership.held_out_games(folder)
    assert len(counted) == 2 and problems == [
        f"{unsettled}: its last position counts out to B+30.5 neither as the stones stand nor "
        "by imago's count (dead stones: --gnugo-dead)"]
    unsettled.unlink()
    found, problems = ownership.held_out_games(folder, gnugo=gnugo)
    assert [name for name, _, _, _ in found] == [str(folder / judged)]
    assert (found[0][3] == 1).sum() == 36 and (found[0][3] == -1).sum() == 36
    assert problems == [f"{folder / unjudged}: GNU Go could not score it"]

    class FakeGnuGo:
        def __init__(self, cache_dir):
            pass

        __call__ = staticmethod(gnugo)

    monkeypatch.setattr("imago.training.data.GnuGoDead", FakeGnuGo)
    fake = tmp_path / "fake.py"
    fake.write_text(FAKE)
    status, out, err = run([f"--dir={folder}", "--gnugo-dead",
                            f"--engine={sys.executable} {fake} true"], capsys)
    assert status == 0, err
    assert "ownership accuracy 100.0% on 20 positions" in out
    assert "GNU Go could not score it" in err

    def no_gnugo(cache_dir):
        raise FileNotFoundError("GNU Go is not installed (needed for --gnugo-dead)")

    monkeypatch.setattr("imago.training.data.GnuGoDead", no_gnugo)
    status, _, err = run([f"--dir={folder}", "--gnugo-dead"], capsys)
    assert status == 2 and "GNU Go is not installed" in err
