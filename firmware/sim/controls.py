"""The simulator's hands: clicks on the page become taps on the app's mock readers, levels on its
gpiozero MockFactory pins and encoder steps, exactly as `tablemate run --script` and the tests drive
them, so everything behind the drivers runs as on the Pi.

Each input returns once its effect is on screen (`Loop.sync`), so the page shows the frame an input
made, and inputs from one page are taken in the order they were made (a lock).
"""

import threading
import time

from drivers.buttons import ROLES, TICK
from drivers.readers import MockReader, normalise_uid



class Refused(ValueError):
    """An input the simulator's hardware cannot make (no such reader, button or UID)."""


class Controls:
    def __init__(self, app):
        self.app = app
        self.lock = threading.Lock()
        self.inputs = 0
        self._down: dict[str, float] = {}
        factory = app.buttons.factory
        self._pins = {role: factory.pin(app.buttons.pin(role)) for role in ROLES if role in app.profile.buttons.pins}
        encoder = app.profile.buttons.encoder
        self._encoder = (factory.pin(encoder[0]), factory.pin(encoder[1])) if encoder else None
        #: a level counts once stable for bounce_ms; the buttons' timing thread looks every TICK
        self._settle_s = 2 * app.profile.buttons.bounce_ms / 1000 + 2 * TICK

    @property
    def readers(self) -> dict[str, MockReader]:
        return {name: r for name, r in self.app.readers.readers.items() if isinstance(r, MockReader)}

    @property
    def buttons(self) -> list[str]:
        return list(self._pins)

    @property
    def encoder(self) -> bool:
        return self._encoder is not None

    def tap(self, reader: str, uid: str) -> None:
        """A card placed on `reader` and lifted again."""
        mock = self.readers.get(reader)
        if mock is None:
            raise Refused(f"no reader {reader!r}; the readers are {', '.join(self.readers)}")
        try:
            uid = normalise_uid(uid)
        except ValueError as error:
            raise Refused(str(error)) from None
        with self.lock:
            mock.tap(uid)
            self._done()

    def button(self, role: str, down: bool) -> None:
        """A button pressed (`down`) or released: the release comes at least two debounce times after
        the press, so the quickest click is still a press; held long enough, it is a hold."""
        pin = self._pins.get(role)
        if pin is None:
            raise Refused(f"no button {role!r}; the buttons are {', '.join(self._pins)}")
        with self.lock:
            if down:
                if role not in self._down:
                    self._down[role] = time.monotonic()
                    pin.drive_low()
                return
            pressed = self._down.pop(role, None)
            if pressed is None:
                return
            time.sleep(max(0.0, pressed + self._settle_s - time.monotonic()))
            pin.drive_high()
            self.app.buttons.reported()  # the release settles into the press, however late the buttons' thread runs
            self._done()

    def turn(self, steps: int) -> None:
        """The encoder turned `steps` detents (negative: counter-clockwise), in gray code on A and B."""
        if self._encoder is None:
            raise Refused("this table has no encoder ([encoder] in the profile)")
        a, b = self._encoder if steps > 0 else reversed(self._encoder)
        with self.lock:
            for _ in range(min(abs(steps), 10)):
                a.drive_low()
                b.drive_low()
                a.drive_high()
                b.drive_high()
            self._done()

    def _done(self) -> None:
        self.app.loop.sync()
        self.inputs += 1
