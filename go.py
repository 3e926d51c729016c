#!/usr/bin/env python3
"""Play Go in the terminal against imago, or two humans on one board:
``python go.py [options]`` (``--help`` lists them; ``imago play`` is the
same once installed). All the work is in :mod:`imago.terminal_cli`.
"""

import sys
from typing import Optional


def main(argv: Optional[list[str]] = None) -> int:
    """Play one game in the terminal; the exit code."""
    from imago.terminal_cli import main as play_main
    return play_main(argv)


if __name__ == "__main__":
    sys.exit(main())
