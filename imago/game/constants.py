"""Point colours shared by every part of imago."""

EMPTY = 0
BLACK = 1
WHITE = 2
EDGE = 3  # an off-board point of the mailbox ring

COLOR_NAMES = {BLACK: "black", WHITE: "white"}


def opponent(color: int) -> int:
    """The other colour: BLACK <-> WHITE."""
    return 3 - color


def parse_color(text: str) -> int:
    """Read a GTP/SGF colour word (``b``, ``black``, ``W``, ...).

    Raises ValueError with the reason on anything else.
    """
    word = text.strip().lower()
    if word in ("b", "black"):
        return BLACK
    if word in ("w", "white"):
        return WHITE
    raise ValueError(f"invalid color: {text!r}")


def color_letter(color: int) -> str:
    """``B`` or ``W``."""
    return "B" if color == BLACK else "W"
