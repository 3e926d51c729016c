"""``imago analysis``: the JSON analysis engine on standard input and output,
started the way KataGo's is, so tools written for KataGo (KaTrain, analysis
scripts) can start imago unchanged::

    imago analysis -model models/residual9.keras -config analysis.cfg -analysis-threads 8

``-config`` names a KataGo-style file of ``key = value`` lines (``#``
starts a comment); ``-override-config "k1=v1,k2=v2"`` adds or replaces
keys. imago uses the keys in :data:`CONFIG_KEYS` and notes the others on
stderr once. Only argument parsing and wiring live here.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Optional, Sequence

from .query import QueryDefaults

log = logging.getLogger("imago.analysis")

CONFIG_KEYS = {
    "maxVisits": "visits of a query that gives no maxVisits",
    "analysisPVLen": "moves after the first in each principal variation",
    "reportAnalysisWinratesAs": "BLACK, WHITE or SIDETOMOVE",
    "numAnalysisThreads": "positions searched at once (-analysis-threads)",
    "nnMaxBatchSize": "most positions in one network call",
    "cpuctExploration": "the search's c_puct",
    "rootFpuReductionMax": "the search's first-play-urgency reduction",
    "warnUnusedFields": "warn about query fields imago does not use",
    "maxTime": "seconds a search may take at most (0 or absent: no limit)",
}
"""The config keys imago reads, and what they set."""

USAGE_EXAMPLE = """\
queries are KataGo's, one JSON object per line, e.g.
  {"id":"a","moves":[["B","E5"],["W","C3"]],"rules":"chinese","komi":7.5,
   "boardXSize":9,"boardYSize":9,"analyzeTurns":[0,1,2],"maxVisits":100}
