"""What the club page shows, read from the club's Redis: every table, its games, each player's record
and the tournament standings. Nothing here writes.

Tables are found by their `games` index (`tablemate:{<name>}:games`, SCAN, again every TABLES_S
seconds) and at once by their first update (`heard`); each table is read through the live view's Reader (firmware.web.reader), which replays a
game once for as long as its entry count stays the same.

Results count finished games only, and only games that started before now (a `created` more than
FUTURE_S ahead of the club's clock is a table's wrong clock or a forgery: left out, and logged). A
seat's placing is its rank by total, the game's winners (after its own tie-break) first: 1 + the
number of seats that did better (a winner when this seat is not one, or more points), so equal seats
share a place. Player records and tournaments count the seats player cards claimed
(firmware.club.players) where the club counts that card at that table (firmware.club.roster: the
table that enrolled it, or one it was exported to): a player is their card's id, shown with the
name the table that enrolled the card gives them (else the name of their newest game); other seats
belong to nobody.

A tournament ranks the card holders over a chosen set of finished games (filters below, all
optional and combined): by the sum of their placings (lower is better; equal sums: more points
first), or by the sum of their scores (higher is better; equal sums: the lower sum of placings
first). Both sums are only comparable between players who played as many of the chosen games, so
the standings show how many each played.
"""

import datetime
import logging
import re
import threading
import time
from dataclasses import dataclass, field

import redis

from ..web.reader import GID, Reader
from .roster import Cards

log = logging.getLogger(__name__)

#: seconds between two looks for new tables
TABLES_S = 5.0
#: how far ahead of the club's clock a game's start may be (the tables' clocks differ a little)
FUTURE_S = 3600.0
_GAMES_KEY = re.compile(r"tablemate:\{([a-z0-9][a-z0-9_-]{0,31})\}:games")
_UPDATES = re.compile(r"tablemate:\{([a-z0-9][a-z0-9_-]{0,31})\}:updates")
RANKINGS = ("placings", "scores")


class BadFilter(ValueError):
    """A tournament filter that cannot be read; the message says which."""


@dataclass(frozen=True)
class Seat:
    table: str
    gid: str
    game: str
    title: str
    created: float
    seat: int
    name: str
    player: str | None
    total: int
    place: int
    winner: bool
    seats: int
    #: the name the table that enrolled the card gives its player (None: no card counted, or no name there)
    known_as: str | None = None


@dataclass
class Record:
    """One player's record over some games: per game played, won, best, average, and last played."""

    player: str
    name: str
    last: float = 0.0
    games: dict[str, dict] = field(default_factory=dict)

    def add(self, seat: Seat) -> None:
        if seat.created >= self.last:
            self.last, self.name = seat.created, seat.known_as or seat.name
        mine = self.games.setdefault(seat.game, {"title": seat.title, "played": 0, "won": 0, "best": None, "sum": 0, "last": 0.0})
        mine["played"] += 1
        mine["won"] += seat.winner
        mine["sum"] += seat.total
        mine["best"] = seat.total if mine["best"] is None else max(mine["best"], seat.total)
        mine["last"] = max(mine["last"], seat.created)

    def to_json(self) -> dict:
        games = {name: {"title": g["title"], "played": g["played"], "won": g["won"], "best": g["best"],
                        "average": round(g["sum"] / g["played"], 1), "last_played": g["last"]} for name, g in sorted(self.games.items())}
        return {"player": self.player, "name": self.name, "played": sum(g["played"] for g in games.values()),
                "won": sum(g["won"] for g in games.values()), "last_played": self.last, "games": games}


def placings(scores: list[dict]) -> list[int]:
    """Each seat's place (module docstring): winners first, then by total; equal seats share a place."""
    def better(a: dict, b: dict) -> bool:
        return (a["winner"] and not b["winner"]) or (a["winner"] == b["winner"] and a["total"] > b["total"])

    return [1 + sum(better(other, mine) for other in scores) for mine in scores]


@dataclass(frozen=True)
class Selection:
    """Which finished games a tournament counts."""

    tables: tuple[str, ...] = ()
    game: str | None = None
    since: datetime.date | None = None
    until: datetime.date | None = None
    gids: tuple[str, ...] = ()
    rank: str = "placings"

    @classmethod
    def parse(cls, query) -> "Selection":
        """From a page's query string (`table`, `game`, `from`, `to`: YYYY-MM-DD, `gid`: table/gid,
        repeatable, `rank`: placings | scores); BadFilter names what is wrong."""
        unknown = set(query.keys()) - {"table", "game", "from", "to", "gid", "rank"}
        if unknown:
            raise BadFilter(f"unknown filter {sorted(unknown)[0]!r} (known: table, game, from, to, gid, rank)")

        def date(key: str) -> datetime.date | None:
            text = query.get(key)
            if not text:
                return None
            try:
                return datetime.date.fromisoformat(text)
            except ValueError:
                raise BadFilter(f"{key}={text!r} is not a date (YYYY-MM-DD)") from None

        rank = query.get("rank") or "placings"
        if rank not in RANKINGS:
            raise BadFilter(f"rank={rank!r}: placings or scores")
        gids = tuple(query.getlist("gid"))
        for item in gids:
            table, _, gid = item.partition("/")
            if not (_GAMES_KEY.fullmatch(f"tablemate:{{{table}}}:games") and GID.fullmatch(gid)):
                raise BadFilter(f"gid={item!r} is not <table>/<game id>")
        return cls(tuple(query.getlist("table")), query.get("game") or None, date("from"), date("to"), gids, rank)

    def counts(self, seat: Seat) -> bool:
        day = datetime.date.fromtimestamp(seat.created)
        return ((not self.tables or seat.table in self.tables) and (self.game is None or seat.game == self.game)
                and (self.since is None or day >= self.since) and (self.until is None or day <= self.until)
                and (not self.gids or f"{seat.table}/{seat.gid}" in self.gids))


