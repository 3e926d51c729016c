"""The game being played: :class:`GameState`, the cursor over a game tree of
:class:`~imago.game.tree.GameMove` nodes, with komi, handicap and the
score, and :func:`settings_problem`, what makes a board size and komi
unplayable."""

from __future__ import annotations

import math
from typing import Iterable, Optional, Sequence

from .board import GameBoard
from .constants import BLACK, WHITE
from .coords import MAX_SIZE, from_index, index_to_vertex, to_index
from .counting import Count, Rules, count, standing_ownership
from .handicap import fixed_handicap_points, free_handicap_points
from .rulesets import KataRules, handicap_bonus_points, parse_rules
from .scoring import area_score, format_result
from .tree import GameMove


AREA, TERRITORY = "area", "territory"
"""The scorings a game can be counted by (:attr:`GameState.scoring`)."""


def settings_problem(size: int, komi: float) -> Optional[str]:
    """Why a game of ``size``x``size`` with ``komi`` makes no sense (a size
    off the coordinates, a komi that is no number or beyond the board's
    points), or None. For the command lines that set up games."""
    if not 2 <= size <= MAX_SIZE:
        return f"size must be 2 to {MAX_SIZE}, not {size}"
    if not (math.isfinite(komi) and abs(komi) <= size * size):
        return (f"komi must be a number from -{size * size} to {size * size} on "
                f"{size}x{size}, not {komi:g}")
    return None



