"""The durable game journal in Redis (architecture.md, "The journal"), written to hold against a
hostile store: a second writer, keys deleted or changed under it, a full, read-only or failing server.

Keys, all named by `firmware.store.table_key` under `tablemate:{table}:` (records.py has the fields):
- `game:{gid}:log` stream: entry `0-1` is the game's header (game, players, options, created, hints),
  then entry `{n}-0` is the n-th entry, an action (`kind=action`, `action`=JSON) or an undo marker
  (`kind=undo`; `replaced=1` when the action after it replaces the one it takes back, a card added to
  a play: firmware.session). The stream alone rebuilds the game.
- `game:{gid}` hash: the header again, with status (playing | over | abandoned), scores when over,
  and notes: forked_from / forked_to / fork_reason (a game written again under a new gid), repaired.
- `current`: the gid of the game in progress; `games`: gids by start time; `updates`: pub/sub.
- `writer`: the writer lease (lease.py): which process writes this table, with a TTL.
- `local`: the token of the local copy that holds every write made to the table (below).

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
- the process is killed: Redis holds each transaction whole or not at all; what waited in memory is
  in the local copy, written at the next start (without one, it dies with the process: the screen
  showed the "!" badge for exactly those actions);
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
  one and why (`fork_reason`); the old header gets `forked_to`; `current` moves to the new gid, all
  in one transaction (the keys share the table's hash tag, so a Redis Cluster takes it too). The
  old keys are otherwise left as they were.
Either way the table flashes what happened ("Game gone from Redis / Game saved again", "Another
table writes as home / Saved as new game <gid>"), and the log says it.

Noticed when: at the next write, and, while the table is idle, every CHECK_S seconds (the signs:
lease, length, top entry, header, current) and every AUDIT_S seconds (every entry compared; and a
TTL someone put on a key that must last, the game's, `current`, `games`, `local`, the tag map's, is
removed before the key expires, and said; a `games` index of another type is kept aside and built
again from the headers, as at start). The idle check also renews the lease. An entry damaged and the appliance killed before it noticed is
found at the next start by the local copy (below; the game moves to a new gid), else left for
`tablemate log check` / `log repair` (check.py).

The local copy (local.py; [store] local_dir, the Pi's /var/lib/tablemate): what the journal holds
in memory is also kept in `<local_dir>/<table>.jsonl` on the appliance's own disk. A game's start,
its entries and its status changes are appended and synced there (fdatasync) BEFORE the write goes
to Redis: a saved action (below, "Saved, and not yet") is in the file, in Redis, or both, so a pulled
plug while Redis is down or refuses writes (the "!" badge) loses nothing.
- It holds the games the journal holds: the current one, and an older one while its writes wait. It
  is compacted (written whole from memory to a temporary file, synced, renamed over the file, the
  directory synced) at start, when a game is recovered, and once older games are all in Redis.
- Whole or not: its first line holds a token, and its records are counted. While the file holds
  every write this process made, every write transaction (and the lease's renewal, and the end of
  the start below) sets `local` to "token count"; every write transaction of a process that keeps no
  local copy, or whose copy failed, deletes `local` (no local_dir, a full disk, `tablemate
  restore`). So the file is whole (it holds every write made to the table) when its token is the one
  in `local` and it holds at least as many records. A file left by a run whose local copy failed, an
  older SD card image, another appliance's, one read after FLUSHALL is not; nor is one cut short on
  the disk (truncated, even at a line's end): the players are told ("Local copy cut short").
- At start (Table.boot, once the lease is ours, before the game is recovered; while Redis does not
  answer the boot waits, and this runs once it does) each game of the file is compared with every
  entry Redis holds of it, and the running journal's own writes (above) make the store right:
  - Redis holds nothing of it: the game is written under its gid (its header, then its entries);
  - Redis holds a prefix of it, or all of it: the entries it lacks are written, in order, with their
    own ids, and the status when it differs. An entry Redis holds is never written again, but for
    entries deleted from the stream's end: XADD refuses an id at or below the stream's last id, and
    Redis 8 refuses XSETID below the largest id ever deleted (7.0 allowed it), so in one
    transaction the stream is written anew (the entries it holds, compared under WATCH, then the
    ones it lacks) and XSETID gives it Redis's record of the old one (its last id, entries-added,
    max-deleted-entry-id) as if they had never been deleted, so any the file lacks too stays on
    record (see Reading). A store without XSETID (the in-memory fakeredis) has the game written
    again instead, as below;
  - the file is not whole and Redis holds its game and more: Redis's stands (the file is older);
  - the game was repaired in Redis (a `repaired` note the file lacks): Redis's stands;
  - anything else: the store departs from the game as written, and it is written again exactly as
    above ("Written again"): under its gid when every stored entry is the table's (the stream gone,
    `current` deleted or moved...), else under a new gid with forked_from (an entry the file lacks,
    while the file is whole: another writer's; an entry changed). The new gid goes into the file
    ("moved") before the transaction that writes it, so a kill in between cannot fork the game twice;
    the new game is then written at the next start, and its first transaction also gives the old
    header its `forked_to` (when that header exists and lacks one): the two headers never stay unlinked.
  The game the file names active is the table's game (a file not whole: only when `current` is
  missing or names it). Then the game in progress is recovered from Redis as at any start, and the
  file compacted to hold it. The players are told once ("Redis lacked 3 entries / Saved from local
  copy", or the rewrite's notice). Later, while the appliance runs, memory and the file are the same:
  the writes that wait go out when the store answers again, by the rules above.
- It is a side feature: a directory that cannot be made or written, a full disk, an I/O error is
  logged and shown once ("Local copy failed / Play goes on"), and the local copy is off for the run
  (Redis alone keeps what follows; the next start tries again). A torn last line (a power cut while
  it was appended, which left its start without its end, or its end after NUL bytes; the write it
  records was never sent) is ignored with a log line. Any other damaged line is reported (log,
  screen) and the file kept aside as `<table>.jsonl.damaged-<time>`; the games are taken as the
  lines before it hold them, and the file is not whole.
- The tag map and enrolment's places are kept beside it, whole, in `<local_dir>/<table>.tags.json`
  (tagcopy.py, written before every change of them; Redis's `local:tags` names the version that holds
  every change) and given back at start to a Redis that lacks them (firmware.tagmap.TagMap.reconcile).
- Off unless configured: the desktop's memory:// store is empty at every start, so a local copy would
  write its games into it again at each start (the profile refuses the pair); the tests that need it
  set it.

Saved, and not yet (writer.py, shown.py): the table never waits for the disk. On a Pi, Redis's AOF
and the local copy share the SD card, whose fsync takes a few ms on a good card, tens on a common
one and hundreds while its controller reorganises itself; a tap that waited for two of them in
series was a stalled table. So the appliance's loop applies an action, draws and shows its frame,
and hands the write to the writer thread (the Writer: the Journal above, used by that one thread
alone, so none of its rules changed). It is a single writer with a queue, not a pool or an async
client: the writes must be made in the order they were accepted, each judged against the store
as the one before left it, and one thread in order gives that with the Journal's code unchanged;
Redis and the disk are the slow parts, never the Python around them. The writer takes every write
that queued up meanwhile, appends its records to the local copy, syncs them with one fdatasync,
then makes one transaction per game (a batch's entries in one XADD run), so a slow card costs one
fsync per batch, not per action, and taps, presses and frames go on meanwhile.
- The local copy is synced before Redis is written, in series (justified, not overlapped): Redis is
  told in the same transaction that the file holds the write (`local`, above), which is only true
  once it is on the disk; and a write is saved as soon as either holds it on the disk, so the local
  copy's single fdatasync is what the screen waits for, Redis's fsync comes after and gates nothing
  the players see. Overlapping them would make every power cut between the two look like a local
  copy cut short. Without a local copy, a write is saved when Redis acknowledges it.
- The screen promises nothing it has not kept: a write not yet on the disk SAVE_MARK_S (0.5 s)
  after its frame was shown turns the "!" badge on, with "Not saved yet" on the scoreboard's line
  and STATUS=, until it is saved. Below 0.5 s the table says nothing either way (most writes take a
  few ms; a badge flickering on every tap would mean nothing).
- What was shown: once its frame is out, every write is noted in `<local_dir>/<table>.shown` by a
  write() without fsync (shown.py). The page cache outlives the process, so after a crash or a kill
  the note is always there (and so are the local copy's records: nothing is lost); after a power
  cut it is there only if the kernel wrote it back before the cut. At the next start, once the
  local copy gave back what it held, an input noted and missing from the store is named once ("Not
  saved before the power went: Eve plays red / Tap it again"). An input whose note was lost too
  cannot be named by anything that costs the tap no fsync: it had been on the screen for less than
  the writes' latency, and the screen had not said it was saved. LazyFS power cuts (the README)
  measure both.
- Stopping (Loop.finish) waits for the writer: what it holds is written or kept as before.
Virtual-time scripts and the tests that drive a Writer without starting it make each write at once.

Reading: `load()` checks every entry and names the first damaged one (CorruptJournal, with the
entry number `log repair --truncate-at` takes); the header comes from entry 0-1, else the hash; a
game with neither is NoSuchGame. Entries deleted from the middle leave a gap in the ids; entries
deleted from the end leave none, but Redis's own record of the stream (XINFO STREAM's
last-generated-id, and from Redis 7.0 max-deleted-entry-id and entries-added) still shows them
(records.deleted_tail): the first is named as a missing entry ("entry 9-0 is missing, and 10-0 to
12-0 (deleted from the end)"), and the table halts on it as on a gap, never playing on from a
shorter game. `log repair --truncate-at 9` keeps every entry stored and accepts the loss: it writes
the stream anew, which starts Redis's record afresh. The journal's own writes never delete an entry
(a stream is written again whole: DEL, then XADD), nor do `restore`, the club uplink or the move of
keys under their hash tag (RENAMENX keeps a stream's record), so none of them looks like a deleted
end. A starting table resumes `current`, or the newest game when `current` is gone. Undo appends a
marker and never deletes: the audit trail stays.
"""

from .core import CHECK_S, Journal, new_gid
from .records import CorruptJournal, GameRecord, NoSuchGame
from .refusal import OUTAGE, STORE_ERRORS, LeaseHeld, Refused, Trouble, trouble
from .writer import SAVE_MARK_S, Writer

__all__ = ["CHECK_S", "Journal", "new_gid", "CorruptJournal", "GameRecord", "LeaseHeld", "NoSuchGame", "OUTAGE",
           "SAVE_MARK_S", "STORE_ERRORS", "Refused", "Trouble", "Writer", "trouble"]
