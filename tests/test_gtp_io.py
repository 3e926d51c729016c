"""ImagoIO: GTP v2 framing, preprocessing, ids, robustness, and the
``imagocli.py`` executable."""

from __future__ import annotations

import io
import os
import queue
import subprocess
import sys
from pathlib import Path

import pytest

from imago.engine.engine import GameEngine
from imago.gtp.io import ImagoIO, format_response, parse_command, preprocess
from imago.engine.random_algorithm import RandomAlgorithm

REPO = Path(__file__).resolve().parent.parent
CLI = REPO / "imagocli.py"


def make_engine(size: int = 9) -> GameEngine:
    return GameEngine(RandomAlgorithm(seed=7), size, 7.5)


def run_gtp(text: str, engine: GameEngine = None) -> str:
    """Everything ImagoIO writes for input ``text``, run to the end."""
    out = io.StringIO()
    ImagoIO(engine or make_engine(), io.StringIO(text), out).run()
    return out.getvalue()


# ---------------------------------------------------------------- helpers
@pytest.mark.parametrize("raw, clean", [
    ("name\n", "name"),
    ("  play\tb\td4  \n", "play b d4"),
    ("play b d4 # a comment\n", "play b d4"),
    ("# only a comment\n", ""),
    ("\n", ""),
    ("   \t \r\n", ""),
    ("na\x01me\x7f\r\n", "name"),
    ("1 boardsize\x0b 9\n", "1 boardsize 9"),
    ("komi 6.5 # 7.5 # more\n", "komi 6.5"),
])
def test_preprocess(raw, clean):
    assert preprocess(raw) == clean


def test_parse_command_ids():
    cmd = parse_command("12 play b D4\n")
    assert (cmd.id, cmd.name, cmd.args) == (12, "play", ["b", "D4"])
    cmd = parse_command("genmove w")
    assert (cmd.id, cmd.name, cmd.args) == (None, "genmove", ["w"])
    assert parse_command("   # nothing\n") is None
    assert parse_command("7").name == ""
    # only ASCII digits make an id
    assert parse_command("\u00b2 name").id is None
    assert parse_command("\u0663 name").id is None


def test_odd_ids_and_names_get_answers():
    out = run_gtp("\u00b2 name\n\u0663\n99999999999999999999 name\n")
    assert out == ("? unknown command\n\n? unknown command\n\n"
                   "=99999999999999999999 imago\n\n")


def test_format_response():
    assert format_response(None, True, "") == "=\n\n"
    assert format_response(3, True, "D4") == "=3 D4\n\n"
    assert format_response(4, False, "illegal move") == "?4 illegal move\n\n"
    # empty lines inside a response would end it early: they are dropped
    assert format_response(None, True, "\na\n\nb\n") == "= \na\nb\n\n"
    assert format_response(5, False, "two\nlines") == "?5 two lines\n\n"


# ---------------------------------------------------------------- transcripts
def test_ids_echoed_on_success_and_error():
    out = run_gtp("1 name\n2 foo\n3 protocol_version\n004 play b zz\nversion\n")
    assert out == ("=1 imago\n\n" "?2 unknown command\n\n" "=3 2\n\n"
                   "?4 syntax error\n\n" f"= {__import__('imago').__version__}\n\n")


def test_preprocessing_in_the_loop():
    text = ("# a header comment\n"
            "\n"
            "   \n"
            "1\tboardsize\t9  # tabs and a comment\n"
            "2 play b\x01 c3\r\n"
            "\x02\x03\n"
            "3 known_command\tplay\n")
    assert run_gtp(text) == "=1\n\n=2\n\n=3 true\n\n"


def test_every_response_ends_with_one_blank_line():
    out = run_gtp("showboard\nlist_commands\nmove_history\nfinal_score\n")
    blocks = out.split("\n\n")
    assert blocks[-1] == ""
    assert len(blocks) == 5
    assert all(b.startswith("=") for b in blocks[:-1])
    assert "\n\n\n" not in out


