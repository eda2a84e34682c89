"""Live updates: one subscriber to the table's pub/sub channel feeds every open page.

A thread listens on `tablemate:{table}:updates` (redis-py's blocking pub/sub, the same client for
`memory://` and `redis://`) and wakes the event loop; the hub then computes one snapshot (the live
panel, rendered once) and hands it to every follower. A follower that falls behind gets the latest
snapshot, never a queue of stale ones. When Redis stops answering, the followers get an `outage`
snapshot, and once it answers again a fresh state, since messages sent meanwhile are lost.

Live streams never end by themselves, so they are counted (`Slots`): at most `max_viewers` at once,
and PER_ADDRESS from one address, so one host on the LAN cannot take every place; a stream holds
its place until it ends, however it ends (`Following`). A keep-alive every KEEPALIVE_S finds a
viewer that left without a word.
"""

import asyncio
import logging
import re
import threading
from collections import Counter
from typing import AsyncIterator, Callable, NamedTuple

import redis
from starlette.concurrency import run_in_threadpool
from starlette.responses import StreamingResponse
from starlette.types import Receive, Scope, Send

from ..journal import OUTAGE
from ..store import connect

log = logging.getLogger(__name__)

#: Seconds between two attempts to reach Redis again after an outage.
RETRY_S = 0.5
#: Seconds a follower waits before a keep-alive (an SSE comment), so dead connections are noticed.
KEEPALIVE_S = 5.0
#: Live streams one address may hold at once (a phone with a few tabs open)
PER_ADDRESS = 4
#: How long the listener blocks in one read: bounds how long stopping takes (a read wakes at once
#: when a message comes, so this costs only an idle wake-up now and then).
POLL_S = 0.05


class Snapshot(NamedTuple):
    """One SSE message: `event` is "state" or "outage", `id` names the game and its entry count."""

    event: str
    id: str
    data: str


class Slots:
    """The places of the live streams: `total` at once, `per_address` of them from one address."""

    def __init__(self, total: int, per_address: int = PER_ADDRESS):
        self.total = total
        self.per_address = per_address
        self.held: Counter[str] = Counter()

    def take(self, address: str) -> Callable[[], None] | str:
        """A place for a stream from `address`, as the call that gives it back; or why there is none."""
        if sum(self.held.values()) >= self.total:
            return f"too many live viewers (at most {self.total})"
        if self.held[address] >= self.per_address:
            return f"too many live pages from {address} (at most {self.per_address} from one address)"
        self.held[address] += 1

        def give_back() -> None:
            self.held[address] -= 1
            if not self.held[address]:
                del self.held[address]

        return give_back


class Following(StreamingResponse):
    """A live stream that gives its place back when it ends, however it ends (the client gone, the
    server stopping, an error)."""

    def __init__(self, content, give_back: Callable[[], None]):
        super().__init__(content, media_type="text/event-stream", headers={"x-accel-buffering": "no"})
        self.give_back = give_back

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.give_back()


def address_of(scope: Scope) -> str:
    """The client's address as the server saw it (no proxy header is trusted)."""
    client = scope.get("client")
    return client[0] if client else ""


class Hub:
    def __init__(self, store_url: str, channel: str, compute: Callable[[], Snapshot], max_viewers: int = 50, *,
                 pattern: bool = False, client: Callable[[], redis.Redis] | None = None,
                 heard: Callable[[str], None] | None = None):
        """`channel` is a pattern (PSUBSCRIBE: the club page follows every table) when `pattern`;
        `client` makes the listener's connection (default: `connect(store_url)`); `heard(channel)`
        is told, from the listener's thread, the channel of every message before it is computed.
        At most `max_viewers` follow it at once (`slots`)."""
        self.store_url = store_url
        self.channel = channel
        self.pattern = pattern
        self._client = client or (lambda: connect(store_url))
        self._heard = heard
        self.compute = compute
        self.slots = Slots(max_viewers)
        self.latest: Snapshot | None = None
        self.version = 0
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None
        self._task: asyncio.Task | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    # -- life cycle (the app's lifespan) ----------------------------------------------------------

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._wake: asyncio.Queue[str] = asyncio.Queue()
        self._changed = asyncio.Event()
        self._task = asyncio.create_task(self._run(), name="tablemate-web-hub")
        self._thread = threading.Thread(target=self._listen, name="tablemate-web-listener", daemon=True)
        self._thread.start()

    def release(self) -> None:
        """End every follower's stream now (from any thread): the server is stopping, and live streams
        never end by themselves."""
        self._stopping.set()
        if self._loop is not None and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._changed.set)

    async def stop(self) -> None:
        self._stopping.set()
        if self._thread is not None:
            await run_in_threadpool(self._thread.join)
        if self._task is not None:
            self._task.cancel()
        self._changed.set()

    # -- the listener thread ----------------------------------------------------------------------

    def _listen(self) -> None:
        down = False
        while not self._stopping.is_set():
            pubsub = None
            try:
                pubsub = self._client().pubsub(ignore_subscribe_messages=True)
                (pubsub.psubscribe if self.pattern else pubsub.subscribe)(self.channel)
                if down:
                    log.warning("live updates resumed")
                down = False
                self._notify("subscribed")
                while not self._stopping.is_set():
                    message = pubsub.get_message(timeout=POLL_S)
                    if message is not None:
                        if self._heard is not None:
                            self._heard(message["channel"])
                        self._notify("update")
            except (*OUTAGE, redis.RedisError) as error:  # a refusal too (a password asked): try again later
                if not down:
                    down = True
                    log.warning("live updates paused: %s", error)
                    self._notify("down")
                self._stopping.wait(RETRY_S)
            finally:
                if pubsub is not None:
                    try:
                        pubsub.close()
                    except OUTAGE:
                        pass

    def _notify(self, what: str) -> None:
        self._loop.call_soon_threadsafe(self._wake.put_nowait, what)

    # -- the hub task -----------------------------------------------------------------------------

    async def _run(self) -> None:
        while True:
            await self._wake.get()
            while not self._wake.empty():
                self._wake.get_nowait()  # several changes, one snapshot of the latest
            try:
                snapshot = await run_in_threadpool(self.compute)
            except Exception:
                log.exception("the live panel could not be computed; the viewers keep the last one")
                continue
            if snapshot != self.latest:
                self.latest = snapshot
                self.version += 1
                changed, self._changed = self._changed, asyncio.Event()
                changed.set()

    async def follow(self) -> AsyncIterator[Snapshot | None]:
        """The latest snapshot now (once there is one), then each newer one; None means "keep alive"."""
        seen = 0
        while not self._stopping.is_set():
            if self.version > seen and self.latest is not None:
                seen = self.version
                yield self.latest
                continue
            try:
                await asyncio.wait_for(self._changed.wait(), KEEPALIVE_S)
            except asyncio.TimeoutError:
                yield None


def frame(snapshot: Snapshot | None) -> str:
    """`snapshot` as an SSE message (a comment when None); each line of the data is its own `data:`."""
    if snapshot is None:
        return ": keep-alive\n\n"
    data = "".join(f"data: {line}\n" for line in re.split(r"\r\n|\r|\n", snapshot.data))
    return f"event: {snapshot.event}\nid: {snapshot.id}\n{data}\n"
