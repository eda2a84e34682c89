"""The appliance's main loop: one thread owns the table; the drivers only put events on its queue.

Each event is handled, then the frame is redrawn and shown when it changed. Between events the loop
ticks (flash expiry, store retries) and, under systemd, pings the watchdog from this same thread, so
a stuck loop stops the pings and systemd restarts the service. Worker threads the table depends on
(the readers' poller, the display's sender) are `watch()`ed: while one of them is dead or stuck the
pings stop too, so a silent worker is restarted like a stuck loop. `stop()` may be called from any
thread or a signal handler: the loop then flushes the journal, leaves a last frame and returns.

A side feature that fails (the web view, the screen's font, the store's fallback) is `note()`d: logged
once, added to the STATUS= line, and play goes on. `sync()` waits until every input posted before it
has been handled and shown (the simulator answers a click once its effect is on screen).
"""

import logging
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any, Callable

from drivers.buttons import ButtonEvent
from drivers.readers import ReaderStatus, TagEvent

from .journal.refusal import UNREACHABLE
from .journal import Writer
from .sdnotify import Notifier
from .screens import Screen
from .table import Table
from .views import MessageView

log = logging.getLogger(__name__)

#: how long a stop keeps trying to write what waits for Redis (the unit's TimeoutStopSec is 20 s)
STOP_FLUSH_S = 5.0
STOP_RETRY_S = 0.2
#: how long READY=1 waits for the display thread to put the first frame on the panel
READY_WAIT_S = 1.0


@dataclass(frozen=True)
class PartStatus:
    """A side part of the table (the club uplink) is in `trouble` (a short line for the screen and
    STATUS=), or well again (None); posted from the part's own thread."""

    part: str
    trouble: str | None


@dataclass(frozen=True)
class Stop:
    """Ends the loop (posted by stop())."""


@dataclass(frozen=True)
class Sync:
    """Set once every event queued before it is handled (posted by sync())."""

    done: threading.Event


@dataclass(frozen=True)
class Call:
    """Runs `fn` on the loop's thread and keeps what it returned or raised (posted by call())."""

    fn: Callable[[], Any]
    done: threading.Event
    outcome: list

    def run(self) -> None:
        try:
            self.outcome.append((True, self.fn()))
        except Exception as error:
            self.outcome.append((False, error))
        self.done.set()


@dataclass(frozen=True)
class Note:
    """A side feature's problem (empty text: it is well again), posted by note()."""

    name: str
    text: str


