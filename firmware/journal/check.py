"""`tablemate log check` and `tablemate log repair`: every damaged part of a stored game named, and a
game cut back to before its first damaged entry, after a backup of it was kept.

A check reads the header (entry 0-1 and the hash), every entry (its id, its kind, its action) and
Redis's record of the stream (XINFO STREAM: entries deleted from its end, records.deleted_tail, are
damage at the first of them), then replays the actions through the game's engine up to the first
damaged entry: later entries depend on the ones before, so the rules cannot judge them once one is
damaged (their form still is checked).

A repair keeps a copy of the game first, as a JSON file (its directory made when missing) and under
new Redis keys (`game:{gid}:backup:{stamp}:log` and `game:{gid}:backup:{stamp}`, copied whatever
they hold), then, in one transaction watched against any other write, rebuilds the stream with the
header entry and entries 1 .. N-1, and writes the header hash again (status playing, the fork notes
it had, a `repaired` note). The stream is written anew (DEL, then XADD), so Redis's record of it
starts afresh: `--truncate-at` the first entry deleted from the stream's end (every entry stored
kept) accepts their loss deliberately, and the table goes on from there. The header comes from the
part of it that names the game (entry 0-1, else the hash), so a game whose only damage is in its
header (the hash unreadable or of another type, entry 0-1 unreadable, the two disagreeing, its
entries gone) is repaired keeping every entry: `--truncate-at` is then not needed. A table halted
on the game finds it readable again within a few seconds and plays on from there. A backup that
cannot be written is a disk error (the file named, nothing repaired).
"""

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

import engines

from ..session import replay
from .core import Journal
from .records import HEAD_ID, CorruptJournal, NoSuchGame, Tail, deleted_tail, gone, head_fields, parse_identity, parse_state, scan
from .refusal import is_wrong_type


class RepairRefused(Exception):
    """A repair that cannot be made as asked (the message says why and what to do)."""


@dataclass
class Damage:
    #: the entry's number, None for the header
    entry: int | None
    reason: str
    #: a header damage a repair mends (rebuilding the header from the part that names the game);
    #: False: the game it names is refused (unknown, or its set-up)
    mendable: bool = True

    @classmethod
    def at(cls, entry: int | None, reason: str, mendable: bool = True) -> "Damage":
        """Damage to `entry`, said in CorruptJournal's words less the "entry N-0 " they begin with."""
        return cls(entry, reason.removeprefix(f"entry {entry}-0 "), mendable)


@dataclass
class Report:
    gid: str
    title: str = ""
    entries: int = 0
    damages: list[Damage] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    identity: dict | None = None
    #: the stored fields, as read: the header hash and the stream
    header: dict = field(default_factory=dict)
    stream: list[tuple[str, dict]] = field(default_factory=list)
    #: the entries deleted from the end of the stream, as Redis's record of it shows (None: none)
    tail: Tail | None = None

    @property
    def first_damaged(self) -> int | None:
        numbers = [d.entry for d in self.damages if d.entry is not None]
        return min(numbers) if numbers else None

    def lines(self) -> list[str]:
        """The report in words, one line each."""
        lines = [f"game {self.gid}: {self.title or 'unknown game'}, {self.entries} entries"]
        lines += [f"  note: {note}" for note in self.notes]
        lines += [f"  {'header' if d.entry is None else f'entry {d.entry}-0'}: {d.reason}" for d in self.damages]
        first = self.first_damaged
        if first is not None and self.identity is not None:
            lines.append(f"  repair: tablemate log repair {self.gid} --truncate-at {first} (keeps entries 1-{first - 1})")
        elif self.identity is not None and self.damages and all(d.mendable for d in self.damages):
            lines.append(f"  repair: tablemate log repair {self.gid} (rebuilds the header, keeps every entry)")
        if not self.damages:
            lines.append("  ok: every entry is readable and the rules accept every action")
        return lines


