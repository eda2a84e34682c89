"""The durable game journal in Redis (architecture.md, "The journal").

Keys, all under `tablemate:{table}:`:
- `game:{gid}:log` stream: one entry per accepted action (`kind=action`, `action`=JSON) or undo marker
  (`kind=undo`); entry ids are `{n}-0` for the n-th entry, so a write repeated after an outage is
  refused by Redis instead of being stored twice, and a missing entry is seen at recovery.
- `game:{gid}` hash: game, players, options, created, status (playing | over), scores when over.
- `current`: the gid of the game in progress; `games`: gids by start time; `updates`: pub/sub.

Writes are queued in order and flushed at once. When Redis does not answer, the queue waits in memory
(`offline` is true, the screen shows a badge) and `flush()` retries later: nothing is lost, reordered
or duplicated. Undo appends a marker and never deletes: the audit trail stays.
"""

import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable

import redis

#: Redis errors that mean "the server is not answering now" (as opposed to a bug or a bad command).
OUTAGE = (redis.ConnectionError, redis.TimeoutError, OSError)


class CorruptJournal(Exception):
    """A journal that cannot be replayed as stored; the message names the game and the entry."""


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


class Journal:
    """Reads and writes one table's games in Redis; writes survive outages in order."""

    def __init__(self, client: redis.Redis, table: str, clock: Callable[[], float] = time.time):
        self.client = client
        self.table = table
        self.clock = clock
        self._pending: list[Callable[[redis.Redis], None]] = []
        self.offline = False

    # -- keys ------------------------------------------------------------------------------------

    def key(self, *parts: str) -> str:
        return ":".join(("tablemate", self.table, *parts))

    def log_key(self, gid: str) -> str:
        return self.key("game", gid, "log")

    # -- writes (queued, flushed in order) -------------------------------------------------------

    @property
    def pending(self) -> int:
        return len(self._pending)

    def begin_game(self, gid: str, game: str, players: list[str], options: dict, hints: bool = True) -> None:
        created = self.clock()
        header = {
            "game": game,
            "players": json.dumps(players),
            "options": json.dumps(options),
            "created": repr(created),
            "status": "playing",
            "hints": "on" if hints else "off",
        }

        def write(r: redis.Redis) -> None:
            with r.pipeline(transaction=True) as pipe:
                pipe.hset(self.key("game", gid), mapping=header)
                pipe.zadd(self.key("games"), {gid: created})
                pipe.set(self.key("current"), gid)
                pipe.execute()
            self._publish(r, {"event": "new_game", "gid": gid})

        self._queue(write)

    def append(self, gid: str, number: int, *actions: dict | None) -> None:
        """Entries `number`, `number + 1`... (1-based, undo markers counted) of game `gid`, each an
        action or None for an undo marker. Several are written in one transaction: all or none, so a
        replaced action (undo + action) can never lose the first without its replacement."""
        entries = []
        for offset, action in enumerate(actions):
            fields = {"kind": "undo" if action is None else "action", "at": repr(self.clock())}
            if action is not None:
                fields["action"] = json.dumps(action, ensure_ascii=False)
            entries.append((number + offset, fields))

        def write(r: redis.Redis) -> None:
            with r.pipeline(transaction=True) as pipe:
                for entry, fields in entries:
                    pipe.xadd(self.log_key(gid), fields, id=f"{entry}-0")
                results = pipe.execute(raise_on_error=False)
            for result in results:
                # "equal or smaller": written before the connection dropped; the id makes a retry harmless
                if isinstance(result, redis.ResponseError) and "equal or smaller" not in str(result):
                    raise result
            last, fields = entries[-1]
            self._publish(r, {"event": fields["kind"], "gid": gid, "entry": last})

        self._queue(write)

    def set_status(self, gid: str, status: str, scores: list[dict] | None = None) -> None:
        mapping = {"status": status, "scores": json.dumps(scores) if scores is not None else ""}

        def write(r: redis.Redis) -> None:
            r.hset(self.key("game", gid), mapping=mapping)
            self._publish(r, {"event": status, "gid": gid})

        self._queue(write)

    def flush(self) -> bool:
        """Write what is pending, in order; False (and `offline`) when Redis does not answer."""
        while self._pending:
            try:
                self._pending[0](self.client)
            except OUTAGE:
                self.offline = True
                return False
            self._pending.pop(0)
        self.offline = False
        return True

    def _queue(self, write: Callable[[redis.Redis], None]) -> None:
        self._pending.append(write)
        self.flush()

    def _publish(self, r: redis.Redis, message: dict) -> None:
        r.publish(self.key("updates"), json.dumps(message))

    # -- reads -----------------------------------------------------------------------------------

    def current(self) -> str | None:
        return self.client.get(self.key("current"))

    def games(self) -> list[str]:
        """Every stored game's gid, oldest first."""
        return list(self.client.zrange(self.key("games"), 0, -1))

    def load(self, gid: str) -> GameRecord:
        """Game `gid` with its entries; CorruptJournal when anything stored is unreadable."""
        header = self.client.hgetall(self.key("game", gid))
        if not header:
            raise KeyError(gid)
        where = f"game {gid}"
        try:
            record = GameRecord(
                gid=gid,
                game=header["game"],
                players=json.loads(header["players"]),
                options=json.loads(header["options"]),
                created=float(header["created"]),
                status=header["status"],
                scores=json.loads(header["scores"]) if header.get("scores") else None,
                hints=header.get("hints", "on") != "off",
            )
        except (KeyError, ValueError) as error:
            raise CorruptJournal(f"{where}: unreadable header ({error})") from None
        record.entries = self.entries(gid)
        return record

    def entries(self, gid: str, after: int = 0, upto: int | None = None) -> list[tuple[str, dict | None]]:
        """Game `gid`'s entries numbered after `after` (up to `upto`), checked: CorruptJournal names a
        missing or unreadable entry, so a damaged game is never silently shortened."""
        where = f"game {gid}"
        stored = self.client.xrange(self.log_key(gid), min=f"{after + 1}-0", max="+" if upto is None else f"{upto}-0")
        found = []
        for expected, (entry_id, fields) in enumerate(stored, start=after + 1):
            if entry_id != f"{expected}-0":
                raise CorruptJournal(f"{where}: entry {expected}-0 is missing (found {entry_id} instead)")
            found.append(_parse_entry(where, entry_id, fields))
        if upto is not None and after + len(found) != upto:
            raise CorruptJournal(f"{where}: entry {after + len(found) + 1}-0 is missing")
        return found


def _parse_entry(where: str, entry_id: str, fields: dict) -> tuple[str, dict | None]:
    kind = fields.get("kind")
    if kind == "undo":
        return "undo", None
    if kind != "action":
        raise CorruptJournal(f"{where}: entry {entry_id} has unknown kind {kind!r}")
    try:
        action = json.loads(fields["action"])
    except (KeyError, ValueError):
        raise CorruptJournal(f"{where}: entry {entry_id} holds no readable action: {fields.get('action')!r}") from None
    if not isinstance(action, dict):
        raise CorruptJournal(f"{where}: entry {entry_id} is not an action object: {action!r}")
    return "action", action
