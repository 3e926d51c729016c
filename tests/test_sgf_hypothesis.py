"""Property-based SGF tests: written games read back the same, and damaged
input (mutated, truncated, random bytes) raises nothing but SGFError."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from imago.game import BLACK, WHITE, GameState
from imago.sgf import SGFError, dumps, loads, parse

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Text survives a round trip except a carriage return, which SGF reads as a
# line break (\n).
TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"),
               max_size=12)
NAMES = st.text("ABCDEFGHIJKLMNOPQRSTUVXYZ", min_size=1, max_size=4).filter(
    lambda n: n not in {"B", "W", "AB", "AW", "AE", "PL", "FF", "GM", "CA", "SZ", "KM", "HA"})


def signature(root) -> list:
    return [(n.color, n.point, n.to_move, n.number, n.captures,
             {c: sorted(p) for c, p in n.setup.items() if p}, dict(n.properties),
             n.board.hash, len(n.children)) for n in root.iter_tree()]


@st.composite
def games(draw) -> GameState:
    size = draw(st.integers(2, 13))
    komi = draw(st.sampled_from([0.0, 0.5, 6.5, 7.5, -2.0, 375.0]) | st.floats(-400, 400))
    game = GameState(size, komi)
    if size >= 7 and draw(st.booleans()):
        try:
            game.set_fixed_handicap(draw(st.integers(2, 4)))
        except ValueError:
            pass
    if draw(st.booleans()):
        game.root.properties["PB"] = [draw(TEXT)]
    for _ in range(draw(st.integers(0, 25))):
        op = draw(st.integers(0, 9))
        node = game.current
        if op <= 5:
            color = draw(st.sampled_from([BLACK, WHITE, node.to_move]))
            moves = node.board.legal_moves(color)
            point = draw(st.sampled_from(moves)) if moves and op else None
            game.play(color, point)
        elif op == 6:
            empties = list(node.board.empties)
            if empties:
                black = draw(st.lists(st.sampled_from(empties), max_size=3, unique=True))
                rest = [p for p in empties if p not in black]
                white = draw(st.lists(st.sampled_from(rest), max_size=3, unique=True)) \
                    if rest else []
                game.goto(node.add_setup_child(black, white))
        elif op == 7:
            path = node.path_from_root()
            game.goto(path[draw(st.integers(0, len(path) - 1))])
        elif op == 8:
            node.properties[draw(NAMES)] = draw(st.lists(TEXT, min_size=1, max_size=3))
        else:
            node.properties["C"] = [draw(TEXT)]
    game.goto(game.root)
    return game


@SETTINGS
@given(games())
def test_written_games_read_back_the_same(game):
    text = dumps(game)
    [again] = loads(text)
    assert (again.size, again.komi, again.handicap) == (game.size, game.komi, game.handicap)
    expected = signature(game.root)
    got = signature(again.root)
    # the reader keeps SZ/KM/HA as written; a played game had them as fields
    for key in ("SZ", "KM", "HA"):
        if key not in game.root.properties:
            got[0][6].pop(key, None)
    assert got == expected
    assert dumps(again) == text
    [third] = loads(dumps(again).encode("utf-8"))
    assert signature(third.root) == signature(again.root)


BASES = [
    "(;GM[1]FF[4]SZ[9]KM[7.5]AB[aa:bb]C[a \\] b\\\n c];B[ee](;W[cc];B[dd]LB[dd:x])"
    "(;W[dc]C[(;B[aa])]))\n(;SZ[5];B[cc];W[];B[tt])",
    "(;FF[3]SZ[7]AddBlack[cc]PL[W];White[dd]Comment[hi];AE[cc]AW[aa])",
    "(;SZ[19]HA[2]AB[dp][pd];W[dd];B[pp](;W[qq])(;W[jj];B[jk]TR[aa][bb]))",
]
ALPHABET = "()[];\\:ABWCabct \n\r\t\x00é]"


@st.composite
def mutated(draw) -> str:
    text = draw(st.sampled_from(BASES))
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.integers(0, 3))
        i = draw(st.integers(0, len(text)))
        if kind == 0:  # delete a slice
            j = draw(st.integers(i, min(len(text), i + 6)))
            text = text[:i] + text[j:]
        elif kind == 1:  # insert
            text = text[:i] + draw(st.text(ALPHABET, min_size=1, max_size=4)) + text[i:]
        elif kind == 2:  # replace a character
            text = text[:i] + draw(st.sampled_from(ALPHABET)) + text[i + 1:]
        else:  # truncate
            text = text[:i]
    return text


def loads_or_sgf_error(data, lenient):
    try:
        games = loads(data, lenient=lenient)
    except SGFError as err:
        assert err.filename == "<string>"
        return None
    for game in games:
        dumps(game)  # whatever loads, writes
    return games


@SETTINGS
@given(mutated())
def test_mutated_text_raises_only_sgf_error(text):
    strict = loads_or_sgf_error(text, False)
    lenient = loads_or_sgf_error(text, True)
    if strict is not None:
        assert lenient is not None and len(lenient) >= len(strict)
    try:
        parse(text)
    except SGFError:
        pass


@SETTINGS
@given(st.sampled_from(BASES), st.data())
def test_every_truncation_raises_only_sgf_error(base, data):
    cut = data.draw(st.integers(0, len(base)))
    loads_or_sgf_error(base[:cut], False)
    loads_or_sgf_error(base[:cut], True)


@SETTINGS
@given(st.binary(max_size=200), st.sampled_from([b"", b"(;CA[GB2312]C[", b"(;CA[Big5]",
                                                 b"\xff\xfe", b"(;CA[UTF-8]PB["]))
def test_random_bytes_raise_only_sgf_error(data, prefix):
    loads_or_sgf_error(prefix + data, False)
    loads_or_sgf_error(prefix + data, True)


def test_deep_nesting_is_an_error_or_fine_not_a_crash():
    text = "(;SZ[9]" + "(;C[x]" * 3000 + ")" * 3001
    games = loads(text)
    assert sum(1 for _ in games[0].root.iter_tree()) == 3001
    try:
        loads("(" * 5000)
    except SGFError:
        pass
