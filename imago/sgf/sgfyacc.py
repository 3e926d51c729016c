"""The SGF parser (PLY yacc): the FF[4] collection / game-tree grammar.

::

    collection : gametree | collection gametree
    gametree   : '(' sequence subtrees ')' | LEAF
    subtrees   : (empty) | subtrees gametree
    sequence   : NODES | sequence NODES

Nodes and properties (``node : ';' property*``, ``property : ident
value+``) are recognised by the ``NODES`` token of :mod:`.sgflex`, and a
game tree without variations, ``'(' NODES ')'``, by its ``LEAF`` token (see
there). The result is the list of root :class:`ASTNode` of the game
trees. The tables are built once per process, in memory: nothing is
written to disk and nothing is printed.
"""

from __future__ import annotations

import functools
import gc
import os
import sys
import threading

import ply.yacc as yacc

from .errors import SGFError
from .nodes import ASTNode
from .sgflex import Source, make_lexer, token_or_closing, tokens  # noqa: F401  (PLY reads `tokens`)

start = "collection"


def p_collection_first(p):
    "collection : gametree"
    p[0] = [p[1]]


def p_collection_more(p):
    "collection : collection gametree"
    p[1].append(p[2])
    p[0] = p[1]


def p_gametree(p):
    "gametree : LPAREN sequence subtrees RPAREN"
    first, last = p[2]
    subtrees = p[3]
    if subtrees:
        children = last.children
        for tree in subtrees:
            tree.parent = last
            children.append(tree)
    p[0] = first


def p_gametree_leaf(p):
    "gametree : LEAF"
    p[0] = p[1][0]


def p_subtrees_empty(p):
    "subtrees :"
    p[0] = None


def p_subtrees_more(p):
    "subtrees : subtrees gametree"
    if p[1] is None:
        p[0] = [p[2]]
    else:
        p[1].append(p[2])
        p[0] = p[1]


def p_sequence_first(p):
    "sequence : NODES"
    p[0] = p[1]


def p_sequence_more(p):
    "sequence : sequence NODES"
    first, last = p[1]
    head, tail = p[2]
    head.parent = last
    last.children.append(head)
    p[0] = (first, tail)


def p_error(tok):
    lexer = _LOCAL.lexer
    source: Source = lexer.source
    if tok is None:
        end = lexer.lexlen
        if lexer.opens:
            opened = source.error("", lexer.opens[-1])
            raise source.error(f"expected ')' before the end of the input, to close the game "
                               f"tree opened at line {opened.line}, column {opened.column}",
                               end)
        text = source.text
        start = lexer.start
        paren = text.find("(", start, end)
        if paren >= 0:
            raise source.error("no game tree found: expected ';' after '(' to start the "
                               "first node", paren)
        raise source.error("no game tree found: expected '(;'", end)
    if tok.type == "NODES":
        # only possible after a variation: nodes must all come before them
        raise source.error("expected '(' or ')' after a variation, found ';' (a node "
                           "cannot follow the variations of its game tree)", tok.lexpos)
    found = "')'" if tok.type == "RPAREN" else "'('"
    raise source.error(f"expected ';' (a node) after '(', found {found}", tok.lexpos)


_LOCAL = threading.local()


def _parser():
    """This thread's parser (PLY parsers keep their stacks as attributes);
    the tables are built in memory, once per thread."""
    parser = getattr(_LOCAL, "parser", None)
    if parser is None:
        parser = _LOCAL.parser = yacc.yacc(
            module=sys.modules[__name__], start=start, debug=False, write_tables=False,
            optimize=False, tabmodule="_sgf_no_parsetab",
            outputdir=os.path.dirname(os.path.abspath(__file__)),
            errorlog=yacc.NullLogger())
    return parser


def parse(text: str, filename: str = "<string>", start_offset: int = 0,
          end_offset: int | None = None) -> list[ASTNode]:
    """The game trees of an SGF collection (already decoded to ``str``), as
    root :class:`ASTNode`. Raises :class:`SGFError` with the position."""
    source = Source(text, filename)
    return parse_source(source, start_offset, end_offset)


def parse_source(source: Source, start_offset: int = 0,
                 end_offset: int | None = None, close: bool = False) -> list[ASTNode]:
    """Like :func:`parse`, over a :class:`Source` (or a slice of it).
    ``close``: game trees still open at the end of the slice are closed
    there (as if the ``)`` were written), to keep a tree cut short."""
    parser = _parser()
    lexer = make_lexer(source, start_offset, end_offset)
    _LOCAL.lexer = lexer
    next_token = functools.partial(token_or_closing, lexer) if close else lexer.token
    # many small objects and no garbage: pause the cyclic collector on big
    # inputs (see imago.sgf.convert)
    pause = len(source.text) > 100_000 and gc.isenabled()
    if pause:
        gc.disable()
    try:
        return parser.parse(lexer=lexer, tokenfunc=next_token)
    except SGFError as err:
        err.good_end = lexer.good_end
        raise
    except RecursionError:
        raise source.error("game tree nested too deeply", start_offset) from None
    finally:
        if pause:
            gc.enable()
        _LOCAL.lexer = None
        parser.restart()


__all__ = ["parse", "parse_source", "SGFError"]
