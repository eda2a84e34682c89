"""The game in progress: engine states for undo, kept in step with the journal.

An action is checked by the engine first, then written to the journal, and only then becomes the
current state, so the screen never shows what the store has not been given. Undo appends a marker
and returns to the state before the last standing action; it can be repeated back to the start.
"""

from dataclasses import dataclass, field
from typing import Any

import engines

from .journal import CorruptJournal, GameRecord, Journal, new_gid
from .journal.records import GID  # noqa: F401  (where the web view and the backups find it)


def replay(gid: str, name: str, players: list[str], options: dict, entries: list[tuple[int, str, dict | None]]) -> list[engines.State]:
    """The standing states of game `gid` replayed through its engine from its numbered entries
    (number, kind, action); CorruptJournal at an unknown game, a refused set-up or the first entry
    the rules refuse: corruption, never history to skip."""
    if name not in engines.names():
        raise CorruptJournal(gid, f"unknown game {name!r}")
    game = engines.get(name)
    try:
        states = [game.start(players, options)]
    except engines.IllegalAction as refused:
        raise CorruptJournal(gid, f"its set-up is refused: {refused}") from None
    for number, kind, action in entries:
        if kind == "undo":
            if len(states) > 1:
                states.pop()
            continue
        try:
            states.append(game.apply(states[-1], action))
        except engines.IllegalAction as refused:
            raise CorruptJournal(gid, f"entry {number}-0 is refused by the rules: {refused}", number) from None
    return states


@dataclass
class Session:
    journal: Journal
    #: the gid the game began (or was recovered) under; `gid` is where it is stored now
    origin: str
    name: str
    players: list[str]
    options: dict[str, Any]
    #: states[0] is the start; states[-1] the current state; one more per standing action
    states: list[engines.State] = field(default_factory=list)
    #: entries written so far for this game, undo markers included (the next entry's number - 1)
    entries: int = 0
    hints: bool = True
    #: the status the store held when the game was recovered
    stored_status: str = "playing"

    @property
    def gid(self) -> str:
        """The gid the game is stored under (the journal may have written it again as a new game)."""
        return self.journal.gid_of(self.origin)

    @property
    def game(self) -> engines.Game:
        return engines.get(self.name)

    @property
    def state(self) -> engines.State:
        return self.states[-1]

    @property
    def actions(self) -> tuple[dict, ...]:
        return self.state.actions

    @classmethod
    def start(cls, journal: Journal, name: str, players: list[str], options: dict | None = None, gid: str | None = None,
              hints: bool = True, cards: list[str | None] | None = None) -> "Session":
        """A new game: the engine checks the set-up, then the journal records it as current (with the
        seats player cards claimed, `cards`)."""
        game = engines.get(name)
        state = game.start(players, options)
        session = cls(journal, gid or new_gid(), name, list(state.players), dict(state.options), [state], hints=hints)
        journal.begin_game(session.origin, name, session.players, session.options, hints, cards)
        return session

    @classmethod
    def recover(cls, journal: Journal, gid: str | None = None) -> "Session | None":
        """The current (or given) game rebuilt from its journal, which then writes it; None when there
        is none. A journal entry the engine refuses is corruption, not history to skip: CorruptJournal.
        """
        gid = gid or journal.resumable()
        if gid is None:
            return None
        record = journal.load(gid)
        session = cls.from_record(journal, record)
        session.stored_status = record.status
        journal.adopt(record)
        return session

    def mend(self) -> None:
        """Correct a stored status that disagrees with the replay (over / playing): a stop between a
        game's last entry and its status write leaves the status behind."""
        self._status_changed(was_over=self.stored_status == "over")

    @classmethod
    def from_record(cls, journal: Journal, record: GameRecord) -> "Session":
        numbered = [(number, kind, action) for number, (kind, action) in enumerate(record.entries, start=1)]
        states = replay(record.gid, record.game, record.players, record.options, numbered)
        return cls(journal, record.gid, record.game, record.players, record.options, states, len(record.entries), record.hints)

    def apply(self, action: dict) -> engines.State:
        """Apply `action` (IllegalAction changes nothing), journal it, and make it current."""
        was_over = self.game.is_over(self.state)
        new = self.game.apply(self.state, action)
        self.entries += 1
        self.journal.append(self.origin, self.entries, new.actions[-1])
        self.states.append(new)
        self._status_changed(was_over)
        return new

    def replace(self, action: dict) -> engines.State:
        """Replace the last standing action by `action` (a second card joining a play): checked by the
        engine against the state before it, then journaled as undo + action in one transaction."""
        if len(self.states) < 2:
            raise engines.IllegalAction("Nothing to replace", "no action stands to be replaced")
        was_over = self.game.is_over(self.state)
        new = self.game.apply(self.states[-2], action)
        self.journal.append(self.origin, self.entries + 1, None, new.actions[-1])
        self.entries += 2
        self.states[-1] = new
        self._status_changed(was_over)
        return new

    def undo(self) -> bool:
        """Return to the state before the last standing action; False when at the start."""
        if len(self.states) == 1:
            return False
        was_over = self.game.is_over(self.state)
        self.entries += 1
        self.journal.append(self.origin, self.entries, None)
        self.states.pop()
        self._status_changed(was_over)
        return True

    def _status_changed(self, was_over: bool) -> None:
        over = self.game.is_over(self.state)
        if over and not was_over:
            scores = [{"player": s.player, "total": s.total, "breakdown": s.breakdown} for s in self.game.scores(self.state)]
            self.journal.set_status(self.origin, "over", scores)
        elif was_over and not over:
            self.journal.set_status(self.origin, "playing")
