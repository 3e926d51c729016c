"""imago: a Go engine in Python.

Packages, in layers (each imports only those on the lines above it, and
:mod:`imago.fileio`, which writes files whole for all of them):

- :mod:`imago.game` -- rules: the board, the game tree, scoring and the count;
- :mod:`imago.sgf` -- SGF reading and writing;
- :mod:`imago.nn` -- features, networks and the batching evaluator (the only
  package that imports TensorFlow or Keras, lazily);
- :mod:`imago.search` -- the PUCT tree search, its pool of searches sharing
  network calls, local reading and the small boards' exact solver;
- :mod:`imago.engine` -- the game engine, its decision algorithms, passing,
  resigning and the clock;
- :mod:`imago.gtp`, :mod:`imago.analysis` (KataGo's JSON analysis protocol),
  :mod:`imago.review`, :mod:`imago.match` and the terminal front end
  (:mod:`imago.terminal`) -- what people and programs talk to (the review
  builds on the analysis, the match and the terminal on GTP's commands);
- :mod:`imago.training` -- data sets, training, self-play and the loop;
- :mod:`imago.bench` -- benchmarks.
"""

__version__ = "0.1.0"
"""The release (pyproject.toml reads it from here)."""
