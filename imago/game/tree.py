"""The game tree: :class:`GameMove` nodes and the :class:`GameState` cursor.

Every node keeps the board *after* it, so undo and navigation are O(1) and
any node can be searched from without replaying the game.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Optional

from .board import GameBoard, IllegalMoveError
from .constants import BLACK, EMPTY, WHITE, opponent
from .coords import from_index, index_to_vertex, to_index
from .counting import Rules
from .handicap import fixed_handicap_points, free_handicap_points
from .scoring import area_score, format_result


class GameMove:
    """A node of the game tree.

    Attributes:
        parent, children: the tree (``children[0]`` is the main line, the
            others are variations).
        color, point: the move (``point`` an internal index, None for a
            pass); ``color`` is None at a node without a move (the root or
            a setup node).
        setup: setup stones placed at this node, ``{BLACK: [...], WHITE:
            [...], EMPTY: [...]}`` (SGF AB / AW / AE, handicap).
        board: the position after this node.
        captures: ``(stones captured by Black, stones captured by White)``
            so far.
        to_move: whose turn it is after this node.
        number: moves played from the root to here (setup nodes add none).
        properties: other SGF properties (comments, game info on the root,
            unknown properties), as ``{name: [raw values]}``.
    """

    __slots__ = ("parent", "children", "color", "point", "setup", "board",
                 "captures", "to_move", "number", "properties")

    def __init__(self, board: GameBoard, parent: Optional["GameMove"] = None,
                 color: Optional[int] = None, point: Optional[int] = None,
                 captures: tuple[int, int] = (0, 0), to_move: int = BLACK,
                 number: int = 0):
        self.parent = parent
        self.children: list[GameMove] = []
        self.color = color
        self.point = point
        self.setup: dict[int, list[int]] = {}
        self.board = board
        self.captures = captures
        self.to_move = to_move
        self.number = number
        self.properties: dict[str, list[str]] = {}

    @classmethod
    def new_root(cls, size: int) -> "GameMove":
        """The root of a new game on an empty ``size`` x ``size`` board."""
        return cls(GameBoard(size))

    # ------------------------------------------------------------ the move
    @property
    def is_move(self) -> bool:
        """True if a move (stone or pass) was played at this node."""
        return self.color is not None

    @property
    def is_pass(self) -> bool:
        """True if this node is a pass."""
        return self.color is not None and self.point is None

    @property
    def vertex(self) -> str:
        """The move as a GTP vertex (``D4``, ``pass``); ``''`` without one."""
        if self.color is None:
            return ""
        return index_to_vertex(self.point, self.board.size)

    @property
    def comment(self) -> str:
        """The node's comment (SGF ``C``), or ``''``."""
        return "\n".join(self.properties.get("C", []))

    # ------------------------------------------------------------ growing
    def find_child(self, color: int, point: Optional[int]) -> Optional["GameMove"]:
        """The child that plays this move, if the tree has it."""
        for child in self.children:
            if child.color == color and child.point == point:
                return child
        return None

    def play(self, color: int, point: Optional[int]) -> "GameMove":
        """The child node for ``color`` playing ``point`` (None: pass),
        created if new. Raises :class:`IllegalMoveError` with the reason."""
        existing = self.find_child(color, point)
        if existing is not None:
            return existing
        board = self.board.copy()
        captured = board.play(point, color)
        black, white = self.captures
        if color == BLACK:
            black += captured
        else:
            white += captured
        child = GameMove(board, self, color, point, (black, white),
                         opponent(color), self.number + 1)
        self.children.append(child)
        return child

    def add_setup_child(self, black: Iterable[int] = (), white: Iterable[int] = (),
                        empty: Iterable[int] = ()) -> "GameMove":
        """A new child node that only places setup stones."""
        child = GameMove(self.board.copy(), self, None, None, self.captures,
                         self.to_move, self.number)
        child.add_setup(black, white, empty)
        self.children.append(child)
        return child

    def add_setup(self, black: Iterable[int] = (), white: Iterable[int] = (),
                  empty: Iterable[int] = ()) -> None:
        """Place setup stones at this node (its board changes; children made
        before this call do not)."""
        black, white, empty = list(black), list(white), list(empty)
        self.board.set_stones(black, white, empty)
        for color, points in ((BLACK, black), (WHITE, white), (EMPTY, empty)):
            if points:
                self.setup.setdefault(color, []).extend(points)

    def remove_child(self, child: "GameMove") -> None:
        """Cut a variation out of the tree."""
        self.children.remove(child)
        child.parent = None

    # ------------------------------------------------------------ walking
    def path_from_root(self) -> list["GameMove"]:
        """The nodes from the root down to this one."""
        path = []
        node: Optional[GameMove] = self
        while node is not None:
            path.append(node)
            node = node.parent
        path.reverse()
        return path

    def main_line(self) -> Iterator["GameMove"]:
        """This node and its first children down to the end of the line."""
        node: Optional[GameMove] = self
        while node is not None:
            yield node
            node = node.children[0] if node.children else None

    def iter_tree(self) -> Iterator["GameMove"]:
        """Every node of the subtree, depth first (children in order)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def __repr__(self) -> str:
        who = {BLACK: "B", WHITE: "W"}.get(self.color, "-")
        return f"GameMove({who} {self.vertex or 'root'} #{self.number})"


class GameState:
    """A game being played: the tree, the current node, komi and handicap.

    ``play`` accepts any colour order (GTP may repeat a colour); ``undo``
    goes back to the parent and forgets the move; ``back``/``forward``/
    ``goto`` navigate without forgetting.
    """

    def __init__(self, size: int = 19, komi: float = 7.5):
        self.size = size
        self.komi = komi
        self.handicap = 0
        self.root = GameMove.new_root(size)
        self.current = self.root

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
    @property
    def rules(self) -> Rules:
        """The rules of the game: its komi, area scoring, positional superko,
        no suicide (what :func:`imago.game.count` counts by)."""
        return Rules(self.komi)

    def score(self, dead: Iterable[int] = ()) -> float:
        """Area score from Black's side, komi included, dead stones removed."""
        return area_score(self.board, self.komi, dead)

    def result(self, dead: Iterable[int] = ()) -> str:
        """The result string: ``B+3.5``, ``W+0.5`` or ``0``."""
        return format_result(self.score(dead))

    def colrow(self, point: int) -> tuple[int, int]:
        """``(col, row)`` of an internal index on this game's board."""
        return from_index(point, self.size)


__all__ = ["GameMove", "GameState", "IllegalMoveError"]
