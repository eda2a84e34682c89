"""The enrolled tag map: RFID UID -> which component of which game (`tablemate:{table}:tags`).

Kept in memory after loading, so taps are recognised while the store is away; every change is
written through to Redis at once.
"""

import json
from dataclasses import dataclass
from typing import Any

import redis

from .store import table_key


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
    def __init__(self, client: redis.Redis, table: str):
        self.client = client
        self.key = table_key(table, "tags")
        self._entries: dict[str, TagEntry] = {}

    def load(self) -> list[str]:
        """Read the whole map from Redis; returns the problems with entries that were skipped."""
        problems, entries = [], {}
        for uid, text in self.client.hgetall(self.key).items():
            try:
                entries[uid] = TagEntry.from_json(uid, text)
            except BadTagEntry as error:
                problems.append(str(error))
        self._entries = entries
        return problems

    def get(self, uid: str) -> TagEntry | None:
        return self._entries.get(normalise_uid(uid))

    def items(self) -> list[tuple[str, TagEntry]]:
        return sorted(self._entries.items())

    def set(self, uid: str, entry: TagEntry) -> None:
        uid = normalise_uid(uid)
        self.client.hset(self.key, uid, entry.to_json())
        self._entries[uid] = entry

    def set_many(self, entries: dict[str, TagEntry]) -> None:
        """Write many entries in one transaction (an import is all or nothing)."""
        entries = {normalise_uid(uid): entry for uid, entry in entries.items()}
        if entries:
            self.client.hset(self.key, mapping={uid: entry.to_json() for uid, entry in entries.items()})
        self._entries.update(entries)

    def restore(self) -> bool:
        """Write the whole map again when the store lost it (the key gone: FLUSHALL, a DEL); True when it did."""
        if not self._entries or self.client.exists(self.key):
            return False
        self.client.hset(self.key, mapping={uid: entry.to_json() for uid, entry in self._entries.items()})
        return True

    def forget(self, uid: str) -> bool:
        uid = normalise_uid(uid)
        self._entries.pop(uid, None)
        return bool(self.client.hdel(self.key, uid))

    def find(self, game: str, component_id: str) -> str | None:
        """The UID enrolled for component `component_id` of `game` (the desktop types ids as taps)."""
        for uid, entry in self._entries.items():
            if entry.game == game and entry.descriptor.get("id", entry.label) == component_id:
                return uid
        return None
