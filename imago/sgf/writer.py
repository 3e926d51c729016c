"""Game tree to SGF text (FF[4], UTF-8).

The root is written ``FF[4]GM[1]CA[UTF-8]`` then ``SZ``, ``KM`` and ``HA``
(the game's ``size``, ``komi`` and ``handicap``; a raw value kept in
``root.properties`` is written as it was when it means the same number),
``RU`` for a game played under rules other than imago's own
(:func:`rules_name`), then the root's other properties. Each node then
has its move (``B[]`` for a pass), its setup stones (``AB``/``AW``/``AE``),
``PL`` where the side to move is not the natural one, and its other
properties, with ``\\`` and ``]`` escaped. Variations are written in
parentheses, main line first. Reading the text back gives the same tree
(see :mod:`.convert`).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Optional

from imago.game import BLACK, EMPTY, WHITE, GameMove, GameState, opponent
from imago.game.coords import SGF_LETTERS
from imago.game.state import TERRITORY

from .nodes import MAX_KOMI, escape, parse_handicap, parse_komi

_GAME_FIELDS = frozenset(("FF", "GM", "CA", "SZ", "KM", "HA"))
_MODELLED = frozenset(("B", "W", "AB", "AW", "AE", "PL"))
_SETUP_NAMES = ((BLACK, "AB"), (WHITE, "AW"), (EMPTY, "AE"))
BONUS_RULES = {"N": "Chinese", "N-1": "AGA"}
"""``RU`` of an area-scored game by its white handicap bonus."""


def rules_name(game: GameState) -> Optional[str]:
    """The ``RU`` the game's rules are written with: ``Japanese`` for a game
    counted by territory, ``Chinese`` or ``AGA`` for one with White's
    handicap bonus (``KM`` is then the komi set, the bonus left to the
    rules, as SGF readers count it), ``Tromp-Taylor`` for one that counts
    every stone standing at the end alive; None: the record's own ``RU``,
    or none (imago's area scoring without a bonus)."""
    if game.scoring == TERRITORY:
        return "Japanese"
    if game.handicap_bonus in BONUS_RULES:
        return BONUS_RULES[game.handicap_bonus]
    return "Tromp-Taylor" if game.capture_dead else None


def format_number(value: float) -> str:
    """A real number as SGF text (``7.5``, ``6``; never an exponent, which
    an FF[4] Real cannot have), read back as the same float."""
    value = float(value)
    if value.is_integer():
        return str(int(value))
    text = repr(value)
    return format(Decimal(text), "f") if "e" in text else text


def root_to_move(game: GameState) -> int:
    """Whose turn it is at the root when the file has no ``PL``: White after
    handicap stones (``HA`` >= 1 and black setup stones), else Black."""
    if game.handicap and game.root.has_setup and game.root.setup.get(BLACK):
        return WHITE
    return BLACK


class _Writer:
    def __init__(self, game: GameState):
        self.game = game
        self.size = game.size
        stride = game.size + 2
        self.names = {}
        for row in range(game.size):
            for col in range(game.size):
                self.names[(row + 1) * stride + col + 1] = SGF_LETTERS[col] + SGF_LETTERS[row]

    def point(self, point: Optional[int]) -> str:
        return "" if point is None else self.names[point]

    def root_fields(self) -> list[str]:
        game, props = self.game, self.game.root.properties
        parts = ["FF[4]GM[1]CA[UTF-8]"]
        raw = props.get("SZ")
        if raw is not None and raw and raw[0].strip() == str(game.size):
            parts.append(f"SZ[{escape(raw[0])}]")
        elif raw is not None or game.size != 19:
            parts.append(f"SZ[{game.size}]")
        raw = props.get("KM")
        if raw is not None and raw and parse_komi(raw[0]) == game.komi:
            parts.append(f"KM[{escape(raw[0])}]")
        elif raw is not None or game.komi:
            komi = format_number(game.komi)
            if abs(game.komi) > MAX_KOMI and "." not in komi:
                komi += ".0"  # a whole number this large would read as Fox's komi x 100
            parts.append(f"KM[{komi}]")
        raw = props.get("HA")
        if raw is not None and raw and parse_handicap(raw[0]) == game.handicap:
            parts.append(f"HA[{escape(raw[0])}]")
        elif raw is not None or game.handicap:
            parts.append(f"HA[{game.handicap}]")
        rules = rules_name(game)
        if rules is not None:
            parts.append(f"RU[{rules}]")
        return parts

    def setup(self, node: GameMove) -> list[str]:
        parts = []
        for color, name in _SETUP_NAMES:
            points = node.setup.get(color)
            if points:
                parts.append(name + "".join(f"[{self.point(p)}]" for p in points))
        return parts

    def node(self, node: GameMove) -> str:
        """The text of one node (two when a move node also has setup)."""
        is_root = node.parent is None
        parts = [";"]
        if is_root:
            parts.extend(self.root_fields())
            natural = root_to_move(self.game)
        elif node.color is not None:
            parts.append(("B[" if node.color == BLACK else "W[") + self.point(node.point) + "]")
            natural = opponent(node.color)
            if node.has_setup:
                # setup after a move: a following setup-only node
                parts.append(";")
        else:
            natural = node.parent.to_move
        if node.has_setup:
            parts.extend(self.setup(node))
        if node.to_move != natural:
            parts.append("PL[B]" if node.to_move == BLACK else "PL[W]")
        skip = (_GAME_FIELDS | {"RU"} if rules_name(self.game) else _GAME_FIELDS) \
            if is_root else ()
        if not node.has_properties:
            return "".join(parts)
        for name, values in node.properties.items():
            if name in _MODELLED or name in skip or not values:
                continue
            parts.append(name + "".join("[" + escape(v) + "]" for v in values))
        return "".join(parts)


def dumps(game: GameState) -> str:
    """The whole game tree of ``game`` (from its root) as SGF text."""
    writer = _Writer(game)
    out: list[str] = []
    # stack of nodes opening a game tree, or None for a ')'
    stack: list[Optional[GameMove]] = [game.root]
    first = True
    while stack:
        node = stack.pop()
        if node is None:
            out.append(")")
            continue
        out.append("(" if first else "\n(")
        count = 0
        while True:
            out.append(writer.node(node))
            count += 1
            if first or count % 12 == 0:
                out.append("\n")
            first = False
            if len(node.children) != 1:
                break
            node = node.children[0]
        stack.append(None)
        stack.extend(reversed(node.children))
    out.append("\n")
    return "".join(out)


__all__ = ["dumps", "format_number", "root_to_move"]
