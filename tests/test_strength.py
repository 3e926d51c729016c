"""Strength against GNU Go: slow, run with ``pytest --run-slow tests/test_strength.py``.

imago with its defaults at 1 s per move against GNU Go 3.8 level 10 on 9x9,
komi 7.5, 50 games with alternating colours (GNU Go's seed changes every
game so the games differ). The project's goal is at least 90% wins.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from imago import match

REPO = Path(__file__).resolve().parent.parent
GAMES = 50


@pytest.mark.slow
def test_beats_gnugo_level_10_on_9x9(gnugo_path, tmp_path, capsys):
    status = match.main([
        "--engine1", f"{sys.executable} {REPO / 'imagocli.py'} --time 1",
        "--engine2", f"{gnugo_path} --mode gtp --level 10 --chinese-rules --seed {{game}}",
        "--name1", "imago", "--name2", "gnugo",
        "--games", str(GAMES), "--size", "9", "--komi", "7.5", "--time", "1",
        "--sgf-dir", str(tmp_path)])
    out = capsys.readouterr().out
    print(out)
    assert status == 0
    line = re.search(r"^imago: .*$", out, re.M).group(0)
    wins = int(re.search(r"^imago: (\d+) wins", line).group(1))
    losses = line.partition("losses by")[2]  # empty when imago lost no game
    for failure in ("time", "illegal", "crash"):
        assert f"{failure} " not in losses, line
    assert wins >= 0.9 * GAMES
