"""Player cards: a personal tag that names its player at any table of the club.

A card is an entry of the tag map (so `tags export/import` and backups carry it) of kind "player"
and no game, its descriptor `{"id": ..., "name": ..., "ticket": ...}`. The id is made from the
card's UID, so the same card enrolled at two tables is the same player there, and a rename keeps the
player's record. The ticket is a random secret made when the card is enrolled: it travels with the
card in a tag file to the owner's other tables, and the club counts a table's games with that card
only when the table holds the ticket of the table that enrolled it (firmware.club.roster). A card
enrolled before tickets existed gets one when its table starts (`Players.ticket_all`).

Enrolment is like a component's: `tablemate players add NAME` leaves the name waiting
(`tablemate:{table}:players:pending`); the table then asks for the card on its screen ("Tap the
card of Ana") and the next tag tapped becomes Ana's card. Tapping a card on a seat's reader while a
game is being set up claims that seat for that player (`Seating`); seats nobody claims keep the
table's default names, and only claimed seats count in a player's record at the club.
"""

import hashlib
import re
import secrets
from dataclasses import dataclass, field

from ..store import table_key
from ..tagmap import TagEntry, TagMap, normalise_uid

KIND = "player"
#: the game field of a player card: it belongs to no game
NO_GAME = ""
MAX_NAME = 20
#: a card's ticket: 128 random bits in hex
TICKET = re.compile(r"[0-9a-f]{32}")


class BadPlayer(ValueError):
    """A player name or card that cannot be used; the message says why."""


def is_card(entry: TagEntry | None) -> bool:
    return entry is not None and entry.kind == KIND and entry.game == NO_GAME


def player_id(uid: str) -> str:
    """A player's id, from their card's UID (the same card is the same player at every table)."""
    return "p-" + hashlib.sha256(normalise_uid(uid).encode()).hexdigest()[:12]


def card(uid: str, name: str, ticket: str | None = None) -> TagEntry:
    """`name`'s card on tag `uid`, with `ticket` (a new one when None)."""
    return TagEntry(NO_GAME, KIND, {"id": player_id(uid), "name": name, "ticket": ticket or secrets.token_hex(16)}, name)


def ticket_of(entry: TagEntry) -> str | None:
    """The card's ticket (None: enrolled before tickets existed)."""
    return entry.descriptor.get("ticket")


def check_name(name: object) -> str:
    """A player's name as a person typed it, checked: the screen and the club page show it."""
    if not isinstance(name, str) or not name.strip():
        raise BadPlayer("a player's name must not be empty")
    if name != name.strip() or "  " in name:
        raise BadPlayer(f"{name!r}: no spaces around a name or doubled inside it")
    if len(name) > MAX_NAME or not name.isprintable():
        raise BadPlayer(f"{name!r}: at most {MAX_NAME} printable characters")
    return name


def descriptor_problem(uid: str, descriptor: object, label: str) -> str | None:
    """What is wrong with a player card as a tag file has it (None: nothing)."""
    if not isinstance(descriptor, dict) or not {"id", "name"} <= set(descriptor) <= {"id", "name", "ticket"}:
        return "a player card's descriptor has id, name and ticket (a card exported before tickets existed: id and name)"
    if "ticket" in descriptor and not (isinstance(descriptor["ticket"], str) and TICKET.fullmatch(descriptor["ticket"])):
        return "a player card's ticket is 32 hex digits, as its table made it"
    try:
        check_name(descriptor["name"])
    except BadPlayer as error:
        return str(error)
    if descriptor["id"] != player_id(uid):
        return f"id {descriptor['id']!r} is not this card's ({player_id(uid)}): it is made from the UID"
    if label not in ("", descriptor["name"]):
        return "a player card's label is the player's name"
    return None


