"""The analysis engine end to end: KataGo's protocol query by query
(answers, priorities, termination, reports during the search, many queued
turns), and ``imago analysis`` started the way KaTrain starts KataGo."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from imago.analysis import AnalysisEngine, AnalysisError

ROOT = Path(__file__).resolve().parent.parent
MODEL = ROOT / "models" / "residual9.keras"


def query(ident: str, **fields) -> dict:
    base = {"id": ident, "moves": [["B", "E5"], ["W", "C3"]], "rules": "chinese", "komi": 7.5,
            "boardXSize": 9, "boardYSize": 9, "maxVisits": 30}
    base.update(fields)
    return base


class Collector:
    """A ``write`` sink recording every message, with a way to wait."""

    def __init__(self):
        self.messages: list[dict] = []
        self.changed = threading.Condition()

    def __call__(self, message: dict) -> None:
        with self.changed:
            self.messages.append(message)
            self.changed.notify_all()

    def finals(self, ident: str) -> list[dict]:
        return [m for m in self.messages if m.get("id") == ident and "turnNumber" in m
                and not m.get("isDuringSearch")]

    def wait(self, test, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        with self.changed:
            while not test():
                left = deadline - time.monotonic()
                assert left > 0, f"timed out; got {self.messages[-5:]}"
                self.changed.wait(left)


@pytest.fixture
def playouts():
    """An engine on random playouts (no network) and what it writes."""
    sink = Collector()
    engine = AnalysisEngine("none", write=sink, seed=1, max_searches=4)
    yield engine, sink
    engine.close(wait=False)


def submit(engine: AnalysisEngine, message: dict) -> None:
    engine.submit_line(json.dumps(message))


def test_every_turn_gets_one_final_answer_with_moves_and_root_info(playouts):
    engine, sink = playouts
    submit(engine, query("q", analyzeTurns=[0, 1, 2], includePVVisits=True))
    sink.wait(lambda: len(sink.finals("q")) == 3)
    answers = sorted(sink.finals("q"), key=lambda m: m["turnNumber"])
    assert [a["turnNumber"] for a in answers] == [0, 1, 2]
    assert [a["rootInfo"]["currentPlayer"] for a in answers] == ["B", "W", "B"]
    for answer in answers:
        assert answer["rootInfo"]["visits"] >= 29
        infos = answer["moveInfos"]
        assert [m["order"] for m in infos] == list(range(len(infos)))
        assert all(len(m["pv"]) == len(m["pvVisits"]) for m in infos)
        assert "E5" not in {m["move"] for m in infos if answer["turnNumber"] > 0}


def test_higher_priority_turns_are_searched_first(playouts):
    engine, sink = playouts
    engine.max_searches = 1
    submit(engine, query("low", analyzeTurns=[0, 1, 2], maxVisits=200, priority=0))
    submit(engine, query("high", analyzeTurns=[0, 1], maxVisits=30, priority=5))
    sink.wait(lambda: len(sink.finals("low")) == 3)
    order = [m["id"] for m in sink.messages if "turnNumber" in m]
    assert order.index("high") < order.index("low", 1)
    assert order.count("high") == 2


def test_consecutive_turns_go_on_from_the_search_of_the_turn_before(playouts):
    """Turns of one query are cut into chains (about max_searches / 4 of
    them, searched side by side); a turn continues the tree of the turn
    before it in its chain, as a GTP engine keeps its tree between moves."""
    engine, sink = playouts
    jobs = {}
    make_job = engine._job

    def spy(task, evaluator):
        jobs[task.turn.number] = job = make_job(task, evaluator)
        return job

    engine._job = spy
    submit(engine, query("c", analyzeTurns=[0, 1, 2], maxVisits=60))
    sink.wait(lambda: len(sink.finals("c")) == 3)
    assert jobs[0].search is jobs[1].search is jobs[2].search
    assert all(m["rootInfo"]["visits"] >= 60 for m in sink.finals("c"))

    engine.max_searches = 8  # two chains: turns 0-1 and 2-3
    submit(engine, query("d", analyzeTurns=[0, 1, 2, 3], maxVisits=30,
                         moves=[["B", "E5"], ["W", "C3"], ["B", "G7"]]))
    sink.wait(lambda: len(sink.finals("d")) == 4)
    assert jobs[0].search is jobs[1].search and jobs[2].search is jobs[3].search
    assert jobs[1].search is not jobs[2].search


def test_terminate_stops_a_query_and_every_turn_still_answers_once(playouts):
    engine, sink = playouts
    submit(engine, query("long", analyzeTurns=[0, 1, 2], maxVisits=1_000_000))
    sink.wait(lambda: any(m.get("id") == "long" for m in sink.messages) or True, 5)
    time.sleep(0.5)
    submit(engine, {"id": "t", "action": "terminate", "terminateId": "long"})
    sink.wait(lambda: len(sink.finals("long")) == 3, 30)
    assert {"id": "t", "action": "terminate", "terminateId": "long"} in sink.messages
    for answer in sink.finals("long"):
        assert answer.get("noResults") or answer["rootInfo"]["visits"] < 1_000_000
    time.sleep(0.3)
    assert len(sink.finals("long")) == 3


def test_terminate_by_turn_numbers_and_terminate_all(playouts):
    engine, sink = playouts
    submit(engine, query("a", analyzeTurns=[0, 1, 2], maxVisits=1_000_000))
    submit(engine, {"id": "t1", "action": "terminate", "terminateId": "a",
                    "turnNumbers": [1]})
    sink.wait(lambda: [m["turnNumber"] for m in sink.finals("a")] == [1], 30)
    submit(engine, {"id": "t2", "action": "terminate_all"})
    sink.wait(lambda: len(sink.finals("a")) == 3, 30)


def test_reports_during_the_search_end_with_one_final_answer(playouts):
    engine, sink = playouts
    submit(engine, query("r", maxVisits=3000, reportDuringSearchEvery=0.1))
    sink.wait(lambda: sink.finals("r"), 120)
    during = [m for m in sink.messages if m.get("id") == "r" and m.get("isDuringSearch")]
    assert during and len(sink.finals("r")) == 1
    visits = [m["rootInfo"]["visits"] for m in during]
    assert visits == sorted(visits)


def test_bad_lines_get_errors_and_the_engine_goes_on(playouts):
    engine, sink = playouts
    engine.submit_line("not json")
    submit(engine, query("bad", boardXSize=9, boardYSize=7))
    submit(engine, query("illegal", moves=[["B", "E5"], ["W", "E5"]]))
    submit(engine, query("huge", maxVisits=10 ** 12, analyzeTurns=[0]))
    submit(engine, {"id": "c", "action": "clear_cache"})
    submit(engine, query("ok", maxVisits=5))
    sink.wait(lambda: sink.finals("ok"))
    errors = [m for m in sink.messages if "error" in m]
    assert errors[0]["error"].startswith("could not read the line as JSON")
    assert {m.get("id") for m in errors[1:]} == {"bad", "illegal"}
    assert any(m.get("id") == "huge" and "warning" in m for m in sink.messages)
    assert {"id": "c", "action": "clear_cache"} in sink.messages
    submit(engine, {"id": "t", "action": "terminate", "terminateId": "huge"})
    sink.wait(lambda: sink.finals("huge"), 30)


def test_thousands_of_queued_turns_each_get_an_answer():
    sink = Collector()
    engine = AnalysisEngine("none", write=sink, seed=2)
    moves = []
    for k in range(300):
        moves.append(["B" if k % 2 == 0 else "W", "pass"])
    for n in range(10):
        submit(engine, query(f"many{n}", moves=moves, analyzeTurns=list(range(301)),
                             maxVisits=1))
    sink.wait(lambda: sum(len(sink.finals(f"many{n}")) for n in range(10)) == 3010, 120)
    engine.close()
    for n in range(10):
        assert sorted(m["turnNumber"] for m in sink.finals(f"many{n}")) == list(range(301))


def test_analyze_blocks_and_returns_final_answers_in_turn_order():
    engine = AnalysisEngine("none", seed=3)
    seen = []
    answers = engine.analyze(query("x", analyzeTurns=[2, 0, 1], maxVisits=10),
                             on_response=seen.append)
    assert [a["turnNumber"] for a in answers] == [0, 1, 2] and len(seen) == 3
    with pytest.raises(AnalysisError, match="boardYSize"):
        engine.analyze(query("y", boardYSize=13))
    engine.close()


def test_a_finished_game_is_answered_by_the_count(playouts):
    engine, sink = playouts
    moves = [["B", "E5"], ["W", "pass"], ["B", "pass"]]
    submit(engine, query("end", moves=moves, komi=0.5, includeOwnership=True))
    sink.wait(lambda: sink.finals("end"))
    answer = sink.finals("end")[0]
    assert answer["moveInfos"] == [] and answer["rootInfo"]["scoreLead"] == 80.5
    assert answer["rootInfo"]["winrate"] == 1.0 and len(answer["ownership"]) == 81


@pytest.mark.parametrize("rules, lead", [("chinese", 6.5), ("tromp-taylor", -3.5)])
def test_a_finished_game_is_counted_as_its_rules_say(playouts, rules, lead):
    """White's D6 in Black's area (test_seki_pass.DEAD_STONE) is dead by
    imago's count; under Tromp-Taylor every stone standing at the end is
    alive, and the points around it are nobody's."""
    from test_seki_pass import DEAD_STONE

    engine, sink = playouts
    stones = [["B" if cell == "X" else "W", f"{'ABCDEFGHJ'[c]}{9 - r}"]
              for r, line in enumerate(DEAD_STONE) for c, cell in enumerate(line.split())
              if cell in "XO"]
    submit(engine, query(rules, initialStones=stones, moves=[["B", "pass"], ["W", "pass"]],
                         komi=10.5, rules=rules))
    sink.wait(lambda: sink.finals(rules))
    assert sink.finals(rules)[0]["rootInfo"]["scoreLead"] == lead


