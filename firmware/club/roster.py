"""Player cards at the club: each table's roster, the registry of who enrolled each card, and which
seats count in a player's record.

- Each table's uplink publishes its player cards as its roster, `tablemate:{<table>}:players`
  (player id -> {"name", "ticket"}), and claims each of them in the club's registry,
  `tablemate:card:<player id>` -> the table's name, with SETNX: the first table to claim a card holds
  it for good. A table's ACL (acl.py) allows SETNX and GET there, never SET or DEL, so the club's
  Redis itself keeps the first claim; a table reads no other table's roster.
- A finished game's seat counts for the card it claimed when the game's table holds the card, or
  when that table's roster has the card with the holder's ticket: the owner exported the card to it
  (`tablemate tags export` at one table, `tags import` at the other; firmware.club.players). A table
  that writes another table's card into its games, without that ticket, counts for nobody.
- A player is shown by the name the holder's roster gives them.
"""

import json
import logging
from dataclasses import dataclass, field

import redis

from ..store import table_key
from ..tagmap import BadTagEntry, TagEntry
from .players import is_card, ticket_of

log = logging.getLogger(__name__)

#: the registry's keys: tablemate:card:<player id> -> the name of the table that enrolled the card
REGISTRY = "tablemate:card:"


def registry_key(player: str) -> str:
    return REGISTRY + player


def roster_key(table: str) -> str:
    return table_key(table, "players")


def roster_of(stored: dict[str, str]) -> dict[str, dict]:
    """The roster of a table's tag map as stored (uid -> entry JSON): player id -> name and ticket."""
    roster = {}
    for uid, text in stored.items():
        try:
            entry = TagEntry.from_json(uid, text)
        except BadTagEntry:
            continue  # the table itself says so; it names nobody here
        if is_card(entry):
            roster[entry.descriptor["id"]] = {"name": entry.descriptor["name"], "ticket": ticket_of(entry)}
    return roster


def publish(client: redis.Redis, table: str, roster: dict[str, dict]) -> dict[str, str]:
    """Write `table`'s roster at the club and claim its cards in the registry; the cards another
    table holds, with that table's name."""
    with client.pipeline(transaction=True) as pipe:
        pipe.delete(roster_key(table))
        if roster:
            pipe.hset(roster_key(table), mapping={player: json.dumps(card, ensure_ascii=False) for player, card in roster.items()})
        pipe.execute()
    players = sorted(roster)
    with client.pipeline(transaction=False) as pipe:
        for player in players:
            pipe.setnx(registry_key(player), table)
            pipe.get(registry_key(player))
        replies = pipe.execute()
    holders = dict(zip(players, replies[1::2]))
    return {player: holder for player, holder in holders.items() if holder != table}


@dataclass
class Cards:
    """Who holds each card at the club, and each table's roster: which seats count, and names."""

    holders: dict[str, str] = field(default_factory=dict)
    rosters: dict[str, dict[str, dict]] = field(default_factory=dict)

    @classmethod
    def read(cls, client: redis.Redis, tables: list[str], players: set[str]) -> "Cards":
        """The registry's holders of `players` and the rosters of `tables`, in one round trip."""
        players_, tables_ = sorted(players), sorted(tables)
        with client.pipeline(transaction=False) as pipe:
            for player in players_:
                pipe.get(registry_key(player))
            for table in tables_:
                pipe.hgetall(roster_key(table))
            replies = pipe.execute(raise_on_error=False)
        holders = {p: h for p, h in zip(players_, replies) if isinstance(h, str)}
        rosters = {t: _cards(r) for t, r in zip(tables_, replies[len(players_):])}
        return cls(holders, rosters)

    def counts(self, table: str, player: str) -> bool:
        """Whether a seat of a game of `table` counts for card `player` (the module docstring)."""
        holder = self.holders.get(player)
        if holder is None:
            return False
        if holder == table:
            return True
        ticket = self.rosters.get(table, {}).get(player, {}).get("ticket")
        return bool(ticket) and ticket == self.rosters.get(holder, {}).get(player, {}).get("ticket")

    def name(self, player: str) -> str | None:
        """The name the card's holder gives its player (None: it holds no such card now)."""
        return self.rosters.get(self.holders.get(player, ""), {}).get(player, {}).get("name")


def _cards(stored: object) -> dict[str, dict]:
    """A roster as stored, each card {"name": text, "ticket": text or None}; anything else left out."""
    cards = {}
    for player, text in (stored.items() if isinstance(stored, dict) else ()):
        try:
            card = json.loads(text)
        except ValueError:
            continue
        if isinstance(card, dict) and isinstance(card.get("name"), str) and isinstance(card.get("ticket"), (str, type(None))):
            cards[player] = card
    return cards
