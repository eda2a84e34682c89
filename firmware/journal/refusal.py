"""What a Redis error means for the table: the store will not take writes now, and why in one line.

Every error a server or the connection can answer with is one of these: the connection is gone
(an outage), or the server refuses (OOM: full, MISCONF: it cannot write its disk, READONLY: a
replica, NOAUTH/WRONGPASS: the password, NOPERM: the ACL, BUSY: a script runs, LOADING: it reads its
data, MASTERDOWN: a replica cut off from its master, NOSCRIPT, EXECABORT...). None of them is a
reason to stop the table: the writes wait and are tried again. The error code is the first word of
Redis's reply; redis-py keeps it in `status_code` for the codes it knows, else in the message, after
"caused error: " when it comes from a transaction and after "because of: " for an EXECABORT.
"""

import re
from dataclasses import dataclass

import redis

#: Redis errors that mean "the server is not answering now" (as opposed to a bug or a bad command).
OUTAGE = (redis.ConnectionError, redis.TimeoutError, OSError)
#: every error talking to the store can raise
STORE_ERRORS = (redis.RedisError, OSError)

#: the OLED's line (at most 25 characters) for each refusal code
REASONS = {
    "OOM": "Redis full",
    "MISCONF": "Redis disk error",
    "READONLY": "Redis read-only",
    "NOAUTH": "Redis password refused",
    "WRONGPASS": "Redis password refused",
    "NOPERM": "Redis denies access",
    "BUSY": "Redis busy",
    "LOADING": "Redis loading",
    "MASTERDOWN": "Redis replica cut off",
    "NOSCRIPT": "Redis script missing",
    "TRYAGAIN": "Redis busy",
    "CLUSTERDOWN": "Redis cluster down",
    "MOVED": "Redis cluster moved",
    "ASK": "Redis cluster moved",
    "CROSSSLOT": "Redis cluster keys",
    "WRONGTYPE": "Redis key of wrong type",
}
_CODE = re.compile(r"(?:.*?(?:caused error|because of): )?([A-Z]{2,})\b", re.DOTALL)
#: how redis-py prefixes the error of a command inside a transaction
_ANNOTATION = re.compile(r"^Command # \d+ \(.*\) of pipeline caused error: ", re.DOTALL)


@dataclass(frozen=True)
class Trouble:
    """Why writes wait: `short` for the OLED, `detail` for STATUS= and the log."""

    short: str
    detail: str


UNREACHABLE = Trouble("Store unreachable", "store unreachable")


class Refused(Exception):
    """The store does not take writes now (raised where a caller must stop, e.g. at boot)."""

    def __init__(self, trouble: Trouble):
        super().__init__(trouble.detail)
        self.trouble = trouble


class LeaseHeld(Refused):
    """Another live process holds the table's writer lease: this one may not write the table."""


def code(error: Exception) -> str | None:
    """The Redis error code of `error` (OOM, READONLY, ...), None when it has none."""
    status = getattr(error, "status_code", None)
    if status and status not in ("ERR", "EXECABORT"):
        return status
    match = _CODE.match(str(error))
    return match.group(1) if match and match.group(1) not in ("ERR", "EXECABORT") else status


def trouble(error: BaseException) -> Trouble:
    """What `error` means for the table, in words."""
    if isinstance(error, Refused):
        return error.trouble
    if isinstance(error, redis.AuthenticationError):
        return Trouble(REASONS["WRONGPASS"], f"Redis refuses the password: {error}")
    if isinstance(error, redis.BusyLoadingError):
        return Trouble(REASONS["LOADING"], f"Redis is loading its data: {error}")
    if isinstance(error, OUTAGE):
        return UNREACHABLE
    found = code(error)
    short = REASONS.get(found or "", f"Redis error {found}" if found else "Redis error")
    text = _ANNOTATION.sub("", str(error))
    return Trouble(short, f"{short}: {found + ' ' if found and not text.startswith(found) else ''}{text}")


def is_wrong_type(error: Exception) -> bool:
    return isinstance(error, redis.ResponseError) and code(error) == "WRONGTYPE"


def is_unknown_command(error: Exception) -> bool:
    """A command the store does not have (the in-memory store, fakeredis, lacks a few: XSETID)."""
    return isinstance(error, redis.ResponseError) and "unknown command" in str(error).lower()
