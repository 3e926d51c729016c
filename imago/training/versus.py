"""Two networks head to head at equal visits, as the self-play loop's gate
plays them, in a match that survives being cut short.

:func:`play_versus` plays the games of a match that its log does not hold
yet (:class:`~imago.match.arena` games, many at once in one process),
appending each finished game to a durable JSON-lines log and writing its
SGF, so a match that stops goes on where it was and never counts a game
twice. The loop's gate uses it, and so does ``python train.py versus A.keras
B.keras --out DIR``, which answers the question a run is for: does the
network it made beat the one it started from (and how sure is that: the
score's 95% Wilson interval)?
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

from imago.game.state import settings_problem
from imago.match.arena import ArenaSettings, play_arena
from imago.nn.modelfile import check_model_size

from .data import write_json
from .options import HelpFormatter, command_name, model_argument
from .rating import GateDecision, JsonLines, gate
from .selfplay_run import progress_bar

Log = Callable[[str], Any]
SETTINGS_FILE = "versus.json"
"""What a ``train.py versus`` folder's games were played with."""


def play_versus(models: Sequence[str], names: Sequence[str], games: int,
                settings: ArenaSettings, games_log: Path, sgf_dir: Path, seed: int = 1,
                progress: bool = False, log: Log = print, what: str = "versus") -> list[dict]:
    """Play the games ``0 .. games - 1`` of ``models[0]`` (``names[0]``;
    Black in the even games) against ``models[1]`` that ``games_log`` does
    not hold yet; returns every game logged, those of earlier runs first
    (:func:`record_of` judges them). ``what`` starts the log lines."""
    from imago.nn.evaluator import NetworkEvaluator
    from imago.sgf import save

    games_log = JsonLines(games_log)
    done = _records(games_log, names)
    missing = [n for n in range(games) if n not in {g["number"] for g in done}]
    if missing:
        log(f"{what}: {names[0]} against {names[1]}, {len(missing)} of {games} games to "
            f"play at {settings.visits} visits")
        evaluators = [NetworkEvaluator(str(model)) for model in models]
        sgf_dir.mkdir(parents=True, exist_ok=True)
        bar = progress_bar(games, games - len(missing), progress, what)
        wins = sum(g["winner"] == names[0] for g in done)
        try:
            for game in play_arena(evaluators, names, missing, settings, seed=seed):
                save(sgf_dir / f"game-{game.number:03d}.sgf", game.state)
                record = {"number": game.number, "black": game.black, "white": game.white,
                          "result": game.result, "winner": game.winner_name}
                games_log.append(record)
                done.append(record)
                wins += game.winner_name == names[0]
                bar.set_postfix_str(f"{names[0]} won {wins}", refresh=False)
                bar.update(1)
        finally:
            bar.close()
    return done


def record_of(records: Sequence[dict], name: str, threshold: float = 0.55) -> GateDecision:
    """``name``'s wins, losses and draws in the logged ``records``."""
    wins = sum(g["winner"] == name for g in records)
    draws = sum(g["winner"] is None for g in records)
    return gate(wins, len(records) - wins - draws, draws, threshold)


def colour_record(records: Sequence[dict], name: str) -> str:
    """``name``'s wins with each colour, in words: 'Black 30/50, White 27/50'."""
    parts = []
    for colour in ("black", "white"):
        played = [g for g in records if g[colour] == name]
        parts.append(f"{colour.capitalize()} {sum(g['winner'] == name for g in played)}"
                     f"/{len(played)}")
    return ", ".join(parts)


def one_colour_wins(records: Sequence[dict], share: float = 0.9) -> Optional[str]:
    """A warning when one colour won at least ``share`` of 20 or more
    games: at such a komi (5x5 at komi 0, say) each network wins its games
    with that colour and the match barely tells them apart; None otherwise."""
    decided = [g for g in records if g["winner"] is not None]
    if len(decided) < 20:
        return None
    black = sum(g["winner"] == g["black"] for g in decided)
    for colour, won in (("Black", black), ("White", len(decided) - black)):
        if won >= share * len(decided):
            return (f"{colour} won {won} of {len(decided)} decided games: at this komi the "
                    f"match barely tells the networks apart (choose a komi both colours "
                    f"can win at)")
    return None


def _records(games_log: JsonLines, names: Sequence[str]) -> list[dict]:
    """The logged games; ValueError when the log is another pair's."""
    records = games_log.records()
    strangers = {g[c] for g in records for c in ("black", "white")} - set(names)
    if strangers:
        raise ValueError(f"{games_log.path} holds games of {', '.join(sorted(strangers))}, "
                         f"not only of {names[0]} and {names[1]}: use another folder")
    return records


