"""The display base: one 128x64 one-bit screen that never stops the game when it fails.

A back end implements `_open`, `_show` and `_close`, and a panel also `_level` (contrast and power),
`_stale` (its frame is due to be sent again whole) and `_refresh` (send the next frame whole). The display holds what should be on the screen (the
last frame and the level: lit, dimmed or off) and brings the device there. Every device error (an
I2C `Errno 121`, a vanished SPI device, a full disk for PNG capture) is retried a few times,
re-opening the device in between, and a re-opened device is given the level and the frame again; if
it still fails, the display is disabled with one logged warning and tried again once per
`retry_after` seconds (by `show`, `set_level` or `tick`), so a loose cable that is fixed brings the
screen back. Scoring goes on either way.
"""

import logging
import time
from collections.abc import Callable

from PIL import Image

log = logging.getLogger(__name__)

SIZE = (128, 64)
#: lit as set up, dimmed (a low contrast), or off (the panel dark, its memory kept)
LEVELS = ("on", "dim", "off")


class Display:
    """A 128x64 screen. `show()` never raises for a device failure; `error` says what failed last."""

    size = SIZE

    def __init__(self, name: str, *, attempts: int = 3, retry_after: float = 30.0, retry_delay: float = 0.02,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep):
        self.name = name
        self.image: Image.Image | None = None
        self.level = "on"
        self.error: str | None = None
        self._attempts = attempts
        self._retry_after = retry_after
        self._retry_delay = retry_delay
        self._clock = clock
        self._sleep = sleep
        self._open_now = False
        self._closed = False
        self._disabled_at: float | None = None

    # -- back end hooks --------------------------------------------------------------------------
    def _open(self) -> None:
        """Acquire and initialise the device."""

    def _show(self, image: Image.Image) -> None:
        raise NotImplementedError

    def _close(self, blank: bool) -> None:
        """Release the device, leaving the last image on it unless `blank`."""

    def _level(self, level: str) -> None:
        """Light the device at `level` (one of LEVELS); only panels have levels."""

    def _stale(self) -> bool:
        """True when the device's frame is due to be sent again whole (a panel's periodic refresh)."""
        return False

    def _refresh(self) -> None:
        """Make the next frame go whole (a panel that otherwise sends only what changed)."""

    # -- public ----------------------------------------------------------------------------------
    def open(self) -> None:
        """Open the device now (so a wiring fault is logged at start); failures are tolerated."""
        self._attempt(frame=False)

    def show(self, image: Image.Image) -> None:
        """Put a 128x64 mode "1" image on the screen; a device failure is logged, never raised.

        An image of another size or mode is a programming error and raises ValueError.
        """
        if image.mode != "1" or image.size != SIZE:
            raise ValueError(f"a frame must be a {SIZE[0]}x{SIZE[1]} mode '1' image, not {image.size} mode {image.mode!r}")
        self.image = image.copy()
        if not self._closed:
            self._attempt(frame=True)

    def set_level(self, level: str) -> None:
        """Light the screen, dim it or turn it off (LEVELS); frames shown meanwhile are kept."""
        if level not in LEVELS:
            raise ValueError(f"display level {level!r}: choose one of {', '.join(LEVELS)}")
        if level != self.level:
            self.level = level
            if not self._closed:
                self._attempt(level=True)

    def touch(self) -> None:
        """Someone used the table. A bare display has no idle dimming to end (DisplayThread has)."""

    def tick(self) -> None:
        """Let time pass: send the frame again when the device is due a refresh, or when it failed
        and its retry time has come."""
        if self._closed or self.image is None:
            return
        if self.failed:
            self._attempt(frame=True)
        elif self._open_now and self._stale():
            self._refresh()
            self._attempt(frame=True)

    @property
    def failed(self) -> bool:
        """True while the display is disabled after repeated failures."""
        return self._disabled_at is not None

    def close(self, blank: bool = False) -> None:
        """Release the device (idempotent); `blank` turns the panel off, otherwise the last image stays."""
        if self._closed:
            return
        self._closed = True
        if self._open_now:
            self._open_now = False
            try:
                self._close(blank)
            except Exception as error:  # releasing a broken device must not stop a shutdown
                log.warning("display %s: closing failed: %s", self.name, _describe(error))

    # -- retry logic -----------------------------------------------------------------------------
    def _attempt(self, *, frame: bool = False, level: bool = False) -> None:
        """Send the frame and/or the level to the device, (re)opening it first when needed; a
        freshly opened device gets both, since its set-up cleared and lit it."""
        if self._disabled_at is not None:
            if self._clock() - self._disabled_at < self._retry_after:
                return
            attempts = 1
        else:
            attempts = self._attempts
        last: Exception | None = None
        for attempt in range(attempts):
            if attempt:
                self._sleep(self._retry_delay)
            try:
                if not self._open_now:
                    self._open()
                    self._open_now = True
                    frame = level = True
                if level:
                    self._level(self.level)
                if frame and self.image is not None:
                    self._show(self.image)
            except Exception as error:  # any device fault: the table keeps playing without the screen
                last = error
                self._drop()
            else:
                if self._disabled_at is not None:
                    log.warning("display %s works again", self.name)
                self._disabled_at = None
                self.error = None
                return
        self.error = _describe(last)
        if self._disabled_at is None:
            log.warning("display %s failed %d times (%s): carrying on without it, retrying every %g s",
                        self.name, attempts, self.error, self._retry_after)
        self._disabled_at = self._clock()

    def _drop(self) -> None:
        """Forget a failed device so the next attempt re-initialises it."""
        if self._open_now:
            self._open_now = False
            try:
                self._close(False)
            except Exception:  # the device is already broken; its release may fail too
                log.debug("display %s: releasing the failed device failed as well", self.name, exc_info=True)


def _describe(error: BaseException | None) -> str:
    return f"{type(error).__name__}: {error}"
