"""The parse tree: :class:`ASTNode` (a node of an SGF game tree) and
:class:`Property` (one property with typed values).

Nodes keep their property values *raw*, exactly as written between the
brackets (escapes included), so parsing stays cheap; :class:`Property`
converts on demand to the SGF FF[4] value types: move, point, point list
(compressed lists ``aa:cc`` expanded), number, real, double, colour, text,
simple text, none, and composed values (``LB[aa:label]``).
"""

from __future__ import annotations

import math
import re
import sys
from typing import Any, Iterator, Optional

from .errors import SGFError, clip, quote

# Value type of each FF[4] Go property (others are treated as text).
MOVE, POINT, POINT_LIST, NUMBER, REAL, DOUBLE, COLOR, TEXT, SIMPLE_TEXT, NONE, \
    COMPOSE = ("move", "point", "point list", "number", "real", "double", "colour",
               "text", "simple text", "none", "compose")

PROPERTY_TYPES: dict[str, str] = {
    "B": MOVE, "W": MOVE,
    "AB": POINT_LIST, "AW": POINT_LIST, "AE": POINT_LIST, "TR": POINT_LIST,
    "SQ": POINT_LIST, "CR": POINT_LIST, "MA": POINT_LIST, "SL": POINT_LIST,
    "TB": POINT_LIST, "TW": POINT_LIST, "DD": POINT_LIST, "VW": POINT_LIST,
    "FF": NUMBER, "GM": NUMBER, "HA": NUMBER, "MN": NUMBER, "OB": NUMBER,
    "OW": NUMBER, "PM": NUMBER, "ST": NUMBER, "SZ": NUMBER,
    "KM": REAL, "BL": REAL, "WL": REAL, "TM": REAL, "V": REAL,
    "GB": DOUBLE, "GW": DOUBLE, "DM": DOUBLE, "UC": DOUBLE, "BM": DOUBLE,
    "TE": DOUBLE, "HO": DOUBLE,
    "PL": COLOR,
    "C": TEXT, "GC": TEXT,
    "N": SIMPLE_TEXT, "PB": SIMPLE_TEXT, "PW": SIMPLE_TEXT, "BR": SIMPLE_TEXT,
    "WR": SIMPLE_TEXT, "BT": SIMPLE_TEXT, "WT": SIMPLE_TEXT, "RE": SIMPLE_TEXT,
    "DT": SIMPLE_TEXT, "EV": SIMPLE_TEXT, "RO": SIMPLE_TEXT, "PC": SIMPLE_TEXT,
    "RU": SIMPLE_TEXT, "GN": SIMPLE_TEXT, "SO": SIMPLE_TEXT, "US": SIMPLE_TEXT,
    "AN": SIMPLE_TEXT, "CP": SIMPLE_TEXT, "OT": SIMPLE_TEXT, "ON": SIMPLE_TEXT,
    "CA": SIMPLE_TEXT,
    "KO": NONE, "IT": NONE, "DO": NONE,
    "LB": COMPOSE, "AR": COMPOSE, "LN": COMPOSE, "AP": COMPOSE, "FG": COMPOSE,
}

# Game-information properties (FF[4]), read at the root.
GAME_INFO = ("GM", "FF", "CA", "SZ", "KM", "HA", "RU", "PB", "PW", "BR", "WR", "BT",
             "WT", "RE", "DT", "EV", "RO", "PC", "GN", "GC", "ON", "OT", "TM", "SO",
             "US", "AN", "CP", "AP")

# Regular-expression fragments of the SGF syntax, for the lexer and the
# scanners. From Python 3.11 their repetitions are possessive, so that the
# regex engine keeps no backtracking state per repetition (a value of four
# million escapes cost 450 MB without); nothing in them needs to backtrack.
POSSESSIVE = "+" if sys.version_info >= (3, 11) else ""
VALUE_BODY_RE = r"[^\]\\]*(?:\\.[^\]\\]*)*" + POSSESSIVE  # between '[' and ']'
VALUE_RE = r"\[" + VALUE_BODY_RE + r"\]"
VALUES_RE = r"(?:" + VALUE_RE + r"\s*)+" + POSSESSIVE  # one or more, spaces after each
PROPERTY_RE = r"[A-Za-z]+\s*" + VALUES_RE

