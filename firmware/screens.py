"""Drawing views on the 128x64 one-bit panel with the bundled bitmap fonts.

The panel's RAM is 8 pages of 8 pixel rows, and on I2C only the bytes that changed cross the wire
(drivers.display.pages): about 0.2 ms a byte at 400 kHz, 0.9 ms at 100 kHz. So the screen of a game
in play is laid out for what changes with a move to be small, and to stay put:

    page 0   Taj Mahal       Round 3/12 !   the game and its phase (the store badge "!" at the end),
                                            each whole (Screen.heading); a part in trouble
    -------------------------------------   replaces them, inverted
    pages    >Ana        23  Dee      31    the scores, a cell a seat: one column up to 3 seats, two
    1-3       Ben        17  Eve       4    (column by column) for 4 or 5. The seat to act is marked
              Cy          9                 by a small triangle in its cell's margin; a total is
    -------------------------------------   right-aligned in a fixed field: nothing else moves
    pages    Ana: vizier, crown             the band: the last event, grouped by player (two lines;
    4-5                                     the rare longer one takes a third, the hint goes)
    page 6   Ben:  tap or withdraw          what the table waits for, naming the inputs; the name in a
                                            field as wide as the longest name, so the rest stays put
    page 7   Out now: monk +2               the hint

The top never moves: a turn passing moves the triangle (a few bytes in two places), a score change
rewrites its digits. Everything else happens in the band, one 8-px page a line, each line keeping its
part whatever the band shows, so that going from one to the other rewrites as little as it can:

- what an action did is shown there in place as the last event, not as a whole-screen flash that
  the scoreboard then replaces again; it stays until the next action that has events (an action
  that only passes the turn shows as the triangle and the prompt moving on);
- a question the game asks takes the prompt's line (its counter "3/55" at the end when the options
  take more than a line), its options the hint's line, flowed like words ("1 2 3 4 5 6") with the
  triangle before the one under the cursor: a step moves the triangle and the counter's digits,
  and the options turn by line, never scroll. A board's mini-map sits at the band's right, the
  chosen cell framed. The last event stays above it, wrapped as on the scoreboard and cut at the
  map, so the map coming and going rewrites only the columns it covers;
- a tap the game waits for: the question from the prompt's line on (up a line when it takes two
  and ok has a meaning), what ok does at the end;
- a refused input: the whole band framed twice (as the full-screen error always was), the reason
  in the 6x10 font: nothing else on the table looks like it; it goes after `error_s` or at the next
  input, and the band comes back as it was.

Rare screens keep a whole screen each: game select, set-up, the menu and enrolment (a chooser is a
list under the inverted question, the same triangle marking the option), game over, messages, and
the flashes said outside a game (a new game, a player card, the store's notices).
"""

import logging
import re

from PIL import Image, ImageDraw, ImageFont

from drivers.display.fonts import font as bundled_font

from .views import ChooserView, FlashView, MessageView, OverView, Row, ScoreView, TapView, View

log = logging.getLogger(__name__)

