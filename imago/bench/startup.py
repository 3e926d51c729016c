"""Start-up benchmark: how soon a controller hears from ``imagocli``.

GoGui, Sabaki and KaTrain send ``name``, ``version`` and ``protocol_version``
first and give up on engines that stay silent. imagocli answers them before
TensorFlow is imported and loads the network in the background. This prints
the median seconds from starting the process to

- the answer to ``name`` (what a controller waits for),
- the answer to the first ``genmove`` on 9x9 (network loaded and searched),
- and, for scale, a bare ``import tensorflow``;

and the ratio of the first to the last.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def seconds_to_answers(commands: list[str], extra: list[str]) -> list[float]:
    """Seconds from spawning imagocli until each of ``commands`` is answered."""
    started = time.perf_counter()
    process = subprocess.Popen([sys.executable, str(ROOT / "imagocli.py"), *extra],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True, cwd=ROOT)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write("".join(f"{command}\n" for command in commands))
    process.stdin.flush()
    times = []
    while len(times) < len(commands):
        line = process.stdout.readline()
        if not line:
            raise RuntimeError("imagocli ended before answering")
        if line[:1] in "=?":
            times.append(time.perf_counter() - started)
    process.stdin.close()
    process.wait()
    return times


def import_seconds(module: str) -> float:
    """Seconds a fresh interpreter takes to import ``module``."""
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", f"import {module}"], check=True,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main(argv: list[str]) -> int:
    runs = 2 if "--quick" in argv else 5
    name, genmove, tensorflow = [], [], []
    for _ in range(runs):
        first, *_, last = seconds_to_answers(
            ["name", "boardsize 9", "clear_board", "genmove b"], ["--visits", "50"])
        name.append(first)
        genmove.append(last)
        tensorflow.append(import_seconds("tensorflow"))
    print(f"startup ({runs} runs, medians): first answer (name) "
          f"{statistics.median(name):.2f} s; first genmove on 9x9 (50 visits) "
          f"{statistics.median(genmove):.2f} s; import tensorflow alone "
          f"{statistics.median(tensorflow):.2f} s; name / import ratio "
          f"{statistics.median(name) / statistics.median(tensorflow):.2f}")
    return 0