answers are one JSON object per line on stdout; notes go to stderr.
"""


class _Parser(argparse.ArgumentParser):
    """argparse with KataGo's single-dash long options, exiting with one
    line on a bad command line."""

    def error(self, message: str) -> None:  # noqa: D401 - argparse's hook
        self.exit(2, f"imago analysis: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="imago analysis",
                     description="KataGo-compatible JSON analysis engine (queries on stdin, "
                                 "answers on stdout).",
                     epilog=USAGE_EXAMPLE, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-model", "--model", default="default",
                        help="an imago .keras model (default: the shipped network; 'none': "
                             "random playouts). A file that is not a .keras model, such as a "
                             "KataGo network, is noted and the shipped network used instead")
    parser.add_argument("-config", "--config", type=Path,
                        help="KataGo-style config file (key = value lines)")
    parser.add_argument("-override-config", "--override-config", action="append", default=[],
                        metavar="K=V,...", help="config keys given on the command line")
    parser.add_argument("-analysis-threads", "--analysis-threads", type=int,
                        help="positions searched at once (default 64)")
    parser.add_argument("-quit-without-waiting", "--quit-without-waiting", action="store_true",
                        help="at the end of input, stop open queries instead of finishing them")
    parser.add_argument("--log-level", default="WARNING",
                        choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    return parser


def read_config(path: Optional[Path], overrides: Sequence[str]) -> dict[str, str]:
    """The config file's ``key = value`` pairs, then the overrides'.
    Raises ValueError naming the file and line of a malformed one."""
    config: dict[str, str] = {}
    if path is not None:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            raise ValueError(f"cannot read config {path}: {exc.strerror or exc}") from None
        for number, line in enumerate(text.splitlines(), 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            key, sep, value = line.partition("=")
            if not sep or not key.strip():
                raise ValueError(f"{path}:{number}: expected key = value")
            config[key.strip()] = value.strip()
    for group in overrides:
        for item in group.split(","):
            if not item.strip():
                continue
            key, sep, value = item.partition("=")
            if not sep or not key.strip():
                raise ValueError(f"-override-config: expected key=value, not {item.strip()!r}")
            config[key.strip()] = value.strip()
    return config


def _number(config: dict, key: str, kind, low: float):
    if key not in config:
        return None
    try:
        value = kind(config[key])
    except ValueError:
        raise ValueError(f"config {key}: not a number: {config[key]!r}") from None
    if not value >= low:
        raise ValueError(f"config {key}: must be at least {low}")
    return value


def engine_options(config: dict[str, str]) -> dict:
    """Keyword arguments of :class:`~.engine.AnalysisEngine` from a config
    (raises ValueError with the key for a bad value)."""
    defaults = QueryDefaults()
    visits = _number(config, "maxVisits", int, 1)
    if visits is not None:
        defaults.max_visits = min(visits, defaults.max_allowed_visits)
    pv_len = _number(config, "analysisPVLen", int, 1)
    if pv_len is not None:
        defaults.pv_len = pv_len
    report_as = config.get("reportAnalysisWinratesAs")
    if report_as is not None:
        if report_as.upper() not in ("BLACK", "WHITE", "SIDETOMOVE"):
            raise ValueError("config reportAnalysisWinratesAs: BLACK, WHITE or SIDETOMOVE")
        defaults.report_as = report_as.upper()
    if "warnUnusedFields" in config:
        defaults.warn_unused = config["warnUnusedFields"].lower() == "true"
    options: dict = {"defaults": defaults, "settings": {}}
    threads = _number(config, "numAnalysisThreads", int, 1)
    if threads is not None:
        options["max_searches"] = threads
    batch = _number(config, "nnMaxBatchSize", int, 1)
    if batch is not None:
        options["max_leaves"] = batch
    for key, name in (("cpuctExploration", "c_puct"), ("rootFpuReductionMax", "fpu_reduction"),
                      ("maxTime", "max_time"), ("wideRootNoise", "wide_root_noise")):
        value = _number(config, key, float, 0)
        if value is not None:
            options["settings"][name] = value
    reading = config.get("imagoLocalReading")
    if reading is not None:
        if reading.lower() not in ("true", "false"):
            raise ValueError("config imagoLocalReading: true or false")
        options["settings"]["local_reading"] = reading.lower() == "true"
    return options


def _model(model: str) -> str:
    """The model to load: a ``.keras`` file as given, a shipped network by
    its name (:func:`imago.nn.modelfile.find_model`), ``default`` and
    ``none`` as they are, anything else noted and replaced by the default."""
    if model.lower() in ("default", "none", "playouts"):
        return model
    from imago.nn.modelfile import find_model, shipped_names  # no Keras

    path = find_model(model)
    if path.suffix != ".keras":
        log.warning("imago analysis: %s is not an imago .keras model; using the shipped "
                    "network", model)
        return "default"
    if not path.is_file():
        raise ValueError(f"model not found: {model} (shipped networks: "
                         f"{', '.join(shipped_names())})")
    return str(path)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=args.log_level, stream=sys.stderr, format="%(message)s")
    try:
        config = read_config(args.config, args.override_config)
        options = engine_options(config)
        if args.analysis_threads is not None:
            if args.analysis_threads < 1:
                raise ValueError("-analysis-threads must be at least 1")
            options["max_searches"] = args.analysis_threads
        model = _model(args.model)
    except ValueError as exc:
        print(f"imago analysis: {exc}", file=sys.stderr)
        return 2
    unused = sorted(set(config) - set(CONFIG_KEYS))
    if unused:
        log.warning("imago analysis: config keys not used by imago: %s", ", ".join(unused))
    from .engine import AnalysisEngine  # loads the search (the network loads on first use)

    try:
        engine = AnalysisEngine(model, **options)
    except (ValueError, OSError) as exc:
        print(f"imago analysis: {exc}", file=sys.stderr)
        return 2
    log.info("imago analysis: ready")
    try:
        for raw in sys.stdin.buffer:
            line = raw.decode("utf-8", errors="replace").strip()
            if line:
                engine.submit_line(line)
    except KeyboardInterrupt:
        engine.close(wait=False)
        return 130
    engine.close(wait=not args.quit_without_waiting)
    return 0
