"""The game in progress: engine states for undo, kept in step with the journal.

An action is checked by the engine first, then written to the journal, and only then becomes the
current state, so the screen never shows what the store has not been given.

Undo takes back a player's input, whole: the action it completed and every action the table then
applied by itself (a question with one answer, answered by the table: the adapter's
`applies_itself`, the rule the table follows when it applies them), back to the state before the
input; pressed again, the input before it, back to the game's start. A card added to a play (a
replace) is an input of its own: its undo puts the play before it back.

The journal holds this in the entries it always had, so the games already stored read as they were
written (no migration):
- an action, one entry, whoever made it: which actions make one input follows from the states
  (`applies_itself` at the state before each), in a replay as at the table;
- an undo: one undo marker per action it takes back, and for a card added to a play the play before
  it again, all in one transaction;
- a replace: an undo marker noted `replaced=1` (journal.records.REPLACING), then the new action, in
  one transaction. Games stored before the note wrote a plain marker: there the two-card play is
  one input, and undo takes it back whole, as the table then did; so does a game restored from a
  backup file, which keeps every action and marker but not the note.
A replay takes each marker as taking back the last standing action (every reader of the journal
does) and rebuilds the inputs with the same steps the live session takes (`_marker`, `_action`),
so a session recovered from the journal is the live one, whatever undo did before.
"""

from dataclasses import dataclass, field
from typing import Any, Callable

import engines

from .adapters import adapter_for
from .journal import CorruptJournal, GameRecord, Journal, new_gid
from .journal.records import GID, REPLACING, replacing  # noqa: F401  (GID: where the web view and the backups find it)


@dataclass(frozen=True)
class Input:
    """A player's input that stands: the standing actions from number `at` (0-based) on are its own;
    `replaced`: the action it replaced (a card added to that play), which its undo puts back."""

    at: int
    replaced: dict | None = None


@dataclass(frozen=True)
class Undone:
    """What an undo took back: the input's first action and the state before it, and the action it
    put back (None: none)."""

    before: engines.State
    action: dict
    replaced: dict | None


def replay(gid: str, name: str, players: list[str], options: dict, entries: list[tuple[int, str, dict | None]]) -> list[engines.State]:
    """The standing states of game `gid` replayed through its engine from its numbered entries
    (number, kind, action); CorruptJournal at an unknown game, a refused set-up or the first entry
    the rules refuse: corruption, never history to skip."""
    return _replayed(gid, name, players, options, entries, applies_itself=lambda state: False).states


def _replayed(gid: str, name: str, players: list[str], options: dict, entries: list[tuple[int, str, dict | None]], *,
              applies_itself: Callable[[engines.State], bool] | None = None, replacements: frozenset[int] = frozenset()) -> "Session":
    """A session without a journal at the end of `entries`; `replacements`: the numbers of the
    markers noted as a replacement's (see the module's docstring)."""
    if name not in engines.names():
        raise CorruptJournal(gid, f"unknown game {name!r}")
    game = engines.get(name)
    try:
        start = game.start(players, options)
    except engines.IllegalAction as refused:
        raise CorruptJournal(gid, f"its set-up is refused: {refused}") from None
    session = Session(None, gid, name, list(players), dict(options), [start], applies_itself=applies_itself)
    replaced = None
    for number, kind, action in entries:
        if kind == "undo":
            taken = session._marker(keep_inputs=number in replacements)
            replaced = taken if number in replacements else None
            continue
        try:
            new = game.apply(session.state, action)
        except engines.IllegalAction as refused:
            raise CorruptJournal(gid, f"entry {number}-0 is refused by the rules: {refused}", number) from None
        session._action(new, replaced)
        replaced = None
    return session


