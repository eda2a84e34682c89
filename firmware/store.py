"""Connecting to the store from its URL: `redis://`, `rediss://`, `unix://` for a real server,
`redis+cluster://` and `rediss+cluster://` for a Redis Cluster, `memory://` for an in-process fakeredis
server (the desktop default and the unit tests); and naming its keys.

A cluster URL names one or more of its nodes, `redis+cluster://[user:password@]host:port[,host:port...]`;
the client learns the others from them (redis-py's RedisCluster). A cluster has only database 0, so
the URL has no path.

Every key of a table is `tablemate:{<table>}:...`, named by `table_key` alone: the braces are a Redis
Cluster hash tag, so a table's keys share one hash slot and the journal's multi-key transactions work
on a cluster too. `migrate_keys` moves the keys a store held before under their new names, once.

Short socket timeouts keep the table responsive when the server is gone: the journal then keeps the
actions in memory and writes them when the server answers again.

`choose(url, fallback)` picks the store a command uses: the desktop profile names a local
redis-server with an in-memory fallback, so every command shares the games when Redis runs, and the
table still plays (saying so) when it does not.
"""

import threading
import time
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

import fakeredis
import redis
from redis.cluster import ClusterNode, RedisCluster

CLUSTER_SCHEMES = ("redis+cluster", "rediss+cluster")
SCHEMES = ("memory", "redis", "rediss", "unix", *CLUSTER_SCHEMES)
TIMEOUT_S = 0.5

_memory_servers: dict[str, fakeredis.FakeServer] = {}
_lock = threading.Lock()


def table_key(table: str, *parts: str) -> str:
    """The Redis key `tablemate:{<table>}:<part>:<part>...` of table `table`: the braces are a Redis
    Cluster hash tag, so every key of a table lives in one hash slot."""
    return ":".join(("tablemate", "{" + table + "}", *parts))


def aside_key(key: str) -> str:
    """Where a damaged key is kept for the owner, `<key>:damaged-<time>`: beside it, in its hash slot."""
    return f"{key}:damaged-{time.strftime('%Y%m%d-%H%M%S')}"


class KeyClash(RuntimeError):
    """A key of a table stored under both its old and its new name, with different contents."""


def migrate_keys(client: redis.Redis, table: str) -> int:
    """Move the keys of table `table` stored before the hash tag (`tablemate:<table>:...`) to their
    names with it (`tablemate:{<table>}:...`), once: the number moved (0 once done, so it is run at
    every start). RENAMENX moves each key whole or not at all, so an interrupted run leaves every key
    under one of its names and the next run completes it. A key found under both names is dropped
    from its old one when both hold the same, else KeyClash names it and nothing more is moved. A
    Redis Cluster never held the old names (the journal's transactions span keys of one slot only),
    and is only checked."""
    old_prefix = f"tablemate:{table}:"
    moved = 0
    for old in list(client.scan_iter(match=old_prefix + "*", count=1000)):
        new = table_key(table, old[len(old_prefix):])
        if client.renamenx(old, new):
            moved += 1
        elif client.dump(old) == client.dump(new):
            client.delete(old)
        else:
            raise KeyClash(f"{old} and {new} both exist and differ: keep the one with the table's games, "
                           f"delete the other (redis-cli DEL ...), then start again")
    left = next(iter(client.scan_iter(match=old_prefix + "*", count=1000)), None)
    if left is not None:
        raise KeyClash(f"{left} is still stored under its old name after the move to {table_key(table, '...')}")
    return moved


class BadStoreURL(ValueError):
    """A store URL with an unknown scheme or a malformed cluster address."""


def scheme_of(url: str) -> str:
    return url.split("://", 1)[0] if "://" in url else ""


def url_problem(url: str) -> str | None:
    """What is wrong with a store URL, in words (None: nothing), without connecting."""
    scheme = scheme_of(url)
    if scheme not in SCHEMES:
        return f"{url!r} must start with {', '.join(s + '://' for s in SCHEMES)}"
    if scheme in CLUSTER_SCHEMES:
        try:
            cluster_nodes(url)
        except BadStoreURL as error:
            return str(error)
    return None


def cluster_nodes(url: str) -> tuple[str | None, str | None, list[tuple[str, int]]]:
    """The user, password and `(host, port)` nodes of a cluster URL."""
    rest = url.split("://", 1)[1]
    user = password = None
    if "@" in rest:
        credentials, rest = rest.rsplit("@", 1)
        user, _, password = credentials.partition(":")
        user, password = unquote(user) or None, unquote(password) or None
    if "/" in rest.rstrip("/") or "?" in rest:
        raise BadStoreURL(f"{url!r}: a cluster URL names nodes only (host:port,...): a cluster has no database number")
    nodes = []
    for part in rest.rstrip("/").split(","):
        try:
            split = urlsplit(f"//{part}")
            host, port = split.hostname, split.port
        except ValueError:
            host = port = None
        if not host or not port:
            raise BadStoreURL(f"{url!r}: {part!r} is not host:port")
        nodes.append((host, port))
    return user, password, nodes


def connect(url: str, *, username: str | None = None, password: str | None = None,
            timeout: float = TIMEOUT_S) -> redis.Redis:
    """A client for `url`; the same `memory://name` URL shares one in-process server. `username` and
    `password` log in (a Redis ACL user) when the URL names none."""
    problem = url_problem(url)
    if problem:
        raise BadStoreURL(f"store URL {problem}")
    scheme = scheme_of(url)
    if scheme == "memory":
        with _lock:
            server = _memory_servers.setdefault(url, fakeredis.FakeServer())
        return fakeredis.FakeRedis(server=server, decode_responses=True)
    options = dict(decode_responses=True, socket_timeout=timeout, socket_connect_timeout=timeout)
    if scheme in CLUSTER_SCHEMES:
        user, secret, nodes = cluster_nodes(url)
        return RedisCluster(startup_nodes=[ClusterNode(host, port) for host, port in nodes], ssl=scheme.startswith("rediss"),
                            username=user or username, password=secret or password, **options)
    if username is not None or password is not None:
        options.update(username=username, password=password)
    return redis.Redis.from_url(url, health_check_interval=0, **options)


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
