"""The backup file: JSON lines, one record per line, versioned, checked whole before anything is used.

    {"record": "header", "format": "tablemate-backup", "version": 1, "table": "home", "written": "2026-11-23T03:30:00+00:00", "by": "tablemate 0.1.0"}
    {"record": "profile", "file": "pi.toml", "text": "[table]\\nid = \\"home\\"\\n..."}
    {"record": "board", "game": "taj_mahal", "name": "club", "text": "name = \\"Club copy\\"\\n..."}
    {"record": "tag", "uid": "04a1b2c3", "game": "thurn_und_taxis", "kind": "card", "label": "Ulm 1/3", "descriptor": {"id": "ulm-1", "city": "ulm"}}
    {"record": "enrolment", "game": "taj_mahal", "next": 57}
    {"record": "game", "gid": "20261121-194501-3fa2", "game": "thurn_und_taxis", "players": ["Ana", "Ben"], "options": {}, "created": 1795290301.5, "status": "over", "scores": [...], "hints": true, "entries": [{"action": {...}}, {"undo": true}, ...]}
    {"record": "skipped", "gid": "...", "reason": "entry 12-0 is missing"}
    {"record": "current", "gid": "20261121-194501-3fa2"}
    {"record": "end", "records": 9, "sha256": "..."}

The header comes first and `end` last; `end` counts the records before it and holds the SHA-256 of
their bytes, so a file cut short or damaged on a dying card is refused rather than half restored.
A file is read line by line, never whole, and refused over MAX_BACKUP bytes before it is read or a
record nested deeper than the format allows: its games are checked one at a time and only where
each lies in the file is kept (Contents.games reads them again, one at a time, as they are restored,
each line checked against the digest it had when it was checked), so reading a backup takes memory
for one game, not for the file.
A game keeps its header and every journal entry, undo markers included (the audit trail); `skipped`
names a game the store could not give whole when the backup was written. Readers of version 1
refuse any other version and any record they do not know: a newer tablemate writes a newer version.
"""

import hashlib
import io
import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import engines
from engines.core.data import FileRefused, parsed

from .. import boards as owner_boards
from ..enrolment import slots
from ..journal import CorruptJournal, GameRecord
from ..session import GID, Session
from ..tagfile import BadTagFile, check_entries
from ..tagmap import TagEntry

FORMAT = "tablemate-backup"
VERSION = 1
STATUSES = ("playing", "over", "abandoned")
#: Every record of version 1 and its keys.
KEYS = {
    "header": {"record", "format", "version", "table", "written", "by"},
    "profile": {"record", "file", "text"},
    "board": {"record", "game", "name", "text"},
    "tag": {"record", "uid", "game", "kind", "label", "descriptor"},
    "enrolment": {"record", "game", "next"},
    "game": {"record", "gid", "game", "players", "options", "created", "status", "scores", "hints", "entries"},
    "skipped": {"record", "gid", "reason"},
    "current": {"record", "gid"},
    "end": {"record", "records", "sha256"},
}
#: Keys a record may have besides (a game's player cards, only when a card claimed a seat)
OPTIONAL = {"game": {"cards"}}
#: The largest backup read, in bytes: some 45,000 games of 300 actions, far past a table's lifetime
MAX_BACKUP = 1024 * 1024 * 1024


class BadBackup(ValueError):
    """A backup file that cannot be restored; the message names the file, the line and what is wrong."""


@dataclass
class Contents:
    """Everything a backup holds, checked."""

    table: str
    written: str
    by: str
    #: the profile's file name and text
    profile: tuple[str, str] | None = None
    #: (game, name, text) of each of the owner's board files
    boards: list[tuple[str, str, str]] = field(default_factory=list)
    tags: dict[str, TagEntry] = field(default_factory=dict)
    #: game -> the position guided enrolment resumes at
    enrolment: dict[str, int] = field(default_factory=dict)
    #: every game (a file's: read again one at a time, see _Games)
    games: Sequence[GameRecord] = field(default_factory=list)
    #: (gid, why) of the games the store could not give whole when the backup was written
    skipped: list[tuple[str, str]] = field(default_factory=list)
    current: str | None = None


