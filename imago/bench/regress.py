"""GTP regression suites: the move tests of a folder of ``.tst`` files on one board size.

GNU Go's regression suites (its source tree's ``regression/`` folder, not part
of imago) are files of GTP commands: ``loadsgf``, ``play`` and the like set a
position up, a numbered ``reg_genmove COLOR`` asks for a move, and the
``#? [A1|B2]`` line after it says which answers pass (``[!PASS]``: anything
but those; a trailing ``*`` marks a test GNU Go itself is expected to fail).
This plays every numbered ``reg_genmove`` and ``gg_genmove`` test whose
position is on ``--size`` (default 9) through imago's own GTP command table,
a fresh engine for each file, its search started afresh for each test from a
seed of the test's own (from ``--seed``, 1 by default: the same answers on
every run, a file counts the same alone as in its folder, and a change that
alters one answer does not reshuffle the random draws of the tests after
it), and prints
each file's count, the total, and the tests a pass was expected in
(GNU Go's "the right move is to pass"). Commands it does not ask imago
(other numbered tests, GNU Go's own commands) are skipped.

    python -m imago.bench regress --dir gnugo/regression [--size 9] [--seed 1] [--quick]
    python -m imago.bench regress --dir gnugo/regression --model models/multi.keras
    python -m imago.bench regress --dir gnugo/regression --options=score_utility=0.5
    python -m imago.bench regress --dir gnugo/regression --engine "gnugo --mode gtp"

``--engine COMMAND`` asks another GTP engine the same tests (imago then only
replays the setup beside it, to know each position's size), so that its count
stands beside imago's. An engine that refuses a ``loadsgf`` imago accepted is
given imago's position with KataGo's ``set_position``; one without
``reg_genmove`` is asked ``genmove`` and then ``undo``.

``--options=score_utility=0.5,lcb_z=0`` sets options of imago's search
(those of ``imagocli.py -o KEY=VALUE``, comma-separated) on every fresh
engine, to measure a setting before making it a default.

``--suites seki,endgame`` plays only those files of the folder (a file
counts the same alone, above). ``--rules japanese`` sets those rules
(KataGo's names, through ``kata-set-rules``) on each fresh engine: GNU Go's
suites are written for Japanese rules (``RU[Japanese]``). Without it every
engine that takes ``kata-set-rules`` (imago, KataGo) is given imago's own,
so that the two counts stand on the same rules. ``--quick`` plays
the first 20 tests only.
Each answer is logged as it comes (``file:number answer expected ok``), so
a long run shows its progress.
``--compare FILE`` reads such a log of an earlier run (its standard output)
and ends with the tests whose verdict changed since, both ways, and the net:
a change's tests, not only its total (which a seed alone moves by about 10).
"""

from __future__ import annotations

import re
import sys
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence

from imago.bench import option
from imago.engine.engine import GameEngine
from imago.game.constants import BLACK
from imago.game.coords import format_vertex
from imago.game.rulesets import IMAGO_RULES_WORD, parse_rules

MOVE_TESTS = ("reg_genmove", "gg_genmove")
"""Numbered commands asking for a move without playing it."""

SETUP = frozenset({"loadsgf", "play", "undo", "komi", "boardsize", "clear_board",
                   "fixed_handicap", "set_free_handicap"})
"""Unnumbered commands replayed to set positions up."""

NEW_POSITION = ("loadsgf", "boardsize")
"""Setup commands that replace the position (after a refused one, the tests
wait for one of these to succeed)."""

_NUMBERED = re.compile(r"(\d+)\s+(\S+)\s*(.*)")


@dataclass
class Step:
    """One command of a suite: setup (``number`` None) or a move test."""

    line: int
    command: str
    args: list[str]
    number: Optional[int] = None
    expected: Optional[str] = None


@dataclass
class Outcome:
    """One move test's answer."""

    suite: str
    number: int
    answer: str
    expected: str
    passed: bool
    seconds: float


