"""Inference precision: bfloat16 where the processor has it, float32 for
networks being trained, the choice read from ``IMAGO_PRECISION``."""

from __future__ import annotations

import logging

import numpy as np
import pytest

from imago.nn.precision import choose_precision, cpu_flags

BF16 = frozenset({"fma", "avx512f", "avx512_bf16"})
PLAIN = frozenset({"fma", "avx2"})


@pytest.mark.parametrize("setting, backend, flags, gpu, expected", [
    (None, "tensorflow", BF16, False, "bfloat16"),
    ("auto", "tensorflow", frozenset({"amx_bf16"}), False, "bfloat16"),
    (None, "tensorflow", PLAIN, False, "float32"),
    (None, "tensorflow", BF16, True, "float32"),
    (None, "jax", BF16, False, "float32"),
    ("float32", "tensorflow", BF16, False, "float32"),
    ("bfloat16", "jax", PLAIN, False, "bfloat16"),
    (" BFloat16 ", "tensorflow", PLAIN, False, "bfloat16"),
])
def test_the_precision_follows_the_setting_and_the_machine(setting, backend, flags, gpu,
                                                           expected):
    assert choose_precision(setting, backend, flags, gpu) == expected


def test_an_unknown_setting_is_named_and_auto_used(caplog):
    with caplog.at_level(logging.WARNING, logger="imago.nn.precision"):
        assert choose_precision("half", "tensorflow", PLAIN, False) == "float32"
    assert "IMAGO_PRECISION='half'" in caplog.text and "auto, float32, bfloat16" in caplog.text


def test_cpu_flags_are_read_from_cpuinfo(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: AMD EPYC\nflags\t\t: fpu avx2 avx512_bf16\n")
    assert cpu_flags(info) == {"fpu", "avx2", "avx512_bf16"}
    assert cpu_flags(tmp_path / "missing") == frozenset()


@pytest.fixture
def residual():
    pytest.importorskip("tensorflow")
    from imago.nn.networks import create_network

    return create_network("residual", 9, "history", blocks=2, filters=16, score=True)


def planes(n: int, size: int = 9) -> np.ndarray:
    return (np.random.default_rng(1).random((n, size, size, 18)) > 0.6).astype(np.float32)


def test_the_environment_chooses_unless_the_network_is_told(residual, monkeypatch):
    monkeypatch.setenv("IMAGO_PRECISION", "bfloat16")
    assert residual.precision == "bfloat16"
    monkeypatch.setenv("IMAGO_PRECISION", "float32")
    assert residual.precision == "float32"
    residual.wanted_precision = "bfloat16"
    assert residual.precision == "bfloat16"


def test_bfloat16_inference_agrees_with_float32(residual):
    x = planes(8)
    residual.wanted_precision = "float32"
    exact = residual.evaluate(x)
    residual.wanted_precision = "bfloat16"
    fast = residual.evaluate(x)
    for head in exact:
        assert fast[head].dtype == np.float32 and fast[head].shape == exact[head].shape
    assert np.allclose(fast["policy"].sum(axis=1), 1.0, atol=1e-5)  # softmax in float32
    assert np.abs(fast["policy"] - exact["policy"]).max() < 0.02
    assert np.abs(fast["value"] - exact["value"]).max() < 0.05
    assert np.abs(fast["ownership"] - exact["ownership"]).max() < 0.05


def test_a_network_compiled_for_training_infers_with_its_live_weights(residual, monkeypatch):
    """A bfloat16 twin holds a copy of the weights: once the network trains,
    answers must come from the weights being trained."""
    monkeypatch.setenv("IMAGO_PRECISION", "bfloat16")
    x = planes(4)
    residual.evaluate(x)
    residual.compile()
    assert residual.precision == "float32"
    weights = residual.model.get_weights()
    before = residual.evaluate(x)
    residual.model.set_weights([np.zeros_like(w) if w.ndim > 1 else w for w in weights])
    after = residual.evaluate(x)
    assert not np.allclose(before["policy"], after["policy"])
    assert np.allclose(after["policy"], 1.0 / 82, atol=1e-6)  # zero kernels: uniform


def test_a_model_saved_after_bfloat16_inference_is_unchanged(residual, monkeypatch, tmp_path):
    """The twin is for inference only: the saved model is the float32 one."""
    from imago.nn.networks import NeuralNetwork

    monkeypatch.setenv("IMAGO_PRECISION", "bfloat16")
    residual.evaluate(planes(2))
    path = residual.save(tmp_path / "net.keras")
    loaded = NeuralNetwork.load(path)
    assert all(layer.dtype_policy.name == "float32" for layer in loaded.model.layers)
    monkeypatch.setenv("IMAGO_PRECISION", "float32")
    assert np.allclose(loaded.evaluate(planes(3))["value"],
                       residual.model(planes(3), training=False)["value"].numpy().reshape(-1),
                       atol=1e-5)


def test_the_inference_copy_folds_normalisation_and_answers_as_the_model(residual):
    """Trained-looking statistics (not the initial 0 and 1), folded into the
    convolutions: the float32 copy answers as the model does."""
    rng = np.random.default_rng(4)
    for layer in residual.model.layers:
        if type(layer).__name__ == "BatchNormalization":
            n = layer.gamma.shape[0]
            layer.set_weights([rng.uniform(0.5, 1.5, n), rng.normal(0, 0.3, n),
                               rng.normal(0, 0.5, n), rng.uniform(0.5, 2.0, n)])
    residual.weights_changed()
    copy = residual.inference_copy("float32")
    count = lambda model, kind: sum(type(x).__name__ == kind for x in model.layers)  # noqa: E731
    assert count(copy, "BatchNormalization") == 0
    assert count(copy, "Conv2D") == count(residual.model, "Conv2D")
    from imago.nn.networks import SCORE_SCALE

    x = planes(6, 13)
    residual.wanted_precision = "float32"
    fast = residual.evaluate(x)
    exact = {k: np.asarray(v) for k, v in residual.model(x, training=False).items()}
    for head in fast:
        unit = SCORE_SCALE if head == "score" else 1  # evaluate gives the score in points
        assert np.allclose(fast[head].reshape(exact[head].shape) / unit, exact[head],
                           atol=2e-5), head


def test_the_live_model_and_its_float32_copy_are_compiled_apart(residual):
    """Both answer in float32; switching between them (as ``bench nn`` does
    to time the model as trained against its copy) must not reuse the
    other's compiled function."""
    residual.wanted_precision = "float32"
    x = planes(3)
    copy_answer = residual.evaluate(x)["policy"]
    residual.model.set_weights([np.zeros_like(w) if w.ndim > 1 else w
                                for w in residual.model.get_weights()])
    with residual.answering_with(live=True):
        assert np.allclose(residual.evaluate(x)["policy"], 1.0 / 82, atol=1e-6)
    assert not residual.for_training and residual.wanted_precision == "float32"
    assert np.allclose(residual.evaluate(x)["policy"], copy_answer)
