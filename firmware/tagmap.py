"""The enrolled tag map: RFID UID -> which component of which game (`tablemate:{table}:tags`).

Kept in memory after loading, so taps are recognised while the store is away; every change is
written through to Redis at once, and to the local copy first when the profile keeps one
([store] local_dir: firmware/journal/tagcopy.py), so a Redis that lost the map gets it back.
A hash key that holds another type of data holds no field: load() says no tag is known, and the
next write of that hash (the local copy's at start, an import) first keeps the key aside as
`<key>:damaged-<time>`.
"""

import json
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

import redis

from .journal.core import transact
from .journal.refusal import is_wrong_type
from .journal.tagcopy import HASHES, NO_COPY, Hashes, Held, TagCopy, marker_key
from .store import aside_key, table_key

log = logging.getLogger(__name__)


class BadTagEntry(ValueError):
    """A stored tag entry that is not a component descriptor."""


@dataclass(frozen=True)
class TagEntry:
    game: str
    kind: str
    descriptor: dict[str, Any]
    label: str = ""

    def to_json(self) -> str:
        return json.dumps({"game": self.game, "kind": self.kind, "descriptor": self.descriptor, "label": self.label}, ensure_ascii=False)

    @classmethod
    def from_json(cls, uid: str, text: str) -> "TagEntry":
        try:
            data = json.loads(text)
            entry = cls(data["game"], data["kind"], data["descriptor"], data.get("label", ""))
        except (ValueError, KeyError, TypeError) as error:
            raise BadTagEntry(f"tag {uid}: unreadable entry {text!r} ({error})") from None
        if not (isinstance(entry.game, str) and isinstance(entry.kind, str) and isinstance(entry.descriptor, dict)):
            raise BadTagEntry(f"tag {uid}: entry {text!r} needs game, kind (strings) and a descriptor object")
        return entry


def normalise_uid(uid: str) -> str:
    """A UID as the readers report it (lower-case hex), from a form a person may write ("04:A1:B2:C3")."""
    return uid.strip().lower().replace(":", "").replace(" ", "")


