"""What `tablemate doctor` says of the club: does the club's Redis take this table's login, does it let
anyone in without one (its `default` user left on), who holds the table's name there, and how far the
copy of the current game has come."""

import redis

from ..config import Profile
from ..journal import STORE_ERRORS, Journal, lease
from ..store import connect
from .uplink import CLUB_TIMEOUT_S, club_trouble


def check(profile: Profile) -> list[tuple[bool, str]]:
    """(fine, sentence) for each thing looked at; nothing without [club]."""
    club = profile.club
    if club is None:
        return []
    where = f"club at {club.url} as table {club.table!r}" + (f" (user {club.user})" if club.user else "")
    dest = Journal(connect(club.url, username=club.user, password=club.password, timeout=CLUB_TIMEOUT_S), club.table)
    try:
        dest.client.ping()
        holder, ttl = dest.holder()
    except STORE_ERRORS as error:
        return [(False, f"{where}: {club_trouble(error)} (the table plays on, and copies once this is fixed; "
                        "tablemate club-acl prints the club's ACL line for this table)")]
    found = [(True, f"{where}: the club takes this table's login"), *open_door(club.url)]
    if holder is not None and not lease.takeable(holder, ttl, lease.this_process()):
        found.append((True, f"{where}: {lease.describe(holder)} copies under this name now ({max(ttl, 0) / 1000:.0f} s more); "
                            "if that is not this table, two tables share one name: give one of them another [club] table"))
    source = Journal(connect(profile.store.url), profile.table.id)
    try:
        gid = source.current()
        mine = source.lengths([gid])[0] if gid else 0
    except STORE_ERRORS:
        return found  # the store's own check says what is wrong with it
    if gid is not None:
        try:
            theirs = dest.lengths([gid])[0]
        except STORE_ERRORS as error:
            return found + [(False, f"{where}: {club_trouble(error)}")]
        found.append((theirs == mine, f"{where}: the club holds {theirs} of the {mine} entries of the current game {gid}"
                                      + ("" if theirs == mine else " (the uplink copies the rest while the table runs)")))
    return found


def open_door(url: str) -> list[tuple[bool, str]]:
    """A problem when the club's Redis takes `AUTH default ""`: its default user is on without a
    password, so anyone on its network may FLUSHALL or CONFIG SET there."""
    try:
        connect(url, timeout=CLUB_TIMEOUT_S).execute_command("AUTH", "default", "")
    except redis.RedisError:
        return []
    return [(False, f"the club's Redis at {url} lets anyone in without a password (its default user is on, with every right): "
                    "on the club server, as its admin, run ACL SETUSER default reset (docs/club.md; tablemate club-acl prints it)")]
