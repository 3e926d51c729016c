"""Neural networks: input features, Keras networks, the ``policy`` algorithm.

TensorFlow/Keras is imported only inside :mod:`imago.nn.networks` (and only
when a network is built, loaded or run), so ``import imago.nn.features`` and
the GTP engine start without it.
"""

import os as _os

# TensorFlow's C++ start-up notes would land on stderr among the GTP logs
_os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

