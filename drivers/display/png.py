"""PNG capture for documentation: every new frame becomes a numbered PNG file in a directory.

A frame identical to the previous one is not written again (screens are often redrawn unchanged).
Numbering continues after the frames already in the directory, so a second run never overwrites.
Each file is written under a hidden temporary name and renamed into place, so whoever reads the
directory while frames are being written (a test, a script) sees only whole PNG files.
"""

import os
import re
from pathlib import Path
from typing import Any

from PIL import Image

from .base import Display

_FRAME = re.compile(r"frame-(\d+)\.png")


class PngDisplay(Display):
    """Writes frame-00001.png, frame-00002.png, ... into `directory`, each pixel `scale` x `scale`."""

    def __init__(self, directory: str | Path, scale: int = 1, **options: Any):
        super().__init__(f"png capture into {directory}", **options)
        if not 1 <= scale <= 16:
            raise ValueError(f"PNG scale {scale} is outside 1..16")
        self.directory = Path(directory)
        self.scale = scale
        self.paths: list[Path] = []
        self._previous: Image.Image | None = None
        self._next = 1

    def _open(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        numbers = [int(m.group(1)) for p in self.directory.iterdir() if (m := _FRAME.fullmatch(p.name))]
        self._next = max(numbers, default=0) + 1

    def _show(self, image: Image.Image) -> None:
        if self._previous is not None and self._previous.tobytes() == image.tobytes():
            return
        frame = image if self.scale == 1 else image.resize(
            (image.width * self.scale, image.height * self.scale), Image.Resampling.NEAREST)
        path = self.directory / f"frame-{self._next:05d}.png"
        partial = path.with_name(f".{path.name}.part")
        frame.save(partial, format="PNG")
        os.replace(partial, path)
        self._next += 1
        self._previous = image.copy()
        self.paths.append(path)