class Loop:
    def __init__(self, table: Table, display: Any, screen: Screen | None = None, *, notifier: Notifier | None = None,
                 tick_s: float = 0.1, clock: Callable[[], float] = time.monotonic, on_stop: str = "paused",
                 durable: bool = True):
        self.table = table
        self.display = display
        self.screen = screen or Screen()
        self.notifier = notifier or Notifier("")
        self.tick_s = tick_s
        self.clock = clock
        self.on_stop = on_stop
        #: whether the store outlives this process (a memory:// store does not: no "Game kept")
        self.durable = durable
        #: side features that failed: name -> what is wrong (shown on the STATUS= line)
        self.notes: dict[str, str] = {}
        if self.screen.problem:
            self.notes["font"] = self.screen.problem
        self.events: queue.Queue = queue.Queue()
        self._last_frame: bytes | None = None
        self._last_ping = float("-inf")
        self._status: str | None = None
        self.frames = 0
        self.ready = False
        self._watched: dict[str, Callable[[], bool]] = {}
        self._unwell: frozenset[str] = frozenset()
        #: the thread running the loop (None: none yet, the events are drained by whoever calls)
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()

    # -- called from other threads ---------------------------------------------------------------

    def post(self, event: Any) -> None:
        """The drivers' sink: hand an event to the loop thread."""
        self.events.put(event)

    def stop(self) -> None:
        self.events.put(Stop())

    def sync(self, timeout: float = 5.0) -> bool:
        """Wait until every event posted before this call has been handled and shown (False on timeout)."""
        done = threading.Event()
        self.events.put(Sync(done))
        return done.wait(timeout)

    def wait_ready(self, timeout: float | None = None) -> bool:
        """Wait until the table is ready (the recovered game or the game choice on its screen, READY=1):
        a script plays then, as players wait for the screen; False on timeout."""
        return self._ready.wait(timeout)

    def call(self, fn: Callable[[], Any], timeout: float = 10.0) -> Any:
        """fn() run on the loop's thread between two events, since the table is the loop's alone (the
        simulator and the console ask it what it would take); its result, or what it raised. From the
        loop's own thread, or while no thread runs the loop, fn() runs at once. TimeoutError when the
        loop does not get to it in `timeout` seconds."""
        thread = self._thread
        if thread is None or thread is threading.current_thread() or not thread.is_alive():
            return fn()
        call = Call(fn, threading.Event(), [])
        self.events.put(call)
        if not call.done.wait(timeout):
            raise TimeoutError(f"the table's loop did not answer within {timeout:g} s")
        ok, value = call.outcome[0]
        if not ok:
            raise value
        return value

    def note(self, name: str, text: str) -> None:
        """A side feature `name` failed (`text` says how; "" when it works again): logged and shown on
        STATUS=, and the table plays on. Safe from any thread."""
        self.events.put(Note(name, text))

    def watch(self, name: str, alive: Callable[[], bool]) -> None:
        """Ping the watchdog only while `alive()` is true: `name` is a worker thread (readers,
        display) whose death or stall must restart the service like a stuck loop would."""
        self._watched[name] = alive

    # -- the loop thread -------------------------------------------------------------------------

    def start(self) -> None:
        """Recover the game and show it; tell systemd the table is ready once it is on screen."""
        self.table.boot()
        self.show()
        self._shown()
        self._tell_ready()

    def run(self) -> None:
        self._thread = threading.current_thread()
        if isinstance(self.table.journal, Writer):
            self.table.journal.start()  # the durable writes on their own thread from now on
        self.start()
        while self.step(self.tick_s):
            pass
        self._thread = None
        self.finish()

    def step(self, timeout: float) -> bool:
        """Handle one event, or tick after `timeout` seconds without one; False once stopped."""
        try:
            event = self.events.get(timeout=timeout)
        except queue.Empty:
            self.idle()
            return True
        going_on = self._take(event)
        self._ping()
        return going_on

    def idle(self) -> None:
        """No input: let time pass for the table (flashes, store retries) and for the display (idle
        dimming, pixel shift, refresh), and ping the watchdog."""
        if self.table.tick():
            self.show()
            self._shown()
            self._tell_ready()
        self.display.tick()
        self._ping()

    def drain(self) -> bool:
        """Handle every event already queued, without waiting (scripts in virtual time, tests);
        False when a Stop was among them."""
        while True:
            try:
                event = self.events.get_nowait()
            except queue.Empty:
                return True
            if not self._take(event):
                return False

    def _take(self, event: Any) -> bool:
        """Handle one queued event; False for the Stop that ends the loop."""
        if isinstance(event, Stop):
            return False
        if isinstance(event, Sync):
            event.done.set()
        elif isinstance(event, Call):
            event.run()
        elif isinstance(event, Note):
            self._note(event)
        else:
            self.handle(event)
        return True

    def _note(self, note: Note) -> None:
        if note.text:
            log.warning("%s: %s; the table plays on", note.name, note.text)
            self.notes[note.name] = note.text
        elif self.notes.pop(note.name, None) is not None:
            log.warning("%s works again", note.name)
        self._report()

    def handle(self, event: Any) -> None:
        """One input; it also wakes an idle-dimmed display, and is taken as usual."""
        if isinstance(event, TagEvent):
            if event.kind == "removed":
                return
            self.display.touch()
            if event.kind == "unreadable":
                self.table.unreadable(event.why)
            else:
                self.table.tag(event.uid, event.seat)
        elif isinstance(event, ButtonEvent):
            self.display.touch()
            if event.kind == "press":
                self.table.press(event.role, event.seat)
            elif event.kind == "hold":
                self.table.hold(event.role, event.seat)
            elif event.kind == "turn":
                self.table.turn(event.steps)
        elif isinstance(event, ReaderStatus):
            self.table.hardware(event.reader, f"Reader {event.number}: {event.short}" if event.problem else None)
        elif isinstance(event, PartStatus):
            self.table.hardware(event.part, event.trouble)
        else:
            log.warning("ignored an unknown event: %r", event)
            return
        self.show()
        self._shown()
        self._report()

    def show(self) -> None:
        """Draw the table's view; send it to the display only when the frame changed."""
        frame = self.screen.render(self.table.view())
        data = frame.tobytes()
        if data != self._last_frame:
            self._last_frame = data
            self.display.show(frame)
            self.frames += 1

    def _shown(self) -> None:
        """The frame is out: the journal's writer notes what it shows, and may take the CPU now."""
        if isinstance(self.table.journal, Writer):
            self.table.journal.send()

    def finish(self, wait_s: float = STOP_FLUSH_S) -> None:
        """Flush the journal (retrying for `wait_s` while Redis does not answer) and leave a last
        frame: "paused", dimmed, saying so when actions could not be saved; or a blank panel."""
        self.notifier.stopping("Stopping")
        journal = self.table.journal
        deadline = time.monotonic() + wait_s
        while not journal.flush() and time.monotonic() < deadline:
            time.sleep(STOP_RETRY_S)
        unsaved, kept = journal.pending, journal.kept
        if unsaved:
            log.warning("stopping with %d journal entries not yet in Redis: %s", unsaved,
                        f"kept in {kept}, written at the next start" if kept else "they are lost")
        journal.release()
        if self.on_stop == "paused":
            why = "Redis did not answer" if journal.trouble in (None, UNREACHABLE) else journal.trouble.short
            if not unsaved:
                lines = ("tablemate stopped", "Game kept" if self.durable else "Memory store: not kept")
            elif kept:
                lines = (f"{unsaved} action(s) kept here", "Saved at next start")
            else:
                lines = (f"{unsaved} action(s) NOT saved", why)
            self.display.show(self.screen.render(MessageView("Paused", lines)))
            self.display.set_level("dim")

    def _tell_ready(self) -> None:
        """READY=1 once, when the recovered game (or the game choice) is on the screen: the display
        thread is given up to READY_WAIT_S to send it (a dead bus delays READY by that, no more)."""
        if not self.ready and not self.table.waiting:
            wait = getattr(self.display, "wait", None)
            if wait is not None:
                wait(READY_WAIT_S)
            self.ready = True
            self._ready.set()
            self._status = self.status()
            self.notifier.ready(self._status)
        else:
            self._report()

    def _report(self) -> None:
        """STATUS= whenever what the table is doing changed (a game chosen, an action, an outage),
        so `systemctl status` follows the game; one datagram per change, none per idle tick."""
        status = self.status()
        if status != self._status:
            self._status = status
            self.notifier.status(status)

    def status(self) -> str:
        """A STATUS= line for systemd: what the table is doing, what hardware is in trouble, then any
        side feature that failed."""
        notice = self.table.notice
        notes = "".join(f"; {name}: {text}" for name, text in sorted(self.notes.items()))
        return self._activity() + (f"; {notice}" if notice else "") + notes

    def _activity(self) -> str:
        table = self.table
        if table.waiting:
            return "Waiting for Redis" if table.waiting == UNREACHABLE else f"Waiting for Redis: {table.waiting.detail}"
        if table.halted:
            return f"Halted: {table.halted}" + (f"; repair: {table.repair}" if table.repair else "")
        journal = table.journal
        store = f"; {journal.trouble.detail}, {journal.pending} waiting" if journal.trouble else ""
        store += f"; {table.store_notice}" if table.store_notice else ""
        if table.session is None:
            return "Choosing a game" + store
        game = table.session.game
        entries = table.session.entries
        return f"{game.title}: {game.phase(table.session.state)}, {entries} entr{'y' if entries == 1 else 'ies'}{store}"

    def unwell(self) -> frozenset[str]:
        """The watched workers that are dead or stuck now (logged once when the set changes)."""
        unwell = frozenset(name for name, alive in self._watched.items() if not alive())
        if unwell != self._unwell:
            self._unwell = unwell
            if unwell:
                log.error("no watchdog ping while these threads are dead or stuck: %s", ", ".join(sorted(unwell)))
            else:
                log.warning("every watched thread answers again")
        return unwell

    def _ping(self) -> None:
        interval = self.notifier.watchdog_interval
        if interval is not None and self.clock() - self._last_ping >= interval and not self.unwell():
            self._last_ping = self.clock()
            self.notifier.watchdog()
