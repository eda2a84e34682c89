"""The club server's Redis ACL: one user per table, allowed its own keys and channel only.

    ACL SETUSER table-t1 on >PASSWORD resetkeys ~tablemate:{t1}:* resetchannels &tablemate:{t1}:* -@all +@read +@write ...

A table's user may read and write `tablemate:{<its name>}:*` and publish on its own `updates` channel,
nothing else: no other table's keys, no FLUSHALL, no CONFIG (the `-@dangerous` commands). The club
page's user reads every table and writes nothing.
"""

import secrets

from ..store import table_key

#: what a table's uplink runs at the club: its copies (streams, hashes, the index, current, the lease)
#: in transactions, and its update messages; for a Redis Cluster, the slot map too
TABLE_COMMANDS = "-@all +@read +@write +@transaction +@connection +publish +cluster|slots +cluster|shards -@dangerous"
#: what the club page runs: reads, and the updates of every table
PAGE_COMMANDS = "-@all +@read +@connection +psubscribe +punsubscribe +subscribe +unsubscribe +cluster|slots +cluster|shards -@dangerous"


def new_password() -> str:
    return secrets.token_urlsafe(18)


def table_user(name: str) -> str:
    return f"table-{name}"


def table_line(name: str, password: str, user: str | None = None) -> str:
    """The ACL SETUSER line that lets table `name` (and no other) copy its games to the club."""
    return (f"ACL SETUSER {user or table_user(name)} on resetpass >{password} resetkeys ~{table_key(name, '*')} "
            f"resetchannels &{table_key(name, '*')} {TABLE_COMMANDS}")


def page_line(password: str, user: str = "club-page") -> str:
    """The ACL SETUSER line of the club page's read-only user."""
    return f"ACL SETUSER {user} on resetpass >{password} resetkeys ~tablemate:* resetchannels &tablemate:* {PAGE_COMMANDS}"
