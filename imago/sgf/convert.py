"""Parse tree to game tree: an :class:`ASTNode` and its subtree as a
:class:`~imago.game.GameState`.

The moves are played on one scratch board while the parse tree is walked
depth first (copied only where a node has variations); the game tree's
nodes get the facts about each position, not the board (see
:mod:`imago.game.tree`).

- Game info: ``GM`` must be 1; ``SZ`` square, 2..25 (else SGFError);
  ``KM`` and ``HA`` set ``komi`` and ``handicap``; a ``HA`` that is not a
  whole number (ASCII digits) or more stones than the board has points is
  an SGFError (lenient: no handicap). The root's properties
  stay in ``root.properties`` except ``FF``, ``GM`` and ``CA``, which
  describe the file, not the game (the writer writes its own).
- ``B``/``W`` are moves (``[]`` and, up to 19x19, ``[tt]`` are passes),
  ``AB``/``AW``/``AE`` setup stones (compressed lists expanded) at any
  node, ``PL`` sets ``to_move``. Every variation is kept, in order.
  Everything else (comments, markup, unknown properties) is kept in
  ``GameMove.properties`` with the text unescaped.
- A node with both setup and a move becomes a setup node followed by the
  move node; several moves in one node become a chain of move nodes (the
  node's other properties go to the last).
- Without ``PL``, the root has White to move when ``HA`` >= 1 and it holds
  black setup stones (the handicap).
- Legality: repeating an earlier whole-board position (superko) is
  accepted, since records follow rule sets without superko. Occupied
  points, suicide and ko retakes raise :class:`SGFError` at the node's line
  and column, unless the node has ``KO[]`` ("play it even if illegal").
  With ``lenient=True`` (or ``KO[]``) they are kept so the record can be
  shown: a ko retake is played anyway, a suicide removes the suicided
  string, a stone on an occupied point becomes a setup node (``AB``/``AW``
  with the other colour to move) that replaces the stone. In lenient mode
  off-board or malformed points of moves are also read as passes, and bad
  setup points and ``PL`` values are dropped.
"""

from __future__ import annotations

import gc
import logging
from typing import Optional

from imago.game import BLACK, EMPTY, WHITE, GameBoard, GameMove, GameState, opponent
from imago.game.coords import SGF_LETTERS, format_sgf_point, from_index, to_index
from imago.game.tree import remove_suicided

from .errors import SGFError, clip
from .nodes import ASTNode, expand_point_list, parse_number, unescape

log = logging.getLogger("imago.sgf")

_NOT_A_POINT = -1

# Root properties not kept: they describe the file (the writer writes its own).
FILE_PROPERTIES = frozenset(("FF", "GM", "CA"))

_TABLES: dict[int, dict[str, Optional[int]]] = {}
_GRIDS: dict[int, list[list[int]]] = {}


def index_grid(size: int) -> list[list[int]]:
    """``grid[col][row]``: the internal index of each point of one board
    size. Setup lists are made of these shared ints (8 bytes a point, not
    the 40 of a new int each: an ``AE[aa:yy]`` per node adds up)."""
    grid = _GRIDS.get(size)
    if grid is None:
        grid = _GRIDS[size] = [[to_index(col, row, size) for row in range(size)]
                               for col in range(size)]
    return grid


def point_table(size: int) -> dict[str, Optional[int]]:
    """``{sgf point: internal index}`` for one board size (passes: None)."""
    table = _TABLES.get(size)
    if table is None:
        table = {"": None}
        if size <= 19:
            table["tt"] = None
        grid = index_grid(size)
        for col in range(size):
            for row in range(size):
                table[SGF_LETTERS[col] + SGF_LETTERS[row]] = grid[col][row]
        _TABLES[size] = table
    return table


def check_game_info(root: ASTNode) -> int:
    """Refuse what is not Go on a supported board; return the board size."""
    gm = root.properties.get("GM")
    if gm is not None:
        text = unescape(gm[0]).strip()
        try:
            ok = text == "1" or parse_number(text) == 1
        except ValueError:
            ok = False
        if not ok:
            raise root.error(f"GM[{clip(text)}]: not a game of Go (only GM[1] is supported)")
    return root.get_size()


def read_handicap(root: ASTNode, lenient: bool) -> int:
    """The root's handicap (:meth:`ASTNode.get_handicap`); in lenient mode
    a bad ``HA`` is logged and read as no handicap."""
    try:
        return root.get_handicap()
    except SGFError as err:
        if not lenient:
            raise
        log.info("%s; read as no handicap", err)
        return 0


