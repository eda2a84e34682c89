"""The tag map's local copy: the enrolled tags (`tags`) and enrolment's places (`enrol`) of a table,
kept whole in `<local_dir>/<table>.tags.json` beside the journal's local copy, so that a Redis that
lost them (FLUSHALL, a new SD card, a wiped server) gets them back and the owner does not enrol 130
components again.

The file is one JSON object, written whole (write_whole: a power cut leaves the old file or the new):
    {"format": 1, "table": T, "token": K, "seq": N, "written": "2026-11-24T02:55:00+00:00",
     "tags": {uid: entry as stored}, "enrol": {game: place as stored}}

Every change of the two hashes is one transaction (firmware.tagmap.TagMap): under WATCH of both
hashes and of `local:tags`, Redis's hashes are read, the change applied, the file written with seq
N + 1 (before Redis: write-ahead), then the hashes and `local:tags` = "K N+1" in one MULTI/EXEC. A
process that keeps no copy, or whose copy failed, sets `local:tags` to "-" in its transactions. So,
as with the journal's `local` token, the file holds every change made to the map when its "K N" is
the one in `local:tags`; and no `local:tags` at all means Redis lost it with the map (FLUSHALL, a
new server), not that the map was changed elsewhere. (The journal deletes its token instead: an
empty store is never a game's newer state, but an empty `enrol` is: every enrolment finished.)

Which is newer is decided the way the journal's reconcile decides it (firmware/journal/__init__.py,
"The local copy"): the token says whether the file holds every write; what Redis lacks entirely is
written from the file; what Redis holds stands unless the file is known to be ahead of it.
- `local:tags` is "K M" with M < N (the file's token, an older seq), at start: the file holds the
  last changes and Redis lacks them (killed between the file and the transaction, or Redis came back
  from an older save): Redis gets the file's map and places, whole.
- a hash Redis does not hold at all (the key gone: FLUSHALL, a DEL), while `local:tags` is missing,
  is the file's "K N", or is "K M" with M < N: Redis gets the file's. The same while the table runs
  (a change then starts from the file's hash, never from the emptied one).
- anything else (`local:tags` is "-", names another file, or a later seq: this file is older):
  Redis's stands, and the file is written again from it.
A file that is not such a record (Damaged) is reported (log, screen), kept aside as
`<name>.damaged-<time>`, and Redis's map is kept; a directory that cannot be written turns the copy
off for the run (logged and shown once; Redis alone keeps the map).

Unreadable fields in Redis (a tag entry that is no component, a place that is no number: someone
wrote them there) never go into the file: it holds readable fields only. Where the file holds a
readable one under the same name, Redis's is mended from it (firmware.tagmap.TagMap says so: "Tags
mended"); else Redis's is left as it is, and the file goes without it.
"""

import datetime
import json
import logging
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..store import table_key
from .local import set_aside, write_whole

log = logging.getLogger(__name__)

FORMAT = 1
#: the table's hashes the file keeps, by their key's last part
HASHES = ("tags", "enrol")
#: `local:tags` after a change made without a copy: no file holds every change
NO_COPY = "-"

Hashes = dict[str, dict[str, str]]
Notice = tuple[tuple[str, ...], str]


def marker_key(table: str) -> str:
    """`local:tags`: the version of the file that holds every change of the map (NO_COPY: none)."""
    return table_key(table, "local", "tags")


class Damaged(ValueError):
    """A tag copy that is not a valid record: the message says what is wrong."""


@dataclass
class Held:
    """What the file holds: its version ("token seq"), when it was written, the hashes."""

    token: str
    seq: int
    written: str
    hashes: Hashes

    @property
    def version(self) -> str:
        return f"{self.token} {self.seq}"

    def after(self, hashes: Hashes) -> "Held":
        """The next version, holding `hashes`, written now."""
        return Held(self.token, self.seq + 1, _now(), hashes)

    def behind(self, marker: str | None) -> bool:
        """Whether `marker` (the version Redis holds) is an older version of this file."""
        token, _, seq = (marker or "").partition(" ")
        return token == self.token and seq.isdigit() and int(seq) < self.seq

    def restores(self, stored: Hashes, marker: str | None, boot: bool) -> list[str]:
        """The hashes Redis gets from the file (the module's rules), given what it holds."""
        if boot and self.behind(marker):
            return [name for name in HASHES if stored[name] != self.hashes[name]]
        if marker is None or marker == self.version or self.behind(marker):
            return [name for name in HASHES if not stored[name] and self.hashes[name]]
        return []