def _claims(summary: dict) -> list[str | None]:
    """The card each seat of a game claimed (None: none), from its header as the table wrote it."""
    cards, seats = summary.get("cards"), len(summary["scores"])
    if not isinstance(cards, list) or len(cards) != seats:
        return [None] * seats
    return [card if isinstance(card, str) else None for card in cards]


class Club:
    def __init__(self, client: redis.Redis):
        self.client = client
        self._readers: dict[str, Reader] = {}
        self._looked = float("-inf")
        self._lock = threading.Lock()
        #: (table, gid) of the games left out for a start in the future, logged once each
        self._ahead: set[tuple[str, str]] = set()

    def tables(self) -> list[str]:
        """Every table with games at the club, by name (found again every TABLES_S seconds)."""
        if time.monotonic() - self._looked >= TABLES_S:
            for key in self.client.scan_iter(match="tablemate:*:games", count=1000):
                match = _GAMES_KEY.fullmatch(key)
                if match:
                    self._add(match.group(1))
            self._looked = time.monotonic()
        with self._lock:
            return sorted(self._readers)

    def heard(self, channel: str) -> None:
        """A table's update arrived (the live page's listener): a table not known yet is added now."""
        match = _UPDATES.fullmatch(channel)
        if match:
            self._add(match.group(1))

    def _add(self, table: str) -> None:
        with self._lock:
            if table not in self._readers:
                self._readers[table] = Reader(self.client, table)

    def reader(self, table: str) -> Reader | None:
        return self._readers.get(table) if table in self.tables() else None

    def online(self) -> dict[str, bool]:
        """Whether each table's uplink holds its lease at the club now (it copies, or did seconds ago)."""
        names = self.tables()
        with self.client.pipeline(transaction=False) as pipe:
            for name in names:
                pipe.exists(self._readers[name].journal.lease_key)
            return dict(zip(names, map(bool, pipe.execute())))

    def seats(self) -> list[Seat]:
        """Every seat of every finished game of every table, oldest game first; a seat's player is the
        card it claimed where the club counts that card at that table (module docstring), else None."""
        games = [(table, s) for table in self.tables() for s in self._readers[table].summaries()
                 if s.get("status") == "over" and not self._ahead_of_now(table, s)]
        claims = {(table, s["gid"]): _claims(s) for table, s in games}
        claimed = {card for cards in claims.values() for card in cards if card}
        cards = Cards.read(self.client, sorted({table for table, _ in games}), claimed) if claimed else Cards()
        seats = []
        for table, s in games:
            places = placings(s["scores"])
            for score, place, card in zip(s["scores"], places, claims[table, s["gid"]]):
                player = card if card and cards.counts(table, card) else None
                seats.append(Seat(table, s["gid"], s["game"], s["title"], s["created"], score["seat"], score["player"], player,
                                  score["total"], place, score["winner"], len(s["scores"]), cards.name(player) if player else None))
        return sorted(seats, key=lambda seat: (seat.created, seat.table, seat.gid, seat.seat))

    def _ahead_of_now(self, table: str, summary: dict) -> bool:
        """Whether a game starts more than FUTURE_S after now by the club's clock (logged once)."""
        if summary["created"] <= time.time() + FUTURE_S:
            return False
        if (table, summary["gid"]) not in self._ahead:
            self._ahead.add((table, summary["gid"]))
            log.warning("game %s of table %s starts in the future (%s): left out of the results; check that table's clock",
                        summary["gid"], table, datetime.datetime.fromtimestamp(summary["created"]).isoformat(timespec="seconds"))
        return True

    def records(self, seats: list[Seat] | None = None) -> list[dict]:
        """Each card holder's record, by name."""
        records: dict[str, Record] = {}
        for seat in self.seats() if seats is None else seats:
            if seat.player:
                records.setdefault(seat.player, Record(seat.player, seat.name)).add(seat)
        return sorted((r.to_json() for r in records.values()), key=lambda r: r["name"].lower())

    def tournament(self, selection: Selection) -> dict:
        """The standings of the card holders over the games `selection` counts (module docstring)."""
        chosen = [seat for seat in self.seats() if selection.counts(seat)]
        rows: dict[str, dict] = {}
        for seat in chosen:
            if seat.player is None:
                continue
            row = rows.setdefault(seat.player, {"player": seat.player, "name": seat.name, "games": 0, "placings": 0, "scores": 0,
                                                "wins": 0, "last": 0.0})
            row["games"] += 1
            row["placings"] += seat.place
            row["scores"] += seat.total
            row["wins"] += seat.winner
            if seat.created >= row["last"]:
                row["last"], row["name"] = seat.created, seat.known_as or seat.name
        if selection.rank == "placings":
            order = sorted(rows.values(), key=lambda r: (r["placings"], -r["scores"], r["name"].lower()))
            key = lambda r: (r["placings"], -r["scores"])  # noqa: E731
        else:
            order = sorted(rows.values(), key=lambda r: (-r["scores"], r["placings"], r["name"].lower()))
            key = lambda r: (-r["scores"], r["placings"])  # noqa: E731
        standings = []
        for position, row in enumerate(order):
            rank = position + 1 if position == 0 or key(row) != key(order[position - 1]) else standings[-1]["rank"]
            standings.append({"rank": rank, **{k: v for k, v in row.items() if k != "last"}})
        games = sorted({(seat.table, seat.gid, seat.title, seat.created) for seat in chosen}, key=lambda g: g[3])
        return {"rank": selection.rank, "games": [{"table": t, "gid": g, "title": title, "created": c} for t, g, title, c in games],
                "standings": standings}
