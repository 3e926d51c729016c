"""Shared pytest set-up: the ``slow`` marker and paths to shared data."""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from imago.game import GameState

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
DATA = SHARED / "data"

# Networks infer in float32 unless a test asks otherwise, so results are the
# same on machines with and without native bfloat16 (imago.nn.precision);
# ``IMAGO_PRECISION=bfloat16 pytest`` runs the suite the other way.
os.environ.setdefault("IMAGO_PRECISION", "float32")


def from_rows(rows: list[str], komi: float = 0.5) -> GameState:
    """A game whose root holds the stones drawn in ``rows`` (``X`` Black,
    ``O`` White, top row first)."""
    game = GameState(len(rows), komi)
    black, white = [], []
    for r, line in enumerate(rows):
        for c, ch in enumerate(line.split()):
            if ch != ".":
                (black if ch == "X" else white).append(game.point(c, r))
    game.root.add_setup(black=black, white=white)
    return game


def run_main(main, argv, capsys) -> tuple[int, str, str]:
    """A command line's ``main(argv)`` in-process: its exit status (argparse's
    SystemExit included), stdout and stderr."""
    try:
        status = main(argv)
    except SystemExit as exit_:
        status = exit_.code
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def find_gnugo():
    """The GNU Go binary, if installed."""
    return shutil.which("gnugo") or ("/usr/games/gnugo" if os.path.exists("/usr/games/gnugo") else None)


def install_gnugo():
    """Try ``apt-get install gnugo`` once (as root, with apt); the binary or None."""
    if find_gnugo() or os.environ.get("IMAGO_NO_INSTALL"):
        return find_gnugo()
    if not shutil.which("apt-get") or os.geteuid() != 0:
        return None
    # The suite's parallel workers take turns: apt refuses a second install
    # while one holds its lock, and the second would skip its GNU Go tests.
    with open(Path(tempfile.gettempdir()) / "imago-tests-gnugo.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if find_gnugo():
            return find_gnugo()
        try:
            subprocess.run("apt-get update -qq && apt-get install -y -qq gnugo", shell=True,
                           capture_output=True, timeout=600, check=False)
        except (OSError, subprocess.SubprocessError):
            return None
    return find_gnugo()


_gnugo_cache: list = []


def pytest_addoption(parser):
    parser.addoption("--run-slow", action="store_true", default=False,
                     help="also run tests marked slow (strength and training checks)")


def pytest_xdist_auto_num_workers(config):
    """No parallel workers with ``--run-slow``: its strength checks time
    their moves and must have the machine to themselves. None leaves the
    count to pytest-xdist (one worker a core, at most four: pyproject.toml)."""
    return 0 if config.getoption("--run-slow") else None


def pytest_collection_modifyitems(config, items):
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def gnugo_path():
    """Path of the GNU Go binary (installed with apt-get when missing and we
    are root), or skip with the reason."""
    if not _gnugo_cache:
        _gnugo_cache.append(install_gnugo())
    if _gnugo_cache[0] is None:
        pytest.skip("GNU Go is not installed and could not be installed "
                    "(run as root with apt-get, or: apt-get install gnugo)")
    return _gnugo_cache[0]


@pytest.fixture
def shared_data():
    """The ../shared/data folder, or skip when the checkout has none beside it."""
    if not DATA.is_dir():
        pytest.skip(f"shared data not found at {DATA}")
    return DATA


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """A tiny fully convolutional residual network (1 block of 8 filters,
    the extended planes, seeded weights), saved; skips without TensorFlow."""
    pytest.importorskip("tensorflow")
    from imago.nn.fitting import set_random_seed
    from imago.nn.networks import create_network

    set_random_seed(3)
    net = create_network("residual", 9, "extended", blocks=1, filters=8)
    return net.save(tmp_path_factory.mktemp("model") / "tiny.keras")