def dump(contents: Contents) -> str:
    """The backup file's text."""
    records: list[dict] = [{"record": "header", "format": FORMAT, "version": VERSION, "table": contents.table,
                            "written": contents.written, "by": contents.by}]
    if contents.profile is not None:
        records.append({"record": "profile", "file": contents.profile[0], "text": contents.profile[1]})
    records += [{"record": "board", "game": game, "name": name, "text": text} for game, name, text in contents.boards]
    records += [{"record": "tag", "uid": uid, "game": e.game, "kind": e.kind, "label": e.label, "descriptor": e.descriptor}
                for uid, e in sorted(contents.tags.items())]
    records += [{"record": "enrolment", "game": game, "next": position} for game, position in sorted(contents.enrolment.items())]
    records += [_game_record(game) for game in contents.games]
    records += [{"record": "skipped", "gid": gid, "reason": reason} for gid, reason in contents.skipped]
    records.append({"record": "current", "gid": contents.current})
    body = "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)
    end = {"record": "end", "records": len(records), "sha256": hashlib.sha256(body.encode()).hexdigest()}
    return body + json.dumps(end) + "\n"


def _game_record(game: GameRecord) -> dict:
    return {"record": "game", "gid": game.gid, "game": game.game, "players": game.players, "options": game.options,
            "created": game.created, "status": game.status, "scores": game.scores, "hints": game.hints,
            "entries": [{"undo": True} if kind == "undo" else {"action": action} for kind, action in game.entries],
            **({"cards": game.cards} if game.cards else {})}


def parse(text: str, source: str) -> Contents:
    """The checked contents of a backup file's text; BadBackup names the first thing wrong."""
    data = text.encode()
    return read(lambda: io.BytesIO(data), source)


def read(reopen: Callable[[], BinaryIO], source: str) -> Contents:
    """The checked contents of the backup file `reopen()` opens, read line by line (module docstring);
    BadBackup names the first thing wrong: a file that is not a backup, then one cut short or changed
    (the end record's count and checksum), then the first bad record."""
    digest = hashlib.sha256()
    reader = _Reader(source, reopen)
    problem: BadBackup | None = None
    last: tuple[int, int, bytes] | None = None
    with reopen() as file:
        for number, offset, raw in _lines(file, source):
            if last is not None:
                digest.update(last[2])
                if last[0] == 1:
                    reader.header(last[2])  # not a backup: said at once
                elif problem is None:
                    try:
                        reader.take(*last)
                    except BadBackup as bad:
                        problem = bad
            last = (number, offset, raw)
    if last is None:
        raise BadBackup(f"{source}: empty: not a tablemate backup")
    count = last[0]
    if count == 1:
        reader.header(last[2])
    end = _json(last[2]) if count > 1 else None
    if not isinstance(end, dict) or end.get("record") != "end":
        raise BadBackup(f"{source}: truncated: it stops at line {count} without its end record "
                        f"(the copy is incomplete; copy the file again)")
    _keys(source, count, end)
    if end["records"] != count - 1 or end["sha256"] != digest.hexdigest():
        raise BadBackup(f"{source}: damaged: its lines do not match the checksum of its end record "
                        f"(line {count}); the file was changed or corrupted after it was written")
    if problem is not None:
        raise problem
    return reader.finish(count)


def _lines(file: BinaryIO, source: str) -> Iterator[tuple[int, int, bytes]]:
    """(number, offset, bytes with the newline) of each line; BadBackup past MAX_BACKUP bytes (a pipe, a
    file that grows)."""
    offset, number = 0, 0
    while raw := file.readline(MAX_BACKUP + 1 - offset):
        number += 1
        yield number, offset, raw
        offset += len(raw)
        if offset > MAX_BACKUP:
            raise BadBackup(f"{source}: more than {MAX_BACKUP // 1024 ** 3} GB: not a backup tablemate wrote")


def _json(raw: bytes) -> Any:
    """A line's JSON value; None when it is not JSON, or nests deeper than MAX_DEPTH (engines.core.data)."""
    try:
        return parsed(json.loads, raw.decode("utf-8"), "")
    except (ValueError, FileRefused):
        return None


