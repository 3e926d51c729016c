"""A whole 9x9 game between imago (random, seeded) and GNU Go over GTP.

Both engines run as subprocesses; every move one makes is played on the
other, and each must accept it. After two passes imago's ``final_score``
must agree with GNU Go's (with GNU Go's dead stones removed when it finds
any). A handicap game checks that both place the same fixed handicap.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from imago.engine.engine import GameEngine
from imago.engine.random_algorithm import RandomAlgorithm
from imago.game import parse_color, vertex_to_index

REPO = Path(__file__).resolve().parent.parent
MAX_MOVES = 400


class GtpProcess:
    """A GTP engine in a subprocess: ``send`` returns (success, text)."""

    def __init__(self, argv: list[str]):
        self.argv = argv
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def send(self, command: str) -> tuple[bool, str]:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(command + "\n")
        self.proc.stdin.flush()
        lines = []
        while True:
            line = self.proc.stdout.readline()
            assert line, f"{self.argv[0]} closed its output after {command!r}"
            if line == "\n" and lines:
                break
            lines.append(line.rstrip("\n"))
        head = lines[0]
        assert head[0] in "=?", f"bad response to {command!r}: {lines!r}"
        text = "\n".join([head[1:].lstrip("0123456789").strip()] + lines[1:]).strip()
        return head[0] == "=", text

    def ok(self, command: str) -> str:
        success, text = self.send(command)
        assert success, f"{self.argv[0]} refused {command!r}: {text}"
        return text

    def close(self) -> None:
        try:
            self.send("quit")
            self.proc.wait(timeout=10)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()


def score_value(result: str) -> float:
    """``B+3.5`` -> 3.5, ``W+0.5`` -> -0.5, ``0`` -> 0."""
    result = result.strip()
    if result in ("0", "Draw"):
        return 0.0
    sign = {"B": 1, "W": -1}[result[0].upper()]
    return sign * float(result[2:])


def play_game(gnugo_path: str, seed: int, imago_color: str, handicap: int = 0) -> dict:
    imago = GtpProcess([sys.executable, str(REPO / "imagocli.py"), "--algorithm", "random",
                        "--seed", str(seed), "--size", "9"])
    gnugo = GtpProcess([gnugo_path, "--mode", "gtp", "--chinese-rules", "--boardsize", "9",
                        "--komi", "7.5", "--level", "1"])
    try:
        for engine in (imago, gnugo):
            engine.ok("boardsize 9")
            engine.ok("clear_board")
            engine.ok("komi 7.5")
        stones: list[str] = []
        if handicap:
            stones = imago.ok(f"fixed_handicap {handicap}").split()
            # the same points (GNU Go lists them in another order)
            assert sorted(gnugo.ok(f"fixed_handicap {handicap}").split()) == sorted(stones)
        players = {imago_color: imago, ("white" if imago_color == "black" else "black"): gnugo}
        moves: list[tuple[str, str]] = []
        color, passes, resigned = ("white" if handicap else "black"), 0, None
        while passes < 2 and len(moves) < MAX_MOVES:
            mover = players[color]
            other = gnugo if mover is imago else imago
            vertex = mover.ok(f"genmove {color}").lower()
            if vertex == "resign":
                resigned = color
                break
            other.ok(f"play {color} {vertex}")  # must be legal for both
            moves.append((color, vertex))
            passes = passes + 1 if vertex == "pass" else 0
            color = "white" if color == "black" else "black"
        dead = gnugo.ok("final_status_list dead").split()
        return {
            "moves": moves, "handicap": stones, "passes": passes, "resigned": resigned,
            "dead": dead,
            "imago_score": imago.ok("final_score"), "gnugo_score": gnugo.ok("final_score"),
            "imago_board": imago.ok("showboard"),
        }
    finally:
        imago.close()
        gnugo.close()


def replay(moves: list[tuple[str, str]], handicap: list[str]) -> GameEngine:
    engine = GameEngine(RandomAlgorithm(0), 9, 7.5)
    if handicap:
        engine.set_free_handicap([vertex_to_index(v, 9) for v in handicap])
    for color, vertex in moves:
        engine.play(parse_color(color), vertex_to_index(vertex, 9))
    return engine


@pytest.mark.parametrize("seed, imago_color, handicap",
                         [(1, "black", 0), (2, "white", 0), (3, "white", 3)])
def test_full_game_against_gnugo(gnugo_path, seed, imago_color, handicap):
    game = play_game(gnugo_path, seed, imago_color, handicap)
    assert game["resigned"] is None or game["resigned"] != imago_color
    if game["resigned"] is None:
        assert game["passes"] == 2, f"no two passes in {MAX_MOVES} moves"
    engine = replay(game["moves"], game["handicap"])
    # the subprocess and an in-process replay agree on the score
    assert score_value(game["imago_score"]) == engine.score()
    dead = [vertex_to_index(v, 9) for v in game["dead"]]
    imago_score = engine.score(dead) if dead else score_value(game["imago_score"])
    # GNU Go's Chinese rules give White one point per handicap stone; imago's
    # area score (imago.game) has no such compensation
    compensation = len(game["handicap"])
    assert imago_score - compensation == score_value(game["gnugo_score"]), (
        f"imago {imago_score} vs GNU Go {game['gnugo_score']} (dead: {game['dead']})\n"
        + game["imago_board"])
