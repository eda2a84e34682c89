"""Arrival and removal of tags on one reader, from its successive polls.

A reader reports levels ("this UID is in the field now"); players expect taps. The rule:
- a UID that is not present *arrives* when a poll sees it;
- a present UID is *removed* once polls that worked have found the field empty for `gap` seconds:
  the first empty poll after the UID was last seen starts the count, and an empty poll at least
  `gap` later ends it. A card that leaves and comes back before that was never gone, so a card left
  on the reader, a shaky hand or a missed poll is one tap;
- a different UID seen while one is present removes the old one and arrives itself (a quick swap);
- an unreadable poll (two cards at once, a garbled answer) is neither a sighting nor an empty
  field, and a poll that failed (the reader faulted) is no evidence at all: either one restarts the
  count, so removal is only ever judged from empty polls in a row.
"""

from dataclasses import dataclass


@dataclass(frozen=True)
class Unreadable:
    """A poll where something answered but no clean UID was read; `reason` is for the logs."""

    reason: str


PollResult = str | None | Unreadable


class Presence:
    """The presence state of one reader; `update` turns one poll into (kind, uid) events."""

    def __init__(self, gap: float):
        self.gap = gap
        self.uid: str | None = None
        self._empty_since: float | None = None

    def update(self, result: PollResult, now: float) -> list[tuple[str, str]]:
        if isinstance(result, str):
            self._empty_since = None
            if self.uid == result:
                return []
            events = [("removed", self.uid)] if self.uid is not None else []
            self.uid = result
            return events + [("arrived", result)]
        if result is not None:
            self.interrupted()
        elif self.uid is not None:
            if self._empty_since is None:
                self._empty_since = now
            elif now - self._empty_since >= self.gap:
                uid, self.uid, self._empty_since = self.uid, None, None
                return [("removed", uid)]
        return []

    def interrupted(self) -> None:
        """A poll that says nothing about an empty field (unreadable, or the reader failed)."""
        self._empty_since = None
