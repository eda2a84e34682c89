"""The reader group: every reader of the table, polled in turn by one background thread.

Round-robin in one thread keeps the SPI buses simple (one transfer at a time) and the order of
events per reader intact; a round of empty polls costs about 2 ms in all (every RC522's request goes
out, then one wait for every answer), and a reader that fails costs the others nothing (it is retried
with a back-off, its start-up spread over polls). Between rounds the thread wakes for a reader whose
start-up wait or back-off ends sooner than the next round, so a start-up takes the sum of its waits
(about 105 ms for an RC522), not a round for each.
The thread only hands events to the sink (the firmware passes its queue's `put`): it never touches
game state. Each finished round is a heartbeat: `alive()` is false once the thread died or has not
finished a round for `STALL_S`, and the firmware stops pinging systemd's watchdog then.
"""

import logging
import threading
import time
from collections.abc import Callable, Mapping

from .base import Reader

log = logging.getLogger(__name__)

#: a round of polls takes milliseconds; one that has not ended after this long is stuck
STALL_S = 10.0
#: how long `close()` waits for the thread to end its round
JOIN_S = 2.0
#: a reader's step is taken this long after it comes due, so that no rounding makes it early
LATE_S = 1e-4


class ReaderGroup:
    """The readers by name; `start()` polls them every `poll_s` in a thread, `close()` stops and releases."""

    def __init__(self, readers: Mapping[str, Reader], *, poll_s: float, clock: Callable[[], float],
                 sleep: Callable[[float], None] = time.sleep):
        self.readers = dict(readers)
        self._poll_s = poll_s
        self._clock = clock
        self._sleep = sleep
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._closed = False
        self._beat = clock()

    def poll_once(self) -> None:
        """One round: every reader polled once, in profile order, in the caller's thread. Every
        reader's first request goes out first and the round waits once for all their answers."""
        wait = max((reader.begin() for reader in self.readers.values()), default=0.0)
        if wait:
            self._sleep(wait)
        for reader in self.readers.values():
            reader.poll()

    def problems(self) -> dict[str, str]:
        """The readers that are failing now, by name, with what is wrong."""
        return {name: reader.problem for name, reader in self.readers.items() if reader.problem}

    def settle(self, timeout_s: float, sleep: Callable[[float], None] = time.sleep) -> None:
        """Poll as the thread does, in the caller's thread, until every reader works or has failed, for at
        most `timeout_s` of the group's clock: a one-off look at the readers, as the doctor takes."""
        deadline = self._clock() + timeout_s
        self._drive(lambda: self._clock() >= deadline or not any(r.starting for r in self.readers.values()), sleep)

    def run_for(self, seconds: float, sleep: Callable[[float], None] = time.sleep) -> None:
        """Poll as the thread does, in the caller's thread, for `seconds` of the group's clock (with an
        injected clock and sleep: the thread's timing, exactly, for tests and benchmarks)."""
        end = self._clock() + seconds
        self._drive(lambda: self._clock() >= end, sleep)

    def start(self) -> None:
        """Start the polling thread (once)."""
        if self._thread is None and not self._closed:
            self._beat = self._clock()
            self._thread = threading.Thread(target=self._run, name="tablemate-readers", daemon=True)
            self._thread.start()

    def alive(self) -> bool:
        """True while the polling thread runs and finished a round within the last STALL_S."""
        thread = self._thread
        return thread is not None and thread.is_alive() and self._clock() - self._beat < STALL_S

    def close(self) -> None:
        """Stop the thread and release every reader's own device (idempotent; no global GPIO cleanup)."""
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        if self._thread is not None:
            self._thread.join(JOIN_S)
            if self._thread.is_alive():  # stuck in a reader: its lock is held, its device freed at exit
                log.error("the readers' thread is stuck; the readers are left to the end of the process")
                return
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
        while not self._stop.is_set() and not self._round(self._stop.wait):
            pass

    def _drive(self, done: Callable[[], bool], sleep: Callable[[float], None]) -> None:
        """Rounds as the thread runs them, until `done()` (asked before each wait)."""
        def wait(seconds: float) -> bool:
            if done():
                return True
            sleep(seconds)
            return False

        while not self._round(wait):
            pass

    def _round(self, wait: Callable[[float], bool]) -> bool:
        """One round, then the wait until the next (`poll_s` from start to start), in which each reader whose
        start-up step or retry comes due is polled on time. `wait(seconds)` returns True to stop: so does this."""
        started = self._clock()
        self.poll_once()
        self._beat = self._clock()
        next_round, taken = started + self._poll_s, None
        while True:
            due = min((d for d in (reader.due for reader in self.readers.values()) if d is not None),
                      default=next_round)
            if due >= next_round or due == taken:  # taken and still due: a clock that moves only when told to
                return wait(max(0.0, next_round - self._clock()))
            if wait(max(0.0, due + LATE_S - self._clock())):
                return True
            for reader in self.readers.values():
                if reader.due is not None and reader.due <= due:
                    reader.poll()
            taken = due
