"""``imago review``: review a whole game with imago's analysis engine.

Reads one SGF game (its main line), analyses every position with one
KataGo-style query through :class:`imago.analysis.AnalysisEngine`, and
writes the game back as SGF with the engine's view at every move, a
variation at each mistake, and optionally a plot and an HTML report. A
summary goes to stdout, progress to stderr. A file that cannot be read or
written, a bad option or a failed analysis ends with one line on stderr
and exit status 1 (2 for a usage error), before any analysis where it can.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from typing import Any, Callable, Optional

from imago.sgf.files import file_problem, open_regular_file

from imago.game.rulesets import IMAGO_RULES_HELP, RULES_NAMES_HELP, rules_text_value

from .game import (Analyze, Response, ReviewError, Thresholds, load_record, record_rules,
                   review_game)
from .report import html_report, summary_text
from .sgfout import write_review_sgf

DEFAULT_VISITS = 100

EXAMPLES = """\
examples:
  imago review game.sgf                      # writes game-review.sgf, prints a summary
  imago review game.sgf -o reviewed.sgf --visits 400
  imago review game.sgf --plot game.png --report game.html
  imago review game.sgf --thresholds 1,3,6   # stricter inaccuracies

The review SGF opens in Sabaki (win rate graph from SBKV), GoGui or any SGF
editor: every move has a comment with Black's win rate, the score lead, the
engine's best move and line, the points lost and the grade; mistakes and
blunders are marked BM and get the engine's line as a variation, inaccuracies
are marked DO. Grades go by points lost against the engine's best move
(KaTrain's class boundaries by default): a move's loss is the score lead
of the engine's best move minus the lead after the move played, from the
mover's side. Accuracy is the share of a player's moves that lose less
than the inaccuracy threshold.

Only the main line is reviewed. Setup stones after the start (AB/AW/AE in a
later node) start the review afresh from that position; the moves before
them are not analysed (the summary says so). Positions are analysed under
imago's rules (area scoring, positional superko, the record's komi) unless
--rules names others: KataGo's names or JSON object (japanese counts by
territory, so a stone played inside one's own territory loses a point), or
`record` for the rules the record's RU names.
"""


RECORD_RULES = "record"
"""``--rules record``: the rules the record's ``RU`` names (imago's without one)."""


def _thresholds(text: str) -> Thresholds:
    try:
        return Thresholds.parse(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, not {text!r}")
    return value


def _komi(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or abs(value) > 150:
        raise argparse.ArgumentTypeError(f"expected a number from -150 to 150, not {text!r}")
    return value


def _rules(text: str) -> Any:
    """``--rules``: ``record``, a KataGo rules name, or its JSON object (the
    analysis query's ``rules`` as given, checked here)."""
    if text.strip().lower() == RECORD_RULES:
        return RECORD_RULES
    try:
        return rules_text_value(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def build_parser(prog: str = "imago review") -> argparse.ArgumentParser:
    """The command line's options."""
    parser = argparse.ArgumentParser(
        prog=prog, formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EXAMPLES,
        description="Review a game: analyse every position of an SGF game's main line with "
                    "imago and\nwrite it back annotated, with a summary of each player's "
                    "accuracy and mistakes.")
    parser.add_argument("game", metavar="GAME.sgf", help="the game to review (its main line; "
                        "the first game of a collection unless --game says)")
    parser.add_argument("-o", "--output", metavar="OUT.sgf",
                        help="the annotated game (default: GAME-review.sgf beside the input)")
    parser.add_argument("--visits", type=_positive, default=DEFAULT_VISITS, metavar="N",
                        help=f"search visits a position (default {DEFAULT_VISITS}); more is "
                             "slower and surer")
    parser.add_argument("--plot", metavar="OUT.png",
                        help="also draw Black's win rate and score lead by move, mistakes "
                             "marked (needs matplotlib: pip install 'imago[review]')")
    parser.add_argument("--report", metavar="OUT.html",
                        help="also write a self-contained HTML report (with the plot when "
                             "matplotlib is installed)")
    parser.add_argument("--model", metavar="PATH", default="default",
                        help="network for the analysis: a .keras file, 'default' (the shipped "
                             "network) or 'none' (random playouts, fast and weak)")
    parser.add_argument("--thresholds", type=_thresholds, default=Thresholds(),
                        metavar="I,M,B",
                        help="points lost from which a move is an inaccuracy, a mistake, a "
                             "blunder (default 1.5,3,6)")
    parser.add_argument("--komi", type=_komi, metavar="K",
                        help="komi to use instead of the record's KM (without KM: 7.5, or 0.5 "
                             "with handicap)")
    parser.add_argument("--rules", type=_rules, default=None, metavar="NAME",
                        help=f"analyse under these rules ({RULES_NAMES_HELP}), or 'record' for "
                             f"the record's RU; default: {IMAGO_RULES_HELP}")
    parser.add_argument("--game", type=_positive, default=1, metavar="N", dest="game_number",
                        help="which game of a collection (default 1)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    return parser


class Progress:
    """Positions analysed so far on stderr: a tqdm bar on a terminal (one
    line rewritten in place when tqdm is missing), a line at each tenth
    elsewhere (a log)."""

    def __init__(self, total: int, enabled: bool = True, stream: Any = None):
        self.total, self.done, self.enabled = total, 0, enabled and total > 0
        self.stream = stream if stream is not None else sys.stderr
        self.bar = None
        self.shown = -1
        if not self.enabled or not getattr(self.stream, "isatty", lambda: False)():
            return
        try:
            from tqdm import tqdm
        except ImportError:
            return
        self.bar = tqdm(total=total, unit="position", desc="analysing", file=self.stream,
                        leave=False)

    def __call__(self, response: Response) -> None:
        if not self.enabled or "turnNumber" not in response or response.get("isDuringSearch"):
            return
        self.done += 1
        if self.bar is not None:
            self.bar.update(1)
            return
        tty = getattr(self.stream, "isatty", lambda: False)()
        tenth = self.done * 10 // self.total
        if tty:
            self.stream.write(f"\ranalysing: {self.done}/{self.total} positions")
        elif tenth != self.shown:
            self.shown = tenth
            self.stream.write(f"analysing: {self.done}/{self.total} positions\n")
        self.stream.flush()

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.enabled and self.done and getattr(self.stream, "isatty", lambda: False)():
            self.stream.write("\n")


def default_output(game: str) -> str:
    """``GAME-review.sgf`` beside ``GAME.sgf``."""
    root, ext = os.path.splitext(game)
    return f"{root}-review{ext if ext.lower() == '.sgf' else '.sgf'}"


def output_problem(path: str, game: str) -> Optional[str]:
    """Why ``path`` cannot be written (a missing folder, a folder, the game
    itself), checked before the analysis starts; None when it looks fine."""
    folder = os.path.dirname(path) or "."
    if os.path.isdir(path):
        return f"cannot write {path}: Is a directory"
    if not os.path.isdir(folder):
        return f"cannot write {path}: no folder {folder}"
    if os.path.exists(path) and os.path.exists(game) and os.path.samefile(path, game):
        return f"cannot write {path}: it is the game being reviewed"
    return None


def engine_analyzer(model: str) -> tuple[Analyze, Callable[[bool], None]]:
    """imago's analysis engine as an ``analyze`` callable and its closer
    (``close(wait)``: False stops searches still running). Raises
    :class:`ReviewError` when it cannot be started."""
    try:
        from imago.analysis import AnalysisEngine
    except ImportError as err:
        raise ReviewError(f"imago's analysis engine is not available: {err}") from None
    try:
        engine = AnalysisEngine(model=model)
    except (OSError, ValueError, RuntimeError) as err:
        raise ReviewError(f"cannot start the analysis engine with model {model!r}: "
                          f"{file_problem(err)}") from None
    return (lambda query, on_response: engine.analyze(query, on_response=on_response)), \
        (lambda wait: engine.close(wait=wait))


def main(argv: Optional[list[str]] = None, *, analyze: Optional[Analyze] = None,
         prog: str = "imago review") -> int:
    """Run the review command line; returns the exit status. ``analyze``
    replaces imago's engine (tests, other engines speaking KataGo's
    protocol)."""
    args = build_parser(prog).parse_args(argv)
    try:
        return _run(args, analyze)
    except ReviewError as err:
        print(f"{prog}: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130


def _no_engine(wait: bool) -> None:
    """The closer when the caller gave the ``analyze`` callable."""


def _run(args: argparse.Namespace, analyze: Optional[Analyze]) -> int:
    output = args.output or default_output(args.game)
    for path in (output, args.plot, args.report):
        problem = path and output_problem(path, args.game)
        if problem:
            raise ReviewError(problem)
    plotting = None
    if args.plot or args.report:
        from . import plot as plotting
        problem = plotting.matplotlib_problem()
        if problem:
            if args.plot:
                raise ReviewError(problem)
            plotting = None
    record = load_record(args.game, game_index=args.game_number - 1, komi=args.komi)
    rules = record_rules(record) if args.rules == RECORD_RULES else args.rules

    close: Callable[[bool], None] = _no_engine
    if analyze is None:
        analyze, close = engine_analyzer(args.model)
    progress = Progress(len(record.moves) + 1, enabled=not args.quiet)
    try:
        review = review_game(record, analyze, visits=args.visits, thresholds=args.thresholds,
                             on_response=progress, rules=rules)
    except BaseException as err:
        progress.close()
        close(False)  # Ctrl-C or a failure: stop the searches, do not finish them
        if isinstance(err, (ValueError, RuntimeError, OSError)):
            raise ReviewError(f"the analysis failed: {err}") from None
        raise
    progress.close()
    close(True)

    written = []
    try:
        write_review_sgf(review, output)
        written.append(output)
        png = None
        if plotting is not None:
            png = plotting.render_png(review)
            if args.plot:
                plotting.write_plot(review, args.plot, png)
                written.append(args.plot)
        if args.report:
            with open_regular_file(args.report, "w", encoding="utf-8") as f:
                f.write(html_report(review, png))
            written.append(args.report)
    except (OSError, ValueError) as err:
        failed = next(p for p in (output, args.plot, args.report)
                      if p and p not in written)
        raise ReviewError(f"cannot write {failed}: {file_problem(err)}") from None
    print(summary_text(review))
    print()
    for path in written:
        print(f"wrote {path}")
    return 0


__all__ = ["DEFAULT_VISITS", "Progress", "build_parser", "default_output", "engine_analyzer",
           "main", "output_problem"]