def run_cli(args: list[str], lines: list[str], timeout: float = 240) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "imago", "analysis", *args],
                          input="\n".join(lines) + "\n", capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env=env)


def test_the_command_line_finishes_open_queries_when_input_ends():
    done = run_cli(["-model", "none"], [json.dumps(query("end", analyzeTurns=[0, 1, 2]))])
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert sorted(a["turnNumber"] for a in answers if "turnNumber" in a) == [0, 1, 2]


def test_bad_command_lines_and_configs_get_one_line(tmp_path):
    bad = tmp_path / "bad.cfg"
    bad.write_text("maxVisits = many\n")
    for args, expected in ((["-config", str(tmp_path / "missing.cfg")], "cannot read config"),
                           (["-config", str(bad)], "maxVisits"),
                           (["-analysis-threads", "0"], "at least 1"),
                           (["-model", str(tmp_path / "none.keras")], "model not found")):
        done = run_cli(args, [])
        assert done.returncode == 2 and expected in done.stderr
        assert "Traceback" not in done.stderr


@pytest.mark.skipif(not MODEL.exists(), reason="the shipped model is missing")
def test_katrain_starts_it_with_its_own_command_line_and_config(tmp_path):
    """KaTrain's command (``analysis -model M -config C -analysis-threads N``),
    a config with KaTrain's keys, and a query shaped like KaTrain's:
    Japanese rules, overrideSettings, moves ownership, policy."""
    config = tmp_path / "analysis_config.cfg"
    config.write_text('logFile = "~/.katrain/katago_log.txt"\nreportAnalysisWinratesAs = BLACK\n'
                      "conservativePass = true\nmaxVisits = 500\nnumSearchThreads = 6\n"
                      "nnMaxBatchSize = 64\nnnCacheSizePowerOfTwo = 19\nnnRandomize = true\n")
    katrain_query = {
        "id": "QUERY:1", "rules": "japanese", "priority": 1, "analyzeTurns": [2],
        "maxVisits": 40, "komi": 6.5, "boardXSize": 9, "boardYSize": 9,
        "includeOwnership": True, "includeMovesOwnership": True, "includePolicy": True,
        "initialStones": [], "initialPlayer": "B", "moves": [["B", "E5"], ["W", "C3"]],
        "overrideSettings": {"reportAnalysisWinratesAs": "BLACK", "maxTime": 8.0,
                             "wideRootNoise": 0.0},
    }
    done = run_cli(["-model", str(MODEL), "-config", str(config), "-analysis-threads", "2"],
                   [json.dumps(katrain_query), json.dumps({"action": "query_version",
                                                           "id": "QUERY:2"})])
    assert done.returncode == 0, done.stderr
    assert "config keys not used by imago" in done.stderr
    messages = [json.loads(line) for line in done.stdout.splitlines()]
    answer = next(m for m in messages if m.get("id") == "QUERY:1" and "turnNumber" in m)
    assert any(m.get("field") == "rules" and "warning" in m for m in messages)
    assert not any(m.get("field") == "overrideSettings" for m in messages)  # all understood
    assert answer["turnNumber"] == 2 and answer["rootInfo"]["currentPlayer"] == "B"
    assert len(answer["ownership"]) == 81 and len(answer["policy"]) == 82
    assert abs(sum(p for p in answer["policy"] if p > 0) - 1) < 1e-3
    assert answer["policy"][9 * 4 + 4] == -1  # E5, occupied (row 4 from the top)
    first = answer["moveInfos"][0]
    assert len(first["ownership"]) == 81
    assert {"move", "visits", "winrate", "scoreLead", "prior", "lcb", "order", "pv"} <= set(first)
    assert next(m for m in messages if m.get("id") == "QUERY:2")["action"] == "query_version"


