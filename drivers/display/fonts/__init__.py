"""The bundled bitmap fonts: Pillow bitmap fonts loaded from files in this package.

Pillow's default font is a FreeType font that renders differently from one machine to the next;
these bitmap fonts make every screen pixel-identical everywhere, so golden images hold.
They are the public-domain X11 misc-fixed fonts in their ISO8859-1 (Latin-1) encoding, converted
by make_fonts.py; LICENSE.txt beside them records where they come from.

| name   | cell (w x h) | per 128-px line | use                          |
|--------|--------------|-----------------|------------------------------|
| tiny   | 5 x 7        | 25 chars        | footers, breakdowns          |
| small  | 6 x 10       | 21 chars        | the normal text line         |
| medium | 7 x 13 bold  | 18 chars        | titles, the current player   |
| large  | 10 x 20      | 12 chars        | big numbers (scores)         |
"""

import functools
from importlib import resources

from PIL import ImageFont

FONTS = {"tiny": "5x7", "small": "6x10", "medium": "7x13B", "large": "10x20"}


def cell_size(name: str = "small") -> tuple[int, int]:
    """The fixed character cell (width, height) in pixels of the named font."""
    width, height = _stem(name).rstrip("B").split("x")
    return int(width), int(height)


@functools.cache
def font(name: str = "small") -> ImageFont.ImageFont:
    """The named bundled font (see the table above), loaded once and shared."""
    source = resources.files(__name__).joinpath(f"{_stem(name)}.pil")
    with resources.as_file(source) as path:
        return ImageFont.load(str(path))


def _stem(name: str) -> str:
    try:
        return FONTS[name]
    except KeyError:
        raise ValueError(f"unknown font {name!r}: the bundled fonts are {', '.join(FONTS)}") from None
