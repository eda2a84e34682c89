"""The terminal table (`tablemate run --keyboard`, for an SSH session): the screen drawn in place at
the top of the terminal, the messages under it wrapped to the width, single keys for the buttons,
typed names as taps.

    w withdraw   p pass   u undo   n or → next   ← turn back   o or Enter ok   m menu (hold undo)
    ?            what can be tapped now, a page at a time in the frame's place (? again: the next
                 page; Esc: the screen again); typing a name narrows the list
    / name       tap a component by what is printed on it ("/augsburg", "/province 3"); any key that is
                 not a button starts the name too; "2 augsburg" taps on seat 2's reader
    Esc          drops the typed name and the list; Ctrl-C stops the table

The terminal is put in cbreak mode (keys arrive one by one, Ctrl-C still stops) and restored on exit.
Every region is drawn at its own row with the cursor addressed absolutely, so nothing ever scrolls:
the frame stays at the top, the message on its lines, the help below it.
"""

import codecs
import dataclasses
import logging
import os
import re
import select
import shutil
import sys
import termios
import textwrap
import threading
import tty
from typing import TextIO

from drivers.display import DisplaySpec
from drivers.readers import normalise_uid

from . import script
from .sim import catalogue

KEYS = {"w": "withdraw", "p": "pass", "u": "undo", "n": "next", "o": "ok", "\r": "ok", "\n": "ok"}
#: one line of an 80-column terminal
HELP = "w withdraw · p pass · u undo · n next · o/Enter ok · m menu · ? list · /name tap"
ARROWS = {"C": 1, "D": -1, "A": -1, "B": 1}  # right, left, up, down
#: how long an Esc waits for the rest of an arrow's sequence (vim's ttimeoutlen is 100 ms too)
ESC_WAIT_S = 0.1
_SGR = re.compile(r"(\x1b\[[0-9;]*m)")


