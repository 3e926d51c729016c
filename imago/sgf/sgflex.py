"""The SGF lexer (PLY).

Tokens are few and big, so that PLY's per-token Python overhead is paid per
*run of nodes*, not per bracket:

- ``LPAREN`` / ``RPAREN``: the parentheses of a game tree;
- ``LEAF``: a whole game tree without variations, ``(`` a run of nodes
  ``)`` (a game record without variations is one token);
- ``NODES``: a maximal run of nodes, ``;`` each followed by properties, a
  property being an identifier (``[A-Za-z]+``: FF[1-3] lowercase letters
  allowed) and one or more ``[values]`` (``\\]``, ``\\\\`` and any escaped
  character inside, line breaks anywhere). Its value is the list of
  :class:`~imago.sgf.nodes.ASTNode` of the run, already chained parent to
  child, with raw (still escaped) property values.

Whitespace between tokens is skipped. Text outside any game tree (before the
first ``(;``, between and after game trees) is junk and ignored, as most SGF
readers do. Anything else raises :class:`SGFError` with the line, column and
what was expected.
"""

from __future__ import annotations

import re
import sys
import threading
from itertools import islice
from typing import Optional

import ply.lex as lex

from .errors import SGFError, Source, quote
from .nodes import (POSSESSIVE, PROPERTY_RE, VALUE_BODY_RE, VALUE_RE, VALUES_RE, ASTNode,
                    property_name)

tokens = ("LEAF", "LPAREN", "RPAREN", "NODES")

NODES_RE = r"(?:;\s*(?:" + PROPERTY_RE + r")*" + POSSESSIVE + r")+" + POSSESSIVE
LEAF_RE = r"\(\s*" + NODES_RE + r"\)"

# Splits a NODES token into items: a node's ';' with its first property
# (groups 1-3: identifier, first value, the other values still bracketed;
# empty for a node without properties), or a further property (groups 4-6).
_PROP_GROUPS = r"([A-Za-z]+)\s*\[(" + VALUE_BODY_RE + r")\]\s*(" + VALUES_RE + r"|)"
_ITEMS = re.compile(r";\s*(?:" + _PROP_GROUPS + r")?|" + _PROP_GROUPS, re.S)
_VALUES = re.compile(r"\[(" + VALUE_BODY_RE + r")\]", re.S)
_TREE_START = re.compile(r"\(\s*;")
_IDENT_WS = re.compile(r"[A-Za-z]+\s*")
_CLOSED_VALUE = re.compile(VALUE_RE, re.S)

t_ignore = " \t\r\n\f\v"


def build_nodes(text: str, base: int, source: Source, start: int = 0,
                end: Optional[int] = None) -> tuple[ASTNode, ASTNode]:
    """The first and last :class:`ASTNode` of the run of nodes
    ``text[start:end]`` (which a token's regex has already checked),
    chained parent to child; the run starts at offset ``base`` of the
    source."""
    run = (source, base)
    names = _NAMES
    values_of = _VALUES.findall
    items = _ITEMS.findall(text, start, len(text) if end is None else end)
    # the first item always starts a node
    node = first_node = ASTNode(None, run)
    props = node.properties
    ident, first, rest = items[0][:3]
    if ident:
        props[names.get(ident) or _new_name(ident, node)] = \
            [first] + values_of(rest) if rest else [first]
    for ident, first, rest, ident2, first2, rest2 in islice(items, 1, None):
        if ident2:  # a further property of this node
            name = names.get(ident2) or _new_name(ident2, node)
            values = [first2] + values_of(rest2) if rest2 else [first2]
            old = props.get(name)
            if old is None:
                props[name] = values
            else:
                old.extend(values)
        else:  # a new node, maybe with its first property
            node = ASTNode(node, run)
            props = node.properties
            if ident:
                props[names.get(ident) or _new_name(ident, node)] = \
                    [first] + values_of(rest) if rest else [first]
    return first_node, node


def _new_name(ident: str, node: ASTNode) -> str:
    name = property_name(ident)
    if not name:
        raise node.error(f"property identifier {quote(ident)} has no uppercase letter")
    if len(_NAMES) < 4096 and len(ident) <= 32:  # FF[3] names, not a hostile megabyte
        _NAMES[ident] = name
    return name


_NAMES: dict[str, str] = {}


@lex.TOKEN(NODES_RE)
def t_NODES(t):
    lexer = t.lexer
    if not lexer.depth:
        return None  # junk outside any game tree
    t.value = build_nodes(t.value, t.lexpos, lexer.source)
    lexer.good_end = lexer.lexpos
    return t


