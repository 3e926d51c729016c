"""``python -m imago.match``: play two GTP engines against each other.

Engines alternate colours game by game; each game's moves are checked with
imago's rules, scored by a referee and saved as SGF. Before the first game
every option is checked and each engine is started once: one that cannot be
run, exits at once, answers something that is not GTP or refuses the board
size stops the match with a one-line reason (argparse's exit status 2).
A match interrupted with Ctrl-C reports the games it finished; their SGF
files are written as each game ends, after those already in ``--sgf-dir``.

Example::

    python -m imago.match --engine1 "python imagocli.py --algorithm uct" \\
        --engine2 "gnugo --mode gtp --level 1 --seed {game}" --games 10 --size 9 --time 2
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shlex
import sys
import tempfile
from typing import Optional

from imago.game.coords import MAX_SIZE
from imago.game.rulesets import IMAGO_RULES_HELP, RULES_NAMES_HELP
from imago.game.state import settings_problem
from imago.gtp.cli import rules_argument

from .client import EngineDied, GTPClient, GTPError, GTPMalformed, GTPTimeout
from .tool import Match, MatchSettings, Referee, report

PROBE_SECONDS = 60.0
"""How long an engine may take to answer ``name`` when the match starts."""


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter,
                    argparse.RawDescriptionHelpFormatter):
    """Defaults shown, except the ``None`` of options whose help says it."""

    def _get_help_string(self, action: argparse.Action) -> Optional[str]:
        if action.default is None or isinstance(action.default, bool):
            return action.help
        return super()._get_help_string(action)


def build_parser(prog: str = "python -m imago.match") -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog, formatter_class=HelpFormatter,
        description="Play two GTP engines against each other, alternating colours. Every\n"
                    "move is checked with imago's rules; an illegal move, a crash or a move\n"
                    "over the time limit loses the game. Engines are checked before the\n"
                    "first game; Ctrl-C reports the games finished.",
        epilog=f'example:\n  {prog} --engine1 "python imagocli.py --time 1" \\\n'
               '      --engine2 "gnugo --mode gtp --level 10 --seed {game}" \\\n'
               '      --games 20 --size 9 --komi 7.5 --time 1 --sgf-dir games/')
    parser.add_argument("--engine1", required=True, metavar="COMMAND",
                        help="command line of the first engine, quoted ({game} becomes the "
                             "game number, e.g. for --seed {game})")
    parser.add_argument("--engine2", required=True, metavar="COMMAND",
                        help="command line of the second engine")
    for number in (1, 2):
        parser.add_argument(f"--name{number}", metavar="NAME",
                            help=f"display name of engine {number} (default: its GTP name "
                                 "and version)")
    parser.add_argument("--games", type=int, default=2, metavar="N",
                        help="games to play; engine 1 has Black in odd-numbered games")
    parser.add_argument("--size", type=int, default=9, metavar="N",
                        help=f"board size, 2 to {MAX_SIZE}")
    parser.add_argument("--komi", type=float, default=7.5, help="komi for White")
    parser.add_argument("--time", type=float, default=None, metavar="SECONDS",
                        help="seconds per move; a move slower than 1.5 x this + 2 s loses "
                             "(default: no limit)")
    parser.add_argument("--max-moves", type=int, default=None, metavar="N",
                        help="stop and score after this many moves (default: 3 x points)")
    parser.add_argument("--sgf-dir", default=None, metavar="DIR",
                        help="save each game here as game-NNN.sgf, numbered after the games "
                             "already there (default: no SGF files)")
    parser.add_argument("--referee", choices=("auto", "gnugo", "imago"), default="auto",
                        help="who scores finished games: auto is GNU Go's final_score when "
                             "GNU Go is installed and the rules are imago's or Chinese, else "
                             "imago's count")
    parser.add_argument("--rules", type=rules_argument, default=None, metavar="NAME",
                        help="the rules games are counted by and engines that take "
                             f"kata-set-rules are told ({RULES_NAMES_HELP}; tromp-taylor is "
                             "the Computer Go Server's); moves are always checked by imago's "
                             "board (positional superko, no suicide); default: "
                             f"{IMAGO_RULES_HELP}")
    parser.add_argument("--concurrent", type=int, default=1, metavar="N",
                        help="games played at once, each with engine processes of its own "
                             "(colours and {game} seeds stay those of the game's number)")
    parser.add_argument("--keep-engines", action="store_true",
                        help="keep each engine running from game to game (clear_board "
                             "starts each) instead of starting it anew, sparing its start-up; "
                             "a command with {game} still starts anew, and an engine that "
                             "crashed or lost on time is replaced (an engine's random state "
                             "runs on across games)")
    parser.add_argument("--opening", type=opening_range, default=(0, 0), metavar="N[-M]",
                        help="start each game with N (or N to M) moves at random legal "
                             "points, drawn from the game's number, for variety between "
                             "deterministic engines; with --sgf-dir, index.tsv there lists "
                             "them so that training skips them (default: none)")
    parser.add_argument("--show-stderr", action="store_true",
                        help="let the engines' stderr through")
    return parser


def opening_range(text: str) -> tuple[int, int]:
    """``N`` or ``N-M`` (0 <= N <= M) as ``(N, M)``, for ``--opening``."""
    match = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", text)
    if not match:
        raise argparse.ArgumentTypeError(f"{text!r} is not N or N-M (moves, e.g. 1-4)")
    fewest = int(match.group(1))
    most = int(match.group(2)) if match.group(2) is not None else fewest
    if most < fewest:
        raise argparse.ArgumentTypeError(f"{text!r}: the range runs from fewer to more moves")
    return fewest, most


def option_problems(args: argparse.Namespace) -> list[str]:
    """One line for each option value that makes no sense."""
    out = []
    if args.games < 1:
        out.append(f"--games must be at least 1, not {args.games}")
    problem = settings_problem(args.size, args.komi)
    if problem is not None:
        out.append(f"--{problem}")
    if args.time is not None and not (math.isfinite(args.time) and args.time > 0):
        out.append(f"--time must be a positive number of seconds, not {args.time:g}")
    if args.concurrent < 1:
        out.append(f"--concurrent must be at least 1, not {args.concurrent}")
    if args.max_moves is not None and args.max_moves < 1:
        out.append(f"--max-moves must be at least 1, not {args.max_moves}")
    for option, command in (("--engine1", args.engine1), ("--engine2", args.engine2)):
        try:
            if not shlex.split(command):
                out.append(f"{option} is empty: give the engine's command line")
        except ValueError as err:
            out.append(f"{option}: cannot read {command!r} as a command line ({err})")
    return out


def first_free_sgf(folder: str) -> int:
    """Make ``folder`` (checked writable) and return the number after the
    highest ``game-NNN.sgf`` in it, so that earlier games are kept."""
    if os.path.exists(folder) and not os.path.isdir(folder):
        raise ValueError(f"--sgf-dir: {folder} is a file, not a folder")
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as err:
        raise ValueError(f"--sgf-dir: cannot write in {folder} ({err.strerror or err})") from None
    numbers = [int(m.group(1)) for name in os.listdir(folder)
               if (m := re.fullmatch(r"game-(\d+)\.sgf", name))]
    return max(numbers, default=0) + 1


def probe_engine(command: str, size: int, option: str,
                 timeout: float = PROBE_SECONDS) -> str:
    """Start the engine once: its ``name version`` (the program's name when
    it has no ``name`` command), after checking that it speaks GTP and takes
    ``boardsize size``. ValueError naming ``option`` and why otherwise."""
    with tempfile.TemporaryFile(mode="w+", encoding="utf-8", errors="replace") as errors:
        try:
            client = GTPClient(command, stderr=errors)
        except (OSError, ValueError) as err:
            reason = getattr(err, "strerror", None) or err
            raise ValueError(f"{option}: cannot start {command!r} ({reason})") from None

        def failed(what: str) -> ValueError:
            code = client.exit_code()
            errors.seek(0)
            said = [line for line in errors.read().splitlines() if line.strip()]
            exited = f"; it exited with code {code}" if code is not None else ""
            last = f"; its last words: {said[-1].strip()[:200]!r}" if said else ""
            return ValueError(f"{option}: {command!r} {what}{exited}{last}")

        asked = "name"
        try:
            try:
                name = client.send(asked, timeout=timeout)
            except GTPMalformed:
                raise
            except GTPError:
                name = os.path.basename(client.command[0])  # GTP without the name command
            asked = "version"
            try:
                version = client.send(asked, timeout=timeout)
            except GTPMalformed:
                raise
            except GTPError:
                version = ""
            asked = f"boardsize {size}"
            try:
                client.send(asked, timeout=timeout)
            except GTPMalformed:
                raise
            except GTPError as err:
                raise failed(f"cannot play {size}x{size} ({err or 'refused'})") from None
        except EngineDied:
            raise failed(f"stopped before answering {asked!r}") from None
        except GTPTimeout:
            raise failed(f"did not answer {asked!r} within {timeout:g} s") from None
        except GTPMalformed as err:
            raise failed(f"does not speak GTP: {err}") from None
        finally:
            client.close()
    return f"{name} {version}".strip() or os.path.basename(client.command[0])


def main(argv: Optional[list[str]] = None, prog: str = "python -m imago.match") -> int:
    """Run the match the command line asks for; the exit status."""
    parser = build_parser(prog)
    args = parser.parse_args(argv)
    problems = option_problems(args)
    if problems:
        parser.error("; ".join(problems))
    try:
        referee = Referee(args.referee, args.rules)
        first_sgf = first_free_sgf(args.sgf_dir) if args.sgf_dir else 1
        probed = [probe_engine(c.replace("{game}", "1"), args.size, option)
                  for option, c in (("--engine1", args.engine1), ("--engine2", args.engine2))]
    except ValueError as err:
        parser.error(str(err))
    names = [args.name1 or probed[0], args.name2 or probed[1]]
    if names[0] == names[1]:
        names = [names[0] + " (1)", names[1] + " (2)"]
    settings = MatchSettings((args.engine1, args.engine2), (names[0], names[1]), args.games,
                             args.size, args.komi, args.time, args.max_moves, args.sgf_dir,
                             first_sgf, args.show_stderr, args.concurrent,
                             args.keep_engines, args.opening, args.rules)
    match = Match(settings, referee)
    at_once = f", {args.concurrent} at once" if args.concurrent > 1 else ""
    print(f"match: {names[0]} vs {names[1]}, {args.games} games{at_once}, "
          f"{args.size}x{args.size}, komi {args.komi:g}, referee {referee.name}", flush=True)
    if first_sgf > 1:
        print(f"{args.sgf_dir} holds games up to game-{first_sgf - 1:03d}.sgf already: this "
              f"match's games start at game-{first_sgf:03d}.sgf, numbered on ({{game}} and "
              f"colours as if the match had not stopped)", flush=True)
    status = 0
    try:
        match.play(out=lambda line: print(line, flush=True))
    except KeyboardInterrupt:
        print(f"interrupted after {match.played} of {args.games} games", file=sys.stderr)
        status = 130
    except (OSError, ValueError) as err:
        print(f"match stopped after {match.played} of {args.games} games: {err}",
              file=sys.stderr)
        status = 1
    print(report(match.stats, match.played))
    return status


if __name__ == "__main__":
    sys.exit(main())
