"""Backups of a table: every game with its log and header, the tag map, the owner's board files and the
profile, in one readable file (fileformat.py); and the restore that brings them back.

    report = take(profile, "table.backup.jsonl")           # `tablemate backup FILE`
    report = take_nightly(profile, "/var/backups/tablemate", keep=14)   # the nightly timer
    report = restore(profile, "table.backup.jsonl")        # `tablemate restore FILE`

Games are read and written through the journal's API and tags through the tag map's, never by key
name. A game the store cannot give whole (a missing entry, a log the rules refuse) is left out of the
backup and named in it, so a backup always restores.

A backup is written readable by its owner and group only (0640), with the profile's club password
blanked out (firmware.config.redacted): the file is copied off the machine. A profile whose
password cannot be taken out of its text is left out, and said.

`restore` checks the whole file first (the format, every tag against its game, every board file,
every game replayed through its engine) and refuses a bad file whole, naming the line. Only then it
writes, and it never overwrites: a game already here with the same gid is kept; when the backup's
game is the same game (same header, one log the start of the other) the longer log wins by
appending the missing entries, otherwise the backup's game is restored under a new gid and the
report says so. A board file that differs from the owner's file of the same name is written beside
it (`<name>-restored`), and a profile that differs from this one is written beside it
(`<profile>.restored`) for the owner to compare: the running profile is never replaced.
"""

import datetime
import importlib.metadata
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import engines

from ..boards import Boards, write_file
from ..config import REDACTED, Profile, redacted
from ..enrolment import Progress
from ..journal import CorruptJournal, GameRecord, Journal
from ..report import counted
from ..session import Session
from ..store import connect
from ..tagmap import TagMap
from .fileformat import MAX_BACKUP, BadBackup, Contents, dump, read

__all__ = ["BadBackup", "Report", "RestoreFailed", "load", "restore", "take", "take_nightly"]

#: The nightly files: tablemate-<table>-<YYYYmmdd-HHMMSS>.backup.jsonl
SUFFIX = ".backup.jsonl"


class RestoreFailed(RuntimeError):
    """The store stopped answering during a restore; what was written stays, and a new run completes it."""


@dataclass
class Report:
    """What a backup or a restore did, line by line; `problems` make the command fail."""

    lines: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def take(profile: Profile, path: str | Path) -> Report:
    """Write a backup of the profile's table to `path` (atomically: a file is whole or absent)."""
    contents, report = _snapshot(profile)
    write_file(Path(path), dump(contents), 0o640)
    report.lines.insert(0, f"backup of table {contents.table!r} written to {path}")
    return report


def take_nightly(profile: Profile, folder: str | Path, keep: int) -> Report:
    """A dated backup in `folder`, then only the newest `keep` of this table's dated backups are kept."""
    folder = Path(folder)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    report = take(profile, folder / f"tablemate-{profile.table.id}-{stamp}{SUFFIX}")
    pattern = re.compile(rf"tablemate-{re.escape(profile.table.id)}-\d{{8}}-\d{{6}}{re.escape(SUFFIX)}")
    dated = sorted(path for path in folder.iterdir() if pattern.fullmatch(path.name))
    for old in dated[:-keep]:
        old.unlink()
        report.lines.append(f"removed {old.name} (the newest {keep} are kept)")
    return report


def load(path: str | Path) -> Contents:
    """The checked contents of the backup at `path`, read line by line (fileformat.py); BadBackup names
    what is wrong, a file over MAX_BACKUP bytes before it is read."""
    try:
        size = os.stat(path).st_size
        if size > MAX_BACKUP:
            raise BadBackup(f"{path}: {size} bytes, more than the {MAX_BACKUP // 1024 ** 3} GB a backup may have: "
                            "refused before reading it")
        return read(lambda: open(path, "rb"), str(path))
    except OSError as error:
        raise BadBackup(f"{path}: cannot read it ({error})") from None


