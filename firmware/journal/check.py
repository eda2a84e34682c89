"""`tablemate log check` and `tablemate log repair`: every damaged part of a stored game named, and a
game cut back to before its first damaged entry, after a backup of it was kept.

A check reads the header (entry 0-1 and the hash), every entry (its id, its kind, its action), then
replays the actions through the game's engine up to the first damaged entry: later entries depend on
the ones before, so the rules cannot judge them once one is damaged (their form still is checked).

A repair keeps a copy of the game first, as a JSON file and under new Redis keys
(`game:{gid}:backup:{stamp}:log` and `game:{gid}:backup:{stamp}`), then, in one transaction watched
against any other write, rebuilds the stream with the header entry and entries 1 .. N-1, and writes
the header hash (status playing, a `repaired` note). A table halted on the game finds it readable
again within a few seconds and plays on from there.
"""

import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import redis

import engines

from ..session import replay
from .core import Journal
from .records import HEAD_ID, CorruptJournal, NoSuchGame, head_fields, parse_identity, parse_state, scan
from .refusal import is_wrong_type


class RepairRefused(Exception):
    """A repair that cannot be made as asked (the message says why and what to do)."""


@dataclass
class Damage:
    #: the entry's number, None for the header
    entry: int | None
    reason: str


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
            report.damages.append(Damage(item.entry, item.reason.removeprefix(f"entry {item.entry}-0 ")))
        else:
            found.append(item)
    report.entries = sum(1 for entry_id, _ in report.stream if entry_id != HEAD_ID)
    _replay(report, found)
    report.damages.sort(key=lambda d: -1 if d.entry is None else d.entry)
    return report


def _read(journal: Journal, report: Report, key: str, read, empty):
    """read(key), or `empty` with the damage noted when the key holds another type of data."""
    try:
        return read(key)
    except redis.ResponseError as error:
        if not is_wrong_type(error):
            raise
        report.damages.append(Damage(None, f"{key} holds a {journal.client.type(key)}, not a game's data"))
        return empty


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
    if head is None and report.header:
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
        report.damages.append(Damage(refused.entry, refused.reason.removeprefix(f"entry {refused.entry}-0 ")))
    first = report.first_damaged
    if first is not None and any(number > first for number, _, _ in found):
        report.notes.append(f"entries after {first}-0 are not judged by the rules: each depends on the ones before")


def repair(journal: Journal, gid: str, truncate_at: int, backup_dir: Path) -> list[str]:
    """Cut game `gid` back to entries 1 .. truncate_at - 1, after keeping a backup; what was done, in words."""
    report = examine(journal, gid)
    first = report.first_damaged
    if report.identity is None:
        raise RepairRefused(f"game {gid}: its header is unreadable, and cutting entries cannot mend that: "
                            f"see tablemate log check {gid}")
    if first is None:
        raise RepairRefused(f"game {gid}: no entry is damaged, nothing to repair (tablemate log check {gid})")
    if not 1 <= truncate_at <= first:
        raise RepairRefused(f"game {gid}: entry {first}-0 is the first damaged one: truncate at {first} or before (1 at least)")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    backup_key = journal.key("game", gid, "backup", stamp)
    file = backup_dir / f"tablemate-{journal.table}-{gid}-{stamp}.json"
    keep = [(entry_id, fields) for entry_id, fields in report.stream if entry_id != HEAD_ID][: truncate_at - 1]
    identity = report.identity
    head = head_fields(identity["game"], identity["players"], identity["options"], identity["created"], identity["hints"],
                       identity["cards"])
    note = f"{stamp}: truncated at entry {truncate_at}-0; the stream before it is in {backup_key}:log and {file}"

    def rebuild(pipe: redis.client.Pipeline) -> None:
        if pipe.xrange(journal.log_key(gid)) != report.stream or pipe.hgetall(journal.header_key(gid)) != report.header:
            raise RepairRefused(f"game {gid} changed while it was being repaired (a table writes it?): run the repair again")
        file.write_text(json.dumps({"table": journal.table, "gid": gid, "saved": stamp, "key": f"{backup_key}:log",
                                    "header": report.header, "stream": report.stream}, indent=1, ensure_ascii=False) + "\n",
                        encoding="utf-8")
        pipe.multi()
        pipe.copy(journal.log_key(gid), f"{backup_key}:log")
        if report.header:
            pipe.copy(journal.header_key(gid), backup_key)
        pipe.delete(journal.log_key(gid))
        pipe.xadd(journal.log_key(gid), head, id=HEAD_ID)
        for entry_id, fields in keep:
            pipe.xadd(journal.log_key(gid), fields, id=entry_id, nomkstream=True)
        header = {k: v for k, v in head.items() if k != "kind"}
        pipe.hset(journal.header_key(gid), mapping={**header, "status": "playing", "scores": "", "repaired": note})
        pipe.zadd(journal.key("games"), {gid: identity["created"]})
        pipe.execute()

    journal.transact((journal.log_key(gid), journal.header_key(gid)), rebuild)
    holder, _ = journal.holder()
    lines = [f"game {gid}: kept entries 1-{truncate_at - 1}, removed {report.entries - len(keep)} from {truncate_at}-0 on",
             f"backup: Redis key {backup_key}:log (and {backup_key}), file {file}"]
    if holder is not None:
        lines.append("a table writes this table now: if it is halted on this game, it plays on from here within seconds")
    return lines