def examine(journal: Journal, gid: str) -> Report:
    """Everything wrong with stored game `gid` (NoSuchGame-like KeyError when nothing is stored)."""
    report = Report(gid)
    report.header = _read(journal, report, journal.header_key(gid), lambda key: journal.client.hgetall(key), {})
    report.stream = _read(journal, report, journal.log_key(gid), lambda key: journal.client.xrange(key), [])
    if not report.header and not report.stream and not report.damages:
        raise NoSuchGame(gid, journal.table)
    head = dict(report.stream[0][1]) if report.stream and report.stream[0][0] == HEAD_ID else None
    report.identity = _identity(report, head)
    found = []
    for item in scan(gid, report.stream):
        if isinstance(item, CorruptJournal):
            report.damages.append(Damage.at(item.entry, item.reason))
        else:
            found.append(item)
    report.tail = deleted_tail(report.stream, journal.stream_info(journal.client, journal.log_key(gid)) if report.stream else {})
    if report.tail is not None:
        report.damages.append(Damage.at(report.tail.first, report.tail.reason))
        report.notes.append(f"Redis's record of the stream (XINFO STREAM): {report.tail.evidence}")
    report.entries = sum(1 for entry_id, _ in report.stream if entry_id != HEAD_ID)
    _replay(report, found)
    report.damages.sort(key=lambda d: -1 if d.entry is None else d.entry)
    return report


def _read(journal: Journal, report: Report, key: str, read, empty):
    """read(key), or `empty` with the damage noted when the key holds another type of data."""
    return _stored(read, key, empty, lambda: report.damages.append(
        Damage(None, f"{key} holds a {journal.client.type(key)}, not a game's data")))


def _identity(report: Report, head: dict | None) -> dict | None:
    """Which game (from entry 0-1, else from the hash), noting what is wrong with either."""
    identities = {}
    for where, fields in (("entry 0-1", head), ("header hash", report.header or None)):
        if fields is None:
            continue
        try:
            identities[where] = parse_identity(report.gid, fields, where)
        except CorruptJournal as error:
            report.damages.append(Damage(None, error.reason))
    if report.header and not report.stream and not report.damages:
        report.damages.append(Damage(None, gone(report.header)))
    elif head is None and report.header:
        report.notes.append("no header entry 0-1 (a game stored before it existed): the hash alone names the game")
    if not report.header and head is not None:
        report.notes.append("the header hash is missing: the table writes it again from entry 0-1")
    if len(identities) == 2 and identities["entry 0-1"] != identities["header hash"]:
        report.damages.append(Damage(None, "the header hash and entry 0-1 name different games (entry 0-1 is used)"))
    if head is None and not report.header:
        report.damages.append(Damage(None, "its header is missing (no header hash and no entry 0-1)"))
    try:
        status, _ = parse_state(report.gid, report.header)
        report.notes.append(f"status {status}")
    except CorruptJournal as error:
        report.damages.append(Damage(None, error.reason))
    report.notes += [f"{note} {report.header[note]}" for note in ("forked_from", "forked_to", "fork_reason", "repaired") if note in report.header]
    return identities.get("entry 0-1") or identities.get("header hash")


def _replay(report: Report, found: list[tuple[int, str, dict | None]]) -> None:
    """The engine's judgement of every action before the first damaged entry."""
    identity = report.identity
    if identity is None:
        return
    if identity["game"] in engines.names():
        report.title = f"{engines.get(identity['game']).title}, {len(identity['players'])} players"
    first = report.first_damaged
    try:
        replay(report.gid, identity["game"], identity["players"], identity["options"],
               [entry for entry in found if first is None or entry[0] < first])
    except CorruptJournal as refused:
        report.damages.append(Damage.at(refused.entry, refused.reason, refused.entry is not None))
    first = report.first_damaged
    if first is not None and any(number > first for number, _, _ in found):
        report.notes.append(f"entries after {first}-0 are not judged by the rules: each depends on the ones before")


