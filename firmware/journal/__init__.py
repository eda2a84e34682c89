"""The durable game journal in Redis (architecture.md, "The journal"), written to hold against a
hostile store: a second writer, keys deleted or changed under it, a full, read-only or failing server.

Keys, all named by `firmware.store.table_key` under `tablemate:{table}:` (records.py has the fields):
- `game:{gid}:log` stream: entry `0-1` is the game's header (game, players, options, created, hints),
  then entry `{n}-0` is the n-th entry, an action (`kind=action`, `action`=JSON) or an undo marker
  (`kind=undo`). The stream alone rebuilds the game.
- `game:{gid}` hash: the header again, with status (playing | over | abandoned), scores when over,
  and notes: forked_from / forked_to / fork_reason (a game written again under a new gid), repaired.
- `current`: the gid of the game in progress; `games`: gids by start time; `updates`: pub/sub.
- `writer`: the writer lease (lease.py): which process writes this table, with a TTL.

What the journal holds: every game it writes, whole, in memory (a `Mirror`), and how much of it the
store is known to hold. Writes wait in line, in order, and go out one at a time, each in one
MULTI/EXEC transaction under WATCH of the lease, `current`, the game's stream and its header, after
reading them. Before a write the store must hold exactly what this process knows it wrote: the
stream's length and top entry, the header's identity, and `current` naming the game on the table.
- It does: the write is made (XADD with the entry's explicit id, NOMKSTREAM once the stream exists;
  the header hash; `current` at a game's start; the lease renewed; the `games` index; the update
  for live viewers published in the same transaction, so it is sent exactly when the write is made).
- It already holds what the write would make: an earlier attempt ran and only its reply was lost.
  The write counts as done and is not made twice.
- The lease is held by another live process: nothing is written. The writes wait, the screen says
  "Another table writes as <table>" and STATUS= names the holder; they go out once the lease is free.
- Anything else: the game is written again from memory (below).

Every interleaving of a write with a failure:
- sent, the connection drops before EXEC: Redis discards the transaction; the retry finds the store
  as before and makes the write;
- EXEC ran, the reply is lost (redis-py raises WatchError or a connection error): the retry finds the
  write's result and counts it done;
- another client changes a watched key (or FLUSHALL) between the reads and EXEC: EXEC does nothing
  (WATCH), and the write is judged again from fresh reads;
- the process is killed: Redis holds each transaction whole or not at all; what waited in memory dies
  with the process, and the screen showed the "!" badge for exactly those actions;
- Redis is killed: with AOF and appendfsync always (the Pi profile, `doctor`), an acknowledged
  transaction is on disk; a transaction torn at the AOF's end is dropped when Redis loads it.

Refusals are outages, never crashes: a lost connection, OOM ("Redis full"), MISCONF ("Redis disk
error"), READONLY ("Redis read-only"), NOAUTH/WRONGPASS, NOPERM, BUSY, LOADING, MASTERDOWN, NOSCRIPT,
and any other error reply (refusal.py) leave the write in line, set `trouble` (the badge and its
one-line reason on the screen, STATUS=), and the table's next tick tries again.

Written again (`_rewrite`): the stream and header are read under WATCH.
- Every stored entry (header entry included) is one this process wrote, at its own id, and the
  header hash is missing or names the same game (the stream deleted, FLUSHALL, entries deleted, the
  header or `current` deleted or moved): the whole game is written again under its own gid, in one
  transaction (DEL, XADD every entry, HSET, ZADD, SET current). Nothing stored is lost by that.
- Otherwise (an entry this process did not write, e.g. another writer's entry at the next id; a
  changed entry; a header naming another game; a key holding another type): writing over it would
  destroy data, so the game is written whole under a new gid whose header says `forked_from` the old
  one and why (`fork_reason`); the old header gets `forked_to`; `current` moves to the new gid. The
  old keys are otherwise left as they were.
Either way the table flashes what happened ("Game gone from Redis / Game saved again", "Another
table writes as home / Saved as new game <gid>"), and the log says it.

Noticed when: at the next write, and, while the table is idle, every CHECK_S seconds (the signs:
lease, length, top entry, header, current) and every AUDIT_S seconds (every entry compared). The
idle check also renews the lease. An entry damaged and the appliance killed before it noticed is
left for `tablemate log check` / `log repair` (check.py).

Reading: `load()` checks every entry and names the first damaged one (CorruptJournal, with the
entry number `log repair --truncate-at` takes); the header comes from entry 0-1, else the hash; a
game with neither is NoSuchGame. A starting table resumes `current`, or the newest game when
`current` is gone. Undo appends a marker and never deletes: the audit trail stays.
"""

from .core import CHECK_S, Journal, new_gid
from .records import CorruptJournal, GameRecord, NoSuchGame
from .refusal import OUTAGE, STORE_ERRORS, LeaseHeld, Refused, Trouble, trouble

__all__ = ["CHECK_S", "Journal", "new_gid", "CorruptJournal", "GameRecord", "LeaseHeld", "NoSuchGame", "OUTAGE",
           "STORE_ERRORS", "Refused", "Trouble", "trouble"]
