"""The desktop's screen: each 128x64 frame drawn in a terminal with Unicode braille or half-blocks.

Braille packs 2x4 pixels per character (a 64x16 character frame, fits an 80-column terminal);
half-blocks pack 1x2 (128x32 characters, exact pixel shapes). On a terminal the frame is redrawn in
place; into a file or a pipe, frames follow one another.
"""

import sys
from typing import Any, TextIO

from PIL import Image

from .base import Display

STYLES = ("braille", "halfblock")

# Braille dot bits by (column, row) inside the 2x4 cell (Unicode U+2800 block).
_BRAILLE_BITS = {(0, 0): 0x01, (0, 1): 0x02, (0, 2): 0x04, (1, 0): 0x08,
                 (1, 1): 0x10, (1, 2): 0x20, (0, 3): 0x40, (1, 3): 0x80}
_HALF_BLOCKS = {(False, False): " ", (True, False): "▀", (False, True): "▄", (True, True): "█"}


def render_text(image: Image.Image, style: str = "braille") -> str:
    """The frame as lines of text inside a box border (lit pixels are drawn)."""
    if style not in STYLES:
        raise ValueError(f"terminal style {style!r}: choose one of {', '.join(STYLES)}")
    width, height = image.size
    pixels = image.load()

    def lit(x: int, y: int) -> bool:
        return x < width and y < height and bool(pixels[x, y])

    rows = []
    if style == "braille":
        for top in range(0, height, 4):
            rows.append("".join(
                chr(0x2800 + sum(bit for (dx, dy), bit in _BRAILLE_BITS.items() if lit(left + dx, top + dy)))
                for left in range(0, width, 2)))
    else:
        for top in range(0, height, 2):
            rows.append("".join(_HALF_BLOCKS[lit(x, top), lit(x, top + 1)] for x in range(width)))
    columns = len(rows[0])
    return "\n".join(["┌" + "─" * columns + "┐", *(f"│{row}│" for row in rows), "└" + "─" * columns + "┘"])


class TerminalDisplay(Display):
    """Draws every frame to `stream` (standard output by default); `last_text()` returns the last one."""

    def __init__(self, stream: TextIO | None = None, style: str = "braille", **options: Any):
        super().__init__(f"terminal ({style})", **options)
        if style not in STYLES:
            raise ValueError(f"terminal style {style!r}: choose one of {', '.join(STYLES)}")
        self._stream = stream
        self._style = style
        self._text: str | None = None
        self._drawn_lines = 0

    def _show(self, image: Image.Image) -> None:
        stream = self._stream or sys.stdout
        text = render_text(image, self._style)
        in_place = self._drawn_lines and stream.isatty()
        stream.write((f"\x1b[{self._drawn_lines}F" if in_place else "") + text + "\n")
        stream.flush()
        self._text = text
        self._drawn_lines = text.count("\n") + 1

    def last_text(self) -> str | None:
        """The text of the last frame drawn (without cursor movements), or None before the first."""
        return self._text