def to_game(root: ASTNode, lenient: bool = False) -> GameState:
    """The game tree of ``root`` (a parsed game tree's root) as a GameState
    with ``current`` at the root. Raises :class:`SGFError` with the node's
    line and column (:class:`~imago.sgf.SGFError`; see the module doc for
    what ``lenient`` keeps)."""
    size = check_game_info(root)
    game = GameState(size, root.komi)
    game.handicap = read_handicap(root, lenient)
    converter = _Converter(game, point_table(size), lenient, size)
    # A big tree is many small objects and no garbage: the cyclic garbage
    # collector would rescan the growing heap again and again, so it is
    # paused meanwhile.
    collecting = gc.isenabled()
    gc.disable()
    try:
        _build(root, converter, None, game.root.board.copy())
    finally:
        if collecting:
            gc.enable()
    game.root.forget_boards()  # a collection of many games keeps no board apiece
    game.current = game.root
    return game


def add_subtree(ast: ASTNode, parent: GameMove, lenient: bool = False) -> GameMove:
    """Convert ``ast`` (any node of a parsed tree) and its subtree into new
    children of ``parent``, an existing GameMove (for instance to paste a
    variation); returns the GameMove of ``ast``. Raises SGFError."""
    converter = _Converter(None, point_table(parent.size), lenient, parent.size)
    return _build(ast, converter, parent, parent.board.copy())


# How a variation waiting on the stack gets its starting board: it owns
# the board there, copies a board it shares with its siblings (the branch
# point's position, which the last sibling takes), or has the game tree
# rebuild the branch point's board.
_OWN, _COPY, _REBUILD = 0, 1, 2

# Boards held at once for the variations still to convert. A hostile file
# nesting thousands of variations would otherwise hold thousands of boards
# (each with its superko history); beyond this many, a variation's start is
# rebuilt from the game tree when its turn comes (bounded memory, more time).
HELD_BOARDS = 64


def _build(top: ASTNode, converter: "_Converter", parent: Optional[GameMove],
           board: GameBoard) -> GameMove:
    """Convert ``top`` below ``parent`` (None: as the game's root) and its
    subtree, depth first, playing on ``board`` (the position at
    ``parent``); return the GameMove of ``top``."""
    stack: list[tuple[ASTNode, Optional[GameMove], Optional[GameBoard], int]] = \
        [(top, parent, board, _OWN)]
    held = 1  # boards owned by entries of the stack
    first = None
    convert, play = converter.node, converter.play
    while stack:
        ast, node, board, how = stack.pop()
        if how == _OWN:
            held -= 1
        elif how == _COPY:
            board = board.copy()
        else:
            board = node.board.copy()
        while True:
            props = ast.properties
            values = None
            if node is not None and len(props) == 1:
                # the common node: one move and nothing else
                values = props.get("B")
                color = BLACK
                if values is None:
                    values = props.get("W")
                    color = WHITE
            if values is not None and len(values) == 1:
                node = play(ast, node, color, values[0], board)
            else:
                node = convert(ast, node, board)
            if first is None:
                first = node
            children = ast.children
            if not children:
                break
            ast = children[0]
            if len(children) > 1:
                # the main line goes on at once; the variations wait, in
                # order, with one copy of this position between them
                if held < HELD_BOARDS:
                    base = board.copy()
                    held += 1
                    stack.append((children[-1], node, base, _OWN))
                    stack.extend((child, node, base, _COPY) for child in children[-2:0:-1])
                else:
                    stack.extend((child, node, None, _REBUILD) for child in children[:0:-1])
    return first