def repair(journal: Journal, gid: str, truncate_at: int | None, backup_dir: Path) -> list[str]:
    """Cut game `gid` back to entries 1 .. truncate_at - 1 (None: keep every entry, when only its
    header is damaged) and rebuild its header, after keeping a backup; what was done, in words."""
    report = examine(journal, gid)
    first, entries = report.first_damaged, report.entries
    header = [damage for damage in report.damages if damage.entry is None]
    if report.identity is None:
        raise RepairRefused(f"game {gid}: its header is unreadable, and cutting entries cannot mend that: "
                            f"see tablemate log check {gid}")
    refused = next((damage for damage in header if not damage.mendable), None)
    if refused is not None:
        raise RepairRefused(f"game {gid}: {refused.reason}: no repair mends that (tablemate log check {gid})")
    if first is None and not header:
        raise RepairRefused(f"game {gid}: no entry is damaged and its header is whole, nothing to repair (tablemate log check {gid})")
    if truncate_at is None and first is not None:
        raise RepairRefused(f"game {gid}: entry {first}-0 is damaged: give --truncate-at {first} (keeps entries 1-{first - 1}), "
                            f"as tablemate log check {gid} says")
    truncate_at = entries + 1 if truncate_at is None else truncate_at
    if first is not None and not 1 <= truncate_at <= first:
        raise RepairRefused(f"game {gid}: entry {first}-0 is the first damaged one: truncate at {first} or before (1 at least)")
    if not 1 <= truncate_at <= entries + 1:
        raise RepairRefused(f"game {gid}: it has {entries} entries: truncate at {entries + 1} (keeps them all) or before (1 at least)")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup_key = journal.key("game", gid, "backup", stamp)
    file = backup_dir / f"tablemate-{journal.table}-{gid}-{stamp}.json"
    keep = [(entry_id, fields) for entry_id, fields in report.stream if entry_id != HEAD_ID][: truncate_at - 1]
    identity = report.identity
    head = head_fields(identity["game"], identity["players"], identity["options"], identity["created"], identity["hints"],
                       identity["cards"])
    tail = report.tail
    done = f"truncated at entry {truncate_at}-0" if truncate_at <= entries or tail else "header rebuilt, every entry kept"
    note = f"{stamp}: {done}; the game before it is in {backup_key}:log and {file}"
    notes = {key: report.header[key] for key in ("forked_from", "forked_to", "fork_reason") if key in report.header}
    log_key, header_key = journal.log_key(gid), journal.header_key(gid)
    _backup_file(file, lambda: backup_dir.mkdir(parents=True, exist_ok=True))

    def rebuild(pipe: redis.client.Pipeline) -> None:
        if _stored(pipe.xrange, log_key, []) != report.stream or _stored(pipe.hgetall, header_key, {}) != report.header:
            raise RepairRefused(f"game {gid} changed while it was being repaired (a table writes it?): run the repair again")
        text = json.dumps({"table": journal.table, "gid": gid, "saved": stamp, "key": f"{backup_key}:log",
                           "header": report.header, "stream": report.stream}, indent=1, ensure_ascii=False) + "\n"
        _backup_file(file, lambda: file.write_text(text, encoding="utf-8"))
        pipe.multi()
        pipe.copy(log_key, f"{backup_key}:log")
        pipe.copy(header_key, backup_key)
        pipe.delete(log_key, header_key)
        pipe.xadd(log_key, head, id=HEAD_ID)
        for entry_id, fields in keep:
            pipe.xadd(log_key, fields, id=entry_id, nomkstream=True)
        fields = {k: v for k, v in head.items() if k != "kind"}
        pipe.hset(header_key, mapping={**fields, "status": "playing", "scores": "", **notes, "repaired": note})
        pipe.zadd(journal.key("games"), {gid: identity["created"]})
        pipe.execute()

    journal.transact((log_key, header_key), rebuild)
    holder, _ = journal.holder()
    if truncate_at <= entries:
        lines = [f"game {gid}: kept entries 1-{truncate_at - 1}, removed {entries - len(keep)} from {truncate_at}-0 on"]
    elif tail:
        lines = [f"game {gid}: kept entries 1-{entries}, every one stored"]
    else:
        lines = [f"game {gid}: header rebuilt, every entry kept ({entries})"]
    if tail:
        lines.append(f"  {tail.reason}: accepted as lost (the stream's last id is {keep[-1][0] if keep else HEAD_ID} again)")
    lines += [f"  header: {damage.reason}: mended" for damage in header]
    lines.append(f"backup: Redis key {backup_key}:log (and {backup_key}), file {file}")
    if holder is not None:
        lines.append("a table writes this table now: if it is halted on this game, it plays on from here within seconds")
    return lines


def _stored(read, key: str, empty, wrong_type=lambda: None):
    """read(key), or `empty` (after wrong_type()) when the key holds another type of data."""
    try:
        return read(key)
    except redis.ResponseError as error:
        if not is_wrong_type(error):
            raise
        wrong_type()
        return empty


def _backup_file(file: Path, write) -> None:
    """write() the backup file (or make its directory): a disk error names the file, and says that
    nothing was repaired (the CLI reports it as a file error, not as the store's)."""
    try:
        write()
    except OSError as error:
        raise OSError(error.errno, f"the backup could not be written, so nothing was repaired: {error.strerror or error}",
                      str(file)) from None
