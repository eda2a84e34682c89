"""Regenerate the bundled fonts from the X11 misc-fixed PCF files (Debian package xfonts-base).

Run once by a maintainer, not at run time: `python -m drivers.display.fonts.make_fonts`.
The ISO8859-1 variants are used so every Latin-1 glyph (München, Nürnberg, Zürich) is present;
Pillow writes each font as a .pil metrics file plus a .pbm glyph sheet.
"""

import gzip
import io
import sys
from pathlib import Path

from PIL import PcfFontFile

from . import FONTS

SOURCE = Path("/usr/share/fonts/X11/misc")


def main() -> int:
    here = Path(__file__).resolve().parent
    for stem in FONTS.values():
        source = SOURCE / f"{stem}-ISO8859-1.pcf.gz"
        if not source.is_file():
            print(f"{source} is missing: apt-get install xfonts-base", file=sys.stderr)
            return 1
        pcf = PcfFontFile.PcfFontFile(io.BytesIO(gzip.decompress(source.read_bytes())), "iso8859-1")
        pcf.save(str(here / stem))
        print(f"{source.name} -> {stem}.pil, {stem}.pbm")
    return 0


if __name__ == "__main__":
    sys.exit(main())
