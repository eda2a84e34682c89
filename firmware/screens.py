"""Drawing views on the 128x64 one-bit panel with the bundled bitmap font.

Scores come first and fit without scrolling: one line a seat (the seat to act is drawn inverted),
the game and its phase on top, what the table waits for at the bottom. Errors are framed twice so
they are told apart from event flashes at a glance. The store badge (a small "!" box in the top
right corner) appears on every screen while actions wait for Redis; a notice (a reader in trouble)
is an inverted line just above what the table waits for.
"""

import logging

from PIL import Image, ImageDraw, ImageFont

from drivers.display.fonts import font as bundled_font

from .views import ChooserView, FlashView, MessageView, OverView, Row, ScoreView, TapView, View

log = logging.getLogger(__name__)

WIDTH, HEIGHT = 128, 64
#: pixel values of a mode "1" image (Pillow keeps 1 as 1, and a saved frame would then differ)
ON, OFF = 255, 0


class Metrics:
    """A fixed-width bitmap font with its line height, character width and lines per screen."""

    def __init__(self, font: ImageFont.ImageFont):
        self.font = font
        _, top, _, bottom = font.getbbox("Mgjy")
        self.line = bottom - min(top, 0) + 1
        self.char = max(1, font.getbbox("M")[2])
        self.columns = WIDTH // self.char
        self.rows = HEIGHT // self.line