def _snapshot(profile: Profile) -> tuple[Contents, Report]:
    """The table as it is now, as the journal, the tag map and the owner's files give it."""
    client = connect(profile.store.url)
    journal, tags = Journal(client, profile.table.id), TagMap(client, profile.table.id)
    report = Report()
    contents = Contents(profile.table.id, datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), _version())
    text = redacted(profile, profile.path.read_text(encoding="utf-8"))
    if text is None:
        report.problems.append(f"the profile {profile.path} is not in the backup: its [club] password could not be blanked out "
                               "of its text (write it as password = \"...\" on a line of its own)")
    else:
        contents.profile = (profile.path.name, text)
    contents.boards = Boards(profile.boards.dir).files()
    report.problems += [f"tag map: {problem} (not in the backup)" for problem in tags.load()]
    contents.tags = dict(tags.items())
    progress = Progress(tags, profile.table.id)
    contents.enrolment = {game: position for game in engines.names() if (position := progress.get(game))}
    for gid in journal.games():
        try:
            record = journal.load(gid)
            Session.from_record(journal, record)
        except KeyError:
            contents.skipped.append((gid, "its header is missing"))
        except CorruptJournal as error:
            contents.skipped.append((gid, str(error)))
        else:
            contents.games.append(record)
    report.problems += [f"game {gid} is not in the backup: {reason}" for gid, reason in contents.skipped]
    current = journal.current()
    contents.current = current if any(game.gid == current for game in contents.games) else None
    report.lines += [f"{counted(len(contents.games), 'game')}, {counted(len(contents.tags), 'tag')}, "
                     f"{counted(len(contents.boards), 'board file')}"
                     + (f", the profile {contents.profile[0]}" if contents.profile else "")]
    return contents, report


def _version() -> str:
    try:
        return f"tablemate {importlib.metadata.version('tablemate')}"
    except importlib.metadata.PackageNotFoundError:
        return "tablemate (not installed: run from a checkout)"


def restore(profile: Profile, path: str | Path) -> Report:
    """Check the backup at `path` whole, then bring its table back into the profile's table."""
    contents = load(path)
    boards = Boards(profile.boards.dir)
    if contents.boards and profile.boards.dir is None:
        raise BadBackup(f"{path} holds {counted(len(contents.boards), 'board file')}, but {profile.path} names no [boards] dir to put them in")
    client = connect(profile.store.url)
    journal, tags = Journal(client, profile.table.id), TagMap(client, profile.table.id, profile.store.copy_dir(profile.store.url))
    tags.load()
    current_here = journal.current()
    report = Report()
    if contents.table != profile.table.id:
        report.lines.append(f"the backup is of table {contents.table!r}; restored into table {profile.table.id!r} ({profile.path})")
    for game, name, text in contents.boards:
        report.lines.append(_restore_board(boards, game, name, text))
    if contents.profile is not None:
        report.lines.append(_restore_profile(profile, *contents.profile))
    report.lines.append(_restore_tags(tags, contents))
    progress = Progress(tags, profile.table.id)
    for game, position in contents.enrolment.items():
        if not progress.get(game):
            progress.set(game, position)
    renamed: dict[str, str] = {}
    for game in contents.games:
        line, renamed[game.gid] = _restore_game(client, profile.table.id, journal, game)
        report.lines.append(line)
    report.lines += [f"game {gid} was not in the backup ({reason})" for gid, reason in contents.skipped]
    current = current_here or (renamed[contents.current] if contents.current else None)
    if current:
        client.set(journal.key("current"), current)
    else:
        client.delete(journal.key("current"))
    report.lines.append("if the table's service runs, restart it to use what was restored: sudo systemctl restart tablemate")
    return report


def _restore_board(boards: Boards, game: str, name: str, text: str) -> str:
    here = boards.folder(game) / f"{name}.toml"
    if here.exists() and here.read_text(encoding="utf-8") != text:
        name = _free_name(lambda candidate: boards.folder(game) / f"{candidate}.toml", f"{name}-restored", text)
    target, outcome = boards.write(game, name, text)
    return f"board {game}/{name}: {outcome} ({target})"


def _free_name(place, base: str, text: str) -> str:
    """`base`, or `base-2`, `base-3`...: the first name whose file is absent or already holds `text`."""
    number, name = 1, base
    while place(name).exists() and place(name).read_text(encoding="utf-8") != text:
        number += 1
        name = f"{base}-{number}"
    return name


