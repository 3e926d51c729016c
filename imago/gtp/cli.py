"""``imagocli``: run imago as a GTP engine on standard input and output.

Only argument parsing and wiring live here: the algorithm comes from the
registry (:func:`~imago.engine.algorithm.create_algorithm`), the game and
clock from :class:`~imago.engine.engine.GameEngine` (built here), the
protocol from :class:`~imago.gtp.io.ImagoIO`; go.py shares the engine
options (:func:`add_engine_arguments`, :func:`engine_options`). Nothing
heavy is imported before the chosen algorithm asks for it, so the engine
starts at once.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import Optional, Sequence

import imago
from imago.engine.algorithm import (DEFAULT_ALGORITHM, DecisionAlgorithm, algorithm_names,
                                    create_algorithm, option_names, shared_options)
from imago.engine.engine import GameEngine
from imago.engine.timecontrol import TimeControl
from imago.game.coords import MAX_SIZE
from imago.game.rulesets import (IMAGO_RULES_HELP, RULES_NAMES_HELP, KataRules, parse_rules,
                                 rules_text_value)

from .io import ImagoIO

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value


def _size(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 2 <= value <= MAX_SIZE:
        raise argparse.ArgumentTypeError(f"must be 2..{MAX_SIZE}")
    return value


def rules_argument(text: str) -> KataRules:
    """argparse's type for ``--rules``: one of KataGo's rules shorthands, or
    its object of rule options as JSON (``'{"scoring": "TERRITORY"}'``),
    read by :func:`parse_rules`."""
    try:
        return parse_rules(rules_text_value(text))
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def parse_option(text: str) -> tuple[str, object]:
    """``KEY=VALUE`` with VALUE read as int, float, true/false/none or text."""
    key, sep, raw = text.partition("=")
    key = key.strip().replace("-", "_")
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, not {text!r}")
    words = {"true": True, "false": False, "none": None}
    if raw.lower() in words:
        return key, words[raw.lower()]
    for kind in (int, float):
        try:
            return key, kind(raw)
        except ValueError:
            pass
    return key, raw


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that shape the engine's algorithm, shared by imagocli.py
    and go.py: ``-o KEY=VALUE``, ``--model``, ``--seed``, ``--visits``,
    ``--no-resign``, ``--ponder``."""
    parser.add_argument("-o", "--option", type=parse_option, action="append", default=[],
                        metavar="KEY=VALUE",
                        help="an option of the algorithm, e.g. -o visits=400 (repeatable)")
    parser.add_argument("--model", default=None, metavar="NAME",
                        help="the network that guides the algorithm (mcts, policy): a .keras "
                             "file or a shipped network's name, as `imago models` lists them; "
                             "'none': random playouts (default: the shipped network of the "
                             "board size)")
    parser.add_argument("--seed", type=int, default=None,
                        help="random seed, for repeatable games")
    parser.add_argument("--visits", type=int, default=None, metavar="N",
                        help="search visits per move when there is no time limit "
                             "(mcts, uct)")
    parser.add_argument("--no-resign", action="store_true", help="never resign")
    parser.add_argument("--ponder", action="store_true",
                        help="think on the opponent's time after each move played, until "
                             "the opponent's move comes (mcts; -o ponder_visits=N caps the "
                             "tree, default 50000); off by default: it takes the processor "
                             "an opponent on the same machine thinks with")


def engine_options(args: argparse.Namespace) -> dict:
    """The algorithm's keyword options from :func:`add_engine_arguments`'
    flags (``-o`` wins over the others). Raises ValueError when the
    algorithm has no use for one of them."""
    options = shared_options(args.algorithm, args.visits, args.no_resign)
    if args.model is not None:
        if "model" not in (option_names(args.algorithm) or {"model"}):
            raise ValueError(f"the {args.algorithm} algorithm uses no network, so --model "
                             "means nothing to it")
        options["model"] = args.model
    if args.seed is not None:
        options["seed"] = args.seed
    if args.ponder:
        options["ponder"] = True
    options.update(dict(args.option))
    return options


