"""Analysis commands for Sabaki and GoGui, through the real GTP loop."""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import pytest

from imago.engine.algorithm import create_algorithm
from imago.engine.engine import GameEngine
from imago.game import vertex_to_index
from imago.gtp.analysis import AnalyzeRequest, kata_line, move_ownership
from imago.gtp.io import ImagoIO
from imago.search import action_of


class InfoLines:
    """A wait for the output to hold this many analysis (``info``) lines,
    at most ``timeout`` seconds: no guessing how fast a loaded machine
    searches or loads the network."""

    def __init__(self, count: int, timeout: float = 120.0):
        self.count, self.timeout = count, timeout

    def wait(self, out: io.StringIO) -> None:
        deadline = time.monotonic() + self.timeout
        while (sum(line.startswith("info ") for line in out.getvalue().split("\n"))
               < self.count and time.monotonic() < deadline):
            time.sleep(0.02)


class TimedInput:
    """Input lines as a controller sends them: each after a delay in
    seconds, or once the output ``out`` holds some analysis lines
    (:class:`InfoLines`)."""

    def __init__(self, lines, out: io.StringIO):
        self.lines, self.out = list(lines), out

    def readline(self, size=-1):
        if not self.lines:
            return ""
        wait, text = self.lines.pop(0)
        if isinstance(wait, InfoLines):
            wait.wait(self.out)
        else:
            time.sleep(wait)
        return text


def run(lines, algorithm="mcts", **options):
    options.setdefault("seed", 1)
    if algorithm == "mcts":
        options.setdefault("model", "none")
        options.setdefault("visits", 60)
    engine = GameEngine(create_algorithm(algorithm, **options), size=9)
    out = io.StringIO()
    ImagoIO(engine, TimedInput(lines, out), out).run()
    return out.getvalue(), engine


ROOT = Path(__file__).resolve().parent.parent
INFO = re.compile(r"info move ([A-HJ-T]\d+|pass) visits (\d+) (?:utility \S+ )?winrate (\S+) ")


def test_lz_analyze_streams_until_the_next_command():
    text, _ = run([(0, "7 lz-analyze b 10\n"), (InfoLines(2), "8 name\n")])
    head, rest = text.split("\n", 1)
    assert head == "=7"
    body, after = rest.split("\n\n", 1)
    lines = body.splitlines()
    assert len(lines) >= 2                     # one line per 0.1 s interval
    for line in lines:
        assert line.startswith("info move ")
        for move, visits, winrate in INFO.findall(line):
            assert winrate.isdigit() and 0 <= int(winrate) <= 10000
        assert " order 0 " in line and " pv " in line and " lcb " in line and " prior " in line
    assert after == "=8 imago\n\n"


def test_lz_analyze_accepts_sabaki_and_katago_argument_forms():
    for args in ("b 10", "interval 10", "10", "B interval 10"):
        text, _ = run([(0, f"lz-analyze {args}\n"), (InfoLines(1), "\n")])
        assert text.startswith("=\ninfo move"), args
    text, _ = run([(0, "lz-analyze b interval x\n")])
    assert text == "? syntax error\n\n"


def test_kata_analyze_with_ownership_and_score_lead():
    text, _ = run([(0, "kata-analyze w 10 ownership true\n"), (InfoLines(1), "\n")])
    line = text.split("\n")[1]
    assert "winrate 0." in line or "winrate 1." in line
    assert " scoreLead " in line
    ownership = line.split(" ownership ")[1].split()
    assert len(ownership) == 81 and all(-1 <= float(v) <= 1 for v in ownership)


def network_engine(visits: int = 100) -> GameEngine:
    """A 9x9 engine searching with the shipped residual9 network."""
    model = ROOT / "models" / "residual9.keras"
    if not model.exists():
        pytest.skip("the shipped model is missing")
    return GameEngine(create_algorithm("mcts", model=str(model), visits=visits, seed=1), size=9)