def test_eof_without_quit_ends_cleanly():
    assert run_gtp("") == ""
    assert run_gtp("name") == "= imago\n\n"  # last line without a newline


def test_quit_answers_then_stops():
    engine = make_engine()
    out = run_gtp("name\n5 quit\nname\n", engine)
    assert out == "= imago\n\n=5\n\n"
    assert engine.quit_requested


def test_exception_in_a_handler_does_not_end_the_loop(monkeypatch, caplog):
    engine = make_engine()

    def broken() -> str:
        raise RuntimeError("kaboom")

    monkeypatch.setattr(engine, "showboard", broken)
    out = run_gtp("1 showboard\n2 name\n", engine)
    assert out == "?1 internal error: RuntimeError: kaboom\n\n=2 imago\n\n"
    assert "Traceback" in caplog.text and "kaboom" in caplog.text


def test_custom_executor_errors_are_contained():
    def execute(session, name, args):
        if name == "boom":
            raise KeyError(name)
        return " ".join([name] + list(args))

    out = io.StringIO()
    ImagoIO(make_engine(), io.StringIO("boom\necho a b\n"), out, execute=execute).run()
    assert out.getvalue() == "? internal error: KeyError: 'boom'\n\n= echo a b\n\n"


class CountingStream(io.StringIO):
    def __init__(self):
        super().__init__()
        self.flushes = []

    def flush(self):
        self.flushes.append(self.getvalue())
        super().flush()


def test_flush_after_every_response():
    out = CountingStream()
    ImagoIO(make_engine(), io.StringIO("name\nversion\nfoo\n"), out).run()
    assert len(out.flushes) == 3
    assert out.flushes[0] == "= imago\n\n"


class ClosedStream(io.StringIO):
    def write(self, text):
        raise BrokenPipeError("gone")


def test_closed_output_ends_the_loop():
    gtp = ImagoIO(make_engine(), io.StringIO("name\nname\n"), ClosedStream())
    gtp.run()  # returns instead of raising
    assert gtp._closed


def test_input_pending_and_streaming_hooks():
    out = io.StringIO()
    gtp = ImagoIO(make_engine(), io.StringIO("name\n"), out)
    assert gtp.next_line() == "name\n"
    assert gtp.next_line() is None
    assert gtp.input_pending()  # EOF stays visible
    assert gtp.next_line() is None
    gtp.write_line("info move D4 visits 1")
    assert out.getvalue() == "info move D4 visits 1\n"


def test_next_line_timeout():
    r, w = os.pipe()
    with os.fdopen(r) as reader, os.fdopen(w, "w") as writer:
        gtp = ImagoIO(make_engine(), reader, io.StringIO())
        with pytest.raises(queue.Empty):
            gtp.next_line(timeout=0.05)
        assert not gtp.input_pending()
        writer.write("name\n")
        writer.flush()
        assert gtp.next_line(timeout=5) == "name\n"


# ---------------------------------------------------------------- imagocli.py
def run_cli(text: str, *args: str, cwd=None) -> subprocess.CompletedProcess:
    """imagocli.py as a subprocess; the engine is ``random`` unless named
    (these tests are about the protocol, not the default engine)."""
    if "--algorithm" not in args and "-a" not in args:
        args = ("--algorithm", "random", *args)
    return subprocess.run([sys.executable, str(CLI), *args], input=text, text=True,
                          capture_output=True, timeout=60, cwd=cwd)


