"""Drawing views on the 128x64 one-bit panel with the bundled bitmap font.

Scores come first and fit without scrolling: one line a seat (the seat to act is drawn inverted),
the game and its phase on top, what the table waits for at the bottom. Errors are framed twice so
they are told apart from event flashes at a glance. The store badge (a small "!" box in the top
right corner) appears on every screen while actions wait for Redis.
"""

from PIL import Image, ImageDraw, ImageFont

from drivers.display.fonts import font as bundled_font

from .views import ChooserView, FlashView, MessageView, OverView, ScoreView, TapView, View

WIDTH, HEIGHT = 128, 64


class Screen:
    """Draws views with one font; `render(view)` returns a fresh mode-"1" image."""

    def __init__(self, font: ImageFont.ImageFont | None = None):
        self.font = font or bundled_font("small")
        left, top, right, bottom = self.font.getbbox("Mg")
        self.line = bottom - min(top, 0) + 1
        self.char = max(1, self.font.getbbox("M")[2])
        self.columns = WIDTH // self.char
        self.rows = HEIGHT // self.line

    def render(self, view: View) -> Image.Image:
        image = Image.new("1", (WIDTH, HEIGHT), 0)
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

    def _text(self, draw: ImageDraw.ImageDraw, row: int, text: str, *, inverted: bool = False, right: str = "") -> None:
        y = row * self.line
        room = self.columns - (len(right) + 1 if right else 0)
        text = text if len(text) <= room else text[: max(0, room - 1)] + "…"
        if inverted:
            draw.rectangle((0, y, WIDTH - 1, y + self.line - 1), fill=1)
        draw.text((1, y), text, font=self.font, fill=0 if inverted else 1)
        if right:
            draw.text((WIDTH - 1 - len(right) * self.char, y), right, font=self.font, fill=0 if inverted else 1)

    def _wrap(self, text: str, width: int | None = None) -> list[str]:
        width = width or self.columns
        lines, line = [], ""
        for word in text.split():
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
        size = self.line
        x = WIDTH - size
        draw.rectangle((x, 0, WIDTH - 1, size - 1), fill=1)
        draw.text((x + (size - self.char) // 2, 0), "!", font=self.font, fill=0)

    def _header(self, draw: ImageDraw.ImageDraw, title: str, right: str = "") -> None:
        self._text(draw, 0, title, inverted=True, right=right)

    # -- screens ---------------------------------------------------------------------------------

    def _score(self, draw: ImageDraw.ImageDraw, view: ScoreView) -> None:
        self._header(draw, view.title, view.phase)
        width = len(str(max((abs(r.total) for r in view.rows), default=0))) + 1
        for i, row in enumerate(view.rows, start=1):
            marker = ">" if row.current else " "
            name = row.name[: self.columns - width - 2]
            self._text(draw, i, f"{marker}{name}", inverted=row.current, right=f"{row.total:>{width}}")
        footer = [line for line in (view.hint, view.last_event, view.prompt) if line]
        free = self.rows - 1 - len(view.rows)
        for offset, line in enumerate(footer[-free:] if free > 0 else []):
            self._text(draw, len(view.rows) + 1 + offset, line)

    def _chooser(self, draw: ImageDraw.ImageDraw, view: ChooserView) -> None:
        question = self._wrap(view.question)[:2]
        for i, line in enumerate(question):
            self._text(draw, i, line, inverted=i == 0)
        visible = self.rows - len(question)
        first = min(max(0, view.index - visible // 2), max(0, len(view.options) - visible))
        for row, option in enumerate(view.options[first : first + visible], start=len(question)):
            number = first + row - len(question)
            chosen = number == view.index
            self._text(draw, row, f"{'>' if chosen else ' '}{option}", inverted=chosen, right=f"{number + 1}/{len(view.options)}" if chosen else "")

    def _tap(self, draw: ImageDraw.ImageDraw, view: TapView) -> None:
        self._header(draw, view.title)
        lines = self._wrap(view.question)[: self.rows - 2]
        for i, line in enumerate(lines, start=1):
            self._text(draw, i, line)
        if view.done:
            self._text(draw, self.rows - 1, f"ok: {view.done}")

    def _flash(self, draw: ImageDraw.ImageDraw, view: FlashView) -> None:
        lines: list[str] = []
        for text in view.lines:
            lines += self._wrap(text, self.columns - 2)
        inner = self.rows - (2 if view.error else 0)
        lines = lines[:inner]
        top = (self.rows - len(lines)) // 2
        for i, line in enumerate(lines):
            y = (top + i) * self.line
            x = (WIDTH - len(line) * self.char) // 2
            draw.text((x, y), line, font=self.font, fill=1)
        if view.error:
            draw.rectangle((0, 0, WIDTH - 1, HEIGHT - 1), outline=1)
            draw.rectangle((2, 2, WIDTH - 3, HEIGHT - 3), outline=1)

    def _over(self, draw: ImageDraw.ImageDraw, view: OverView) -> None:
        self._header(draw, "Game over", view.title)
        for i, (place, name, total) in enumerate(view.ranking[: self.rows - 1], start=1):
            winner = name in view.winners
            self._text(draw, i, f"{place}. {name}{' *' if winner else ''}", inverted=winner, right=str(total))

    def _message(self, draw: ImageDraw.ImageDraw, view: MessageView) -> None:
        self._header(draw, view.title)
        lines: list[str] = []
        for text in view.lines:
            lines += self._wrap(text)
        for i, line in enumerate(lines[: self.rows - 1], start=1):
            self._text(draw, i, line)
