"""The writer lease: one process at a time writes a table's games (`tablemate:{table}:writer`).

The key holds the writing process's identity and expires TTL_S after it was last set: every write
transaction sets it again, and the loop refreshes it every REFRESH_S while the table is idle. A
process finds the lease free, its own, or held by another:
- another process of this machine and this boot that no longer runs (a killed or crashed run of the
  appliance, restarted by systemd): taken over at once, since its death is certain;
- stale: a value that names no writer (garbage, or a key of another type, which MGET reads as none),
  or a lease without a TTL (every writer sets one; without it the lease would never end): taken over
  at once, and the journal says so;
- anything else (a second Pi with the same table id, a cloned SD card, a second `tablemate run`):
  the process writes nothing until the lease expires, i.e. until that writer has stopped for TTL_S.

An identity is the host name, the kernel's boot id (random at every boot, so two Pis cloned from
one card differ), the pid and the process's start time (so a reused pid is not mistaken for it).
"""

import os
import socket
from dataclasses import dataclass
from functools import cache
from pathlib import Path

#: seconds a lease lasts without a refresh; a successor of a writer that vanished waits this long
TTL_S = 15.0
#: the idle table refreshes its lease this often (a third of the TTL: two refreshes may fail)
REFRESH_S = 5.0


@dataclass(frozen=True)
class Holder:
    """A process that writes (or wrote) a table."""

    host: str
    boot: str
    pid: int
    start: str

    @property
    def text(self) -> str:
        """The lease key's value."""
        return f"host={self.host} boot={self.boot} pid={self.pid} start={self.start}"

    @classmethod
    def parse(cls, text: str) -> "Holder | None":
        """The holder a lease value names; None for a value this program did not write."""
        try:
            fields = dict(part.split("=", 1) for part in text.split())
            return cls(fields["host"], fields["boot"], int(fields["pid"]), fields["start"])
        except (ValueError, KeyError):
            return None

    def describe(self) -> str:
        return f"{self.host} (pid {self.pid})"

    def gone(self) -> bool:
        """Certainly no longer running: a process of this machine and boot that has exited."""
        me = this_process()
        if not me.boot or (self.host, self.boot) != (me.host, me.boot):
            return False
        return _start_time(self.pid) != self.start


def describe(value: str | None) -> str:
    """A lease value in words."""
    if value is None:
        return "nobody"
    holder = Holder.parse(value)
    return holder.describe() if holder else repr(value)


def stale(value: str, ttl_ms: int) -> str | None:
    """Why a lease holding `value` with PTTL `ttl_ms` (-1: none) is no one's any more, in words; None
    when it stands. A process of this machine that is gone is no news (a restart after a kill)."""
    if Holder.parse(value) is None:
        return f"its value {value!r} names no writer"
    if ttl_ms == -1:
        return f"{describe(value)} holds it without a TTL, so it would never end"
    return None


def takeable(value: str | None, ttl_ms: int, me: Holder) -> bool:
    """Whether `me` may write with the lease holding `value` (PTTL `ttl_ms`): free, mine, stale, or
    its holder is gone."""
    if value is None or value == me.text or stale(value, ttl_ms):
        return True
    return Holder.parse(value).gone()


@cache
def this_process() -> Holder:
    """This process's identity (one per process: every Journal of a process shares its lease)."""
    return Holder(socket.gethostname(), _boot_id(), os.getpid(), _start_time(os.getpid()) or "unknown")


def _boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def _start_time(pid: int) -> str | None:
    """A process's start time in clock ticks since boot (/proc/PID/stat, field 22); None when the
    process does not exist (or /proc is not there)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]
