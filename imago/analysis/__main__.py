"""``python -m imago.analysis``: the same as ``imago analysis``."""

import sys

from .cli import main

sys.exit(main())
