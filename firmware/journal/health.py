"""Is the Redis server set up to keep games? Asked by `tablemate doctor` and, once, by the appliance
at boot (a warning on the screen and in the log).

- `maxmemory-policy` must be `noeviction`: every other policy lets a full Redis delete keys to make
  room (allkeys-*: any game; volatile-*: keys with a TTL, such as the writer lease). With noeviction a
  full Redis refuses writes instead, which the table survives ("Redis full": the actions wait).
- A profile that says `[store] require_aof = true` (the Pi's) needs `appendonly yes` and
  `appendfsync always`: every acknowledged action on disk before Redis answers.
"""

from dataclasses import dataclass
from urllib.parse import urlsplit

import redis

from .refusal import trouble


@dataclass(frozen=True)
class Problem:
    #: what it is about: "eviction", "aof", or "config" (the configuration cannot be read: both)
    about: str
    short: str
    text: str
    #: the command that fixes it ("" when there is none to give)
    fix: str


def problems(client: redis.Redis, url: str, require_aof: bool) -> list[Problem]:
    """What is wrong with the server's set-up for keeping games (a connection error when it does not answer)."""
    cli = redis_cli(url)
    try:
        config = {**client.config_get("maxmemory-policy"), **client.config_get("append*")}
    except redis.ResponseError as error:
        return [Problem("config", "Redis config unreadable", f"Redis refuses CONFIG GET ({trouble(error).detail}): check by hand that "
                        "maxmemory-policy is noeviction" + (" and appendonly yes, appendfsync always" if require_aof else ""), "")]
    found = []
    policy = config.get("maxmemory-policy")
    if policy != "noeviction":
        found.append(Problem("eviction", "Redis may evict games", f"Redis's maxmemory-policy is {policy}: when its memory is full it deletes keys, "
                             "games among them", f"{cli} CONFIG SET maxmemory-policy noeviction"))
    if require_aof and config.get("appendonly") != "yes":
        found.append(Problem("aof", "Redis AOF is off", "Redis keeps no append-only file: a power cut can lose the last actions "
                             "(the profile's [store] require_aof)", f"{cli} CONFIG SET appendonly yes"))
    elif require_aof and config.get("appendfsync") != "always":
        found.append(Problem("aof", "Redis AOF not synced", f"Redis syncs its append-only file '{config.get('appendfsync')}', not at every "
                             "write: a power cut can lose the last actions", f"{cli} CONFIG SET appendfsync always"))
    return found


def redis_cli(url: str) -> str:
    """The redis-cli command that talks to the server at `url`."""
    parts = urlsplit(url)
    if parts.scheme == "unix":
        return f"redis-cli -s {parts.path}"
    args = ["redis-cli"]
    if parts.hostname not in (None, "localhost", "127.0.0.1", "::1"):
        args += ["-h", parts.hostname]
    if parts.port not in (None, 6379):
        args += ["-p", str(parts.port)]
    if parts.scheme == "rediss":
        args.append("--tls")
    return " ".join(args)