class Players:
    """The player cards of a table's tag map, and the names waiting for their card."""

    def __init__(self, tags: TagMap, table: str):
        self.tags = tags
        self.pending_key = table_key(table, "players", "pending")

    def cards(self) -> list[tuple[str, TagEntry]]:
        """(uid, card) of every player, by name."""
        return sorted(((uid, e) for uid, e in self.tags.items() if is_card(e)), key=lambda item: item[1].label.lower())

    def find(self, name: str) -> str | None:
        """The UID of `name`'s card (names compare without case)."""
        return next((uid for uid, entry in self.cards() if entry.label.lower() == name.lower()), None)

    def pending(self) -> list[str]:
        return self.tags.client.lrange(self.pending_key, 0, -1)

    def add(self, name: str) -> None:
        """Leave `name` waiting for its card, tapped at the table."""
        check_name(name)
        if self.find(name):
            raise BadPlayer(f"{name} already has a card ({self.find(name)}): rename or forget it first")
        if name.lower() in (p.lower() for p in self.pending()):
            raise BadPlayer(f"{name} already waits for a card to be tapped at the table")
        self.tags.client.rpush(self.pending_key, name)

    def cancel(self, name: str) -> bool:
        return bool(self.tags.client.lrem(self.pending_key, 0, name))

    def enrol(self, uid: str, name: str) -> TagEntry:
        """Make the tag `uid` the card of `name` (the table does this when it is tapped); a card
        `name` had before is forgotten, and `name` no longer waits."""
        previous = self.find(name)
        if previous is not None and previous != normalise_uid(uid):
            self.tags.forget(previous)
        held = self.tags.get(uid)
        entry = card(uid, name, ticket_of(held) if is_card(held) else None)
        self.tags.set(uid, entry)
        self.cancel(name)
        return entry

    def rename(self, old: str, new: str) -> TagEntry:
        uid = self._uid(old)
        check_name(new)
        other = self.find(new)
        if other is not None and other != uid:
            raise BadPlayer(f"{new} already has a card ({other})")
        entry = card(uid, new, ticket_of(self.tags.get(uid)))
        self.tags.set(uid, entry)
        return entry

    def ticket_all(self) -> int:
        """Give a ticket to every card enrolled before tickets existed (the table does it at start);
        how many got one."""
        missing = {uid: card(uid, entry.descriptor["name"]) for uid, entry in self.cards() if ticket_of(entry) is None}
        self.tags.set_many(missing)
        return len(missing)

    def forget(self, name: str) -> str:
        """Forget `name`'s card (their games stay as they were); the card's UID."""
        uid = self._uid(name)
        self.tags.forget(uid)
        return uid

    def _uid(self, name: str) -> str:
        uid = self.find(name)
        if uid is None:
            known = ", ".join(entry.label for _, entry in self.cards()) or "none"
            raise BadPlayer(f"no player card for {name!r}; the players are: {known}")
        return uid


@dataclass
class Seating:
    """Who claimed which seat with their card while a game is set up."""

    #: seat -> (name, player id)
    claims: dict[int, tuple[str, str]] = field(default_factory=dict)

    def claim(self, seat: int, entry: TagEntry) -> None:
        """`entry`'s player takes `seat`, leaving any seat they had claimed before."""
        player = entry.descriptor["id"]
        self.claims = {s: c for s, c in self.claims.items() if c[1] != player}
        self.claims[seat] = (entry.descriptor["name"], player)

    def seat(self, defaults: list[str]) -> tuple[list[str], list[str | None] | None]:
        """The names for seats `defaults` with the claims applied (a default name that a player
        took elsewhere becomes "Player n"), and each seat's player id (None: no card; the whole list
        None when nobody claimed a seat of these)."""
        n = len(defaults)
        names = list(defaults)
        cards: list[str | None] = [None] * n
        for seat, (name, player) in self.claims.items():
            if seat < n:
                names[seat], cards[seat] = name, player
        taken = {names[seat].lower() for seat in range(n) if cards[seat]}
        for seat in range(n):
            if cards[seat] is None and names[seat].lower() in taken:
                names[seat] = f"Player {seat + 1}"
        return names, cards if any(cards) else None
