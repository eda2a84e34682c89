"""OLED care: a panel left lit with one frame for hours burns in, so an idle table dims, then goes dark.

    care = Care(dim_after_s=600, off_after_s=3600, shift_every_s=300, clock=time.monotonic)
    care.touch()        # someone tapped or pressed: lit again, and the idle time starts over
    care.level()        # "on", "dim" or "off", from the time since the last input
    care.offset()       # (dx, dy): where the frame sits now, cycling through SHIFTS
    shifted(frame, care.offset())

Pixel shifting moves the whole frame by one pixel right and/or down every `shift_every_s` (counted
from the start, so the first frames sit where they are drawn), so the
lit pixels of a static scoreboard share their wear with their neighbours. It never costs a readable
pixel: a frame is moved only in a direction where every lit pixel pushed off the edge has a lit inner
neighbour (an inverted bar that reaches the edge gets one pixel shorter at most); otherwise, as for
the framed error flash, it stays where it is in that direction.
"""

import time
from collections.abc import Callable

from PIL import Image, ImageChops

#: the cycle of positions, one pixel at most from the drawn one
SHIFTS = ((0, 0), (1, 0), (1, 1), (0, 1))


class Care:
    """Idle dimming and switching off, from the time of the last input; 0 s turns a step off."""

    def __init__(self, *, dim_after_s: float, off_after_s: float, shift_every_s: float,
                 clock: Callable[[], float] = time.monotonic):
        self.dim_after_s = dim_after_s
        self.off_after_s = off_after_s
        self.shift_every_s = shift_every_s
        self._clock = clock
        self._started = self._last_input = clock()

    def touch(self) -> None:
        """An input: the panel lights up (if it was dim or off) and the idle time starts over."""
        self._last_input = self._clock()

    def level(self) -> str:
        idle = self._clock() - self._last_input
        if self.off_after_s and idle >= self.off_after_s:
            return "off"
        if self.dim_after_s and idle >= self.dim_after_s:
            return "dim"
        return "on"

    def offset(self) -> tuple[int, int]:
        if not self.shift_every_s:
            return (0, 0)
        return SHIFTS[int((self._clock() - self._started) // self.shift_every_s) % len(SHIFTS)]


def _only_copies(edge: Image.Image, inner: Image.Image) -> bool:
    """Every lit pixel of `edge` has a lit pixel beside it in `inner` (nothing is lost pushing it out)."""
    return ImageChops.logical_and(edge, ImageChops.invert(inner)).getbbox() is None


def shifted(image: Image.Image, offset: tuple[int, int]) -> Image.Image:
    """`image` moved right by dx and down by dy pixels (0 or 1), in each direction only where that
    loses no lit pixel; the uncovered column or row is dark."""
    dx, dy = offset
    width, height = image.size
    if dx and not _only_copies(image.crop((width - 1, 0, width, height)), image.crop((width - 2, 0, width - 1, height))):
        dx = 0
    if dy and not _only_copies(image.crop((0, height - 1, width, height)), image.crop((0, height - 2, width, height - 1))):
        dy = 0
    if not dx and not dy:
        return image
    moved = Image.new(image.mode, image.size)
    moved.paste(image, (dx, dy))
    return moved
