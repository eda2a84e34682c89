"""How a game is stored, field by field, and how it is read back checked.

A game's stream holds entry `0-1`, its header (game, players, options, created, hints: what never
changes), then entry `{n}-0` for the n-th action or undo marker (a replacement's noted: REPLACING).
The header hash holds the same fields plus what changes (status, scores) and notes (forked_from,
forked_to, fork_reason, repaired).
The stream alone rebuilds a game; games stored before entry 0-1 existed have only the hash.

Entries deleted from the middle of a stream leave a gap in the ids (`scan`); entries deleted from
its end leave none, but Redis keeps its own record of the stream (XINFO STREAM): the last id it
generated, and from Redis 7.0 the largest id deleted and how many entries were ever added
(`deleted_tail`). Our own writes never delete an entry: a stream is only ever written again whole
(DEL, then XADD), which starts that record afresh.
"""

import json
import re
from dataclasses import dataclass, field
from typing import Any

#: the header's entry in the stream: the lowest id XADD accepts, below every action's `{n}-0`
HEAD_ID = "0-1"
#: the header fields that never change once a game has begun: they say which game it is (`cards`, the
#: seats player cards claimed, only when a card claimed one)
IDENTITY = ("game", "players", "options", "created", "hints", "cards")
#: header fields that link or explain (a game written again under a new gid, a repair)
NOTES = ("forked_from", "forked_to", "fork_reason", "repaired")
_ENTRY_ID = re.compile(r"([0-9]+)-0")
#: What a game id may look like before it gets anywhere near Redis (no `:`, `*`, `/`, `..`).
GID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


class CorruptJournal(Exception):
    """A stored game that cannot be replayed as stored. `entry` is the number of the first damaged
    entry (what `tablemate log repair --truncate-at` takes), None when the header is at fault."""

    def __init__(self, gid: str, reason: str, entry: int | None = None):
        super().__init__(f"game {gid}: {reason}")
        self.gid = gid
        self.reason = reason
        self.entry = entry

    @property
    def repair(self) -> str:
        """The command that deals with it."""
        if self.entry is None:
            return f"tablemate log check {self.gid}"
        return f"tablemate log repair {self.gid} --truncate-at {self.entry}"


class NoSuchGame(KeyError):
    """Nothing at all is stored under this gid (neither header nor stream)."""

    def __init__(self, gid: str, table: str):
        super().__init__(gid)
        self.gid = gid
        self.message = f"no game {gid!r} is stored at table {table!r}"

    def __str__(self) -> str:
        return self.message


@dataclass
class GameRecord:
    """A game as stored: its header and its entries, raw (`kind`, `action`) in order."""

    gid: str
    game: str
    players: list[str]
    options: dict[str, Any]
    created: float
    status: str
    entries: list[tuple[str, dict | None]] = field(default_factory=list)
    scores: list[dict] | None = None
    #: whether the table shows hints for this game (a table setting, not a rule option)
    hints: bool = True
    #: per seat, the id of the player whose card claimed it (None: a default name); None: no card at all
    cards: list[str | None] | None = None
    #: forked_from, forked_to, fork_reason, repaired: when the game was written again or repaired
    notes: dict[str, str] = field(default_factory=dict)
    #: the stored fields of entry 0-1 (None: a game stored before it existed) and of every entry load() read
    head: dict[str, str] | None = None
    raw: list[dict[str, str]] = field(default_factory=list)

    @property
    def actions(self) -> list[dict]:
        """The effective actions: each undo marker removes the last action still standing."""
        standing: list[dict] = []
        for kind, action in self.entries:
            if kind == "undo":
                if standing:
                    standing.pop()
            else:
                standing.append(action)
        return standing

    def header(self) -> dict:
        return {"game": self.game, "players": self.players, "options": self.options}

    def identity(self) -> dict[str, Any]:
        return {"game": self.game, "players": self.players, "options": self.options, "created": self.created, "hints": self.hints,
                "cards": self.cards}


