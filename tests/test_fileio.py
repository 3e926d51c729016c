"""imago.fileio.replacing: a file written whole or not at all."""

import os
import stat

import pytest

from imago.fileio import NEW_FILE_MODE, replacing


def test_the_new_text_replaces_the_old_whole(tmp_path):
    path = tmp_path / "state.json"
    path.write_text("old\n")
    with replacing(path) as f:
        f.write("new\n")
        assert path.read_text() == "old\n"  # nothing shows before the block ends
    assert path.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary_file(tmp_path):
    path = tmp_path / "shard.npz"
    path.write_bytes(b"old")
    with pytest.raises(OSError):
        with replacing(path, binary=True) as f:
            f.write(b"half")
            raise OSError(28, "No space left on device")
    assert path.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["shard.npz"]


def test_new_files_get_open_s_mode_and_old_ones_may_keep_theirs(tmp_path):
    fresh = tmp_path / "fresh.sgf"
    with replacing(fresh) as f:
        f.write("(;)")
    assert stat.S_IMODE(fresh.stat().st_mode) == NEW_FILE_MODE
    kept = tmp_path / "kept.sgf"
    with replacing(kept, mode_bits=0o640) as f:
        f.write("(;)")
    assert stat.S_IMODE(kept.stat().st_mode) == 0o640


def test_two_writers_of_one_file_do_not_share_a_temporary_file(tmp_path):
    path = tmp_path / "run.json"
    with replacing(path) as first, replacing(path) as second:
        assert len(os.listdir(tmp_path)) == 2  # a temporary file each
        first.write("first\n")
        second.write("second\n")
    assert path.read_text() == "first\n"  # the outer block ends last
    assert os.listdir(tmp_path) == ["run.json"]
