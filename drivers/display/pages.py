"""Only what changed goes on the wire: luma's SSD1306 and SH1106 with their frame transfer replaced.

luma.oled's monochrome devices send the whole 1,024-byte RAM for every frame (~1,034 bytes on I2C:
~93 ms at the Pi's default 100 kHz), and take no `framebuffer=` argument as its colour devices do.
These subclasses keep luma's set-up sequence, contrast, power and serial interface, and replace only
`display()`: the frame is turned into the controller's RAM layout (8 pages of 128 bytes, bit n of a
byte = row 8 x page + n), compared with what the panel holds, and only the changed bytes are sent:

- SSD1306, in whichever addressing mode (20h) sends fewer bytes for the frame, as the Linux kernel's
  ssd130x driver and u8g2 address it:
  - page mode (20h 02h), per changed run on a page, the page (B0h + page) and the column (low and
    high nibbles, 00h-0Fh and 10h-1Fh): 3 command bytes. A game's screen changes a text line or
    two, each on its own page, so this is the usual choice;
  - horizontal mode (20h 00h, as luma's set-up leaves it), a column window (21h) and a page window
    (22h) around a changed block: 6 command bytes, but the RAM pointer runs along a page of the
    window and on to the next page, so one data write fills a block that spans pages (a whole
    frame, a flash).
  The mode is switched only when the other one is cheaper for the frame, the switch sent with the
  frame's first command write. Before entering page mode the full column window is restored (21h
  00h 7Fh): the datasheet leaves open whether a narrower one left from horizontal mode would wrap
  the pointer in page mode, and with the full one both readings agree.
- SH1106 (page addressing only, 132-column RAM with a 128-column panel wired from column 2): the
  same page runs, its column offset added.

Nearby runs are merged when sending the bytes between them costs less than another run, and in
horizontal mode neighbouring pages share one window when that is cheaper (`plan`). The first frame
after set-up, and any frame after `forget()`, is sent whole; a transfer that raised leaves the RAM
and the addressing mode unknown, so the next frame is whole and sets the mode again.
"""

from dataclasses import dataclass

from luma.oled.device import sh1106, ssd1306
from PIL import Image

PAGES, COLUMNS = 8, 128
_REVERSED = bytes(int(f"{byte:08b}"[::-1], 2) for byte in range(256))
#: bytes that one more window costs on I2C besides its data: the address and control bytes of the
#: command write and of the data write, and the commands themselves: a page run (B0h+page, column
#: low and high nibbles) or a horizontal-mode window (21h c0 c1, 22h p0 p1)
RUN_COST, WINDOW_COST = 2 + 3 + 2, 2 + 6 + 2
#: the SSD1306's addressing modes (20h's argument)
HORIZONTAL, PAGE_MODE = 0x00, 0x02
MEMORY_MODE = 0x20


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


def wire_cost(windows: list[Window], cost: int) -> int:
    """Bytes on I2C to send `windows` at `cost` bytes of positioning each."""
    return sum(cost + window.size for window in windows)


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
        choices = [(best[end][0] + wire_cost(own, cost), best[end][1] + own)]
        if multi_page and runs[end]:
            left, right = runs[end][0][0], runs[end][-1][1]
            for top in range(end - 1, -1, -1):
                if runs[top]:
                    left, right = min(left, runs[top][0][0]), max(right, runs[top][-1][1])
                    window = Window(top, end, left, right)
                    choices.append((best[top][0] + wire_cost([window], cost), best[top][1] + [window]))
        best.append(min(choices, key=lambda choice: choice[0]))
    return best[PAGES][1]


class _ChangedPages:
    """The frame transfer shared by both controllers; `_transfer(old, new)` is the controller's."""

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
        self._transfer(old, new)
        self.ram = new
        self.sent_whole = old is None

    def _transfer(self, old: bytes | None, new: bytes) -> None:
        raise NotImplementedError

    def _runs(self, page: int, left: int, right: int, ram: bytes, *, offset: int, before: tuple[int, ...] = ()) -> None:
        """Page addressing: the bytes of `page` from column `left` to `right`, at RAM column
        `offset` + `left`; `before`, commands to send first in the same write."""
        column = offset + left
        self.command(*before, 0xB0 + page, column & 0x0F, 0x10 | column >> 4)
        self.data(list(ram[page * COLUMNS + left:page * COLUMNS + right + 1]))


class Ssd1306(_ChangedPages, ssd1306):
    """luma's ssd1306 sending only the changed bytes, in page or horizontal addressing mode,
    whichever sends fewer for the frame."""

    def __init__(self, *args, **kwargs):
        self.addressing: int | None = HORIZONTAL  # luma's set-up selects it (20h 00h); None: unknown
        super().__init__(*args, **kwargs)

    def _transfer(self, old: bytes | None, new: bytes) -> None:
        mode, windows = self._plan(old, new)
        if not windows:
            return
        switch = self._switch(mode)
        self.addressing = None  # unknown until the whole transfer went through
        for window in windows:
            if mode == PAGE_MODE:
                self._runs(window.top, window.left, window.right, new, offset=self._colstart, before=switch)
            else:
                self._window(window, new, before=switch)
            switch = ()
        self.addressing = mode

    def _plan(self, old: bytes | None, new: bytes) -> tuple[int, list[Window]]:
        """The addressing mode and the windows that send the changed bytes in the fewest."""
        if old is None:
            return HORIZONTAL, [WHOLE]
        choices = []
        for mode, cost in ((PAGE_MODE, RUN_COST), (HORIZONTAL, WINDOW_COST)):
            windows = plan(old, new, cost, multi_page=mode == HORIZONTAL)
            choices.append((wire_cost(windows, cost) + len(self._switch(mode)), mode, windows))
        _, mode, windows = min(choices, key=lambda choice: choice[0])
        return mode, windows

    def _switch(self, mode: int) -> tuple[int, ...]:
        """The commands that put the controller in `mode` (none when it is known to be there)."""
        if mode == self.addressing:
            return ()
        if mode == PAGE_MODE:
            return (self._const.COLUMNADDR, self._colstart, self._colend - 1, MEMORY_MODE, PAGE_MODE)
        return (MEMORY_MODE, HORIZONTAL)

    def _window(self, window: Window, ram: bytes, *, before: tuple[int, ...]) -> None:
        """Horizontal addressing: the block `window` in one data write."""
        self.command(*before, self._const.COLUMNADDR, self._colstart + window.left, self._colstart + window.right,
                     self._const.PAGEADDR, window.top, window.bottom)
        self.data(list(b"".join(ram[page * COLUMNS + window.left:page * COLUMNS + window.right + 1]
                                for page in range(window.top, window.bottom + 1))))


class Sh1106(_ChangedPages, sh1106):
    """luma's sh1106 sending only the changed runs, page by page (page addressing mode)."""

    def _transfer(self, old: bytes | None, new: bytes) -> None:
        for window in [WHOLE] if old is None else plan(old, new, RUN_COST, multi_page=False):
            for page in range(window.top, window.bottom + 1):
                self._runs(page, window.left, window.right, new, offset=self._page_address_offset)
