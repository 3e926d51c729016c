"""The one exception of the SGF package, and where in the text it happened.

- :class:`SGFError`: malformed or unsupported input, with its file, line and
  column;
- :class:`Source`: a text being parsed and its file name; it turns
  character offsets into lines and columns, cheaply even for the thousands
  of errors a lenient read of a damaged collection meets;
- :func:`quote` and :func:`clip`: a piece of the input as an error message
  shows it, cut to a readable length (a 1 MB property name is not repeated
  in full).
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_right
from typing import Optional

QUOTE_LIMIT = 40  # characters of the input an error message repeats
MAX_REASON = 300  # longest reason kept whole (longer: cut in the middle)

_LINE_END = re.compile(r"\r\n|\n|\r")


def quote(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``repr(text)``, or for a long text its first ``limit`` characters
    and its length: ``'AAAA'... (1,000,000 characters)``."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text):,} characters)"


def clip(text: str, limit: int = QUOTE_LIMIT) -> str:
    """``text`` as a message shows it between brackets (``SZ[...]``):
    control characters escaped, cut like :func:`quote`."""
    shown = repr(text[:limit])[1:-1]
    if len(text) <= limit:
        return shown
    return f"{shown}... ({len(text):,} characters)"


class SGFError(ValueError):
    """Malformed or unsupported SGF input.

    ``filename``, ``line`` and ``column`` (1-based; None when unknown) say
    where; the message reads ``game.sgf:12:5: expected ']' ...`` so a user can
    jump to the spot. ``reason`` is the message without the location (cut in
    the middle beyond :data:`MAX_REASON` characters, whatever it quotes).
    """

    def __init__(self, reason: str, filename: str = "<string>",
                 line: Optional[int] = None, column: Optional[int] = None,
                 offset: Optional[int] = None):
        if len(reason) > MAX_REASON:
            half = MAX_REASON // 2
            reason = f"{reason[:half]} ... {reason[-half:]}"
        if line is None:
            where = filename
        else:
            where = f"{filename}:{line}:{column}"
        super().__init__(f"{where}: {reason}")
        self.reason = reason
        self.filename = filename
        self.line = line
        self.column = column
        self.offset = offset

    def __reduce__(self):
        # picklable (e.g. across multiprocessing workers) with its fields
        return (type(self), (self.reason, self.filename, self.line, self.column, self.offset))


def line_column(text: str, offset: int) -> tuple[int, int]:
    """1-based ``(line, column)`` of a character offset into ``text``.

    ``\r\n``, ``\n`` and a lone ``\r`` each end a line; columns count
    characters (not bytes).
    """
    offset = max(0, min(offset, len(text)))
    line = text.count("\n", 0, offset) + 1
    cr_end = offset
    if "\r" in text:
        line += text.count("\r", 0, offset) - text.count("\r\n", 0, offset)
        if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
            line -= 1  # between the two characters of a CRLF: still that line
            cr_end = offset - 1
    start = max(text.rfind("\n", 0, offset), text.rfind("\r", 0, cr_end)) + 1
    return line, offset - start + 1


class Source:
    """The text being parsed and its file name, for positions in errors.

    The first position asked for is counted from the start of the text;
    from the second on, an index of line starts (built once) answers by
    binary search, so many errors cost no more than one pass."""

    __slots__ = ("text", "filename", "_starts", "_asked")

    def __init__(self, text: str, filename: str = "<string>"):
        self.text = text
        self.filename = filename
        self._starts: Optional[array] = None
        self._asked = 0

    def position(self, offset: int) -> tuple[int, int]:
        """1-based ``(line, column)`` of a character offset (see
        :func:`line_column`)."""
        if self._starts is None:
            self._asked += 1
            if self._asked == 1:
                return line_column(self.text, offset)
            self._starts = array("q", [0])
            self._starts.extend(m.end() for m in _LINE_END.finditer(self.text))
        offset = max(0, min(offset, len(self.text)))
        line = bisect_right(self._starts, offset)
        return line, offset - self._starts[line - 1] + 1

    def error(self, reason: str, offset: int) -> SGFError:
        """An :class:`SGFError` at a character offset of the text."""
        line, column = self.position(offset)
        return SGFError(reason, self.filename, line, column, offset)
