"""Keras on JAX (the GPU machines' back end): a network compiled for
training answers with its live weights, as it does on TensorFlow.

``jax.jit`` bakes the variables a traced call reads into its program, so a
compiled inference function kept from before a training step answered with
the old weights (every checkpoint of a ``train.py stream`` run on JAX showed
the first one's validation figures). The check runs in a Python with JAX and
Keras: this one, or the one ``IMAGO_JAX_PYTHON`` names; else it is skipped."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
JAX_PYTHON = os.environ.get("IMAGO_JAX_PYTHON", sys.executable)

SCRIPT = textwrap.dedent("""
    import numpy as np
    from imago.nn.networks import create_network

    net = create_network("residual", 9, "komi", blocks=1, filters=8, score=True,
                         pooling="sized")
    x = np.random.default_rng(1).random((4, 9, 9, net.planes)).astype("float32")
    net.compile("sgd", 0.1)
    before = net.evaluate(x)["value"].copy()
    for variable in net.model.trainable_variables:
        variable.assign(variable.value * 0.5 + 0.01)
    after = net.evaluate(x)["value"]
    net.for_training = False  # as loaded for play: the inference copy
    net.weights_changed()
    copy = net.evaluate(x)["value"]
    print("live", not np.allclose(before, after), "copy", np.allclose(copy, after, atol=1e-3))
""")


def jax_env() -> dict:
    return dict(os.environ, KERAS_BACKEND="jax", PYTHONPATH=str(ROOT), JAX_PLATFORMS="cpu")


def jax_python_or_skip() -> str:
    probe = subprocess.run([JAX_PYTHON, "-c", "import jax, keras"], capture_output=True,
                           env=jax_env())
    if probe.returncode:
        pytest.skip(f"{JAX_PYTHON} has no JAX and Keras (IMAGO_JAX_PYTHON names one that has)")
    return JAX_PYTHON


def test_a_network_in_training_answers_with_its_live_weights_on_jax():
    python = jax_python_or_skip()
    done = subprocess.run([python, "-c", SCRIPT], capture_output=True, text=True, env=jax_env(),
                          cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-4:] == ["live", "True", "copy", "True"], done.stdout
