"""The command line of terminal play: ``go.py`` in a checkout and ``imago
play`` once installed. It reads the options and starts the game, which is
:class:`imago.terminal.TerminalGame`.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional

from imago.engine.algorithm import DEFAULT_ALGORITHM, algorithm_names
from imago.gtp.cli import add_engine_arguments, engine_options, rules_argument  # as imagocli
from imago.game import BLACK, WHITE
from imago.game.rulesets import IMAGO_RULES_HELP, RULES_NAMES_HELP
from imago.terminal import COMMANDS, DEFAULT_KOMI, DEFAULT_SIZE, HANDICAP_KOMI, TerminalGame


def build_parser(prog: str = "go.py") -> argparse.ArgumentParser:
    """The command-line options of terminal play, usage lines under the
    name ``prog``."""
    commands = "\n".join(f"  {f'{c.name} {c.argument}'.strip():<10} {c.help}"
                         for c in COMMANDS.values())
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Play Go on a text board: you against imago's engine, or two "
                    "humans at one keyboard (--human-vs-human). Area scoring unless "
                    "--rules says otherwise; two passes in a row end the game.",
        epilog="In-game commands (one a line; input may be piped):\n"
               "  D4, d4     play a stone there (columns skip I)\n" + commands,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--color", choices=("black", "white"), default="black",
                        help="your colour against the engine (default: black)")
    parser.add_argument("--human-vs-human", action="store_true",
                        help="two humans take turns at the keyboard; no engine")
    parser.add_argument("--size", type=int, default=DEFAULT_SIZE,
                        help=f"board size, 2..25 (default: {DEFAULT_SIZE})")
    parser.add_argument("--komi", type=float, default=None,
                        help=f"komi (default: {DEFAULT_KOMI:g}, the rules' own with "
                             f"--rules, e.g. 6.5 for japanese; {HANDICAP_KOMI:g} "
                             "with a handicap)")
    parser.add_argument("--rules", type=rules_argument, default=None, metavar="NAME",
                        help=f"count the game by these rules ({RULES_NAMES_HELP}; imago "
                             "captures dead stones before passing under tromp-taylor); "
                             f"default: {IMAGO_RULES_HELP}; a game loaded is counted by its "
                             "record's RU")
    parser.add_argument("--handicap", type=int, default=0, metavar="N",
                        help="N fixed handicap stones for Black (2..9 on 9x9 and up); "
                             "White then moves first")
    parser.add_argument("--algorithm", default=DEFAULT_ALGORITHM, metavar="NAME",
                        help=f"the engine's decision algorithm: "
                             f"{', '.join(algorithm_names())} (default: {DEFAULT_ALGORITHM})")
    add_engine_arguments(parser)
    parser.add_argument("--time", type=float, default=None, metavar="SECONDS",
                        help="thinking time per engine move (default: the "
                             "algorithm's own)")
    parser.add_argument("--stats", action="store_true",
                        help="after each engine move, show its win rate, visits and "
                             "expected continuation (search algorithms)")
    return parser


def main(argv: Optional[list[str]] = None, prog: str = "go.py") -> int:
    """Parse the options, play one game on stdin/stdout; the exit code."""
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    if args.algorithm not in algorithm_names():
        parser.error(f"unknown algorithm {args.algorithm!r}; choose from "
                     f"{', '.join(algorithm_names())}")
    if args.time is not None and args.time <= 0:
        parser.error("--time must be positive")
    humans = (BLACK, WHITE) if args.human_vs_human else \
        ((BLACK,) if args.color == "black" else (WHITE,))
    try:
        options = engine_options(args) if not args.human_vs_human else {}
        game = TerminalGame.create(sys.stdin, sys.stdout, size=args.size, komi=args.komi,
                                   handicap=args.handicap, humans=humans,
                                   algorithm=args.algorithm,
                                   seconds=args.time, options=options, rules=args.rules)
    except ValueError as exc:
        parser.error(str(exc))
    except (OSError, ImportError) as exc:  # a model file or library the engine needs
        parser.error(f"cannot start the {args.algorithm} engine: {exc}")
    game.stats = args.stats
    if hasattr(sys.stdin, "reconfigure"):
        sys.stdin.reconfigure(errors="replace")  # a stray byte is bad input, not a crash
    try:
        return game.run()
    except KeyboardInterrupt:
        print("\nInterrupted.", flush=True)
        return 130
    except BrokenPipeError:
        # the reader went away (go.py | head): stop quietly
        sys.stdout = open(os.devnull, "w")
        return 0

