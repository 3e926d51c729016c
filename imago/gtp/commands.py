"""The complete GTP command table: the registry of :mod:`.table` with every
handler group registered into it.

Importing the groups here, in this order, fixes the order ``list_commands``
answers: the core GTP version 2 commands (:mod:`.core`), then Sabaki's
analysis (:mod:`.analysis`), then KataGo's parameter commands
(:mod:`.params`, whose table GoGui's ``imago-params`` shares), then GoGui's
(:mod:`.gogui`). The groups import only :mod:`.table`, :mod:`.moves` and
:mod:`.params`, never each other otherwise or this
module, so there is no import circle; whoever runs commands (ImagoIO,
tests) imports this module.
"""

from __future__ import annotations

# each group registers its commands on import; this order is list_commands'
from . import core  # noqa: F401
from . import analysis  # noqa: F401
from . import params  # noqa: F401
from . import gogui  # noqa: F401
from .table import COMMANDS, Command, GtpError, Session, command, execute

__all__ = ["COMMANDS", "Command", "GtpError", "Session", "command", "execute"]