_COMPOSE_LEFT = re.compile(r"[^:\\]*(?:\\.[^:\\]*)*" + POSSESSIVE, re.S)  # before the ':'
_NUMBER = re.compile(r"[+-]?[0-9]+")
_REAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")
_FIRST_NUMBER = re.compile(r"[+-]?[0-9]+(?:[.,][0-9]+)?")
MAX_DIGITS = 18  # a longer Number is no sensible value of any Go property

_LOWER = re.compile(r"[a-z]+")
_ESCAPE = re.compile(r"\\(\r\n|\n\r|.)", re.S)
_LINEBREAK = re.compile(r"\r\n|\n\r|\r")
_OTHER_SPACE = re.compile(r"[\t\f\v]")


def property_name(ident: str) -> str:
    """The FF[4] name of a property identifier: FF[1-3] lowercase letters
    dropped (``AddBlack`` -> ``AB``, ``White`` -> ``W``)."""
    return ident if ident.isupper() and ident.isalpha() else _LOWER.sub("", ident)


def _unescape_match(m: re.Match) -> str:
    ch = m.group(1)
    return "" if ch in ("\n", "\r", "\r\n", "\n\r") else ch  # soft line break


def unescape(raw: str) -> str:
    """A raw value as text: soft line breaks (backslash-newline) removed,
    other escapes resolved, line breaks made ``\\n``."""
    if "\\" in raw:
        raw = _ESCAPE.sub(_unescape_match, raw)
    if "\r" in raw:
        raw = _LINEBREAK.sub("\n", raw)
    return raw


def escape(text: str) -> str:
    """Text as a raw value: ``\\`` and ``]`` escaped."""
    if "\\" in text:
        text = text.replace("\\", "\\\\")
    if "]" in text:
        text = text.replace("]", "\\]")
    return text


def simple_text(raw: str) -> str:
    """A SimpleText value: unescaped, line breaks and other white space
    become spaces."""
    return _OTHER_SPACE.sub(" ", unescape(raw).replace("\n", " "))


def split_compose(raw: str) -> tuple[str, str]:
    """The two halves of a composed value, split at the first colon that is
    not escaped (both halves still raw)."""
    i = _COMPOSE_LEFT.match(raw).end()
    if i == len(raw) or raw[i] != ":":
        raise ValueError(f"not a composed value: {quote(raw)}")
    return raw[:i], raw[i + 1:]


def parse_number(raw: str) -> int:
    """An FF[4] Number: ASCII digits with an optional sign (spaces around
    allowed). Raises ValueError for anything else (``1e3``, ``7.5``, other
    scripts' digits) and beyond :data:`MAX_DIGITS` digits."""
    text = raw.strip()
    if not _NUMBER.fullmatch(text):
        raise ValueError(f"not a number: {quote(text)}")
    if len(text.lstrip("+-0")) > MAX_DIGITS:
        raise ValueError(f"number too large: {quote(text)}")
    return int(text)


def parse_real(raw: str) -> float:
    """An FF[4] Real: a Number with an optional fraction (``7.5``; ``7.``
    and ``.5`` allowed). Raises ValueError for anything else (exponents,
    ``inf``, ``nan``, other scripts' digits) and beyond the float range."""
    text = raw.strip()
    if not _REAL.fullmatch(text):
        raise ValueError(f"not a real number: {quote(text)}")
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"number too large: {quote(text)}")
    return value


MAX_KOMI = 150.0
"""No game has a larger komi (KataGo's bound too)."""


