"""Bytes to text: byte-order marks, ``CA[]`` and sensible fallbacks.

Order of trial: a BOM (UTF-8, UTF-16) decides; else the ``CA`` charset (a
superset codec where one is common: GB2312 and GBK read as GB18030, Big5 as
CP950, Shift-JIS as CP932, EUC-KR as CP949); then UTF-8; then the ``CA``
codec with undecodable bytes replaced (U+FFFD); with no usable ``CA``, an
East Asian charset (Shift-JIS, GB18030, EUC-KR, Big5) when
``charset_normalizer``, choosing among those and Windows-1252 only, finds
one (Japanese and Chinese servers write files without ``CA``); else Latin-1,
as when the ``CA`` says UTF-8/ASCII (such files are Latin-1 or Windows text
in practice). Decoding never fails.

A ``CA`` is usable when Python knows it as a text encoding that reads the
SGF markup (ASCII bytes: parentheses, brackets, letters, digits) as itself:
``CA[hex]``, ``CA[rot13]`` or ``CA[zlib]`` (codecs, but not of text),
``CA[undefined]``, ``CA[idna]``, ``CA[UTF-16]`` on a file of single bytes,
and names Python does not know are not. Nor is a UTF-16 byte-order mark or
a third of NUL bytes believed when the text they give has no ``(`` but the
bytes have. What was not used (an unusable ``CA``, bytes not in the
declared charset, a UTF-16 guess given up) is said in
:attr:`Decoded.problem`; the reader logs it as a warning naming the file.
"""

from __future__ import annotations

import codecs
import functools
import re
from typing import NamedTuple, Optional

_CA = re.compile(rb"(?<![A-Za-z])CA\s*\[([^\]]{0,40})\]")

# Charsets whose files in the wild use the superset (Python's own codecs
# for the narrow ones reject common extensions).
_SUPERSETS = {
    "gb2312": "gb18030", "gbk": "gb18030", "cp936": "gb18030", "euc_cn": "gb18030",
    "hz": "hz", "big5": "cp950", "shift_jis": "cp932", "euc_kr": "cp949",
}

# The charsets a file without a usable CA is tried in. Western files fall
# back to Latin-1; letting the detector consider Cyrillic or Greek code pages
# made it call French and German names Cyrillic.
_GUESSABLE = ("cp932", "gb18030", "cp949", "cp950")
_GUESS_AMONG = list(_GUESSABLE) + ["cp1252"]

# SGF markup a charset of an SGF file must read as itself.
_PROBE = "(;CA[]AB[aa:sS]C[\\\\ +-.09 AZ az\t\r\n])"


class Decoded(NamedTuple):
    """The text of an SGF file's bytes, the codec that gave it, and why the
    declared charset was not (wholly) used, or None."""

    text: str
    codec: str
    problem: Optional[str] = None


@functools.lru_cache(maxsize=256)
def _check(charset: str) -> tuple[Optional[str], str]:
    """``(codec, "")`` for a usable ``CA`` charset, else ``(None, why)``."""
    name = charset.strip().lower().replace(" ", "")
    codec = None
    for candidate in (name, name.replace("-", "").replace("_", "")):
        try:
            codec = codecs.lookup(candidate).name
            break
        except (LookupError, ValueError, TypeError):  # unknown, or a NUL in the name
            continue
    if codec is None:
        return None, "not a charset Python knows"
    codec = _SUPERSETS.get(codec, codec)
    try:
        ok = all(_PROBE.encode("ascii").decode(codec, errors) == _PROBE
                 for errors in ("strict", "replace"))
    except LookupError:  # hex, rot13, base64, zlib...: codecs, but not of text
        return None, f"{codec!r} is not a text encoding"
    except ValueError:  # UnicodeError included: undefined, idna...
        ok = False
    if not ok:
        return None, f"{codec!r} cannot be the charset of a file whose SGF markup is ASCII"
    return codec, ""



def codec_for(charset: str) -> Optional[str]:
    """Python's codec name for an SGF ``CA`` charset, or None if unknown or
    unusable (see the module doc)."""
    return _check(charset)[0]


def declared_charset(data: bytes) -> Optional[str]:
    """The ``CA`` value of the (first) game, or None."""
    m = _CA.search(data)
    if m is None:
        return None
    return m.group(1).decode("ascii", "replace")


