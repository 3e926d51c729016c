"""``python -m imago.review``: see :mod:`imago.review.cli`."""

import sys

from .cli import main

sys.exit(main(prog="python -m imago.review"))