def test_ownership_spread_over_the_search_tree():
    # KataGo's includeOwnershipStdev / includeMovesOwnershipStdev: how much
    # the positions the search evaluated disagree on each point's owner
    engine = AnalysisEngine(str(MODEL), seed=1, max_searches=2)
    try:
        [answer] = engine.analyze(query("s", analyzeTurns=[2], maxVisits=60,
                                        includeOwnershipStdev=True,
                                        includeMovesOwnershipStdev=True))
        [both] = engine.analyze(query("o", analyzeTurns=[2], maxVisits=60,
                                      includeOwnership=True, includeOwnershipStdev=True))
    finally:
        engine.close(wait=False)
    assert "ownership" not in answer and len(answer["ownershipStdev"]) == 81
    spread = answer["ownershipStdev"]
    assert all(0.0 <= v <= 1.0 for v in spread) and max(spread) > 0.01
    moves = answer["moveInfos"]
    assert all(len(m["ownershipStdev"]) == 81 and "ownership" not in m for m in moves)
    assert max(moves[0]["ownershipStdev"]) > 0.01  # many positions under it
    alone = [m for m in moves if m["visits"] == 1]
    assert all(max(m["ownershipStdev"]) == 0.0 for m in alone)  # one answer, no spread
    assert len(both["ownership"]) == len(both["ownershipStdev"]) == 81


