"""Connecting to the store from its URL: `redis://`, `rediss://`, `unix://` for a real server, `memory://`
for an in-process fakeredis server (the desktop default and the unit tests); and naming its keys.

Every key of a table is `tablemate:{table}:...`, named by `table_key` alone, so that moving a table's
keys under one Redis Cluster hash tag is a change in one place; multi-key transactions only ever
touch keys of one table.

Short socket timeouts keep the table responsive when the server is gone: the journal then keeps the
actions in memory and writes them when the server answers again.

`choose(url, fallback)` picks the store a command uses: the desktop profile names a local
redis-server with an in-memory fallback, so every command shares the games when Redis runs, and the
table still plays (saying so) when it does not.
"""

import threading
from dataclasses import dataclass

import fakeredis
import redis

SCHEMES = ("memory", "redis", "rediss", "unix")
TIMEOUT_S = 0.5

_memory_servers: dict[str, fakeredis.FakeServer] = {}
_lock = threading.Lock()


def table_key(table: str, *parts: str) -> str:
    """The Redis key `tablemate:{table}:{part}:{part}...` of table `table`."""
    return ":".join(("tablemate", table, *parts))


class BadStoreURL(ValueError):
    """A store URL with an unknown scheme."""


def connect(url: str) -> redis.Redis:
    """A client for `url`; the same `memory://name` URL shares one in-process server."""
    scheme = url.split("://", 1)[0] if "://" in url else ""
    if scheme not in SCHEMES:
        raise BadStoreURL(f"store URL {url!r}: the scheme must be one of {', '.join(s + '://' for s in SCHEMES)}")
    if scheme == "memory":
        with _lock:
            server = _memory_servers.setdefault(url, fakeredis.FakeServer())
        return fakeredis.FakeRedis(server=server, decode_responses=True)
    return redis.Redis.from_url(
        url,
        decode_responses=True,
        socket_timeout=TIMEOUT_S,
        socket_connect_timeout=TIMEOUT_S,
        health_check_interval=0,
    )


def memory_server(url: str = "memory://") -> fakeredis.FakeServer:
    """The in-process server behind a `memory://` URL (tests use it to simulate an outage)."""
    with _lock:
        return _memory_servers.setdefault(url, fakeredis.FakeServer())


#: what a memory store means for the people at the table
MEMORY = ("the games are in the table's own memory: only the running table sees them, and they end with it "
          "(start redis-server to keep them and to see them from status, log export and the live view)")


@dataclass(frozen=True)
class Choice:
    """The store a command uses, and a note to show when it is not the one the profile names first."""

    url: str
    note: str = ""

    @property
    def durable(self) -> bool:
        """Whether a game written here outlives this process (memory:// ends with it)."""
        return not self.url.startswith("memory:")


def choose(url: str, fallback: str | None = None) -> Choice:
    """`url` when there is no fallback or its server answers a PING; else the fallback, with a note."""
    if fallback is None:
        return Choice(url)
    try:
        connect(url).ping()
        return Choice(url)
    except (redis.ConnectionError, redis.TimeoutError, OSError) as error:
        return Choice(fallback, f"no Redis answered at {url} ({error}), so {MEMORY}")
