"""Only what changed goes on the wire: luma's SSD1306 and SH1106 with their frame transfer replaced.

luma.oled's monochrome devices send the whole 1,024-byte RAM for every frame (~1,034 bytes on I2C:
~93 ms at the Pi's default 100 kHz), and take no `framebuffer=` argument as its colour devices do.
These subclasses keep luma's set-up sequence, contrast, power and serial interface, and replace only
`display()`: the frame is turned into the controller's RAM layout (8 pages of 128 bytes, bit n of a
byte = row 8 x page + n), compared with what the panel holds, and only the changed bytes are sent:

- SSD1306 (horizontal addressing, which luma's set-up selects): a column window (21h) and a page
  window (22h) around each changed block; the RAM pointer runs along a page of the window, then on to
  the next page, so one data write fills the block.
- SH1106 (page addressing only, 132-column RAM with a 128-column panel wired from column 2): per
  changed run on a page, the page (B0h + page) and the column (low and high nibbles, 00h-0Fh and
  10h-1Fh), then the run's bytes.

Nearby runs are merged when sending the bytes between them costs less than another window, and on
the SSD1306 neighbouring pages share one window when that is cheaper (`plan`). The first frame after
set-up, and any frame after `forget()`, is sent whole; a transfer that raised leaves the RAM unknown,
so the next one is whole too.
"""

from dataclasses import dataclass

from luma.oled.device import sh1106, ssd1306
from PIL import Image

PAGES, COLUMNS = 8, 128
_REVERSED = bytes(int(f"{byte:08b}"[::-1], 2) for byte in range(256))
#: bytes that one more window costs on I2C besides its data: the address and control bytes of the
#: command write and of the data write, and the commands themselves
WINDOW_COST = {"ssd1306": 2 + 6 + 2, "sh1106": 2 + 3 + 2}


@dataclass(frozen=True)
class Window:
    """Pages `top`..`bottom` and columns `left`..`right` (inclusive) of the panel's RAM."""

    top: int
    bottom: int
    left: int
    right: int

    @property
    def size(self) -> int:
        return (self.bottom - self.top + 1) * (self.right - self.left + 1)


WHOLE = Window(0, PAGES - 1, 0, COLUMNS - 1)


def ram_bytes(image: Image.Image) -> bytes:
    """A 128x64 mode "1" image in the controllers' RAM layout: page after page, 128 bytes each."""
    # Transposed, each row of 64 pixels is one column of the frame, packed 8 to a byte with the
    # top pixel in the high bit; reversed, the top pixel is bit 0, as in the controllers' RAM.
    columns = image.transpose(Image.Transpose.TRANSPOSE).tobytes().translate(_REVERSED)
    return b"".join(columns[page::PAGES] for page in range(PAGES))


def _runs(old: bytes, new: bytes, page: int, cost: int) -> list[tuple[int, int]]:
    """The changed columns of `page` as (first, last) runs, joined across gaps cheaper to resend."""
    base = page * COLUMNS
    runs: list[tuple[int, int]] = []
    for column in range(COLUMNS):
        if old[base + column] != new[base + column]:
            if runs and column - runs[-1][1] - 1 <= cost:
                runs[-1] = (runs[-1][0], column)
            else:
                runs.append((column, column))
    return runs


def plan(old: bytes, new: bytes, cost: int, *, multi_page: bool) -> list[Window]:
    """The cheapest set of windows that covers every changed byte, `cost` bytes a window.

    Each page's changed runs are windows of their own; with `multi_page` (the SSD1306), a stretch of
    pages may instead share one window spanning all their changed columns, whichever sends fewer
    bytes (a small dynamic programme over the 8 pages)."""
    runs = [_runs(old, new, page, cost) for page in range(PAGES)]
    best: list[tuple[int, list[Window]]] = [(0, [])]  # best[n]: pages 0..n-1 covered
    for end in range(PAGES):
        own = [Window(end, end, left, right) for left, right in runs[end]]
        choices = [(best[end][0] + sum(cost + w.size for w in own), best[end][1] + own)]
        if multi_page and runs[end]:
            left, right = runs[end][0][0], runs[end][-1][1]
            for top in range(end - 1, -1, -1):
                if runs[top]:
                    left, right = min(left, runs[top][0][0]), max(right, runs[top][-1][1])
                    window = Window(top, end, left, right)
                    choices.append((best[top][0] + cost + window.size, best[top][1] + [window]))
        best.append(min(choices, key=lambda choice: choice[0]))
    return best[PAGES][1]


class _ChangedPages:
    """The frame transfer shared by both controllers; `_send(window, ram)` is the controller's."""

    controller = ""

    def __init__(self, *args, **kwargs):
        self.ram: bytes | None = None  # what the panel's RAM holds, None when unknown
        self.sent_whole = False  # whether the last transfer sent the whole RAM
        super().__init__(*args, **kwargs)
        self.ram = None  # luma's set-up cleared the panel; the first frame is still sent whole

    def forget(self) -> None:
        """Send the next frame whole (a periodic refresh, or the RAM may be wrong)."""
        self.ram = None

    def display(self, image: Image.Image) -> None:
        """Send the changed part of `image` (all of it when the panel's RAM is unknown)."""
        assert image.mode == self.mode and image.size == self.size
        new = ram_bytes(self.preprocess(image))
        old, self.ram = self.ram, None  # unknown until the whole transfer went through
        windows = [WHOLE] if old is None else plan(old, new, WINDOW_COST[self.controller],
                                                   multi_page=self.controller == "ssd1306")
        for window in windows:
            self._send(window, new)
        self.ram = new
        self.sent_whole = old is None

    def _send(self, window: Window, ram: bytes) -> None:
        raise NotImplementedError


class Ssd1306(_ChangedPages, ssd1306):
    """luma's ssd1306 sending only the changed windows (horizontal addressing mode)."""

    controller = "ssd1306"

    def _send(self, window: Window, ram: bytes) -> None:
        self.command(self._const.COLUMNADDR, self._colstart + window.left, self._colstart + window.right,
                     self._const.PAGEADDR, window.top, window.bottom)
        self.data(list(b"".join(ram[page * COLUMNS + window.left:page * COLUMNS + window.right + 1]
                                for page in range(window.top, window.bottom + 1))))


class Sh1106(_ChangedPages, sh1106):
    """luma's sh1106 sending only the changed runs, page by page (page addressing mode)."""

    controller = "sh1106"

    def _send(self, window: Window, ram: bytes) -> None:
        for page in range(window.top, window.bottom + 1):
            column = self._page_address_offset + window.left
            self.command(0xB0 + page, column & 0x0F, 0x10 | column >> 4)
            self.data(list(ram[page * COLUMNS + window.left:page * COLUMNS + window.right + 1]))