def test_kata_analyze_ownership_is_the_growing_trees():
    engine = network_engine()
    out = io.StringIO()
    commands = [(0, "kata-analyze b 10 ownership true\n"), (InfoLines(5), "\n")]
    ImagoIO(engine, TimedInput(commands, out), out).run()
    lines = [line for line in out.getvalue().split("\n") if line.startswith("info ")]
    assert len(lines) >= 5
    owned = [line.split(" ownership ")[1] for line in lines]
    assert owned[0] != owned[-1]  # the root's network answer alone would never change
    # the last line is the tree's mean seen from Black, row 0 the top row
    search = engine.algorithm.search
    tree = search.tree_ownership()
    assert tree is not None and search.root.total_visits() > 20
    assert [float(v) for v in owned[-1].split()] == pytest.approx(tree.tolist(), abs=0.05)


def test_genmove_analyze_ends_with_the_move_and_plays_it():
    text, engine = run([(0, "1 lz-genmove_analyze b 10\n")], visits=100)
    assert text.startswith("=1\n")
    assert re.search(r"\nplay ([A-HJ-T]\d+|pass|resign)\n\n$", text)
    assert engine.state.current.number == 1


def test_gogui_analyze_commands_and_their_answers():
    text, _ = run([(0, "1 gogui-analyze_commands\n"), (0, "2 gogui-interrupt\n"),
                   (0, "3 imago-ownership\n"), (0, "4 imago-policy b\n"), (0, "5 imago-visits b\n"),
                   (0, "6 imago-pv b\n"), (0, "7 imago-params\n"), (0, "8 imago-params visits 33\n"),
                   (0, "9 imago-params\n"), (0, "10 imago-params nonsense 1\n"),
                   (0, "11 imago-score w\n")])
    answers = dict(re.findall(r"^[=?](\d+) ?(.*?)\n\n", text, re.S | re.M))
    kinds = [line.split("/")[0] for line in answers["1"].splitlines()]
    assert kinds == ["cboard", "sboard", "dboard", "var", "gfx", "param"]
    assert answers["2"] == ""
    for key in ("3", "4", "5"):
        rows = answers[key].splitlines()
        assert len(rows) == 9 and all(len(r.split()) == 9 for r in rows)
    assert all(-1 <= float(v) <= 1 for v in answers["3"].split())
    assert re.fullmatch(r"([A-HJ-T]\d+|pass)( ([A-HJ-T]\d+|pass))*", answers["6"])
    assert "[string] visits 60" in answers["7"]
    assert "[string] visits 33" in answers["9"]
    assert "?10 unknown parameter" in text
    labels, status = answers["11"].splitlines()
    assert re.fullmatch(r"LABEL( [A-HJ-T]\d+ [+-]\d+\.\d)+", labels)
    assert re.fullmatch(r"TEXT (Black|White) leads by \d+\.\d \(\d+ visits; .*\)", status)


def test_kata_analyze_gives_katagos_fields_in_katagos_order():
    """Tools that read KataGo's lines by position (a fixed pattern, as
    some do) find each field where KataGo puts it, scoreStdev included;
    the utilities agree with the win rates and lead as the JSON analysis
    engine reports them."""
    from imago.search.reports import report_utility

    text, _ = run([(0, "kata-analyze b 10\n"), (InfoLines(1), "\n")])
    line = text.split("\n")[1]
    first = line.split(" info ")[0]
    match = re.match(r"info move \S+ visits \d+ utility (-?\d\.\d{4}) winrate (\d\.\d{4}) "
                     r"scoreMean (-?\d+\.\d\d) scoreStdev (\d+\.\d\d) scoreLead (-?\d+\.\d\d) "
                     r"scoreSelfplay (-?\d+\.\d\d) prior \d\.\d{4} lcb (\d\.\d{4}) "
                     r"utilityLcb (-?\d\.\d{4}) order 0 pv ", first)
    assert match, first
    utility, winrate, mean, stdev, lead, selfplay, lcb, utility_lcb = map(float, match.groups())
    assert mean == lead == selfplay and 0 <= stdev <= 9
    assert utility == pytest.approx(report_utility(winrate, lead), abs=2e-4)
    assert utility_lcb == pytest.approx(report_utility(lcb, lead), abs=2e-4)


