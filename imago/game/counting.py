"""The rules of a game and the one count of a finished position.

:class:`Rules` names what a game is played under (komi, area scoring,
positional superko, no suicide: what :class:`~imago.game.board.GameBoard`
enforces). :func:`count` judges a final position for every caller -- GTP
``final_score`` and ``final_status_list``, terminal play's game over,
self-play labels, the policy player's and the search's decision to pass,
the match referee without GNU Go -- so they never disagree:

1. who owns each point at the end is estimated by random playouts
   (eye-respecting, as the ``uct`` playouts): each playout finishes the
   game and counts the area; a point's ownership is the average over
   playouts, +1 for Black and -1 for White (:func:`final_ownership`);
2. strings standing on points owned by the other colour are dead and
   removed (:func:`dead_stones`), except strings their opponent cannot
   capture (every liberty one it can fill only by losing stones, or not
   at all: :func:`~imago.game.seki.seki_survivors`; random playouts fill a
   seki's shared liberties and so kill one side of it); capturing races
   one side wins whoever moves are settled by playing the capture out
   (:func:`settle_races`: the playouts decide such a race at random);
   alive strings short of liberties that share a liberty with an alive
   enemy string in the same state are in seki (:func:`seki_stones`);
3. the board is counted by area, and the points area counting leaves
   neutral go to the colour the estimate favours (the open borders of an
   unfinished game), except the liberties of those seki and uncapturable
   strings, which stay neutral (:func:`final_owners`). On a played-out
   board this is the plain area score.

A caller holding another estimate (a network's ownership head) may pass it
to :func:`count`; by default every caller gets the playout estimate.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Collection, Iterable, Optional, Sequence

from .board import GameBoard
from .constants import BLACK, EMPTY, WHITE, opponent
from .scoring import area_owners, area_score, format_result
from .seki import nakade_vital_point, seki_survivors, semeai_races

SCORINGS = ("area",)
SUPERKO_RULES = ("positional",)

DEAD_THRESHOLD = 0.2
"""A stone is dead when its point's ownership favours the other colour by
more than this (ownership runs from -1 to +1)."""

NEUTRAL_THRESHOLD = 0.3
"""An empty point that area counting leaves neutral goes to a colour when
its ownership favours that colour by more than this."""

SETTLED_THRESHOLD = 0.6
"""A string's fate is clear when its ownership is at least this far from
zero either way (or it lives in seki)."""

SMALL_BOARD = 5
"""Boards smaller than this are counted as the stones stand (every stone
alive, a point owned only when it is enclosed by one colour: the rules the
solved results of 2x2 to 4x4 are given under). Their fights are decided by
positional superko, which playouts that ignore the game's history misjudge:
on 2x2 a lone stone facing two in atari looks like it captures, where the
capture repeats an earlier position."""


@dataclass(frozen=True)
class Rules:
    """What a game is played under. Only the rules the board enforces are
    accepted (area scoring, positional superko, suicide forbidden), so a
    game can never claim rules it is not played by."""

    komi: float = 7.5
    scoring: str = "area"
    superko: str = "positional"
    suicide: bool = False
    seki_tax: bool = False
    """Whether the eyes of a seki count for nobody, as Japanese rules have
    it (territory scoring is counted as area with a komi that holds the
    stone difference: :attr:`imago.game.GameState.scoring_komi`)."""

    def __post_init__(self) -> None:
        if self.scoring not in SCORINGS:
            raise ValueError(f"unsupported scoring {self.scoring!r} (imago counts "
                             f"{', '.join(SCORINGS)})")
        if self.superko not in SUPERKO_RULES:
            raise ValueError(f"unsupported superko rule {self.superko!r} (imago plays "
                             f"{', '.join(SUPERKO_RULES)})")
        if self.suicide:
            raise ValueError("suicide is not allowed by imago's board")


@dataclass(frozen=True)
class Count:
    """The judgement of a final position.

    ``owners`` holds BLACK, WHITE or EMPTY for every cell of the board's
    array (open borders given as counted); ``black`` and ``white`` are its
    totals and ``score = black - white - komi``. ``ownership`` is the
    estimate the judgement used (+1 Black, -1 White per cell)."""

    score: float
    black: int
    white: int
    komi: float
    dead: tuple[int, ...]
    dead_black: int
    dead_white: int
    seki: tuple[int, ...]
    owners: tuple[int, ...]
    ownership: tuple[float, ...]
    settled: bool
    neutral: int = 0
    """Empty points that belong to neither side (dame)."""
    decided: tuple[int, ...] = ()
    """Stones whose fate a capturing race settled (:func:`settle_races`), and
    strings in atari whose capture would change nothing
    (:func:`captures_that_change_nothing`): they count as settled, and one
    of them left in atari needs no capture (the count has weighed it)."""

    @property
    def result(self) -> str:
        """``B+3.5``, ``W+0.5`` or ``0``."""
        return format_result(self.score)

    @property
    def winner(self) -> Optional[int]:
        """BLACK, WHITE, or None for a draw."""
        if self.score > 0:
            return BLACK
        if self.score < 0:
            return WHITE
        return None


def playout_ownership(board: GameBoard, to_move: int, playouts: int = 100,
                      rng: Optional[random.Random] = None) -> list[float]:
    """Average area ownership per cell over ``playouts`` random playouts
    (+1 Black, -1 White, 0 off board)."""
    rng = rng or random.Random(0)
    total = [0] * len(board.cells)
    for _ in range(playouts):
        b = board.copy()
        b.playout(to_move, rng)
        for p, owner in enumerate(area_owners(b)):
            if owner == BLACK:
                total[p] += 1
            elif owner == WHITE:
                total[p] -= 1
    return [t / playouts for t in total]


_FINAL_CACHE: dict = {}
_FINAL_CACHE_SIZE = 16


def final_ownership(board: GameBoard, to_move: int) -> list[float]:
    """The estimate behind dead stones, the final count and the decision to
    pass: random playouts (about 12,000 board points' worth, at least 64),
    seeded by the position so it always gets the same answer. The last few
    positions are cached: the engine's count and the search's pass decision
    ask for the same one.

    Measured on the finished games of the shared data, it reproduces GNU
    Go's final_score in 370 of 390 games where the 9x9 network's ownership
    head does in 226 (KataGo's results: 706 and 708 of 724), so the count
    uses playouts even when a network is loaded."""
    key = (board.size, board.hash, to_move)
    values = _FINAL_CACHE.get(key)
    if values is None:
        playouts = max(64, 12000 // (board.size * board.size))
        values = playout_ownership(board, to_move, playouts, random.Random(board.hash & 0xFFFF))
        if len(_FINAL_CACHE) >= _FINAL_CACHE_SIZE:
            _FINAL_CACHE.pop(next(iter(_FINAL_CACHE)))
        _FINAL_CACHE[key] = values
    return values


def dead_stones(board: GameBoard, ownership: Sequence[float],
                threshold: float = DEAD_THRESHOLD) -> list[int]:
    """Stones whose whole string is owned by the other colour.

    A string is judged as one: its stones' mean ownership decides."""
    dead: list[int] = []
    seen: set[int] = set()
    for p in board.on_board():
        c = board.cells[p]
        if c == EMPTY or p in seen:
            continue
        stones = board.string_stones(p)
        seen.update(stones)
        mean = sum(ownership[q] for q in stones) / len(stones)
        if (c == BLACK and mean < -threshold) or (c == WHITE and mean > threshold):
            dead.extend(stones)
    return sorted(dead)


def seki_stones(board: GameBoard, dead: Sequence[int]) -> list[int]:
    """Alive stones in seki: a string with at most two liberties, one of
    them shared with an alive enemy string that has at most two as well, so
    whoever fills the shared point puts itself in atari."""
    dead_set = set(dead)
    cells, root, libs = board.cells, board.root, board.libs
    seki: set[int] = set()
    for p in board.on_board():
        c = cells[p]
        if c == EMPTY or p in dead_set or p in seki or root[p] != p:
            continue
        liberties = libs[p]
        if len(liberties) > 2:
            continue
        for lib in liberties:
            for n in board.neighbours(lib):
                if cells[n] == 3 - c and n not in dead_set and len(libs[root[n]]) <= 2:
                    seki.update(board.string_stones(p))
                    seki.update(board.string_stones(n))
    return sorted(seki)


def final_owners(board: GameBoard, ownership: Sequence[float],
                 dead: Sequence[int], neutral: Collection[int] = ()) -> list[int]:
    """Owner of every cell as counted: area counting once ``dead`` stones
    are removed, and the points it leaves neutral by the ownership estimate
    (beyond :data:`NEUTRAL_THRESHOLD` either way), but for the points in
    ``neutral`` (a seki's shared liberties), which stay nobody's."""
    owners = area_owners(board, dead)
    for p in board.on_board():
        if owners[p] == EMPTY and p not in neutral:
            if ownership[p] > NEUTRAL_THRESHOLD:
                owners[p] = BLACK
            elif ownership[p] < -NEUTRAL_THRESHOLD:
                owners[p] = WHITE
    return owners


def standing_ownership(board: GameBoard) -> list[float]:
    """The ownership of the board as the stones stand: +1 for Black's area
    points (stones and points only Black encloses), -1 for White's, 0 for
    the rest."""
    sign = {BLACK: 1.0, WHITE: -1.0}
    return [sign.get(owner, 0.0) for owner in area_owners(board)]


def count(board: GameBoard, rules: Rules, to_move: int,
          ownership: Optional[Sequence[float]] = None,
          dead: Optional[Sequence[int]] = None) -> Count:
    """Judge the position as final: dead stones removed, seki found, every
    point given an owner or left neutral, the result with ``rules.komi``.

    ``ownership`` (+1 Black, -1 White per cell of the board's array)
    replaces the playout estimate of :func:`final_ownership` for ``to_move``
    when given; ``dead`` replaces the dead stones it implies (stones the
    players agreed on). Boards below :data:`SMALL_BOARD` are counted as
    the stones stand, whatever ``ownership`` says."""
    if board.size < SMALL_BOARD and dead is None:
        ownership, dead = standing_ownership(board), ()
    estimate = final_ownership(board, to_move) if ownership is None else ownership
    if dead is None:
        dead = dead_stones(board, estimate)
        uncapturable = seki_survivors(board, dead)
        dead = [p for p in dead if p not in uncapturable]
        dead, decided = settle_races(board, dead, semeai_races(board, dead))
        decided |= captures_that_change_nothing(board, dead)
    else:
        dead, uncapturable, decided = sorted(set(dead)), set(), set()
    seki = seki_stones(board, dead)
    owners = final_owners(board, estimate, dead, _liberties(board, uncapturable.union(seki)))
    if rules.seki_tax and seki:
        _tax_seki_eyes(board, owners, set(seki))
    black, white = owners.count(BLACK), owners.count(WHITE)
    seki_set = set(seki)
    cells = board.cells
    settled = all(abs(estimate[p]) >= SETTLED_THRESHOLD or p in seki_set or p in decided
                  for p in board.on_board() if cells[p] in (BLACK, WHITE))
    dead_black = sum(1 for p in dead if cells[p] == BLACK)
    return Count(score=black - white - rules.komi, black=black, white=white,
                 komi=rules.komi, dead=tuple(dead), dead_black=dead_black,
                 dead_white=len(dead) - dead_black, seki=tuple(seki), owners=tuple(owners),
                 ownership=tuple(estimate), settled=settled,
                 neutral=board.size * board.size - black - white, decided=tuple(sorted(decided)))


_SETUP_NAMES = {BLACK: "black", WHITE: "white"}
""":meth:`GameBoard.set_stones`' keyword for each colour's stones."""


def settle_races(board: GameBoard, dead: Sequence[int],
                 races: list[tuple[int, int]]) -> tuple[list[int], set[int]]:
    """``dead`` with each of ``races`` (:func:`~imago.game.seki.semeai_races`)
    settled, and the stones whose fate that decided.

    A race whose winner the playouts left alive loses its loser (they left
    it standing, or settled the race the wrong way), which is settled. One
    they turned round (the winner called dead, the loser standing) is
    played out: the winner captures the loser on a copy of the board (its
    stones on the loser's liberties, every one of them shared), and
    playouts of that position judge the winner's string; living, it stands
    and the loser is dead; dying all the same (one eye after the capture),
    it stays dead. Where the captured stones leave a nakade shape the
    loser's side plays its vital point first: random playouts seldom find
    it, and the winner would make two eyes there. A verdict of :data:`SETTLED_THRESHOLD` or more either
    way decides both strings (they count as settled)."""
    dead_set = set(dead)
    decided: set[int] = set()
    for loser, winner in races:
        if winner not in dead_set:
            lost = board.string_stones(loser)
            dead_set.update(lost)
            decided.update(lost)
            continue
        if loser in dead_set:
            continue  # both dead: an enclosing group kills them
        lost, stones = board.string_stones(loser), board.string_stones(winner)
        ownership = _lives_after_capture(board, lost, board.root[loser], stones)
        if abs(ownership) >= SETTLED_THRESHOLD:
            decided.update(lost)
            decided.update(stones)
        if ownership > DEAD_THRESHOLD:
            dead_set.difference_update(stones)
            dead_set.update(lost)
    return sorted(dead_set), decided


def captures_that_change_nothing(board: GameBoard, dead: Sequence[int]) -> set[int]:
    """The stones of strings standing in atari that only ``dead`` strings
    can take, where taking them leaves those strings dead all the same (the
    capture played out as :func:`settle_races` plays a race's, and judged
    by :data:`SETTLED_THRESHOLD`): a stone left in atari inside a dead
    group's eye space, whose capture gives that group one eye at most. They
    count as settled, and the game may end with them in atari."""
    dead_set = set(dead)
    root, libs, cells = board.root, board.libs, board.cells
    s = board.stride
    unchanged: set[int] = set()
    for r, liberties in list(libs.items()):
        if len(liberties) != 1 or r in dead_set:
            continue
        stones = board.string_stones(r)
        enemy = 3 - cells[r]
        capturers = {root[m] for p in stones for m in (p - 1, p + 1, p - s, p + s)
                     if cells[m] == enemy}
        if capturers and capturers <= dead_set and all(
                _lives_after_capture(board, stones, r, board.string_stones(e))
                <= -SETTLED_THRESHOLD
                for e in capturers):
            unchanged.update(stones)
    return unchanged


def _lives_after_capture(board: GameBoard, lost: list[int], loser_root: int,
                         winner: list[int]) -> float:
    """The mean ownership, for their colour, of the ``winner`` string's
    stones once it has captured ``lost`` (the loser's string, rooted at ``loser_root``),
    and the loser's side has played the vital point of a nakade the capture
    leaves (see :func:`settle_races`)."""
    color = board.cells[winner[0]]
    after = board.copy()
    after.set_stones(empty=lost, **{_SETUP_NAMES[color]: sorted(board.libs[loser_root])})
    vital = nakade_vital_point(lost, board.stride)
    to_move = opponent(color)
    if vital is not None:
        after.set_stones(**{_SETUP_NAMES[to_move]: [vital]})
        to_move = color
    estimate = final_ownership(after, to_move)
    sign = 1.0 if color == BLACK else -1.0
    return sum(sign * estimate[q] for q in winner) / len(winner)


def seki_taxed_owners(board: GameBoard, dead: Sequence[int] = ()) -> list[int]:
    """The owner of every cell as the stones stand (``dead`` removed: area
    counting) with Japanese rules' seki tax: the eyes of a seki are
    nobody's (see :func:`_tax_seki_eyes`)."""
    dead = list(dead)
    owners = area_owners(board, dead)
    seki = seki_stones(board, dead)
    if seki:
        _tax_seki_eyes(board, owners, set(seki))
    return owners


def seki_taxed_score(board: GameBoard, komi: float, dead: Sequence[int] = ()) -> float:
    """Black's score by :func:`seki_taxed_owners`, ``komi`` included. Under
    territory scoring, where ``komi`` holds the stones played, this is the
    territory result of a position as it stands: what a search's line that
    ends with two passes is worth."""
    owners = seki_taxed_owners(board, dead)
    return owners.count(BLACK) - owners.count(WHITE) - komi


def _tax_seki_eyes(board: GameBoard, owners: list[int], seki: set[int]) -> None:
    """Make nobody's (in ``owners``) each region a colour owns, its empty
    points and dead stones, whose bordering stones of that colour all stand
    in ``seki`` (one at least): the eyes of a seki, which Japanese rules do
    not count."""
    cells, stride = board.cells, board.stride
    seen: set[int] = set()
    for p in board.on_board():
        owner = owners[p]
        if owner == EMPTY or cells[p] == owner or p in seen:
            continue
        region, stack, in_seki, elsewhere = [], [p], False, False
        seen.add(p)
        while stack:
            q = stack.pop()
            region.append(q)
            for m in (q - 1, q + 1, q - stride, q + stride):
                if cells[m] == owner:
                    if m in seki:
                        in_seki = True
                    else:
                        elsewhere = True
                elif owners[m] == owner and m not in seen:
                    seen.add(m)
                    stack.append(m)
        if in_seki and not elsewhere:
            for q in region:
                owners[q] = EMPTY


def _liberties(board: GameBoard, stones: Iterable[int]) -> set[int]:
    """The liberties of the strings of ``stones``."""
    libs, root = board.libs, board.root
    return {lib for r in {root[p] for p in stones} for lib in libs[r]}


def passing_wins(board: GameBoard, rules: Rules, to_move: int, color: int,
                 ownership: Optional[Sequence[float]] = None) -> bool:
    """True when the game, ended now, is won by ``color`` by :func:`count`
    and every string's fate is clear (``Count.settled``). The search passes
    only then: the count judges dead stones by playouts, which misread
    capturing races, so those are played out first."""
    judged = count(board, rules, to_move, ownership)
    return judged.winner == color and judged.settled


def lost_for_good(judged: Count, color: int) -> bool:
    """True when ``judged`` (a :func:`count` of the board as it stands) is
    a loss for ``color`` that playing on cannot turn: every string's fate
    is clear and the margin is larger than the neutral points left to
    fill. After the opponent's pass, more stones would only land in
    territory that is not ``color``'s."""
    if not judged.settled or judged.winner in (color, None):
        return False
    return abs(judged.score) > judged.neutral


def wins_whatever_unsettled(board: GameBoard, judged: Count, color: int) -> bool:
    """True when ``color`` wins the position of ``judged`` even if every
    string whose fate the count left unclear goes the opponent's way:
    ``color``'s own unsettled strings removed as dead, the opponent's left
    standing (only its clearly dead stones removed), and the points this
    leaves open neutral (area counting as the stones stand). After the
    opponent's pass, no referee's count, nor the capturing races the
    playouts may misread, can then turn the game: passing back ends it won."""
    sign = 1.0 if color == BLACK else -1.0
    cells, ownership, rival = board.cells, judged.ownership, opponent(color)
    dead = [p for p in board.on_board()
            if (cells[p] == color and sign * ownership[p] < SETTLED_THRESHOLD)
            or (cells[p] == rival and sign * ownership[p] >= SETTLED_THRESHOLD)]
    return sign * area_score(board, judged.komi, dead) > 0


__all__ = ["Rules", "Count", "count", "passing_wins", "lost_for_good", "seki_taxed_owners",
           "seki_taxed_score",
           "wins_whatever_unsettled", "final_ownership",
           "playout_ownership", "dead_stones", "seki_stones", "final_owners",
           "DEAD_THRESHOLD", "NEUTRAL_THRESHOLD", "SETTLED_THRESHOLD"]
