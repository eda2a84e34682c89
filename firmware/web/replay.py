"""A stored game replayed for viewing: the standing states and a timeline of every journal entry.

The timeline keeps what the table saw at each entry: the action in words, the events the engine
announced, the totals after it, and undo markers as such (the action they took back is flagged as
undone, never hidden). A replay is never changed once built; a game that grew is replayed from
where the last one stopped (`extended`), so a live game costs one engine step per new entry.
"""

from dataclasses import dataclass, field, replace
from typing import Any

import engines

from ..adapters import adapter_for
from ..journal import CorruptJournal, GameRecord
from .games import renderer
from .jsonify import state_json, to_json

#: How many of the last timeline entries the live page and /api/state carry.
RECENT = 12


@dataclass(frozen=True)
class Replay:
    record: GameRecord
    game: engines.Game
    #: states[0] is the start, then one per standing action
    states: tuple[engines.State, ...]
    #: entry numbers of the standing actions, in order
    standing: tuple[int, ...]
    steps: tuple[dict, ...]
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def of(cls, record: GameRecord) -> "Replay":
        """Game `record` replayed from its start; CorruptJournal when the engine refuses it."""
        if record.game not in engines.names():
            raise CorruptJournal(record.gid, f"unknown game {record.game!r}")
        game = engines.get(record.game)
        try:
            start = game.start(record.players, record.options)
        except engines.IllegalAction as refused:
            raise CorruptJournal(record.gid, f"its set-up is refused: {refused}") from None
        empty = replace(record, entries=[])
        return cls(empty, game, (start,), (), ()).extended(record)

    @property
    def entries(self) -> int:
        return len(self.record.entries)

    @property
    def state(self) -> engines.State:
        return self.states[-1]

    def extended(self, record: GameRecord) -> "Replay":
        """This replay carried on through the entries `record` adds to it (the journal only ever appends)."""
        states, standing, steps = list(self.states), list(self.standing), list(self.steps)
        views = renderer(self.game.name)
        for number, (kind, action) in enumerate(record.entries[self.entries :], start=self.entries + 1):
            if kind == "undo":
                undoes = standing.pop() if standing else None
                if undoes is not None:
                    states.pop()
                    steps[undoes - 1] = {**steps[undoes - 1], "undone": True}
                steps.append(self._step(number, "undo", None, _undo_text(steps, undoes), (), states[-1], undoes=undoes))
                continue
            before = states[-1]
            try:
                after = self.game.apply(before, action)
            except engines.IllegalAction as refused:
                raise CorruptJournal(record.gid, f"entry {number}-0 is refused by the rules: {refused}", number) from None
            states.append(after)
            standing.append(number)
            seat = action.get("player") if type(action.get("player")) is int else None
            steps.append(self._step(number, "action", seat, views.describe(self.game, before, action), after.events, after, action=action))
        return Replay(record, self.game, tuple(states), tuple(standing), tuple(steps))

    def _step(self, n: int, kind: str, seat: int | None, text: str, events: tuple, after: Any, **extra: Any) -> dict:
        step = {
            "n": n,
            "kind": kind,
            "player": seat,
            "text": text,
            "events": list(events),
            "totals": [score.total for score in self.game.scores(after)],
            "phase": self.game.phase(after),
            "undone": False,
        }
        return {**step, **{k: to_json(v) for k, v in extra.items()}}

    # -- what the page and the API show ------------------------------------------------------------

    def payload(self, timeline: str = "recent") -> dict:
        """The game as JSON: scores with breakdowns, prompt, the per-game view, the state, the timeline.

        `timeline` is "recent" (the last RECENT entries, newest last) or "full".
        """
        key = ("payload", timeline)
        if key not in self._cache:
            self._cache[key] = self._payload(timeline)
        return self._cache[key]

    def board(self) -> str | None:
        """The per-game SVG drawing of the current state, or None when the game has none."""
        if "board" not in self._cache:
            self._cache["board"] = renderer(self.game.name).board(self.game, self.state)
        return self._cache["board"]

    def _view(self) -> dict:
        """What the page shows per seat and on the table, with the hints when the table plays with them."""
        rendering = renderer(self.game.name)
        view = rendering.view(self.game, self.state)
        return _with_hints(view, rendering.hints(self.game, self.state)) if self.record.hints and not self.game.is_over(self.state) else view

    def _payload(self, timeline: str) -> dict:
        game, state, record = self.game, self.state, self.record
        over = game.is_over(state)
        winners = game.winners(state) if over else []
        prompt = game.prompt(state)
        steps = self.steps if timeline == "full" else self.steps[-RECENT:]
        return {
            "gid": record.gid,
            "game": game.name,
            "title": game.title,
            "players": list(state.players),
            "options": to_json(state.options),
            "created": record.created,
            "status": "over" if over else "playing",
            "phase": game.phase(state),
            "prompt": None
            if prompt is None
            else {
                "player": prompt.player,
                "name": state.players[prompt.player] if prompt.player is not None else None,
                "expects": list(prompt.expects),
                "text": prompt.text,
                "said": adapter_for(game.name).waiting(prompt),  # as the table's screen says it
            },
            "events": list(state.events),
            "scores": [
                {"seat": seat, "player": s.player, "total": s.total, "breakdown": dict(s.breakdown), "winner": seat in winners}
                for seat, s in enumerate(game.scores(state))
            ],
            "winners": winners,
            "entries": self.entries,
            "view": self._view(),
            "state": state_json(state),
            "timeline": list(steps),
        }


def _with_hints(view: dict, hints: dict[int, str]) -> dict:
    """The view with each seat's hint line added."""
    seats = [dict(seat, **({"Hint": hints[number]} if number in hints else {})) for number, seat in enumerate(view.get("seats", []))]
    return {**view, "seats": seats}


def _undo_text(steps: list[dict], undoes: int | None) -> str:
    if undoes is None:
        return "undo: nothing to take back"
    return f"undo: takes back #{undoes} ({steps[undoes - 1]['text']})"
