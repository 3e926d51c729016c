"""Progress of long runs (self-play, training, matches, recount): a bar on
a terminal, a line a minute in a log file, nothing when turned off."""

from __future__ import annotations

from imago.training import selfplay_run
from imago.training.selfplay_run import progress_bar


def test_in_a_log_file_progress_is_a_line_a_minute_and_one_at_the_end(capsys, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(selfplay_run.time, "monotonic", lambda: clock[0])
    bar = progress_bar(800, 512, True, "self-play", "game")  # captured stderr: no terminal
    assert capsys.readouterr().err == "self-play: 512 of 800 games\n"  # where it starts
    bar.set_postfix_str("250 games/h", refresh=False)
    bar.update(64)
    assert capsys.readouterr().err == ""  # within the minute
    clock[0] += 61
    bar.update(64)
    assert capsys.readouterr().err == "self-play: 640 of 800 games, 250 games/h\n"
    bar.set_postfix_str("", refresh=False)
    bar.update(160)  # complete: said at once
    assert capsys.readouterr().err == "self-play: 800 of 800 games\n"
    assert bar.n == 800
    bar.close()


def test_no_progress_means_no_output(capsys):
    bar = progress_bar(3, 0, False, "recount", "shard")
    bar.update(3)
    bar.set_postfix_str("done")
    bar.close()
    assert capsys.readouterr() == ("", "")