def test_pv_visits_and_root_info_as_katago_gives_them():
    """``pvVisits true``: each candidate's line is followed by the visits of
    each of its moves (the first the candidate's own, none more than the
    move before); ``rootInfo true``: the whole search's figures after the
    candidates."""
    text, _ = run([(0, "kata-analyze b 10 pvVisits true rootInfo true\n"), (InfoLines(2), "\n")])
    line = text.split("\n")[2]
    body, root = line.split(" rootInfo ")
    for info in body.split("info ")[1:]:
        visits = int(info.split(" visits ")[1].split()[0])
        pv = info.split(" pv ")[1].split(" pvVisits ")[0].split()
        along = [int(v) for v in info.split(" pvVisits ")[1].split()]
        assert len(along) == len(pv) and along[0] == visits
        assert all(a >= b for a, b in zip(along, along[1:]))
    match = re.fullmatch(r"visits (\d+) utility -?\d\.\d{4} winrate \d\.\d{4} "
                         r"scoreMean (-?\d+\.\d\d) scoreStdev \d+\.\d\d scoreLead (-?\d+\.\d\d) "
                         r"scoreSelfplay -?\d+\.\d\d", root.strip())
    assert match and int(match.group(1)) >= max(int(v) for _, v, _ in INFO.findall(body))
    text, _ = run([(0, "lz-analyze b 10 pvVisits true\n"), (InfoLines(1), "\n")])
    assert " pvVisits " in text and "rootInfo" not in text
    text, _ = run([(0, "kata-genmove_analyze b 5 pvVisits true rootInfo true\n")], visits=300)
    infos = [line for line in text.split("\n") if line.startswith("info ")]
    assert infos and all(" pvVisits " in line and " rootInfo visits " in line for line in infos)
    assert re.search(r"\nplay ([A-HJ-T]\d+|pass|resign)\n\n$", text)
    text, _ = run([(0, "kata-analyze b 10\n"), (InfoLines(1), "\n")])
    assert " pvVisits " not in text and "rootInfo" not in text


def test_lz_analyze_gives_the_score_lead_before_the_pv():
    text, _ = run([(0, "lz-analyze b 10\n"), (InfoLines(1), "\n")])
    line = text.split("\n")[1]
    assert re.match(r"info move \S+ visits \d+ winrate \d+ prior \d+ lcb \d+ "
                    r"scoreLead -?\d+\.\d\d order 0 pv ", line)


def test_gogui_interrupt_stops_a_long_genmove():
    start = time.perf_counter()
    text, engine = run([(0, "gogui-interrupt\n"), (0, "1 genmove b\n"), (0.5, "# interrupt\n")],
                       visits=10_000_000)
    assert time.perf_counter() - start < 10
    assert re.search(r"=1 ([A-HJ-T]\d+|pass)\n\n", text)


def test_analysis_works_with_other_algorithms_too():
    text, _ = run([(0, "lz-analyze b 10\n"), (InfoLines(1), "name\n")], algorithm="random")
    assert text.startswith("=\ninfo move") and text.endswith("= imago\n\n")


def test_analyze_options_filter_and_limit_the_candidates():
    text, _ = run([(0, "lz-analyze b 10 maxmoves 2 minmoves 5 pvVisits false\n"),
                   (InfoLines(1), "\n")], algorithm="random")
    lines = text.split("\n")[1:-2]
    assert lines and all(1 <= line.count("info move") <= 2 for line in lines)
    text, _ = run([(0, "kata-analyze b 10 avoid b E5,D4,pass 1 avoid w C3 1\n"),
                   (InfoLines(1), "\n")], algorithm="random")
    moves = {m for m, _, _ in INFO.findall(text)}
    assert moves and not moves & {"E5", "D4", "pass"}
    text, _ = run([(0, "lz-analyze b 10 allow b E5,D4 1 allow b D4,C3 2\n"),
                   (InfoLines(1), "\n")], algorithm="random")
    assert {m for m, _, _ in INFO.findall(text)} <= {"D4"}


