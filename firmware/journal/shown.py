"""The record of what the players were shown: one line per accepted write, appended to
`<local_dir>/<table>.shown` by the loop once the frame that shows it is handed to the display,
with one write() and no fsync, so that it costs the tap neither the card's latency nor the time to
its frame.

What it can promise, and what not (the package docstring, "Saved, and not yet"): a write() is in the
kernel's page cache at once, so the record survives a crash or a kill of the appliance whole (the
cache outlives the process), and the next start finds it. After a power cut it may or may not be
on the card: the kernel writes a dirty page back once it is 30 s old (vm.dirty_expire_centisecs),
or sooner under memory pressure, in no promised order, and a card drops whatever it had not
programmed. So at start it names an input the players saw and the store lacks only when its line
reached the card, which is likely for one that waited half a minute (a stalled card, Redis down
while the local copy failed) and unlikely for one that waited a few milliseconds; an input whose
line was lost too cannot be named by anything that costs no fsync. A line torn by the cut, or
damaged, is skipped: this record only adds names, it never changes a game.

  {"gid": G, "entry": N, "action": {..}}   entry N of game G: an action, or null for an undo marker
"""

import json
import logging
import os
from pathlib import Path

log = logging.getLogger(__name__)


class Shown:
    """One table's record of what was shown. Off when it cannot be written (logged once; nothing
    else depends on it)."""

    def __init__(self, directory: Path, table: str):
        self.path = Path(directory) / f"{table}.shown"
        self._fd: int | None = None

    def read(self) -> list[tuple[str, int, dict | None]]:
        """The entries recorded since the file was last cleared, in order (none without a file)."""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return []
        except OSError as error:
            log.warning("%s cannot be read (%s): no input shown before the stop can be named", self.path, error)
            return []
        found = []
        for line in data.split(b"\n"):
            try:
                record = json.loads(line)
                gid, entry, action = record["gid"], record["entry"], record["action"]
            except (ValueError, TypeError, KeyError):
                continue  # torn by a power cut, or damaged: this record only adds names
            if isinstance(gid, str) and type(entry) is int and (action is None or isinstance(action, dict)):
                found.append((gid, entry, action))
        return found

    def open(self) -> None:
        """Start a new record (the old one read and dealt with)."""
        self.close()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o644)
        except OSError as error:
            log.warning("%s cannot be written (%s): inputs lost by a power cut will not be named", self.path, error)

    def note(self, shown: list[tuple[str, int, list[dict | None]]]) -> None:
        """These entries are on the screen, each (gid, first entry's number, its actions and None
        for an undo marker): one write(), no fsync."""
        if self._fd is None:
            return
        data = b"".join(json.dumps({"gid": gid, "entry": n, "action": a}, ensure_ascii=False).encode() + b"\n"
                        for gid, first, actions in shown for n, a in enumerate(actions, start=first))
        try:
            os.write(self._fd, data)
        except OSError as error:
            log.warning("%s cannot be written (%s): inputs lost by a power cut will not be named", self.path, error)
            self.close()

    def size(self) -> int:
        """The record's size in bytes (0 when off)."""
        return os.fstat(self._fd).st_size if self._fd is not None else 0

    def clear(self) -> None:
        """Everything recorded is saved: start again from an empty file (no fsync: a power cut that
        brings old lines back only names inputs the store holds, which are not named)."""
        if self._fd is not None:
            try:
                os.ftruncate(self._fd, 0)
            except OSError as error:
                log.warning("%s cannot be cleared (%s)", self.path, error)
                self.close()

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None
