"""The match tool and the GTP client, with real and deliberately bad engines."""

from __future__ import annotations

import sys
import textwrap

import pytest

from imago import match
from imago.match.client import EngineDied, GTPClient, GTPError, GTPTimeout

IMAGO = f"{sys.executable} imagocli.py --algorithm random --seed 3"


def fake_engine(tmp_path, name, genmove_body):
    """A tiny GTP engine whose genmove does ``genmove_body``."""
    script = tmp_path / f"{name}.py"
    script.write_text(textwrap.dedent(f"""
        import sys, time
        for line in sys.stdin:
            words = line.split()
            if not words:
                continue
            cmd = words[0]
            if cmd == "quit":
                print("=\\n", flush=True)
                break
            if cmd == "name":
                print("= {name}\\n", flush=True)
            elif cmd == "genmove":
        {textwrap.indent(textwrap.dedent(genmove_body), ' ' * 16)}
            else:
                print("=\\n", flush=True)
    """))
    return f"{sys.executable} {script}"


def test_client_talks_to_imago(tmp_path):
    with GTPClient(IMAGO.split(), cwd=None) as engine:
        assert engine.send("protocol_version") == "2"
        assert engine.send("name") == "imago"
        with pytest.raises(GTPError, match="unknown command"):
            engine.send("no_such_command")
        assert "=" not in engine.send("showboard")


def test_wilson_interval():
    low, high = match.wilson_interval(45, 50)
    assert 0.78 < low < 0.80 and 0.95 < high < 0.97
    assert match.wilson_interval(0, 0) == (0.0, 1.0)


def test_a_short_match_between_two_imagos(tmp_path, capsys):
    sgf_dir = tmp_path / "games"
    status = match.main(["--engine1", IMAGO, "--engine2", IMAGO, "--games", "2", "--size", "5",
                         "--referee", "imago", "--sgf-dir", str(sgf_dir)])
    out = capsys.readouterr().out
    assert status == 0
    assert "game 1:" in out and "game 2:" in out
    assert "95% CI" in out and "seconds per move" in out
    pytest.importorskip("imago.sgf")
    assert len(list(sgf_dir.glob("*.sgf"))) == 2


@pytest.mark.parametrize("body,reason", [
    ('print("= A1\\n", flush=True)', "illegal"),          # plays A1 twice: occupied
    ('sys.exit(3)', "crash"),
    ('time.sleep(30)', "time"),
    ('print("? no\\n", flush=True)', "crash"),
])
def test_bad_engines_lose_the_game(tmp_path, capsys, body, reason):
    bad = fake_engine(tmp_path, "bad", body)
    status = match.main(["--engine1", bad, "--engine2", IMAGO, "--games", "1", "--size", "5",
                         "--time", "0.2", "--referee", "imago"])
    out = capsys.readouterr().out
    assert status == 0
    assert f"losses by {reason} 1" in out.splitlines()[-2]


def test_client_reports_a_dead_engine(tmp_path):
    bad = fake_engine(tmp_path, "dead", "sys.exit(1)")
    client = GTPClient(bad)
    with pytest.raises(EngineDied):
        client.send("genmove b", timeout=10)
    client.close()


def test_client_times_out(tmp_path):
    slow = fake_engine(tmp_path, "slow", "time.sleep(5)")
    client = GTPClient(slow)
    with pytest.raises(GTPTimeout):
        client.send("genmove b", timeout=0.3)
    client.process.kill()


def test_game_number_is_substituted_in_engine_commands(tmp_path, capsys):
    seen = tmp_path / "seen.txt"
    body = f'open(r"{seen}", "a").write(sys.argv[-1] + "\\n"); print("= pass\\n", flush=True)'
    engine = fake_engine(tmp_path, "echoer", body)
    status = match.main(["--engine1", f"{engine} {{game}}", "--engine2", IMAGO, "--games", "2",
                         "--size", "5", "--referee", "imago", "--name1", "a", "--name2", "b"])
    assert status == 0
    assert "game 2:" in capsys.readouterr().out
    assert sorted(set(seen.read_text().split())) == ["1", "2"]