@dataclass
class Tally:
    """Passed and played tests, per suite file in the order played."""

    per_suite: dict = field(default_factory=dict)
    outcomes: list = field(default_factory=list)

    def add(self, outcome: Outcome) -> None:
        passed, played = self.per_suite.get(outcome.suite, (0, 0))
        self.per_suite[outcome.suite] = (passed + outcome.passed, played + 1)
        self.outcomes.append(outcome)

    @property
    def passed(self) -> int:
        return sum(o.passed for o in self.outcomes)


def answer_matches(answer: str, expected: str) -> bool:
    """Whether a move ``answer`` (a vertex, ``pass`` or ``resign``) passes
    the expectation ``[A1|B2]``, ``[!A1|B2]`` (none of them) or either with
    GNU Go's trailing ``*``; raises ValueError for another form."""
    text = expected.strip().rstrip("*").strip()
    if not (text.startswith("[") and text.endswith("]")):
        raise ValueError(f"not a move expectation: {expected!r}")
    text = text[1:-1].strip()
    negated = text.startswith("!")
    choices = {choice.strip().upper() for choice in text.lstrip("!").split("|")}
    return (answer.strip().upper() in choices) != negated


def read_suite(path: Path) -> Iterator[Step]:
    """The setup commands and move tests of one ``.tst`` file, each move
    test with the expectation on the ``#?`` line after it (one without, or
    with one that names no moves, is left out with a line on stderr); an
    unreadable file yields nothing."""
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError as error:
        print(f"{path}: cannot read: {error.strerror or error}", file=sys.stderr)
        return
    pending: Optional[Step] = None
    for number, raw in enumerate(lines, 1):
        stripped = raw.strip()
        if stripped.startswith("#?"):
            expected = stripped[2:].strip()
            if pending is not None and _readable(expected, path, number):
                pending.expected = expected
                yield pending
            pending = None
            continue
        text = stripped.split("#", 1)[0].strip()
        if not text:
            continue
        numbered = _NUMBERED.fullmatch(text)
        if numbered:
            command = numbered.group(2)
            pending = Step(number, command, numbered.group(3).split(),
                           int(numbered.group(1))) if command in MOVE_TESTS else None
            continue
        words = text.split()
        if words[0] in SETUP:
            if words[0] == "loadsgf" and len(words) > 1:
                words[1] = str(path.parent / words[1])  # suites name files from their folder
            yield Step(number, words[0], words[1:])


def _readable(expected: str, path: Path, line: int) -> bool:
    """Whether ``expected`` is a move expectation; says so on stderr if not."""
    try:
        answer_matches("pass", expected)
    except ValueError as error:
        print(f"{path.name}:{line}: test skipped: {error}", file=sys.stderr)
        return False
    return True


class Refused(Exception):
    """An engine's ``?`` answer (its text)."""


Ask = Callable[[str, Sequence[str]], str]
"""Sends one GTP command (name, arguments) to an engine and returns its answer;
raises :class:`Refused` for a ``?``."""


def external_engine(command: str) -> tuple[Ask, Callable[[], None]]:
    """Another GTP engine (``command``, e.g. ``/usr/games/gnugo --mode gtp``)
    as an :data:`Ask`, and the function that closes it."""
    from imago.match.client import GTPClient, GTPError

    client = GTPClient(command)

    def ask(name: str, args: Sequence[str]) -> str:
        try:
            return client.send(" ".join([name, *args]))
        except GTPError as error:
            raise Refused(str(error)) from None

    return ask, client.close


