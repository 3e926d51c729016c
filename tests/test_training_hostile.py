"""train.py against what a user may give it: inputs without samples beside
good ones, unreadable files, nonsense option values, a model file that is no
model or was made for other planes or sizes, --resume of another run, a
missing output folder, an interrupted run. Each gets a one-line reason, and
nothing already made is lost."""

from __future__ import annotations

import os

import pytest

from imago.training import data as D
from test_training_data import write_games


@pytest.fixture
def folders(tmp_path):
    """A folder of good games, one whose games are all shorter than the
    opening its index.tsv skips, and one holding a file that is no SGF."""
    good = tmp_path / "good"
    write_games(good, 4)
    short = tmp_path / "short"
    write_games(short, 2, index={"game-000.sgf": 40, "game-001.sgf": 30})
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "notes.sgf").write_bytes(b"\x00\x01 not a game record")
    return good, short, junk


# ------------------------------------------------------------------ inputs
def test_an_input_without_samples_beside_good_ones(tmp_path, folders):
    """Issue 15.7: one input without samples and another with them used to
    end in KeyError: 'game'."""
    good, short, junk = folders
    for inputs in ([short, good], [junk, good], [good, short, junk]):
        data = D.load_dataset(list(map(str, inputs)), "basic", 9, tmp_path / "cache", 0.0)
        assert len(data.train) == 4 * 30
        assert set(map(str, data.train.games)) == {str(p) for p in sorted(good.glob("*.sgf"))}
    problems = "\n".join(data.problems)
    assert "short/game-000.sgf: no moves after the 40 opening moves" in problems
    assert "short/game-001.sgf: no moves after the 30 opening moves" in problems
    assert "junk/notes.sgf" in problems


def test_unreadable_files_are_named_skipped_and_read_once_they_can_be(tmp_path):
    folder = tmp_path / "games"
    write_games(folder, 2)
    dangling = folder / "dangling.sgf"
    dangling.symlink_to(tmp_path / "elsewhere.sgf")
    fifo = folder / "fifo.sgf"
    os.mkfifo(fifo)  # opening it would wait for a writer for ever
    cache = tmp_path / "cache"
    data = D.load_dataset([str(folder)], "basic", 9, cache, 0.0)
    assert len(data.train) == 60
    assert f"{dangling}: cannot read it (No such file or directory)" in data.problems
    assert f"{fifo}: not a regular file" in data.problems
    # not cached as skipped: once the file is there, it is read
    (tmp_path / "elsewhere.sgf").write_text((folder / "game-000.sgf").read_text())
    again = D.load_dataset([str(folder)], "basic", 9, cache, 0.0)
    assert len(again.train) == 90 and len(again.problems) == 1


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_a_file_without_read_permission_is_named(tmp_path):
    folder = tmp_path / "games"
    paths = write_games(folder, 2)
    paths[0].chmod(0)
    data = D.load_dataset([str(folder)], "basic", 9, tmp_path / "cache", 0.0)
    assert len(data.train) == 30
    assert data.problems == [f"{paths[0]}: cannot read it (permission denied)"]
