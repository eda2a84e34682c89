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
  count, so removal is only ever judged from empty polls in a row. A phone's or bank card's random
  ID is surely no component: for removal it is an empty field;
- polls that stay unreadable for `gap` seconds, with no clean read nor empty field in between, are
  reported once (*unreadable*, with what the player can do about it): a card sliding in that reads
  cleanly a poll later is no trouble, but two cards stacked get an answer, as an unknown tag does,
  instead of silence. A random ID is never such noise: it is reported at once, so a phone only
  tapped is answered too. Once reported, the stretch ends only with a clean read or a field empty
  for `gap` (a phone's field flickers: it is said once while it stays).
"""

from dataclasses import dataclass


#: what the table says about an unreadable field, unless the reader knows better
GARBLED = "Tag unreadable: again"


@dataclass(frozen=True)
class Unreadable:
    """A poll where something answered but no clean UID was read; `reason` is for the logs, `short`
    for the players (a few words: what to do). `vacant`: what answered is surely no component (a
    phone's random ID), so for removal the field counts as empty."""

    reason: str
    short: str = GARBLED
    vacant: bool = False


PollResult = str | None | Unreadable


class Presence:
    """The presence state of one reader; `update` turns one poll into (kind, uid) events."""

    def __init__(self, gap: float):
        self.gap = gap
        self.uid: str | None = None
        self._empty_since: float | None = None
        self._unreadable_since: float | None = None
        self._said = False  # the present stretch of unreadable polls was reported
        self._clear_since: float | None = None  # since when the field is empty after it was reported

    def update(self, result: PollResult, now: float) -> list[tuple[str, str]]:
        """(kind, uid) events: ("arrived", uid), ("removed", uid); and ("unreadable", short) once a
        stretch of unreadable polls has lasted `gap` (at once for a random ID)."""
        if isinstance(result, Unreadable):
            said = self._unreadable(result, now)
            if not result.vacant:
                self.interrupted()
                return said
            return self._empty(now) + said
        self._unreadable_since = None
        if result is None:
            self._cleared(now)
            return self._empty(now)
        self._said, self._clear_since = False, None
        return self._seen(result)

    def _seen(self, uid: str) -> list[tuple[str, str]]:
        self._empty_since = None
        if self.uid == uid:
            return []
        events = [("removed", self.uid)] if self.uid is not None else []
        self.uid = uid
        return events + [("arrived", uid)]

    def _empty(self, now: float) -> list[tuple[str, str]]:
        if self.uid is not None:
            if self._empty_since is None:
                self._empty_since = now
            elif now - self._empty_since >= self.gap:
                uid, self.uid, self._empty_since = self.uid, None, None
                return [("removed", uid)]
        return []

    def _unreadable(self, result: Unreadable, now: float) -> list[tuple[str, str]]:
        self._clear_since = None
        if self._unreadable_since is None:
            self._unreadable_since = now
        if self._said or not result.vacant and now - self._unreadable_since < self.gap:
            return []
        self._said = True
        return [("unreadable", result.short)]

    def _cleared(self, now: float) -> None:
        """An empty poll: what was reported may be said again once the field stays empty for `gap`."""
        if not self._said:
            return
        if self._clear_since is None:
            self._clear_since = now
        elif now - self._clear_since >= self.gap:
            self._said, self._clear_since = False, None

    def interrupted(self) -> None:
        """A poll that says nothing about an empty field (unreadable, or the reader failed)."""
        self._empty_since = None
