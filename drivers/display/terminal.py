"""The desktop's screen: each 128x64 frame drawn in a terminal with Unicode braille or half-blocks.

Braille packs 2x4 pixels per character (a 64x16 character frame, fits an 80-column terminal);
half-blocks pack 1x2 (128x32 characters, exact pixel shapes). On a terminal the frame is redrawn in
place; into a file or a pipe, frames follow one another.

Braille draws lit pixels as dots, so an inverted line (a lit bar with dark text: the question of a
set-up or menu screen, a part of the table in trouble) would be a wall of dots with the text as holes. On a terminal, braille
cells in a lit area are drawn in reverse video instead: their dots are the dark pixels, on a lit
background, so inverted text reads as on the panel and every pixel is still where it was. A stream
that is no tty but draws on one (the console's frame sink) says so with `ansi = True`.
"""

import itertools
import sys
from typing import Any, TextIO

from PIL import Image

from .base import Display

STYLES = ("braille", "halfblock")

# Braille dot bits by (column, row) inside the 2x4 cell (Unicode U+2800 block).
_BRAILLE_BITS = {(0, 0): 0x01, (0, 1): 0x02, (0, 2): 0x04, (1, 0): 0x08,
                 (1, 1): 0x10, (1, 2): 0x20, (0, 3): 0x40, (1, 3): 0x80}
_HALF_BLOCKS = {(False, False): " ", (True, False): "▀", (False, True): "▄", (True, True): "█"}


#: reverse video on and off (SGR 7 / 27)
REVERSE, NORMAL = "\x1b[7m", "\x1b[27m"
#: a lit area is at least this many braille cells wide (shorter dense runs are bold text, not a bar)
LIT_RUN = 4


def render_text(image: Image.Image, style: str = "braille", *, reverse: bool = False) -> str:
    """The frame as lines of text inside a box border (lit pixels are drawn). `reverse`: braille
    cells in a lit area are drawn in reverse video (their dots are then the dark pixels)."""
    if style not in STYLES:
        raise ValueError(f"terminal style {style!r}: choose one of {', '.join(STYLES)}")
    width, height = image.size
    pixels = image.load()

    def lit(x: int, y: int) -> bool:
        return x < width and y < height and bool(pixels[x, y])

    if style == "braille":
        grid = [[sum(bit for (dx, dy), bit in _BRAILLE_BITS.items() if lit(left + dx, top + dy)) for left in range(0, width, 2)]
                for top in range(0, height, 4)]
        areas = _lit_areas(grid) if reverse else [[False] * len(row) for row in grid]
        rows = [_braille_row(cells, inverted) for cells, inverted in zip(grid, areas)]
        columns = len(grid[0])
    else:
        rows = ["".join(_HALF_BLOCKS[lit(x, top), lit(x, top + 1)] for x in range(width)) for top in range(0, height, 2)]
        columns = width
    return "\n".join(["┌" + "─" * columns + "┐", *(f"│{row}│" for row in rows), "└" + "─" * columns + "┘"])


def _lit_areas(grid: list[list[int]]) -> list[list[bool]]:
    """Which braille cells lie in a lit area (an inverted bar): more than half lit around them (the
    cell and two either side), and so the cell above or below (a text line is two cells high), in a
    run of at least LIT_RUN cells."""
    counts = [[bin(cell).count("1") for cell in row] for row in grid]
    dense = [[2 * sum(row[max(0, i - 2): i + 3]) > 8 * len(row[max(0, i - 2): i + 3]) for i in range(len(row))]
             for row in counts]
    areas = []
    for r, row in enumerate(dense):
        paired = [row[i] and ((r > 0 and dense[r - 1][i]) or (r + 1 < len(dense) and dense[r + 1][i]))
                  for i in range(len(row))]
        area: list[bool] = []
        for inside, run in itertools.groupby(paired):
            length = len(list(run))
            area += [inside and length >= LIT_RUN] * length
        areas.append(area)
    return areas


def _braille_row(cells: list[int], inverted: list[bool]) -> str:
    """One row of braille cells (dot bits); the `inverted` ones in reverse video, dots complemented."""
    out, reversed_now = [], False
    for cell, inside in zip(cells, inverted):
        if inside != reversed_now:
            out.append(REVERSE if inside else NORMAL)
            reversed_now = inside
        out.append(chr(0x2800 + (cell ^ 0xFF if inside else cell)))
    if reversed_now:
        out.append(NORMAL)
    return "".join(out)


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
        tty = stream.isatty()
        text = render_text(image, self._style, reverse=tty or getattr(stream, "ansi", False))
        in_place = self._drawn_lines and tty
        stream.write((f"\x1b[{self._drawn_lines}F" if in_place else "") + text + "\n")
        stream.flush()
        self._text = text
        self._drawn_lines = text.count("\n") + 1

    def last_text(self) -> str | None:
        """The text of the last frame drawn (without cursor movements), or None before the first."""
        return self._text
