"""The journal's writes on a thread of their own, so that a tap's frame never waits for the disk
(the package docstring, "Saved, and not yet", says why and what is kept).

The table calls a Writer as it would call the Journal. A write (begin_game, append, set_status) is
handed over; the loop draws the frame, and only then (`send()`) are the entries it shows noted in
the record of what was shown (shown.py: one write() for the frame's) and the writer thread let
run, so neither that system call nor the writer takes the CPU from a frame.
The writer thread takes every write that queued up meanwhile, applies them to the Journal in order
(its memory, the local copy's records appended), then makes them durable together: one fdatasync
of the local copy, then one Redis transaction per game (the entries of several actions in one
XADD run). Every other call the table makes (claim, reconcile, adopt, flush...) runs on the writer
thread too and is waited for: the Journal is only ever used by one thread. Reads (load, current,
games...) go to Redis from the caller's thread: redis-py's pool gives each thread its connection.

A write is saved once it is on the disk: in the local copy (synced), or in Redis (acknowledged, with
appendfsync always). `trouble` reports "Not saved yet" (the "!" badge and its line) while a write
has waited longer than SAVE_MARK_S, and stops once it is saved.

Not started (virtual-time scripts and tests, the CLI), a Writer makes each write at once, on the
caller's thread, as the Journal alone does.
"""

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

from .core import Journal
from .records import CorruptJournal, NoSuchGame, Replacing
from .refusal import STORE_ERRORS, Refused, Trouble
from .shown import Shown

log = logging.getLogger(__name__)

#: a write still not on the disk this long after its frame was shown is marked on the screen
SAVE_MARK_S = 0.5
#: the record of what was shown is started again once this large and every write in it is saved
SHOWN_MAX_BYTES = 64 * 1024


@dataclass(eq=False)
class _Post:
    """A call handed to the writer thread: a write to make durable, the table's tick, or another."""

    call: Callable[[Journal], Any]
    kind: str
    at: float
    seq: int = 0
    done: threading.Event | None = None
    result: Any = None
    error: BaseException | None = None


@dataclass
class _State:
    """What the writer thread last reported, read by the loop thread."""

    saved: int = 0
    run: int = 0
    inbox: list = field(default_factory=list)


