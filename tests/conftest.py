"""Shared pytest set-up: the ``slow`` marker and paths to shared data."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"
DATA = SHARED / "data"
GNUGO = shutil.which("gnugo") or ("/usr/games/gnugo" if os.path.exists("/usr/games/gnugo") else None)


def pytest_addoption(parser):
    parser.addoption("--run-slow", action="store_true", default=False,
                     help="also run tests marked slow (strength and training checks)")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def gnugo_path():
    """Path of the GNU Go binary, or skip with the reason."""
    if GNUGO is None:
        pytest.skip("GNU Go is not installed (apt-get install gnugo; .ci/run installs it)")
    return GNUGO


@pytest.fixture
def shared_data():
    """The ../shared/data folder, or skip when the checkout has none beside it."""
    if not DATA.is_dir():
        pytest.skip(f"shared data not found at {DATA}")
    return DATA
