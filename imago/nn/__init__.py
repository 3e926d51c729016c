"""Neural networks: input features, Keras networks, the ``policy`` algorithm.

TensorFlow/Keras is imported only inside :mod:`imago.nn.networks` (and only
when a network is built, loaded or run), so ``import imago.nn.features`` and
the GTP engine start without it.
"""
