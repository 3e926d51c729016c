#!/usr/bin/env python3
"""Train imago's networks: on SGF records, by self-play, the AlphaGo Zero
loop, several board sizes in one network, and the tools around them
(``python train.py --help``; ``imago train`` is the same once installed).
All the work is in :mod:`imago.training.cli`.
"""

import sys


def main(argv: list[str]) -> int:
    """Run the training command ``argv``; the exit code."""
    from imago.training.cli import main as train_main
    return train_main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
