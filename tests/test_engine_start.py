"""Starting an engine: answers before TensorFlow, options and model files
checked with reasons, networks that play one size only refused on others."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from imago.engine.algorithm import checked, create_algorithm
from imago.nn.evaluator import default_model_path, model_file
from imago.nn.modelfile import ModelSizeError

REPO = Path(__file__).resolve().parent.parent
MODELS = REPO / "models"

needs_default_model = pytest.mark.skipif(default_model_path() is None,
                                         reason="the shipped model or TensorFlow is missing")


@needs_default_model
def test_gtp_answers_the_first_commands_before_tensorflow_is_imported():
    script = textwrap.dedent("""
        import io, sys
        from imago.engine.algorithm import create_algorithm
        from imago.engine.engine import GameEngine
        from imago.gtp.io import ImagoIO

        algorithm = create_algorithm("mcts", visits=8)
        engine = GameEngine(algorithm, 19, 7.5)
        out = io.StringIO()
        commands = "name\\nversion\\nprotocol_version\\nlist_commands\\nboardsize 9\\nkomi 6.5\\n"
        ImagoIO(engine, io.StringIO(commands), out).run()
        print(out.getvalue().count("\\n\\n"), "tensorflow" in sys.modules, "keras" in sys.modules)
        algorithm.prepare(9)
        print("tensorflow" in sys.modules, algorithm.choose_move(engine.state, 1) is not None)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=REPO, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["6", "False", "False", "True", "True"]


@needs_default_model
def test_a_move_asked_for_while_the_network_loads_waits_for_it():
    from imago.engine.algorithm import prepare_in_background
    from imago.game import BLACK, GameState

    algorithm = create_algorithm("mcts", visits=8)
    thread = prepare_in_background(algorithm, 9)
    state = GameState(9)
    assert algorithm.choose_move(state, BLACK) is not None
    thread.join()
    assert algorithm.warmed_up == {9}


@needs_default_model
def test_the_warm_up_leaves_the_seeded_draws_as_they_were():
    """A network paid for after a reseed (the first move on a new board
    size) plays as one paid for before it: the warm-up draws no random
    symmetry, so a seed's moves do not hang on when the network loaded."""
    from imago.game import BLACK, GameState

    def searched(algorithm):
        move = algorithm.choose_move(GameState(9), BLACK)
        return move, algorithm.summary()

    early = create_algorithm("mcts", visits=24, seed=11)
    early.prepare(9)
    early.reseed(3)
    late = create_algorithm("mcts", visits=24, seed=11)
    late.reseed(3)  # its first move pays for the network
    assert searched(late) == searched(early)


@pytest.mark.parametrize("options, reason", [
    ({"visits": 0}, "visits must be at least 1, not 0"),
    ({"visits": 2.5}, "visits must be a whole number, not 2.5"),
    ({"c_puct": float("nan")}, "c_puct must be a finite number, not nan"),
    ({"c_puct": 0}, "c_puct must be above 0, not 0"),
    ({"batch_size": -1}, "batch_size must be at least 1"),
    ({"resign_threshold": 2}, "resign_threshold must be at least 0 and at most 1, not 2"),
    ({"noise_fraction": float("inf")}, "noise_fraction must be a finite number"),
    ({"temperature": "hot"}, "temperature must be a finite number, not 'hot'"),
    ({"model": "README.md"}, "README.md is not a Keras model file"),
    ({"model": "models/conv9.json"}, "is not a Keras model file"),
    ({"model": "nowhere.keras"}, "no model at nowhere.keras"),
])
def test_mcts_refuses_bad_options_with_the_reason(options, reason, monkeypatch):
    monkeypatch.chdir(REPO)
    with pytest.raises(ValueError, match=reason.replace("(", r"\(").replace(".", r"\.")):
        create_algorithm("mcts", **options)


@pytest.mark.parametrize("name, options", [("uct", {"visits": 0}), ("uct", {"exploration": -1}),
                                           ("policy", {"temperature": -1})])
def test_other_algorithms_check_their_options(name, options):
    with pytest.raises(ValueError, match="must be"):
        create_algorithm(name, **options)


def test_an_option_an_algorithm_does_not_take_is_named_with_its_options(monkeypatch):
    with pytest.raises(ValueError, match=r"the uct algorithm has no option 'c_puct'; "
                                         r"its options: .*exploration.*visits"):
        create_algorithm("uct", c_puct=2)
    # A network's model given where no network can run (imago then plays uct):
    # the reason, not Python's "unexpected keyword argument".
    import imago.nn.evaluator as evaluator

    monkeypatch.setattr(evaluator, "networks_can_run", lambda: False)
    with pytest.raises(ValueError, match="a network needs Keras with TensorFlow or JAX"):
        create_algorithm("uct", model="models/rl9k.keras")