class Screen:
    """Draws views: the body in the tiny font (eight lines of 25), flashes in the bold one.

    `render(view)` returns a fresh 128x64 mode-"1" image.
    """

    def __init__(self, body: ImageFont.ImageFont | None = None, big: ImageFont.ImageFont | None = None):
        #: what went wrong loading the bundled fonts ("" when nothing did)
        self.problem = ""
        metrics = Metrics(body or self._font("tiny"))
        self.font, self.line, self.char, self.columns, self.rows = (
            metrics.font, metrics.line, metrics.char, metrics.columns, metrics.rows
        )
        self.big = Metrics(big or self._font("medium"))

    def _font(self, name: str) -> ImageFont.ImageFont:
        """A bundled font; when its file is missing or broken (a damaged install), Pillow's own
        font, so the screen still shows the game, if less neatly, and `problem` says why."""
        try:
            return bundled_font(name)
        except OSError as error:
            self.problem = f"font {name!r} unreadable ({error}), drawing with Pillow's default font"
            log.warning("%s", self.problem)
            return ImageFont.load_default()

    def render(self, view: View) -> Image.Image:
        image = Image.new("1", (WIDTH, HEIGHT), OFF)
        draw = ImageDraw.Draw(image)
        handler = {
            ScoreView: self._score,
            ChooserView: self._chooser,
            TapView: self._tap,
            FlashView: self._flash,
            OverView: self._over,
            MessageView: self._message,
        }[type(view)]
        handler(draw, view)
        if view.offline:
            self._badge(draw)
        return image

    # -- building blocks -------------------------------------------------------------------------

    def _text(self, draw: ImageDraw.ImageDraw, row: int, text: str, *, inverted: bool = False, right: str = "",
              edge: int = WIDTH, bar: int | None = None) -> None:
        """One line of text at `row`, cut to fit, with `right` aligned to `edge`; inverted, its bar
        reaches `bar` (default: `edge`)."""
        y = row * self.line
        room = edge // self.char - (len(right) + 1 if right else 0)
        text = latin1(text if len(text) <= room else text[: max(0, room - 1)] + "~")
        if inverted:
            draw.rectangle((0, y, (edge if bar is None else bar) - 1, y + self.line - 1), fill=ON)
        draw.text((1, y), text, font=self.font, fill=OFF if inverted else ON)
        if right:
            draw.text((edge - 1 - len(right) * self.char, y), latin1(right), font=self.font, fill=OFF if inverted else ON)

    def _wrap(self, text: str, width: int | None = None) -> list[str]:
        width = width or self.columns
        lines, line = [], ""
        for word in latin1(text).split():
            while len(word) > width:
                if line:
                    lines.append(line)
                    line = ""
                lines.append(word[:width])
                word = word[width:]
            if not line:
                line = word
            elif len(line) + 1 + len(word) <= width:
                line += " " + word
            else:
                lines.append(line)
                line = word
        if line:
            lines.append(line)
        return lines

    def _badge(self, draw: ImageDraw.ImageDraw) -> None:
        """A black box with a white frame and "!": seen on the inverted header and on black alike."""
        size = self.line
        x = WIDTH - size
        draw.rectangle((x, 0, WIDTH - 1, size - 1), fill=OFF, outline=ON)
        draw.text((x + (size - self.char) // 2 + 1, 0), "!", font=self.font, fill=ON)

    def _header(self, draw: ImageDraw.ImageDraw, title: str, right: str = "") -> None:
        """The inverted top line; its right end leaves room for the store badge."""
        self._text(draw, 0, title, inverted=True, right=right, edge=WIDTH - self.line - 1, bar=WIDTH)

    # -- screens ---------------------------------------------------------------------------------

    def _score(self, draw: ImageDraw.ImageDraw, view: ScoreView) -> None:
        """Header, one row a seat (two columns when a single one would leave no room for the footer
        lines: hint, last event, notice, what the table waits for), then the footer; when it does not
        fit, its first lines go."""
        self._header(draw, view.title, view.phase)
        lines = ((view.hint, False), (view.last_event, False), (view.notice, True), (view.prompt, False))
        footer = [(text, inverted) for text, inverted in lines if text]
        columns = 1 if len(view.rows) + len(footer) <= self.rows - 1 else 2
        width = WIDTH // columns
        per_column = -(-len(view.rows) // columns)
        for i, row in enumerate(view.rows):
            x, y = (i // per_column) * width, (1 + i % per_column) * self.line
            self._cell(draw, x, y, width, row)
        first_free = 1 + per_column
        for offset, (text, inverted) in enumerate(footer[-(self.rows - first_free):] if self.rows > first_free else []):
            self._text(draw, first_free + offset, text, inverted=inverted)

    def _cell(self, draw: ImageDraw.ImageDraw, x: int, y: int, width: int, row: Row) -> None:
        """A seat's name and total in a cell `width` pixels wide; the seat to act is inverted."""
        total = str(row.total)
        room = width // self.char - len(total) - 2
        ink = OFF if row.current else ON
        if row.current:
            draw.rectangle((x, y, x + width - 2, y + self.line - 1), fill=ON)
        draw.text((x + 1, y), latin1(f"{'>' if row.current else ' '}{row.name[:room]}"), font=self.font, fill=ink)
        draw.text((x + width - 2 - len(total) * self.char, y), total, font=self.font, fill=ink)

    def _chooser(self, draw: ImageDraw.ImageDraw, view: ChooserView) -> None:
        """The question, then the options around the cursor; a mini-map on the right when given."""
        question = self._wrap(view.question)[:2]
        for i, line in enumerate(question):
            self._text(draw, i, line, inverted=i == 0)
        top = len(question) * self.line
        edge = WIDTH - self._minimap_width(view, top) if view.cells else WIDTH
        visible = self.rows - len(question) - (1 if view.notice else 0)
        first = min(max(0, view.index - visible // 2), max(0, len(view.options) - visible))
        for row, option in enumerate(view.options[first : first + visible], start=len(question)):
            chosen = first + row - len(question) == view.index
            right = f"{view.index + 1}/{len(view.options)}" if chosen and not view.cells else ""
            self._text(draw, row, f"{'>' if chosen else ' '}{option}", inverted=chosen, right=right, edge=edge)
        if view.notice:
            self._text(draw, self.rows - 1, view.notice, inverted=True, edge=edge)
        if view.cells:
            self._minimap(draw, view, top)

    @staticmethod
    def _grid(view: ChooserView, top: int) -> tuple[int, int, int, int]:
        """The mini-map's first row and column, its cell pitch and its left edge."""
        rows = [r for r, _, _ in view.cells]
        cols = [c for _, c, _ in view.cells]
        height, width = max(rows) - min(rows) + 1, max(cols) - min(cols) + 1
        pitch = max(2, min((HEIGHT - top - 2) // height, 40 // width))
        return min(rows), min(cols), pitch, WIDTH - width * pitch - 1

    def _minimap_width(self, view: ChooserView, top: int) -> int:
        return WIDTH - self._grid(view, top)[3] + 2

    def _minimap(self, draw: ImageDraw.ImageDraw, view: ChooserView, top: int) -> None:
        """The board's cells (filled: taken) with the option under the cursor framed and dotted."""
        row0, col0, pitch, left = self._grid(view, top)
        for r, c, taken in view.cells:
            x, y = left + (c - col0) * pitch, top + 1 + (r - row0) * pitch
            draw.rectangle((x, y, x + pitch - 2, y + pitch - 2), fill=ON if taken else 0, outline=ON)
        if view.mark is not None:
            x, y = left + (view.mark[1] - col0) * pitch, top + 1 + (view.mark[0] - row0) * pitch
            draw.rectangle((x - 1, y - 1, x + pitch - 1, y + pitch - 1), outline=ON)
            draw.rectangle((x + 1, y + 1, x + pitch - 3, y + pitch - 3), fill=ON)

    def _tap(self, draw: ImageDraw.ImageDraw, view: TapView) -> None:
        """What to tap, in the bold font; the progress and what ok does at the bottom."""
        self._header(draw, view.title)
        big = self.big
        footer = [line for line in (view.notice, view.note, f"ok: {view.done}" if view.done else "") if line]
        room = (HEIGHT - self.line * (1 + len(footer))) // big.line
        for i, line in enumerate(self._wrap(view.question, WIDTH // big.char)[:room]):
            draw.text((1, self.line + 1 + i * big.line), line, font=big.font, fill=ON)
        for offset, line in enumerate(footer):
            self._text(draw, self.rows - len(footer) + offset, line, inverted=bool(view.notice) and offset == 0)

    def _flash(self, draw: ImageDraw.ImageDraw, view: FlashView) -> None:
        big = self.big
        margin = 3 if view.error else 0
        width = (WIDTH - 2 * margin) // big.char
        lines: list[str] = []
        for text in view.lines:
            lines += self._wrap(text, width)
        lines = lines[: (HEIGHT - 2 * margin) // big.line]
        top = (HEIGHT - len(lines) * big.line) // 2
        for i, line in enumerate(lines):
            x = (WIDTH - len(line) * big.char) // 2
            draw.text((x, top + i * big.line), line, font=big.font, fill=ON)
        if view.error:
            draw.rectangle((0, 0, WIDTH - 1, HEIGHT - 1), outline=ON)
            draw.rectangle((2, 2, WIDTH - 3, HEIGHT - 3), outline=ON)

    def _over(self, draw: ImageDraw.ImageDraw, view: OverView) -> None:
        """The ranking (ties share a place, winners starred) and what ok does."""
        self._header(draw, "Game over", view.title)
        for i, (place, name, total) in enumerate(view.ranking[: self.rows - 2], start=1):
            self._text(draw, i, f"{place}. {name}{' *' if name in view.winners else ''}", right=str(total))
        self._text(draw, self.rows - 1, "ok: new game")

    def _message(self, draw: ImageDraw.ImageDraw, view: MessageView) -> None:
        self._header(draw, view.title)
        lines: list[str] = []
        for text in view.lines:
            lines += self._wrap(text)
        room = self.rows - (2 if view.notice else 1)
        for i, line in enumerate(lines[:room], start=1):
            self._text(draw, i, line)
        if view.notice:
            self._text(draw, self.rows - 1, view.notice, inverted=True)


def latin1(text: str) -> str:
    """`text` with every character the Latin-1 bitmap fonts lack drawn as "?" (a name like Łukasz)."""
    return text.encode("latin-1", errors="replace").decode("latin-1")
