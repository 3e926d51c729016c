#!/usr/bin/env python3
"""imago's GTP engine: ``python imagocli.py [--algorithm NAME] ...``.

Give GoGui or Sabaki this command line (``--help`` lists the options). All
the work is in :mod:`imago.gtp.cli`; this file only makes the package
importable when run from a checkout.
"""

import os
import sys
from typing import Optional, Sequence


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Run the GTP engine (also the ``imagocli`` console script)."""
    from imago.gtp.cli import main as cli_main
    return cli_main(argv)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    sys.exit(main())
