"""imago.fileio: a file written whole or not at all."""

import os
import stat

import pytest

from imago.fileio import NEW_FILE_MODE, replacing, replacing_name


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


def test_a_writer_that_wants_a_name_gets_one_with_its_suffix(tmp_path):
    path = tmp_path / "net.keras"
    path.write_bytes(b"old")
    with replacing_name(path, suffix=".keras") as name:
        assert name.endswith(".tmp.keras") and os.path.basename(name).startswith(".net.keras.")
        with open(name, "wb") as f:  # as Keras does, by name
            f.write(b"new")
        assert path.read_bytes() == b"old"
    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == NEW_FILE_MODE
    with pytest.raises(OSError):
        with replacing_name(path, suffix=".keras") as name:
            with open(name, "wb") as f:
                f.write(b"half")
            raise OSError(28, "No space left on device")
    assert path.read_bytes() == b"new"
    assert os.listdir(tmp_path) == ["net.keras"]


def test_a_network_is_saved_whole_or_not_at_all(tmp_path, monkeypatch):
    import keras

    from imago.nn.networks import create_network

    net = create_network("residual", 9, blocks=1, filters=8)
    saved = net.save(tmp_path / "net.keras")
    before = saved.read_bytes()

    def broken_save(self, path, *args, **kwargs):
        with open(path, "wb") as half:
            half.write(b"partial")
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(keras.Model, "save", broken_save)
    with pytest.raises(OSError):
        net.save(saved)
    assert saved.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["net.json", "net.keras"]