class TagMap:
    """The table's tag map, and enrolment's places (`tablemate:{table}:enrol`, game -> next place).
    Every change is one transaction that also keeps the local copy (firmware/journal/tagcopy.py,
    when `local_dir` is given), written before Redis."""

    def __init__(self, client: redis.Redis, table: str, local_dir: Path | None = None):
        self.client = client
        self.key = table_key(table, "tags")
        self.keys = {name: table_key(table, name) for name in HASHES}
        self.marker = marker_key(table)
        self.local = TagCopy(local_dir, table, check=_problem) if local_dir is not None else None
        self._entries: dict[str, TagEntry] = {}
        #: what the table should tell once (the map restored, the local copy damaged or failed)
        self.notices: list[tuple[tuple[str, ...], str]] = []

    def load(self) -> list[str]:
        """Read the whole map from Redis; returns the problems with entries that were skipped (all of
        them when the key holds another type of data: no tag is known, and the table says so once)."""
        try:
            stored = self.client.hgetall(self.key)
        except redis.ResponseError as error:
            if not is_wrong_type(error):
                raise
            self._entries = {}
            problem = (f"{self.key} holds a {self.client.type(self.key)}, not the tag map: no tag is known until it is written "
                       "again (a restart with the local copy, tablemate tags import FILE, or tablemate restore BACKUP)")
            self.notices.append((("Tag map unreadable", "Import tags again"), problem))
            return [problem]
        self._entries, problems = _parse(stored)
        return problems

    def get(self, uid: str) -> TagEntry | None:
        return self._entries.get(normalise_uid(uid))

    def items(self) -> list[tuple[str, TagEntry]]:
        return sorted(self._entries.items())

    def set(self, uid: str, entry: TagEntry) -> None:
        uid = normalise_uid(uid)
        self._change(lambda hashes: hashes["tags"].__setitem__(uid, entry.to_json()))
        self._entries[uid] = entry

    def set_many(self, entries: dict[str, TagEntry]) -> None:
        """Write many entries in one transaction (an import is all or nothing)."""
        entries = {normalise_uid(uid): entry for uid, entry in entries.items()}
        if entries:
            self._change(lambda hashes: hashes["tags"].update({uid: entry.to_json() for uid, entry in entries.items()}))
        self._entries.update(entries)

    def forget(self, uid: str) -> bool:
        uid = normalise_uid(uid)
        found: list[bool] = []
        self._change(lambda hashes: found.append(hashes["tags"].pop(uid, None) is not None))
        self._entries.pop(uid, None)
        return found[-1]

    def place(self, game: str, position: int | None) -> None:
        """Enrolment of `game` goes on at `position` next time (None: it is done)."""
        if position is None:
            self._change(lambda hashes: hashes["enrol"].pop(game, None))
        else:
            self._change(lambda hashes: hashes["enrol"].__setitem__(game, str(position)))

    def reconcile(self) -> None:
        """At start: Redis gets what the local copy holds and it lacks (tagcopy.py's rules), and the
        copy is written again whole; the notices say what happened."""
        if self.local is not None:
            self._change(None, boot=True)

    def restore(self) -> bool:
        """Write the map again when the store lost it (the key gone: FLUSHALL, a DEL), from the local
        copy when there is one (the places of enrolment too), else from memory; True when it did."""
        memory = {uid: entry.to_json() for uid, entry in self._entries.items()}
        filled: list[bool] = []

        def fill(hashes: Hashes) -> None:
            filled.append(not hashes["tags"] and bool(memory))
            hashes["tags"].update(memory if filled[-1] else {})

        return "tags" in self._change(fill) or filled[-1]

    def take_notices(self) -> list[tuple[tuple[str, ...], str]]:
        """What the table should tell once, oldest first; then forgotten."""
        notices = self.notices + (self.local.notices if self.local is not None else [])
        self.notices = []
        if self.local is not None:
            self.local.notices = []
        return notices

    def _change(self, change: Callable[[Hashes], None] | None, boot: bool = False) -> list[str]:
        """`change` the hashes (None: none) as Redis holds them, or as the local copy holds those
        Redis lacks, in one watched transaction; the hashes the local copy gave back to Redis."""
        return transact(self.client, (*self.keys.values(), self.marker), lambda pipe: self._write(pipe, change, boot))

    def _write(self, pipe: redis.client.Pipeline, change: Callable[[Hashes], None] | None, boot: bool) -> list[str]:
        stored, foreign = {}, []
        for name, key in self.keys.items():
            try:
                stored[name] = pipe.hgetall(key)
            except redis.ResponseError as error:  # a key of another type holds no field: written, it is kept aside first
                if not is_wrong_type(error):
                    raise
                stored[name] = {}
                foreign.append(name)
        (marker,) = pipe.execute_command("MGET", self.marker)  # None for a key of another type too (SET replaces it)
        held = self.local.held() if self.local is not None else None
        restored = held.restores(stored, marker, boot) if held is not None else []
        hashes = {name: dict(held.hashes[name] if name in restored else stored[name]) for name in HASHES}
        mended = self._mend(hashes, held) if self.local is not None else []
        if change is not None:
            change(hashes)
        version = self.local.ahead(held, self.local.readable(hashes), marker) if self.local is not None else None
        pipe.multi()
        for name, key in self.keys.items():
            gone = [field for field in stored[name] if field not in hashes[name]]
            if gone:
                pipe.hdel(key, *gone)
            changed = {field: value for field, value in hashes[name].items() if stored[name].get(field) != value}
            if changed and name in foreign:
                aside = aside_key(key)
                log.warning("%s holds another kind of data than its hash: renamed %s, and written again", key, aside)
                pipe.execute_command("RENAME", key, aside)  # as a command: see firmware.journal.core._mget
            if changed:
                pipe.hset(key, mapping=changed)
        pipe.set(self.marker, version or NO_COPY)
        pipe.execute()
        if restored:
            self._restored(held, restored)
        if mended:
            self._mended(hashes, mended)
        return restored

    def _mend(self, hashes: Hashes, held: Held | None) -> list[tuple[str, str]]:
        """Replace the unreadable fields of `hashes` (as Redis holds them) by the local copy's readable
        ones of the same name: the (hash, field) pairs mended. Those the copy lacks stay as they are."""
        unreadable = [(name, key) for name in HASHES for key, text in sorted(hashes[name].items()) if self.local.problem(name, key, text)]
        mended = [(name, key) for name, key in unreadable if held is not None and key in held.hashes[name]]
        for name, key in mended:
            hashes[name][key] = held.hashes[name][key]
        left = [f"{name} {key}" for name, key in unreadable if (name, key) not in mended]
        if left:
            log.warning("Redis holds unreadable fields the local copy %s cannot mend (it goes without them): %s", self.local.path,
                        ", ".join(left))
        return mended

    def _mended(self, hashes: Hashes, mended: list[tuple[str, str]]) -> None:
        self._entries.update(_parse({key: hashes["tags"][key] for name, key in mended if name == "tags"})[0])
        what = ", ".join(f"{'tag' if name == 'tags' else 'enrolment place of'} {key}" for name, key in mended)
        log.warning("Redis held unreadable fields of the tag map: %s; mended from the local copy %s", what, self.local.path)
        self.notices.append((("Tags mended", "From local copy"), f"Redis held unreadable {what}: mended from the local copy {self.local.path}"))

    def _restored(self, held: Held, restored: list[str]) -> None:
        if "tags" in restored:
            self._entries, _ = _parse(held.hashes["tags"])
        what = " and ".join({"tags": f"tag map ({len(held.hashes['tags'])} tags)",
                             "enrol": f"enrolment places ({len(held.hashes['enrol'])} games)"}[name] for name in restored)
        log.warning("Redis lacked the table's %s: written again from the local copy %s", what, self.local.path)
        self.notices.append((("Tags restored", "From local copy"), f"Redis lacked the table's {what}: written again from {self.local.path}"))

    def find(self, game: str, component_id: str) -> str | None:
        """The UID enrolled for component `component_id` of `game` (the desktop types ids as taps)."""
        for uid, entry in self._entries.items():
            if entry.game == game and entry.descriptor.get("id", entry.label) == component_id:
                return uid
        return None


def _parse(stored: dict[str, str]) -> tuple[dict[str, TagEntry], list[str]]:
    """Stored entries by UID, and the problems of those that are not entries (skipped)."""
    entries, problems = {}, []
    for uid, text in stored.items():
        try:
            entries[uid] = TagEntry.from_json(uid, text)
        except BadTagEntry as error:
            problems.append(str(error))
    return entries, problems


def _problem(uid: str, text: str) -> str | None:
    """What is wrong with a stored tag entry (the local copy's check); None: nothing."""
    problems = _parse({uid: text})[1]
    return problems[0] if problems else None