def head_fields(game: str, players: list[str], options: dict, created: float, hints: bool,
                cards: list[str | None] | None = None) -> dict[str, str]:
    """The identity fields as stored, in entry 0-1 and in the hash."""
    fields = {
        "kind": "header",
        "game": game,
        "players": json.dumps(players),
        "options": json.dumps(options),
        "created": repr(created),
        "hints": "on" if hints else "off",
    }
    if cards:
        fields["cards"] = json.dumps(cards)
    return fields


class Replacing:
    """An undo marker written with the action that follows it in one transaction, which replaces the
    action it takes back (a card added to a play). Stored as `kind=undo` with `replaced=1`: a reader
    that ignores the note finds the same standing actions; the session rebuilds from it that the play
    before the card is one undo away (firmware.session)."""


REPLACING = Replacing()


def entry_fields(action: dict | Replacing | None, at: float) -> dict[str, str]:
    """An action (None: an undo marker; REPLACING: the marker of a replacement) as stored in its entry."""
    fields = {"kind": "action" if isinstance(action, dict) else "undo", "at": repr(at)}
    if isinstance(action, dict):
        fields["action"] = json.dumps(action, ensure_ascii=False)
    elif action is REPLACING:
        fields["replaced"] = "1"
    return fields


def replacing(fields: dict[str, str]) -> bool:
    """Whether stored entry `fields` is the undo marker of a replacement (REPLACING)."""
    return fields.get("kind") == "undo" and fields.get("replaced") == "1"


def parse_identity(gid: str, fields: dict[str, str], where: str) -> dict[str, Any]:
    """The identity fields of a header (hash or entry 0-1), checked; CorruptJournal names `where`."""
    try:
        identity = {
            "game": fields["game"],
            "players": json.loads(fields["players"]),
            "options": json.loads(fields["options"]),
            "created": float(fields["created"]),
            "hints": fields.get("hints", "on") != "off",
            "cards": json.loads(fields["cards"]) if fields.get("cards") else None,
        }
    except (KeyError, ValueError, TypeError) as error:
        raise CorruptJournal(gid, f"unreadable {where} ({error})") from None
    players, options, cards = identity["players"], identity["options"], identity["cards"]
    if not (isinstance(players, list) and all(isinstance(p, str) for p in players) and isinstance(options, dict)):
        raise CorruptJournal(gid, f"unreadable {where} (players must be names, options an object)")
    if cards is not None and not (isinstance(cards, list) and len(cards) == len(players)
                                  and all(c is None or isinstance(c, str) for c in cards)):
        raise CorruptJournal(gid, f"unreadable {where} (cards must be a player id or null per seat)")
    return identity


def parse_state(gid: str, fields: dict[str, str]) -> tuple[str, list[dict] | None]:
    """The status and scores of a header hash (a missing hash: playing, no scores)."""
    try:
        return fields.get("status", "playing"), json.loads(fields["scores"]) if fields.get("scores") else None
    except ValueError as error:
        raise CorruptJournal(gid, f"unreadable header (scores: {error})") from None


def gone(header: dict[str, str]) -> str:
    """Why a game whose header hash is stored, but not one entry of its stream (not even entry 0-1,
    which every game begun since it exists has), cannot be replayed: its entries were deleted."""
    return (f"its entries are gone: Redis holds its header (status {header.get('status') or 'playing'}) "
            "but no stream (deleted?)")


@dataclass(frozen=True)
class Tail:
    """Entries deleted from the end of a game's stream: from entry `first` to `last` (None: Redis's
    record does not say how far), and what Redis records, in words (`evidence`)."""

    first: int
    last: int | None
    evidence: str

    @property
    def reason(self) -> str:
        """In CorruptJournal's words, short enough for the screen with the repair command below it."""
        if self.last is None:
            newest = f"entry {self.first - 1}-0" if self.first > 1 else "its header"
            return f"entries after {newest} are missing (deleted from the end)"
        after = self.first + 1
        more = "" if self.last == self.first else f", and {after}-0" if self.last == after else f", and {after}-0 to {self.last}-0"
        return f"entry {self.first}-0 is missing{more} (deleted from the end)"


