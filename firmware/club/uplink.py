"""The uplink: a thread that copies every game of this table to the club's Redis, entry by entry.

The table's own Redis stays the source of truth; the club holds a copy under the table's club name,
`tablemate:{<name>}:...`, with the keys the journal names (firmware.journal): each game's stream with
the same entry ids, its header hash, the `games` index and `current`, and an update published on the
club's `updates` channel of the table after each copy (the club page follows them).

- Idempotent and resumable: entries are copied with their own ids (XADD with an explicit id, which
  Redis refuses at or below the stream's newest id), always after the club's own newest entry of
  that game, so a copy repeated after an outage, a crash or a restart is never stored twice, and
  nothing is skipped or reordered. Undo markers are entries like any other.
- Checked: before copying after the club's newest entry, the uplink makes sure the club holds that
  entry as the table does. When the club's copy is not the start of the table's game (a repaired or
  rewritten game at the table), the club's copy of that game is replaced whole from the table;
  except while the table's stream shows entries deleted from its end (Redis's record of the stream,
  firmware.journal.records.deleted_tail): the table halts on that damage, and the club keeps its
  longer copy until `tablemate log repair` at the table accepts the loss.
- Never in the way of play: its own thread and its own connections to both servers; it only reads
  the table's Redis. It wakes on the table's `updates` channel (a message after every write) and
  looks again every POLL_S seconds anyway, and at every (re)connection goes over every game.
- Its player cards: the uplink publishes the table's roster and claims its cards in the club's
  registry (firmware.club.roster) at every full pass, and before it copies a game header naming a
  card it has not claimed yet, so no game shows a card before its table holds it.
- One table per name: the uplink holds the writer lease of its name at the club (the journal's lease,
  `tablemate:{<name>}:writer`, refreshed every few seconds), so a second table uplinking under the same
  name (a cloned SD card, two tables left with one default name) is refused loudly and copies nothing.
- When the club does not answer or refuses (wrong credentials, no permission, a full club Redis),
  the problem is reported once in words (`report(short)`, e.g. to the table's screen and STATUS=),
  logged, and retried every RETRY_S seconds; `report(None)` once it copies again.
"""

import json
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Callable

import redis

from ..journal import OUTAGE, Journal, lease, trouble
from ..journal.records import deleted_tail
from ..journal.refusal import UNREACHABLE, is_wrong_type
from ..store import connect
from . import roster

log = logging.getLogger(__name__)

#: seconds between two looks at the table's games when no update wakes the uplink
POLL_S = 1.0
#: seconds between two looks at every stored game (the current one is looked at every POLL_S)
FULL_S = 30.0
#: seconds before trying the club again after it failed
RETRY_S = 2.0
#: entries copied per club transaction
BATCH = 500
#: socket timeout towards the club (a LAN or Wi-Fi away)
CLUB_TIMEOUT_S = 2.0


class ClubTrouble(Exception):
    """The club's Redis does not take the copy now: `short` for the screen, the message for the log."""

    def __init__(self, short: str, detail: str):
        super().__init__(detail)
        self.short = short


class SourceDown(Exception):
    """The table's own Redis does not answer (the table's screen already says so)."""


def club_trouble(error: Exception) -> ClubTrouble:
    """A club error in words (firmware.journal's reading of Redis errors): "Club: Redis full"."""
    found = trouble(error)
    if found == UNREACHABLE:
        return ClubTrouble("Club unreachable", f"the club's Redis does not answer: {error}")
    return ClubTrouble(f"Club: {found.short}", f"the club's {found.detail}")


@dataclass
class Copied:
    """What the club is known to hold of one game: its newest entry's id and the header last sent."""

    top: str | None
    header: dict = field(default_factory=dict)