class Writer:
    """One table's Journal, written on the writer thread; see the module docstring."""

    def __init__(self, journal: Journal, clock: Callable[[], float] = time.monotonic):
        self.journal = journal
        self.clock = clock
        #: what the table should tell once (the Journal's notices, handed over by tick())
        self.notices: list[tuple[tuple[str, ...], str]] = []
        local = journal.local
        self.shown = Shown(local.directory, journal.table) if local is not None else None
        journal.deferred = True
        if local is not None:
            local.deferred = True
        self._lock = threading.Condition()
        self._posts: deque[_Post] = deque()
        self._unsaved: deque[tuple[int, float]] = deque()  # (seq, when shown) of writes not yet saved
        self._seq = 0
        #: entries handed over and not yet noted as shown (the loop thread's): noted once their frame
        #: is out (send), or before any other call lets the writer thread take them
        self._notes: list[tuple[str, int, list[dict | None]]] = []
        self._state = _State()
        self._thread: threading.Thread | None = None
        self._closing = False
        self._seen: tuple = ()

    def __getattr__(self, name: str) -> Any:
        """The Journal's reads and names (load, current, games, lengths, client, key, local...)."""
        return getattr(self.journal, name)

    # -- the thread ------------------------------------------------------------------------------

    def start(self) -> None:
        """Make the writes on the writer thread from now on (the appliance's loop)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name="tablemate-journal", daemon=True)
            self._thread.start()

    def send(self) -> None:
        """The frame is shown: note the entries it shows, and let the writer thread take what was
        handed over."""
        self._note_shown()
        with self._lock:
            self._lock.notify()

    def _note_shown(self) -> None:
        if self._notes:
            self.shown.note(self._notes)
            self._notes.clear()

    def wait(self, timeout: float | None = None) -> bool:
        """Until every call handed over so far has been made (False on timeout)."""
        return self._call(lambda journal: None, timeout) is not _TIMEOUT

    def close(self) -> None:
        """Stop the writer thread once what waits has been tried, and close the local copy."""
        if self._thread is not None:
            with self._lock:
                self._closing = True
                self._lock.notify()
            self._thread.join()
            self._thread = None
        self.journal.close()
        if self.shown is not None:
            self.shown.close()

    def alive(self) -> bool:
        """The writer thread runs (or was never started): watched like the display's."""
        return self._thread is None or self._thread.is_alive()

    def _serve(self) -> None:
        while True:
            with self._lock:
                while not self._posts and not self._closing:
                    self._lock.wait()
                if not self._posts:
                    return
                batch = list(self._posts)
                self._posts.clear()
            self._run(batch)

    def _run(self, batch: list[_Post]) -> None:
        """Apply every call of `batch` in order, then make its writes durable together."""
        journal = self.journal
        for post in batch:
            try:
                post.result = post.call(journal)
            except Exception as error:  # handed back to a waiting caller, else logged
                post.error = error
                if post.done is None:
                    log.exception("a journal write failed on the writer thread")
        if any(post.kind == "write" for post in batch):
            journal.save()
        saved = journal.synced or not journal.pending
        with self._lock:
            last = batch[-1].seq
            self._state.run = last
            if saved:
                self._state.saved = last
            self._state.inbox += journal.notices
            journal.notices.clear()
        for post in batch:
            if post.done is not None:
                post.done.set()

    def _post(self, call: Callable[[Journal], Any], kind: str = "call", wait: bool = False,
              timeout: float | None = None) -> Any:
        post = _Post(call, kind, self.clock(), done=threading.Event() if wait else None)
        if kind != "write":  # the writer thread takes every write handed over: each noted first
            self._note_shown()
        with self._lock:
            if kind == "tick" and any(queued.kind == "tick" for queued in self._posts):
                return None  # the writer thread has not yet taken the last one
            self._seq += 1
            post.seq = self._seq
            if kind == "write":
                self._unsaved.append((post.seq, post.at))
            if self._thread is not None:
                self._posts.append(post)
                if kind != "write":  # a write waits for send(), once its frame is shown
                    self._lock.notify()
        if self._thread is None:
            self._run([post])
        elif wait and not post.done.wait(timeout):
            return _TIMEOUT
        if post.error is not None:
            raise post.error
        self._take_notices()
        return post.result

    def _call(self, call: Callable[[Journal], Any], timeout: float | None = None) -> Any:
        """`call(journal)` on the writer thread, after everything handed over before it; its result."""
        return self._post(call, wait=True, timeout=timeout)

    def _take_notices(self) -> None:
        with self._lock:
            self.notices += self._state.inbox
            self._state.inbox.clear()

    # -- the writes (the loop thread) ------------------------------------------------------------

    def begin_game(self, gid: str, game: str, players: list[str], options: dict, hints: bool = True,
                   cards: list[str | None] | None = None) -> None:
        self._post(lambda journal: journal.begin_game(gid, game, players, options, hints, cards), "write")

    def append(self, gid: str, number: int, *actions: dict | Replacing | None) -> None:
        at = self.journal.clock()
        if self.shown is not None:  # a replacement's marker is an undo marker there too
            self._notes.append((gid, number, [action if isinstance(action, dict) else None for action in actions]))
        self._post(lambda journal: journal.append(gid, number, *actions, at=at), "write")

    def set_status(self, gid: str, status: str, scores: list[dict] | None = None) -> None:
        self._post(lambda journal: journal.set_status(gid, status, scores), "write")

    def adopt(self, record: Any) -> None:
        self._call(lambda journal: journal.adopt(record))

    def claim(self) -> None:
        self._call(lambda journal: journal.claim())

    def reindex(self) -> None:
        self._call(lambda journal: journal.reindex())

    def release(self) -> None:
        self._call(lambda journal: journal.release())

    def flush(self) -> bool:
        """Write what is pending, in order, and wait for it; False when the store does not take it."""
        return self._call(lambda journal: journal.save())

    def reconcile(self) -> None:
        """The Journal's reconcile, then the inputs shown before the last stop that the store lacks
        named once ("Not saved before the power went"), and a new record of what is shown begun."""
        self._call(lambda journal: (journal.reconcile(), self._name_unsaved(journal)))

    def tick(self, now: float) -> bool:
        """Time passes: the writer thread retries, checks and audits (Journal.tick); True when what
        the table shows may have changed (the writer's state, a notice, the "not saved" mark)."""
        self._post(lambda journal: journal.tick(now), "tick")
        self._take_notices()
        self._forget_saved()
        seen = (self.trouble, self.pending, len(self.notices))
        changed, self._seen = seen != self._seen, seen
        return changed

    def _forget_saved(self) -> None:
        """Drop the saved writes from those awaiting the disk; start the record of what was shown
        again once it is large and all of it is saved."""
        with self._lock:
            self._drop_saved()
            everything = not self._unsaved
        if everything and self.shown is not None and self.shown.size() > SHOWN_MAX_BYTES:
            self.shown.clear()

    # -- the state of the writes -----------------------------------------------------------------

    @property
    def trouble(self) -> Trouble | None:
        """Why writes wait (the Journal's), or "Not saved yet" while one has waited longer than
        SAVE_MARK_S for the disk."""
        trouble = self.journal.trouble
        if trouble is None:
            late = self.late()
            if late:
                return Trouble("Not saved yet", f"{late} action(s) shown are not yet on the disk after {SAVE_MARK_S} s "
                                                f"(the card or Redis is slow)")
        return trouble

    def late(self) -> int:
        """How many writes have waited longer than SAVE_MARK_S since their frame was shown."""
        with self._lock:
            self._drop_saved()
            cutoff, late = self.clock() - SAVE_MARK_S, 0
            for _, at in self._unsaved:  # the oldest first: counted up to the first one not late
                if at > cutoff:
                    break
                late += 1
            return late

    def _drop_saved(self) -> None:
        """Forget the saved writes (a write is saved with every one before it: they lead the line).
        Under the lock."""
        while self._unsaved and self._unsaved[0][0] <= self._state.saved:
            self._unsaved.popleft()

    @property
    def offline(self) -> bool:
        return self.trouble is not None

    @property
    def pending(self) -> int:
        """Writes not yet made: handed over, or waiting in the Journal."""
        with self._lock:
            handed = sum(1 for post in self._posts if post.kind == "write")
        return handed + self.journal.pending

    @property
    def unsaved(self) -> int:
        """Writes shown and not yet on the disk."""
        with self._lock:
            self._drop_saved()
            return len(self._unsaved)

    # -- the inputs a power cut took -------------------------------------------------------------

    def _name_unsaved(self, journal: Journal) -> None:
        """Name the entries the record of what was shown holds and the store lacks (after the local
        copy gave back what it held), then begin a new record."""
        if self.shown is None:
            return
        shown: dict[str, dict[int, dict | None]] = {}
        for gid, entry, action in self.shown.read():
            shown.setdefault(gid, {})[entry] = action
        for gid, entries in shown.items():
            try:
                record = journal.load(gid)
            except (CorruptJournal, NoSuchGame, Refused, *STORE_ERRORS) as error:
                log.warning("game %s: what was shown before the stop is not compared (%s)", gid, error)
                continue
            lost = sorted((n, a) for n, a in entries.items() if n > len(record.entries))
            if lost:
                words = _words(record, [action for _, action in lost])
                log.warning("game %s: entries %s were shown but not saved before the last stop: %s", gid,
                            ", ".join(str(n) for n, _ in lost), "; ".join(words))
                journal.notices.append((("Not saved before", "the power went:", *words[:2], "Tap it again"),
                                        f"not saved before the power went: {'; '.join(words)}: tap it again"))
        self.shown.open()


def _words(record: Any, actions: list[dict | None]) -> list[str]:
    """The actions in the words of the game's timeline ("Eve plays red"), from the saved game on."""
    import engines

    from ..web.games import renderer  # the live view's wording, one for every screen

    words, game, state = [], None, None
    try:
        game = engines.get(record.game)
        state = game.replay(record.players, record.options, record.actions)
    except Exception as error:  # a game this table cannot replay still gets its entries named
        log.warning("game %s cannot be replayed to name what was lost (%s)", record.gid, error)
    for action in actions:
        if action is None:
            words.append("undo")
            continue
        try:
            words.append(renderer(record.game).describe(game, state, action))
        except Exception:  # said from the action's own fields when the rules cannot word it
            words.append(str(action.get("type", "an action")))
        try:
            state = game.apply(state, action)
        except Exception:  # the next one is worded against the state before it, as well as can be
            pass
    return words


_TIMEOUT = object()