def parse_komi(raw: str) -> float:
    """Komi from a raw ``KM`` value; not a Real: the first number in the
    text (``6.5 points``, ``6,5``), else 0. A value beyond :data:`MAX_KOMI`
    written as a whole number is read as Fox's and other Chinese servers'
    komi times a hundred: in points where that is a whole or half point
    (``KM[750]``: 7.5, their Japanese-rules games), in stones where it is a
    quarter, as Chinese counting gives komi (``KM[375]``: 3.75 stones, 7.5
    points; ``KM[325]``: 6.5). Any other (``KM[200.0]``, how imago writes a
    komi of 200) is returned as it is, for the caller to refuse."""
    text = unescape(raw).strip()
    try:
        komi = parse_real(text)
    except ValueError:
        m = _FIRST_NUMBER.search(text)
        try:
            komi = parse_real(m.group().replace(",", ".")) if m else 0.0
        except ValueError:  # too large
            return 0.0
    if abs(komi) <= MAX_KOMI:
        return komi
    fox = komi / 100
    if "." in text or "," in text or abs(fox) > MAX_KOMI:
        return komi
    if (2 * fox).is_integer():
        return fox
    return 2 * fox if (4 * fox).is_integer() else komi


def parse_handicap(raw: str) -> Optional[int]:
    """Handicap stones from a raw ``HA`` value, or None when it is not a
    Number (see :meth:`ASTNode.get_handicap` for the range)."""
    try:
        return parse_number(raw)
    except ValueError:
        return None


class Property:
    """One property of a node: its FF[4] ``name``, its ``raw`` values (as
    written, escapes included) and typed views of them.

    ``kind`` is the value type (``move``, ``point list``, ``text``, ...).
    :attr:`value` is the first typed value, :attr:`values` all of them.
    Points are ``(col, row)`` with row 0 at the top (``None`` for a pass);
    ``size`` is the board size they must fit (passes ``tt`` count up to 19).
    Raises ``ValueError`` when a value is malformed for its type.
    """

    __slots__ = ("name", "raw", "size")

    def __init__(self, name: str, raw: list[str], size: int = 19):
        self.name = name
        self.raw = raw
        self.size = size

    @property
    def kind(self) -> str:
        return PROPERTY_TYPES.get(self.name, TEXT)

    def convert(self, raw: str) -> Any:
        """One raw value of this property as its type."""
        from imago.game import parse_sgf_point
        kind = self.kind
        if kind in (MOVE, POINT):
            return parse_sgf_point(raw.strip(), self.size)
        if kind == NUMBER:
            if self.name == "SZ" and ":" in raw:
                cols, rows = raw.split(":", 1)
                return parse_number(cols), parse_number(rows)
            return parse_number(raw)
        if kind == REAL:
            return parse_real(raw)
        if kind == DOUBLE:
            text = raw.strip() or "1"
            if text not in ("1", "2"):
                raise ValueError(f"double must be 1 or 2: {quote(raw)}")
            return int(text)
        if kind == COLOR:
            word = raw.strip().upper()
            if word not in ("B", "W"):
                raise ValueError(f"colour must be B or W: {quote(raw)}")
            return word
        if kind == SIMPLE_TEXT:
            return simple_text(raw)
        if kind == NONE:
            return None
        if kind == COMPOSE:
            left, right = split_compose(raw)
            return unescape(left), unescape(right)
        return unescape(raw)

    @property
    def values(self) -> list[Any]:
        """Every value, typed; point lists with ``aa:cc`` rectangles
        expanded, in order and without repeats."""
        if self.kind != POINT_LIST:
            return [self.convert(r) for r in self.raw]
        return expand_point_list(self.raw, self.size)

    @property
    def value(self) -> Any:
        """The first value, typed (a point list gives the whole list)."""
        if self.kind == POINT_LIST:
            return self.values
        return self.convert(self.raw[0])

    def __repr__(self) -> str:
        return f"Property({self.name!r}, {self.raw!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Property) and (self.name, self.raw) == (other.name, other.raw)

    __hash__ = None  # type: ignore[assignment]


