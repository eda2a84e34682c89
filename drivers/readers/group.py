"""The reader group: every reader of the table, polled in turn by one background thread.

Round-robin in one thread keeps the SPI buses simple (one transfer at a time) and the order of
events per reader intact; a round of empty polls costs a few milliseconds per RC522. The thread only
hands events to the sink (the firmware passes its queue's `put`): it never touches game state.
"""

import logging
import threading
from collections.abc import Callable, Mapping

from .base import Reader

log = logging.getLogger(__name__)


class ReaderGroup:
    """The readers by name; `start()` polls them every `poll_s` in a thread, `close()` stops and releases."""

    def __init__(self, readers: Mapping[str, Reader], *, poll_s: float, clock: Callable[[], float]):
        self.readers = dict(readers)
        self._poll_s = poll_s
        self._clock = clock
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False

    def poll_once(self) -> None:
        """One round: every reader polled once, in profile order, in the caller's thread."""
        for reader in self.readers.values():
            reader.poll()

    def problems(self) -> dict[str, str]:
        """The readers that are failing now, by name, with what is wrong."""
        return {name: reader.problem for name, reader in self.readers.items() if reader.problem}

    def start(self) -> None:
        """Start the polling thread (once)."""
        if self._thread is None and not self._closed:
            self._thread = threading.Thread(target=self._run, name="tablemate-readers", daemon=True)
            self._thread.start()

    def close(self) -> None:
        """Stop the thread and release every reader's own device (idempotent; no global GPIO cleanup)."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        for reader in self.readers.values():
            try:
                reader.close()
            except Exception as error:  # releasing one reader must not keep the others held
                log.warning("reader %s: closing failed: %s", reader.name, error)

    def __enter__(self) -> "ReaderGroup":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            started = self._clock()
            self.poll_once()
            self._stop.wait(max(0.0, self._poll_s - (self._clock() - started)))
