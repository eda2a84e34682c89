"""The display's own thread: the loop hands frames over and never waits on the wire.

    screen = DisplayThread(open_display(spec), care=Care(...))
    screen.show(frame)        # returns at once; a frame not yet sent is replaced (latest wins)
    screen.set_level("dim")   # likewise: only the last level asked for is applied
    screen.touch()            # an input: an idle-dimmed panel lights up again (care)
    screen.tick()             # let time pass: idle dimming and pixel shift (care), the display's
                              # periodic refresh and its retry after a fault
    screen.alive()            # False when the thread died or one transfer has taken over STALL_S
    screen.close(blank=False) # sends what is still pending, then releases the display

An I2C frame takes tens of milliseconds on the wire, and a failing bus is retried inside `Display`:
on the loop's thread either would delay reading taps and journaling. Here the loop only stores the
wanted state (frame, level) and wakes the thread, which brings the display there. A frame superseded
before the thread took it is dropped, never shown late. The thread is a daemon: a transfer stuck in
the kernel cannot hold the process at exit, and `alive()` going False lets the watchdog restart it.
"""

import logging
import threading
import time
from collections.abc import Callable

from PIL import Image

from .base import LEVELS, SIZE, Display
from .care import Care, shifted

log = logging.getLogger(__name__)

#: one transfer taking longer than this means the display thread is stuck (a frame takes < 0.1 s)
STALL_S = 10.0
#: how long close() waits for the last frame to go out
CLOSE_WAIT_S = 5.0


class DisplayThread:
    """A `Display` driven from its own thread; the same calls as a `Display`, none of them blocking."""

    size = SIZE

    def __init__(self, display: Display, *, care: Care | None = None, clock: Callable[[], float] = time.monotonic,
                 stall_s: float = STALL_S, name: str = "tablemate-display"):
        self.display = display
        self.care = care
        self.image: Image.Image | None = display.image  # the last frame handed over, as drawn
        self.level = display.level
        self.offset = (0, 0)
        self.shown = 0  # frames handed to the display
        self.dropped = 0  # frames replaced before the thread took them
        self._clock = clock
        self._stall_s = stall_s
        self._frame: Image.Image | None = None
        self._tick = False
        self._busy_since: float | None = None
        self._stopping = False
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)

    @property
    def error(self) -> str | None:
        return self.display.error

    @property
    def failed(self) -> bool:
        return self.display.failed

    def start(self) -> None:
        self._thread.start()

    # -- the loop's side ---------------------------------------------------------------------------
    def show(self, image: Image.Image) -> None:
        """Hand over a frame (checked here, so a wrong one fails in the caller, not the thread)."""
        if image.mode != "1" or image.size != SIZE:
            raise ValueError(f"a frame must be a {SIZE[0]}x{SIZE[1]} mode '1' image, not {image.size} mode {image.mode!r}")
        with self._changed:
            if self._frame is not None:
                self.dropped += 1
            self.image = self._frame = image.copy()
            self._changed.notify_all()

    def set_level(self, level: str) -> None:
        if level not in LEVELS:
            raise ValueError(f"display level {level!r}: choose one of {', '.join(LEVELS)}")
        with self._changed:
            self.level = level
            self._changed.notify_all()

    def touch(self) -> None:
        """Someone used the table: with care, the panel lights up again and its idle time restarts."""
        if self.care is not None:
            self.care.touch()
            self.set_level(self.care.level())

    def tick(self) -> None:
        """Time passed: follow care's level and pixel shift (the frame is sent again when it moves),
        and let the display refresh or retry."""
        with self._changed:
            if self.care is not None:
                self.level = self.care.level()
                offset = self.care.offset()
                if offset != self.offset and self.image is not None:
                    self._frame = self.image
                self.offset = offset
            self._tick = True
            self._changed.notify_all()

    def alive(self) -> bool:
        """The thread runs and is not stuck in one transfer (for the loop's watchdog)."""
        with self._changed:
            busy_since = self._busy_since
        stuck = busy_since is not None and self._clock() - busy_since > self._stall_s
        return self._thread.is_alive() and not stuck

    def wait(self, timeout: float | None = None) -> bool:
        """Block until everything handed over has been done; False on timeout (or a dead thread)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._changed:
            while self._pending() or self._busy_since is not None:
                if not self._thread.is_alive():
                    return False
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._changed.wait(0.5 if left is None else min(left, 0.5))
            return True

    def close(self, blank: bool = False) -> None:
        """Send what is pending, stop the thread and release the display (idempotent). A thread
        stuck on the wire is left behind (a daemon) and the display is not touched under it."""
        if not self._thread.is_alive():
            if not self._stopping:
                self._stopping = True
                self._apply()  # never started: do the pending work here
            self.display.close(blank)
            return
        self.wait(CLOSE_WAIT_S)
        with self._changed:
            self._stopping = True
            self._changed.notify_all()
        self._thread.join(CLOSE_WAIT_S)
        if self._thread.is_alive():
            log.warning("display thread stuck on the wire: the display is left as it is")
            return
        self.display.close(blank)

    # -- the thread --------------------------------------------------------------------------------
    def _pending(self) -> bool:
        return self._frame is not None or self._tick or self.level != self.display.level

    def _run(self) -> None:
        while True:
            with self._changed:
                while not self._pending() and not self._stopping:
                    self._changed.wait()
                if self._stopping and not self._pending():
                    return
            self._apply()

    def _apply(self) -> None:
        """Bring the display to the wanted state: the newest frame first, then the level (waking
        up, the panel lights with the new frame already in it), then let time pass for it."""
        with self._changed:
            frame, self._frame = self._frame, None
            level, offset, tick, self._tick = self.level, self.offset, self._tick, False
            self._busy_since = self._clock()
        try:
            if frame is not None:
                self.display.show(shifted(frame, offset))
                self.shown += 1
            if level != self.display.level:
                self.display.set_level(level)
            if tick:
                self.display.tick()
        except Exception:  # a bug here must not end the thread: log it, keep serving frames
            log.exception("display thread: sending to the display failed")
        finally:
            with self._changed:
                self._busy_since = None
                self._changed.notify_all()