class TagCopy:
    """One table's tag copy; `check(uid, text)` names what is wrong with a stored tag entry (None: fine)."""

    def __init__(self, directory: Path, table: str, check: Callable[[str, str], str | None] = lambda uid, text: None):
        self.table = table
        self.path = Path(directory) / f"{table}.tags.json"
        self.check = check
        #: why it failed (it stays off for the rest of the run)
        self.failed: str | None = None
        #: what the players should be told once (damage, a failure), oldest first
        self.notices: list[Notice] = []

    @property
    def on(self) -> bool:
        return self.failed is None

    def load(self) -> Held | None:
        """What the file holds (None: no file); Damaged when it is not a valid record, OSError when
        it cannot be read."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return None
        try:
            record = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            raise Damaged(f"not a JSON record ({error})") from None
        if not isinstance(record, dict) or record.get("format") != FORMAT:
            raise Damaged(f"not a tag copy of format {FORMAT}")
        if record.get("table") != self.table:
            raise Damaged(f"it is table {record.get('table')!r}'s, not {self.table!r}'s")
        token, seq, written = record.get("token"), record.get("seq"), record.get("written")
        if not isinstance(token, str) or not token.isalnum() or type(seq) is not int or seq < 1 or not isinstance(written, str):
            raise Damaged("its token, seq or written time is missing or malformed")
        hashes = {}
        for name in HASHES:
            value = record.get(name)
            if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
                raise Damaged(f"{name} must map names to text")
            hashes[name] = value
        problem = next(filter(None, (self.problem(name, key, text) for name in HASHES for key, text in hashes[name].items())), None)
        if problem:
            raise Damaged(problem)
        return Held(token, seq, written, hashes)

    def problem(self, name: str, key: str, text: str) -> str | None:
        """What is wrong with field `key` of hash `name` (a tag entry, an enrolment place); None: fine."""
        if name == "tags":
            return self.check(key, text)
        return None if text.isdigit() else f"enrolment's place in {key} is {text!r}, not a number"

    def readable(self, hashes: Hashes) -> Hashes:
        """`hashes` without their unreadable fields: what the file may hold."""
        return {name: {key: text for key, text in fields.items() if not self.problem(name, key, text)} for name, fields in hashes.items()}

    def held(self) -> Held | None:
        """The file's record while the copy is on (None: off, no file, or damaged: reported and kept aside)."""
        if not self.on:
            return None
        try:
            return self.load()
        except Damaged as error:
            aside = set_aside(self.path)
            where = f"kept aside as {aside}" if aside else "left where it is"
            log.error("the tag map's local copy %s is damaged (%s): it is %s; Redis's tag map is kept", self.path, error, where)
            self.notices.append((("Local tags damaged", "Kept aside; play on"),
                                 f"the tag map's local copy is damaged ({error}): {where}; Redis's tag map is kept"))
        except OSError as error:
            self._fail(error)
        return None

    def ahead(self, held: Held | None, hashes: Hashes, marker: str | None) -> str | None:
        """Write `hashes` to the file before Redis gets them: the version Redis is to hold (None: the
        copy is off). Nothing is written when the file already holds them as Redis's version."""
        if not self.on:
            return None
        if held is not None and held.version == marker and held.hashes == hashes:
            return marker
        new = held.after(hashes) if held is not None else Held(secrets.token_hex(8), 1, _now(), hashes)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            record = {"format": FORMAT, "table": self.table, "token": new.token, "seq": new.seq, "written": new.written, **hashes}
            write_whole(self.path, json.dumps(record, ensure_ascii=False, sort_keys=True, indent=1).encode())
        except OSError as error:
            self._fail(error)
            return None
        return new.version

    def _fail(self, error: OSError) -> None:
        self.failed = str(error)
        log.error("the tag map's local copy %s failed (%s): Redis alone keeps the tag map from now on", self.path, error)
        self.notices.append((("Local tags failed", "Play goes on"), f"the tag map's local copy {self.path} failed: {error}"))


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
