"""What every reader back end shares: the event types, presence tracking, and fault tolerance.

A back end implements `_read()` (one poll of the field: a UID, None for an empty field, or
`Unreadable`), `_release()`, when its device needs time to start `_ready(now)` (and `_step_due()`,
when its next step may be taken, so that the group wakes for it between rounds), and when its
first request can go out ahead (so that a group of readers waits once for all) `_begin()`. `poll()` runs
them under the reader's lock, turns the result into arrival/removal events and hands them to the
sink in order. A failing device (an SPI error, a chip that stopped answering, a device that is not
there) is logged once, announced to the sink as a `ReaderStatus`, and tried again after a back-off
that grows from `retry_first` to `retry_max`; a failed poll is no evidence of an empty field, so a
card resting through the fault is still one tap.
"""

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from .presence import PollResult, Presence, Unreadable

log = logging.getLogger(__name__)

KINDS = ("arrived", "removed", "unreadable")


class ReaderError(Exception):
    """A reader cannot be set up at all (a bad spec)."""


class ReaderFault(Exception):
    """A reader does not work now; `short` says it in a few words for the display ("not answering")."""

    def __init__(self, text: str, short: str = "not answering"):
        super().__init__(text)
        self.short = short


@dataclass(frozen=True)
class TagEvent:
    """A tag arrived on or was removed from a reader. `uid` is the real UID in lower-case hex
    (8, 14 or 20 digits); `seat` is the reader's seat, None for a shared reader. Kind "unreadable":
    the field stayed unreadable (two cards, a phone); no `uid`, and `why` says it for the players."""

    reader: str
    uid: str
    kind: str
    seat: int | None
    why: str = ""


@dataclass(frozen=True)
class ReaderStatus:
    """A reader started failing (`problem` says what, `short` in a few words) or works again (both
    None). `number` is its place in the profile, from 1, as the wiring table counts readers."""

    reader: str
    number: int
    problem: str | None = None
    short: str | None = None


Sink = Callable[[TagEvent | ReaderStatus], object]


class Reader:
    """One reader: its name, its seat (None = shared), the arrival/removal logic and the retries."""

    retry_first = 0.2
    retry_max = 5.0

    def __init__(self, name: str, seat: int | None, *, gap: float, sink: Sink, clock: Callable[[], float],
                 number: int = 1):
        self.name = name
        self.seat = seat
        self.number = number
        #: what is wrong with the reader now, None while it works
        self.problem: str | None = None
        self._presence = Presence(gap)
        self._sink = sink
        self._clock = clock
        self._lock = threading.Lock()
        self._retry_at: float | None = None
        self._delay = 0.0
        self._closed = False

    @property
    def present(self) -> str | None:
        """The UID currently on the reader, as far as the arrival/removal rule knows."""
        return self._presence.uid

    @property
    def starting(self) -> bool:
        """True while the device is on its way up (not failing, not polled yet)."""
        return False

    @property
    def due(self) -> float | None:
        """When, on the reader's clock, a poll has something to do before the next round: the retry after a
        fault, or the next step of the device's start-up once its wait ends. None: nothing."""
        if self._closed:
            return None
        return self._retry_at if self._retry_at is not None else self._step_due()

    def begin(self) -> float:
        """Start this poll's first request, where the back end can: the seconds until it is answered
        (0: nothing started). The group begins every reader, sleeps once, then polls each."""
        with self._lock:
            if self._closed:
                return 0.0
            now = self._clock()
            if self._backing_off(now):
                return 0.0
            try:
                return self._begin() if self._ready(now) else 0.0
            except Exception as error:
                self._failed(error, now)
                return 0.0

    def poll(self) -> None:
        """Read the field once and emit what changed (called by the group's thread or a test)."""
        with self._lock:
            if self._closed:
                return
            now = self._clock()
            if self._backing_off(now):
                return
            try:
                if not self._ready(now):
                    return
                result = self._read()
            except Exception as error:  # a broken reader must not stop the others, nor the game
                self._failed(error, now)
                return
            if self.problem is not None:
                log.warning("reader %d (%s) works again", self.number, self.name)
                self.problem = None
                self._sink(ReaderStatus(self.name, self.number))
            self._emit(result, now)

    def close(self) -> None:
        """Release the device (idempotent). Only this reader's own resources are released."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._release()

    def _backing_off(self, now: float) -> bool:
        """True while the back-off after a fault runs; once it has run out, the retry is on."""
        if self._retry_at is not None and now < self._retry_at:
            return True
        self._retry_at = None
        return False

    def _emit(self, result: PollResult, now: float) -> None:
        for kind, said in self._presence.update(result, now):
            if kind == "unreadable" and isinstance(result, Unreadable):  # only an unreadable poll says it
                log.info("reader %d (%s): %s (%s)", self.number, self.name, said, result.reason)
                self._sink(TagEvent(self.name, "", kind, self.seat, why=said))
            else:
                self._sink(TagEvent(self.name, said, kind, self.seat))

    def _failed(self, error: Exception, now: float) -> None:
        self._presence.interrupted()
        text = str(error) if isinstance(error, ReaderFault) else f"{type(error).__name__}: {error}"
        short = error.short if isinstance(error, ReaderFault) else "not answering"
        self._delay = self.retry_first if self.problem is None else min(self.retry_max, 2 * self._delay)
        self._retry_at = now + self._delay
        if text != self.problem:
            log.warning("reader %d (%s): %s; retrying, at most every %g s", self.number, self.name, text,
                        self.retry_max)
            self.problem = text
            self._sink(ReaderStatus(self.name, self.number, text, short))

    def _ready(self, now: float) -> bool:
        """Bring the device up, a step per poll; True once it can be read."""
        return True

    def _step_due(self) -> float | None:
        """When the next step of the device's start-up may be taken (None: no step is waiting)."""
        return None

    def _begin(self) -> float:
        """Send the first request of a poll ahead of `_read()`; the seconds its answer takes."""
        return 0.0

    def _read(self) -> PollResult:
        raise NotImplementedError

    def _release(self) -> None:
        """Free the back end's device."""