@lex.TOKEN(LEAF_RE)
def t_LEAF(t):
    # A game tree without variations, '(' nodes ')', as one token (a whole
    # game record without variations is just this): its value is the
    # (first, last) node of its sequence.
    lexer = t.lexer
    text = t.value
    start = text.index(";")
    t.value = build_nodes(text, t.lexpos + start, lexer.source, start, len(text) - 1)
    lexer.good_end = lexer.lexpos
    return t


def t_LPAREN(t):
    r"\("
    lexer = t.lexer
    if not lexer.depth and not _TREE_START.match(lexer.lexdata, t.lexpos):
        return None  # a '(' in junk text, not the start of a game tree
    lexer.depth += 1
    lexer.opens.append(t.lexpos)
    lexer.good_end = lexer.lexpos
    return t


def t_RPAREN(t):
    r"\)"
    lexer = t.lexer
    if not lexer.depth:
        return None  # stray ')' outside any game tree
    lexer.depth -= 1
    lexer.opens.pop()
    lexer.good_end = lexer.lexpos
    return t


def t_error(t):
    lexer = t.lexer
    text, pos = lexer.lexdata, t.lexpos
    if not lexer.depth:
        # junk outside game trees: skip to the next '(;' (or the end)
        m = _TREE_START.search(text, pos, lexer.lexlen)
        lexer.skip((m.start() if m else lexer.lexlen) - pos)
        return
    raise diagnose(lexer.source, text, pos, lexer.lexlen)


def diagnose(source: Source, text: str, pos: int, end: int) -> SGFError:
    """Say what is wrong at ``pos`` inside a game tree, where no token fits."""
    ch = text[pos]
    if "a" <= ch <= "z" or "A" <= ch <= "Z":
        m = _IDENT_WS.match(text, pos)
        ident = quote(text[pos:m.end()].rstrip())
        after = m.end()
        if after < end and text[after] == "[":
            # the value after the identifier never ends
            return source.error("expected ']': this property value is never closed", after)
        found = "end of input" if after >= end else repr(text[after])
        return source.error(f"expected '[' after property identifier {ident}, found {found}",
                            after)
    if ch == "[":
        if not _CLOSED_VALUE.match(text, pos, end):
            return source.error("expected ']': this property value is never closed", pos)
        return source.error("property value without a property identifier", pos)
    return source.error(f"unexpected character {ch!r}: expected ';', '(', ')' "
                        "or a property", pos)


class _EndedRegex:
    """A compiled regular expression whose matches end by ``end``."""

    __slots__ = ("regex", "end")

    def __init__(self, regex: re.Pattern, end: int):
        self.regex = regex
        self.end = end

    def match(self, text: str, pos: int) -> Optional[re.Match]:
        return self.regex.match(text, pos, self.end)


_MASTER = None
_LOCAL = threading.local()


def make_lexer(source: Source, start: int = 0, end: int | None = None):
    """A lexer over ``source.text[start:end]`` (positions stay those of the
    whole text). The lexer is built once per process and reused, one copy
    per thread."""
    global _MASTER
    lexer = getattr(_LOCAL, "lexer", None)
    if lexer is None:
        if _MASTER is None:
            _MASTER = lex.lex(module=sys.modules[__name__], reflags=int(re.DOTALL),
                              errorlog=lex.NullLogger(), optimize=False)
        lexer = _LOCAL.lexer = _MASTER.clone()
    lexer.input(source.text)
    lexer.lexpos = start
    lexer.lexre = _MASTER.lexre
    if end is not None and end < lexer.lexlen:
        # tokens must not run past the end either (PLY matches to the end
        # of its text, and a lenient repair ends anywhere)
        lexer.lexlen = end
        lexer.lexre = [(_EndedRegex(regex, end), names) for regex, names in _MASTER.lexre]
    lexer.depth = 0
    lexer.opens = []
    lexer.good_end = start  # end of the last good token (for recovery)
    lexer.start = start
    lexer.source = source
    return lexer


def token_or_closing(lexer) -> Optional[lex.LexToken]:
    """The lexer's next token; at the end of its input, a ``)`` that is not
    in the text for each game tree still open, then None. Lenient reading
    closes a game tree cut short with these, without copying the text to
    append them."""
    tok = lexer.token()
    if tok is not None or not lexer.depth:
        return tok
    tok = lex.LexToken()
    tok.type, tok.value, tok.lineno, tok.lexpos = "RPAREN", ")", 0, lexer.lexlen
    lexer.depth -= 1
    lexer.opens.pop()
    return tok


def tokenize(text: str) -> list[tuple[str, object]]:
    """``(type, value)`` of every token of ``text`` (for tests and tools)."""
    lexer = make_lexer(Source(text))
    return [(tok.type, tok.value) for tok in iter(lexer.token, None)]

