"""What `tablemate doctor` says of the club: is its address among those tablemate.service may reach
(its IPAddressAllow=, this machine and the LAN), does the club's Redis take this table's login, does it
let anyone in without one (its `default` user left on), who holds the table's name there, and how far
the copy of the current game has come."""

import ipaddress
import shutil
import socket
import subprocess
from urllib.parse import urlsplit

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from ..config import Profile
from ..journal import STORE_ERRORS, Journal, lease
from ..store import cluster_nodes, connect, scheme_of
from .uplink import CLUB_TIMEOUT_S, club_trouble


def check(profile: Profile) -> list[tuple[bool, str]]:
    """(fine, sentence) for each thing looked at; nothing without [club]."""
    club = profile.club
    if club is None:
        return []
    where = f"club at {club.url} as table {club.table!r}" + (f" (user {club.user})" if club.user else "")
    fenced = beyond_reach(club.url)
    if fenced:
        return [(False, f"{where}: {fenced} is outside the addresses tablemate.service may reach (IPAddressAllow=: this "
                        f"machine and the LAN): sudo systemctl edit tablemate, and add [Service] IPAddressAllow={fenced} "
                        "(docs/club.md)")]
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
    client = connect(url, timeout=CLUB_TIMEOUT_S)
    client.set_retry(Retry(NoBackoff(), 0))  # refused is the answer hoped for: not worth three more tries
    try:
        client.execute_command("AUTH", "default", "")
    except redis.RedisError:
        return []
    return [(False, f"the club's Redis at {url} lets anyone in without a password (its default user is on, with every right): "
                    "on the club server, as its admin, run ACL SETUSER default reset (docs/club.md; tablemate club-acl prints it)")]


def beyond_reach(url: str) -> str | None:
    """An address of the club's Redis that tablemate.service's IP access lists refuse (systemctl
    show: its IPAddressDeny= and IPAddressAllow=, drop-ins included); None when every one is allowed,
    or there is no such list (no systemd, no unit, or no IPAddressDeny=)."""
    lists = _ip_lists()
    if lists is None:
        return None
    allowed = lists.get("IPAddressAllow", [])
    if not lists.get("IPAddressDeny"):
        return None
    for address in _addresses(url):
        if not any(address in network for network in allowed):
            return str(address)
    return None


def _ip_lists() -> dict[str, list] | None:
    """tablemate.service's IPAddressAllow= and IPAddressDeny= as networks (None: systemd cannot say)."""
    if shutil.which("systemctl") is None:
        return None
    shown = subprocess.run(["systemctl", "show", "--property=IPAddressAllow,IPAddressDeny", "tablemate.service"],
                           capture_output=True, text=True)
    try:
        lists = {name: [ipaddress.ip_network(item, strict=False) for item in value.split()]
                 for name, _, value in (line.partition("=") for line in shown.stdout.splitlines())}
    except ValueError:
        return None
    return lists if shown.returncode == 0 else None


def _addresses(url: str) -> list:
    """The IP addresses the club's URL leads to (none for a unix socket, or a name that does not resolve)."""
    scheme = scheme_of(url)
    if scheme == "unix":
        return []
    nodes = cluster_nodes(url)[2] if "cluster" in scheme else [(urlsplit(url).hostname, urlsplit(url).port or 6379)]
    found = []
    for host, port in nodes:
        try:
            found += [ipaddress.ip_address(info[4][0].split("%")[0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]
        except (OSError, ValueError):
            continue
    return found