def starting_size(algorithm: DecisionAlgorithm) -> int:
    """19, or 9 when the algorithm cannot play 19x19 (a network made for
    9x9 only): the board until the controller sends ``boardsize``."""
    try:
        algorithm.check_size(19)
    except ValueError:
        return 9
    return 19


def build_parser() -> argparse.ArgumentParser:
    """The command-line options."""
    parser = argparse.ArgumentParser(
        prog="imagocli",
        description="imago, a Go engine speaking GTP version 2 on stdin/stdout "
                    "(for GoGui, Sabaki, KGS, gomill ...).")
    parser.add_argument("--algorithm", "-a", default=DEFAULT_ALGORITHM,
                        choices=algorithm_names(),
                        help=f"how moves are chosen (default: {DEFAULT_ALGORITHM})")
    add_engine_arguments(parser)
    parser.add_argument("--size", type=_size, default=None,
                        help="board size until the controller sends boardsize (default: 19, "
                             "or 9 for a network made for 9x9 only)")
    parser.add_argument("--komi", type=float, default=7.5,
                        help="komi until the controller sends komi (default: 7.5)")
    parser.add_argument("--time", type=_positive, default=None, metavar="SECONDS",
                        help="seconds per move when the game has no clock "
                             "(default: the algorithm's own effort)")
    parser.add_argument("--rules", type=rules_argument, default=None, metavar="NAME",
                        help="the rules until the controller sends kata-set-rules or "
                             f"kgs-rules ({RULES_NAMES_HELP}; imago captures dead stones before "
                             f"passing under tromp-taylor); default: {IMAGO_RULES_HELP}")
    parser.add_argument("--log-level", choices=LOG_LEVELS, default=None,
                        help="what is logged to stderr (default: INFO)")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="log every GTP command and response (--log-level DEBUG)")
    parser.add_argument("--version", action="version", version=f"imago {imago.__version__}")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """Parse ``argv``, build the engine, serve GTP until EOF or quit."""
    args = build_parser().parse_args(argv)
    level = args.log_level or ("DEBUG" if args.verbose else "INFO")
    logging.basicConfig(level=level, stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    log = logging.getLogger("imago")

    try:
        options = engine_options(args)
    except ValueError as error:  # a flag the algorithm has no use for
        log.error("%s", error)
        return 2
    try:
        algorithm = create_algorithm(args.algorithm, **options)
    except (TypeError, ValueError) as error:
        log.error("algorithm %s refused the options %s: %s", args.algorithm, options, error)
        return 2
    size = args.size or starting_size(algorithm)
    try:
        algorithm.check_size(size)
    except ValueError as error:
        log.error("--size %d: %s", size, error)
        return 2
    engine = GameEngine(algorithm, size, args.komi, TimeControl(args.time))
    if args.rules is not None:
        warning = engine.use_rules(args.rules)
        if warning:
            log.warning("--rules: %s", warning)
    engine.start_preparing()
    log.info("imago %s ready: algorithm %s, %dx%d, komi %g, %s", imago.__version__,
             algorithm.name, size, size, args.komi, engine.time_control.describe())

    # bytes: GTP lines end at LF only, and ImagoIO decodes each line itself
    stdin = getattr(sys.stdin, "buffer", sys.stdin)
    io = ImagoIO(engine, stdin, sys.stdout)
    try:
        io.run()
    except KeyboardInterrupt:
        log.info("interrupted")
    finally:
        engine.close()
    if io.reader_blocked():
        # After `quit` the input thread still holds stdin's lock inside a read;
        # Python's shutdown would then abort on it ("could not acquire lock
        # for <stdin> at interpreter shutdown"). Everything is written: leave.
        sys.stdout.flush()
        sys.stderr.flush()
        logging.shutdown()
        os._exit(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