def _record(source: str, number: int, raw: bytes) -> dict:
    try:
        record = parsed(json.loads, raw.decode("utf-8"), f"{source}, line {number}")
    except UnicodeDecodeError:
        raise BadBackup(f"{source}, line {number}: not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise BadBackup(f"{source}, line {number}: not JSON ({error.msg}, column {error.colno})") from None
    except FileRefused as refused:
        raise BadBackup(str(refused)) from None
    if not isinstance(record, dict) or record.get("record") not in KEYS:
        kind = record.get("record") if isinstance(record, dict) else None
        raise BadBackup(f"{source}, line {number}: not a backup record (unknown record {kind!r})")
    return record


def _header(source: str, header: dict) -> None:
    if header.get("record") != "header" or header.get("format") != FORMAT:
        raise BadBackup(f"{source}: not a tablemate backup (line 1 is not its header)")
    version = header.get("version")
    if version != VERSION:
        newer = isinstance(version, int) and not isinstance(version, bool) and version > VERSION
        raise BadBackup(f"{source}, line 1: format version {version!r}; this tablemate reads version {VERSION}"
                        + (": the backup was written by a newer tablemate, upgrade this one first" if newer else ""))
    _keys(source, 1, header)


def _keys(source: str, number: int, record: dict) -> None:
    wanted = KEYS[record["record"]]
    if not wanted <= set(record) <= wanted | OPTIONAL.get(record["record"], set()):
        odd = sorted(set(record) ^ wanted)
        optional = "".join(f" (and optionally {key})" for key in sorted(OPTIONAL.get(record["record"], ())))
        raise BadBackup(f"{source}, line {number}: a {record['record']} record has exactly {', '.join(sorted(wanted))}{optional} "
                        f"(this one differs in {', '.join(odd)})")


class _Reader:
    """Checks the records of a backup file one at a time, in order, into Contents."""

    def __init__(self, source: str, reopen: Callable[[], BinaryIO]):
        self.source = source
        self.contents: Contents | None = None
        self.games = _Games(source, reopen)
        self.raw_tags: list[tuple[str, object, str]] = []
        self.current: list[tuple[int, Any]] = []

    def fail(self, number: int, what: str, message: str) -> BadBackup:
        return BadBackup(f"{self.source}, line {number} ({what}): {message}")

    def header(self, raw: bytes) -> None:
        """Line 1: the header, or this is no backup (BadBackup)."""
        header = _json(raw)
        if not isinstance(header, dict):
            raise BadBackup(f"{self.source}: not a tablemate backup (line 1 is not its header)")
        _header(self.source, header)
        self.contents = Contents(str(header["table"]), str(header["written"]), str(header["by"]), games=self.games)

    def take(self, number: int, offset: int, raw: bytes) -> None:
        """The record on line `number` (at `offset` in the file), checked."""
        contents, record = self.contents, _record(self.source, number, raw)
        kind = record["record"]
        _keys(self.source, number, record)
        if kind == "header" or kind == "end":
            raise self.fail(number, kind, f"a backup has one {kind} record, {'first' if kind == 'header' else 'last'}")
        if kind == "profile":
            contents.profile = self.profile(number, record, contents.profile)
        elif kind == "board":
            contents.boards.append(self.board(number, record, contents.boards))
        elif kind == "tag":
            entry = {key: record[key] for key in ("game", "kind", "label", "descriptor")}
            self.raw_tags.append((str(record["uid"]), entry, f"{self.source}, line {number} (tag {record['uid']})"))
        elif kind == "enrolment":
            game, position = self.enrolment(number, record, contents.enrolment)
            contents.enrolment[game] = position
        elif kind == "game":
            self.games.add(self.game(number, record).gid, number, offset, raw)
        elif kind == "skipped":
            if not all(isinstance(record[key], str) for key in ("gid", "reason")):
                raise self.fail(number, "skipped", "gid and reason are text")
            contents.skipped.append((record["gid"], record["reason"]))
        else:
            self.current.append((number, record["gid"]))

    def finish(self, count: int) -> Contents:
        """The contents, once every record before the end record (line `count`) was taken."""
        try:
            self.contents.tags = check_entries(self.raw_tags)
        except BadTagFile as error:
            raise BadBackup(str(error)) from None
        self.contents.current = self.current_game(count)
        return self.contents

    def profile(self, number: int, record: dict, before: Any) -> tuple[str, str]:
        if before is not None:
            raise self.fail(number, "profile", "a backup holds one profile")
        if not (isinstance(record["file"], str) and record["file"].strip() and "/" not in record["file"] and isinstance(record["text"], str)):
            raise self.fail(number, "profile", "file is a file name and text the profile's text")
        return record["file"], record["text"]

    def board(self, number: int, record: dict, before: list[tuple[str, str, str]]) -> tuple[str, str, str]:
        game, name, text = record["game"], record["name"], record["text"]
        what = f"board {game}/{name}"
        if game not in owner_boards.games():
            raise self.fail(number, what, f"{game!r} is not a game played on a board file ({', '.join(owner_boards.games())})")
        if not isinstance(name, str) or not owner_boards.NAME.fullmatch(name) or not isinstance(text, str):
            raise self.fail(number, what, "name is a board name (a-z, 0-9, '-', '_') and text the file's text")
        if any(game == g and name == n for g, n, _ in before):
            raise self.fail(number, what, "appears twice")
        try:
            owner_boards.check_text(game, name, text)
        except engines.IllegalAction as refused:
            raise self.fail(number, what, f"refused by {game}: {refused}") from None
        return game, name, text

    def enrolment(self, number: int, record: dict, before: dict[str, int]) -> tuple[str, int]:
        game, position = record["game"], record["next"]
        if game not in engines.names() or game in before:
            raise self.fail(number, "enrolment", f"{game!r} is not a game, or appears twice")
        if type(position) is not int or not 0 <= position <= len(slots(game)):
            raise self.fail(number, f"enrolment of {game}", f"next must be a position 0..{len(slots(game))}, not {position!r}")
        return game, position

    def game(self, number: int, record: dict) -> GameRecord:
        gid = record["gid"]
        if not isinstance(gid, str) or not GID.fullmatch(gid):
            raise self.fail(number, "game", f"{gid!r} is not a game id (letters, digits, '-' and '_', at most 64)")
        what = f"game {gid}"
        if gid in self.games.gids:
            raise self.fail(number, what, "appears twice")
        checks = (
            (record["game"] in engines.names(), f"unknown game {record['game']!r}; the games are {', '.join(engines.names())}"),
            (isinstance(record["players"], list) and all(isinstance(p, str) for p in record["players"]), "players is a list of names"),
            (isinstance(record["options"], dict), "options is an object"),
            (isinstance(record["created"], (int, float)) and not isinstance(record["created"], bool), "created is a time stamp"),
            (record["status"] in STATUSES, f"status is one of {', '.join(STATUSES)}"),
            (record["scores"] is None or isinstance(record["scores"], list), "scores is a list or null"),
            (isinstance(record["hints"], bool), "hints is true or false"),
            (isinstance(record["entries"], list), "entries is a list"),
            (record.get("cards") is None or isinstance(record["cards"], list) and len(record["cards"]) == len(record["players"])
             and all(c is None or isinstance(c, str) for c in record["cards"]), "cards is a player id or null per seat"),
        )
        for fine, message in checks:
            if not fine:
                raise self.fail(number, what, message)
        entries = [self.entry(number, what, position, entry) for position, entry in enumerate(record["entries"], start=1)]
        game = _game_of(record, entries)
        try:
            Session.from_record(None, game)
        except CorruptJournal as error:
            raise self.fail(number, what, str(error).removeprefix(f"game {gid}: ")) from None
        return game

    def entry(self, number: int, what: str, position: int, entry: Any) -> tuple[str, dict | None]:
        if entry == {"undo": True}:
            return "undo", None
        if isinstance(entry, dict) and set(entry) == {"action"} and isinstance(entry["action"], dict):
            return "action", entry["action"]
        raise self.fail(number, what, f"entry {position} is neither {{\"action\": {{...}}}} nor {{\"undo\": true}}: {entry!r}")

    def current_game(self, count: int) -> str | None:
        found = self.current
        if len(found) != 1:
            raise self.fail(found[1][0] if found else count, "current", "a backup has exactly one current record")
        number, gid = found[0]
        if gid is not None and gid not in self.games.gids:
            raise self.fail(number, "current", f"the current game {gid!r} is not among the backup's games")
        return gid


def _game_of(record: dict, entries: list[tuple[str, dict | None]]) -> GameRecord:
    """A game record (its keys checked) and its entries as a GameRecord."""
    return GameRecord(record["gid"], record["game"], record["players"], record["options"], float(record["created"]),
                      record["status"], entries, record["scores"], record["hints"], record.get("cards"))


class _Games(Sequence):
    """The games of a backup file, each checked once where it was read, then read again from its
    place in the file when used (one at a time: the file's games are never all in memory); a line
    that no longer has the digest it had when it was checked refuses the file (BadBackup)."""

    def __init__(self, source: str, reopen: Callable[[], BinaryIO]):
        self.source = source
        self.reopen = reopen
        self.gids: set[str] = set()
        #: (line number, offset, length, SHA-256) of each game's line, in the file's order
        self.places: list[tuple[int, int, int, bytes]] = []

    def add(self, gid: str, number: int, offset: int, raw: bytes) -> None:
        self.gids.add(gid)
        self.places.append((number, offset, len(raw), hashlib.sha256(raw).digest()))

    def __len__(self) -> int:
        return len(self.places)

    def __getitem__(self, index: int) -> GameRecord:
        with self.reopen() as file:
            return self._read(file, *self.places[index])

    def __iter__(self) -> Iterator[GameRecord]:
        with self.reopen() as file:
            for place in self.places:
                yield self._read(file, *place)

    def _read(self, file: BinaryIO, number: int, offset: int, length: int, digest: bytes) -> GameRecord:
        file.seek(offset)
        raw = file.read(length)
        if hashlib.sha256(raw).digest() != digest:
            raise BadBackup(f"{self.source}, line {number}: changed since it was checked; nothing more was restored "
                            "from it (what was is kept): restore it again")
        record = json.loads(raw)
        return _game_of(record, [("undo", None) if entry == {"undo": True} else ("action", entry["action"]) for entry in record["entries"]])