def test_cli_transcript_from_another_directory(tmp_path):
    proc = run_cli("1 protocol_version\n2 boardsize 9\n3 play b e5\n4 genmove w\n"
                   "5 play w e5\n6 quit\n", "--seed", "3", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    blocks = proc.stdout.split("\n\n")
    assert blocks[:3] == ["=1 2", "=2", "=3"]
    assert blocks[3].startswith("=4 ") and blocks[3] != "=4 E5"
    assert blocks[4:] == ["?5 illegal move", "=6", ""]
    assert "Traceback" not in proc.stderr
    assert "illegal move" in proc.stderr and "occupied" in proc.stderr  # reason logged


def test_cli_is_repeatable_with_a_seed():
    text = "boardsize 9\n" + "genmove b\ngenmove w\n" * 5
    first = run_cli(text, "--seed", "11").stdout
    assert first == run_cli(text, "--seed", "11").stdout
    assert first.count("=") == 11


def test_cli_options_and_eof():
    proc = run_cli("komi\n1 name\n", "--size", "13", "--komi", "0.5", "--time", "2",
                   "--log-level", "WARNING")
    assert proc.returncode == 0
    assert proc.stdout == "? syntax error\n\n=1 imago\n\n"
    assert proc.stderr == ""  # WARNING hides the INFO start-up line


def test_cli_rules_set_the_scoring_until_the_controller_sends_its_own():
    proc = run_cli("kata-get-rules\nkgs-rules chinese\nkata-get-rules\n", "--rules", "japanese")
    assert proc.returncode == 0, proc.stderr
    first, second = proc.stdout.split("\n\n")[0::2]
    assert '"scoring":"TERRITORY"' in first and '"scoring":"AREA"' in second
    assert "--rules: imago plays positional superko" in proc.stderr  # Japanese ko, seki tax
    proc = run_cli("", "--rules", "chess")
    assert proc.returncode == 2 and "argument --rules: unknown rules" in proc.stderr


def test_cli_verbose_logs_commands_to_stderr_only():
    proc = run_cli("name\n", "-v")
    assert proc.stdout == "= imago\n\n"
    assert "<< name" in proc.stderr


def test_cli_bad_arguments():
    proc = run_cli("", "--algorithm", "nosuch")
    assert proc.returncode == 2 and "invalid choice" in proc.stderr
    proc = run_cli("", "--size", "30")
    assert proc.returncode == 2
    assert run_cli("", "--help").stdout.count("--algorithm") >= 1


def test_cli_survives_binary_garbage():
    proc = subprocess.run([sys.executable, str(CLI), "--algorithm", "random"],
                          input=b"\xff\xfe name\nname\n",
                          capture_output=True, timeout=60)
    assert proc.returncode == 0
    assert proc.stdout.decode().endswith("= imago\n\n")


def test_cli_does_not_import_tensorflow():
    code = ("import sys, imago.gtp.cli, imago.gtp.commands;"
            "assert 'tensorflow' not in sys.modules, 'tensorflow imported'")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO, timeout=60)


def test_imagocli_main_is_importable():
    sys.path.insert(0, str(REPO))
    try:
        import imagocli
    finally:
        sys.path.remove(str(REPO))
    assert callable(imagocli.main)


def test_cli_algorithm_options():
    from imago.gtp.cli import parse_option as _option

    assert _option("visits=400") == ("visits", 400)
    assert _option("c-puct=1.5") == ("c_puct", 1.5)
    assert _option("model=nets/a.keras") == ("model", "nets/a.keras")
    assert _option("noise=false") == ("noise", False)
    text = "boardsize 9\ngenmove b\ngenmove w\n"
    assert run_cli(text, "-o", "seed=4").stdout == run_cli(text, "--seed", "4").stdout
    proc = run_cli("name\n", "-o", "visits=10")  # random takes no visits
    assert proc.returncode == 2 and proc.stdout == ""
    assert "visits" in proc.stderr
    assert run_cli("", "-o", "novalue").returncode == 2


def test_cli_visits_and_no_resign_flags():
    proc = run_cli("genmove b\n", "--algorithm", "uct", "--visits", "30", "--no-resign",
                   "--size", "5")
    assert proc.returncode == 0 and proc.stdout.startswith("= ")
    refused = run_cli("", "--algorithm", "random", "--visits", "30")
    assert refused.returncode == 2
    assert "does not search" in refused.stderr


def test_shared_options_speak_each_algorithm_s_language():
    from imago.engine.algorithm import shared_options
    assert shared_options("mcts", 100, True) == {"visits": 100, "no_resign": True}
    assert shared_options("uct", None, True) == {"resign_threshold": 0.0}
    assert shared_options("random") == {}
    with pytest.raises(ValueError):
        shared_options("random", visits=10)
