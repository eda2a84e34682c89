"""The one contract every game follows: a State dataclass and a Game whose actions are `do_<type>` methods.

A game subclasses `State` with its own fields and `Game` with one `do_<type>(state, action)` method
per action type. `apply` copies the state, lets the handler change the copy, and records the action;
the state passed in is never touched, so a refused action leaves nothing behind.
"""

import json
import pickle
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterable, Mapping

from . import check
from .errors import IllegalAction
from .turns import leaders
from .types import Preview, Prompt, Score


@dataclass(kw_only=True)
class State:
    """What every game's state holds; games add their own fields in a subclass.

    `actions` is the accepted log so far (JSON values, in order); `events` holds the short
    announcements of the last action ("Ben: vizier, crown"), for the table's event flash.
    """

    players: tuple[str, ...]
    options: dict[str, Any]
    actions: tuple[dict, ...] = ()
    events: tuple[str, ...] = ()

    @property
    def n_players(self) -> int:
        return len(self.players)

    def copy(self) -> "State":
        """A deep copy of the game's own fields; the log, players and options are shared, never mutated.

        Pickle is several times faster than copy.deepcopy for these plain structures, and leaving the
        growing log out keeps a copy's cost independent of the game's length.
        """
        own = {k: v for k, v in self.__dict__.items() if k not in _SHARED}
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        new.__dict__.update(pickle.loads(pickle.dumps(own, pickle.HIGHEST_PROTOCOL)))
        return new

    def announce(self, text: str) -> None:
        self.events = self.events + (text,)

    def short_name(self, seat: int) -> str:
        """A seat's name cut to fit a line of the small screen."""
        return self.players[seat][:10]


#: State fields that are immutable once set (engines replace them, never change them in place).
_SHARED = frozenset({"players", "options", "actions", "events"})

Handler = Callable[[Any, State, dict], None]