def test_allow_and_avoid_restrict_the_search_not_only_the_list():
    """As KataGo's: the root plays only the moves allowed (here one, which
    gets every visit), and the next move searches afresh."""
    text, engine = run([(0, "play b E5\n"), (0, "kata-analyze w 10 allow w C3 1\n"),
                        (InfoLines(3), "\n")])
    visits = [int(n) for m, n, _ in INFO.findall(text)]
    assert {m for m, _, _ in INFO.findall(text)} == {"C3"} and visits[-1] > 20
    search = engine.analysis_search(ready=False)
    assert search.root is None  # forgotten: its visits went to C3 alone


def test_avoid_and_allow_hold_to_their_depth_below_the_root():
    """``allow w C3 2``: in every line Black's first move is answered by
    White's C3 (unless Black took C3 itself: then nothing is allowed and
    White plays freely); ``avoid b D4 3`` keeps D4 out of Black's first
    two moves of every line."""
    text, _ = run([(0, "kata-analyze b 10 allow w C3 2 avoid b D4 3\n"),
                   (InfoLines(3), "\n")])
    lines = [pv.split() for pv in re.findall(r" pv ([A-Z0-9 ]+?)(?: info|$)", text, re.M)]
    assert lines and any(len(pv) > 2 for pv in lines)
    for pv in lines:
        assert len(pv) < 2 or pv[1] == "C3" or pv[0] == "C3"
        assert "D4" not in pv[0:3:2]


def test_genmove_analyze_searches_under_restrictions_below_its_move():
    """``allow w C3 2`` while Black moves: Black's move is free, every line
    of the search has White answer C3, and no later search starts from its tree."""
    text, engine = run([(0, "1 kata-genmove_analyze b 10 allow w C3 2\n")])
    lines = [pv.split() for pv in re.findall(r" pv ([A-Z0-9 ]+?)(?: info|$)", text, re.M)]
    assert lines and all(len(pv) < 2 or "C3" in pv[:2] for pv in lines)
    assert re.search(r"^play [A-HJ]\d$", text, re.M)
    search = engine.algorithm.search
    assert search.root is not None and search.recent_roots == []


def test_analysis_lines_ending_with_two_passes_count_the_dead_stones_out():
    """White's pass after Black's ends the game: kata-analyze counts that
    line as final_score does, White's dead A8 removed (B+7.5, where every
    stone standing alive gives W+25.5)."""
    from test_analysis_engine import ENDED_BLACK, ENDED_WHITE

    stones = " ".join([f"b {v}" for v in ENDED_BLACK] + [f"w {v}" for v in ENDED_WHITE])
    text, _ = run([(0, f"set_position {stones}\n"), (0, "play b pass\n"),
                   (0, "kata-analyze w 10 allow w pass 1\n"), (InfoLines(2), "\n"),
                   (0, "final_score\n")])
    line = [ln for ln in text.split("\n") if ln.startswith("info move pass")][-1]
    assert float(line.split(" scoreLead ")[1].split()[0]) == pytest.approx(-7.5)  # White's view
    assert "= B+7.5" in text


