"""Scripts: a table's inputs written down, for demos, tests and bug reports.

    # a comment
    tap seat0 04a1b2c3      a card placed on reader seat0 and lifted again
    press withdraw          a short press of a button (by role)
    hold undo 1000          a button held for 1000 ms (a hold opens the menu)
    wait 500                nothing happens for 500 ms

The steps act on the mocked hardware in front of the whole appliance (mock readers, gpiozero's
MockFactory pins), so a script exercises the same code as a table does. `RealTime` plays them while
the loop runs in its own thread; `VirtualTime` advances a fake clock and runs the loop itself, so a
whole game plays in moments and always the same way (demos, tests).

`run_file` is `tablemate run --script`: a bug report replayed as a command in virtual time, ending
when the script does, each refused step reported with its file and line, the final status printed
(the terminal display draws its frames only on a terminal: into a file or a pipe, only the status
and the refusals are written). With `realtime` the appliance runs as a service does, the script playing at its pace, and serves on
until it is stopped (SIGTERM, Ctrl-C), then prints the final status.
"""

import sys
import threading
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, TextIO

from drivers.buttons import ROLES
from drivers.readers import MockReader, normalise_uid
from engines.core.data import FileRefused, read_text

#: a press is held this long: well above any debounce time, well below a hold
PRESS_S = 0.08
#: time that passes after every step in virtual time, as at a real table
THINK_S = 0.3
#: in real time, how long a step waits at most for the drivers' threads to report it
REPORTED_S = 30.0


class BadScript(ValueError):
    """A script that cannot be played; the message names the line."""


@dataclass(frozen=True)
class Step:
    verb: str
    args: tuple[str, ...]
    line: int


ARITY = {"tap": 2, "press": 1, "hold": 2, "wait": 1}


