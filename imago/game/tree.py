"""The game tree: :class:`GameMove` nodes (the cursor over them,
:class:`~imago.game.state.GameState`, is in :mod:`imago.game.state`).

Nodes keep no board. A node holds its move or setup stones and the cheap
facts about the position after it (captures, side to move, move number,
Zobrist hash); :attr:`GameMove.board` rebuilds the position on demand by
replaying the moves from the nearest ancestor whose board is at hand:

- every ``KEEP_EVERY`` nodes along a line, a node keeps a compact copy of
  its board without the superko history (a
  :class:`~imago.game.board.BoardSnapshot`, about 9 KB on 19x19, shared by
  a run of nodes that change no stone), so no rebuild replays more than
  that many moves;
- each tree has a small cache of the boards asked for most recently (with
  their history), so walking along a line, and asking for the boards of the
  current node and its nearest ancestors, costs about one board copy per
  step, as when every node held its board.

The superko history of a rebuilt board is the set of the position hashes
from the root to the node (plus 0, the empty board the root starts from),
collected from the nodes' ``hash``.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Optional

from .board import BoardSnapshot, GameBoard, IllegalMoveError
from .constants import BLACK, EMPTY, WHITE, opponent
from .coords import index_to_vertex

# A node keeps a board when its nearest ancestor keeping one is this many
# nodes up: a rebuild replays at most KEEP_EVERY - 1 nodes.
KEEP_EVERY = 32
# Boards (with history) cached per tree: a rebuild caches the last
# KEEP_EVERY boards of its path, and feature encoders ask for the current
# node and its 8 nearest ancestors.
CACHE_BOARDS = 2 * KEEP_EVERY


class _NoChildren(list):
    """The children of a leaf: an empty list shared by every leaf, which
    refuses to grow (children are added by :meth:`GameMove.play` and the
    other ``add_*`` methods)."""

    __slots__ = ()

    def _refuse(self, *args, **kwargs):
        raise TypeError("a leaf's children list is shared and read-only; "
                        "add children with GameMove.play or add_child")

    append = extend = insert = __setitem__ = __iadd__ = __imul__ = _refuse


_LEAF = _NoChildren()


_EMPTY_SNAPSHOTS: dict[int, BoardSnapshot] = {}


def _empty_snapshot(size: int) -> BoardSnapshot:
    """The empty board of ``size``, as a snapshot shared by all games."""
    snapshot = _EMPTY_SNAPSHOTS.get(size)
    if snapshot is None:
        snapshot = _EMPTY_SNAPSHOTS[size] = GameBoard(size).snapshot()
    return snapshot


class _Boards:
    """What the nodes of one tree share: the board size and the cache of
    recently used boards, ``{node: board}`` from least to most recent."""

    __slots__ = ("size", "cache")

    def __init__(self, size: int):
        self.size = size
        self.cache: dict[GameMove, GameBoard] = {}

    def put(self, node: "GameMove", board: GameBoard) -> None:
        cache = self.cache
        cache.pop(node, None)
        cache[node] = board
        while len(cache) > CACHE_BOARDS:
            cache.pop(next(iter(cache)), None)

    def history(self, node: "GameMove") -> set[int]:
        """The position hashes from the root to ``node``: a cached
        ancestor's history and the hashes below it, else all the way up."""
        hashes = []
        cache = self.cache
        while node is not None:
            board = cache.get(node)
            if board is not None:
                history = set(board.history)
                history.update(hashes)
                return history
            hashes.append(node.hash)
            node = node.parent
        history = set(hashes)
        history.add(0)
        return history

    def build(self, node: "GameMove") -> GameBoard:
        """The board after ``node``, replayed from the nearest ancestor with
        a cached or kept board; the last boards of the way are cached."""
        cache = self.cache
        path = []
        top: Optional[GameMove] = node
        while True:
            board = cache.get(top)
            if board is not None:
                board = board.copy()
                break
            if top._kept is not None:
                board = GameBoard.from_snapshot(top._kept, self.history(top))
                if top is not node:
                    self.put(top, board)
                    board = board.copy()
                break
            path.append(top)
            top = top.parent
        if not path:
            self.put(node, board)
            return board
        path.reverse()
        last = len(path) - 1
        tail = last - KEEP_EVERY
        for i, step in enumerate(path):
            step._replay(board)
            if i > tail:
                self.put(step, board)
                if i < last:
                    board = board.copy()
        return board


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
        board: the position after this node, rebuilt on demand (see the
            module doc); treat it as read-only.
        hash: the Zobrist hash of that position (``board.hash``), to compare
            positions without a board.
        captures: ``(stones captured by Black, stones captured by White)``
            so far.
        to_move: whose turn it is after this node.
        number: moves played from the root to here (setup nodes add none).
        properties: other SGF properties (comments, game info on the root,
            unknown properties), as ``{name: [raw values]}``.

    ``children``, ``setup`` and ``properties`` are stored as None until
    first used, so that a node costs a couple of hundred bytes.
    """

    __slots__ = ("parent", "_children", "color", "point", "_setup", "_properties",
                 "captures", "to_move", "number", "hash", "_kept", "_since", "_boards")

    def __init__(self, parent: Optional["GameMove"] = None, color: Optional[int] = None,
                 point: Optional[int] = None, captures: tuple[int, int] = (0, 0),
                 to_move: int = BLACK, number: int = 0, hash: int = 0):
        self.parent = parent
        self._children: Optional[list[GameMove]] = None
        self.color = color
        self.point = point
        self._setup: Optional[dict[int, list[int]]] = None
        self._properties: Optional[dict[str, list[str]]] = None
        self.captures = captures
        self.to_move = to_move
        self.number = number
        self.hash = hash
        self._kept: Optional[BoardSnapshot] = None
        self._since = 0  # nodes up to the nearest ancestor keeping a board
        self._boards: Optional[_Boards] = parent._boards if parent is not None else None

    @classmethod
    def new_root(cls, size: int) -> "GameMove":
        """The root of a new game on an empty ``size`` x ``size`` board. Its
        board is built when first asked for, from one empty snapshot shared
        by every game of that size (snapshots are immutable), so a
        collection of many small games costs no board apiece."""
        root = cls()
        root._boards = _Boards(size)
        root._kept = _empty_snapshot(size)
        return root

    # ------------------------------------------------------------ contents
    @property
    def children(self) -> list["GameMove"]:
        """The child nodes, main line first (a leaf's is an empty list that
        cannot be changed)."""
        children = self._children
        return _LEAF if children is None else children

    @property
    def setup(self) -> dict[int, list[int]]:
        """Setup stones by colour (``{}`` when none)."""
        if self._setup is None:
            self._setup = {}
        return self._setup

    @setup.setter
    def setup(self, value: dict[int, list[int]]) -> None:
        self._setup = value or None

    @property
    def properties(self) -> dict[str, list[str]]:
        """The other SGF properties, ``{name: [values]}``."""
        if self._properties is None:
            self._properties = {}
        return self._properties

    @properties.setter
    def properties(self, value: dict[str, list[str]]) -> None:
        self._properties = value or None

    @property
    def has_setup(self) -> bool:
        """True if setup stones are placed here (reading :attr:`setup`
        would create an empty dict on a node without)."""
        return bool(self._setup)

    @property
    def has_properties(self) -> bool:
        """True if the node has other SGF properties (see :attr:`has_setup`)."""
        return bool(self._properties)

    @property
    def size(self) -> int:
        """The board size of the tree."""
        return self._boards.size

    @property
    def board(self) -> GameBoard:
        """The position after this node (shared: do not change it)."""
        boards = self._boards
        board = boards.cache.pop(self, None)
        if board is None:
            return boards.build(self)
        boards.cache[self] = board
        return board

    def forget_boards(self) -> None:
        """Drop the boards the tree holds in its cache; they are rebuilt
        when asked for. For trees made in bulk (a collection of records),
        which would otherwise keep a board or more each."""
        self._boards.cache.clear()

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
        return index_to_vertex(self.point, self._boards.size)

    @property
    def comment(self) -> str:
        """The node's comment (SGF ``C``), or ``''``."""
        if not self._properties:
            return ""
        return "\n".join(self._properties.get("C", []))

    # ------------------------------------------------------------ growing
    def find_child(self, color: int, point: Optional[int]) -> Optional["GameMove"]:
        """The child that plays this move, if the tree has it."""
        for child in self._children or ():
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
        if captured:
            if color == BLACK:
                black += captured
            else:
                white += captured
        child = GameMove(self, color, point, (black, white), opponent(color),
                         self.number + 1, board.hash)
        self._link(child, board)
        self._boards.put(child, board)
        return child

    def add_setup_child(self, black: Iterable[int] = (), white: Iterable[int] = (),
                        empty: Iterable[int] = ()) -> "GameMove":
        """A new child node that only places setup stones."""
        board = self.board.copy()
        setup = _setup_dict(black, white, empty)
        board.set_stones(*_setup_lists(setup))
        child = GameMove(self, None, None, self.captures, self.to_move, self.number,
                         board.hash)
        child._setup = setup
        self._link(child, board)
        self._boards.put(child, board)
        return child

    def add_child(self, board: GameBoard, color: Optional[int] = None,
                  point: Optional[int] = None, setup: Optional[dict[int, list[int]]] = None,
                  captures: Optional[tuple[int, int]] = None,
                  to_move: Optional[int] = None) -> "GameMove":
        """A new child whose position the caller has worked out: ``board`` is
        the position after it, reached from this node's position by playing
        the move (``color`` at ``point``, a pass when ``point`` is None;
        a suicided string removed, as lenient SGF reading keeps them) or
        placing ``setup`` (``{colour: [points]}``, one ``set_stones`` call).

        For builders that play on one scratch board of their own, like the
        SGF reader: the board is not checked, stored or cached (the tree
        copies what it keeps), so the caller may go on playing on it.
        ``captures`` defaults to this node's, ``to_move`` to the side after
        the move (this node's without one)."""
        if to_move is None:
            to_move = 3 - color if color is not None else self.to_move
        child = GameMove(self, color, point, self.captures if captures is None else captures,
                         to_move, self.number + (color is not None), board.hash)
        if setup:
            child._setup = setup
        self._link(child, board)
        return child

    def _link(self, child: "GameMove", board: GameBoard) -> None:
        """Append ``child`` (its position being ``board``), keeping a copy of
        the board when the nearest kept one is KEEP_EVERY nodes up."""
        children = self._children
        if children is None:
            self._children = [child]
        else:
            children.append(child)
        since = self._since + 1
        if since < KEEP_EVERY:
            child._since = since
            return
        # keep the board; share the one kept above when every node since
        # changed no stone and it has no ko (a run of empty nodes or passes)
        node: Optional[GameMove] = child
        while node is not None and node._kept is None:
            if node._setup or node.point is not None:
                break
            node = node.parent
        else:
            if node is not None and not node._kept.ko_point:
                child._kept = node._kept
                return
        child._kept = board.snapshot()

    def add_setup(self, black: Iterable[int] = (), white: Iterable[int] = (),
                  empty: Iterable[int] = ()) -> None:
        """Place setup stones at this node (handicap on the root, a setup
        node being built). Raises ValueError when the node has children,
        whose positions would change."""
        if self._children:
            raise ValueError("cannot add setup stones to a node with children")
        boards = self._boards
        board = self.board.copy()
        boards.cache.pop(self, None)
        black, white, empty = list(black), list(white), list(empty)
        board.set_stones(black, white, empty)
        for color, points in ((BLACK, black), (WHITE, white), (EMPTY, empty)):
            if points:
                self.setup.setdefault(color, []).extend(points)
        self.hash = board.hash
        board.history = boards.history(self)
        self._kept = board.snapshot()
        self._since = 0
        boards.put(self, board)

    def remove_child(self, child: "GameMove") -> None:
        """Cut a variation out of the tree."""
        self.children.remove(child)
        if not self._children:
            self._children = None
        self._boards.cache.pop(child, None)
        child.parent = None

    def _replay(self, board: GameBoard) -> None:
        """Turn the parent's position on ``board`` into this node's."""
        point = self.point
        if self.color is None:
            if self._setup:
                board.set_stones(*_setup_lists(self._setup))
            else:
                board.set_stones()
        elif point is None:
            board.play(None, self.color)
        else:
            board.place(point, self.color)
            if not board.libs[board.root[point]]:
                remove_suicided(board, point)

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
            node = node._children[0] if node._children else None

    def iter_tree(self) -> Iterator["GameMove"]:
        """Every node of the subtree, depth first (children in order)."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            if node._children:
                stack.extend(reversed(node._children))

    def __repr__(self) -> str:
        who = {BLACK: "B", WHITE: "W"}.get(self.color, "-")
        return f"GameMove({who} {self.vertex or 'root'} #{self.number})"


def remove_suicided(board: GameBoard, point: int) -> int:
    """Take off the board the string at ``point`` that was just placed
    without a liberty (a suicide kept by lenient SGF reading); returns its
    size. The position with the string on the board, which never stood,
    is dropped from the superko history."""
    stones = board.string_stones(point)
    board.history.discard(board.hash)
    board.set_stones(empty=stones)
    return len(stones)


def _setup_dict(black: Iterable[int], white: Iterable[int],
                empty: Iterable[int]) -> Optional[dict[int, list[int]]]:
    setup = {}
    for color, points in ((BLACK, black), (WHITE, white), (EMPTY, empty)):
        points = list(points)
        if points:
            setup[color] = points
    return setup or None


def _setup_lists(setup: Optional[dict[int, list[int]]]) -> tuple[list, list, list]:
    if not setup:
        return [], [], []
    return setup.get(BLACK, []), setup.get(WHITE, []), setup.get(EMPTY, [])


__all__ = ["GameMove", "IllegalMoveError", "remove_suicided"]