def test_score_stdev_is_the_spread_the_ownership_leaves_open():
    """``scoreStdev`` (KataGo's spread of the final score) from the
    network's ownership: wide on an open board, narrower once the board is
    fuller, 0 for a board of settled points; every move and the root have
    one, and a playout engine, which keeps no ownership, gives none."""
    from imago.search.reports import score_stdev

    assert score_stdev([1.0, -1.0, 1.0]) == 0.0 and score_stdev([0.0] * 81) == 9.0
    engine = AnalysisEngine(str(MODEL), seed=1, max_searches=2)
    try:
        [opening] = engine.analyze(query("open", analyzeTurns=[0], maxVisits=40))
        late = [["B", v] for v in ("C3", "C4", "C5", "C6", "C7", "D3", "D7")] + \
               [["W", v] for v in ("F3", "F4", "F5", "F6", "F7", "E3", "E7")]
        [fuller] = engine.analyze(query("late", moves=[], initialStones=late,
                                        analyzeTurns=[0], maxVisits=40))
    finally:
        engine.close(wait=False)
    spreads = [m["scoreStdev"] for m in opening["moveInfos"]]
    assert all(0.0 < s <= 9.0 for s in spreads)
    assert 0.0 < opening["rootInfo"]["scoreStdev"] <= 9.0
    assert fuller["rootInfo"]["scoreStdev"] < opening["rootInfo"]["scoreStdev"]
    engine = AnalysisEngine("none", seed=1)
    try:
        [answer] = engine.analyze(query("p", analyzeTurns=[0], maxVisits=20))
    finally:
        engine.close(wait=False)
    assert "scoreStdev" not in answer["rootInfo"]
    assert all("scoreStdev" not in m for m in answer["moveInfos"])


# Black's corner string (7x7) has no liberty but the straight three A7-B7-C7:
# B7 lives, A7 and C7 die (see test_local_reading); White's wall is safe.
STRAIGHT_THREE_STONES = [["B", "D7"], ["B", "A6"], ["B", "B6"], ["B", "C6"], ["B", "D6"],
                         ["W", "E7"], ["W", "E6"], ["W", "A5"], ["W", "B5"], ["W", "C5"],
                         ["W", "D5"], ["W", "E5"]]


def _corner_answer(settings: dict, allowed: list[str]) -> dict:
    engine = AnalysisEngine("none", seed=1, settings=settings)
    try:
        [answer] = engine.analyze({
            "id": "corner", "initialStones": STRAIGHT_THREE_STONES, "moves": [],
            "initialPlayer": "B", "rules": "chinese", "komi": 0, "boardXSize": 7,
            "boardYSize": 7, "maxVisits": 60, "analyzeTurns": [0],
            "allowMoves": [{"player": "B", "moves": allowed, "untilDepth": 1}]})
    finally:
        engine.close(wait=False)
    return answer


