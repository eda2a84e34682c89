"""Questions the table asks while building an action, and the flows that ask them.

A flow is a generator: it yields `Choose` (pick one option with next/ok or the encoder, or tap a
component when the question takes taps too) or `Tap` (tap a component of one of some kinds, or press
ok when `done` is given) and finally returns what it built (an action, or set-up options). This
keeps each game's input logic a short, readable function, and the table runs every flow the same way.
"""

from dataclasses import dataclass
from typing import Any, Callable, Generator, Iterable


@dataclass(frozen=True)
class Option:
    label: str
    value: Any


@dataclass(frozen=True)
class MiniMap:
    """A small map beside a chooser: the board's cells and where each option lies on it."""

    cells: tuple[tuple[int, int, bool], ...]  # (row, col, occupied)
    #: the cells each option stands for, one tuple per option in the options' order (a space: its
    #: cell; a quarter: its free cells)
    marks: tuple[tuple[tuple[int, int], ...], ...]


@dataclass(frozen=True)
class Choose:
    question: str
    options: tuple[Option, ...]
    start: int = 0
    #: the action field this answer fills, when it fills one (for recorded demos and tests)
    field: str | None = None
    map: MiniMap | None = None
    #: when set, a tap answers too: `tap(entry)` turns the tapped component into an option's value,
    #: or raises IllegalAction to refuse that tap (the question stays on screen)
    tap: Callable[[Any], Any] | None = None

    @classmethod
    def of(cls, question: str, pairs: Iterable[tuple[str, Any]], start: int = 0, field: str | None = None,
           map: MiniMap | None = None, tap: Callable[[Any], Any] | None = None) -> "Choose":
        return cls(question, tuple(Option(label, value) for label, value in pairs), start, field, map, tap)


@dataclass(frozen=True)
class Tap:
    question: str
    kinds: tuple[str, ...]
    #: label of the ok button when the tap is optional (ok then answers None)
    done: str | None = None
    #: the action field the tapped component fills
    field: str | None = None
    #: answer (entry, seat of the reader) instead of the entry alone
    with_seat: bool = False
    #: a second line under the question (progress, for example)
    note: str = ""
    #: undo answers BACK (a step back inside the flow) instead of closing the flow
    back: bool = False
    #: the screen's title while this is asked (default: the game in progress)
    title: str = ""
    #: the component ids taken, when only some of `kinds` are (the province tile of this round):
    #: another is refused by the table, and the virtual table greys it
    only: tuple[str, ...] = ()


class _Marker:
    """A value that means something to the table itself, never a game's value."""

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return self.name


#: The answer to a `Tap(back=True)` when undo is pressed.
BACK = _Marker("BACK")
#: An option meaning "none of these: build the answer step by step" (the steps' `field` ends in "[]":
#: each question fills one item of that list, and an option of value None ends it).
STEPWISE = _Marker("STEPWISE")
#: Tap kinds that accept any tag, known or not; the answer is (uid, entry or None)
ANY_TAG = ("*",)


@dataclass(frozen=True)
class Replace:
    """Replace the last standing action by `action` (e.g. a second card tapped just after the first)."""

    action: dict


Request = Choose | Tap
Flow = Generator[Request, Any, Any]


def ask(question: str, pairs: Iterable[tuple[str, Any]], field: str | None = None) -> Flow:
    """Choose one of `pairs`, but without asking when there is only one: its value is the answer."""
    request = Choose.of(question, pairs, field=field)
    if len(request.options) == 1:
        return request.options[0].value
    return (yield request)


def yes_no(question: str, default: bool = False, field: str | None = None) -> Choose:
    return Choose.of(question, [("No", False), ("Yes", True)], start=1 if default else 0, field=field)


@dataclass(frozen=True)
class Done:
    """A flow's end: what it built (an action, Replace, set-up options, None)."""

    result: Any


def tried(make: Callable[[], Flow], answers: Iterable[Any] = ()) -> Request | Done:
    """Where a new flow from `make` goes when given `answers`: its next request, or Done; whatever the
    flow raises (IllegalAction: it refuses an answer) is raised. A trial: nothing of the table changes,
    for a flow that only reads (a game's adapter's)."""
    flow = make()
    try:
        request = next(flow)
        for answer in answers:
            request = flow.send(answer)
    except StopIteration as stop:
        return Done(stop.value)
    finally:
        flow.close()
    return request


class Running:
    """A flow in progress, made by `make`: its current request, the answers given so far and where
    the chooser's cursor is."""

    def __init__(self, make: Callable[[], Flow], *, undo_undoes: bool):
        self.make = make
        self.flow = make()
        #: a flow the game demanded by itself (placements after a withdraw): undo then undoes the
        #: last action rather than just closing the question
        self.undo_undoes = undo_undoes
        self.request: Request | None = None
        self.result: Any = None
        self.index = 0
        self.answers: list[Any] = []
        self._advance(None, first=True)

    @property
    def done(self) -> bool:
        return self.request is None

    def answer(self, value: Any) -> None:
        self.answers.append(value)
        self._advance(value)

    def trial(self, value: Any) -> Request | Done:
        """Where answering `value` would lead, found on a new flow given the same answers (`tried`)."""
        return tried(self.make, [*self.answers, value])

    def move(self, steps: int) -> None:
        if isinstance(self.request, Choose) and self.request.options:
            self.index = (self.index + steps) % len(self.request.options)

    def chosen(self) -> Any:
        return self.request.options[self.index].value

    def cancel(self) -> None:
        self.flow.close()
        self.request = None

    def _advance(self, value: Any, first: bool = False) -> None:
        try:
            self.request = next(self.flow) if first else self.flow.send(value)
        except StopIteration as stop:
            self.request, self.result = None, stop.value
            return
        except BaseException:
            self.request = None  # the flow refused (IllegalAction) or broke: it is over
            raise
        if isinstance(self.request, Choose):
            if not self.request.options:
                raise ValueError(f"a chooser with no options: {self.request.question!r}")
            self.index = self.request.start
