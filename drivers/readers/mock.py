"""The mock reader: tests and the desktop put cards on it and lift them off.

`place`, `lift` and `tap` act synchronously: each runs one poll of this reader in the caller's
thread, so an arrival is already on the sink when `place()` returns. A removal needs the field to be
empty for the reader's gap (the same rule as real readers): it is emitted by a later poll, i.e. by
the group's polling thread, by `ReaderGroup.poll_once()`, or by the next `place()` of another card.
With an injected clock, advance it past the gap and call `poll_once()` to see the removal.
"""

import re

from .base import Reader
from .presence import PollResult

_UID = re.compile(r"(?:[0-9a-f]{8}|[0-9a-f]{14}|[0-9a-f]{20})")


def normalise_uid(uid: str) -> str:
    """A UID as lower-case hex of 4, 7 or 10 bytes; anything else raises ValueError."""
    text = uid.strip().lower() if isinstance(uid, str) else ""
    if not _UID.fullmatch(text):
        raise ValueError(f"UID {uid!r}: expected 8, 14 or 20 hex digits (a 4-, 7- or 10-byte UID)")
    return text


class MockReader(Reader):
    """A reader whose field holds whatever card was last placed on it."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.card: str | None = None

    def place(self, uid: str) -> None:
        """A card arrives and rests on the reader."""
        self.card = normalise_uid(uid)
        self.poll()

    def lift(self) -> None:
        """The card leaves the reader (its removal is reported once the gap has passed)."""
        self.card = None
        self.poll()

    def tap(self, uid: str) -> None:
        """A card is placed and lifted again at once."""
        self.place(uid)
        self.lift()

    def _read(self) -> PollResult:
        return self.card
