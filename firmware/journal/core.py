"""The Journal: one table's games in Redis, read checked and written exactly once (the rules are in
the package's docstring, firmware/journal/__init__.py)."""

import json
import logging
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import redis

from ..store import aside_key, table_key
from . import lease
from .local import Found, Kept, LocalCopy
from .records import (
    HEAD_ID,
    CorruptJournal,
    GameRecord,
    NoSuchGame,
    Replacing,
    deleted_tail,
    entry_fields,
    entry_number,
    gone,
    head_fields,
    parse_identity,
    parse_state,
    scan,
    stream_id,
)
from .refusal import STORE_ERRORS, LeaseHeld, Refused, Trouble, is_unknown_command, is_wrong_type, trouble

log = logging.getLogger(__name__)

#: the idle table compares the store's signs of its game (lease, length, top entry, header, current) this often
CHECK_S = 1.0
#: and the whole stream this often
AUDIT_S = 5.0
#: attempts at one transaction while the keys it watches keep changing under it
ATTEMPTS = 5
BUSY = Trouble("Redis busy", "Redis busy: the game's keys kept changing during every attempt to write")
#: the table's keys, besides the game's, that must never expire (the lease does, by design)
LASTING = (("current",), ("games",), ("local",), ("tags",), ("enrol",), ("local", "tags"))


def new_gid(clock: float | None = None) -> str:
    """A readable, time-sortable game id: 20261121-194501-3fa2."""
    stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(time.time() if clock is None else clock))
    return f"{stamp}-{secrets.token_hex(2)}"


def transact(client: redis.Redis, keys: tuple[str, ...], body: Callable[[redis.client.Pipeline], Any]) -> Any:
    """body(pipe) with `keys` watched, again while they change under it (ATTEMPTS at most; then
    Refused: "Redis busy")."""
    for _ in range(ATTEMPTS):
        try:
            with client.pipeline(transaction=True) as pipe:
                pipe.watch(*keys)
                return body(pipe)
        except redis.WatchError:
            continue
    raise Refused(BUSY)


def _mget(r: redis.Redis | redis.client.Pipeline, *keys: str) -> list:
    """MGET of keys of one table (one hash slot): as a command, since redis-py's Redis Cluster pipeline
    refuses its mget() and publish() methods even where the keys, or no key, share the slot."""
    return r.execute_command("MGET", *keys)


def _readable(read: Callable[[str], Any], key: str) -> Any:
    """read(key); None when the key holds another type of data (each key on its own: a stream of
    another type leaves the header hash readable, to be linked to the game's new gid)."""
    try:
        return read(key)
    except redis.ResponseError as error:
        if not is_wrong_type(error):
            raise
        return None


def _no_stream(error: Exception) -> bool:
    """XINFO STREAM's error for a key that does not exist."""
    return isinstance(error, redis.ResponseError) and "no such key" in str(error).lower()


class Diverged(Exception):
    """The store no longer holds what this process wrote of a game: `short` for the screen."""

    def __init__(self, short: str, detail: str):
        super().__init__(detail)
        self.short = short
        self.detail = detail


@dataclass(eq=False)
class Mirror:
    """A game as this process holds it: what the store must hold, and how much it is known to hold."""

    gid: str
    identity: dict[str, Any]
    #: entry 0-1's fields
    head: dict[str, str]
    #: status and scores, and the notes (forked_from, fork_reason, repaired) of the header hash
    state: dict[str, str]
    #: the stored fields of entry n at index n - 1
    entries: list[dict[str, str]] = field(default_factory=list)
    #: entries the store is known to hold
    written: int = 0
    #: the header (entry 0-1 and the hash) is known to be stored
    begun: bool = False
    #: the stored stream starts with entry 0-1 (False: a game stored before entry 0-1 existed)
    headed: bool = True
    #: why the store no longer matches: the game is to be written again
    lost: Diverged | None = None

    @property
    def hash(self) -> dict[str, str]:
        """The header hash as it must be stored."""
        return {**{k: v for k, v in self.head.items() if k != "kind"}, **self.state}

    def stream(self, count: int) -> list[tuple[str, dict[str, str]]]:
        """The stream as stored once `count` entries are written."""
        head = [(HEAD_ID, self.head)] if self.headed else []
        return head + [(f"{n}-0", self.entries[n - 1]) for n in range(1, count + 1)]

    def top(self, count: int) -> tuple[str, dict[str, str]] | None:
        stream = self.stream(count)
        return stream[-1] if stream else None


@dataclass(frozen=True, eq=False)
class Op:
    """A write waiting in line: the header ("begin"), entries up to `upto`, the header hash
    ("header"), or the whole game written again ("rewrite")."""

    mirror: Mirror
    kind: str
    upto: int = 0


@dataclass(frozen=True)
class Seen:
    """What the store holds of a game, as read before a write (under WATCH) or by the audit."""

    holder: str | None
    current: str | None
    length: int
    top: tuple[str, dict[str, str]] | None
    header: dict[str, str]
    #: the stream's last-generated-id, and (Redis 7.0 on) its entries-added and max-deleted-entry-id:
    #: past its top and its length when entries were deleted from its end (None: no stream, or not
    #: reported)
    last: str | None = None
    added: int | None = None
    deleted: str | None = None

    @property
    def cut(self) -> bool:
        """Redis's record shows entries deleted from the stream's end: ids generated past its newest
        entry (XADD refuses them), or more entries added than it holds."""
        behind = self.last is not None and stream_id(self.last) > stream_id(self.top[0] if self.top else "0-0")
        return behind or (self.added or 0) > self.length


