"""The journal's local copy: a write-ahead file on the appliance's own disk ([store] local_dir), so
that what the table accepted survives a pulled plug while Redis does not hold it, and a game Redis
loses or that is changed under it is written again at the next start. The rules it serves are in
the package's docstring (firmware/journal/__init__.py, "The local copy"); this module is the file.

One file per table, `<local_dir>/<table>.jsonl`: JSON lines, each appended and synced to the disk
(fdatasync) before the write it records goes to Redis (`deferred`: the Writer syncs the lines of
several actions at once, still before their writes go to Redis).
  {"t": "file", "format": 1, "table": T, "token": K, "before": B}
                                                         the first line: the table, the file's token, and
                                                         how many records were written under it before
                                                         the next line (0 when absent)
  {"t": "game", "gid": G, "head": {..}, "state": {..}, "headed": true, "active": true}
                                                         a game: its entry 0-1, its status and notes
  {"t": "entries", "gid": G, "first": N, "fields": [..]} entries N, N+1... as stored (a transaction's)
  {"t": "state", "gid": G, "state": {..}}                its status and scores changed
  {"t": "moved", "gid": G, "to": G2, "head": {..}, "state": {..}}
                                                         the game is being written under another gid
A compaction writes the file again from what the journal holds (a temporary file synced, renamed
over the file, the directory synced): a power cut leaves the old file or the new one, whole.

The records written under a token are counted (B plus the records after the first line; a compaction
keeps the count), and Redis's `local` key holds "K N": the token and the count when the table last
wrote. A file whose count is below N lost records that were sent (cut short on the disk: truncated,
or an older copy of it): Redis does not vouch for it, so what Redis holds beyond it stands.

Reading: a last line torn by a power cut while it was written (what it records was not sent to
Redis) is ignored, with a log line, and never taken as a record, even when what is left of it
parses: a last line without its newline (the write's start reached the disk, not its end), or one
holding NUL bytes (its end did, and its start reads back as the zeros of blocks never written). Any
other line that is not a valid record is damage: the file is kept aside as
`<table>.jsonl.damaged-<time>` for the owner, and the games are taken as the lines before it hold them.
"""

import json
import logging
import os
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from .records import GID, CorruptJournal, GameRecord, parse_entry, parse_identity, parse_state

log = logging.getLogger(__name__)

FORMAT = 1


@dataclass
class Kept:
    """A game as the local copy holds it: what the journal holds of it in memory."""

    gid: str
    head: dict[str, str]
    state: dict[str, str]
    headed: bool
    entries: list[dict[str, str]] = field(default_factory=list)

    def record(self) -> GameRecord:
        """The game as load() would read it from Redis (`tablemate status` shows a game Redis lacks)."""
        identity = parse_identity(self.gid, self.head, "local copy's head")
        status, scores = parse_state(self.gid, self.state)
        record = GameRecord(gid=self.gid, status=status, scores=scores, head=dict(self.head), **identity)
        record.entries = [parse_entry(self.gid, number, fields) for number, fields in enumerate(self.entries, start=1)]
        return record


@dataclass
class Found:
    """What a local copy holds: its token (None: no file), its games in order, the active one's gid."""

    token: str | None = None
    games: list[Kept] = field(default_factory=list)
    active: str | None = None
    #: what is wrong with the file ("line 7: ..."), and where it was kept aside; None: nothing
    damage: str | None = None
    kept_aside: Path | None = None
    #: the records written under the token, as far as the file holds them
    count: int = 0

    def names(self, mark: str | None) -> bool:
        """Whether Redis's `local` mark ("K N", or "K" from before the count) is this file's token."""
        return self.token is not None and _read_mark(mark)[0] == self.token

    def vouched(self, mark: str | None) -> bool:
        """Whether Redis's `local` mark says this file holds every write made to the table: its
        token, and no more records than it has."""
        return not self.damage and self.names(mark) and self.cut_short(mark) == 0

    def cut_short(self, mark: str | None) -> int:
        """How many of the records Redis's `local` mark says this file held it lacks now (0: none,
        or the mark is another file's)."""
        count = _read_mark(mark)[1]
        return max(count - self.count, 0) if self.names(mark) and count is not None else 0


def _read_mark(mark: str | None) -> tuple[str, int | None]:
    """Redis's `local` mark: the token and the count of records (None: a mark from before the count)."""
    token, _, count = (mark or "").partition(" ")
    return token, int(count) if count.isdigit() else None


class Damaged(ValueError):
    """A line of the local copy that is not a valid record."""


