"""Pondering: the engine thinks on the opponent's time after a move of its
own, until the next command, and the next search goes on from that tree."""

from __future__ import annotations

import io
import os
import threading
import time

from imago.engine.engine import GameEngine
from imago.engine.mcts_algorithm import MCTSAlgorithm
from imago.engine.random_algorithm import RandomAlgorithm
from imago.game import BLACK, WHITE
from imago.gtp.cli import build_parser, engine_options
from imago.gtp.io import ImagoIO
from imago.terminal import TerminalGame


def playout_engine(**options) -> GameEngine:
    algorithm = MCTSAlgorithm(model="none", visits=60, seed=3, **options)
    return GameEngine(algorithm, 9, 7.5)


def test_pondering_grows_the_opponents_tree_once_per_move():
    engine = playout_engine(ponder=True, ponder_visits=400)
    assert engine.ponder(lambda: False) == 0  # no move of ours yet
    engine.genmove(BLACK)
    added = engine.ponder(lambda: False)
    search = engine.algorithm.search
    assert 0 < added and search.root_game_node is engine.state.current
    assert search.root_color == WHITE and search.root.total_visits() >= 400
    assert engine.ponder(lambda: False) == 0  # once per move


def test_the_next_search_goes_on_from_the_pondered_reply():
    engine = playout_engine(ponder=True, ponder_visits=600)
    engine.genmove(BLACK)
    engine.ponder(lambda: False)
    root = engine.algorithm.search.root
    reply = int(root.moves[root.visits.argmax()])
    pondered = int(root.visits.max())
    assert pondered > 60
    engine.play(WHITE, engine.algorithm.search.point_of(reply))
    engine.genmove(BLACK)
    # the 60 visits a move were there already: the search kept the subtree
    assert engine.algorithm.search.root.total_visits() >= pondered


def test_stop_ends_pondering_and_it_is_off_by_default():
    engine = playout_engine(ponder=True)
    engine.genmove(BLACK)
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 5

    added = engine.ponder(stop)
    assert 0 < added < 200 and len(calls) == 6
    quiet = playout_engine()
    quiet.genmove(BLACK)
    before = quiet.algorithm.search.root
    assert quiet.ponder(lambda: False) == 0 and quiet.algorithm.search.root is before
    random = GameEngine(RandomAlgorithm(seed=1), 9, 7.5)
    random.genmove(BLACK)
    assert random.ponder(lambda: False) == 0


def test_the_gtp_loop_ponders_until_the_next_command_comes():
    engine = GameEngine(RandomAlgorithm(seed=1), 9, 7.5)
    seen = []

    def ponder(stop) -> int:  # stands for a search: runs until told to stop
        due = engine._ponder_due
        engine._ponder_due = False
        if not due:
            return 0
        deadline = time.monotonic() + 10
        while not stop() and time.monotonic() < deadline:
            seen.append(time.monotonic())
            time.sleep(0.01)
        return len(seen)

    engine.ponder = ponder
    r, w = os.pipe()
    out = io.StringIO()
    with os.fdopen(r, "rb") as reader, os.fdopen(w, "wb") as writer:
        gtp = ImagoIO(engine, reader, out)
        loop = threading.Thread(target=gtp.run)
        loop.start()
        writer.write(b"1 genmove b\n")
        writer.flush()
        time.sleep(0.3)
        writer.write(b"2 name\n3 quit\n")
        writer.flush()
        loop.join(10)
    assert not loop.is_alive()
    assert out.getvalue().startswith("=1 ") and "=2 imago" in out.getvalue()
    assert len(seen) > 5 and seen[-1] - seen[0] > 0.1  # it pondered while nothing came


class SlowLines(io.StringIO):
    """Input typed by a person: each line comes after a pause."""

    def readline(self, *args) -> str:
        time.sleep(0.3)
        return super().readline(*args)


def test_the_terminal_game_ponders_while_the_person_thinks():
    game = TerminalGame.create(SlowLines("e5\nd4\nquit\n"), io.StringIO(), algorithm="mcts",
                               seed=1, options={"model": "none", "visits": 30, "ponder": True})
    engine = game.players[WHITE]
    ponder, added = engine.ponder, []

    def counted(state, stop) -> int:
        added.append(ponder(state, stop))
        return added[-1]

    engine.ponder = counted
    assert game.run() == 0
    assert len(added) == 2 and min(added) > 0  # after each of White's two moves
    assert [n.vertex for n in game.state.history()][::2] == ["E5", "D4"]


def test_go_py_and_imagocli_take_ponder():
    parser = build_parser()
    assert engine_options(parser.parse_args(["--ponder"]))["ponder"] is True
    assert "ponder" not in engine_options(parser.parse_args([]))