WIDTH, HEIGHT = 128, 64
#: pixel values of a mode "1" image (Pillow keeps 1 as 1, and a saved frame would then differ)
ON, OFF = 255, 0
#: the lines (8-px pages with the body font) of a game's screen: the seats, then the band
SEATS, BAND = 1, 4
#: seats a column holds; more than this many and the seats take two columns
PER_COLUMN = 3
#: the widest name field a prompt pads to (a longer name is cut there)
NAME_FIELD = 10
#: pixels between a seat's total and the next column (its triangle)
GUTTER = 4
#: lines of the band the last event takes; the next is what the table waits for (or the question)
EVENT_LINES = 2
ASKED = BAND + EVENT_LINES


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
    """Draws views: the body in the tiny font (eight lines of 25), flashes in the bold one and a
    refusal over the scoreboard in the small one.

    `render(view)` returns a fresh 128x64 mode-"1" image.
    """

    def __init__(self, body: ImageFont.ImageFont | None = None, big: ImageFont.ImageFont | None = None,
                 mid: ImageFont.ImageFont | None = None):
        #: what went wrong loading the bundled fonts ("" when nothing did)
        self.problem = ""
        metrics = Metrics(body or self._font("tiny"))
        self.font, self.line, self.char, self.columns, self.rows = (
            metrics.font, metrics.line, metrics.char, metrics.columns, metrics.rows
        )
        #: the characters of a top line, left of the store badge
        self.top = (WIDTH - self.line - 1) // self.char
        self.big = Metrics(big or self._font("medium"))
        self.mid = Metrics(mid or self._font("small"))

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
        over = getattr(view, "over", None)
        if isinstance(view, ScoreView):
            self._board(draw, view)
            self._waiting(draw, view)
        elif over is not None:
            self._board(draw, over)
            {ChooserView: self._asking, TapView: self._waiting_for_tap, FlashView: self._refused}[type(view)](draw, view)
        else:
            {
                ChooserView: self._chooser,
                TapView: self._tap,
                FlashView: self._flash,
                OverView: self._over,
                MessageView: self._message,
            }[type(view)](draw, view)
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
        if inverted:
            draw.rectangle((0, y, (edge if bar is None else bar) - 1, y + self.line - 1), fill=ON)
        draw.text((1, y), cut(latin1(text), room), font=self.font, fill=OFF if inverted else ON)
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

    def _wrapped(self, text: str, width: int, room: int) -> list[str]:
        """`text` wrapped to `width`, at most `room` lines, the last cut with "~" when more is left."""
        lines = self._wrap(text, width)
        if len(lines) > room:
            lines = lines[:room]
            lines[-1] = lines[-1][: width - 1] + "~"
        return lines

    def _badge(self, draw: ImageDraw.ImageDraw) -> None:
        """A black box with a white frame and "!": seen on the inverted header and on black alike."""
        size = self.line
        x = WIDTH - size
        draw.rectangle((x, 0, WIDTH - 1, size - 1), fill=OFF, outline=ON)
        draw.text((x + (size - self.char) // 2 + 1, 0), "!", font=self.font, fill=ON)

    def _header(self, draw: ImageDraw.ImageDraw, title: str, right: str = "") -> None:
        """The inverted top line of a whole-screen view; its right end leaves room for the store badge."""
        self._text(draw, 0, title, inverted=True, right=right, edge=WIDTH - self.line - 1, bar=WIDTH)

    def _marker(self, draw: ImageDraw.ImageDraw, x: int, y: int) -> None:
        """The small triangle that marks the seat to act and the option under the cursor: one
        character cell wide, within the line's glyph rows."""
        draw.polygon(((x, y), (x, y + self.line - 2), (x + self.char - 2, y + (self.line - 2) // 2)), fill=ON)

    def _options(self, draw: ImageDraw.ImageDraw, view: ChooserView, first: int, lines: int, edge: int) -> str:
        """The page of options (flowed into `lines` lines from line `first`, `edge` pixels wide) that
        holds the cursor, the triangle before the chosen one; the counter ("3/55") when there is
        more than one page, else ""."""
        pages = self._flow(view.options, edge // self.char, lines)
        page = next(p for p in pages if any(i == view.index for line in p for i, _, _ in line))
        for offset, line in enumerate(page):
            y = (first + offset) * self.line
            for index, column, label in line:
                x = 1 + column * self.char
                if index == view.index:
                    self._marker(draw, x, y)
                draw.text((x + self.char, y), label, font=self.font, fill=ON)
        return f"{view.index + 1}/{len(view.options)}" if len(pages) > 1 else ""

    @staticmethod
    def _flow(options: tuple[str, ...], columns: int, lines: int) -> list[list[list[tuple[int, int, str]]]]:
        """Options laid out like words: each one its marker cell, its label and a space, as many a
        line as fit `columns` characters; pages of `lines` lines, each line a list of (index,
        column, label)."""
        flowed: list[list[tuple[int, int, str]]] = []
        line: list[tuple[int, int, str]] = []
        column = 0
        for index, option in enumerate(options):
            label = cut(latin1(option), columns - 1)
            if line and column + 1 + len(label) > columns:
                flowed.append(line)
                line, column = [], 0
            line.append((index, column, label))
            column += len(label) + 2
        flowed.append(line)
        return [flowed[k:k + lines] for k in range(0, len(flowed), lines)]

    # -- a game in play: the scoreboard on top, the band below -------------------------------------

    def _board(self, draw: ImageDraw.ImageDraw, view: ScoreView) -> None:
        """The top of a game's screen, the same under every band: the game and its phase (or what is
        in trouble), a rule, the seats, a rule."""
        edge = WIDTH - self.line - 1  # room for the store badge
        if view.notice:
            self._text(draw, 0, view.notice, inverted=True, edge=edge, bar=WIDTH)
        else:
            title, phase = self.heading(view)
            self._text(draw, 0, title, right=phase, edge=edge)
        for y in (SEATS * self.line - 1, BAND * self.line - 1):
            draw.line((0, y, WIDTH - 1, y), fill=ON)
        columns = 1 if len(view.rows) <= PER_COLUMN else 2
        per_column = -(-len(view.rows) // columns)
        width = WIDTH // columns
        digits = max([3] + [len(str(row.total)) for row in view.rows])
        for i, row in enumerate(view.rows):
            self._cell(draw, (i // per_column) * width, (SEATS + i % per_column) * self.line, width, row, digits)

    def heading(self, view: ScoreView) -> tuple[str, str]:
        """The game's title and phase on the top line, each whole: a phase too long beside the title
        loses its detail ("Round 5" of "Round 5, 2/4 done"), then the title gives way to the game's
        short one ("T. und Taxis")."""
        brief = re.split(r", | \(", view.phase)[0]
        short = view.short or view.title
        return fitting(((view.title, view.phase), (view.title, brief), (short, view.phase), (short, brief)), self.top)

    def _cell(self, draw: ImageDraw.ImageDraw, x: int, y: int, width: int, row: Row, digits: int) -> None:
        """A seat's name and total in a cell `width` pixels wide, the total right-aligned in a field
        of `digits`; the seat to act has the triangle in the cell's margin."""
        if row.current:
            self._marker(draw, x + 1, y)
        room = (width - GUTTER - self.char - 1) // self.char - digits - 1
        draw.text((x + 1 + self.char, y), latin1(row.name[:room]), font=self.font, fill=ON)
        total = str(row.total)
        draw.text((x + width - GUTTER - len(total) * self.char, y), total, font=self.font, fill=ON)

    def _events(self, view: ScoreView, room: int, width: int | None = None) -> list[str]:
        """The last action's events grouped by player ("Eve: province +6, palaces +1; Ben: colour
        change card"), wrapped, in at most `room` lines: the same words whatever the room, so the
        first line stays put when a question takes the lines below it."""
        width = width or self.columns
        events = [latin1(event) for event in view.events]
        names = sorted((latin1(row.name) for row in view.rows), key=len, reverse=True)
        groups: dict[str, list[str]] = {}
        for event in events:
            name = next((name for name in names if event.startswith(f"{name}: ")), None)
            if name is None:
                groups[event] = []
            else:
                groups.setdefault(f"{name}:", []).append(event[len(name) + 2:])
        text = "; ".join(f"{head} {', '.join(parts)}" if parts else head for head, parts in groups.items())
        return self._wrapped(text, width, room)

    def _who(self, text: str, rows: tuple[Row, ...]) -> str:
        """`text` ("Cy: tap a card") with the seat's name it starts with padded to the longest name,
        so the rest of the line stays where it was when the turn passes."""
        names = sorted((row.name for row in rows), key=len, reverse=True)
        field = min(NAME_FIELD, max((len(name) for name in names), default=0))
        for name in names:
            if text.startswith(f"{name}:"):
                return f"{name[:field] + ':':<{field + 1}}{text[len(name) + 1:]}"
        return text

    def _waiting(self, draw: ImageDraw.ImageDraw, view: ScoreView) -> None:
        """The band while the table waits for a move: the last event, what the table waits for,
        the hint. The rare event too long for its lines (the cards a round's end gives out) takes
        the prompt's line too, the prompt the hint's."""
        events = self._events(view, EVENT_LINES + 1)
        for offset, line in enumerate(events):
            self._text(draw, BAND + offset, line)
        below = max(ASKED, BAND + len(events))
        self._text(draw, below, self._who(view.prompt, view.rows))
        if below == ASKED:
            self._text(draw, ASKED + 1, view.hint)

    def _asking(self, draw: ImageDraw.ImageDraw, view: ChooserView) -> None:
        """A question of the game in the band: the last event stays, the question and its counter
        take the line of what the table waits for, a page of options the hint's; the mini-map on
        the right when given."""
        edge = self._minimap(draw, view, BAND * self.line, HEIGHT) if view.cells else WIDTH
        for offset, line in enumerate(self._events(view.over, EVENT_LINES)):  # wrapped as on the scoreboard,
            self._text(draw, BAND + offset, line, edge=edge)  # cut at the map: what it leaves stays put
        counter = self._options(draw, view, ASKED + 1, 1, edge)
        asked = self._who(view.question, view.over.rows)
        if counter:  # right after the question, not at the far end: its bytes go with the question's
            asked = f"{cut(latin1(asked), edge // self.char - len(counter) - 1)} {counter}"
        self._text(draw, ASKED, asked, edge=edge)

    def _waiting_for_tap(self, draw: ImageDraw.ImageDraw, view: TapView) -> None:
        """A tap the game waits for, in the band: the last event, then the question from the line of
        what the table waits for (on, when it takes two lines), the note and what ok does below."""
        done = f"ok: {view.done}" if view.done else ""
        question = self._wrapped(self._who(view.question, view.over.rows), self.columns, 2)
        lines = [(line, "") for line in question] + ([(view.note, done)] if view.note or done else [])
        first = min(ASKED, self.rows - len(lines))
        for offset, line in enumerate(self._events(view.over, first - BAND)):
            self._text(draw, BAND + offset, line)
        for offset, (line, right) in enumerate(lines):
            self._text(draw, first + offset, line, right=right)

    def _refused(self, draw: ImageDraw.ImageDraw, view: FlashView) -> None:
        """A refused input over the scoreboard: the band framed twice, the reason in the 6x10 font."""
        top = BAND * self.line
        draw.rectangle((0, top, WIDTH - 1, HEIGHT - 1), outline=ON)
        draw.rectangle((2, top + 2, WIDTH - 3, HEIGHT - 3), outline=ON)
        mid = self.mid
        room = max(1, (HEIGHT - top - 8) // mid.line)
        lines = self._wrapped(" ".join(view.lines), (WIDTH - 8) // mid.char, room)
        y = top + (HEIGHT - top - len(lines) * mid.line) // 2
        for i, line in enumerate(lines):
            draw.text(((WIDTH - len(line) * mid.char) // 2, y + i * mid.line), line, font=mid.font, fill=ON)

    # -- whole screens ---------------------------------------------------------------------------

    def _chooser(self, draw: ImageDraw.ImageDraw, view: ChooserView) -> None:
        """The question (inverted, the counter at its end), then a page of options, one a line, the
        triangle before the chosen one; the mini-map on the right when given."""
        question = self._wrapped(view.question, self.columns, 2)
        top = len(question)
        bottom = self.rows - (1 if view.notice else 0)
        edge = self._minimap(draw, view, top * self.line, bottom * self.line) if view.cells else WIDTH
        visible = bottom - top
        first = view.index // visible * visible
        counter = f"{view.index + 1}/{len(view.options)}" if len(view.options) > visible else ""
        for offset, option in enumerate(view.options[first:first + visible]):
            y = (top + offset) * self.line
            if first + offset == view.index:
                self._marker(draw, 1, y)
            draw.text((1 + self.char, y), cut(latin1(option), (edge - 1) // self.char - 1), font=self.font, fill=ON)
        for i, line in enumerate(question):
            self._text(draw, i, line, inverted=True, right=counter if i == 0 else "", edge=WIDTH - self.line - 1,
                       bar=WIDTH)
        if view.notice:
            self._text(draw, self.rows - 1, view.notice, inverted=True, edge=edge)

    def _minimap(self, draw: ImageDraw.ImageDraw, view: ChooserView, top: int, bottom: int) -> int:
        """The board's cells between `top` and `bottom`, at the right (filled: taken), the option
        under the cursor (its cell, or a quarter's free cells) framed and dotted; the left edge it leaves the text."""
        rows = [r for r, _, _ in view.cells]
        cols = [c for _, c, _ in view.cells]
        height, width = max(rows) - min(rows) + 1, max(cols) - min(cols) + 1
        pitch = max(2, min((bottom - top) // height, 40 // width))
        left = WIDTH - width * pitch
        for r, c, taken in view.cells:
            x, y = left + (c - min(cols)) * pitch, top + (r - min(rows)) * pitch
            draw.rectangle((x, y, x + pitch - 2, y + pitch - 2), fill=ON if taken else OFF, outline=ON)
        for row, col in view.marks:
            x, y = left + (col - min(cols)) * pitch, top + (row - min(rows)) * pitch
            draw.rectangle((x - 1, y - 1, x + pitch - 1, y + pitch - 1), outline=ON)
            draw.rectangle((x + 1, y + 1, x + pitch - 3, y + pitch - 3), fill=ON)
        return left - 2

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
        self._header(draw, "Game over", fitting((("Game over", view.title), ("Game over", view.short or view.title)), self.top)[1])
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


def fitting(lines: tuple[tuple[str, str], ...], room: int) -> tuple[str, str]:
    """The first (left, right) of `lines` whose parts fit `room` characters with a space between
    them, else the last (its left part then cut): a top line's title and phase, each whole."""
    return next((line for line in lines if len(line[0]) + 1 + len(line[1]) <= room), lines[-1])


def cut(text: str, room: int) -> str:
    """`text` in `room` characters, ending in "~" when it was longer."""
    return text if len(text) <= room else text[: max(0, room - 1)] + "~"