class Screen:
    """The terminal's regions, drawn under one lock: the frame at the top, then the message (wrapped
    to the width), the help and the typed line. `?`'s list is a pager: its page takes the frame's
    rows (the frame is drawn again when the list closes) and `?` turns to the next page.
    """

    def __init__(self, out: TextIO):
        self.out = out
        self.lock = threading.Lock()
        self.frame_rows = 0
        self.frame_lines: list[str] = []
        self.typed = ""
        self.message = ""
        self.listing: list[str] = []
        self.page = 0

    def start(self) -> None:
        with self.lock:
            self.out.write("\x1b[2J\x1b[H")
            self.out.flush()

    def frame(self, text: str) -> None:
        lines = text.rstrip("\n").split("\n")
        with self.lock:
            grew = len(lines) != self.frame_rows
            self.frame_rows, self.frame_lines = len(lines), lines
            if not self.listing:
                self._rows(1, lines)
            if grew:
                self._below()
            self._cursor()

    def say(self, message: str) -> None:
        with self.lock:
            self.message = message
            self._below()
            self._cursor()

    def typing(self, typed: str) -> None:
        with self.lock:
            self.typed = typed
            self._rows(self._places()[2], [self._prompt()])
            self._cursor()

    @property
    def columns(self) -> int:
        return self._size()[0]

    def show_list(self, lines: list[str]) -> None:
        """Show `lines` from their first page over the frame ([]: the frame again)."""
        with self.lock:
            self.listing, self.page = lines, 0
            self._top()
            self._cursor()

    def next_page(self) -> None:
        """The list's next page (after the last, the first)."""
        with self.lock:
            self.page = (self.page + 1) % len(self._pages())
            self._top()
            self._cursor()

    def close(self) -> None:
        with self.lock:
            rows = self._size()[1]
            self.out.write(f"\x1b[{rows};1H\n")
            self.out.flush()

    # -- drawing (under the lock) ----------------------------------------------------------------------

    def _size(self) -> tuple[int, int]:
        size = shutil.get_terminal_size((100, 40))
        return size.columns, size.lines

    def _prompt(self) -> str:
        return f"tap> {self.typed}" if self.typed else ""

    def _places(self) -> tuple[list[str], list[str], int]:
        """The message's lines and the help's, wrapped to the width, and the typed line's row: the
        message takes what the terminal leaves under the frame, its last line cut with "…"."""
        columns, rows = self._size()
        help_lines = textwrap.wrap(HELP, columns) or [""]
        room = max(1, rows - self.frame_rows - len(help_lines) - 1)
        message = textwrap.wrap(self.message, columns) or [""]
        if len(message) > room:
            message = message[:room]
            message[-1] = message[-1][: columns - 1] + "…"
        return message, help_lines, self.frame_rows + len(message) + len(help_lines) + 1

    def _pages(self) -> list[list[str]]:
        """The list in pages of the frame's rows, each but a single one ending with where it is."""
        size = max(2, self.frame_rows)
        if len(self.listing) <= size:
            return [self.listing]
        per = size - 1
        count = -(-len(self.listing) // per)
        return [self.listing[k:k + per] + [f"— page {k // per + 1}/{count}: ? next page · Esc back to the screen · "
                                          "type part of a name to narrow"]
                for k in range(0, len(self.listing), per)]

    def _top(self) -> None:
        """The frame's rows: the list's page while there is a list, else the frame."""
        if not self.listing:
            self._rows(1, self.frame_lines)
            return
        pages = self._pages()
        page = pages[min(self.page, len(pages) - 1)]
        self._rows(1, page + [""] * (max(2, self.frame_rows) - len(page)))

    def _below(self) -> None:
        columns, rows = self._size()
        message, help_lines, prompt = self._places()
        self._rows(self.frame_rows + 1, [*message, *help_lines, self._prompt()])
        self._rows(prompt + 1, [""] * max(0, rows - prompt), last=rows)

    def _rows(self, first: int, lines: list[str], last: int | None = None) -> None:
        columns, rows = self._size()
        for number, line in enumerate(lines, start=first):
            if number > min(rows, last or rows):
                break
            self.out.write(f"\x1b[{number};1H{fit(line, columns)}\x1b[K")

    def _cursor(self) -> None:
        self.out.write(f"\x1b[{self._places()[2]};{len(self._prompt()) + 1}H")
        self.out.flush()


def fit(line: str, columns: int) -> str:
    """`line` cut to `columns` visible characters; its reverse-video codes (the frame's inverted
    lines) do not count, and a line that has any ends back in normal video."""
    if "\x1b" not in line:
        return line[:columns]
    out, shown = [], 0
    for part in _SGR.split(line):
        if _SGR.fullmatch(part):
            out.append(part)
        else:
            out.append(part[: max(0, columns - shown)])
            shown += len(out[-1])
    return "".join(out) + "\x1b[m"


class ToScreen(logging.Handler):
    """Log records (warnings and worse) on the Screen's message line."""

    def __init__(self, screen: Screen):
        super().__init__(logging.WARNING)
        self.screen = screen

    def emit(self, record: logging.LogRecord) -> None:
        self.screen.say(record.getMessage())


class FrameStream:
    """What the terminal display writes to: each frame it flushes is drawn at the top of the Screen
    (in reverse video where the panel is inverted: it is a terminal, though placed by the Screen)."""

    ansi = True

    def __init__(self, screen: Screen):
        self.screen = screen
        self._text = ""

    def write(self, text: str) -> int:
        self._text += text
        return len(text)

    def flush(self) -> None:
        if self._text:
            text, self._text = self._text, ""
            self.screen.frame(text)

    def isatty(self) -> bool:
        return False  # frames come whole; the Screen places them


class Console:
    """Keys and typed names to steps on the app's mock readers and buttons."""

    def __init__(self, app, hands: script.Hands, screen: Screen):
        self.app = app
        self.hands = hands
        self.screen = screen
        self.typed = ""
        #: `?` was pressed: the list is shown, narrowed as a name is typed, until the next input
        self.listing = False

    def key(self, key: str) -> None:
        """One key (or an arrow's escape sequence) as typed."""
        try:
            self._key(key)
        except (script.BadScript, catalogue.NoMatch) as error:
            self.screen.say(str(error))

    def _key(self, key: str) -> None:
        if key.startswith("\x1b[") and key[-1] in ARROWS:
            self._turn(ARROWS[key[-1]])
        elif key == "\x1b":
            self._type("")
            self.screen.say("")
            if self.listing:
                self.listing = False
                self.screen.show_list([])
        elif self.typed:
            if key in ("\r", "\n"):
                line, self.typed = self.typed, ""
                self.screen.typing("")
                self._do(self.step(line))
            elif key in ("\x7f", "\b"):
                self._type(self.typed[:-1])
            elif key.isprintable():
                self._type(self.typed + key)
        elif key in KEYS:
            self._do(script.Step("press", (KEYS[key],), 0))
        elif key == "m":
            self._do(script.Step("hold", ("undo", str(self.app.profile.buttons.hold_ms + 200)), 0))
        elif key == "?" and self.listing:
            self.screen.next_page()
        elif key == "?":
            self.listing = True
            self._list()
        elif key == "/":
            self._type(" ")
        elif key.isprintable() and key != " ":
            self._type(key)

    def _type(self, typed: str) -> None:
        self.typed = typed
        self.screen.typing(typed.lstrip())
        if self.listing:
            self._list()

    def _list(self) -> None:
        """Why the list is what it is on the message line, the names (those the typed words fit) below."""
        why, *lines = self.tappable(self.typed, self.screen.columns)
        self.screen.say(why)
        self.screen.show_list(lines)

    def _turn(self, steps: int) -> None:
        """An arrow key: the encoder turns one detent (without an encoder, → presses next)."""
        if self.app.profile.buttons.encoder is None:
            if steps > 0:
                self._do(script.Step("press", ("next",), 0))
            return
        factory = self.app.buttons.factory
        a, b = (factory.pin(pin) for pin in self.app.profile.buttons.encoder)
        first, second = (a, b) if steps > 0 else (b, a)
        first.drive_low()
        second.drive_low()
        first.drive_high()
        second.drive_high()
        self.screen.say("turned on" if steps > 0 else "turned back")

    def _do(self, step: script.Step) -> None:
        self.hands.check([step])
        if self.listing:  # what can be tapped changes with the input: ? lists it again
            self.listing = False
            self.screen.show_list([])
        if step.verb == "tap":
            self.screen.say(f"tapped {self._name(step.args[1])} on {step.args[0]}")
        else:
            self.screen.say(f"{'pressed' if step.verb == 'press' else step.verb} {' '.join(step.args)}")
        self.hands.do(step)

    def _name(self, uid: str) -> str:
        for component in self._components():
            if component.uid == uid:
                return component.label
        return uid

    def _components(self) -> list[catalogue.Component]:
        table = self.app.loop.table
        games = [table.session.name] if table.session else sorted({entry.game for _, entry in table.tags.items()})
        return [c for game in games for c in catalogue.catalogue(table.tags, game)]

    def tappable(self, typed: str = "", width: int = 80) -> list[str]:
        """`?`: why the list is what it is, then the names that `typed` fits, each kind on lines of
        its own after its heading, as few as `width` columns allow."""
        now, why = catalogue.tappable(self.app.loop.table, self._components())
        wanted = catalogue.words(typed)
        fitting = [c for c in now if catalogue.fits(wanted, catalogue.words(c.label))]
        if now and not fitting:
            return [why, f"  none of them is called {typed.strip()!r}"]
        lines, heading = [why], None
        for component in fitting:
            if component.heading != heading:
                heading = component.heading
                lines.append(f"{heading}: {component.label}")
            elif len(lines[-1]) + 2 + len(component.label) > width:
                lines.append("  " + component.label)
            else:
                lines[-1] += ", " + component.label
        return lines

    def step(self, line: str) -> script.Step:
        """The step a typed line means: a script step, or a tap of a component named by its label
        (optionally after the reader: "2 augsburg", "shared province 3"); BadScript/NoMatch if none."""
        line = line.strip()
        words = line.split()
        if not words:
            raise script.BadScript("type a component's name")
        if words[0] in script.ARITY:
            return script.parse(line, "typed")[0]
        readers = self.app.readers.readers
        reader, rest = None, line
        if len(words) > 1 and (words[0] in readers or f"seat{words[0]}" in readers or (words[0].isdigit() and len(words[0]) == 1)):
            reader, rest = words[0], line.split(None, 1)[1]
        return script.Step("tap", (self._reader(reader), self._uid(rest)), 0)

    def _reader(self, given: str | None) -> str:
        readers = self.app.readers.readers
        if given is not None:
            name = f"seat{given}" if given.isdigit() else given
            if name not in readers:
                raise script.BadScript(f"no reader {given!r}: {', '.join(readers)}")
            return name
        table = self.app.loop.table
        session = table.session
        prompt = session.game.prompt(session.state) if session else None
        seat = prompt.player if prompt else None
        return f"seat{seat}" if f"seat{seat}" in readers else next(iter(readers))

    def _uid(self, text: str) -> str:
        """The UID of the component `text` names, or `text` itself when it is a UID."""
        session = self.app.loop.table.session
        used = catalogue.played(session.actions) if session else set()
        try:
            return catalogue.find(self._components(), text, used).uid
        except catalogue.NoMatch:
            try:
                return normalise_uid(text)
            except ValueError:
                pass
            raise


def keys(fd: int):
    """The keys typed on a terminal's file descriptor; an arrow's escape sequence is one key. Its
    bytes may come in separate reads (over SSH, on a busy machine): an Esc that ends a read is a key
    of its own only if nothing follows within ESC_WAIT_S, as terminals' own programs decide it."""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    pending = ""
    while True:
        data = os.read(fd, 64)
        if not data:
            return
        pending += decoder.decode(data)
        while pending:
            if pending == "\x1b[" or pending == "\x1b" and select.select([fd], [], [], ESC_WAIT_S)[0]:
                break  # the rest of an arrow is on its way
            size = 3 if pending.startswith("\x1b[") else 1
            yield pending[:size]
            pending = pending[size:]


def run(profile, tags: dict, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    """The table on this terminal until Ctrl-C / SIGTERM (`tags` enrolled once the store answers);
    the terminal's mode is restored on exit."""
    from .app import App

    stdin, stdout = stdin or sys.stdin, stdout or sys.stdout
    if not stdin.isatty():
        raise script.BadScript("--keyboard needs a terminal; without one, play a script (--script) or the browser page "
                               "(tablemate sim)")
    style = profile.display.terminal_style if profile.display.driver == "terminal" else "braille"
    screen = Screen(stdout)
    profile = dataclasses.replace(profile, display=DisplaySpec(driver="terminal", terminal_style=style,
                                                               on_stop=profile.display.on_stop))
    app = App.build(profile, stream=FrameStream(screen), tags=tags)
    logs = ToScreen(screen)  # a warning printed on stderr would scroll the screen: it goes to the message line
    logging.getLogger().addHandler(logs)
    console = Console(app, script.RealTime(app), screen)
    fd = stdin.fileno()
    saved = termios.tcgetattr(fd)
    tty.setcbreak(fd)
    screen.start()
    screen.say("Keys are buttons; type a component's name to tap it.")

    def read() -> None:
        for key in keys(fd):
            console.key(key)

    threading.Thread(target=read, name="tablemate-console", daemon=True).start()
    try:
        return app.run()
    finally:
        logging.getLogger().removeHandler(logs)
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        screen.close()
