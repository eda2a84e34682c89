"""Everything the web view reads from Redis, and only reads: the current game, any game, the history.

Replays are cached by game and entry count (the journal only appends, so a count names one content);
a cached game reads and replays only the entries added since, so an update costs the same at the
end of a long game as at its start. Redis errors meaning "not answering" become StoreDown, so the
pages can say so and carry on when it is back.
"""

import threading
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import replace
from typing import Iterator

import engines
import redis

from ..journal import OUTAGE, CorruptJournal, GameRecord, Journal
from ..session import GID
from .replay import Replay

#: Games kept replayed in memory besides the current one.
CACHED_GAMES = 8
#: How many of the newest games the history lists.
HISTORY = 50


class StoreDown(Exception):
    """Redis does not answer; the message says so in words for the page."""


class NoSuchGame(LookupError):
    """A game id that is malformed or not stored at this table; the message says which."""


class Reader:
    def __init__(self, client: redis.Redis, table: str):
        self.journal = Journal(client, table)
        self.table = table
        self._replays: OrderedDict[str, Replay] = OrderedDict()
        #: gid -> (entry count, summary)
        self._summaries: dict[str, tuple[int, dict]] = {}
        self._lock = threading.Lock()

    def current(self) -> Replay | None:
        """The game in progress (or the last one, once over), None when the table has none yet."""
        with _store():
            gid = self.journal.current()
            return None if gid is None else self._replay(gid, missing="the current game is not stored")

    def game(self, gid: str) -> Replay:
        """Game `gid`; NoSuchGame for an id that is malformed or unknown here."""
        if not isinstance(gid, str) or not GID.fullmatch(gid):
            raise NoSuchGame(f"{gid!r} is not a game id (letters, digits, '-' and '_', at most 64)")
        with _store():
            return self._replay(gid, missing=None)

    def history(self) -> tuple[list[dict], int]:
        """Summaries of the newest HISTORY games, newest first, and how many games are stored in all."""
        with _store():
            gids = self.journal.games()
            return self.summaries(gids[::-1][:HISTORY]), len(gids)

    def summaries(self, gids: list[str] | None = None) -> list[dict]:
        """Summaries of games `gids` (every stored game, oldest first, when None): each replayed once
        for as long as its entry count stays the same."""
        with _store():
            gids = self.journal.games() if gids is None else gids
            current = self.journal.current()
            lengths = self.journal.lengths(gids)
            return [self._summary(gid, n, gid == current) for gid, n in zip(gids, lengths)]

    # -- internals ---------------------------------------------------------------------------------

    def _replay(self, gid: str, missing: str | None) -> Replay:
        n = self.journal.lengths([gid])[0]
        with self._lock:
            cached = self._replays.get(gid)
            if cached is not None and cached.entries == n:
                self._replays.move_to_end(gid)
                return cached
        if cached is not None and n > cached.entries:
            replay = cached.extended(self._grown(cached.record, n))
        else:
            try:
                record = self.journal.load(gid)
            except KeyError:
                if missing:
                    raise CorruptJournal(gid, missing) from None
                raise NoSuchGame(f"no game {gid!r} at table {self.table!r}") from None
            replay = Replay.of(record)
        with self._lock:
            self._replays[gid] = replay
            self._replays.move_to_end(gid)
            while len(self._replays) > CACHED_GAMES + 1:
                self._replays.popitem(last=False)
        return replay

    def _grown(self, record: GameRecord, n: int) -> GameRecord:
        """`record` with the entries stored after it, up to entry `n`, read and checked by the journal."""
        added = self.journal.entries(record.gid, after=len(record.entries), upto=n)
        return replace(record, entries=record.entries + added)

    def _summary(self, gid: str, n: int, current: bool) -> dict:
        known = self._summaries.get(gid)
        if known is None or known[0] != n:
            known = self._summaries[gid] = (n, self._summarise(gid))
        return {**known[1], "current": current}

    def _summarise(self, gid: str) -> dict:
        try:
            record = self.journal.load(gid)
        except KeyError:
            return {"gid": gid, "error": "no stored header"}
        except CorruptJournal as error:
            return {"gid": gid, "error": str(error)}
        summary = {"gid": gid, "game": record.game, "players": record.players, "cards": record.cards, "created": record.created,
                   "entries": len(record.entries)}
        try:
            game = engines.get(record.game)
            state = game.replay(record.players, record.options, record.actions)
        except (engines.UnknownGame, engines.IllegalAction) as error:
            return {**summary, "error": f"cannot be replayed: {error}"}
        over = game.is_over(state)
        winners = game.winners(state) if over else []
        return {
            **summary,
            "title": game.title,
            "status": "over" if over else "playing",
            "phase": game.phase(state),
            "scores": [{"seat": seat, "player": s.player, "total": s.total, "winner": seat in winners} for seat, s in enumerate(game.scores(state))],
            "winners": winners,
        }


@contextmanager
def _store() -> Iterator[None]:
    """Turn "Redis is not answering" into StoreDown; every other error stays what it is."""
    try:
        yield
    except OUTAGE as error:
        raise StoreDown(f"the store (Redis) is not answering: {error}") from None