def expand_point_list(raw: list[str], size: int) -> list[tuple[int, int]]:
    """The points of a (possibly compressed) point list: ``aa:cc`` is the
    rectangle between the two corners. Raises ValueError on a bad point."""
    from imago.game import parse_sgf_point
    points: list[tuple[int, int]] = []
    seen = set()
    for value in raw:
        value = value.strip()
        if ":" in value:
            first, second = value.split(":", 1)
            a = parse_sgf_point(first.strip(), size)
            b = parse_sgf_point(second.strip(), size)
            if a is None or b is None:
                raise ValueError(f"pass in a compressed point list: {quote(value)}")
            cols = range(min(a[0], b[0]), max(a[0], b[0]) + 1)
            rows = range(min(a[1], b[1]), max(a[1], b[1]) + 1)
            group = [(c, r) for r in rows for c in cols]
        else:
            point = parse_sgf_point(value, size)
            if point is None:
                if value == "":
                    continue  # AB[] (an empty list) is allowed
                raise ValueError(f"pass in a point list: {quote(value)}")
            group = [point]
        for point in group:
            if point not in seen:
                seen.add(point)
                points.append(point)
    return points


class ASTNode:
    """A node of a parsed SGF game tree.

    Attributes:
        parent, children: the tree (``children[0]`` is the main line).
        properties: ``{name: [raw values]}`` in file order; names are FF[4]
            names (``AddBlack`` was read as ``AB``); repeated identifiers
            in a node have their values joined.
    ``node[name]`` gives a :class:`Property`; ``offset``, ``line`` and
    ``column`` say where the node's ``;`` is in the source (computed on
    demand). The root also exposes the game information (:attr:`size`,
    :attr:`komi`, :attr:`handicap`, :attr:`game_info`).
    """

    __slots__ = ("parent", "children", "properties", "_run")

    def __init__(self, parent: Optional["ASTNode"] = None, run: Any = None):
        # run: (Source, offset of the run of nodes this one was parsed in,
        # shared by the nodes of that run); the offset of the node itself
        # is found on demand.
        self.parent = parent
        self.children: list[ASTNode] = []
        self.properties: dict[str, list[str]] = {}
        self._run = run
        if parent is not None:
            parent.children.append(self)

    # ------------------------------------------------------------ properties
    def __getitem__(self, name: str) -> Property:
        return Property(name, self.properties[name], self._board_size())

    def __contains__(self, name: str) -> bool:
        return name in self.properties

    def get(self, name: str, default: Any = None) -> Any:
        """The first typed value of a property, or ``default`` if absent."""
        if name not in self.properties:
            return default
        return self[name].value

    def _board_size(self) -> int:
        root = self.root
        try:
            size = root.get_size()
        except (SGFError, ValueError):
            return 19
        return size

    @property
    def root(self) -> "ASTNode":
        """The root of this node's game tree."""
        node = self
        while node.parent is not None:
            node = node.parent
        return node

    # ------------------------------------------------------------ game info
    def get_size(self) -> int:
        """The board size from ``SZ`` (19 without one). Raises SGFError for a
        non-square board, a bad number or a size beyond 2..25."""
        from imago.game.coords import MAX_SIZE
        raw = self.properties.get("SZ")
        if raw is None:
            return 19
        text = raw[0].strip()
        if len(text) <= 2 and text.isascii() and text.isdigit():  # the usual SZ[19]
            cols = rows = int(text)
        else:
            try:
                if ":" in text:
                    cols, rows = (parse_number(x) for x in text.split(":", 1))
                else:
                    cols = rows = parse_number(text)
            except ValueError:
                raise self.error(f"SZ[{clip(text)}]: the board size is not a number from 2 "
                                 f"to {MAX_SIZE}") from None
            if cols != rows:
                raise self.error(f"SZ[{clip(text)}]: non-square boards are not supported")
        if not 2 <= cols <= MAX_SIZE:
            raise self.error(f"SZ[{clip(text)}]: board size {cols} is not supported "
                             f"(2..{MAX_SIZE})")
        return cols

    @property
    def size(self) -> int:
        """Board size (``SZ``, default 19); see :meth:`get_size`."""
        return self.get_size()

    @property
    def komi(self) -> float:
        """Komi from ``KM`` (0 without one). Not a number: the first number
        found in the text (``6.5 points``), else 0."""
        raw = self.properties.get("KM")
        return 0.0 if raw is None else parse_komi(raw[0])

    def get_handicap(self) -> int:
        """Handicap stones from ``HA`` (0 without one). Raises SGFError when
        it is not a Number or more stones than the board has points (and
        for a bad ``SZ``, see :meth:`get_size`)."""
        raw = self.properties.get("HA")
        if raw is None:
            return 0
        text = raw[0].strip()
        size = self.get_size()
        value = parse_handicap(text)
        if value is None:
            raise self.error(f"HA[{clip(text)}]: not a number of handicap stones "
                             f"(0..{size * size})")
        if not 0 <= value <= size * size:
            raise self.error(f"HA[{clip(text)}]: {value} handicap stones do not fit on a "
                             f"{size}x{size} board (0..{size * size})")
        return value

    @property
    def handicap(self) -> int:
        """Handicap stones from ``HA``: 0 without one, or when
        :meth:`get_handicap` refuses it."""
        try:
            return self.get_handicap()
        except SGFError:
            return 0

    @property
    def game_info(self) -> dict[str, Any]:
        """The game-information properties present, typed where they parse
        (raw text otherwise)."""
        info: dict[str, Any] = {}
        for name in GAME_INFO:
            if name in self.properties:
                try:
                    info[name] = self[name].value
                except (ValueError, IndexError):
                    info[name] = unescape(self.properties[name][0])
        return info

    # ------------------------------------------------------------ position
    @property
    def offset(self) -> int:
        """Character offset of this node's ``;`` in the source text."""
        run = self._run
        if run is None:
            return 0
        k = 0  # this node's index in its run: its ancestors from the run
        node = self.parent
        while node is not None and node._run is run:
            k += 1
            node = node.parent
        return _locate(run[0].text, run[1], k)

    @property
    def line(self) -> int:
        return self.location()[0]

    @property
    def column(self) -> int:
        return self.location()[1]

    def location(self) -> tuple[int, int]:
        """1-based ``(line, column)`` of this node's ``;``."""
        if self._run is None:
            return 0, 0
        return self._run[0].position(self.offset)

    @property
    def filename(self) -> str:
        return self._run[0].filename if self._run is not None else "<string>"

    def error(self, reason: str) -> SGFError:
        """An :class:`SGFError` located at this node."""
        if self._run is None:
            return SGFError(reason)
        return self._run[0].error(reason, self.offset)

    # ------------------------------------------------------------ walking
    def iter_tree(self) -> Iterator["ASTNode"]:
        """Every node of the subtree, depth first, children in order."""
        stack = [self]
        while stack:
            node = stack.pop()
            yield node
            stack.extend(reversed(node.children))

    def main_line(self) -> Iterator["ASTNode"]:
        """This node and its first children down to the end."""
        node: Optional[ASTNode] = self
        while node is not None:
            yield node
            node = node.children[0] if node.children else None

    def __repr__(self) -> str:
        props = "".join(f"{k}" + "".join(f"[{v}]" for v in vs)
                        for k, vs in self.properties.items())
        return f"ASTNode(;{props[:60]})"


_SEMI_SCAN = re.compile(r";|" + PROPERTY_RE, re.S)


def _locate(text: str, base: int, k: int) -> int:
    """The offset of the ``k``-th ``;`` of the run of nodes at ``base``."""
    for m in _SEMI_SCAN.finditer(text, base):
        if m.group() == ";":
            if k == 0:
                return m.start()
            k -= 1
    return base