def run_suites(folder: Path, make_engine: Callable[[], GameEngine], size: int = 9,
               limit: Optional[int] = None,
               report: Callable[[Outcome], None] = lambda outcome: None,
               external: Optional[Ask] = None,
               names: Optional[Sequence[str]] = None, rules: Optional[str] = None,
               seed: Optional[int] = None) -> Tally:
    """Play the move tests of every ``*.tst`` in ``folder`` (sorted; only
    those named in ``names``, file names without ``.tst``, when given) whose
    position is ``size`` x ``size``; at most ``limit`` of them. The engine
    from ``make_engine`` answers them through imago's GTP commands, or, given
    ``external``, sets up each position beside that engine, which answers
    the tests. A position either refuses to set up (a missing file, a board
    size it does not play, an illegal move) skips the tests up to the next
    ``loadsgf`` or ``boardsize`` both accept. Each suite gets a fresh engine
    from ``make_engine``: its random state and caches then start the same
    whatever suites ran before, so a suite counts the same alone as in the
    folder. ``rules`` (KataGo's name, e.g. ``japanese``, as GNU Go's suites
    are written for) is set on each fresh engine with ``kata-set-rules``;
    an engine that refuses the command (GNU Go) plays its own. With
    ``seed``, imago's engine starts each move test afresh (``reseed``:
    random state, kept trees and caches) from a seed of the test's own
    (:func:`test_seed`), so that a change which alters one answer leaves
    the random draws of the tests after it as they were. Without
    ``rules`` every engine that takes ``kata-set-rules`` gets imago's own
    (:data:`~imago.game.rulesets.IMAGO_RULES_WORD`), so that the records'
    ``RU`` leave them as they are and an external imago counts as the one
    beside it does; one without the command (GNU Go) plays its own, said
    only when ``rules`` were asked for."""
    from imago.gtp.commands import execute
    from imago.gtp.table import GtpError, Session

    session: Optional[Session] = None

    def local(name: str, args: Sequence[str]) -> str:
        try:
            return execute(session, name, args)
        except GtpError as error:
            raise Refused(str(error)) from None

    engines = [local] if external is None else [local, external]
    tally = Tally()
    for path in sorted(folder.glob("*.tst")):
        if names is not None and path.stem not in names:
            continue
        broken = False
        session = Session(make_engine())
        for ask in engines:
            ask("clear_board", [])
            # imago's own rules unless others are asked for, on every engine
            # that takes them: set rules, a record's RU (mostly Japanese here)
            # does not change them, and two engines are counted alike
            try:
                ask("kata-set-rules", [rules if rules is not None else IMAGO_RULES_WORD])
            except Refused as error:
                if rules is not None:  # an engine without the command keeps its own
                    print(f"{path.name}: kata-set-rules {rules} refused: {error}",
                          file=sys.stderr)
        for step in read_suite(path):
            if limit is not None and len(tally.outcomes) >= limit:
                return tally
            if step.number is None:
                try:
                    for ask in engines:
                        if ask is external and step.command == "loadsgf":
                            _load_position(external, session.engine.state, step.args)
                        else:
                            ask(step.command, step.args)
                    broken = broken and step.command not in NEW_POSITION
                except Refused as error:
                    print(f"{path.name}:{step.line}: {step.command} refused: {error}",
                          file=sys.stderr)
                    broken = broken or step.command in NEW_POSITION + ("play",)
                continue
            if broken or session.engine.state.size != size:
                continue
            if seed is not None and external is None:
                session.engine.algorithm.reseed(test_seed(seed, path.name, step.number))
            started = time.perf_counter()
            try:
                answer = _move_test(engines[-1], step.args[:1])
            except Refused as error:
                answer = f"? {error}"
            outcome = Outcome(path.name, step.number, answer, step.expected,
                              answer_matches(answer, step.expected),
                              time.perf_counter() - started)
            tally.add(outcome)
            report(outcome)
    return tally


def test_seed(seed: int, suite: str, number: int) -> int:
    """The seed of one move test: the run's ``seed``, the suite file's name
    and the test's number, mixed (the same on every machine and run)."""
    return zlib.crc32(f"{seed}:{suite}:{number}".encode())


def _load_position(ask: Ask, state, args: Sequence[str]) -> None:
    """``loadsgf`` on another engine; where it refuses the file (KataGo takes
    no setup stones after the root), the position imago loaded, through
    KataGo's ``set_position`` (stones only: who captured what and a ko are
    not passed on)."""
    try:
        ask("loadsgf", args)
        return
    except Refused as refusal:
        size = state.size
        stones = [word for row in range(size) for col in range(size)
                  if (c := state.board[state.point(col, row)])
                  for word in ("b" if c == BLACK else "w", format_vertex((col, row), size))]
        try:
            ask("boardsize", [str(size)])
            ask("komi", [f"{state.komi:g}"])
            ask("set_position", stones)
        except Refused:
            raise refusal from None