def test_minmoves_fills_the_list_with_unvisited_legal_moves_by_prior():
    """KataGo's ``minmoves N``: where the search has visited fewer moves,
    the legal moves it has not visited follow, highest prior first, with 0
    visits, the position's win rate and only the move as their line;
    ``avoid`` still leaves moves out and ``maxmoves`` still caps the list."""
    engine = network_engine()
    out = io.StringIO()
    commands = [(0, "play b E5\n"), (0, "play w D4\n"),
                (0, "kata-analyze b 5 minmoves 78 avoid b C3 1 maxmoves 78\n"),
                (InfoLines(1), "\n")]
    ImagoIO(engine, TimedInput(commands, out), out).run()
    line = [ln for ln in out.getvalue().split("\n") if ln.startswith("info ")][0]
    infos = line.split("info ")[1:]
    assert len(infos) == 78  # 79 empty points and the pass, C3 avoided, one over maxmoves
    moves = [info.split()[1] for info in infos]
    assert len(set(moves)) == 78 and not {"E5", "D4", "C3"} & set(moves)
    visits = [int(info.split(" visits ")[1].split()[0]) for info in infos]
    unvisited = [info for info, n in zip(infos, visits) if n == 0]
    assert unvisited and visits.index(0) == len(visits) - len(unvisited)  # after the visited
    priors = [float(info.split(" prior ")[1].split()[0]) for info in unvisited]
    assert priors == sorted(priors, reverse=True)
    for info in unvisited:
        assert " lcb 0.0000 " in info and info.split(" pv ")[1].split() == [info.split()[1]]
    text, _ = run([(0, "lz-analyze b 10 minmoves 81 maxmoves 3\n"), (InfoLines(1), "\n")])
    assert all(line.count("info move") == 3 for line in text.split("\n")[1:-2])


def test_analyze_arguments_are_checked_one_by_one():
    bad = {"lz-analyze b 10 foo 1": "unknown analyze option foo",
           "kata-analyze b 10 avoid b E5 1 w": "syntax error",
           "lz-analyze b 10 avoid b E5": "syntax error",
           "lz-analyze b 10 avoid b Z99 1": "syntax error",
           "lz-analyze b 10 avoid b E5,,D4 1": "syntax error",
           "lz-analyze b 10 avoid x E5 1": "invalid color",
           "lz-analyze b 10 avoid b E5 -1": "syntax error",
           "lz-analyze b 10 maxmoves -1": "syntax error",
           "lz-analyze b 10 minmoves 1e3": "syntax error",
           "kata-analyze b 10 ownership maybe": "syntax error",
           "lz-analyze \u00b2": "syntax error",
           "lz-analyze 99999999999": "syntax error",
           "lz-analyze b 10 interval": "syntax error",
           "kata-genmove_analyze b 10 avoid b E5 1":
               "avoid and allow need a search that can leave moves out: the random algorithm "
               "cannot",
           "lz-genmove_analyze b 10 maxmoves x": "syntax error"}
    text, engine = run([(0, f"{i} {line}\n") for i, line in enumerate(bad)], algorithm="random")
    assert text == "".join(f"?{i} {why}\n\n" for i, why in enumerate(bad.values()))
    assert engine.state.current.number == 0  # no genmove_analyze played


def test_genmove_analyze_plays_only_a_move_avoid_and_allow_leave():
    """As KataGo's: the search and the move played leave the avoided moves
    out (the pass included), or keep only the allowed ones."""
    text, engine = run([(0, "play b E5\n"), (0, "1 kata-genmove_analyze w 10 allow w C3 1\n")])
    assert text.endswith("play C3\n\n")
    assert {m for m, _, _ in INFO.findall(text)} == {"C3"}
    allowed = {"C7", "G3", "pass"}
    text, engine = run([(0, "1 lz-genmove_analyze b 10 allow b C7,G3,pass 1\n"),
                        (0, "2 lz-genmove_analyze w 10 avoid w E5,D5,pass 1 avoid b A1 1\n")])
    played = re.findall(r"\nplay (\S+)\n", text)
    assert played[0] in allowed and played[1] not in {"E5", "D5", "pass"}
    assert {m for m, _, _ in INFO.findall(text.split("=2")[0])} <= allowed
    assert engine.state.current.number == 2


def test_genmove_analyze_refuses_avoid_and_allow_that_leave_no_legal_move():
    text, engine = run([(0, "play b E5\n"), (0, "1 kata-genmove_analyze w 10 allow w E5 1\n"),
                        (0, "2 kata-genmove_analyze w 10 allow w E5,pass 1\n")])
    assert "?1 avoid and allow leave no legal move\n\n" in text
    assert text.endswith("play pass\n\n") and engine.state.current.number == 2