class LocalCopy:
    """One table's local copy. Off until `start()`; every write raises OSError when the disk fails
    (the journal then turns it off for the run: `fail()`)."""

    def __init__(self, directory: Path, table: str):
        self.directory = Path(directory)
        self.table = table
        self.path = self.directory / f"{table}.jsonl"
        #: the token written in the file, and whether the file holds every write made under it
        #: (Redis is then told the token: the journal's `local` key)
        self.token: str | None = None
        self.whole = False
        #: why it failed (it stays off for the rest of the run)
        self.failed: str | None = None
        self._file: BinaryIO | None = None
        #: the gid each game of the journal (a Mirror) has in the file
        self._names: dict[Any, str] = {}
        #: records are written at once but synced by `sync()` (the journal's Writer: one fdatasync
        #: for the records of every action that queued up while the last one was made)
        self.deferred = False
        self._unsynced = False

    @property
    def on(self) -> bool:
        return self._file is not None

    @property
    def synced(self) -> bool:
        """On, and every record appended is on the disk."""
        return self.on and not self._unsynced

    # -- reading ---------------------------------------------------------------------------------

    def load(self, aside: bool = True) -> Found:
        """The games the file holds (none when there is no file); a damaged file is kept aside
        (`aside`; else left where it is: `tablemate doctor` only looks)."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return Found()
        lines = data.split(b"\n")
        torn, how = lines.pop(), "its end missing"  # what follows the last newline: nothing, in a whole file
        if not torn and lines and b"\0" in lines[-1]:
            torn, how = lines.pop() + b"\n", "its start never written: NUL bytes"
        if torn:
            log.warning("%s: its last line was torn by a power cut while it was written (%d bytes, %s): ignored; "
                        "the write it records had not gone to Redis", self.path, len(torn), how)
        found, reading = Found(), _Reading(self.table)
        for number, line in enumerate(lines, start=1):
            try:
                reading.take(line)
            except Damaged as error:
                found.damage = f"line {number}: {error}"
                found.kept_aside = set_aside(self.path) if aside else None
                break
        found.token, found.games, found.active, found.count = reading.token, list(reading.games.values()), reading.active, reading.count
        return found

    # -- writing ---------------------------------------------------------------------------------

    def start(self, games: list, active: Any, token: str | None, whole: bool, count: int = 0) -> None:
        """Write the file again holding `games` (the journal's mirrors, `active` among them or None)
        under `token` (None: a new one, which starts the count again), then append to it. `whole`:
        it holds every write made under that token (Redis may be told so); `count`: the records
        written under it so far (kept: the new file counts at least as many)."""
        self.directory.mkdir(parents=True, exist_ok=True)
        records = []
        for game in games:
            records.append(self._game(game, game.gid, game is active))
            if game.entries:
                records.append({"t": "entries", "gid": game.gid, "first": 1, "fields": game.entries})
        before = max(count - len(records), 0) if token else 0
        token = token or secrets.token_hex(8)
        first = {"t": "file", "format": FORMAT, "table": self.table, "token": token, "before": before}
        write_whole(self.path, b"".join(_line(record) for record in [first, *records]))
        self.close()
        self._file, self._unsynced = open(self.path, "ab", buffering=0), False
        self.token, self.whole, self.count = token, whole, before + len(records)
        self._names = {game: game.gid for game in games}

    def rewrite(self, games: list, active: Any) -> None:
        """Compact: the file again, holding just `games`, under the same token and count."""
        self.start(games, active, self.token, self.whole, self.count)

    @property
    def mark(self) -> str:
        """What Redis's `local` key holds while the file holds every write: "token count"."""
        return f"{self.token} {self.count}"

    def holds_only(self, games: list) -> bool:
        """Whether the file holds no game besides `games` (else a compaction makes it smaller)."""
        return set(self._names) <= set(games)

    def begin(self, game: Any) -> None:
        """A game begun: the active one from now on."""
        self._append(self._game(game, game.gid, True))
        self._names[game] = game.gid

    def entries(self, game: Any, first: int) -> None:
        """Entries `first`... of `game` (to its last), in one line: they go to Redis in one transaction."""
        self._append({"t": "entries", "gid": self._names[game], "first": first, "fields": game.entries[first - 1:]})

    def state(self, game: Any) -> None:
        self._append({"t": "state", "gid": self._names[game], "state": game.state})

    def moved(self, game: Any, gid: str, head: dict[str, str], state: dict[str, str]) -> None:
        """`game` is about to be written whole under `gid` with this header (nothing when the file
        already says so)."""
        name = self._names[game]
        if (name, head, state) != (gid, game.head, game.state):
            self._append({"t": "moved", "gid": name, "to": gid, "head": head, "state": state})
            self._names[game] = gid

    def fail(self, error: OSError) -> None:
        """The disk failed: off for the rest of the run (the file stays, no longer whole)."""
        self.failed = str(error)
        self.whole = False
        self.close()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None

    @staticmethod
    def _game(game: Any, gid: str, active: bool) -> dict:
        return {"t": "game", "gid": gid, "head": game.head, "state": game.state, "headed": game.headed, "active": active}

    def _append(self, record: dict) -> None:
        view = memoryview(_line(record))
        while view:
            view = view[self._file.write(view):]
        self.count += 1
        self._unsynced = True
        if not self.deferred:
            self.sync()

    def sync(self) -> None:
        """Put the records appended so far on the disk (fdatasync), when some are not."""
        if self._unsynced and self._file is not None:
            (os.fdatasync if hasattr(os, "fdatasync") else os.fsync)(self._file.fileno())  # macOS has no fdatasync
            self._unsynced = False


def write_whole(path: Path, data: bytes) -> None:
    """`path` written whole: a temporary file synced, renamed over it, the directory synced (a power
    cut leaves the old file or the new one, whole). Its directory must exist."""
    temporary = path.with_name(f"{path.name}.tmp")
    with open(temporary, "wb") as out:
        out.write(data)
        out.flush()
        os.fsync(out.fileno())
    os.replace(temporary, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def set_aside(path: Path) -> Path | None:
    """Keep a damaged file aside for the owner as `<name>.damaged-<time>`; where (None: it could not be)."""
    aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    try:
        os.replace(path, aside)
    except OSError as error:
        log.error("%s could not be kept aside as %s: %s", path, aside, error)
        return None
    return aside


def _line(record: dict) -> bytes:
    return (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


class _Reading:
    """The records of a file replayed in order into games; Damaged at the first invalid one."""

    def __init__(self, table: str):
        self.table = table
        self.token: str | None = None
        self.games: dict[str, Kept] = {}
        self.active: str | None = None
        #: the records written under the token, up to the last line taken
        self.count = 0

    def take(self, line: bytes) -> None:
        try:
            record = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as error:
            raise Damaged(f"not a JSON record ({error})") from None
        if not isinstance(record, dict):
            raise Damaged("not a JSON object")
        kind = record.get("t")
        if self.token is None:
            if kind != "file" or record.get("format") != FORMAT or not isinstance(record.get("token"), str):
                raise Damaged(f"the first line must say the file's format ({FORMAT}) and token")
            if record.get("table") != self.table:
                raise Damaged(f"the file is table {record.get('table')!r}'s, not {self.table!r}'s")
            before = record.get("before", 0)
            if type(before) is not int or before < 0:
                raise Damaged(f"the first line's count of records before it is {before!r}, not a count")
            self.token, self.count = record["token"], before
            return
        handle = {"game": self._game, "entries": self._entries, "state": self._state, "moved": self._moved}.get(kind)
        if handle is None:
            raise Damaged(f"unknown record {kind!r}")
        handle(record)
        self.count += 1

    def _game(self, record: dict) -> None:
        gid = self._new_gid(record, "gid")
        active = record.get("active")
        if not isinstance(record.get("headed"), bool) or not isinstance(active, bool):
            raise Damaged(f"game {gid}: headed and active must be true or false")
        self.games[gid] = Kept(gid, *self._header(gid, record), record["headed"])
        if active:
            self.active = gid
        elif self.active == gid:
            self.active = None

    def _entries(self, record: dict) -> None:
        game = self._known(record)
        first, fields = record.get("first"), record.get("fields")
        if first != len(game.entries) + 1:
            raise Damaged(f"game {game.gid}: entries from {first!r}, after entry {len(game.entries)}")
        if not isinstance(fields, list) or not fields:
            raise Damaged(f"game {game.gid}: entries must be a list of entries")
        for number, entry in enumerate(fields, start=first):
            entry = _strings(entry, f"game {game.gid}: entry {number}")
            parsed = parse_entry(game.gid, number, entry)
            if isinstance(parsed, CorruptJournal):
                raise Damaged(parsed.reason)
            game.entries.append(entry)

    def _state(self, record: dict) -> None:
        game = self._known(record)
        game.state = _strings(record.get("state"), f"game {game.gid}: state")

    def _moved(self, record: dict) -> None:
        game = self._known(record)
        gid = record["to"] if record.get("to") == game.gid else self._new_gid(record, "to")
        del self.games[game.gid]
        if self.active == game.gid:
            self.active = gid
        game.gid, (game.head, game.state) = gid, self._header(gid, record)
        self.games[gid] = game

    def _known(self, record: dict) -> Kept:
        game = self.games.get(record.get("gid"))
        if game is None:
            raise Damaged(f"{record.get('t')} of game {record.get('gid')!r}, which the file has not begun")
        return game

    def _new_gid(self, record: dict, key: str) -> str:
        gid = record.get(key)
        if not isinstance(gid, str) or not GID.fullmatch(gid):
            raise Damaged(f"{gid!r} is not a game id")
        if gid in self.games:
            raise Damaged(f"game {gid} is begun twice")
        return gid

    @staticmethod
    def _header(gid: str, record: dict) -> tuple[dict[str, str], dict[str, str]]:
        head = _strings(record.get("head"), f"game {gid}: head")
        try:
            parse_identity(gid, head, "head")
        except CorruptJournal as error:
            raise Damaged(error.reason) from None
        return head, _strings(record.get("state"), f"game {gid}: state")


def _strings(value: Any, what: str) -> dict[str, str]:
    """`value` as a stored Redis hash or stream entry: text fields holding text."""
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise Damaged(f"{what} must map names to text")
    return value
