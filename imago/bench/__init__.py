"""Benchmarks: ``python -m imago.bench [board|sgf|nn|mcts ...]``.

Each topic is a module of this package with a ``main(argv)`` function that
prints its figures (medians of several runs, and ratios measured in the same
run). With no topic, ``board`` runs.
"""

TOPICS = ("board", "sgf", "nn", "mcts")


def peak_rss_mb() -> float:
    """This process's peak resident memory in MB: ``VmHWM`` where Linux
    has it (``ru_maxrss`` of a forked child also counts the parent it was
    forked from), else ``ru_maxrss``."""
    import resource

    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def random_positions(count: int, size: int = 9, min_moves: int = 10, max_moves: int = 40) -> list:
    """Game-tree nodes of random games, each ``min_moves``..``max_moves``
    moves in (inclusive), the same ones on every run: the positions the
    network and search benchmarks evaluate."""
    import random

    from imago.game import BLACK, GameState

    rng = random.Random(7)
    nodes = []
    while len(nodes) < count:
        game = GameState(size)
        color = BLACK
        for _ in range(rng.randint(min_moves, max_moves)):
            game.play(color, game.board.random_move(color, rng))
            color = 3 - color
        nodes.append(game.current)
    return nodes