def test_a_move_chosen_with_moves_forbidden_obeys_them_or_is_refused():
    """The engine's own interface: ``choose_move(restrictions=...)``, the
    actions taken from a colour to a depth."""
    from imago.search import MoveRestriction

    engine = GameEngine(create_algorithm("mcts", model="none", visits=40, seed=3), size=9)
    allowed = {action_of(vertex_to_index(v, 9), 9) for v in ("A1", "J9")}
    forbidden = (MoveRestriction(1, frozenset(range(82)) - allowed, 1),)
    assert action_of(engine.choose_move(1, restrictions=forbidden), 9) in allowed
    with pytest.raises(ValueError, match="leave no legal move"):
        engine.choose_move(1, restrictions=(MoveRestriction(1, frozenset(range(82)), 1),))
    policy = GameEngine(create_algorithm("random", seed=1), size=9)
    with pytest.raises(ValueError, match="avoid and allow need a search that can leave moves out: the random algorithm cannot"):
        policy.choose_move(1, restrictions=forbidden)


def test_genmove_analyze_colour_is_optional():
    text, engine = run([(0, "1 lz-genmove_analyze\n"), (0, "2 kata-genmove_analyze 5\n")],
                       algorithm="random")
    assert re.fullmatch(r"=1\n(info [^\n]*\n)*play \S+\n\n=2\n(info [^\n]*\n)*play \S+\n\n",
                        text)
    assert engine.state.current.number == 2


def test_imago_params_values_are_checked_and_reach_the_search():
    bad = {"visits 0": "visits must be at least 1, not 0",
           "visits 2.5": "visits must be a whole number, not 2.5",
           "visits nan": "syntax error",
           "c_puct 0": "c_puct must be above 0, not 0",
           "c_puct -1.5": "c_puct must be above 0, not -1.5",
           "fpu_reduction inf": "syntax error",
           "batch_size 0": "batch_size must be at least 1, not 0",
           "resign_threshold 1.5": "resign_threshold must be at least 0 and at most 1, not 1.5",
           "resign_threshold -0.1": "resign_threshold must be at least 0 and at most 1, not -0.1",
           "lcb_z -1": "lcb_z must be at least 0, not -1",
           "visits": "syntax error",
           "visits 1 2": "syntax error",
           "exploration 1": "unknown parameter"}
    lines = [(0, f"{i} imago-params {line}\n") for i, line in enumerate(bad)]
    lines += [(0, "imago-params c_puct 2\n"), (0, "imago-params batch_size 4\n"),
              (0, "imago-params fpu_reduction -0.5\n"), (0, "imago-params visits 1e1\n"),
              (0, "imago-params lcb_z 0\n"), (0, "genmove b\n")]
    text, engine = run(lines)
    answers = text.split("\n\n")
    assert answers[:len(bad)] == [f"?{i} {why}" for i, why in enumerate(bad.values())]
    assert answers[len(bad):-2] == ["="] * 5 and answers[-2].startswith("= ")
    assert engine.algorithm.visits == 10 and engine.algorithm.batch_size == 4
    search = engine.algorithm.search
    assert search.c_puct == 2.0 and search.fpu_reduction == -0.5 and search.batch_size in (1, 4)
    assert search.lcb_z == 0
    assert engine.state.current.number == 1  # the genmove ran with them


def test_kata_analyze_ownership_stdev_is_the_trees_spread():
    engine = network_engine()
    out = io.StringIO()
    commands = [(0, "kata-analyze b 10 ownership true ownershipStdev true\n"),
                (InfoLines(4), "\n")]
    ImagoIO(engine, TimedInput(commands, out), out).run()
    line = [ln for ln in out.getvalue().split("\n") if ln.startswith("info ")][-1]
    owned, spread = line.split(" ownership ")[1].split(" ownershipStdev ")
    assert len(owned.split()) == len(spread.split()) == 81
    values = [float(v) for v in spread.split()]
    assert all(0 <= v <= 1 for v in values) and max(values) > 0.01
    mean, stdev = engine.algorithm.search.tree_ownership_spread()
    assert values == pytest.approx(stdev.tolist(), abs=0.05)
    assert [float(v) for v in owned.split()] == pytest.approx(mean.tolist(), abs=0.05)