def _move_test(ask: Ask, color: Sequence[str]) -> str:
    """``reg_genmove COLOR``, or for an engine without it (GNU Go's own
    command), ``genmove`` and ``undo``."""
    try:
        return ask("reg_genmove", color)
    except Refused:
        answer = ask("genmove", color)
        if answer.strip().lower() != "resign":
            ask("undo", [])
        return answer


_LOGGED = re.compile(r"^(\S+):(\d+) (.*) (\[[^\]]*\]\*?) (ok|FAIL) [\d.]+s$")


def read_log(path: Path) -> dict[tuple[str, int], tuple[str, bool]]:
    """``(suite, number) -> (answer, passed)`` of the answers logged in
    ``path`` (an earlier run's standard output); other lines are skipped.
    Raises OSError when the file cannot be read."""
    logged = {}
    with open(path, encoding="utf-8", errors="replace") as log:
        for line in log:
            found = _LOGGED.match(line.rstrip("\n"))
            if found:
                suite, number, answer, _, verdict = found.groups()
                logged[(suite, int(number))] = (answer, verdict == "ok")
    return logged


def changes(earlier: dict[tuple[str, int], tuple[str, bool]], tally: Tally
            ) -> tuple[list[str], list[str]]:
    """The tests of ``tally`` that ``earlier`` (:func:`read_log`) also
    answered whose verdict changed: those turned right and those turned
    wrong, each as ``suite:number OLD -> NEW``."""
    right, wrong = [], []
    for outcome in tally.outcomes:
        before = earlier.get((outcome.suite, outcome.number))
        if before is None or before[1] == outcome.passed:
            continue
        (right if outcome.passed else wrong).append(
            f"{outcome.suite.removesuffix('.tst')}:{outcome.number} {before[0]} -> "
            f"{outcome.answer}")
    return right, wrong


def pass_tests(tally: Tally) -> list[Outcome]:
    """The tests whose only right answer is to pass."""
    return [o for o in tally.outcomes if o.expected.rstrip("*").strip().upper() == "[PASS]"]


def chosen_suites(folder: Path, listed: Optional[str]) -> tuple[Optional[list[str]], str]:
    """``--suites`` (``seki,endgame``: file names, ``.tst`` optional) as the
    names :func:`run_suites` plays, and what is wrong with it ("" when
    nothing); ``(None, "")`` without the option: every suite."""
    if listed is None:
        return None, ""
    names = [name.strip().removesuffix(".tst") for name in listed.split(",") if name.strip()]
    if not names:
        return None, "no suite named"
    missing = [f"{name}.tst" for name in names if not (folder / f"{name}.tst").is_file()]
    if missing:
        return None, f"no {', '.join(missing)} in {folder}"
    return names, ""


def algorithm_options(text: Optional[str]) -> tuple[dict, Optional[str]]:
    """``--options``' ``KEY=VALUE,KEY=VALUE`` as the search's keyword
    options (values read as ``imagocli.py -o`` reads them), and what is wrong
    with the text (None when nothing)."""
    from argparse import ArgumentTypeError

    from imago.gtp.cli import parse_option

    settings: dict = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        try:
            key, value = parse_option(item.strip())
        except ArgumentTypeError as error:
            return {}, str(error)
        if key in ("model", "seed"):
            return {}, f"{key} has an option of its own here (--{key})"
        settings[key] = value
    return settings, None


def _shared_network(model: Optional[str], size: int) -> object:
    """``--model`` (else the shipped network of ``size``) as one model file
    that every suite's fresh engine shares, so that its network loads once;
    ``none`` for random playouts (asked for, or no network for ``size``)."""
    from imago.engine.mcts_algorithm import model_for_size
    from imago.nn.evaluator import model_file

    path = model_for_size(model or "default", size)
    return "none" if path is None else model_file(path)