@dataclass
class Session:
    journal: Journal | None
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
    #: the inputs that stand, in order: what undo takes back, the last first
    inputs: list[Input] = field(default_factory=list)
    #: whether the table applies the next action by itself at a state (it then belongs to the input before)
    applies_itself: Callable[[engines.State], bool] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.applies_itself is None:
            self.applies_itself = adapter_for(self.name).applies_itself

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
    def from_record(cls, journal: Journal | None, record: GameRecord) -> "Session":
        numbered = [(number, kind, action) for number, (kind, action) in enumerate(record.entries, start=1)]
        replacements = frozenset(number for number, fields in enumerate(record.raw, start=1) if replacing(fields))
        session = _replayed(record.gid, record.game, record.players, record.options, numbered, replacements=replacements)
        session.journal, session.entries, session.hints = journal, len(record.entries), record.hints
        return session

    def check(self, action: dict, *, replace: bool = False) -> engines.State:
        """The state `action` leads to (IllegalAction when the rules refuse it), nothing changed: the
        engine's judgement that `apply` (or `replace`) makes, for what the table would take now."""
        if not replace:
            return self.game.apply(self.state, action)
        if len(self.states) < 2:
            raise engines.IllegalAction("Nothing to replace", "no action stands to be replaced")
        return self.game.apply(self.states[-2], action)

    def apply(self, action: dict) -> engines.State:
        """Apply `action` (IllegalAction changes nothing), journal it, and make it current."""
        was_over = self.game.is_over(self.state)
        new = self.check(action)
        self._write(new.actions[-1])
        self._action(new, None)
        self._status_changed(was_over)
        return new

    def replace(self, action: dict) -> engines.State:
        """Replace the last standing action by `action` (a card added to a play): checked by the
        engine against the state before it, then journaled as a noted undo marker + the action in one
        transaction. An input of its own: undo puts the action it replaced back."""
        was_over = self.game.is_over(self.state)
        new = self.check(action, replace=True)
        self._write(REPLACING, new.actions[-1])
        self._action(new, self._marker(keep_inputs=True))
        self._status_changed(was_over)
        return new

    def undo(self) -> Undone | None:
        """Take back the last input standing (None when none stands: the game is at its start)."""
        if not self.inputs:
            return None
        last = self.inputs[-1]
        undone = Undone(self.states[last.at], self.actions[last.at], last.replaced)
        was_over = self.game.is_over(self.state)
        back = len(self.actions) - last.at
        self._write(*[None] * back, *([last.replaced] if last.replaced else []))
        for _ in range(back):
            self._marker(keep_inputs=False)
        if last.replaced:
            self._action(self.game.apply(self.state, last.replaced), None)
        self._status_changed(was_over)
        return undone

    def _write(self, *entries: Any) -> None:
        self.journal.append(self.origin, self.entries + 1, *entries)
        self.entries += len(entries)

    # -- what the journal's entries do to the standing actions and the inputs (live and in a replay) --

    def _marker(self, *, keep_inputs: bool) -> dict | None:
        """An undo marker: the last standing action goes (returned; None when none stood) and, unless
        a replacement follows (`keep_inputs`), every input it was part of."""
        if len(self.states) == 1:
            return None
        taken = self.actions[-1]
        self.states.pop()
        if not keep_inputs:
            standing = len(self.actions)
            self.inputs = [i for i in self.inputs if i.at < standing]
        return taken

    def _action(self, new: engines.State, replaced: dict | None) -> None:
        """An action made `new` the current state; `replaced`: the action it replaced. A new input
        unless the table applied it by itself (an action the table applies before any input belongs to
        the start)."""
        at = len(self.actions)
        if replaced is not None:
            self.inputs.append(Input(at, replaced))
        elif not self.applies_itself(self.state):
            self.inputs.append(Input(at))
        self.states.append(new)

    def _status_changed(self, was_over: bool) -> None:
        over = self.game.is_over(self.state)
        if over and not was_over:
            scores = [{"player": s.player, "total": s.total, "breakdown": s.breakdown} for s in self.game.scores(self.state)]
            self.journal.set_status(self.origin, "over", scores)
        elif was_over and not over:
            self.journal.set_status(self.origin, "playing")