def test_kata_analyze_moves_ownership_is_each_candidates_subtree():
    """``movesOwnership true`` and ``movesOwnershipStdev true``: after each
    candidate's line, the ownership after that move and its spread over
    the move's subtree, from the side to move, as KataGo gives them;
    ``pvEdgeVisits`` repeats ``pvVisits`` (a tree: one line per position)."""
    engine = network_engine()
    out = io.StringIO()
    commands = [(0, "kata-analyze b 10 movesOwnership true movesOwnershipStdev true "
                    "pvVisits true pvEdgeVisits true\n"), (InfoLines(4), "\n")]
    ImagoIO(engine, TimedInput(commands, out), out).run()
    line = [ln for ln in out.getvalue().split("\n") if ln.startswith("info ")][-1]
    assert " ownership " not in line  # the board's own was not asked for
    search = engine.algorithm.search
    infos = line.split("info ")[1:]
    assert len(infos) >= 2
    for info in infos:
        move = info.split()[1]
        head, owned = info.split(" movesOwnership ")
        owned, spread = owned.split(" movesOwnershipStdev ")
        along = head.split(" pvVisits ")[1].split(" pvEdgeVisits ")
        assert along[0].split() == along[1].split()
        values = [float(v) for v in owned.split()]
        spreads = [float(v) for v in spread.split()]
        assert len(values) == len(spreads) == 81
        assert all(-1 <= v <= 1 for v in values) and all(0 <= v <= 1 for v in spreads)
        # Black's own stone: Black's from Black's side
        point = vertex_to_index(move, 9)
        assert values[list(engine.state.board.on_board()).index(point)] > 0.5
    # the numbers are the move's subtree's: a finished search, written out
    root = search.run(engine.state, 1, visits=200)
    results = search.results(root)
    owned = {r.point: move_ownership(search, root, r.point, 9) for r in results}
    request = AnalyzeRequest(1, moves_ownership=True, moves_ownership_stdev=True)
    line = kata_line(results, 9, 0.0, 0.0, None, None, request, None, owned)
    for r, info in zip(results, line.split("info ")[1:]):
        mean, stdev = search.move_ownership_spread(action_of(r.point, 9), root)
        owned_words, spread_words = info.split(" movesOwnership ")[1].split(" movesOwnershipStdev ")
        assert [float(v) for v in owned_words.split()] == pytest.approx(mean.tolist(), abs=6e-4)
        assert [float(v) for v in spread_words.split()] == pytest.approx(stdev.tolist(), abs=6e-4)
    lz, _ = run([(0, "lz-analyze b 10 movesOwnership true pvEdgeVisits true\n"),
                 (InfoLines(1), "\n")])
    assert " pvEdgeVisits " in lz and " movesOwnership " not in lz


def test_kata_genmove_analyze_draws_the_ownership_flags_too():
    engine = network_engine(visits=400)
    out = io.StringIO()
    commands = [(0, "kata-genmove_analyze b 5 ownership true ownershipStdev true "
                    "movesOwnership true\n")]
    ImagoIO(engine, TimedInput(commands, out), out).run()
    text = out.getvalue()
    infos = [line for line in text.split("\n") if line.startswith("info ")]
    assert infos and re.search(r"\nplay ([A-HJ-T]\d+|pass|resign)\n\n$", text)
    for line in infos:
        body, board = line.split(" ownership ")
        owned, spread = board.split(" ownershipStdev ")
        assert len(owned.split()) == len(spread.split()) == 81
        assert body.count(" movesOwnership ") == len(INFO.findall(body)) > 0


def test_kata_analyze_ownership_stdev_alone_and_with_playouts():
    text, _ = run([(0, "kata-analyze b 10 ownershipStdev true\n"), (InfoLines(1), "\n")])
    line = text.split("\n")[1]
    assert " ownership " not in line  # only the spread was asked for
    assert [float(v) for v in line.split(" ownershipStdev ")[1].split()] == [0.0] * 81