def parse(text: str, source: str = "script") -> list[Step]:
    steps = []
    for number, raw in enumerate(text.splitlines(), start=1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        verb, args = words[0], tuple(words[1:])
        where = f"{source}, line {number}"
        if verb not in ARITY:
            raise BadScript(f"{where}: unknown step {verb!r}; the steps are tap, press, hold, wait")
        if len(args) != ARITY[verb]:
            raise BadScript(f"{where}: {verb} takes {ARITY[verb]} argument(s): {raw.strip()!r}")
        if verb in ("press", "hold") and args[0] not in ROLES:
            raise BadScript(f"{where}: no button {args[0]!r}; the buttons are {', '.join(ROLES)}")
        if verb in ("hold", "wait") and not args[-1].isdigit():
            raise BadScript(f"{where}: {args[-1]!r} is not a number of milliseconds")
        if verb == "tap":
            try:
                args = (args[0], normalise_uid(args[1]))
            except ValueError as error:
                raise BadScript(f"{where}: {error}") from None
        steps.append(Step(verb, args, number))
    return steps


def load(path: str | Path) -> list[Step]:
    try:
        return parse(read_text(path), str(path))
    except OSError as error:
        raise BadScript(f"{path}: cannot read it ({error.strerror})") from None
    except UnicodeDecodeError:
        raise BadScript(f"{path}: not UTF-8 text") from None
    except FileRefused as error:
        raise BadScript(str(error)) from None


class Hands:
    """Plays steps on an app's mock readers and buttons; subclasses say how time passes."""

    def __init__(self, app):
        self.app = app
        self.gap_s = app.profile.reader_timing.gap_ms / 1000
        self.hold_ms = app.profile.buttons.hold_ms

    def check(self, steps: list[Step]) -> None:
        """Refuse, before anything happens, a step this app's hardware cannot do."""
        readers = self.app.readers.readers
        for step in steps:
            if step.verb == "tap" and not isinstance(readers.get(step.args[0]), MockReader):
                mocks = ", ".join(name for name, r in readers.items() if isinstance(r, MockReader)) or "none"
                raise BadScript(f"line {step.line}: {step.args[0]!r} is not a mock reader (mock readers: {mocks})")
            if step.verb in ("press", "hold") and self.app.buttons.factory is None:
                raise BadScript(f"line {step.line}: the buttons are not mocked ([buttons] driver = \"mock\")")

    def play(self, steps: list[Step]) -> None:
        self.check(steps)
        for step in steps:
            self.do(step)

    def do(self, step: Step) -> None:
        if step.verb == "tap":
            self.app.readers.readers[step.args[0]].tap(step.args[1])
            self.passes(self.gap_s * 1.5)  # lifted long enough for the next tap to count
        elif step.verb == "press":
            self._button(step.args[0], PRESS_S)
        elif step.verb == "hold":
            self._button(step.args[0], int(step.args[1]) / 1000)
        else:
            self.passes(int(step.args[0]) / 1000)

    def _button(self, role: str, seconds: float) -> None:
        pin = self.app.buttons.factory.pin(self.app.buttons.pin(role))
        pin.drive_low()
        self.passes(seconds)
        pin.drive_high()
        self.passes(PRESS_S)

    def passes(self, seconds: float) -> None:
        raise NotImplementedError


class RealTime(Hands):
    """Steps at the speed of a table, while the app's loop runs in its own thread. A step ends once
    the drivers' own threads have reported it (a press once its release is debounced, a tap once
    the card's removal is seen): on a machine too busy to run them in time, a tap would otherwise
    overtake the press before it, or meet its reader still taking the last card as resting."""

    def do(self, step: Step) -> None:
        super().do(step)
        if step.verb == "tap":
            reader = self.app.readers.readers[step.args[0]]
            self._until(lambda: reader.present is None)
        elif step.verb in ("press", "hold"):
            self._until(self.app.buttons.settled)

    def passes(self, seconds: float) -> None:
        time.sleep(seconds)

    @staticmethod
    def _until(reported: Callable[[], bool]) -> None:
        deadline = time.monotonic() + REPORTED_S
        while not reported() and time.monotonic() < deadline:
            time.sleep(0.005)


class VirtualClock:
    """A clock that only moves when told: every part of the app reads it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class VirtualTime(Hands):
    """Steps in a fake time: the clock jumps, the readers are polled and the loop runs right here."""

    def __init__(self, app, clock: VirtualClock):
        super().__init__(app)
        self.clock = clock

    def do(self, step: Step) -> None:
        super().do(step)
        self.passes(THINK_S)

    def passes(self, seconds: float) -> None:
        end = self.clock.now + seconds
        while True:
            self.clock.now = min(end, self.clock.now + 0.05)
            self.app.readers.poll_once()
            self.app.buttons.update()
            self.app.loop.drain()
            self.app.loop.idle()
            self.app.display.wait()  # every frame is shown, as at a table's pace
            if self.clock.now >= end:
                return


def run_file(profile, path: str | Path, tags: dict, *, realtime: bool = False, out: TextIO | None = None,
             err: TextIO | None = None) -> int:
    """Play the script at `path` on the app `profile` builds (after importing `tags`), report each
    refused step on `err` as "FILE, line N: refused: why", print the final status on `out`; 0 when done
    (in real time: once stopped)."""
    from . import report
    from .app import App

    out, err = out or sys.stdout, err or sys.stderr
    steps = load(path)
    clock = None if realtime else VirtualClock()
    if clock and profile.display.driver == "terminal" and not out.isatty():
        profile = replace(profile, display=replace(profile.display, driver="dummy"))
    app = App.build(profile, clock=clock or time.monotonic, web=None if realtime else False, tags=tags)
    try:
        hands = RealTime(app) if realtime else VirtualTime(app, clock)
        hands.check(steps)
        table = app.loop.table

        def play() -> None:
            for step in steps:
                before = table.refusals
                hands.do(step)
                if realtime:
                    app.loop.sync()
                if table.refusals > before:
                    print(f"{path}, line {step.line}: refused: {table.refusal}", file=err)

        if realtime:  # the appliance itself, with scripted hands: it serves on until stopped
            threading.Thread(target=play, name="tablemate-script", daemon=True).start()
            app.run()
        else:
            app.loop.start()
            play()
            app.loop.finish()
        session = table.session
        if session is None:
            print(f"{path}: played {len(steps)} steps; no game in progress", file=out)
        else:
            heading = f"{path}: played {len(steps)} steps. {session.game.title} ({session.gid})"
            print(report.standing(session.game, session.state, heading), file=out)
        return 0
    finally:
        app.close()
