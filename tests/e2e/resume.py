"""Where a restarted table resumes a script: the journal's signature after each input of an
uninterrupted run (the recovery tests and the club tests)."""

import json

from firmware.journal import Journal

from .rig import Rig

Signature = tuple[int, str | None] | None


def signature(actions) -> Signature:
    """How many actions stand and which is last (canonical JSON: the journal's and the engine's agree)."""
    return len(actions), json.dumps(actions[-1], sort_keys=True) if actions else None


def journal_signature(journal: Journal) -> Signature:
    """The signature of the table's current game as stored; None before any game."""
    gid = journal.current()
    return None if gid is None else signature(journal.load(gid).actions)


def stored_entries(journal: Journal) -> list:
    gid = journal.current()
    return [] if gid is None else journal.load(gid).entries


class NotingRig(Rig):
    """A rig that notes the game's signature after every input it plays."""

    def __init__(self, url: str, table: str = "t1"):
        self.lines: list[str] = []
        self.marks: list[Signature] = []
        super().__init__(url, table, record=self.lines)

    def step(self, verb: str, *args: str) -> None:
        super().step(verb, *args)
        session = self.table.session
        self.marks.append(None if session is None else signature(session.actions))
