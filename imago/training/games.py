"""Reading game records for training: one adapter over the SGF reader.

:func:`load_games` is the only place training reads SGF. It uses
``imago.sgf.load`` when that package provides it, and otherwise a small
built-in reader of plain main-line records (``SZ``, ``KM``, ``HA``, ``RE``,
``AB``/``AW``/``AE`` setup, ``B``/``W`` moves, other properties kept raw),
which is what the generated training games in ``../shared/data`` use.
"""

from __future__ import annotations

import re
from pathlib import Path
from imago.game import BLACK, WHITE, GameState, parse_sgf_point, to_index


class GameRecordError(ValueError):
    """A game record that cannot be read; the message names the file."""


def load_games(path: str | Path) -> list[GameState]:
    """The games of one SGF file. Raises :class:`GameRecordError` (or the SGF
    package's own error) naming the file when it cannot be read."""
    try:
        import imago.sgf as sgf  # noqa: WPS433 (optional until it lands)

        loader = getattr(sgf, "load", None)
    except ImportError:
        loader = None
    if loader is not None:
        return list(loader(str(path)))
    return [read_simple_sgf(Path(path))]


# ------------------------------------------------------------ fallback reader
_NODE = re.compile(r";")
_PROP = re.compile(r"\s*([A-Za-z]+)\s*((?:\[(?:\\.|[^\]\\])*\]\s*)+)", re.S)
_VALUE = re.compile(r"\[((?:\\.|[^\]\\])*)\]", re.S)


def _points(values: list[str], size: int) -> list[int]:
    out = []
    for v in values:
        if ":" in v:  # compressed rectangle
            a, b = v.split(":", 1)
            pa, pb = parse_sgf_point(a, size), parse_sgf_point(b, size)
            if pa is None or pb is None:
                raise ValueError(f"bad point list {v!r}")
            for col in range(min(pa[0], pb[0]), max(pa[0], pb[0]) + 1):
                for row in range(min(pa[1], pb[1]), max(pa[1], pb[1]) + 1):
                    out.append(to_index(col, row, size))
        else:
            p = parse_sgf_point(v, size)
            if p is not None:
                out.append(to_index(p[0], p[1], size))
    return out


def read_simple_sgf(path: Path) -> GameState:
    """Read the main line of the first game of a plain SGF file."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        raise GameRecordError(f"{path}: {err.strerror or err}") from None
    start = text.find("(;")
    if start < 0:
        raise GameRecordError(f"{path}: not an SGF game (no '(;')")
    body = text[start + 1:]
    nodes: list[list[tuple[str, list[str]]]] = []
    pos = 0
    while pos < len(body):
        ch = body[pos]
        if ch == ";":
            pos += 1
            props = []
            while True:
                m = _PROP.match(body, pos)
                if not m:
                    break
                props.append((m.group(1), _VALUE.findall(m.group(2))))
                pos = m.end()
            nodes.append(props)
        elif ch == "(":
            break  # a variation: keep only the main line
        elif ch == ")":
            break
        elif ch.isspace():
            pos += 1
        else:
            raise GameRecordError(f"{path}: unexpected {ch!r} at offset {start + 1 + pos}")
    if not nodes:
        raise GameRecordError(f"{path}: empty game")
    root_props = dict(nodes[0])
    try:
        size = int(root_props.get("SZ", ["19"])[0].split(":")[0])
        komi = float(root_props.get("KM", ["0"])[0] or 0)
    except ValueError as err:
        raise GameRecordError(f"{path}: bad SZ or KM: {err}") from None
    state = GameState(size, komi)
    try:
        for i, props in enumerate(nodes):
            node = state.current
            setup = {k: v for k, v in props if k in ("AB", "AW", "AE")}
            if setup:
                black = _points(setup.get("AB", []), size)
                white = _points(setup.get("AW", []), size)
                empty = _points(setup.get("AE", []), size)
                if i == 0:
                    node.add_setup(black, white, empty)
                else:
                    node = state.current = node.add_setup_child(black, white, empty)
            for key, values in props:
                if key in ("B", "W"):
                    color = BLACK if key == "B" else WHITE
                    p = parse_sgf_point(values[0] if values else "", size)
                    point = None if p is None else to_index(p[0], p[1], size)
                    node = state.play(color, point)
                elif key == "PL" and values:
                    node.to_move = BLACK if values[0].upper().startswith("B") else WHITE
                elif key not in ("AB", "AW", "AE"):
                    node.properties.setdefault(key, []).extend(values)
            if i == 0:
                ha = root_props.get("HA")
                if ha and ha[0].strip().isdigit():
                    state.handicap = int(ha[0])
                if "AB" in root_props and "PL" not in root_props and state.handicap > 1:
                    node.to_move = WHITE
    except ValueError as err:  # IllegalMoveError and bad points
        raise GameRecordError(f"{path}: move {state.current.number + 1}: {err}") from None
    return state


def point_list(values: list[str], size: int) -> list[int]:
    """Internal indexes of SGF point values (compressed lists allowed)."""
    return _points(values, size)


__all__ = ["GameRecordError", "load_games", "read_simple_sgf", "point_list"]
