"""``python -m imago.match``: see :mod:`imago.match.cli`."""

import sys

from .cli import main

sys.exit(main())
