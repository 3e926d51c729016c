"""Neural networks: input features, Keras networks, the evaluator tree search
calls, and the Keras side of training (:mod:`imago.nn.fitting`).

TensorFlow/Keras is imported only inside :mod:`imago.nn.networks` and
:mod:`imago.nn.fitting` (and only when a network is built, loaded, run or
trained), so ``import imago.nn.features`` and the GTP engine start without it.
"""

import os as _os

# TensorFlow's C++ start-up notes would land on stderr among the GTP logs
_os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