def decode(data: bytes) -> Decoded:
    """The text of the bytes of an SGF file (see the module doc)."""
    if data.startswith(codecs.BOM_UTF8):
        return Decoded(data[3:].decode("utf-8", "replace"), "utf-8-sig")
    wide = _utf16(data)
    if wide is None:
        return _declared(data)
    if "(" in wide.text or b"(" not in data:
        return wide
    # a byte-order mark or NUL bytes said UTF-16, but the markup is in
    # single bytes: a stray mark, or a binary file with some SGF in it
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        data, why = data[2:], "a UTF-16 byte-order mark"
    else:
        why = "NUL bytes as in UTF-16"
    text, codec, problem = _declared(data)
    return Decoded(text, codec, f"{why}, but the SGF markup is in single bytes; "
                   + (problem or f"read as {codec}"))


def _utf16(data: bytes) -> Optional[Decoded]:
    """The text of UTF-16 bytes (a byte-order mark, or NUL bytes in a
    third of the first 200), or None."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return Decoded(data.decode("utf-16", "replace").lstrip("\ufeff"), "utf-16")
    head = data[:200]
    if head.count(b"\x00") * 3 > len(head):
        codec = "utf-16-le" if head[1:2] == b"\x00" else "utf-16-be"
        return Decoded(data.decode(codec, "replace"), codec)
    return None


def _declared(data: bytes) -> Decoded:
    """The text of 8-bit bytes: by the ``CA`` charset, with fallbacks."""
    charset = declared_charset(data)
    if charset is None or not charset.strip():
        return _undeclared(data, None)
    label = "CA[" + charset.encode("unicode_escape").decode("ascii") + "]"
    codec, why = _check(charset)
    if codec is None:
        return _undeclared(data, f"{label}: {why}")
    try:
        return Decoded(data.decode(codec), codec)
    except (ValueError, LookupError):  # UnicodeDecodeError mostly
        return _fallback(data, codec, f"{label}: some bytes are not {codec}")


def _undeclared(data: bytes, problem: Optional[str]) -> Decoded:
    """The text of 8-bit bytes with no usable ``CA``: UTF-8, an East Asian
    charset the bytes plainly are, or Latin-1."""
    try:
        return Decoded(data.decode("utf-8"), "utf-8", problem)
    except ValueError:
        pass
    guess = guess_east_asian(data)
    if guess is None:
        return _fallback(data, None, problem)
    text, codec = guess
    return Decoded(text, codec, f"{problem or 'no CA[]'}; the bytes read as {codec} (a guess)")


def guess_east_asian(data: bytes) -> Optional[tuple[str, str]]:
    """The text of the bytes and the East Asian codec (``cp932``,
    ``gb18030``, ``cp949``, ``cp950``) that ``charset_normalizer`` finds them
    in, or None: not one of them, a Western file, a reading that would
    swallow a bracket, or the detector missing."""
    try:
        from charset_normalizer import from_bytes
    except ImportError:  # a dependency; a broken install reads Latin-1
        return None
    best = from_bytes(data, cp_isolation=_GUESS_AMONG).best()
    if best is None or best.encoding not in _GUESSABLE:
        return None
    # A guess that reads a bracket as half of a character would change the
    # SGF's structure: Latin-1 is the safer reading then.
    text = data.decode(best.encoding, "replace")
    if text.count("]") != data.count(b"]") or text.count("[") != data.count(b"["):
        return None
    return text, best.encoding


def _fallback(data: bytes, codec: Optional[str], problem: Optional[str]) -> Decoded:
    """UTF-8; else the declared ``codec`` with replacements (not for a
    declared UTF-8 or ASCII); else Latin-1, which decodes anything."""
    trials = [("utf-8", "strict")]
    if codec is not None and codec not in ("utf-8", "ascii"):
        trials.append((codec, "replace"))
    for trial, errors in trials:
        try:
            text = data.decode(trial, errors)
        except (ValueError, LookupError):
            continue
        if errors == "replace":
            return Decoded(text, trial, f"{problem} (replaced by U+FFFD)")
        break
    else:
        trial, text = "latin-1", data.decode("latin-1")
    return Decoded(text, trial, problem and f"{problem}; read as {trial}")
