"""The precision networks infer in: bfloat16 where the processor has it.

A processor with AVX-512 BF16 or AMX (recent AMD EPYC and Intel Xeon) runs
the residual networks' convolutions in bfloat16 about 1.5x as fast as in
float32 through TensorFlow's oneDNN kernels (on top of the folded batch
normalisation of :meth:`imago.nn.networks.NeuralNetwork.inference_copy`),
with the same move-prediction and ownership accuracy on held-out games;
without those instructions bfloat16 is converted in software, which gains
nothing. ``IMAGO_PRECISION`` chooses:

- ``auto`` (the default): bfloat16 on the TensorFlow back end when the
  processor has native bfloat16 and no GPU is in use, float32 otherwise;
- ``float32`` or ``bfloat16``: that, whatever the machine.

Training always computes in float32; only inference is affected.
"""

from __future__ import annotations

import functools
import logging
import os
from pathlib import Path

ENVIRONMENT = "IMAGO_PRECISION"
CHOICES = ("auto", "float32", "bfloat16")
BF16_FLAGS = frozenset({"avx512_bf16", "amx_bf16"})
"""``/proc/cpuinfo`` flags of processors that compute bfloat16 natively."""

log = logging.getLogger(__name__)


def cpu_flags(cpuinfo: Path = Path("/proc/cpuinfo")) -> frozenset[str]:
    """The processor's feature flags (Linux); empty where they cannot be read."""
    try:
        with open(cpuinfo, encoding="ascii", errors="replace") as file:
            for line in file:
                if line.startswith("flags"):
                    return frozenset(line.partition(":")[2].split())
    except OSError:
        pass
    return frozenset()


def native_bfloat16(flags: frozenset[str]) -> bool:
    return bool(flags & BF16_FLAGS)


def choose_precision(setting: str | None, backend: str, flags: frozenset[str],
                     gpu: bool) -> str:
    """``float32`` or ``bfloat16`` for an ``IMAGO_PRECISION`` value (None:
    unset). A value that is not one of :data:`CHOICES` is reported in the
    log and treated as ``auto``."""
    value = (setting or "auto").strip().lower()
    if value not in CHOICES:
        log.warning("%s=%r is not one of %s: using auto", ENVIRONMENT, setting,
                    ", ".join(CHOICES))
        value = "auto"
    if value != "auto":
        return value
    if backend == "tensorflow" and native_bfloat16(flags) and not gpu:
        return "bfloat16"
    return "float32"


def _gpu_in_use(backend: str) -> bool:
    if backend != "tensorflow":
        return False
    import tensorflow as tf

    return bool(tf.config.list_physical_devices("GPU"))


@functools.lru_cache(maxsize=None)
def _machine_precision(setting: str | None, backend: str) -> str:
    flags = cpu_flags()
    gpu = native_bfloat16(flags) and _gpu_in_use(backend)
    precision = choose_precision(setting, backend, flags, gpu)
    log.debug("networks infer in %s (%s=%s)", precision, ENVIRONMENT, setting or "auto")
    return precision


def inference_precision(backend: str) -> str:
    """``float32`` or ``bfloat16``: what this process's networks infer in."""
    return _machine_precision(os.environ.get(ENVIRONMENT), backend)


__all__ = ["ENVIRONMENT", "CHOICES", "cpu_flags", "choose_precision", "inference_precision",
           "native_bfloat16"]