class GameState:
    """A game being played: the tree, the current node, komi and handicap.

    ``play`` accepts any colour order (GTP may repeat a colour); ``undo``
    goes back to the parent and forgets the move; ``back``/``forward``/
    ``goto`` navigate without forgetting. ``komi`` is the komi set (SGF's
    ``KM``); ``handicap_bonus`` White's points for handicap stones by the
    rules (``"0"``, ``"N"`` Chinese, ``"N-1"`` AGA; see :attr:`game_komi`,
    the komi the game is played and counted with); ``scoring`` is
    :data:`AREA` (imago's rules) or :data:`TERRITORY` (Japanese and Korean
    rules; see :attr:`scoring_komi`); ``capture_dead`` says that dead stones
    must be captured before the game ends, since two passes end it with
    every stone standing counted alive (Tromp-Taylor, the Computer Go
    Server; imago's own rules, and people's, remove them at the count).
    GTP's rules commands set the last three (:meth:`apply_rules`); a new
    game (:meth:`clear`) keeps all four.
    """

    def __init__(self, size: int = 19, komi: float = 7.5):
        self.size = size
        self.komi = komi
        self.handicap = 0
        self.handicap_bonus = "0"
        self.scoring = AREA
        self.capture_dead = False
        self.root = GameMove.new_root(size)
        self.current = self.root

    @classmethod
    def with_stones(cls, size: int, komi: float, stones: dict[int, int]) -> "GameState":
        """A game whose root holds ``stones`` (point -> colour) and no
        history, as KataGo's ``set_position`` and ``initialStones`` give
        positions. Raises ValueError naming stones left without a liberty."""
        state = cls(size, komi)
        if stones:
            state.root.add_setup(black=[p for p, c in stones.items() if c == BLACK],
                                 white=[p for p, c in stones.items() if c == WHITE])
            board = state.root.board
            for point in stones:
                if not board.liberties(point):
                    raise ValueError(f"the stones at {index_to_vertex(point, size)} "
                                     f"have no liberty")
        return state

    # ------------------------------------------------------------ views
    @property
    def board(self) -> GameBoard:
        """The position at the current node."""
        return self.current.board

    @property
    def to_move(self) -> int:
        """The colour whose turn it is."""
        return self.current.to_move

    @property
    def last_move(self) -> Optional[GameMove]:
        """The current node if a move was played there, else None."""
        return self.current if self.current.is_move else None

    def history(self) -> list[GameMove]:
        """The nodes with moves from the root to the current node."""
        return [n for n in self.current.path_from_root() if n.is_move]

    def consecutive_passes(self) -> int:
        """How many passes in a row end the game so far."""
        count = 0
        node: Optional[GameMove] = self.current
        while node is not None and node.is_move and node.is_pass:
            count += 1
            node = node.parent
        return count

    @property
    def is_over(self) -> bool:
        """True after two passes in a row."""
        return self.consecutive_passes() >= 2

    def point(self, col: int, row: int) -> int:
        """Internal index of ``(col, row)`` on this game's board."""
        return to_index(col, row, self.size)

    # ------------------------------------------------------------ changes
    def clear(self, size: Optional[int] = None) -> None:
        """Start again on an empty board (optionally of a new size)."""
        if size is not None:
            GameBoard(size)  # validates
            self.size = size
        self.handicap = 0
        self.root = GameMove.new_root(self.size)
        self.current = self.root

    def play(self, color: int, point: Optional[int]) -> GameMove:
        """Play ``color`` at ``point`` (None: pass) from the current node.

        Raises :class:`IllegalMoveError` (the game is unchanged)."""
        self.current = self.current.play(color, point)
        return self.current

    def undo(self) -> None:
        """Take back the last node and forget it. Raises ValueError at the
        root or when only the handicap stones are left."""
        node = self.current
        if node.parent is None:
            raise ValueError("cannot undo")
        parent = node.parent
        parent.remove_child(node)
        self.current = parent

    def back(self) -> bool:
        """Go to the parent node (keeping the tree); False at the root."""
        if self.current.parent is None:
            return False
        self.current = self.current.parent
        return True

    def forward(self, variation: int = 0) -> bool:
        """Go to a child (``variation`` 0 is the main line); False if none."""
        if variation >= len(self.current.children):
            return False
        self.current = self.current.children[variation]
        return True

    def goto(self, node: GameMove) -> None:
        """Make ``node`` (a node of this tree) the current one."""
        self.current = node

    def goto_end(self) -> None:
        """Make the end of the tree's main line (first children from the
        root) the current node: where a loaded record's game stopped."""
        self.current = list(self.root.main_line())[-1]

    # ------------------------------------------------------------ handicap
    def _check_empty_start(self) -> None:
        if self.current is not self.root or not self.root.board.is_empty_board() \
                or self.root.children:
            raise ValueError("board not empty")

    def _place_handicap(self, points: list[int]) -> None:
        self.root.add_setup(black=points)
        self.root.to_move = WHITE
        self.handicap = len(points)
        self.root.properties["HA"] = [str(len(points))]

    def set_fixed_handicap(self, stones: int) -> list[int]:
        """Place a fixed handicap (GTP spec placement) on the empty board;
        returns the points. Raises ValueError if not allowed."""
        self._check_empty_start()
        points = [self.point(c, r) for c, r in fixed_handicap_points(self.size, stones)]
        self._place_handicap(points)
        return points

    def place_free_handicap(self, stones: int) -> list[int]:
        """Choose and place ``stones`` free handicap stones; returns them."""
        self._check_empty_start()
        points = [self.point(c, r) for c, r in free_handicap_points(self.size, stones)]
        self._place_handicap(points)
        return points

    def set_free_handicap(self, points: list[int]) -> None:
        """Place handicap stones where the caller says. Raises ValueError for
        fewer than 2, repeated points, or a full board."""
        self._check_empty_start()
        if len(points) < 2 or len(points) >= self.size * self.size:
            raise ValueError("invalid number of stones")
        if len(set(points)) != len(points):
            raise ValueError("repeated vertex")
        self._place_handicap(list(points))

    # ------------------------------------------------------------ scoring
    def apply_rules(self, rules: KataRules) -> None:
        """Count this game as KataGo's ``rules`` do: their scoring, White's
        handicap bonus and whether dead stones must be captured
        (``friendly_pass_ok``); the komi stays."""
        self.scoring, self.handicap_bonus = rules.scoring.lower(), rules.handicap_bonus
        self.capture_dead = not rules.friendly_pass_ok

    def take_rules_from(self, other: "GameState") -> None:
        """Count this game as ``other`` is counted (a new position or a
        record replacing ``other``)."""
        self.scoring, self.handicap_bonus = other.scoring, other.handicap_bonus
        self.capture_dead = other.capture_dead

    def stone_difference(self) -> int:
        """The stones Black has put on the board (moves, handicap and setup
        stones) minus White's, from the root to the current node."""
        difference = 0
        for node in self.current.path_from_root():
            if node.is_move:
                if node.point is not None:
                    difference += 1 if node.color == BLACK else -1
            elif node.has_setup:
                setup = node.setup
                difference += len(setup.get(BLACK, ())) - len(setup.get(WHITE, ()))
        return difference

    def recorded_rules(self) -> tuple[Optional[str], Optional[KataRules]]:
        """The rules the game's record names in its root's ``RU`` (KataGo's
        names: ``Japanese``, ``Chinese``, ``AGA``, ...): ``(name, rules)``,
        ``(name, None)`` for a name imago does not know, ``(None, None)``
        without one. They are not applied: the caller decides."""
        given = self.root.properties.get("RU")
        name = given[0].strip() if given else ""
        if not name:
            return None, None
        try:
            return name, parse_rules(name)
        except ValueError:
            return name, None

    @property
    def bonus_points(self) -> int:
        """The points :attr:`handicap_bonus` gives White in this game."""
        return handicap_bonus_points(self.handicap_bonus, self.handicap)

    @property
    def game_komi(self) -> float:
        """The komi the game is played with (what the search, the network
        and the count read): the komi set plus White's handicap bonus, which
        by area is komi (a 4-stone game at komi 0.5 under Chinese rules is
        played with 4.5)."""
        return self.komi + self.bonus_points

    @property
    def scoring_komi(self) -> float:
        """The komi with which an area count gives this game's result: the
        :attr:`game_komi`, and under territory scoring (:attr:`scoring`)
        the stone difference as well. Territory with prisoners (dead stones
        among them) is the area count less the stones each side put on the
        board, so one count serves both (with a seki tax: :attr:`rules`)."""
        if self.scoring == TERRITORY:
            return self.game_komi + self.stone_difference()
        return self.game_komi

    @property
    def rules(self) -> Rules:
        """The rules of the game: its komi (:attr:`scoring_komi`), area
        scoring (territory by that komi, with a seki tax), positional
        superko, no suicide (what :func:`imago.game.count` counts by)."""
        return Rules(self.scoring_komi, seki_tax=self.scoring == TERRITORY)

    def score(self, dead: Iterable[int] = ()) -> float:
        """The score from Black's side, komi included, dead stones removed
        (by area, or by territory where :attr:`scoring` says so)."""
        return area_score(self.board, self.scoring_komi, dead)

    def result(self, dead: Iterable[int] = ()) -> str:
        """The result string: ``B+3.5``, ``W+0.5`` or ``0``."""
        return format_result(self.score(dead))

    def count(self) -> Count:
        """The current position judged as final by the one count
        (:func:`imago.game.count`: dead stones found, seki kept) under this
        game's rules, with the side to move's playouts."""
        return count(self.board, self.rules, self.to_move)

    def final_count(self, dead: Optional[Sequence[int]] = None) -> Count:
        """The count that ends this game by two passes: :meth:`count`, or
        the stones ``dead`` (as agreed or judged) removed; where dead stones
        must be captured (:attr:`capture_dead`), every stone standing is
        alive and a point is only its colour's when that colour alone
        encloses it (``dead`` ignored)."""
        if self.capture_dead:
            return count(self.board, self.rules, self.to_move,
                         standing_ownership(self.board), dead=())
        return count(self.board, self.rules, self.to_move, dead=dead)

    def colrow(self, point: int) -> tuple[int, int]:
        """``(col, row)`` of an internal index on this game's board."""
        return from_index(point, self.size)


__all__ = ["AREA", "TERRITORY", "GameState", "settings_problem"]