class _Converter:
    __slots__ = ("game", "table", "lenient", "size")

    def __init__(self, game: Optional[GameState], table: dict, lenient: bool,
                 size: int):
        self.game = game  # None when adding a subtree below a given node
        self.table = table
        self.lenient = lenient
        self.size = size

    def node(self, ast: ASTNode, parent: Optional[GameMove], board: GameBoard) -> GameMove:
        """Add the GameMove node(s) of one AST node below ``parent`` (None:
        the root), playing on ``board``; return the last one (where the
        children go)."""
        props = ast.properties
        moves = setup = player = None
        others: dict[str, list[str]] = {}
        for name, values in props.items():
            if name == "B" or name == "W":
                if moves is None:
                    moves = []
                color = BLACK if name == "B" else WHITE
                moves.extend((color, v) for v in values)
            elif name == "AB" or name == "AW" or name == "AE":
                if setup is None:
                    setup = {}
                setup[name] = values
            elif name == "PL":
                player = values
            elif parent is None and name in FILE_PROPERTIES:
                continue
            else:
                others[name] = [unescape(v) for v in values]

        if parent is None:
            node = self.game.root
            if setup:
                points = self.setup_points(ast, setup)
                node.add_setup(*points)
                board.set_stones(*points)
            node.properties = others  # game info stays at the root
            others = None
            if player is None and self.game.handicap and node.has_setup \
                    and node.setup.get(BLACK):
                node.to_move = WHITE
        elif setup or not moves:
            black, white, empty = self.setup_points(ast, setup)
            board.set_stones(black, white, empty)
            stones = {}
            for color, points in ((BLACK, black), (WHITE, white), (EMPTY, empty)):
                if points:
                    stones[color] = points
            node = parent.add_child(board, setup=stones)
        else:
            node = parent
        if moves:
            for color, value in moves:
                node = self.play(ast, node, color, value, board, "KO" in props)
        if others:
            node.properties = others
        if player is not None:
            color = self.color(ast, player)
            if color is not None:
                node.to_move = color
        return node

    # ------------------------------------------------------------ values
    def setup_points(self, ast: ASTNode, setup: Optional[dict]) -> tuple[list, list, list]:
        if not setup:
            return [], [], []
        size = self.size
        grid = index_grid(size)
        out = []
        for name in ("AB", "AW", "AE"):
            raw = setup.get(name)
            if not raw:
                out.append([])
                continue
            try:
                points = expand_point_list(raw, size)
            except ValueError as err:
                if not self.lenient:
                    raise ast.error(f"{name}: {err}") from None
                points = []
                for value in raw:
                    try:
                        points.extend(expand_point_list([value], size))
                    except ValueError:
                        pass
            out.append([grid[c][r] for c, r in points])
        return out[0], out[1], out[2]

    def color(self, ast: ASTNode, raw: list[str]) -> Optional[int]:
        word = unescape(raw[0]).strip().upper() if raw else ""
        if word in ("B", "BLACK", "1"):
            return BLACK
        if word in ("W", "WHITE", "2"):
            return WHITE
        if self.lenient:
            return None
        raise ast.error(f"PL[{clip(word)}]: the colour must be B or W")

    def point(self, ast: ASTNode, color: int, value: str) -> Optional[int]:
        try:
            return self.table[value]
        except KeyError:
            pass
        stripped = value.strip()
        if stripped in self.table:
            return self.table[stripped]
        if self.lenient:
            return None
        letter = "B" if color == BLACK else "W"
        if len(stripped) == 2 and all(c in SGF_LETTERS for c in stripped):
            raise ast.error(f"move {letter}[{stripped}] is off the "
                            f"{self.size}x{self.size} board")
        raise ast.error(f"move {letter}[{clip(value)}]: not a point")

    # ------------------------------------------------------------ moves
    def play(self, ast: ASTNode, parent: GameMove, color: int, value: str,
             board: GameBoard, force: bool = False) -> GameMove:
        """A new child of ``parent`` for the move, played on ``board`` (never
        merged with an existing child: every variation of the file is
        kept). ``force`` (the node has ``KO[]``, "play it even if illegal")
        keeps an illegal move as lenient mode does."""
        point = self.table.get(value, _NOT_A_POINT)
        if point is _NOT_A_POINT:
            point = self.point(ast, color, value)
        if point is None:
            board.play(None, color)
            return parent.add_child(board, color)
        reason = board.illegal_reason(point, color)
        if reason is None or reason == "superko":
            captured = board.place(point, color)
            if not captured:
                return parent.add_child(board, color, point, None, parent.captures, 3 - color)
        elif not (self.lenient or force):
            letter = "B" if color == BLACK else "W"
            where = format_sgf_point(from_index(point, self.size))
            raise ast.error(f"illegal move {letter}[{where}]: {reason}")
        elif reason == "occupied":
            # a setup node that replaces the stone, the other colour to move
            if color == BLACK:
                board.set_stones(black=[point])
            else:
                board.set_stones(white=[point])
            return parent.add_child(board, setup={color: [point]}, to_move=opponent(color))
        else:  # ko retaken, or suicide: keep the record's position
            captured = board.place(point, color)
            if not board.libs[board.root[point]]:
                suicided = remove_suicided(board, point)
                black, white = parent.captures
                captures = (black, white + suicided) if color == BLACK \
                    else (black + suicided, white)
                return parent.add_child(board, color, point, captures=captures)
        if captured:
            black, white = parent.captures
            if color == BLACK:
                black += captured
            else:
                white += captured
            return parent.add_child(board, color, point, captures=(black, white))
        return parent.add_child(board, color, point)


__all__ = ["to_game", "add_subtree", "point_table", "check_game_info", "FILE_PROPERTIES"]
