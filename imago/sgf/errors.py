"""The one exception of the SGF package."""

from __future__ import annotations

from typing import Optional


class SGFError(ValueError):
    """Malformed or unsupported SGF input.

    ``filename``, ``line`` and ``column`` (1-based; None when unknown) say
    where; the message reads ``game.sgf:12:5: expected ']' ...`` so a user can
    jump to the spot. ``reason`` is the message without the location.
    """

    def __init__(self, reason: str, filename: str = "<string>",
                 line: Optional[int] = None, column: Optional[int] = None,
                 offset: Optional[int] = None):
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
