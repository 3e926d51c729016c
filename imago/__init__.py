"""imago: a Go engine in Python.

Packages, one per concern:

- :mod:`imago.game` -- rules (board, game tree, scoring, coordinates);
- :mod:`imago.sgf` -- SGF reading and writing;
- :mod:`imago.engine` -- the GTP engine and its decision algorithms;
- :mod:`imago.nn` -- neural networks (TensorFlow is imported lazily there only);
- :mod:`imago.training` -- data sets and training loops.
"""

__version__ = "0.1.0"
