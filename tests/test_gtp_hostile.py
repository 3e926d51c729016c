"""Hostile and careless GTP input: lines holding control characters, binary
garbage and over-long lines, and bad arguments of every command -- each line
gets exactly one response, errors are one ``? reason`` line, and the game is
as it was after a refused command."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from imago.engine.engine import GameEngine
from imago.engine.random_algorithm import RandomAlgorithm
from imago.gtp.io import MAX_LINE_BYTES, ImagoIO, read_lines

REPO = Path(__file__).resolve().parent.parent
CLI = REPO / "imagocli.py"


def make_engine(size: int = 9) -> GameEngine:
    return GameEngine(RandomAlgorithm(seed=7), size, 7.5)


def run_bytes(data: bytes, engine: GameEngine = None) -> str:
    """Everything ImagoIO answers to the bytes ``data``, read as from stdin."""
    out = io.StringIO()
    ImagoIO(engine or make_engine(), io.BytesIO(data), out).run()
    return out.getvalue()


def responses(out: str) -> list[str]:
    """The responses of a transcript, each without its closing blank line."""
    assert out == "" or out.endswith("\n\n"), out
    return out.split("\n\n")[:-1]


# ---------------------------------------------------------------- lines
@pytest.mark.parametrize("inside", ["\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85",
                                    "\u2028", "\xc2\x85", "\x00", "\x7f"])
def test_only_lf_ends_a_line(inside):
    data = ("1 name" + inside + "version\n").encode("latin-1", "replace") \
        if inside != "\u2028" else "1 name\u2028version\n".encode()
    answers = responses(run_bytes(data))
    assert len(answers) == 1
    assert answers[0].startswith("?1 ")


def test_control_characters_inside_words_are_dropped():
    assert run_bytes(b"na\rme\r\n\x0cver\x1csion\xc2\x85\n") == \
        "= imago\n\n= " + __import__("imago").__version__ + "\n\n"


def test_crlf_and_lone_cr_lines():
    assert run_bytes(b"1 name\r\n2 protocol_version\r\n\r\n\r3 name") == \
        "=1 imago\n\n=2 2\n\n=3 imago\n\n"


def test_undecodable_bytes_are_replaced_not_fatal():
    answers = responses(run_bytes(b"\xff\xfe\x80 name\nplay b \xe9\xe9\n1 name\n"))
    assert answers == ["? unknown command", "? syntax error", "=1 imago"]


def test_overlong_line_gets_one_answer_and_the_session_goes_on():
    data = b"7 boardsize " + b"9" * (3 * MAX_LINE_BYTES) + b"\n8 name\n"
    assert run_bytes(data) == "?7 line too long\n\n=8 imago\n\n"
    # a line of exactly the limit is still read
    long_ok = b"known_command " + b"x" * (MAX_LINE_BYTES - 15) + b"\n"
    assert run_bytes(long_ok) == "= false\n\n"


def test_read_lines_text_and_bytes_agree():
    text = "a\rb\x0bc\n\nlast"
    assert list(read_lines(io.StringIO(text))) == ["a\rb\x0bc\n", "\n", "last"]
    assert list(read_lines(io.BytesIO(text.encode()))) == ["a\rb\x0bc\n", "\n", "last"]


def test_random_bytes_line_answered_once():
    import random

    rng = random.Random(5)
    for _ in range(50):
        line = bytes(rng.randrange(256) for _ in range(512)).replace(b"\n", b"")
        answers = responses(run_bytes(line + b"\n1 name\n"))
        assert answers[-1] == "=1 imago"
        assert len(answers) <= 2 and all(a[:1] in "=?" for a in answers)
        assert not any("internal error" in a for a in answers)


def test_cli_reads_lf_lines_only():
    proc = subprocess.run([sys.executable, str(CLI), "--algorithm", "random"],
                          input=b"name\rversion\n1 name\x0bversion\n2 name\n",
                          capture_output=True, timeout=60)
    assert proc.returncode == 0
    assert proc.stdout.decode() == "? unknown command\n\n?1 unknown command\n\n=2 imago\n\n"
