"""The README's commands as a newcomer copies them: the two set-up commands
work on a stock system (a virtual environment, no bare ``pip`` or
``python``), CI runs the second, and the GUI and match examples use the
strong default engine and GNU Go's Debian path."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
README = (REPO / "README.md").read_text(encoding="utf-8")


def section(title: str) -> str:
    start = README.index(f"## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start:end]


def setup_commands() -> list[str]:
    return re.findall(r"```sh\n(.*?)\n```", section("Set-up"), re.S)


def test_there_are_two_set_up_commands_each_in_a_virtual_environment():
    play, tests = setup_commands()
    for command in (play, tests):
        steps = command.split(" && ")
        assert steps[0] == "python3 -m venv .venv"
        assert all(step.startswith(".venv/bin/") for step in steps[1:]), command
    assert play.endswith(".venv/bin/python go.py")
    assert tests.endswith(".venv/bin/python -m pytest -q")


def test_ci_runs_the_readmes_test_command():
    _, tests = setup_commands()
    ci = (REPO / ".ci" / "run").read_text()
    assert "set -euo pipefail" in ci
    assert ci.strip().splitlines()[-1] == tests


def test_gui_examples_use_the_default_engine_and_matches_name_gnugos_path():
    gui = section("Using imago from GoGui, Sabaki and other GTP controllers")
    examples = [line for line in gui.splitlines() if "imagocli.py" in line and "`" in line]
    assert examples and not any("--algorithm uct" in line for line in examples)
    for line in README.splitlines():
        if "--engine2" in line or "--engine1" in line:
            assert '"gnugo ' not in line, line
