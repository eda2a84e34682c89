"""Arrival and removal of tags on one reader, from its successive polls.

A reader reports levels ("this UID is in the field now"); players expect taps. The rule:
- a UID that is not present *arrives* when a poll sees it;
- a present UID is *removed* when a poll finds the field empty at least `gap` seconds after the UID
  was last seen. A card that leaves and comes back before such a poll was never gone, so a card
  left on the reader, a shaky hand or a missed poll is one tap;
- a different UID seen while one is present removes the old one and arrives itself (a quick swap);
- an unreadable poll (two cards at once, a garbled answer) is neither a sighting nor an empty
  field: it changes nothing.
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
        self._last_seen = 0.0

    def update(self, result: PollResult, now: float) -> list[tuple[str, str]]:
        if isinstance(result, str):
            events = []
            if self.uid != result:
                if self.uid is not None:
                    events.append(("removed", self.uid))
                events.append(("arrived", result))
                self.uid = result
            self._last_seen = now
            return events
        if result is None and self.uid is not None and now - self._last_seen >= self.gap:
            uid, self.uid = self.uid, None
            return [("removed", uid)]
        return []