class Journal:
    """Reads and writes one table's games in Redis; see the package docstring for every rule."""

    def __init__(self, client: redis.Redis, table: str, clock: Callable[[], float] = time.time,
                 instance: lease.Holder | None = None, local: LocalCopy | None = None):
        self.client = client
        self.table = table
        self.clock = clock
        self.me = instance or lease.this_process()
        #: the write-ahead file on this machine's disk (None: none configured); on once reconcile() ran
        self.local = local
        #: why writes wait now (None: they do not)
        self.trouble: Trouble | None = None
        #: what the table should tell once (a game written again), oldest first: the screen's lines
        #: and a sentence for STATUS=; the table takes them
        self.notices: list[tuple[tuple[str, ...], str]] = []
        self._mirrors: dict[str, Mirror] = {}
        self._active: Mirror | None = None
        self._queue: list[Op] = []
        self._next_check = self._next_audit = self._next_refresh = float("-inf")
        #: the last stale lease value taken over (said once)
        self._stale: str | None = None
        #: set by the Writer: a write is queued (the local copy's record appended, unsynced) and
        #: made by `save()`, so the writes of actions that queued up go out together
        self.deferred = False

    # -- keys ------------------------------------------------------------------------------------

    def key(self, *parts: str) -> str:
        return table_key(self.table, *parts)

    def log_key(self, gid: str) -> str:
        return self.key("game", gid, "log")

    def header_key(self, gid: str) -> str:
        return self.key("game", gid)

    @property
    def lease_key(self) -> str:
        return self.key("writer")

    @property
    def local_key(self) -> str:
        return self.key("local")

    # -- the state of the writes -----------------------------------------------------------------

    @property
    def offline(self) -> bool:
        """The store does not take writes now (the screen's badge)."""
        return self.trouble is not None

    @property
    def pending(self) -> int:
        return len(self._queue)

    def gid_of(self, gid: str) -> str:
        """The gid game `gid` is stored under now (another one once it was written again as a new game)."""
        mirror = self._mirrors.get(gid)
        return mirror.gid if mirror else gid

    # -- the writer lease ------------------------------------------------------------------------

    def claim(self) -> None:
        """Take the table's writer lease (at boot). Refused when another process holds it; a store
        error when Redis does not answer or refuses the write."""
        def take(pipe: redis.client.Pipeline) -> None:
            self._may_write(pipe, _mget(pipe, self.lease_key)[0])
            pipe.multi()
            pipe.set(self.lease_key, self.me.text, px=int(lease.TTL_S * 1000))
            if self._vouched():
                pipe.set(self.local_key, self.local.mark)
            pipe.execute()

        self.transact((self.lease_key,), take)

    def release(self) -> None:
        """Give the lease up (a clean stop), so the next run need not wait for it to expire."""
        def give_up(pipe: redis.client.Pipeline) -> None:
            if _mget(pipe, self.lease_key)[0] == self.me.text:
                pipe.multi()
                pipe.delete(self.lease_key)
                pipe.execute()

        try:
            self.transact((self.lease_key,), give_up)
        except (Refused, *STORE_ERRORS) as error:
            log.warning("the writer lease was not released (%s): the next run takes it over or waits %.0f s",
                        trouble(error).detail, lease.TTL_S)

    def holder(self) -> tuple[str | None, int]:
        """The lease's value (None: free, or a key of another type) and its PTTL in milliseconds
        (-2: no key, -1: no TTL) (doctor)."""
        with self.client.pipeline(transaction=False) as pipe:
            _mget(pipe, self.lease_key)
            pipe.pttl(self.lease_key)
            (value,), ttl = pipe.execute()
        return value, ttl

    def _may_write(self, r: redis.Redis | redis.client.Pipeline, value: str | None) -> None:
        """Refused (LeaseHeld) while another live process holds the lease, read as `value` (MGET:
        None for a key of another type); a stale lease is taken over, and said once."""
        if value == self.me.text:
            return
        if value is None:
            if r.exists(self.lease_key):
                self._stale_lease(f"a {r.type(self.lease_key)}", "the key holds another kind of data than a writer's name")
            return
        ttl = r.pttl(self.lease_key)
        if not lease.takeable(value, ttl, self.me):
            raise LeaseHeld(Trouble(f"Another table writes as {self.table}",
                                    f"another table writes as {self.table}: {lease.describe(value)} holds its writer lease"))
        why = lease.stale(value, ttl)
        if why:
            self._stale_lease(value, why)

    def _stale_lease(self, value: str, why: str) -> None:
        """A stale lease is overwritten by the next write: logged and shown once per value."""
        if value != self._stale:
            self._stale = value
            log.warning("the writer lease %s was stale (%s): taken over", self.lease_key, why)
            self.notices.append((("Writer lease was stale", "Taken over"), f"the writer lease was stale ({why}): taken over"))

    # -- writes ----------------------------------------------------------------------------------

    def begin_game(self, gid: str, game: str, players: list[str], options: dict, hints: bool = True,
                   cards: list[str | None] | None = None) -> None:
        """A new game; `cards`: per seat, the player card that claimed it (firmware.club.players)."""
        created = self.clock()
        head = head_fields(game, players, options, created, hints, cards)
        identity = parse_identity(gid, head, "header")
        mirror = self._active = self._mirrors[gid] = Mirror(gid, identity, head, {"status": "playing", "scores": ""})
        self._keep(lambda local: local.begin(mirror))
        self._queue_op(Op(mirror, "begin"))

    def adopt(self, record: GameRecord) -> None:
        """Make game `record` (as load() read it) the one this journal writes: the table recovered it."""
        identity = record.identity()
        head = head_fields(record.game, record.players, record.options, record.created, record.hints, record.cards)
        state = {"status": record.status, "scores": json.dumps(record.scores) if record.scores is not None else "", **record.notes}
        mirror = Mirror(record.gid, identity, head, state, list(record.raw), len(record.raw), True, record.head is not None)
        if record.head is not None:
            try:
                same = parse_identity(record.gid, record.head, "header entry 0-1") == identity
            except CorruptJournal:
                same = False
            if same:
                mirror.head = dict(record.head)
            else:
                mirror.lost = Diverged("Game header damaged", "its header entry 0-1 is damaged")
        self._active = self._mirrors[record.gid] = mirror
        self._keep(lambda local: local.rewrite(self._held(), mirror))

    def append(self, gid: str, number: int, *actions: dict | Replacing | None, at: float | None = None) -> None:
        """Entries `number`, `number + 1`... (1-based, undo markers counted) of game `gid`, each an
        action or None for an undo marker (records.REPLACING: a replacement's), accepted at `at`
        (default: now). Several are written in one transaction: all or none, so a replaced action
        (undo + action) can never lose the first without its replacement."""
        mirror = self._mirror(gid)
        if number != len(mirror.entries) + 1:
            raise ValueError(f"game {gid}: entry {number} cannot follow entry {len(mirror.entries)}")
        at = self.clock() if at is None else at
        mirror.entries += [entry_fields(action, at) for action in actions]
        self._keep(lambda local: local.entries(mirror, number))
        self._queue_op(Op(mirror, "entries", len(mirror.entries)))

    def set_status(self, gid: str, status: str, scores: list[dict] | None = None) -> None:
        mirror = self._mirror(gid)
        mirror.state.update(status=status, scores=json.dumps(scores) if scores is not None else "")
        self._keep(lambda local: local.state(mirror))
        self._queue_op(Op(mirror, "header"))

    def flush(self) -> bool:
        """Write what is pending, in order; False (and `trouble` says why) when the store does not take it."""
        try:
            while self._queue:
                self._run(self._queue[0])
        except (Refused, *STORE_ERRORS) as error:
            self._set_trouble(trouble(error))
            return False
        self._set_trouble(None)
        self._mirrors = {gid: m for gid, m in self._mirrors.items() if m is self._active}
        if self.local is not None and self.local.on and not self.local.holds_only(self._held()):
            self._keep(lambda local: local.rewrite(self._held(), self._active))
        return True

    def tick(self, now: float) -> bool:
        """Time passes (`now` on the table's clock): retry what waits, keep the lease, check the
        store against the game; True when what the table shows may have changed."""
        before = (self.trouble, len(self._queue), len(self.notices))
        if self._queue:
            self.flush()
        elif now >= self._next_check:
            self._next_check = now + CHECK_S
            self._check(now)
        return before != (self.trouble, len(self._queue), len(self.notices))

    def _mirror(self, gid: str) -> Mirror:
        try:
            return self._mirrors[gid]
        except KeyError:
            raise KeyError(f"game {gid} is not one this journal writes (begin_game or adopt it first)") from None

    def _queue_op(self, op: Op) -> None:
        if not self.deferred:
            self._queue.append(op)
            self.flush()
            return
        last = self._queue[-1] if self._queue else None
        if last is not None and last.kind == op.kind == "entries" and last.mirror is op.mirror:
            self._queue[-1] = op  # one transaction writes the entries of both
        else:
            self._queue.append(op)

    def save(self) -> bool:
        """Sync the local copy's new records, then write what is pending to the store (the Writer's
        batch, deferred): True when the store took it all."""
        self._keep(lambda local: local.sync())
        return self.flush()

    @property
    def synced(self) -> bool:
        """Whether the local copy is on and holds, on the disk, every write queued so far."""
        return self.local is not None and self.local.synced

    def _set_trouble(self, new: Trouble | None) -> None:
        if new != self.trouble:
            if new is not None:
                log.warning("writes wait: %s (%d waiting)", new.detail, len(self._queue))
            else:
                log.info("the store takes writes again")
        self.trouble = new

    def _run(self, op: Op) -> None:
        self._keep(lambda local: local.sync())  # the file holds a write on the disk before Redis gets it
        mirror = op.mirror
        if op.kind != "rewrite" and mirror.lost is None:
            try:
                self.transact(self._keys(mirror), lambda pipe: self._write(pipe, op))
                self._queue.pop(0)  # `op` is the first in line
                return
            except Diverged as why:
                log.warning("game %s: %s; it is written again from memory", mirror.gid, why.detail)
                mirror.lost = why
        self._rewrite(mirror)

    def transact(self, keys: tuple[str, ...], body: Callable[[redis.client.Pipeline], Any]) -> Any:
        return transact(self.client, keys, body)

    def _keys(self, mirror: Mirror) -> tuple[str, ...]:
        source = mirror.state.get("forked_from")
        return (self.lease_key, self.key("current"), self.log_key(mirror.gid), self.header_key(mirror.gid),
                *([self.header_key(source)] if source else []))

    def _unlinked(self, pipe: redis.client.Pipeline, mirror: Mirror) -> str | None:
        """The header key of the game `mirror` was forked from when it lacks `forked_to` (None: no
        such game, or it has it). A fork's two writes are one transaction, but a kill after the local
        copy recorded the new gid and before that transaction ran leaves the local copy to write the
        new game at the next start: its "begin" then marks the old header in the same transaction."""
        source = mirror.state.get("forked_from")
        if not source:
            return None
        header = _readable(pipe.hgetall, self.header_key(source))
        return self.header_key(source) if header and "forked_to" not in header else None

    def _look(self, r: redis.Redis, mirror: Mirror) -> Seen:
        """What the store holds of `mirror`'s game; Refused when another process holds the lease."""
        holder, current = _mget(r, self.lease_key, self.key("current"))
        self._may_write(r, holder)
        try:
            info = self.stream_info(r, self.log_key(mirror.gid))
            header = r.hgetall(self.header_key(mirror.gid))
        except redis.ResponseError as error:
            if is_wrong_type(error):
                raise Diverged("Game changed in Redis", f"one of its keys holds another kind of data ({error})") from None
            raise
        top = info.get("last-entry")
        return Seen(holder, current, info.get("length", 0), tuple(top) if top else None, header, info.get("last-generated-id"),
                    info.get("entries-added"), info.get("max-deleted-entry-id"))

    @staticmethod
    def stream_info(r: redis.Redis, key: str) -> dict:
        """XINFO STREAM (the length and the newest entry in one command); {} when there is no stream."""
        try:
            return r.xinfo_stream(key)
        except redis.ResponseError as error:
            if _no_stream(error):
                return {}
            raise

    def _holds(self, mirror: Mirror, seen: Seen, begun: bool, count: int) -> bool:
        """Whether the store holds `mirror`'s game as it is with `count` entries (not begun: nothing)."""
        if not begun:
            return seen.length == 0 and not seen.header
        return (seen.length == len(mirror.stream(count)) and seen.top == mirror.top(count) and self._same_game(mirror, seen.header)
                and (mirror is not self._active or seen.current == mirror.gid))

    def _same_game(self, mirror: Mirror, header: dict[str, str]) -> bool:
        try:
            return bool(header) and parse_identity(mirror.gid, header, "header") == mirror.identity
        except CorruptJournal:
            return False

    def _diverged(self, mirror: Mirror, seen: Seen) -> Diverged:
        """How the store departs from `mirror` written as far as it is known to be."""
        number = entry_number(seen.top[0]) if seen.top else None
        if seen.length == 0:
            return Diverged("Game gone from Redis", "its stream is gone (deleted, or the store was emptied)")
        if not seen.header:
            return Diverged("Game header gone", "its header hash is gone")
        if not self._same_game(mirror, seen.header):
            return Diverged("Game header changed", "its header hash describes another game")
        if number is not None and number > mirror.written:
            return Diverged(f"Another table writes as {self.table}", f"entry {seen.top[0]} was written by another writer")
        if seen.length != len(mirror.stream(mirror.written)) or seen.top != mirror.top(mirror.written):
            return Diverged("Game changed in Redis", "its stored entries are not the ones played")
        return Diverged("Current game lost", f"the table's current game is {seen.current!r}, not {mirror.gid!r}")

    def _write(self, pipe: redis.client.Pipeline, op: Op) -> None:
        """One op in one transaction, once the store is seen to hold the game as known (else
        Diverged), or nothing when it already holds the op's result (the reply was lost)."""
        mirror = op.mirror
        seen = self._look(pipe, mirror)
        if op.kind == "begin":
            before, after = (False, 0), (True, 0)
        else:
            before, after = (True, mirror.written), (True, op.upto) if op.kind == "entries" else None
        if not self._holds(mirror, seen, *before):
            if after is not None and self._holds(mirror, seen, *after):
                self._written(op)  # and published by the transaction that wrote it
                return
            raise self._diverged(mirror, seen)
        gid, log_key = mirror.gid, self.log_key(mirror.gid)
        source = self._unlinked(pipe, mirror) if op.kind == "begin" else None
        restore = op.kind == "entries" and op.upto > mirror.written and seen.cut
        if restore and pipe.xrange(log_key) != mirror.stream(mirror.written):
            raise Diverged("Game changed in Redis", "its stored entries are not the ones played")
        pipe.multi()
        if op.kind == "begin":
            pipe.xadd(log_key, mirror.head, id=HEAD_ID)
        if source is not None:
            pipe.hset(source, "forked_to", gid)
        if op.kind in ("begin", "header"):
            pipe.hset(self.header_key(gid), mapping=mirror.hash)
        if op.kind == "begin" and mirror is self._active:
            pipe.set(self.key("current"), gid)
        if restore:
            self._write_back(pipe, log_key, mirror.stream(op.upto), seen)
        else:
            for number in range(mirror.written + 1, op.upto + 1):
                exists = seen.length > 0 or number > mirror.written + 1
                pipe.xadd(log_key, mirror.entries[number - 1], id=f"{number}-0", nomkstream=exists)
        try:
            results = self._commit(pipe, mirror, gid, self._update(op))
        except redis.ResponseError as error:
            if not (restore and is_unknown_command(error)):
                raise
            raise Diverged("Game changed in Redis", f"entries were deleted from its stream's end, and this store cannot "
                                                    f"write them back at their ids ({error})") from None
        failed = [r for r in results if r is None or isinstance(r, Exception)]
        if failed:
            raise Diverged("Game changed in Redis", f"Redis refused part of a write: {failed[0]}")
        if source is not None:
            log.warning("game %s: the fork that made it was cut short; game %s now says forked_to %s", gid, mirror.state["forked_from"], gid)
        self._written(op)

    @staticmethod
    def _write_back(pipe: redis.client.Pipeline, log_key: str, stream: list[tuple[str, dict]], seen: Seen) -> None:
        """Entries deleted from the end of the stream are written back (the local copy held them) at
        their ids. XADD refuses an id at or below the stream's last id, and Redis 8 refuses to set
        the last id (XSETID) below the largest id ever deleted, so the stream is written anew, the
        entries it holds (read and compared under WATCH) and then the ones it lacks, in the same
        transaction; then XSETID gives it Redis's record of the old stream (its last id,
        entries-added, max-deleted-entry-id) as if they had never been deleted, so it still shows any
        deleted entry not written back (records.deleted_tail), and no more. Both Redis 7.0 and 8 allow
        that: a new stream has deleted nothing, and the record is set at or past its newest entry."""
        pipe.delete(log_key)
        for number, (entry_id, fields) in enumerate(stream):
            pipe.xadd(log_key, fields, id=entry_id, nomkstream=number > 0)
        last = max(seen.last or "0-0", stream[-1][0], key=stream_id)
        added = ("ENTRIESADDED", max(seen.added, len(stream))) if seen.added is not None else ()
        deleted = ("MAXDELETEDID", seen.deleted) if seen.deleted is not None else ()
        pipe.execute_command("XSETID", log_key, last, *added, *deleted)

    def _commit(self, pipe: redis.client.Pipeline, mirror: Mirror, gid: str, update: dict) -> list:
        """Renew the lease, tell live viewers, list the game in `games`, and run the transaction: the
        results of the game's own commands. `games` is an index: a failure to update it (the key
        holding another type) is logged, never a reason to write the game again."""
        pipe.set(self.lease_key, self.me.text, px=int(lease.TTL_S * 1000))
        if self._vouched():
            pipe.set(self.local_key, self.local.mark)
        else:
            pipe.delete(self.local_key)
        pipe.execute_command("PUBLISH", self.key("updates"), json.dumps(update))  # see _mget
        pipe.zadd(self.key("games"), {gid: mirror.identity["created"]})
        *results, _, _, _, listed = pipe.execute(raise_on_error=False)
        if isinstance(listed, Exception):
            log.warning("game %s is not listed in %s: %s", gid, self.key("games"), listed)
        return results

    def _written(self, op: Op) -> None:
        if op.kind == "begin":
            op.mirror.begun = True
        elif op.kind == "entries":
            op.mirror.written = op.upto

    @staticmethod
    def _update(op: Op) -> dict:
        """What live viewers are told of a write (published in its transaction: sent when it is made)."""
        mirror = op.mirror
        if op.kind == "begin":
            return {"event": "new_game", "gid": mirror.gid}
        if op.kind == "entries":
            return {"event": mirror.entries[op.upto - 1]["kind"], "gid": mirror.gid, "entry": op.upto}
        return {"event": mirror.state["status"], "gid": mirror.gid}

    def _rewrite(self, mirror: Mirror) -> None:
        """Write the whole game again from memory: under its gid when every stored entry is one this
        process wrote (nothing stored is lost), else under a new gid linked to the old one."""
        why = mirror.lost
        old = mirror.gid

        def write(pipe: redis.client.Pipeline) -> str:
            self._may_write(pipe, _mget(pipe, self.lease_key)[0])
            stored, header = _readable(pipe.xrange, self.log_key(old)), _readable(pipe.hgetall, self.header_key(old))
            ours = (stored is not None and header is not None and self._only_ours(mirror, stored)
                    and (not header or self._same_game(mirror, header)))
            gid = old if ours else self._free_gid(pipe)
            head, state = dict(mirror.head), dict(mirror.state)
            if not ours:
                head["forked_from"] = old
                state.update(forked_from=old, fork_reason=why.detail)
            self._keep(lambda local: (local.moved(mirror, gid, head, state), local.sync()))
            pipe.multi()
            pipe.delete(self.log_key(gid))
            pipe.xadd(self.log_key(gid), head, id=HEAD_ID)
            for number, fields in enumerate(mirror.entries, start=1):
                pipe.xadd(self.log_key(gid), fields, id=f"{number}-0", nomkstream=True)
            pipe.hset(self.header_key(gid), mapping={**{k: v for k, v in head.items() if k != "kind"}, **state})
            if header and not ours:
                pipe.hset(self.header_key(old), "forked_to", gid)
            if mirror is self._active:
                pipe.set(self.key("current"), gid)
            failed = [r for r in self._commit(pipe, mirror, gid, {"event": "rewritten", "gid": gid}) if isinstance(r, Exception)]
            if failed:
                raise failed[0]
            mirror.head, mirror.state = head, state
            return gid

        gid = self.transact(self._keys(mirror), write)
        mirror.gid, mirror.headed, mirror.begun, mirror.written, mirror.lost = gid, True, True, len(mirror.entries), None
        self._mirrors[gid] = mirror
        self._queue = [op for op in self._queue if op.mirror is not mirror]
        if gid == old:
            log.warning("game %s written again from memory (%d entries): %s", gid, len(mirror.entries), why.detail)
            self.notices.append(((why.short, "Game saved again"), f"{why.short}: game {gid} saved again"))
        else:
            log.warning("game %s: %s; the game is now stored as %s (forked_from %s)", old, why.detail, gid, old)
            self.notices.append(((why.short, "Saved as a new game"), f"{why.short}: game {old} saved again as game {gid}"))

    def _only_ours(self, mirror: Mirror, stored: list[tuple[str, dict]]) -> bool:
        """Every stored entry is one this process wrote, at its id (some may be missing)."""
        mine = dict(mirror.stream(len(mirror.entries)))
        mine.setdefault(HEAD_ID, mirror.head)
        return all(mine.get(entry_id) == fields for entry_id, fields in stored)

    def _free_gid(self, pipe: redis.client.Pipeline) -> str:
        """A new gid with no key of its own yet, watched until the transaction ends."""
        while True:
            gid = new_gid(self.clock())
            keys = (self.log_key(gid), self.header_key(gid))
            pipe.watch(*keys)
            if not pipe.exists(*keys):
                return gid

    def _check(self, now: float) -> None:
        """The idle table's look at the store: refresh the lease, compare the game, and write it
        again when the store departs from it."""
        try:
            if now >= self._next_refresh:
                self.claim()
                self._next_refresh = now + lease.REFRESH_S
            mirror = self._active
            full = now >= self._next_audit
            if full:
                self._next_audit = now + AUDIT_S
                self._persist(mirror)
                self.reindex()
            if mirror is not None and mirror.begun:
                if not self._audit(mirror, full):
                    self._queue.append(Op(mirror, "rewrite"))
                    self.flush()
                    return
        except (Refused, *STORE_ERRORS) as error:
            self._set_trouble(trouble(error))
            return
        self._set_trouble(None)

    def _persist(self, mirror: Mirror | None) -> None:
        """The table's lasting keys (the game's, `current`, `games`, `local`, the tag map's) given a
        TTL by someone (EXPIRE): the TTL is removed before they vanish, logged and said."""
        keys = [*((self.log_key(mirror.gid), self.header_key(mirror.gid)) if mirror else ()), *(self.key(*parts) for parts in LASTING)]
        with self.client.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.pttl(key)
            expiring = [key for key, ttl in zip(keys, pipe.execute()) if ttl >= 0]
        for key in expiring:
            self.client.persist(key)
        if expiring:
            detail = f"{', '.join(expiring)} had a TTL (it would have expired, and the game or the tag map with it): removed"
            log.warning("%s", detail)
            self.notices.append((("Redis keys had a TTL", "TTL removed"), detail))

    def reindex(self) -> None:
        """A `games` index of another type (someone's SET, HSET...): kept aside as
        `<key>:damaged-<time>` and built again from the games' header hashes, so every stored game
        is listed again (status, log export, the live view, the start's resume); logged and said.
        Run at boot once the lease is ours, before the game is recovered, and by the idle audit."""
        key = self.key("games")
        if self.client.type(key) in ("zset", "none"):
            return
        aside = aside_key(key)
        self.client.rename(key, aside)
        prefix = self.key("game", "")
        index = {}
        for name in self.client.scan_iter(match=_glob_escape(prefix) + "*", count=500):
            gid = name[len(prefix):]
            if ":" in gid:  # a game's log, or a key kept aside
                continue
            try:
                index[gid] = float(self.client.hget(name, "created"))
            except (TypeError, ValueError, redis.ResponseError):  # no header, or not a readable one
                continue
        if index:
            self.client.zadd(key, index)
        detail = f"{key} held another kind of data than the index of games: kept as {aside}, {len(index)} games listed again"
        log.warning("%s", detail)
        self.notices.append((("Games index damaged", "Index rebuilt"), detail))

    def _audit(self, mirror: Mirror, full: bool) -> bool:
        """Whether the store holds `mirror`'s game as written (`full`: every entry compared, else its
        signs); when not, `mirror.lost` says how."""
        if mirror.lost is None:
            try:
                seen = self._look(self.client, mirror)
                if not self._holds(mirror, seen, True, mirror.written):
                    raise self._diverged(mirror, seen)
                if full and self.client.xrange(self.log_key(mirror.gid)) != mirror.stream(mirror.written):
                    raise Diverged("Game changed in Redis", "its stored entries are not the ones played")
                return True
            except Diverged as why:
                log.warning("game %s: %s; it is written again from memory", mirror.gid, why.detail)
                mirror.lost = why
        return False

    # -- the local copy --------------------------------------------------------------------------

    @property
    def kept(self) -> Path | None:
        """Where the writes waiting for Redis are kept on this machine's disk (None: in memory only)."""
        return self.local.path if self.local is not None and self.local.on else None

    def reconcile(self) -> None:
        """At boot, once the writer lease is ours and before the game is recovered: write to Redis
        what the local copy holds and Redis lacks, and start the local copy (the package docstring,
        "The local copy"). Refused while the store does not take the writes (the boot waits)."""
        local = self.local
        if local is None:
            return
        self._mirrors, self._queue, self._active = {}, [], None
        found, damage = self._found(local)
        mark = self._text(self.local_key)
        trusted = found.vouched(mark)
        damage += self._cut_short(local, found, mark)
        current = self.current()
        mirrors = [self._mirror_of(kept) for kept in found.games]
        self._active = next((m for m in mirrors if m.gid == found.active and (trusted or current in (None, m.gid))), None)
        if local.failed is None:
            try:
                local.start(mirrors, self._active, found.token if trusted else None, whole=trusted, count=found.count)
            except OSError as error:
                self._lost_local(error)
        notices = [notice for mirror in mirrors if (notice := self._settle(mirror, trusted, current))]
        flushed = self.flush()
        self.notices += (notices if flushed else []) + damage  # the damage last: the screen shows the last notice
        if not flushed:
            raise Refused(self.trouble)
        self._mirrors, self._active = {}, None
        self._keep(lambda local: local.start([], None, local.token if local.whole else None, whole=True, count=local.count))
        if self._vouched():
            self.claim()  # the store learns the token now, not at the first write: a kill before it must not leave a whole file doubted

    def _found(self, local: LocalCopy) -> tuple[Found, list[tuple[tuple[str, ...], str]]]:
        """What the local copy holds, and the notice of its damage (logged here); an unreadable file
        is a failure of the local copy."""
        try:
            found = local.load()
        except OSError as error:
            self._lost_local(error)
            return Found(), []
        if not found.damage:
            return found, []
        aside = f"kept aside as {found.kept_aside}" if found.kept_aside else "left where it is"
        log.error("the local copy %s is damaged at %s: it is %s; the games are taken as the lines before it hold them",
                  local.path, found.damage, aside)
        return found, [(("Local copy damaged", "Kept aside; play on"), f"the local copy is damaged at {found.damage}: {aside}")]

    @staticmethod
    def _cut_short(local: LocalCopy, found: Found, mark: str | None) -> list[tuple[tuple[str, ...], str]]:
        """The notice (logged here) of a file that lost records Redis was told it held (truncated on
        the disk, or an older copy put back): not whole, so what Redis holds beyond it stands."""
        lost = found.cut_short(mark)
        if not lost:
            return []
        log.error("the local copy %s lacks the last %d of the records Redis was told it held (cut short on the disk): "
                  "Redis's games stand where they hold more", local.path, lost)
        return [(("Local copy cut short", "Redis keeps the game"),
                 f"the local copy {local.path} lacks its last {lost} records (cut short on the disk): Redis's games stand")]

    @staticmethod
    def _mirror_of(kept: Kept) -> Mirror:
        """A game of the local copy, as if this process had written all of it (reconcile then finds
        out how much the store holds)."""
        identity = parse_identity(kept.gid, kept.head, "local copy's head")
        return Mirror(kept.gid, identity, dict(kept.head), dict(kept.state), list(kept.entries), len(kept.entries), True, kept.headed)

    def _settle(self, mirror: Mirror, trusted: bool, current: str | None) -> tuple[tuple[str, ...], str] | None:
        """Queue what the store lacks of `mirror`, a game of the local copy, or leave the game to the
        store; the notice to show once the writes are made (None: nothing to tell)."""
        gid, kept = mirror.gid, len(mirror.entries)
        self._mirrors[gid] = mirror
        try:
            stored, header = self._stored(gid)
        except Diverged as why:
            return self._rewrite_later(mirror, why)
        repaired = header.get("repaired")
        if repaired and repaired != mirror.state.get("repaired"):
            log.warning("game %s was repaired in Redis (%s): the local copy's version is dropped", gid, repaired)
            return self._leave(mirror)
        if not stored and not header:
            mirror.begun, mirror.written, mirror.headed = False, 0, True  # begin writes entry 0-1 (a game from before it too)
            self._queue += [Op(mirror, "begin")] + ([Op(mirror, "entries", kept)] if kept else [])
            log.warning("game %s is not in Redis: written from the local copy (%d entries)", gid, kept)
            return ("Redis lacked the game", "Saved from local copy"), f"Redis lacked game {gid}: written from the local copy"
        count = len(stored) - mirror.headed
        same = self._same_game(mirror, header) if header else stored[:1] == [(HEAD_ID, mirror.head)]
        if same and 0 <= count <= kept and stored == mirror.stream(count) and (mirror is not self._active or current == gid):
            mirror.written = count
            if count < kept:
                self._queue.append(Op(mirror, "entries", kept))
            if (header.get("status"), header.get("scores")) != (mirror.state["status"], mirror.state["scores"]):
                self._queue.append(Op(mirror, "header"))
            if count == kept:
                return None
            log.warning("game %s: Redis lacked entries %d-%d: written from the local copy", gid, count + 1, kept)
            return ((f"Redis lacked {kept - count} entries", "Saved from local copy"),
                    f"Redis lacked {kept - count} entries of game {gid}: written from the local copy")
        whole = mirror.stream(kept)
        common = min(len(stored), len(whole))
        if same and not trusted and common == len(whole) and stored[:common] == whole:
            log.info("game %s: the local copy (%d entries) is older than Redis's (%d): Redis's stands", gid, kept, count)
            return self._leave(mirror)
        if same and stored[:common] != whole[:common]:
            return self._rewrite_later(mirror, Diverged("Game changed in Redis", "its stored entries are not the ones played"))
        return self._rewrite_later(mirror, self._diverged(mirror, Seen(None, current, len(stored), stored[-1] if stored else None, header)))

    def _rewrite_later(self, mirror: Mirror, why: Diverged) -> None:
        """The store departs from the local copy's game: it is written again (under its gid, or as a
        new game), and the rewrite tells the players."""
        log.warning("game %s: %s; it is written again from the local copy", mirror.gid, why.detail)
        mirror.lost = why
        self._queue.append(Op(mirror, "rewrite"))

    def _stored(self, gid: str) -> tuple[list[tuple[str, dict]], dict[str, str]]:
        """Game `gid`'s stream and header hash as stored; Diverged when a key holds another type."""
        try:
            return self.client.xrange(self.log_key(gid)), self.client.hgetall(self.header_key(gid))
        except redis.ResponseError as error:
            if is_wrong_type(error):
                raise Diverged("Game changed in Redis", f"one of its keys holds another kind of data ({error})") from None
            raise

    def _leave(self, mirror: Mirror) -> None:
        """The store's version of `mirror`'s game stands: the local copy's is not written (nothing to tell)."""
        del self._mirrors[mirror.gid]
        if mirror is self._active:
            self._active = None

    def _keep(self, write: Callable[[LocalCopy], None]) -> None:
        """Record in the local copy (when it is on) before the write goes to the store; a failing
        disk turns it off for the rest of the run."""
        if self.local is not None and self.local.on:
            try:
                write(self.local)
            except OSError as error:
                self._lost_local(error)

    def _lost_local(self, error: OSError) -> None:
        self.local.fail(error)
        log.error("the local copy %s failed (%s): Redis alone keeps what the table accepts from now on", self.local.path, error)
        self.notices.append((("Local copy failed", "Play goes on"), f"the local copy {self.local.path} failed: {error}"))

    def _vouched(self) -> bool:
        """Whether the store may be told the local copy holds every write (its token in `local`)."""
        return self.local is not None and self.local.on and self.local.whole

    def _held(self) -> list[Mirror]:
        """The games this journal holds, each once."""
        return list(dict.fromkeys(self._mirrors.values()))

    def close(self) -> None:
        """Stop writing the local copy (the appliance closes)."""
        if self.local is not None:
            self.local.close()

    # -- reads -----------------------------------------------------------------------------------

    def current(self) -> str | None:
        """The gid of the table's game in progress, as stored (None: none, or not a gid)."""
        return self._text(self.key("current"))

    def _text(self, key: str) -> str | None:
        """The string stored at `key`; None when there is none, or another type of data."""
        try:
            return self.client.get(key)
        except redis.ResponseError as error:
            if is_wrong_type(error):
                log.warning("%s holds no text (%s)", key, error)
                return None
            raise

    def resumable(self) -> str | None:
        """The game a starting table resumes: the current one, or when that pointer is gone, the
        newest stored game (the table's next check stores the pointer again)."""
        gid = self.current()
        if gid is None:
            newest = self._listed(lambda key: self.client.zrevrange(key, 0, 0))
            if newest:
                log.warning("%s is gone: the newest game, %s, is resumed", self.key("current"), newest[0])
                return newest[0]
        return gid

    def games(self) -> list[str]:
        """Every stored game's gid, oldest first."""
        return self._listed(lambda key: self.client.zrange(key, 0, -1))

    def _listed(self, read: Callable[[str], list]) -> list[str]:
        """read(the `games` index): none listed when the key holds another type (logged; the writes
        go on without listing their games, as _commit says)."""
        try:
            return list(read(self.key("games")))
        except redis.ResponseError as error:
            if not is_wrong_type(error):
                raise
            detail = f"{self.key('games')} holds another kind of data than the index of games: no game is listed"
            log.warning("%s", detail)
            if (("Games index damaged", "Games not listed"), detail) not in self.notices:
                self.notices.append((("Games index damaged", "Games not listed"), detail))
            return []

    def load(self, gid: str) -> GameRecord:
        """Game `gid` with its entries; CorruptJournal when anything stored is unreadable or Redis's
        record of the stream shows entries deleted from its end, NoSuchGame when nothing is stored
        under `gid`. Three reads (the header, the stream, XINFO STREAM) in one round trip, not a
        transaction: a full Redis refuses every command queued in MULTI, and reads must work when
        writes cannot."""
        with self.client.pipeline(transaction=False) as pipe:
            pipe.hgetall(self.header_key(gid))
            pipe.xrange(self.log_key(gid))
            pipe.xinfo_stream(self.log_key(gid))
            header, stored, info = pipe.execute(raise_on_error=False)
        for key, result in ((self.header_key(gid), header), (self.log_key(gid), stored)):
            if isinstance(result, Exception):
                if is_wrong_type(result):
                    raise CorruptJournal(gid, f"{key} holds another kind of data than a game's")
                raise result
        if isinstance(info, Exception) and not _no_stream(info):
            raise info
        if not header and not stored:
            raise NoSuchGame(gid, self.table)
        if not stored:
            raise CorruptJournal(gid, gone(header))
        head = dict(stored[0][1]) if stored and stored[0][0] == HEAD_ID else None
        identity = self._identity(gid, head, header)
        status, scores = parse_state(gid, header)
        notes = {k: header[k] for k in ("forked_from", "forked_to", "fork_reason", "repaired") if k in header}
        record = GameRecord(gid=gid, status=status, scores=scores, notes=notes, head=head, **identity)
        for item in scan(gid, stored):
            if isinstance(item, CorruptJournal):
                raise item
            record.entries.append(item[1:])
        tail = deleted_tail(stored, {} if isinstance(info, Exception) else info)
        if tail is not None:
            raise CorruptJournal(gid, tail.reason, tail.first)
        record.raw = [dict(fields) for entry_id, fields in stored if entry_id != HEAD_ID]
        return record

    @staticmethod
    def _identity(gid: str, head: dict | None, header: dict) -> dict[str, Any]:
        """Which game: from entry 0-1 (the stream is the truth), else from the hash."""
        if head is not None:
            try:
                return parse_identity(gid, head, "header entry 0-1")
            except CorruptJournal:
                if not header:
                    raise
        if not header:
            raise CorruptJournal(gid, "its header is missing (no header hash and no entry 0-1)")
        return parse_identity(gid, header, "header")

    def entries(self, gid: str, after: int = 0, upto: int | None = None) -> list[tuple[str, dict | None]]:
        """Game `gid`'s entries numbered after `after` (up to `upto`), checked: CorruptJournal names a
        missing or unreadable entry, so a damaged game is never silently shortened."""
        stored = self.client.xrange(self.log_key(gid), min=f"{after + 1}-0", max="+" if upto is None else f"{upto}-0")
        found = []
        for item in scan(gid, stored, after):
            if isinstance(item, CorruptJournal):
                raise item
            found.append(item[1:])
        if upto is not None and after + len(found) != upto:
            raise CorruptJournal(gid, f"entry {after + len(found) + 1}-0 is missing", after + len(found) + 1)
        return found

    def lengths(self, gids: list[str]) -> list[int]:
        """The number of entries of each game (its newest entry's number), in one round trip."""
        with self.client.pipeline(transaction=False) as pipe:
            for gid in gids:
                pipe.xrevrange(self.log_key(gid), count=1)
            tops = pipe.execute(raise_on_error=False)
        return [entry_number(top[0][0]) or 0 if isinstance(top, list) and top else 0 for top in tops]


def _glob_escape(text: str) -> str:
    """`text` matched literally in a SCAN pattern (Redis's glob: * ? [ ] and the backslash)."""
    return "".join("\\" + c if c in "*?[]\\" else c for c in text)
