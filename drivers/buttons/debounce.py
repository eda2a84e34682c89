"""One push button's debouncing and press/hold decision, on an injected clock.

A raw level counts only once it has been stable for `bounce` seconds (contacts chatter for a few
milliseconds; gpiozero's mock pins ignore bounce_time, so this layer does it, testably). Then:
- released before `hold` seconds: one "press", reported at the release;
- held for `hold` seconds: one "hold", reported as soon as the time is reached (or late, at the
  release, if nothing looked in between), and no "press" at the release.
So holding undo can open a menu without also undoing. `step(now)` is a pure function of the edges
seen and the time: calling it more often never changes what is reported.
"""


class Debouncer:
    """The state of one button. Feed raw edges with `edge`, advance time with `step`."""

    def __init__(self, *, bounce: float, hold: float, pressed: bool, now: float):
        self.bounce = bounce
        self.hold = hold
        self._raw = pressed
        self._raw_at = now
        self.pressed = pressed
        self._pressed_at = now
        self._held = pressed  # a button already down at start reports nothing until pressed again

    def edge(self, pressed: bool, now: float) -> list[str]:
        """A raw level change that happened at `now`; returns what is due (see `step`).

        The old level is judged first: if it had been stable for `bounce` until now, it counted. An
        edge is never earlier than the one before it (its time may come from another clock: the
        kernel's timestamp of the edge).
        """
        now = max(now, self._raw_at)
        events = self.step(now)
        if pressed != self._raw:
            self._raw, self._raw_at = pressed, now
            events += self.step(now)
        return events

    def step(self, now: float) -> list[str]:
        """The events ("press" / "hold") due at `now`."""
        events = []
        settled = now - self._raw_at >= self.bounce
        if self._raw and not self.pressed and settled:
            self.pressed, self._pressed_at, self._held = True, self._raw_at, False
        if self.pressed and not self._held:
            held_until = self._raw_at if not self._raw else now
            if held_until - self._pressed_at >= self.hold:
                self._held = True
                events.append("hold")
        if not self._raw and self.pressed and settled:
            self.pressed = False
            if not self._held:
                events.append("press")
        return events

    @property
    def busy(self) -> bool:
        """True while something may become due with time alone (settling, or waiting for a hold)."""
        return self._raw != self.pressed or (self.pressed and not self._held)
