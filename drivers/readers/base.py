"""What every reader back end shares: the event type, presence tracking, and fault tolerance.

A back end implements `_read()` (one poll of the field: a UID, None for an empty field, or
`Unreadable`) and `_release()`. `poll()` runs `_read()` under the reader's lock, turns the result into
arrival/removal events and hands them to the sink in order. A failing device (an SPI error, a chip
that stopped answering) is logged once, reported by `problem`, and tried again every `retry_after`
seconds; the card state is kept, so a card resting through a glitch is still one tap.
"""

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from .presence import PollResult, Presence

log = logging.getLogger(__name__)

KINDS = ("arrived", "removed")


class ReaderError(Exception):
    """A reader cannot be set up at all (a missing library, a bad spec)."""


@dataclass(frozen=True)
class TagEvent:
    """A tag arrived on or was removed from a reader. `uid` is the real UID in lower-case hex
    (8, 14 or 20 digits); `seat` is the reader's seat, None for a shared reader."""

    reader: str
    uid: str
    kind: str
    seat: int | None


Sink = Callable[[TagEvent], object]


class Reader:
    """One reader: its name, its seat (None = shared) and the arrival/removal logic."""

    retry_after = 5.0

    def __init__(self, name: str, seat: int | None, *, gap: float, sink: Sink, clock: Callable[[], float]):
        self.name = name
        self.seat = seat
        self.problem: str | None = None
        self._presence = Presence(gap)
        self._sink = sink
        self._clock = clock
        self._lock = threading.Lock()
        self._failed_at: float | None = None
        self._closed = False

    @property
    def present(self) -> str | None:
        """The UID currently on the reader, as far as the arrival/removal rule knows."""
        return self._presence.uid

    def poll(self) -> None:
        """Read the field once and emit what changed (called by the group's thread or a test)."""
        with self._lock:
            if self._closed:
                return
            now = self._clock()
            if self._failed_at is not None and now - self._failed_at < self.retry_after:
                return
            try:
                result = self._read()
            except Exception as error:  # a broken reader must not stop the others, nor the game
                self._failed(error, now)
                return
            if self._failed_at is not None:
                log.warning("reader %s works again", self.name)
                self._failed_at = None
                self.problem = None
            self._emit(result, now)

    def close(self) -> None:
        """Release the device (idempotent). Only this reader's own resources are released."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._release()

    def _emit(self, result: PollResult, now: float) -> None:
        for kind, uid in self._presence.update(result, now):
            self._sink(TagEvent(self.name, uid, kind, self.seat))

    def _failed(self, error: Exception, now: float) -> None:
        problem = f"{type(error).__name__}: {error}"
        if self._failed_at is None or problem != self.problem:
            log.warning("reader %s failed (%s); retrying every %g s", self.name, problem, self.retry_after)
        self.problem = problem
        self._failed_at = now

    def _read(self) -> PollResult:
        raise NotImplementedError

    def _release(self) -> None:
        """Free the back end's device."""
