"""``imago COMMAND ...`` (and ``python -m imago``): one executable for the
tools that are not a GTP engine by themselves.

- ``imago play``: a game in the terminal, as ``go.py`` (:mod:`imago.terminal_cli`);
- ``imago gtp``: the GTP engine, as ``imagocli``;
- ``imago analysis``: KataGo's JSON analysis engine (:mod:`imago.analysis`);
- ``imago review GAME.sgf``: a whole-game review (:mod:`imago.review`);
- ``imago train``: training and self-play, as ``train.py`` (:mod:`imago.training.cli`);
- ``imago match``: two GTP engines against each other (:mod:`imago.match`);
- ``imago models``: the shipped networks (:mod:`imago.models_cli`).

So an installed imago does all that a checkout's scripts do. Each command's
module is imported only when it is chosen, and is told the name it was
called by (``imago play``) where its ``main`` takes a ``prog``.
"""

from __future__ import annotations

import inspect
import os
import sys
from importlib import import_module
from typing import Optional, Sequence

COMMANDS = {
    "play": ("imago.terminal_cli", "play a game in the terminal (the same as go.py)"),
    "gtp": ("imago.gtp.cli", "the GTP engine (the same as imagocli)"),
    "analysis": ("imago.analysis.cli", "KataGo-compatible JSON analysis engine on stdin/stdout"),
    "review": ("imago.review.cli", "review a game: annotated SGF, plot, HTML summary"),
    "train": ("imago.training.cli", "train networks, self-play, the loop (the same as train.py)"),
    "match": ("imago.match.cli", "two GTP engines against each other, refereed and recorded"),
    "models": ("imago.models_cli", "the shipped networks, and which plays each board size"),
}


def usage() -> str:
    lines = ["usage: imago COMMAND [options]  (imago COMMAND --help for each; imago --version)",
             "",
             "commands:"]
    lines += [f"  {name:<9} {summary}" for name, (_, summary) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0 if args else 2
    if args[0] == "--version":
        from imago import __version__

        print(f"imago {__version__}")
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"imago: unknown command {name[:40]!r}\n{usage()}", file=sys.stderr)
        return 2
    module = import_module(COMMANDS[name][0])
    try:
        if "prog" in inspect.signature(module.main).parameters:
            return int(module.main(rest, prog=f"imago {name}") or 0)
        return int(module.main(rest) or 0)
    except BrokenPipeError:  # the reader went away (imago models | head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