def _restore_profile(profile: Profile, name: str, text: str) -> str:
    if redacted(profile, profile.path.read_text(encoding="utf-8")) == text:
        return f"profile: the same as {profile.path}"
    target = profile.path.with_name(f"{name}.restored")
    try:
        write_file(target, text, 0o640)
        _same_group(target, profile.path)
    except PermissionError as error:
        raise RestoreFailed(f"cannot write {target}: {error.strerror} (on the Pi: run it with sudo)") from None
    blanked = " (its club password was left out of the backup: put yours back)" if REDACTED in text else ""
    return f"profile: the backup's differs from {profile.path}: written to {target} to compare (yours is unchanged){blanked}"


def _same_group(target: Path, model: Path) -> None:
    """`target` in `model`'s group (the profile's: root and tablemate read it), where this user may say so."""
    try:
        os.chown(target, -1, model.stat().st_gid)
    except PermissionError:
        pass


def _restore_tags(tags: TagMap, contents: Contents) -> str:
    """The backup's tags go in; a component this map has on another tag moves to the backup's tag
    (one component, one tag, as `tags import`)."""
    here = dict(tags.items())
    new = {uid: entry for uid, entry in contents.tags.items() if here.get(uid) != entry}
    moved = 0
    for uid, entry in new.items():
        previous = tags.find(entry.game, entry.descriptor["id"])
        if previous is not None and previous != uid and previous not in contents.tags:
            tags.forget(previous)
            moved += 1
    tags.set_many(new)
    return (f"tags: {len(contents.tags)} in the backup, {len(contents.tags) - len(new)} already here, {len(new)} written"
            + (f", {counted(moved, 'component')} moved back to the backup's tags" if moved else ""))


def _restore_game(client, table: str, journal: Journal, game: GameRecord) -> tuple[str, str]:
    """Write one game; (what happened, the gid it has here)."""
    try:
        here = journal.load(game.gid) if _taken(journal, game.gid) else None
    except (KeyError, CorruptJournal):
        here = "damaged"
    title = f"game {game.gid} ({game.game}, {counted(len(game.entries), 'entry', 'entries')})"
    if isinstance(here, GameRecord) and here.header() == game.header() and here.created == game.created:
        shorter = min(len(here.entries), len(game.entries))
        if here.entries[:shorter] == game.entries[:shorter]:
            if len(here.entries) >= len(game.entries):
                return f"{title}: already here", game.gid
            _write(client, table, game, start=len(here.entries))
            return f"{title}: {counted(len(game.entries) - len(here.entries), 'entry', 'entries')} added to the copy here", game.gid
    gid = game.gid
    if here is not None:
        gid = _free_gid(journal, game.gid)
    _write(client, table, GameRecord(gid, game.game, game.players, game.options, game.created, game.status,
                                     game.entries, game.scores, game.hints, game.cards), start=0)
    if gid != game.gid:
        return f"{title}: this table holds a different game {game.gid}: both kept, the backup's as {gid}", gid
    return f"{title}: restored", gid


def _taken(journal: Journal, gid: str) -> bool:
    """Whether anything of game `gid` is stored here: listed, or a header or a log left without it."""
    return gid in journal.games() or bool(journal.client.exists(journal.key("game", gid), journal.log_key(gid)))


def _free_gid(journal: Journal, gid: str) -> str:
    base = f"{gid[:55]}-restored"
    candidate, number = base, 1
    while _taken(journal, candidate):
        number += 1
        candidate = f"{base}-{number}"
    return candidate


def _write(client, table: str, game: GameRecord, start: int) -> None:
    """Journal `game`'s entries after `start` (and its header when `start` is 0), as the table would."""
    journal = Journal(client, table, clock=lambda: game.created)
    if start == 0:
        journal.begin_game(game.gid, game.game, game.players, game.options, game.hints, game.cards)
    else:
        journal.adopt(journal.load(game.gid))
    entries = [action if kind == "action" else None for kind, action in game.entries[start:]]
    if entries:
        journal.append(game.gid, start + 1, *entries)
    if game.status != "playing":
        journal.set_status(game.gid, game.status, game.scores)
    journal.release()
    if journal.pending:
        raise RestoreFailed(f"the store did not take game {game.gid} ({journal.trouble.detail}); run restore again "
                            f"once it does (what is written is kept, and a second run completes it)")
