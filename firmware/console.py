"""The desktop table's keyboard (`make run`): typed lines become presses and taps on the mocked hardware.

    w  withdraw      p  pass      u  undo      n  next      o  ok (or an empty line)      m  menu (hold undo)
    ulm-1            tap the component enrolled with id ulm-1 on the reader of the seat to play
    2 ulm-1          ... on seat 2's reader;   shared 04a1b2c3   a UID on the shared reader
    tap seat1 04a1b2c3 / press ok / hold undo 1000 / wait 500   any script step
"""

import sys
import threading
from typing import TextIO

from . import script

KEYS = {"w": "withdraw", "p": "pass", "u": "undo", "n": "next", "o": "ok", "": "ok"}
HELP = __doc__.split("\n\n", 1)[1]


class Console:
    def __init__(self, app, hands: script.Hands, out: TextIO = sys.stderr):
        self.app = app
        self.hands = hands
        self.out = out

    def start(self, lines: TextIO = sys.stdin) -> threading.Thread:
        thread = threading.Thread(target=self._read, args=(lines,), name="tablemate-console", daemon=True)
        thread.start()
        return thread

    def _read(self, lines: TextIO) -> None:
        print(HELP, file=self.out)
        for line in lines:
            try:
                step = self.step(line.strip())
            except script.BadScript as error:
                print(error, file=self.out)
                continue
            if step is not None:
                self.hands.do(step)

    def step(self, line: str) -> script.Step | None:
        """The script step a typed line means (BadScript when it means nothing)."""
        if line in KEYS:
            return script.Step("press", (KEYS[line],), 0)
        if line == "m":
            return script.Step("hold", ("undo", str(self.app.profile.buttons.hold_ms + 200)), 0)
        words = line.split()
        if words[0] in script.ARITY:
            return script.parse(line, "typed")[0]
        reader, label = (words if len(words) == 2 else (None, words[0])) if len(words) <= 2 else (None, line)
        return script.parse(f"tap {self._reader(reader)} {self._uid(label)}", "typed")[0]

    def _reader(self, given: str | None) -> str:
        readers = self.app.readers.readers
        if given is not None:
            name = f"seat{given}" if given.isdigit() else given
            if name not in readers:
                raise script.BadScript(f"no reader {given!r}: {', '.join(readers)}")
            return name
        session = self.app.loop.table.session
        prompt = session.game.prompt(session.state) if session else None
        seat = prompt.player if prompt else None
        return f"seat{seat}" if f"seat{seat}" in readers else next(iter(readers))

    def _uid(self, label: str) -> str:
        table = self.app.loop.table
        if table.session is not None:
            uid = table.tags.find(table.session.name, label)
            if uid is not None:
                return uid
        return label
