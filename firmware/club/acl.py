"""The club server's Redis ACL: an admin for the owner, the `default` user off, one user per table
allowed its own keys and the commands its uplink runs, and the page's read-only user.

    ACL SETUSER admin on >PASSWORD ~* &* +@all
    ACL SETUSER default reset
    ACL SETUSER table-t1 on resetpass >PASSWORD resetkeys ~tablemate:{t1}:* resetchannels &tablemate:{t1}:* -@all ... "(~tablemate:card:* +setnx +get)"

Redis starts with a `default` user that has no password and every right; a club server listens on
the LAN, so it is turned off (`reset`: no password, no right) once the owner has an admin user of
their own. With `default` off, `protected-mode yes` no longer refuses the tables on the LAN.

A table's user is an allow-list of the commands its uplink (firmware.club.uplink) runs, not Redis's
categories, which grow between versions (Redis 8 adds commands to @write and @read):

- its copies: `xadd` (entries, with their ids), `xrevrange` (the club's newest entry of a game),
  `hset` and `del` (a game's header, replaced whole; a game copied again), `zadd` (the `games`
  index), `set`, `get`, `del` (`current`; the writer lease, with `mget` and `pttl`), in
  transactions (`@transaction`: watch, multi, exec, discard, unwatch);
- its update messages: `publish`, on its own channel only;
- its player cards (firmware.club.roster): `hset`/`del` of its own roster, and `setnx`/`get` on the
  club's registry of cards, `tablemate:card:<player id>`, through a selector: a table may add a card
  there once and read who holds one, never overwrite or delete one;
- the connection (`@connection` less its `@dangerous` commands and `client|tracking`, whose
  broadcast mode would report other tables' key names); for a Redis Cluster, `cluster|slots` and
  `cluster|shards`.

So no FLUSHALL, CONFIG, KEYS, SCAN, RANDOMKEY, DBSIZE (a table lists no other table's keys), no
scripting (EVAL, FUNCTION LOAD/FLUSH: a script would run on the server's one thread), and no other
table's keys or channel. The club page's user reads every table and writes nothing.
"""

import secrets

from ..store import table_key

ADMIN = "admin"
#: what a table's uplink runs at the club (the module docstring says why each)
TABLE_COMMANDS = ("-@all +@connection -@dangerous -client|tracking +@transaction +xadd +xrevrange +hset +del +zadd +set +get "
                  "+mget +pttl +publish +cluster|slots +cluster|shards")
#: the registry of player cards: a table adds a card once, and reads who holds one
REGISTRY_SELECTOR = "(~tablemate:card:* +setnx +get)"
#: what the club page runs: reads, and the updates of every table
PAGE_COMMANDS = "-@all +@read +@connection +psubscribe +punsubscribe +subscribe +unsubscribe +cluster|slots +cluster|shards -@dangerous"


def new_password() -> str:
    return secrets.token_urlsafe(18)


def table_user(name: str) -> str:
    return f"table-{name}"


def table_line(name: str, password: str, user: str | None = None) -> str:
    """The ACL SETUSER line that lets table `name` (and no other) copy its games to the club."""
    return (f"ACL SETUSER {user or table_user(name)} on resetpass >{password} resetkeys ~{table_key(name, '*')} "
            f"resetchannels &{table_key(name, '*')} {TABLE_COMMANDS} clearselectors {REGISTRY_SELECTOR}")


def page_line(password: str, user: str = "club-page") -> str:
    """The ACL SETUSER line of the club page's read-only user."""
    return f"ACL SETUSER {user} on resetpass >{password} resetkeys ~tablemate:* resetchannels &tablemate:* {PAGE_COMMANDS}"


def admin_lines(password: str) -> list[str]:
    """The owner's admin user, then the `default` user off (run as that admin)."""
    return [f"ACL SETUSER {ADMIN} on >{password} ~* &* +@all", f"AUTH {ADMIN} {password}", "ACL SETUSER default reset"]
