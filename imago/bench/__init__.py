"""Benchmarks: ``python -m imago.bench [board|sgf|nn|mcts ...]``.

Each topic is a module of this package with a ``main(argv)`` function that
prints its figures (medians of several runs, and ratios measured in the same
run). With no topic, ``board`` runs.
"""

TOPICS = ("board", "sgf", "nn", "mcts")