class Game:
    """Base of every engine. Subclasses set the class attributes and define the abstract methods."""

    name: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    #: option name -> default value; options outside this mapping are refused at start.
    option_defaults: ClassVar[Mapping[str, Any]] = {}
    _handlers: ClassVar[dict[str, Handler]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._handlers = {attr[3:]: getattr(cls, attr) for attr in dir(cls) if attr.startswith("do_")}

    @property
    def action_types(self) -> tuple[str, ...]:
        return tuple(sorted(self._handlers))

    # -- the engine API --------------------------------------------------------------------------

    def start(self, players: Iterable[str], options: Mapping[str, Any] | None = None) -> State:
        """A new game for `players` (seat order, clockwise, seat 0 starts) and `options`."""
        names = self._check_players(players)
        opts = self._check_options(options)
        return self.setup(names, opts)

    def apply(self, state: State, action: Any) -> State:
        """The state after `action`; `state` is never changed. Refusals raise IllegalAction."""
        return self._step(state, action, in_place=False)

    def replay(self, players: Iterable[str], options: Mapping[str, Any] | None, actions: Iterable[Any]) -> State:
        """The state after `actions` from the start. A refused action names its place in the log."""
        state = self.start(players, options)
        for number, action in enumerate(actions, start=1):
            try:
                state = self._step(state, action, in_place=True)
            except IllegalAction as refused:
                raise IllegalAction(refused.short, f"action {number} of the log ({action!r}) is refused: {refused}") from refused
        return state

    def preview(self, state: State, action: Any) -> Preview:
        """What `action` would do from `state` (score changes, announcements), `state` untouched."""
        try:
            after = self.apply(state, action)
        except IllegalAction as refused:
            return Preview(action, refused=refused.short)
        before, now = self.scores(state), self.scores(after)
        changes = tuple(
            {key: value - old.breakdown.get(key, 0) for key, value in new.breakdown.items() if value != old.breakdown.get(key, 0)}
            for old, new in zip(before, now)
        )
        totals = tuple(new.total - old.total for old, new in zip(before, now))
        return Preview(after.actions[-1], totals, changes, after.events)

    def scores(self, state: State) -> list[Score]:
        raise NotImplementedError

    def prompt(self, state: State) -> Prompt | None:
        raise NotImplementedError

    def is_over(self, state: State) -> bool:
        raise NotImplementedError

    def winners(self, state: State) -> list[int]:
        """Seats with the highest total (ties share); games with a tie-break override this."""
        return leaders({seat: score.total for seat, score in enumerate(self.scores(state))})

    def phase(self, state: State) -> str:
        """A short line for the scoreboard: the round, turn or phase ("Round 3/12")."""
        raise NotImplementedError

    # -- for subclasses --------------------------------------------------------------------------

    def setup(self, players: tuple[str, ...], options: dict[str, Any]) -> State:
        raise NotImplementedError

    def check_turn(self, state: State, action: dict, expected: int | None) -> int:
        """The acting seat of `action`, which must be `expected` (the seat whose move it is)."""
        seat = check.seat(action, state.n_players)
        if expected is None:
            raise IllegalAction("Nobody's turn now", f"{action.get('type')!r} is not expected now")
        if seat != expected:
            raise IllegalAction(
                f"{state.short_name(expected)}'s turn",
                f"it is {state.players[expected]}'s move, not {state.players[seat]}'s",
            )
        return seat

    # -- internals -------------------------------------------------------------------------------

    def _step(self, state: State, action: Any, *, in_place: bool) -> State:
        action = _canonical(action)
        kind = action.get("type")
        handler = self._handlers.get(kind) if isinstance(kind, str) else None
        if handler is None:
            raise IllegalAction(
                "Unknown action",
                f"{self.name} has no action type {kind!r}; its actions are: {', '.join(self.action_types)}",
            )
        if self.is_over(state):
            raise IllegalAction("The game is over", f"the game is over; {kind!r} is refused")
        new = state if in_place else state.copy()
        new.events = ()
        handler(self, new, action)
        new.actions = state.actions + (action,)
        return new

    def _check_players(self, players: Iterable[str]) -> tuple[str, ...]:
        if isinstance(players, (str, bytes)) or not isinstance(players, Iterable):
            raise IllegalAction("Players: give a list", f"players must be a list of names, not {players!r}")
        names = tuple(players)
        if not all(isinstance(name, str) and name.strip() for name in names):
            raise IllegalAction("Players: empty name", f"every player needs a non-empty name: {names!r}")
        names = tuple(name.strip() for name in names)
        if len(set(names)) != len(names):
            raise IllegalAction("Players: name twice", f"two players have the same name: {names!r}")
        if not self.min_players <= len(names) <= self.max_players:
            raise IllegalAction(
                f"{self.min_players}-{self.max_players} players",
                f"{self.title} is for {self.min_players} to {self.max_players} players, not {len(names)}",
            )
        return names

    def _check_options(self, options: Mapping[str, Any] | None) -> dict[str, Any]:
        if options is None:
            options = {}
        if not isinstance(options, Mapping):
            raise IllegalAction("Options: not a table", f"options must be a mapping, not {options!r}")
        unknown = sorted(set(options) - set(self.option_defaults))
        if unknown:
            raise IllegalAction(
                f"Unknown option '{unknown[0]}'",
                f"{self.title} has no option {unknown[0]!r}; its options are: "
                f"{', '.join(self.option_defaults) or 'none'}",
            )
        return {**self.option_defaults, **_canonical_value(options, "options")}


def _canonical_value(value: Any, what: str) -> Any:
    """A fresh JSON copy of `value`, so later changes by the caller cannot reach the state."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError) as error:
        raise IllegalAction(f"{what.capitalize()}: not JSON", f"{what} must be plain JSON: {error}") from None


def _canonical(action: Any) -> dict:
    if not isinstance(action, dict):
        raise IllegalAction("Not an action", f"an action is a JSON object with a 'type', not {action!r}")
    return _canonical_value(action, "action")