def test_the_root_strikes_the_moves_its_closed_off_corner_reads_as_lost():
    """As the engine that plays: the root reads the corner out, and the
    moves that kill Black's own string there are not searched; the one
    move left gets every visit."""
    answer = _corner_answer({}, ["A7", "B7", "C7"])
    assert [(info["move"], info["visits"]) for info in answer["moveInfos"]] == [("B7", 60)]
    assert answer["rootInfo"]["visits"] == 60
    unread = _corner_answer({"local_reading": False}, ["A7", "B7", "C7"])
    assert {info["move"] for info in unread["moveInfos"]} & {"A7", "C7"}


def test_a_lone_allowed_move_is_searched_for_its_value(playouts):
    """One move allowed: it gets the query's visits and its value (it was
    answered unsearched, with a win rate of 0 and no visits)."""
    engine, _ = playouts
    [answer] = engine.analyze(query("lone", analyzeTurns=[2], maxVisits=40, allowMoves=[
        {"player": "B", "moves": ["G7"], "untilDepth": 1}]))
    [info] = answer["moveInfos"]
    assert (info["move"], info["visits"]) == ("G7", 40)
    assert answer["rootInfo"]["visits"] == 40 and 0.0 < info["winrate"] < 1.0


def test_avoid_moves_hold_to_their_depth_below_the_root(playouts):
    """White's second moves of the lines a search gives with ``untilDepth``
    1 (the root's ply only, Black's: nothing changes for White), avoided
    with ``untilDepth`` 2, appear in no line as White's answer."""
    engine, _ = playouts

    def second_moves(depth: int, avoided: list) -> set:
        [answer] = engine.analyze(query(f"deep{depth}", analyzeTurns=[2], maxVisits=300,
                                        avoidMoves=[{"player": "W", "moves": avoided,
                                                     "untilDepth": depth}]))
        return {info["pv"][1] for info in answer["moveInfos"] if len(info["pv"]) > 1}

    free = second_moves(1, ["A1"])
    deep = second_moves(2, sorted(free))
    assert free and deep and not deep & free


def test_the_config_turns_the_local_reading_off_and_names_a_bad_value():
    from imago.analysis.cli import engine_options

    assert engine_options({"imagoLocalReading": "false"})["settings"]["local_reading"] is False
    assert "local_reading" not in engine_options({})["settings"]
    with pytest.raises(ValueError, match="imagoLocalReading"):
        engine_options({"imagoLocalReading": "maybe"})


# A finished 9x9 game (GNU Go against itself, B+7.5 by the count): White's A8
# stands dead in Black's top-left corner.
ENDED_BLACK = ["D9", "C8", "E8", "B7", "E7", "E6", "E5", "F5", "G4", "C3", "F3", "G3", "D2",
               "E2", "F2", "C1"]
ENDED_WHITE = ["E9", "F9", "A8", "F8", "F7", "F6", "G6", "G5", "H4", "H3", "G2", "J2", "D1",
               "E1", "F1", "G1"]


def test_lines_that_end_with_two_passes_count_as_the_finished_game_does():
    """White's pass after Black's ends the game: the search counts that line
    as the answer for the finished turn does, White's dead A8 removed (it
    counted every stone standing, W+25.5, and called Black's last pass a
    blunder of 30 points in a review)."""
    stones = [["B", v] for v in ENDED_BLACK] + [["W", v] for v in ENDED_WHITE]
    engine = AnalysisEngine("none", seed=1)
    try:
        answers = engine.analyze({
            "id": "end", "initialStones": stones, "moves": [["B", "pass"], ["W", "pass"]],
            "initialPlayer": "B", "rules": "chinese", "komi": 7.5, "boardXSize": 9,
            "boardYSize": 9, "maxVisits": 50, "analyzeTurns": [1, 2],
            "allowMoves": [{"player": "W", "moves": ["pass"], "untilDepth": 1}]})
    finally:
        engine.close(wait=False)
    passing, finished = answers
    [info] = passing["moveInfos"]
    assert info["move"] == "pass" and info["scoreLead"] == pytest.approx(7.5)
    assert finished["rootInfo"]["scoreLead"] == pytest.approx(7.5)
