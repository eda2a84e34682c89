"""Connecting to the store from its URL: `redis://`, `rediss://`, `unix://` for a real server,
`redis+cluster://` and `rediss+cluster://` for a Redis Cluster, `memory://` for an in-process fakeredis
server (the desktop default and the unit tests); and naming its keys.

A cluster URL names one or more of its nodes, `redis+cluster://[user:password@]host:port[,host:port...]`;
the client learns the others from them (redis-py's RedisCluster). A cluster has only database 0, so
the URL has no path.

Every key of a table is `tablemate:{table}:...`, named by `table_key` alone, so that moving a table's
keys under one Redis Cluster hash tag is a change in one place; multi-key transactions only ever
touch keys of one table.

Short socket timeouts keep the table responsive when the server is gone: the journal then keeps the
actions in memory and writes them when the server answers again.
"""

import threading
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
    """The Redis key `tablemate:{table}:{part}:{part}...` of table `table`."""
    return ":".join(("tablemate", table, *parts))


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