def test_checked_accepts_good_values_and_converts():
    assert checked("visits", "12", int, low=1) == 12
    assert checked("c", 1, float, above=0) == 1.0
    with pytest.raises(ValueError, match="flag must be a finite number, not True"):
        checked("flag", True)


@pytest.mark.parametrize("name", ["conv9", "dense9"])
def test_networks_made_for_9x9_refuse_other_sizes_by_their_metadata(name):
    model = model_file(MODELS / f"{name}.keras")
    model.check_size(9)
    with pytest.raises(ModelSizeError, match=f"{name}.keras: this .* network was made for "
                                             r"9x9 boards, not 13x13"):
        model.check_size(13)
    assert not model.loaded
    policy = create_algorithm("policy", model=str(MODELS / f"{name}.keras"))
    with pytest.raises(ValueError, match="not 19x19"):
        policy.check_size(19)
    mcts = create_algorithm("mcts", model=str(MODELS / f"{name}.keras"))
    with pytest.raises(ValueError, match="not 13x13"):
        mcts.check_size(13)
    mcts.check_size(3)  # searched with playouts, not the network


def test_go_py_refuses_a_9x9_network_on_13x13_before_loading_it():
    proc = subprocess.run([sys.executable, str(REPO / "go.py"), "--size", "13", "--algorithm",
                           "policy", "-o", "model=models/conv9.keras"], input="quit\n",
                          capture_output=True, text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 2
    assert "this conv network was made for 9x9 boards, not 13x13" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_model_files_that_are_no_models_are_named(tmp_path):
    pytest.importorskip("tensorflow")
    from imago.nn.networks import load_network

    fake = tmp_path / "fake.keras"
    shutil.make_archive(str(tmp_path / "fake"), "zip", tmp_path)
    (tmp_path / "fake.zip").rename(fake)
    shutil.copy(MODELS / "conv9.json", tmp_path / "fake.json")
    with pytest.raises(ValueError, match="fake.keras: not a Keras model"):
        load_network(fake)
    other = tmp_path / "other.keras"
    shutil.copy(MODELS / "conv9.keras", other)
    meta = json.loads((MODELS / "conv9.json").read_text())
    meta["plane_set"] = "extended" if meta["plane_set"] != "extended" else "basic"
    (tmp_path / "other.json").write_text(json.dumps(meta))
    with pytest.raises(ValueError, match="input planes, its metadata says"):
        load_network(other)
    shutil.copy(MODELS / "conv9.keras", tmp_path / "alone.keras")
    with pytest.raises(FileNotFoundError, match="has no metadata file alone.json"):
        model_file(tmp_path / "alone.keras")
    (tmp_path / "bad.keras").write_bytes((MODELS / "conv9.keras").read_bytes())
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(ValueError, match="not a model's metadata"):
        model_file(tmp_path / "bad.keras")


def test_gtp_boardsize_names_the_networks_sizes_and_keeps_the_game():
    from imago.engine.engine import GameEngine
    from imago.game import BLACK, vertex_to_index
    from imago.gtp.io import ImagoIO
    import io

    engine = GameEngine(create_algorithm("policy", model=str(MODELS / "conv9.keras")), 9)
    engine.play(BLACK, vertex_to_index("E5", 9))
    out = io.StringIO()
    ImagoIO(engine, io.StringIO("boardsize 13\nboardsize 1\n"), out).run()
    assert out.getvalue() == ("? unacceptable size (conv9.keras: this conv network was made "
                              "for 9x9 boards, not 13x13)\n\n? unacceptable size\n\n")
    assert engine.size == 9 and len(engine.state.history()) == 1


def test_imagocli_starts_on_9x9_with_a_9x9_network_and_refuses_another_size():
    command = [sys.executable, str(REPO / "imagocli.py"), "-a", "policy",
               "-o", "model=models/conv9.keras"]
    proc = subprocess.run(command, input="query_boardsize\nshowboard\n", capture_output=True,
                          text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 0 and "A B C D E F G H J\n" in proc.stdout
    assert " K " not in proc.stdout
    proc = subprocess.run(command + ["--size", "13"], input="", capture_output=True,
                          text=True, cwd=REPO, timeout=120)
    assert proc.returncode == 2
    assert "--size 13: conv9.keras: this conv network was made for 9x9 boards" in proc.stderr


def test_clear_board_waits_for_the_background_load_that_name_does_not():
    import threading
    import time

    from imago.engine.algorithm import DecisionAlgorithm
    from imago.engine.engine import GameEngine

    class SlowToLoad(DecisionAlgorithm):
        name = "slow"

        def __init__(self):
            self.loaded = threading.Event()
            self.sizes = []

        def prepare(self, size):
            time.sleep(0.3)
            self.sizes.append(size)
            self.loaded.set()

        def choose_move(self, state, color, seconds=None):
            return None

    algorithm = SlowToLoad()
    engine = GameEngine(algorithm, 9)
    engine.start_preparing()
    assert not algorithm.loaded.is_set()  # set-up goes on meanwhile
    engine.set_komi(6.5)
    engine.clear_board()
    assert algorithm.loaded.is_set()
    # a new size's network (9x9 and 5x5 have their own) loads as the size is set
    algorithm.loaded.clear()
    engine.set_board_size(5)
    assert not algorithm.loaded.is_set()
    engine.clear_board()
    assert algorithm.loaded.is_set() and algorithm.sizes == [9, 5]


def test_a_load_paid_by_the_first_genmove_does_not_shorten_the_next_moves():
    # --time 1 and a genmove before any clear_board: the first move waits for
    # the network; its search gets what is left, and the wait is no overrun
    # (it once cut the next 8 moves to 0.05 s each)
    import time

    from imago.engine.algorithm import DecisionAlgorithm
    from imago.engine.engine import GameEngine
    from imago.engine.timecontrol import TimeControl

    class SlowToLoadTimed(DecisionAlgorithm):
        name = "slow"

        def __init__(self):
            self.budgets = []

        def prepare(self, size):
            time.sleep(0.6)

        def choose_move(self, state, color, seconds=None):
            self.budgets.append(seconds)
            time.sleep(seconds)
            return None

    algorithm = SlowToLoadTimed()
    engine = GameEngine(algorithm, 9, time_control=TimeControl(1.0))
    engine.start_preparing()
    engine.genmove(1)
    engine.genmove(2)
    first, second = algorithm.budgets
    assert first < 0.5  # 0.9 s (the first move's share) less the wait
    assert second > 0.6  # 1 s less the search's own overrun, a few milliseconds


@needs_default_model
def test_the_default_network_is_the_shipped_one_of_the_board_size():
    from imago.analysis.engine import AnalysisEngine
    from imago.analysis.query import parse_line
    from imago.nn.evaluator import DEFAULT_MODEL, SIZE_MODELS, shipped_model

    assert DEFAULT_MODEL == MODELS / "soup.keras"
    assert shipped_model(5) == SIZE_MODELS[5] == MODELS / "residual5.keras"
    assert shipped_model(9) == SIZE_MODELS[9] == MODELS / "soup9.keras"
    assert shipped_model(13) == SIZE_MODELS[13] == MODELS / "rl13x3.keras"
    assert {shipped_model(size) for size in (6, 7, 11, 15, 19)} == {DEFAULT_MODEL}
    mcts = create_algorithm("mcts", visits=8, seed=1)
    assert mcts.networks.for_size(11).path == mcts.networks.for_size(19).path == DEFAULT_MODEL
    assert mcts.networks.for_size(11) is mcts.networks.for_size(19)  # one evaluator a file
    assert mcts.networks.for_size(13).path == SIZE_MODELS[13]
    assert mcts.networks.for_size(9).path == SIZE_MODELS[9]
    assert mcts.networks.for_size(5).path == SIZE_MODELS[5]
    assert not mcts.networks.uses_network(4)  # below 5x5: the search alone
    residual9 = MODELS / "residual9.keras"
    given = create_algorithm("mcts", model=str(residual9), visits=8)
    assert given.networks.for_size(19).path == residual9  # a model given plays every size
    policy = create_algorithm("policy")
    assert policy._model_for(19).path == policy._model_for(7).path == DEFAULT_MODEL
    assert policy._model_for(13).path == SIZE_MODELS[13]
    assert policy._model_for(9).path == SIZE_MODELS[9]
    engine = AnalysisEngine("default", seed=1, write=lambda answer: None)
    try:
        query = parse_line('{"id": "a", "moves": [], "rules": "chinese", "komi": 7.5, '
                              '"boardXSize": 13, "boardYSize": 13, "maxVisits": 4}').query
        assert engine._pool_for(query).evaluator.path == SIZE_MODELS[13]
    finally:
        engine.close()


def test_the_shipped_network_is_found_with_the_back_end_keras_is_told_to_use(monkeypatch):
    """A machine with JAX and no TensorFlow (KERAS_BACKEND=jax) plays the
    shipped network; a back end that is not installed means no network
    (the engine then searches with playouts), whichever it is."""
    import importlib.util

    from imago.nn import evaluator

    monkeypatch.setenv("KERAS_BACKEND", "no.such")  # a dotted name: find_spec itself raises
    assert not evaluator.networks_can_run() and evaluator.default_model_path(9) is None
    installed = {"keras", "jax"}
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: object() if name in installed else None)
    monkeypatch.setenv("KERAS_BACKEND", "jax")
    assert evaluator.networks_can_run()
    assert evaluator.default_model_path(19) == evaluator.DEFAULT_MODEL
    assert evaluator.default_model_path(9) == evaluator.SIZE_MODELS[9]
    monkeypatch.delenv("KERAS_BACKEND")  # TensorFlow, not installed here
    assert not evaluator.networks_can_run() and evaluator.default_model_path(9) is None
    installed = {"tensorflow"}  # and no Keras
    assert evaluator.default_model_path(9) is None
