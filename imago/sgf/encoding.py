"""Bytes to text: byte-order marks, ``CA[]`` and sensible fallbacks.

Order of trial: a BOM (UTF-8, UTF-16) decides; else the ``CA`` charset (a
superset codec where one is common: GB2312 and GBK read as GB18030, Big5 as
CP950, Shift-JIS as CP932, EUC-KR as CP949); then UTF-8; then the ``CA``
codec with undecodable bytes replaced (U+FFFD), or Latin-1 when there is no
usable ``CA`` or it says UTF-8/ASCII (such files are Latin-1 or Windows
text in practice). Decoding never fails.
"""

from __future__ import annotations

import codecs
import functools
import re
from typing import Optional

_CA = re.compile(rb"(?<![A-Za-z])CA\s*\[([^\]]{0,40})\]")

# Charsets whose files in the wild use the superset (Python's own codecs
# for the narrow ones reject common extensions).
_SUPERSETS = {
    "gb2312": "gb18030", "gbk": "gb18030", "cp936": "gb18030", "euc_cn": "gb18030",
    "hz": "hz", "big5": "cp950", "shift_jis": "cp932", "euc_kr": "cp949",
}


@functools.lru_cache(maxsize=256)
def codec_for(charset: str) -> Optional[str]:
    """Python's codec name for an SGF ``CA`` charset, or None if unknown."""
    name = charset.strip().lower().replace(" ", "")
    if not name:
        return None
    try:
        codec = codecs.lookup(name).name
    except LookupError:
        try:
            codec = codecs.lookup(name.replace("-", "").replace("_", "")).name
        except LookupError:
            return None
    return _SUPERSETS.get(codec, codec)


def declared_charset(data: bytes) -> Optional[str]:
    """The ``CA`` value of the (first) game, or None."""
    m = _CA.search(data)
    if m is None:
        return None
    return m.group(1).decode("ascii", "replace")


def decode(data: bytes) -> tuple[str, str]:
    """``(text, codec used)`` for the bytes of an SGF file."""
    if data.startswith(codecs.BOM_UTF8):
        return data[3:].decode("utf-8", "replace"), "utf-8-sig"
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return data.decode("utf-16", "replace").lstrip("\ufeff"), "utf-16"
    head = data[:200]
    if head.count(b"\x00") * 3 > len(head):  # UTF-16 without a BOM
        codec = "utf-16-le" if head[1:2] == b"\x00" else "utf-16-be"
        return data.decode(codec, "replace"), codec
    charset = declared_charset(data)
    codec = codec_for(charset) if charset else None
    for trial in (codec, "utf-8"):
        if trial is None:
            continue
        try:
            return data.decode(trial), trial
        except (UnicodeDecodeError, LookupError):
            continue
    if codec is not None and codec not in ("utf-8", "ascii"):
        return data.decode(codec, "replace"), codec
    return data.decode("latin-1"), "latin-1"