def stream_id(entry_id: str) -> tuple[int, int]:
    """A stream entry id as Redis orders it: (milliseconds, sequence)."""
    ms, _, sequence = entry_id.partition("-")
    return int(ms), int(sequence or 0)


def deleted_tail(stored: list[tuple[str, dict]], info: dict) -> Tail | None:
    """The entries deleted from the end of a stream that holds `stored` (at least one entry), as
    Redis's record of it, XINFO STREAM `info`, shows: its last-generated-id past the newest entry
    stored; or, from Redis 7.0, its max-deleted-entry-id past it (the last id set back by XSETID,
    which 7.0 allows and 8 refuses); or more entries added (entries-added) than the stored ones
    account for (entry 0-1, entries 1 to the newest, a gap among them included: a stream starting
    with entry 0-1 only). None: no sign."""
    if not stored or not info:
        return None
    top = stored[-1][0]
    newest = max((n for n in (entry_number(entry_id) for entry_id, _ in stored) if n), default=0)
    last, deleted, added = info.get("last-generated-id"), info.get("max-deleted-entry-id"), info.get("entries-added")
    if last and stream_id(last) > stream_id(top):
        return Tail(newest + 1, entry_number(last), f"its last id is {last}, past its newest entry {top}")
    if deleted and stream_id(deleted) > stream_id(top):
        return Tail(newest + 1, entry_number(deleted), f"Redis deleted ids up to {deleted}, past its newest entry {top}")
    foreign = sum(1 for entry_id, _ in stored if entry_id != HEAD_ID and entry_number(entry_id) is None)
    accounted = newest + 1 + foreign
    if added is not None and stored[0][0] == HEAD_ID and added > accounted:
        return Tail(newest + 1, newest + added - accounted,
                    f"Redis counts {added} entries ever added to it, entry 0-1 and entries up to {top} account for {accounted}")
    return None


def entry_number(entry_id: str) -> int | None:
    """n for an id `{n}-0` (n >= 1), None for any other id."""
    match = _ENTRY_ID.fullmatch(entry_id)
    return int(match.group(1)) if match and int(match.group(1)) > 0 else None


def scan(gid: str, stored: list[tuple[str, dict]], after: int = 0):
    """Walk stored entries (header excluded) numbered after `after`: yields (n, kind, action) for a
    good entry and CorruptJournal for a damaged one; after a gap it carries on from the entry found."""
    expected = after + 1
    for entry_id, fields in stored:
        if entry_id == HEAD_ID:
            continue
        number = entry_number(entry_id)
        if number is None:
            yield CorruptJournal(gid, f"entry {expected}-0 is missing (found {entry_id} instead)", expected)
            continue
        if number != expected:
            yield CorruptJournal(gid, f"entry {expected}-0 is missing (found {entry_id} instead)", expected)
            expected = number
        parsed = parse_entry(gid, number, fields)
        yield parsed if isinstance(parsed, CorruptJournal) else (number, *parsed)
        expected = number + 1


def parse_entry(gid: str, number: int, fields: dict) -> tuple[str, dict | None] | CorruptJournal:
    """(kind, action) of entry `number`, or the CorruptJournal that says what is wrong with it."""
    entry_id = f"{number}-0"
    kind = fields.get("kind")
    if kind == "undo":
        return "undo", None
    if kind != "action":
        return CorruptJournal(gid, f"entry {entry_id} has unknown kind {kind!r}", number)
    try:
        action = json.loads(fields["action"])
    except (KeyError, ValueError):
        return CorruptJournal(gid, f"entry {entry_id} holds no readable action: {fields.get('action')!r}", number)
    if not isinstance(action, dict):
        return CorruptJournal(gid, f"entry {entry_id} is not an action object: {action!r}", number)
    return "action", action
