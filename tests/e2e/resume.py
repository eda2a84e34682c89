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


def resume_at(marks: list[Signature], actions: tuple[dict, ...], now: Signature) -> int:
    """The index of the first input still to play when the journal's signature is `now`, in a run whose
    signature after each input is `marks` and whose game is `actions`: after the input that first left
    the journal so; or, when the store holds the first actions of an input and not the ones the table
    then applied by itself (a palace stored, not its chain: each is written in turn), after that input,
    since the restarted table applies the rest by itself as it did then."""
    if now is None:
        return 0
    if now in marks:
        return marks.index(now) + 1
    count = now[0]
    assert signature(actions[:count]) == now, f"the journal holds a game the uninterrupted run never had: {now}"
    return next(n for n, mark in enumerate(marks) if mark is not None and mark[0] > count) + 1


class NotingRig(Rig):
    """A rig that notes the game's signature after every input it plays, and the game's actions."""

    def __init__(self, url: str, table: str = "t1"):
        self.lines: list[str] = []
        self.marks: list[Signature] = []
        self.actions: tuple[dict, ...] = ()
        super().__init__(url, table, record=self.lines)

    def step(self, verb: str, *args: str) -> None:
        super().step(verb, *args)
        session = self.table.session
        self.marks.append(None if session is None else signature(session.actions))
        self.actions = session.actions if session else ()
