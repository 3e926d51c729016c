"""SGF (Smart Game Format, FF[4]) reading and writing.

- :func:`load` / :func:`loads`: every game of a file or text as
  :class:`~imago.game.GameState` (``lenient=True`` keeps what it can);
- :func:`dumps` / :func:`save`: one game tree back to SGF text;
- :func:`iter_games`: ``(path, game)`` over files, folders and globs, bad
  files logged and skipped; :func:`find_sgf_files`, the files those inputs
  name (training reads them too);
- :func:`parse`: the parse tree (:class:`ASTNode` with :class:`Property`
  values) for tools that want the raw properties; :func:`to_game` and
  :func:`add_subtree` turn a parsed game tree, or a part of one, into a game;
- :class:`SGFError`: malformed input, with ``filename``, ``line``, ``column``.

Layers: :mod:`.sgflex` (PLY lexer), :mod:`.sgfyacc` (PLY parser),
:mod:`.nodes` (parse tree), :mod:`.convert` (to games), :mod:`.writer`,
:mod:`.encoding`, :mod:`.sgf` (this API).
"""

from .convert import add_subtree, to_game
from .errors import SGFError
from .nodes import ASTNode, Property
from .sgf import dumps, find_sgf_files, iter_games, load, loads, parse, save

__all__ = ["load", "loads", "dumps", "save", "iter_games", "find_sgf_files", "parse", "SGFError",
           "ASTNode", "Property", "to_game", "add_subtree"]
