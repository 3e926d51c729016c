"""imago.nn.backend: Keras imported without TensorFlow's start-up notices,
every other line it prints passed on."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from imago.nn.backend import quietly

ABSL = "WARNING: All log messages before absl::InitializeLog() is called are written to STDERR\n"
ONEDNN = ("I0000 00:00:1795761577.462153    7908 port.cc:153] oneDNN custom operations are on. "
          "You may see slightly different numerical results.\n")
REAL = "E0000 00:00:1.0 1 cuda_dnn.cc:8579] Unable to register cuDNN factory\n"


def noisy(fail: bool = False) -> str:
    os.write(2, (ABSL + ONEDNN + REAL).encode())  # as TensorFlow's C++ writes
    if fail:
        raise ImportError("no module named tensorflow")
    return "keras"


def test_the_notices_are_dropped_and_everything_else_passed_on(capfd):
    assert quietly(noisy) == "keras"
    _, err = capfd.readouterr()
    assert err == REAL


def test_a_failed_import_passes_everything_on(capfd):
    with pytest.raises(ImportError, match="no module named tensorflow"):
        quietly(lambda: noisy(fail=True))
    _, err = capfd.readouterr()
    assert err == ABSL + ONEDNN + REAL
    print("stderr is back", file=sys.stderr)
    assert capfd.readouterr()[1] == "stderr is back\n"


@pytest.mark.parametrize("code", [
    "import imago.nn.networks",
    # a self-play worker sets the network's threads before anything else loads it
    "from imago.nn.evaluator import set_network_threads; set_network_threads(1)",
])
def test_loading_the_networks_prints_no_start_up_notices(code):
    env = {k: v for k, v in os.environ.items() if not k.startswith("TF_")}
    done = subprocess.run([sys.executable, "-c", code], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "absl::InitializeLog" not in done.stderr and "oneDNN" not in done.stderr


def test_without_a_stderr_keras_still_loads(tmp_path):
    code = "import os; os.close(2); import imago.nn.networks; print('loaded')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and done.stdout == "loaded\n"