def main(argv: list[str]) -> int:
    folder = option(argv, "dir", None)
    if folder is None:
        print("regress needs --dir FOLDER: a folder of GTP regression suites (.tst), e.g. "
              "GNU Go's source tree's regression/", file=sys.stderr)
        return 2
    folder = Path(folder)
    size, seed = int(option(argv, "size", "9")), int(option(argv, "seed", "1"))
    if not any(folder.glob("*.tst")):
        print(f"regress: no .tst files in {folder}", file=sys.stderr)
        return 2
    from imago.engine.algorithm import create_algorithm

    command, model = option(argv, "engine", None), option(argv, "model", None)
    if command and model:
        print("regress: --model chooses imago's network and --engine another engine: "
              "give one of them", file=sys.stderr)
        return 2

    names, problem = chosen_suites(folder, option(argv, "suites", None))
    if problem:
        print(f"regress: --suites: {problem}", file=sys.stderr)
        return 2
    rules = option(argv, "rules", None)
    if rules is not None:
        try:
            parse_rules(rules)
        except ValueError as error:
            print(f"regress: --rules {rules}: {error}", file=sys.stderr)
            return 2

    compare, earlier = option(argv, "compare", None), None
    if compare is not None:
        try:
            earlier = read_log(Path(compare))
        except OSError as error:
            print(f"regress: cannot read --compare {error.filename}: {error.strerror}",
                  file=sys.stderr)
            return 2
        if not earlier:
            print(f"regress: --compare {compare}: no logged answers in it (the standard "
                  "output of an earlier run)", file=sys.stderr)
            return 2
    settings, problem = algorithm_options(option(argv, "options", None))
    if problem is None and settings and command:
        problem = "they set imago's search, and --engine asks another engine"
    if problem is None and settings:
        try:  # an unknown option or a bad value is named before any suite runs
            create_algorithm("mcts", model="none", **settings)
        except (TypeError, ValueError) as error:
            problem = str(error)
    if problem:
        print(f"regress: --options: {problem}", file=sys.stderr)
        return 2
    network = None if command else _shared_network(model, size)

    def make_engine() -> GameEngine:  # with --engine, it only keeps the position
        if command:
            return GameEngine(create_algorithm("random", seed=seed), size)
        return GameEngine(create_algorithm("mcts", seed=seed, model=network, **settings), size)

    def report(outcome: Outcome) -> None:
        print(f"{outcome.suite}:{outcome.number} {outcome.answer} {outcome.expected} "
              f"{'ok' if outcome.passed else 'FAIL'} {outcome.seconds:.1f}s", flush=True)

    external, close = None, lambda: None
    if command:
        try:
            external, close = external_engine(command)
        except (OSError, ValueError) as error:
            print(f"regress: cannot start {command!r}: {error}", file=sys.stderr)
            return 2
    started = time.perf_counter()
    try:
        tally = run_suites(folder, make_engine, size, 20 if "--quick" in argv else None,
                           report, external, names, rules, seed)
    except RuntimeError as error:  # the engine died or hung
        print(f"regress: {error}", file=sys.stderr)
        return 1
    finally:
        close()
    played = len(tally.outcomes)
    seconds = time.perf_counter() - started
    who = command if command else f"imago, {Path(model).name + ', ' if model else ''}seed {seed}"
    if settings:
        who += ", " + ", ".join(f"{key}={value}" for key, value in settings.items())
    if rules is not None:
        who += f", rules {rules}"
    print(f"regress {size}x{size} ({who}): {tally.passed} of {played} move tests as "
          f"expected ({seconds:.0f} s, {seconds / max(played, 1):.2f} s a test)")
    print("  " + ", ".join(f"{name[:-4]} {passed}/{count}"
                           for name, (passed, count) in tally.per_suite.items()))
    passing = pass_tests(tally)
    print(f"  pass expected: {sum(o.passed for o in passing)} of {len(passing)}")
    if earlier is not None:
        right, wrong = changes(earlier, tally)
        print(f"  against {compare}: {len(right)} turned right, "
              f"{len(wrong)} turned wrong (net {len(right) - len(wrong):+d})")
        for label, moved in (("right", right), ("wrong", wrong)):
            if moved:
                print(f"  turned {label}: " + ", ".join(moved))
    return 0