def test_kata_raw_nn_shows_the_networks_answer_from_whites_side():
    from imago.gtp.commands import GtpError, Session, execute

    engine = network_engine(visits=10)
    session = Session(engine)
    execute(session, "play", ["b", "e5"])
    execute(session, "play", ["w", "c3"])
    answers = {which: execute(session, "kata-raw-nn", [which]) for which in ("0", "5", "all")}
    for which, text in answers.items():
        lines = text.split("\n")
        assert lines[0] == f"symmetry {which}" and lines[1].startswith("whiteWin ")
        win, loss = float(lines[1].split()[1]), float(lines[2].split()[1])
        assert 0 <= win <= 1 and win + loss == pytest.approx(1)
        policy_at = lines.index("policy")
        rows = [row.split() for row in lines[policy_at + 1:policy_at + 10]]
        assert rows[4][4] == "NAN" and rows[6][2] == "NAN"  # E5 and C3 are taken
        total = sum(float(v) for row in rows for v in row if v != "NAN")
        total += float(lines[policy_at + 10].split()[1])  # policyPass
        assert total == pytest.approx(1, abs=1e-3)
        owned = lines[lines.index("whiteOwnership") + 1:]
        assert len(owned) == 9 and all(len(row.split()) == 9 for row in owned)
    assert answers["0"] != answers["5"]  # each symmetry its own answer
    # Black is to move: the network's value for Black is White's loss
    black = engine.algorithm.networks.for_size(9).raw(engine.state.current, 0)
    win = float(answers["0"].split("\n")[1].split()[1])
    assert win == pytest.approx((1 - float(black["value"].reshape(-1)[0])) / 2, abs=1e-5)
    for bad in ("8", "-1", "x"):
        with pytest.raises(GtpError, match="syntax error"):
            execute(session, "kata-raw-nn", [bad])
    random = Session(GameEngine(create_algorithm("random", seed=1), size=9))
    with pytest.raises(GtpError, match="no network plays 9x9 here"):
        execute(random, "kata-raw-nn", ["all"])


def test_katago_param_commands_share_imago_params_table():
    from imago.gtp.commands import GtpError, Session, execute

    engine = GameEngine(create_algorithm("mcts", model="none", visits=50, seed=1), size=9)
    session = Session(engine)
    names = execute(session, "kata-list-params", []).split()
    assert names == ["maxVisits", "cpuctExploration", "fpuReductionMax", "nnMaxBatchSize",
                     "wideRootNoise"]
    assert execute(session, "kata-get-param", ["maxVisits"]) == "50"
    execute(session, "kata-set-param", ["maxVisits", "120"])
    execute(session, "kata-set-param", ["wideRootNoise", "0.04"])
    assert engine.algorithm.visits == 120 and engine.algorithm.search.wide_root_noise == 0.04
    assert "[string] visits 120" in execute(session, "imago-params", [])
    assert "[string] wide_root_noise 0.04" in execute(session, "imago-params", [])
    assert "[string] forced_playouts 2" in execute(session, "imago-params", [])
    execute(session, "imago-params", ["forced_playouts", "0"])
    assert engine.algorithm.search.forced_playouts == 0
    for args, why in ((["maxVisits", "0"], "visits must be at least 1, not 0"),
                      (["wideRootNoise", "9"],
                       "wide_root_noise must be at least 0 and at most 5, not 9"),
                      (["maxVisits", "many"], "syntax error"),
                      (["playoutDoublingAdvantage", "1"], "unknown parameter; imago has "
                       "maxVisits, cpuctExploration, fpuReductionMax, nnMaxBatchSize, "
                       "wideRootNoise")):
        with pytest.raises(GtpError) as info:
            execute(session, "kata-set-param", args)
        assert str(info.value) == why, args
    assert engine.algorithm.visits == 120
    random = Session(GameEngine(create_algorithm("random", seed=1), size=9))
    assert execute(random, "kata-list-params", []) == "cpuctExploration fpuReductionMax " \
        "nnMaxBatchSize wideRootNoise"  # the playout search that analysis uses