# ------------------------------------------------------------ command line
def versus_parser() -> argparse.ArgumentParser:
    d = ArenaSettings()
    p = argparse.ArgumentParser(
        prog=command_name("versus"), formatter_class=HelpFormatter,
        description="Two networks play each other at equal visits (colours alternating, the\n"
                    "first moves drawn from the visits so that games differ), many games at\n"
                    "once in one process, as the self-play loop's gate plays them. The games\n"
                    "go to DIR (games.jsonl and SGF files); the same command again plays only\n"
                    "the games still missing, or more with a larger --games.",
        epilog="example (did run RUN's third generation beat the network it started from?):\n"
               "  python train.py versus RUN/models/gen-0003.keras models/residual9.keras "
               "--out versus-g3")
    p.add_argument("models", nargs=2, metavar="MODEL", type=model_argument,
                   help="the two .keras networks")
    p.add_argument("--out", required=True, metavar="DIR", help="folder of the match's games")
    p.add_argument("--games", type=int, default=100, metavar="N", help="games in the match")
    p.add_argument("--visits", type=int, default=d.visits, metavar="V",
                   help="visits of each move's search, both sides")
    p.add_argument("--size", type=int, default=d.size, metavar="N", help="board size")
    p.add_argument("--komi", type=float, default=d.komi, help="komi for White")
    p.add_argument("--parallel", type=int, default=d.parallel, metavar="N",
                   help="games played at once (sharing each network's calls)")
    p.add_argument("--threshold", type=float, default=0.55, metavar="P",
                   help="the score share the first network must reach to be called the "
                        "stronger (the self-play loop gates at 55%%)")
    p.add_argument("--seed", type=int, default=1, metavar="N", help="random seed")
    p.add_argument("--no-progress", dest="progress", action="store_false",
                   help="no progress bar")
    return p


def match_names(models: Sequence[str]) -> list[str]:
    """Player names for SGF and the log: the files' stems, numbered when the
    two are alike."""
    names = [Path(m).stem for m in models]
    return names if names[0] != names[1] else [f"{names[0]}-1", f"{names[1]}-2"]


def _problems(args: argparse.Namespace) -> list[str]:
    problems = [f"no model file {m}" for m in args.models if not Path(m).is_file()]
    for model in (m for m in args.models if Path(m).is_file()):
        try:  # a bad model is named before the match's folder is made
            check_model_size(model, args.size)
        except (OSError, ValueError) as err:
            problems.append(str(err))
    for name in ("games", "visits", "parallel"):
        if getattr(args, name) < 1:
            problems.append(f"--{name} must be at least 1, not {getattr(args, name)}")
    problem = settings_problem(args.size, args.komi)
    if problem is not None:
        problems.append(f"--{problem}")
    if not 0 < args.threshold <= 1:
        problems.append(f"--threshold must be in (0, 1], not {args.threshold}")
    return problems


def _settings_record(args: argparse.Namespace, names: Sequence[str]) -> dict:
    """What makes two runs of the command the same match: the networks (by
    content), the names, the board, komi and visits."""
    digests = [hashlib.sha256(Path(m).read_bytes()).hexdigest()[:16] for m in args.models]
    return {"names": list(names), "sha256": digests, "size": args.size, "komi": args.komi,
            "visits": args.visits}


def _check_folder(out: Path, wanted: dict) -> None:
    """Write the match's settings into a new folder; ValueError when the
    folder holds a match played otherwise (its games must not be mixed)."""
    path = out / SETTINGS_FILE
    if path.exists():
        try:
            held = json.loads(path.read_text())
        except ValueError as err:
            raise ValueError(f"{path} is not readable JSON ({err}): use another --out") from err
        differ = [f"{key} {held.get(key)} (asked: {value})" for key, value in wanted.items()
                  if held.get(key) != value]
        if differ:
            raise ValueError(f"{out} holds another match ({'; '.join(differ)}): "
                             "use another --out")
        return
    write_json(path, wanted, indent=1)


def versus_main(argv: Optional[list[str]] = None) -> int:
    p = versus_parser()
    args = p.parse_args(argv)
    problems = _problems(args)
    if problems:
        p.error("; ".join(problems))
    names = match_names(args.models)
    out = Path(args.out)
    settings = ArenaSettings(size=args.size, komi=args.komi, visits=args.visits,
                             parallel=args.parallel)
    try:
        _check_folder(out, _settings_record(args, names))
        records = play_versus(args.models, names, args.games, settings, out / "games.jsonl",
                              out / "sgf", seed=args.seed, progress=args.progress)
    except (OSError, ValueError) as err:
        print(f"{command_name('versus')}: {err}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"{command_name('versus')}: stopped; the same command goes on", file=sys.stderr)
        return 130
    decision = record_of(records, names[0], args.threshold)
    verdict = "stronger" if decision.promoted else "not shown stronger"
    low, high = decision.interval
    print(f"{names[0]} vs {names[1]}: {decision.wins}-{decision.losses}-{decision.draws} "
          f"(W-L-D) in {decision.games} games at {args.visits} visits, score "
          f"{100 * decision.score:.1f}% (95% {100 * low:.1f}-{100 * high:.1f}%; "
          f"{colour_record(records, names[0])}): {verdict} at the "
          f"{100 * args.threshold:g}% threshold")
    warning = one_colour_wins(records)
    if warning:
        print(f"warning: {warning}")
    return 0


__all__ = ["play_versus", "record_of", "colour_record", "one_colour_wins", "match_names",
           "versus_main"]
