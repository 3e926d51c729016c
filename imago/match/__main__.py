"""``python -m imago.match``: see :mod:`imago.match.tool`."""

import sys

from .tool import main

sys.exit(main())