class Uplink:
    """Copies table `table` of the store at `source_url` to the club (`club` is a firmware.config.ClubConfig)."""

    def __init__(self, source_url: str, table: str, club, report: Callable[[str | None], None] = lambda short: None,
                 poll_s: float = POLL_S, retry_s: float = RETRY_S):
        self.source = Journal(connect(source_url), table)
        self.source_url = source_url
        self.club = club
        self.dest = Journal(connect(club.url, username=club.user, password=club.password, timeout=CLUB_TIMEOUT_S), club.table)
        self.report = report
        self.poll_s = poll_s
        self.retry_s = retry_s
        #: gid -> what the club holds of it (forgotten at every reconnection: read again from the club)
        self.copied: dict[str, Copied] = {}
        #: entries copied since start
        self.entries = 0
        #: games whose stream at the table lost its end: the club's longer copy is kept
        self.kept_longer: set[str] = set()
        #: the roster the club holds (None: not published since the last (re)connection)
        self.roster: dict[str, dict] | None = None
        #: what was logged once: each card another table holds at the club, a club ACL refusing the claims
        self._told: set[str] = set()
        #: the problem now, in words for the screen (None: copying)
        self.trouble: str | None = None
        self._current: str | None | bool = False
        self.me = lease.this_process()
        self._claimed = float("-inf")
        self._next_full = float("-inf")
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    # -- the thread ---------------------------------------------------------------------------------

    def start(self) -> "Uplink":
        self._thread = threading.Thread(target=self._run, name="tablemate-uplink", daemon=True)
        self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        self._stopping.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self.release()

    def alive(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def _run(self) -> None:
        pubsub = None
        while not self._stopping.is_set():
            try:
                if pubsub is None:
                    pubsub = self._subscribe()
                    self._forget()
                woken = self._wait(pubsub)
                self.sync(woken)
                self._set_trouble(None)
            except SourceDown:
                pubsub = self._close(pubsub)
                self._stopping.wait(self.retry_s)
            except ClubTrouble as trouble:
                self._set_trouble(trouble)
                self._forget()
                self._stopping.wait(self.retry_s)
            except Exception:
                log.exception("the uplink failed; it tries again in %.0f s", self.retry_s)
                self._set_trouble(ClubTrouble("Club copy failed", "the uplink failed (see the log)"))
                self._forget()
                pubsub = self._close(pubsub)
                self._stopping.wait(self.retry_s)
        self._close(pubsub)

    def _subscribe(self):
        try:
            pubsub = self.source.client.pubsub(ignore_subscribe_messages=True)
            pubsub.subscribe(self.source.key("updates"))
            return pubsub
        except (*OUTAGE, redis.RedisError) as error:
            raise SourceDown(str(error)) from None

    def _wait(self, pubsub) -> set[str]:
        """The games named by updates within POLL_S (the first one ends the wait; others already
        queued are taken too)."""
        gids: set[str] = set()
        try:
            message = pubsub.get_message(timeout=self.poll_s)
            while message is not None:
                try:
                    gid = json.loads(message["data"]).get("gid")
                except (ValueError, TypeError, AttributeError):
                    gid = None
                if isinstance(gid, str):
                    gids.add(gid)
                message = pubsub.get_message(timeout=0)
        except (*OUTAGE, redis.RedisError) as error:
            raise SourceDown(str(error)) from None
        return gids

    @staticmethod
    def _close(pubsub):
        if pubsub is not None:
            try:
                pubsub.close()
            except (*OUTAGE, redis.RedisError):
                pass
        return None

    def _forget(self) -> None:
        """Read what the club holds again before the next copy (after a failure or a reconnection)."""
        self._claimed = float("-inf")
        self.copied.clear()
        self.roster = None
        self._current = False
        self._next_full = float("-inf")

    def _set_trouble(self, trouble: ClubTrouble | None) -> None:
        short = trouble.short if trouble else None
        if short != self.trouble:
            if trouble is not None:
                log.warning("club copy waits: %s", trouble)
            else:
                log.info("club copy: the club takes the copy again")
            self.trouble = short
            self.report(short)

    # -- one pass -----------------------------------------------------------------------------------

    def claim(self) -> None:
        """Take (or keep) the writer lease of this table's name at the club (firmware.journal.lease):
        a second table uplinking under the same name is refused loudly, and copies nothing."""
        key = self.dest.lease_key

        def take(r: redis.Redis) -> None:
            with r.pipeline(transaction=True) as pipe:
                pipe.watch(key)
                (holder,) = pipe.execute_command("MGET", key)  # None for a key of another type: taken over
                if not lease.takeable(holder, pipe.pttl(key), self.me):
                    raise ClubTrouble(f"Club: {self.club.table} taken",
                                      f"another table uplinks to the club as {self.club.table!r}: {lease.describe(holder)} "
                                      f"holds its lease; give one of them another [club] table name")
                pipe.multi()
                pipe.set(key, self.me.text, px=int(lease.TTL_S * 1000))
                pipe.execute()

        self._club(take)
        self._claimed = time.monotonic()

    def release(self) -> None:
        """Give the lease at the club back (a clean stop), when this uplink took it."""
        if self._claimed == float("-inf"):
            return
        try:
            self._club(lambda r: r.delete(self.dest.lease_key) if r.get(self.dest.lease_key) == self.me.text else None)
        except ClubTrouble as trouble:
            log.warning("the club lease was not given back (%s): it expires in %.0f s", trouble, lease.TTL_S)

    def sync(self, gids: set[str] = frozenset()) -> int:
        """Copy what the club lacks: games `gids` and the current game, or every game every FULL_S
        seconds; the number of entries copied. SourceDown or ClubTrouble when a server fails, or
        when another table holds this table's name at the club."""
        if time.monotonic() - self._claimed >= lease.REFRESH_S:
            self.claim()
        full = time.monotonic() >= self._next_full
        if full:
            self.publish_roster()
        games, current = self._read_source(lambda r: (r.zrange(self.source.key("games"), 0, -1, withscores=True),
                                                      r.get(self.source.key("current"))))
        created = dict(games)
        wanted = list(created) if full else [gid for gid in created if gid in gids or gid == current]
        copied = sum(self._copy_game(gid, created[gid], gid == current) for gid in wanted)
        if current != self._current:
            self._club(lambda r: r.set(self.dest.key("current"), current) if current else r.delete(self.dest.key("current")))
            self._current = current
        if full:
            self._next_full = time.monotonic() + FULL_S
        self.entries += copied
        return copied

    def _copy_game(self, gid: str, created: float, current: bool) -> int:
        source, dest = self.source, self.dest
        known = self.copied.get(gid)
        if known is None:
            top = self._club(lambda r: r.xrevrange(dest.log_key(gid), count=1))
            known = self.copied[gid] = Copied(top[0][0] if top else None)
            if known.top is not None and not self._same_entry(gid, top[0]) and not self._replace(gid, known):
                return 0
        copied = 0
        while True:
            start = "-" if known.top is None else known.top
            entries, header = self._read_source(lambda r: (r.xrange(source.log_key(gid), min=start, count=BATCH + 1),
                                                           r.hgetall(source.key("game", gid))))
            if known.top is not None:
                if not entries or entries[0][0] != known.top:  # the table's game no longer holds the club's newest entry
                    if not self._replace(gid, known):
                        return copied
                    continue
                entries = entries[1:]
            entries = entries[:BATCH]
            if not entries and header == known.header:
                return copied
            if header != known.header and not set(_cards(header)) <= set(self.roster or ()):
                self.publish_roster()
            self._write(gid, created, entries, header if header != known.header else None)
            if entries:
                known.top = entries[-1][0]
                copied += len(entries)
            known.header = header
            if len(entries) < BATCH:
                return copied

    def publish_roster(self) -> None:
        """Publish the table's player cards at the club and claim them (firmware.club.roster); a card
        another table holds, or a club whose ACL for this table predates the registry, is logged once."""
        cards = roster.roster_of(self._read_source(lambda r: _hash(r, self.source.key("tags"))))
        if cards == self.roster:
            return
        try:
            elsewhere = roster.publish(self.dest.client, self.club.table, cards)
        except redis.exceptions.NoPermissionError as denied:
            self._tell("acl", f"the club's ACL for {self.club.table!r} does not let it claim its player cards ({denied}): their "
                              "games count nowhere at the club until its owner runs the ACL SETUSER line tablemate club-acl prints")
            return
        except (redis.RedisError, OSError) as error:
            raise club_trouble(error) from None
        for player, holder in elsewhere.items():
            self._tell(player, f"player card {cards[player]['name']} ({player}) is held at the club by table {holder!r}: its games "
                               f"here count there only if this card came from {holder}'s tag file (tablemate tags export there, "
                               "tags import here)")
        self.roster = cards

    def _tell(self, what: str, message: str) -> None:
        if what not in self._told:
            self._told.add(what)
            log.warning("%s", message)

    def _same_entry(self, gid: str, entry: tuple[str, dict]) -> bool:
        """Whether the table holds the club's entry `entry` of game `gid` as it is."""
        entry_id, fields = entry
        mine = self._read_source(lambda r: r.xrange(self.source.log_key(gid), min=entry_id, max=entry_id))
        return bool(mine) and mine[0][1] == fields

    def _write(self, gid: str, created: float, entries: list, header: dict | None) -> None:
        """Entries (in id order) and the header of game `gid` to the club, in one transaction."""
        dest = self.dest

        def write(r: redis.Redis) -> None:
            with r.pipeline(transaction=True) as pipe:
                for entry_id, fields in entries:
                    pipe.xadd(dest.log_key(gid), fields, id=entry_id)
                if header is not None:
                    pipe.delete(dest.key("game", gid))
                    if header:
                        pipe.hset(dest.key("game", gid), mapping=header)
                pipe.zadd(dest.key("games"), {gid: created})
                pipe.execute()
            update = {"event": "entries" if entries else "header", "gid": gid}
            if entries:
                update["entry"] = entries[-1][0]
            r.publish(dest.key("updates"), json.dumps(update))

        self._club(write)

    def _replace(self, gid: str, known: Copied) -> bool:
        """The club's copy of game `gid` is not the start of the table's: copy the whole game again
        (the table is the source of truth), `known.top` its new newest id. Not while the table's
        stream shows entries deleted from its end (False, nothing done): the club's copy may be the
        only one that still holds them, and is kept (logged once)."""
        key = self.source.log_key(gid)
        entries, info = self._read_source(lambda r: (r.xrange(key), Journal.stream_info(r, key)))
        tail = deleted_tail(entries, info)
        if tail is not None:
            if gid not in self.kept_longer:
                self.kept_longer.add(gid)
                log.warning("game %s at the table: %s (%s); the club keeps its longer copy until the table's log is repaired",
                            gid, tail.reason, tail.evidence)
            return False
        self.kept_longer.discard(gid)
        log.warning("the club's copy of game %s departs from the table's: it is copied again whole", gid)

        def write(r: redis.Redis) -> None:
            with r.pipeline(transaction=True) as pipe:
                pipe.delete(self.dest.log_key(gid))
                for entry_id, fields in entries:
                    pipe.xadd(self.dest.log_key(gid), fields, id=entry_id)
                pipe.execute()

        self._club(write)
        self.entries += len(entries)
        known.top = entries[-1][0] if entries else None
        return True

    # -- the two servers ----------------------------------------------------------------------------

    def _read_source(self, read):
        try:
            return read(self.source.client)
        except (*OUTAGE, redis.RedisError) as error:
            raise SourceDown(str(error)) from None

    def _club(self, act):
        try:
            return act(self.dest.client)
        except redis.WatchError:
            raise ClubTrouble("Club busy", "the club's keys of this table changed during a copy") from None
        except (redis.RedisError, OSError) as error:
            raise club_trouble(error) from None


def _hash(r: redis.Redis, key: str) -> dict:
    """The hash at `key`; empty when the key holds another type of data (the table says so itself)."""
    try:
        return r.hgetall(key)
    except redis.ResponseError as error:
        if is_wrong_type(error):
            return {}
        raise


def _cards(header: dict) -> list[str]:
    """The player ids a game's stored header names (its `cards`, JSON); none when unreadable."""
    try:
        cards = json.loads(header.get("cards") or "[]")
    except ValueError:
        return []
    return [card for card in cards if isinstance(card, str)] if isinstance(cards, list) else []
