"""What `tablemate doctor` says of the local copy ([store] local_dir): on or off and where, whether
its directory takes a file and how much room its disk has, what it holds (games, entries, tags) and
when it was last written, and whether Redis agrees with it (the journal's `local` token and the
tag map's `local:tags` are the file's; the current game has as many entries in both). It only
looks: a damaged file is named, not kept aside. Another user's directory this user may not open
(the service's, to the Pi's login) is not checked, and said so (fine None), not called unwritable."""

import datetime
import os
import pwd
import tempfile
from pathlib import Path

from ..config import Profile
from ..store import choose, connect
from .core import Journal
from .local import Found, LocalCopy
from .refusal import STORE_ERRORS
from .tagcopy import Damaged, Held, TagCopy, marker_key

#: the disk is nearly full below this much room, or below this share of it
LOW_FREE_BYTES, LOW_FREE_SHARE = 100 * 2**20, 0.05
RESTART = "restart the table (sudo systemctl restart tablemate): its start writes to Redis what the copy holds and Redis lacks, then the copy again from Redis"


def check(profile: Profile) -> list[tuple[bool | None, str]]:
    """(fine, sentence) for each thing looked at; fine is None for a check this user may not make."""
    store = choose(profile.store.url, profile.store.fallback)
    directory = profile.store.copy_dir(store.url)
    if directory is None:
        why = "[store] local_dir is not set" if profile.store.local_dir is None else "the store is in this process's memory"
        return [(True, f"local copy: off ({why}): Redis alone keeps the games and the tag map")]
    owner = _closed_to_me(directory)
    if owner is not None:
        return [(None, f"local copy {directory}: it is {owner}'s and user {_name(os.geteuid())} may not open it; run the doctor "
                       f"as root or as {owner} for this check (sudo -u {owner} tablemate doctor)")]
    table = profile.table.id
    found = _disk(directory)
    games, tags = LocalCopy(directory, table), TagCopy(directory, table)
    try:
        held_games = games.load(aside=False)
        held_tags = tags.load()
    except (OSError, Damaged) as error:
        return found + [(False, f"local copy {directory}: cannot be read ({error}); fix: make it readable by the service's user, "
                                f"or move the damaged file away, then {RESTART}")]
    if held_games.damage:
        found.append((False, f"local copy {games.path} is damaged at {held_games.damage}; fix: {RESTART} (it keeps the file aside)"))
    found.append((True, _holds(held_games, held_tags, games.path, tags.path)))
    try:
        return found + _agreement(Journal(connect(store.url), table), held_games, held_tags)
    except STORE_ERRORS:
        return found + [(True, "local copy: not compared with Redis, which does not answer (see above)")]


def _closed_to_me(directory: Path) -> str | None:
    """The owner of `directory` when it is another user's and closed to this one (so this user cannot
    tell whether the table may write it); None when this user can look: root, the owner, or allowed."""
    try:
        info = directory.stat()
    except OSError:
        return None
    if os.geteuid() in (0, info.st_uid) or os.access(directory, os.R_OK | os.W_OK | os.X_OK):
        return None
    return _name(info.st_uid)


def _name(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def _disk(directory: Path) -> list[tuple[bool, str]]:
    """Whether a file can be made in `directory` (or where the table would make it), and the room left."""
    where = directory
    while not where.exists() and where != where.parent:
        where = where.parent
    try:
        if not where.is_dir():
            raise NotADirectoryError(f"{where} is not a directory")
        with tempfile.NamedTemporaryFile(dir=where, prefix=".doctor-"):
            pass
    except OSError as error:
        return [(False, f"local copy {directory}: cannot be written ({error}); fix: make it a directory the service's user "
                        f"may write (sudo install -d -o tablemate -g tablemate -m 0750 {directory})")]
    usage = os.statvfs(where)
    free, share = usage.f_bavail * usage.f_frsize, usage.f_bavail / usage.f_blocks if usage.f_blocks else 1.0
    room = f"{free / 2**20:.0f} MB free ({share:.0%} of its disk)"
    if free < LOW_FREE_BYTES or share < LOW_FREE_SHARE:
        return [(False, f"local copy {directory}: the disk is nearly full, {room}: when it is full the copy stops and Redis's "
                        "append-only file on the same card may too; fix: free room (sudo journalctl --vacuum-size=50M, old backups)")]
    return [(True, f"local copy {directory}: on, writable, {room}")]


def _holds(games: Found, tags: Held | None, *paths: Path) -> str:
    entries = sum(len(game.entries) for game in games.games)
    what = (f"{len(games.games)} game(s), {entries} entries" if games.token else "no games yet") + ", " + (
        f"{len(tags.hashes['tags'])} tags, {len(tags.hashes['enrol'])} games' enrolment places" if tags else "no tag map yet")
    times = [path.stat().st_mtime for path in paths if path.exists()]
    written = (datetime.datetime.fromtimestamp(max(times)).astimezone().isoformat(timespec="seconds") if times
               else "never (the table writes it at its next start)")
    return f"local copy holds {what}; last written {written}"


def _agreement(journal: Journal, games: Found, tags: Held | None) -> list[tuple[bool, str]]:
    """Whether Redis vouches for the files, and holds the current game as the file does."""
    found = []
    mark, marker, current = journal.client.get(journal.local_key), journal.client.get(marker_key(journal.table)), journal.current()
    if games.token is not None and not games.names(mark):
        found.append((False, "local copy of the games: Redis does not vouch for it (its `local` token is not the file's: a run "
                             f"without the copy, `tablemate restore` or a Redis that lost its keys wrote since); fix: {RESTART}"))
    elif games.cut_short(mark):
        found.append((False, f"local copy of the games: it lacks its last {games.cut_short(mark)} records (cut short on the disk, "
                             f"or an older copy put back): Redis's games stand where they hold more; fix: {RESTART}"))
    if tags is not None and marker != tags.version:
        found.append((False, "local copy of the tag map: Redis does not vouch for it (`local:tags` is not the file's version: a "
                             f"change made without the copy, or a Redis that lost its keys); fix: {RESTART}"))
    kept = next((game for game in games.games if game.gid == current), None) if current else None
    if kept is not None:
        stored = journal.lengths([current])[0]
        if stored != len(kept.entries):
            found.append((False, f"game {current}: the local copy holds {len(kept.entries)} entries, Redis {stored}; fix: {RESTART}"))
        elif not found:
            found.append((True, f"local copy agrees with Redis: its tokens are Redis's, and game {current} has {stored} entries in both"))
    elif not found:
        found.append((True, "local copy agrees with Redis: its tokens are Redis's" + (f" (game {current} is not in it: it is "
                            "written there when the table takes it up)" if current else "")))
    return found
